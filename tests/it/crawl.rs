#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "tests"
)]
//! An anonymous reader crawls every public page, feed, SVG and plain-text report reachable
//! from the zine's index while a game is in progress, and finds no hidden fact: no square of a
//! ship that no published shot revealed, no pending order, no unrevealed seed.

use std::collections::{BTreeSet, VecDeque};

use engine::Viewer;
use games::EngineKind;
use reqwest::StatusCode;

use crate::archive::{GameInProgress, SLUG, game_in_progress, unescape};

/// What must not be seen, computed from the game's hidden state.
struct Hidden {
    /// Squares (`G13`) of ships afloat that no published shot revealed.
    squares: BTreeSet<String>,
    /// Texts of orders and press not yet published.
    texts: Vec<String>,
    /// Unrevealed seeds and the game's secret, in hex.
    seeds: Vec<String>,
}

impl Hidden {
    async fn of(archive: &GameInProgress) -> Hidden {
        let state = archive.state().await;
        // Squares named in published reports were ordered in public: not secret, even if
        // they are ship squares (a shot at one's own ship, say).
        let reports: Vec<String> = sqlx::query_scalar(
            "SELECT r.text FROM published_reports r JOIN turns t ON t.id = r.turn_id WHERE t.game_id = $1",
        )
        .bind(archive.game)
        .fetch_all(&archive.app.db.pool)
        .await
        .unwrap();
        let published: BTreeSet<String> = reports.iter().flat_map(|r| words(r)).collect();
        let mut squares = BTreeSet::new();
        for captain in state.captains.iter().filter(|c| c.is_afloat()) {
            for (square, damage) in captain.ship.iter().zip(captain.damage) {
                let revealed = matches!(damage, Some(barmy::Damage::Shot(_)));
                let label = square.to_string();
                if !revealed && !published.contains(&label) {
                    squares.insert(label);
                }
            }
        }
        let secret: Vec<u8> = sqlx::query_scalar("SELECT secret_seed FROM games WHERE id = $1")
            .bind(archive.game)
            .fetch_one(&archive.app.db.pool)
            .await
            .unwrap();
        let mut seeds = vec![
            hex::encode(secret),
            archive.secret.turn_seed(archive.open_turn).to_hex(),
        ];
        for n in 0..=archive.open_turn + 1 {
            seeds.push(archive.secret.sealed_seed(n).to_hex());
        }
        seeds.push(archive.secret.turn_seed(archive.open_turn + 1).to_hex());
        let mut texts = archive.pending.clone();
        texts.extend((0..4).map(|i| format!("Pending press {i} of the open turn")));
        Hidden {
            squares,
            texts,
            seeds,
        }
    }

    /// Every hidden fact `body` shows.
    fn leaks(&self, body: &str) -> Vec<String> {
        let text = unescape(body);
        let found = words(&text);
        let mut leaks: Vec<String> = self
            .squares
            .iter()
            .filter(|s| found.contains(*s))
            .map(|s| format!("ship square {s}"))
            .collect();
        leaks.extend(
            self.texts
                .iter()
                .filter(|t| text.contains(t.as_str()))
                .map(|t| format!("pending text {t:?}")),
        );
        let lower = text.to_ascii_lowercase();
        leaks.extend(
            self.seeds
                .iter()
                .filter(|s| lower.contains(s.as_str()))
                .map(|s| format!("seed {s}")),
        );
        leaks
    }
}

