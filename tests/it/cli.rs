//! `gm` as a real child process.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use store::testing::TestDatabase;

fn gm() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_gm"));
    // The child must not pick up the developer's settings.
    for var in [
        "DATABASE_URL",
        "ADMIRALTY_BIND",
        "ADMIRALTY_LOG",
        "ADMIRALTY_LOG_FORMAT",
        "ADMIRALTY_BASE_URL",
    ] {
        command.env_remove(var);
    }
    // Never the default SMTP port: tests run in parallel, and a developer's gm may hold it.
    command.env("ADMIRALTY_SMTP_LISTEN", "127.0.0.1:0");
    command
}

#[test]
fn help_lists_the_subcommands() {
    let output = gm().arg("--help").output().unwrap();
    assert!(output.status.success());
    let help = String::from_utf8(output.stdout).unwrap();
    for expected in ["serve", "migrate", "DATABASE_URL", "ADMIRALTY_LOG"] {
        assert!(
            help.contains(expected),
            "--help lacks {expected:?}:\n{help}"
        );
    }
    let serve_help =
        String::from_utf8(gm().args(["serve", "--help"]).output().unwrap().stdout).unwrap();
    assert!(
        serve_help.contains("ADMIRALTY_BIND") && serve_help.contains("127.0.0.1:8080"),
        "{serve_help}"
    );
}

#[test]
fn migrate_without_a_database_url_says_what_to_do() {
    let output = gm().arg("migrate").output().unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("DATABASE_URL is not set") && stderr.contains("./scripts/run"),
        "{stderr}"
    );
}

#[tokio::test]
async fn migrate_applies_the_schema_then_does_nothing() {
    let db = TestDatabase::empty().await;
    let run = || {
        let output = gm()
            .args(["migrate", "--seed-demo"])
            .env("DATABASE_URL", &db.url)
            .output()
            .unwrap();
        let stdout = String::from_utf8(output.stdout).unwrap();
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(
            output.status.success(),
            "gm migrate failed:\n{stdout}\n{stderr}"
        );
        stdout
    };

    let first = run();
    assert!(first.contains("migrations: applied"), "{first}");
    assert!(first.contains("demo: seeded"), "{first}");
    assert!(
        store::pending_migrations(&db.pool)
            .await
            .unwrap()
            .is_empty()
    );

    let second = run();
    assert!(second.contains("schema up to date"), "{second}");
    assert!(second.contains("nothing seeded"), "{second}");
    db.drop_database().await;
}

#[tokio::test]
async fn serve_refuses_an_out_of_date_schema() {
    let db = TestDatabase::empty().await;
    let output = gm()
        .args(["serve", "--bind", "127.0.0.1:0"])
        .env("DATABASE_URL", &db.url)
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("gm migrate"), "{stderr}");
    db.drop_database().await;
}

#[tokio::test]
async fn serve_answers_then_stops_cleanly_on_sigterm() {
    let db = TestDatabase::migrated().await;
    let mut child = gm()
        .args(["serve", "--bind", "127.0.0.1:0", "--log-format", "json"])
        .env("DATABASE_URL", &db.url)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();

    // The address is in the "serving" log line.
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let address = loop {
        let mut line = String::new();
        assert!(
            stderr.read_line(&mut line).unwrap() > 0,
            "gm serve exited before serving"
        );
        let Ok(event) = serde_json::from_str::<serde_json::Value>(&line) else {
            continue;
        };
        if event["fields"]["message"] == "serving" {
            break event["fields"]["address"].as_str().unwrap().to_owned();
        }
    };
    // Keep draining the log so the child never blocks on a full pipe.
    let drain =
        std::thread::spawn(move || stderr.lines().map_while(Result::ok).collect::<Vec<_>>());

    let body: serde_json::Value = reqwest::get(format!("http://{address}/healthz"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(body["status"], "ok");

    // The shell's built-in kill: no procps needed.
    let kill = Command::new("sh")
        .args(["-c", &format!("kill -TERM {}", child.id())])
        .status()
        .unwrap();
    assert!(kill.success());
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "gm serve did not stop within 20 s of SIGTERM"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(status.success(), "gm serve exited with {status}");
    let log = drain.join().unwrap().join("\n");
    assert!(
        log.contains("SIGTERM received") && log.contains("stopped"),
        "{log}"
    );
    db.drop_database().await;
}
