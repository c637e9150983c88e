use store::testing::TestDatabase;

/// Every table the schema must have, with sqlx's own bookkeeping.
const TABLES: [&str; 35] = [
    "_sqlx_migrations",
    "absences",
    "audit_log",
    "bounce_scores",
    "form_submissions",
    "games",
    "gm_accounts",
    "gm_notice_deliveries",
    "gm_notices",
    "inbound_messages",
    "login_failures",
    "login_links",
    "mail_keys",
    "openings",
    "orders",
    "outbound_bodies",
    "outbound_messages",
    "password_failures",
    "player_replacements",
    "players",
    "press",
    "published_reports",
    "seat_offers",
    "signups",
    "standbys",
    "subscribers",
    "tell_conversations",
    "tell_relayed_messages",
    "turn_reminders",
    "turns",
    "web_sessions",
    "zine_issue_reports",
    "zine_issues",
    "zine_letters",
    "zines",
];

async fn public_tables(pool: &store::PgPool) -> Vec<String> {
    sqlx::query_scalar(
        "SELECT table_name::text FROM information_schema.tables \
         WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name",
    )
    .fetch_all(pool)
    .await
    .unwrap()
}

/// Tables, columns, constraints, indexes and triggers, as one comparable text.
async fn schema_fingerprint(pool: &store::PgPool) -> Vec<String> {
    sqlx::query_scalar(
        "SELECT 'column ' || table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable \
                || ' ' || coalesce(column_default, '') \
           FROM information_schema.columns WHERE table_schema = 'public' \
         UNION ALL \
         SELECT 'constraint ' || conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid) \
           FROM pg_constraint WHERE connamespace = 'public'::regnamespace \
         UNION ALL \
         SELECT 'index ' || indexdef FROM pg_indexes WHERE schemaname = 'public' \
         UNION ALL \
         SELECT 'trigger ' || tgrelid::regclass::text || ' ' || tgname FROM pg_trigger WHERE NOT tgisinternal \
         ORDER BY 1",
    )
    .fetch_all(pool)
    .await
    .unwrap()
}

#[tokio::test]
async fn migrations_create_every_table() {
    let db = TestDatabase::migrated().await;
    let mut tables = public_tables(&db.pool).await;
    tables.sort_unstable();
    assert_eq!(tables, TABLES);
    assert!(
        store::pending_migrations(&db.pool)
            .await
            .unwrap()
            .is_empty()
    );
    db.drop_database().await;
}

#[tokio::test]
async fn a_second_migration_run_is_a_no_op() {
    let db = TestDatabase::empty().await;
    let first = store::migrate(&db.pool).await.unwrap();
    assert_eq!(first.applied.len(), store::MIGRATOR.iter().count());
    assert_eq!(
        first.current_version,
        store::MIGRATOR.iter().map(|m| m.version).max()
    );

    let applied_before = store::applied_migrations(&db.pool).await.unwrap();
    let schema_before = schema_fingerprint(&db.pool).await;
    assert!(
        schema_before.len() > 100,
        "fingerprint too small to mean anything: {schema_before:#?}"
    );

    let second = store::migrate(&db.pool).await.unwrap();
    assert_eq!(second.applied, Vec::<i64>::new());
    assert_eq!(second.current_version, first.current_version);
    assert_eq!(
        store::applied_migrations(&db.pool).await.unwrap(),
        applied_before
    );
    assert_eq!(schema_fingerprint(&db.pool).await, schema_before);
    db.drop_database().await;
}

#[tokio::test]
async fn no_column_holds_floating_point() {
    let db = TestDatabase::migrated().await;
    let floats: Vec<String> = sqlx::query_scalar(
        "SELECT table_name || '.' || column_name FROM information_schema.columns \
         WHERE table_schema = 'public' AND data_type IN ('real', 'double precision') ORDER BY 1",
    )
    .fetch_all(&db.pool)
    .await
    .unwrap();
    assert_eq!(floats, Vec::<String>::new());
    db.drop_database().await;
}
