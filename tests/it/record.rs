#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "tests"
)]
//! A game's portable record (docs/record.md): what the record of a running game holds (only
//! what its pages show), and a finished game's record checked by the standalone verifier
//! (`admiralty-verify`, built and run as a reader would) and by `gm verify --record`, whole and
//! with one seed digit or one player's orders changed.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use chrono::Duration;
use reqwest::StatusCode;
use serde_json::Value;
use server::turns::{self, GmAction};

use crate::archive::{GameInProgress, game_in_progress};

const MAIL_DOMAIN: &str = "zine.example.org";

/// The standalone verifier: another package's binary, built here (a no-op when it is fresh)
/// so this test also runs alone.
fn verifier() -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let built = Command::new(cargo)
        .args([
            "build",
            "--quiet",
            "-p",
            "record",
            "--bin",
            "admiralty-verify",
        ])
        .status()
        .unwrap();
    assert!(built.success(), "building admiralty-verify");
    Path::new(env!("CARGO_BIN_EXE_gm")).with_file_name("admiralty-verify")
}

fn run(program: &Path, args: &[&str], database: Option<&str>) -> (bool, String) {
    let mut command = Command::new(program);
    command.args(args).env_remove("ADMIRALTY_LOG");
    match database {
        Some(url) => command.env("DATABASE_URL", url),
        None => command.env_remove("DATABASE_URL"),
    };
    let Output {
        status,
        stdout,
        stderr,
    } = command.output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8(stdout).unwrap(),
        String::from_utf8(stderr).unwrap()
    );
    (status.success(), text)
}

async fn fetch_record(archive: &GameInProgress) -> String {
    let response = archive
        .app
        .get(&format!("{}/record.json", archive.game_path()))
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        response.headers()["content-type"].to_str().unwrap(),
        "application/json"
    );
    response.text().await.unwrap()
}

async fn published_texts(archive: &GameInProgress) -> Vec<String> {
    sqlx::query_scalar(
        "SELECT r.text FROM published_reports r JOIN turns t ON t.id = r.turn_id \
         WHERE t.game_id = $1 ORDER BY t.number",
    )
    .bind(archive.game)
    .fetch_all(&archive.app.db.pool)
    .await
    .unwrap()
}

#[tokio::test]
async fn a_running_games_record_holds_what_its_pages_show_and_nothing_hidden() {
    let archive = game_in_progress().await;
    let body = fetch_record(&archive).await;
    let record = record::GameRecord::parse(&body).unwrap();
    assert!(!record.game.finished);
    assert_eq!(record.turns.len(), 3);
    assert!(record.final_state.is_none());
    let reports: Vec<&str> = record.turns.iter().map(|t| t.report.as_str()).collect();
    assert_eq!(reports, published_texts(&archive).await);
    for (turn, number) in record.turns.iter().zip(1u32..) {
        assert_eq!(turn.number, number);
        assert!(
            turn.replay.is_none(),
            "turn {number} carries no state or orders"
        );
        assert!(turn.revealed_sealed_seed.is_none());
        assert_eq!(
            turn.revealed_seed,
            archive.secret.turn_seed(number).to_hex()
        );
    }
    let open = record.open_turn.as_ref().unwrap();
    assert_eq!(open.number, 4);
    assert_eq!(
        open.seed_commitment,
        archive.secret.turn_seed(4).commitment()
    );

    // Nothing hidden: not the secret, no sealed seed, not the open turn's seed, no pending
    // orders or press, no positions (the state's fields).
    let mut hidden = vec![hex_of(archive.secret.as_bytes())];
    for number in 1..=4 {
        hidden.push(archive.secret.sealed_seed(number).to_hex());
    }
    hidden.push(archive.secret.turn_seed(4).to_hex());
    hidden.extend(archive.pending.iter().cloned());
    hidden.extend(["\"captains\"", "\"ship\"", "\"shots\"", "\"replay\""].map(str::to_owned));
    for secret in &hidden {
        assert!(!body.contains(secret.as_str()), "the record shows {secret}");
    }

    // What can be checked of it is: the revealed seeds against their commitments.
    let path = scratch(&archive, "running.json");
    std::fs::write(&path, &body).unwrap();
    let (ok, said) = run(&verifier(), &[path.to_str().unwrap()], None);
    assert!(ok, "{said}");
    assert!(said.contains("verified so far: 3 seeds match"), "{said}");
    std::fs::remove_file(&path).unwrap();
    archive.app.stop().await;
}