/// The words of a text: runs of letters and digits.
fn words(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Same-site links of a page: `href` and `src` attributes (HTML, SVG and Atom alike), as paths.
pub(crate) fn links(body: &str, base: &str) -> Vec<String> {
    let mut found = Vec::new();
    for attribute in ["href=\"", "src=\""] {
        for piece in body.split(attribute).skip(1) {
            let Some(end) = piece.find('"') else {
                continue;
            };
            let target = unescape(&piece[..end]);
            let path = match target.strip_prefix(base) {
                Some(path) => path.to_owned(),
                None => target,
            };
            if path.starts_with('/') && !path.starts_with("//") {
                found.push(path.split('#').next().unwrap().to_owned());
            }
        }
    }
    found
}

struct Crawl {
    visited: Vec<(String, String)>,
}

async fn crawl(archive: &GameInProgress, start: &str) -> Crawl {
    let base = format!("http://{}", archive.app.address);
    let mut queue = VecDeque::from([start.to_owned()]);
    let mut seen = BTreeSet::from([start.to_owned()]);
    let mut visited = Vec::new();
    while let Some(path) = queue.pop_front() {
        let response = archive.app.get(&path).await;
        assert_eq!(
            response.status(),
            StatusCode::OK,
            "{path} is linked but fails"
        );
        let body = response.text().await.unwrap();
        for link in links(&body, &base) {
            if seen.insert(link.clone()) {
                queue.push_back(link);
            }
        }
        visited.push((path, body));
        assert!(visited.len() < 500, "the crawl does not end");
    }
    Crawl { visited }
}

#[tokio::test]
async fn an_anonymous_crawl_of_a_game_in_progress_finds_no_hidden_fact() {
    let archive = game_in_progress().await;
    let hidden = Hidden::of(&archive).await;
    // The game has secrets worth keeping: many unhit ship squares, pending orders, seeds.
    assert!(hidden.squares.len() >= 8, "{:?}", hidden.squares);
    assert_eq!(archive.pending.len(), 4);
    let crawl = crawl(&archive, &format!("/zines/{SLUG}")).await;
    let paths: BTreeSet<&str> = crawl.visited.iter().map(|(p, _)| p.as_str()).collect();
    // The crawl reached every kind of public page.
    let game = archive.game_path();
    let mut expected = vec![
        "/".to_owned(),
        format!("/zines/{SLUG}"),
        format!("/zines/{SLUG}/feed.atom"),
        game.clone(),
        format!("{game}/feed.atom"),
        // The game's record (docs/record.md): while the game runs, its public part only.
        format!("{game}/record.json"),
        "/static/admiralty.css".to_owned(),
    ];
    for n in 1..archive.open_turn {
        let turn = archive.turn_path(n);
        expected.push(format!("{turn}.txt"));
        expected.push(format!("{turn}/board.svg"));
        expected.push(turn);
    }
    for path in &expected {
        assert!(
            paths.contains(path.as_str()),
            "the crawl missed {path}: {paths:#?}"
        );
    }
    let mut shots_seen = 0;
    for (path, body) in &crawl.visited {
        let leaks = hidden.leaks(body);
        assert!(leaks.is_empty(), "{path} leaks {leaks:?}");
        shots_seen += body.matches("data-square=").count();
    }
    assert!(shots_seen > 0, "the boards drew the published shots");
    // The published facts are there: revealed seeds, the reports' press.
    let everything: String = crawl.visited.iter().map(|(_, b)| b.as_str()).collect();
    for n in 1..archive.open_turn {
        assert!(everything.contains(&archive.secret.turn_seed(n).to_hex()));
    }
    assert!(everything.contains("Greetings from player 2 in turn 3"));
    archive.app.stop().await;
}

#[tokio::test]
async fn the_leak_check_flags_pages_that_do_leak() {
    let archive = game_in_progress().await;
    let hidden = Hidden::of(&archive).await;
    let square = hidden.squares.iter().next().unwrap().clone();
    // The GM's view of the game states every ship's squares.
    let state: serde_json::Value = sqlx::query_scalar("SELECT state FROM games WHERE id = $1")
        .bind(archive.game)
        .fetch_one(&archive.app.db.pool)
        .await
        .unwrap();
    let gm = EngineKind::Barmy
        .parse_state(&state)
        .unwrap()
        .view(Viewer::Gm);
    let gm_page = format!("<ul><li>{}</li></ul>", gm.lines.join("</li><li>"));
    assert!(
        hidden
            .leaks(&gm_page)
            .iter()
            .any(|l| l.starts_with("ship square"))
    );
    // A player's own view, as their page would show it.
    let own = EngineKind::Barmy
        .parse_state(&state)
        .unwrap()
        .view(Viewer::Player(engine::PlayerId(2)));
    assert!(!hidden.leaks(&own.lines.join("\n")).is_empty());
    // One square in an SVG mark, escaped text of a pending order, an upper-case seed.
    assert_eq!(
        hidden.leaks(&format!("<g data-square=\"{square}\"><circle/></g>")),
        vec![format!("ship square {square}")]
    );
    let pending = format!("<pre>{}</pre>", archive.pending[0]);
    assert_eq!(
        hidden.leaks(&pending),
        vec![
            format!("pending text {:?}", archive.pending[0]),
            "pending text \"Pending press 0 of the open turn\"".to_owned()
        ]
    );
    let seed = archive
        .secret
        .turn_seed(archive.open_turn)
        .to_hex()
        .to_uppercase();
    assert_eq!(hidden.leaks(&format!("<code>{seed}</code>")).len(), 1);
    let sealed = archive.secret.sealed_seed(1).to_hex();
    assert_eq!(hidden.leaks(&sealed).len(), 1);
    // And the public view itself passes.
    let public = EngineKind::Barmy
        .parse_state(&state)
        .unwrap()
        .view(Viewer::Public);
    assert!(
        hidden
            .leaks(&serde_json::to_string(&public).unwrap())
            .is_empty()
    );
    // The crawler follows links of every form the pages use.
    let base = "http://127.0.0.1:1";
    assert_eq!(
        links(
            "<a href=\"/a\">x</a><img src=\"/b.svg\"><link href=\"http://127.0.0.1:1/c\"/><a href=\"https://elsewhere/\">",
            base
        ),
        vec!["/a", "/c", "/b.svg"]
    );
    archive.app.stop().await;
}
