//! `gm adjudicate` as a real child process: the documented JSON in, the answer out.

use std::io::Write;
use std::process::{Command, Stdio};

fn adjudicate(args: &[&str], input: &str) -> (bool, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gm"))
        .arg("adjudicate")
        .args(args)
        .env_remove("DATABASE_URL")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    (
        output.status.success(),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

fn docs(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/../../docs/adjudicate/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

#[test]
fn adjudicate_starts_a_game_and_resolves_the_documented_turn_without_a_database() {
    let (ok, out, err) = adjudicate(&["new-game"], &docs("barmy-new-game.json"));
    assert!(ok, "{err}");
    let started: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(started["engine"], "barmy");
    assert_eq!(started["commitment"].as_str().unwrap().len(), 64);

    let (ok, out, err) = adjudicate(&[], &docs("barmy-turn.json"));
    assert!(ok, "{err}");
    let answer: serde_json::Value = serde_json::from_str(&out).unwrap();
    let documented: serde_json::Value =
        serde_json::from_str(&docs("barmy-turn-answer.json")).unwrap();
    assert_eq!(answer, documented);
    assert!(
        answer["text"]
            .as_str()
            .unwrap()
            .contains("Fred Bloggs     | G17, K19 | hit John Smith, miss")
    );
}

#[test]
fn adjudicate_explains_bad_input_and_fails() {
    let (ok, out, err) = adjudicate(&[], "{\"engine\": \"barmy\"");
    assert!(!ok);
    assert!(out.is_empty());
    assert!(err.contains("not valid JSON"), "{err}");
}