/// A file of this test's own in the temporary directory.
fn scratch(archive: &GameInProgress, name: &str) -> PathBuf {
    std::env::temp_dir().join(format!(
        "admiralty-record-{}-{}-{name}",
        std::process::id(),
        archive.game
    ))
}

fn hex_of(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[tokio::test]
async fn a_finished_games_record_verifies_alone_and_a_changed_seed_or_order_names_its_turn() {
    let archive = game_in_progress().await;
    turns::gm_action(
        &archive.app.db.pool,
        archive.next_deadline - Duration::hours(2),
        archive.game,
        GmAction::End,
        "gm",
        MAIL_DOMAIN,
    )
    .await
    .unwrap();
    archive.app.clock.advance(Duration::minutes(1));
    let file = scratch(&archive, "finished.json");
    let file = file.to_str().unwrap();
    let gm = Path::new(env!("CARGO_BIN_EXE_gm"));
    let game = archive.game.to_string();
    let (ok, said) = run(
        gm,
        &["game", &game, "export", "--out", file],
        Some(&archive.app.db.url),
    );
    assert!(ok, "{said}");
    assert!(said.contains("3 turns written"), "{said}");
    let exported = std::fs::read_to_string(file).unwrap();
    // The page's download is the same file.
    assert_eq!(fetch_record(&archive).await, exported);
    let record = record::GameRecord::parse(&exported).unwrap();
    assert!(record.game.finished);
    assert!(record.final_state.is_some());
    assert!(record.turns.iter().all(|t| t.replay.is_some()));

    let verifier = verifier();
    let (ok, said) = run(&verifier, &[file], None);
    assert!(ok, "{said}");
    assert!(
        said.contains("verified: all 3 turns replay to their published reports"),
        "{said}"
    );
    let (ok, said) = run(gm, &["verify", "--record", file], None);
    assert!(ok, "{said}");

    // One hex digit of turn 2's revealed seed changed.
    let mut tampered: Value = serde_json::from_str(&exported).unwrap();
    let seed = tampered["turns"][1]["revealed_seed"]
        .as_str()
        .unwrap()
        .to_owned();
    let flipped = if seed.starts_with('0') { "1" } else { "0" };
    tampered["turns"][1]["revealed_seed"] = Value::String(format!("{flipped}{}", &seed[1..]));
    let seed_file = scratch(&archive, "seed.json");
    std::fs::write(&seed_file, tampered.to_string()).unwrap();
    let (ok, said) = run(&verifier, &[seed_file.to_str().unwrap()], None);
    assert!(!ok, "{said}");
    assert!(said.contains("turn 1: ok"), "{said}");
    assert!(
        said.contains("turn 2: FAILED: the revealed open seed does not match its commitment"),
        "{said}"
    );
    assert!(said.contains("NOT VERIFIED: turn 2 fails"), "{said}");

    // Player 1's orders of turn 2 replaced by their orders of turn 3.
    let mut tampered: Value = serde_json::from_str(&exported).unwrap();
    let later = tampered["turns"][2]["replay"]["orders"]["1"].clone();
    assert_ne!(tampered["turns"][1]["replay"]["orders"]["1"], later);
    tampered["turns"][1]["replay"]["orders"]["1"] = later;
    let orders_file = scratch(&archive, "orders.json");
    std::fs::write(&orders_file, tampered.to_string()).unwrap();
    let (ok, said) = run(&verifier, &[orders_file.to_str().unwrap()], None);
    assert!(!ok, "{said}");
    assert!(
        said.contains("turn 2: FAILED: the replayed report differs from the published one at line"),
        "{said}"
    );
    let (ok, said) = run(
        gm,
        &["verify", "--record", orders_file.to_str().unwrap()],
        None,
    );
    assert!(!ok, "{said}");
    assert!(said.contains("turn 2 does not verify"), "{said}");
    for path in [Path::new(file), &seed_file, &orders_file] {
        std::fs::remove_file(path).unwrap();
    }
    archive.app.stop().await;
}
