use serde_json::json;
use store::audit::{self, AuditAction, NewAuditEntry};
use store::testing::TestDatabase;

use crate::helpers::trafalgar;

async fn database_with_one_entry() -> (TestDatabase, audit::AuditId) {
    let db = TestDatabase::migrated().await;
    let entry = NewAuditEntry {
        actor: "test",
        game: None,
        action: AuditAction::GmCreate {
            name: "England expects".into(),
        },
    };
    let id = audit::append(&db.pool, &entry, trafalgar()).await.unwrap();
    (db, id)
}

fn assert_append_only_error(
    result: Result<sqlx::postgres::PgQueryResult, sqlx::Error>,
    operation: &str,
) {
    let error = result.expect_err("the audit log must refuse the change");
    let message = error.to_string();
    assert!(
        message.contains("append-only") && message.contains(operation),
        "{message}"
    );
}

#[tokio::test]
async fn entries_can_be_appended_and_read() {
    let (db, id) = database_with_one_entry().await;
    let entries = audit::list_recent(&db.pool, 10).await.unwrap();
    assert_eq!(entries.len(), 1);
    let entry = &entries[0];
    assert_eq!(entry.id, id);
    assert_eq!(entry.at, trafalgar());
    assert_eq!(
        (entry.actor.as_str(), entry.action.as_str()),
        ("test", "gm.create")
    );
    assert_eq!(entry.details, json!({ "name": "England expects" }));
    db.drop_database().await;
}

#[tokio::test]
async fn audit_log_rejects_update() {
    let (db, id) = database_with_one_entry().await;
    let result = sqlx::query("UPDATE audit_log SET actor = 'forger' WHERE id = $1")
        .bind(id)
        .execute(&db.pool)
        .await;
    assert_append_only_error(result, "UPDATE");
    let entries = audit::list_recent(&db.pool, 10).await.unwrap();
    assert_eq!(entries[0].actor, "test");
    db.drop_database().await;
}

#[tokio::test]
async fn audit_log_rejects_delete_and_truncate() {
    let (db, id) = database_with_one_entry().await;
    let result = sqlx::query("DELETE FROM audit_log WHERE id = $1")
        .bind(id)
        .execute(&db.pool)
        .await;
    assert_append_only_error(result, "DELETE");
    let result = sqlx::query("TRUNCATE audit_log").execute(&db.pool).await;
    assert_append_only_error(result, "TRUNCATE");
    assert_eq!(audit::list_recent(&db.pool, 10).await.unwrap().len(), 1);
    db.drop_database().await;
}

#[tokio::test]
async fn audit_details_must_be_an_object() {
    let db = TestDatabase::migrated().await;
    // The service writes only objects (`AuditAction`); the schema refuses anything else too.
    let refused = sqlx::query(
        "INSERT INTO audit_log (at, actor, action, details) VALUES (now(), 'test', 'x.y', '[1, 2]')",
    )
    .execute(&db.pool)
    .await;
    assert!(refused.is_err());
    db.drop_database().await;
}
