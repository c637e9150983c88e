//! `gm ingest` as an MTA runs it (Postfix's pipe, procmail, .forward): what its exit status
//! tells the MTA. 0: taken. 75 (EX_TEMPFAIL): keep the message and deliver it again later (safe:
//! a message delivered twice is stored once). 1: bounce it, here for a message over the size
//! limit, which is not stored.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use store::testing::TestDatabase;

use crate::inbox::{DOMAIN, count, game, message, reply_address_of};
use crate::outbox::free_port;

fn gm_ingest(database_url: &str, max_bytes: usize, raw: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gm"))
        .args(["ingest", "--mail-domain", DOMAIN])
        .env("DATABASE_URL", database_url)
        .env("ADMIRALTY_MAIL_MAX_BYTES", max_bytes.to_string())
        .env_remove("ADMIRALTY_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The child may stop reading at the limit: a broken pipe here is its answer, not ours.
    let _ = child.stdin.take().unwrap().write_all(raw);
    child.wait_with_output().unwrap()
}

#[tokio::test]
async fn a_message_over_the_size_limit_is_refused_unstored_and_one_at_the_limit_is_taken() {
    let db = TestDatabase::migrated().await;
    let game = game(&db.pool).await;
    let to = reply_address_of(&db.pool, game, 1).await;
    let big = message("big-1", &to, "", &"HELP\r\n".repeat(50_000));
    let output = gm_ingest(&db.url, 100_000, &big);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("larger than 100000 bytes"), "{stderr}");
    assert_eq!(
        count(&db.pool, "SELECT count(*) FROM inbound_messages").await,
        0
    );

    let small = message("small-1", &to, "", "HELP\r\n");
    let output = gm_ingest(&db.url, small.len(), &small);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        count(&db.pool, "SELECT count(*) FROM inbound_messages").await,
        1
    );
    db.drop_database().await;
}

#[tokio::test]
async fn with_the_database_down_the_mta_is_told_to_try_again_later() {
    let nobody = format!("postgres://admiralty:x@127.0.0.1:{}/postgres", free_port());
    let raw = message("down-1", "orders@zine.example.org", "", "HELP\r\n");
    let output = gm_ingest(&nobody, 1_000_000, &raw);
    assert_eq!(output.status.code(), Some(75), "EX_TEMPFAIL");
    assert!(String::from_utf8_lossy(&output.stderr).contains("gm: error"));
}
