use server::demo::{self, SeedOutcome};
use store::StoreError;
use store::subscribers::{self, NewSubscriber, SubscriberStatus};
use store::testing::TestDatabase;
use store::{DisplayName, EmailAddress, ZineSlug, zines};

use crate::helpers::trafalgar;

#[tokio::test]
async fn an_address_subscribes_once_per_zine_whatever_its_case() {
    let db = TestDatabase::migrated().await;
    let zine = zines::insert(
        &db.pool,
        &ZineSlug::parse("gazette").unwrap(),
        "Gazette",
        trafalgar(),
    )
    .await
    .unwrap();
    let other = zines::insert(
        &db.pool,
        &ZineSlug::parse("chronicle").unwrap(),
        "Chronicle",
        trafalgar(),
    )
    .await
    .unwrap();
    let new = |zine_id, address: &str| NewSubscriber {
        zine_id,
        email: EmailAddress::parse(address).unwrap(),
        display_name: DisplayName::parse("Thomas Hardy").unwrap(),
    };

    let hardy = subscribers::insert(&db.pool, &new(zine.id, "hardy@example.org"), trafalgar())
        .await
        .unwrap();
    assert_eq!(hardy.status, SubscriberStatus::Active);
    assert!(!hardy.has_password);
    assert_eq!(hardy.created_at, trafalgar());

    let again =
        subscribers::insert(&db.pool, &new(zine.id, "HARDY@example.org"), trafalgar()).await;
    assert!(
        matches!(again, Err(StoreError::AlreadyExists { .. })),
        "{again:?}"
    );
    // Another zine is another subscription.
    subscribers::insert(&db.pool, &new(other.id, "hardy@example.org"), trafalgar())
        .await
        .unwrap();

    let found = subscribers::find_by_email(
        &db.pool,
        zine.id,
        &EmailAddress::parse("Hardy@EXAMPLE.org").unwrap(),
    )
    .await
    .unwrap();
    assert_eq!(found.as_ref().map(|s| s.id), Some(hardy.id));

    assert!(
        subscribers::set_status(&db.pool, hardy.id, SubscriberStatus::Unsubscribed)
            .await
            .unwrap()
    );
    let listed = subscribers::list_for_zine(&db.pool, zine.id).await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].status, SubscriberStatus::Unsubscribed);
    db.drop_database().await;
}

#[tokio::test]
async fn unknown_statuses_are_refused_by_the_database() {
    let db = TestDatabase::migrated().await;
    let zine = zines::insert(
        &db.pool,
        &ZineSlug::parse("gazette").unwrap(),
        "Gazette",
        trafalgar(),
    )
    .await
    .unwrap();
    let result = sqlx::query(
        "INSERT INTO subscribers (zine_id, email, display_name, status) VALUES ($1, 'a@example.org', 'A', 'lurking')",
    )
    .bind(zine.id)
    .execute(&db.pool)
    .await;
    assert!(result.is_err());
    db.drop_database().await;
}

#[tokio::test]
async fn demo_seed_fills_an_empty_database_once() {
    let db = TestDatabase::migrated().await;
    let first = demo::seed_if_empty(&db.pool, trafalgar(), [7; 32])
        .await
        .unwrap();
    let SeedOutcome::Seeded {
        zine,
        subscribers: count,
        ..
    } = first
    else {
        panic!("expected a seed, got {first:?}");
    };
    assert!(count >= 3);
    assert_eq!(
        subscribers::list_for_zine(&db.pool, zine)
            .await
            .unwrap()
            .len(),
        count
    );
    assert_eq!(
        demo::seed_if_empty(&db.pool, trafalgar(), [7; 32])
            .await
            .unwrap(),
        SeedOutcome::AlreadyPopulated
    );
    assert_eq!(zines::count(&db.pool).await.unwrap(), 1);
    let audit = store::audit::list_recent(&db.pool, 10).await.unwrap();
    // Seeded once: the demo game is made and its first turn resolved through the lifecycle,
    // each step audited, newest first.
    assert_eq!(
        audit.iter().map(|e| e.action.as_str()).collect::<Vec<_>>(),
        ["demo.seed", "turn.resolve", "game.create"]
    );
    db.drop_database().await;
}
