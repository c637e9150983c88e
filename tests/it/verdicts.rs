#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "tests"
)]
//! One verdict for mail and web (issue 27, item 5): a corpus of order sets of every engine
//! (good, partly bad, bad, chat, greetings, sign-offs, press) is sent by one player through
//! both doors — a mail to the player's reply address, read by the inbound pipeline, and the
//! web orders form, posted as a browser does — and the two answers must judge every line
//! alike: the same lines refused, warned and taken as chat, in the same words, and the same
//! outcome (stored or not, the same orders on file).

use games::EngineKind;
use reqwest::StatusCode;
use server::inbox;
use store::games::GameId;
use store::{PgPool, ZineSlug, zines};

use crate::console::Browser;
use crate::helpers::trafalgar;
use crate::inbox::{DOMAIN, reply_address_of};
use crate::players::{NELSON, VILLENEUVE, logged_in, player_of, start_game, subscribe};

/// What a door said of one line: its kind (Error, Warning, Chat), the line as written, what
/// is wrong and what would be accepted, in the answer's words (examples in backticks).
type Said = (String, String, String, Option<String>);

/// A door's whole answer: whether the set was stored, the orders as understood, each line.
#[derive(Debug, PartialEq, Eq)]
struct Answer {
    stored: bool,
    understood: Vec<String>,
    lines: Vec<Said>,
}

/// Lines good and bad for each engine, whichever side the player has (a line for the other
/// side's ship is refused, which the corpus wants too).
fn engine_lines(engine: EngineKind) -> (Vec<&'static str>, Vec<&'static str>) {
    match engine {
        EngineKind::Barmy => (
            vec!["G13, K19", "A1, B2 Steady, lads"],
            vec!["Z99, Q0", "fire at the big one"],
        ),
        EngineKind::Salvo => (
            vec!["PLACE RANDOM", "FIRE B7"],
            vec!["FIRE Z99", "PLACE Carrier A1 H\nPLACE Carrier B1 H"],
        ),
        EngineKind::Ironclad => (
            vec!["Agamemnon MOVE F\nDandolo MOVE F"],
            vec!["Agamemnon MOVE Q\nDandolo MOVE Q", "Nowhere MOVE F"],
        ),
        EngineKind::Skyfleet => (
            vec!["Valiant: MOVE F 3\nTempest: MOVE F 3"],
            vec!["Valiant: MOVE F 99\nTempest: MOVE F 99", "Ghost: MOVE F 2"],
        ),
        EngineKind::Forever => (
            // The default game opens in the building phase (FOREVER's order help).
            vec![
                "SHIP Lancer\nCORE HP+2\nSECTION S1 PARENT CORE SIZE 2x1 AT (2, 0) MOUNT RAIL(range 18, damage 4, accuracy 15)\nDEPLOY Lancer AT 10, 24 FACING 0",
            ],
            vec!["FIRE Nothing.S9 AT Nowhere", "MOVE9 Lancer BY 99, 0"],
        ),
    }
}

/// The corpus of one engine: each good and bad set alone and mixed, with the ways people
/// wrap orders in a letter.
fn corpus(engine: EngineKind) -> Vec<String> {
    let (good, bad) = engine_lines(engine);
    let mut sets = Vec::new();
    for g in &good {
        sets.push((*g).to_owned());
        sets.push(format!("Hi all,\n{g}\nCheers,\nHoratio"));
        sets.push(format!("{g}\nThanks!\n\nHoratio Nelson"));
        sets.push(format!(
            "Sorry all, a busy week.\n{g}\nPRESS England expects."
        ));
        for b in &bad {
            sets.push(format!("{g}\n{b}"));
            sets.push(format!("{b}\n{g}\nRegards, Horatio"));
        }
    }
    for b in &bad {
        sets.push((*b).to_owned());
        sets.push(format!("{b}\nasdf qwer zxcv"));
    }
    sets.push("Regards,\nAgnes".to_owned());
    sets.push("Agreed, Cora. Deal.".to_owned());
    sets.push("Dear GM, here are my orders.\nYours,\nHoratio".to_owned());
    sets
}

/// Nelson's seat (engine player id) in `game`.
async fn nelsons_seat(pool: &PgPool, game: GameId) -> i64 {
    i64::try_from(player_of(pool, game, NELSON).await.1.0).unwrap()
}

/// The orders Nelson has on file in `game`.
async fn on_file(pool: &PgPool, game: GameId) -> Option<String> {
    sqlx::query_scalar(
        "SELECT o.raw_text FROM orders o JOIN players p ON p.id = o.player_id \
         JOIN subscribers s ON s.id = p.subscriber_id \
         WHERE p.game_id = $1 AND s.email = $2 AND o.superseded_at IS NULL",
    )
    .bind(game)
    .bind(NELSON)
    .fetch_optional(pool)
    .await
    .unwrap()
}

/// Clears Nelson's orders, so that each set is judged against none on file.
async fn clear(pool: &PgPool) {
    sqlx::query("DELETE FROM orders")
        .execute(pool)
        .await
        .unwrap();
    sqlx::query("DELETE FROM press")
        .execute(pool)
        .await
        .unwrap();
}

/// The newest answer to a mail queued for Nelson.
async fn last_reply(pool: &PgPool) -> String {
    sqlx::query_scalar(
        "SELECT body_text FROM outbound_messages WHERE idempotency_key LIKE 'reply:%' \
         AND to_address = $1 ORDER BY id DESC LIMIT 1",
    )
    .bind(NELSON)
    .fetch_one(pool)
    .await
    .unwrap()
}

/// The verdict a confirmation mail gives, for the game `game_name`.
fn mail_answer(body: &str, game_name: &str) -> Answer {
    let stored = body.contains(&format!("Your orders for {game_name}, as understood:"));
    let not_stored = body.contains(&format!(
        "No line of your message was read as an order for {game_name}"
    ));
    assert!(
        stored != not_stored,
        "no verdict for {game_name} in:\n{body}"
    );
    let mut understood = Vec::new();
    let mut lines = Vec::new();
    let all: Vec<&str> = body.lines().collect();
    let mut i = 0;
    while i < all.len() {
        let line = all[i];
        if let Some(item) = line.strip_prefix("  - ") {
            understood.push(item.to_owned());
        }
        for kind in ["Error", "Warning", "Chat"] {
            let Some(rest) = line.strip_prefix(&format!("{kind} on line ")) else {
                continue;
            };
            let text = rest
                .split_once(": \"")
                .unwrap()
                .1
                .strip_suffix('"')
                .unwrap();
            let problem = all[i + 1].trim_start().to_owned();
            let expected = all
                .get(i + 2)
                .and_then(|l| l.trim_start().strip_prefix("Would be accepted: "))
                .map(str::to_owned);
            lines.push((kind.to_owned(), text.to_owned(), problem, expected));
        }
        i += 1;
    }
    lines.sort();
    Answer {
        stored,
        understood,
        lines,
    }
}

/// HTML text back to what was written: tags dropped, `<code>` back to backticks, entities
/// decoded.
fn unmark(html: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        let close = open + rest[open..].find('>').unwrap();
        let tag = &rest[open + 1..close];
        if tag == "code" || tag == "/code" {
            out.push('`');
        }
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    let mut decoded = out
        .replace("&#60;", "<")
        .replace("&#62;", ">")
        .replace("&#34;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&ldquo;", "\u{201c}")
        .replace("&rdquo;", "\u{201d}")
        .replace("&mdash;", "\u{2014}");
    decoded = decoded.replace("&#38;", "&").replace("&amp;", "&");
    decoded
}

/// The verdict the orders page gives after the form was sent.
fn web_answer(page: &str, game_name: &str) -> Answer {
    let stored = page.contains(&format!("Your orders for {game_name}, as understood:"))
        || page.contains("Your orders were received.");
    let mut lines = Vec::new();
    // The table of the lines as typed, each with what the verdict says of it.
    if let Some(start) = page.find("<table id=\"order-lines\"") {
        let table = &page[start..start + page[start..].find("</table>").unwrap()];
        for row in table.split("<tr").skip(2) {
            let cells: Vec<&str> = row.split("<td>").skip(1).collect();
            let text = unmark(cells[1].trim_end_matches("</td>"));
            let text = text.trim_matches('`').to_owned();
            for issue in cells[2].split("<p class=\"issue\">").skip(1) {
                let issue = unmark(issue.split("</p>").next().unwrap());
                let (kind, said) = issue.split_once(": ").unwrap();
                let (problem, expected) = match said.split_once(" Would be accepted: ") {
                    Some((p, e)) => (p.to_owned(), Some(e.to_owned())),
                    None => (said.to_owned(), None),
                };
                lines.push((kind.to_owned(), text.clone(), problem, expected));
            }
        }
    }
    lines.sort();
    // What stands, as understood.
    let understood = match page.find("<div id=\"current-orders\">") {
        Some(start) => {
            let block = &page[start..start + page[start..].find("</div>").unwrap()];
            block
                .split("<li>")
                .skip(1)
                .map(|li| unmark(li.split("</li>").next().unwrap()))
                .collect()
        }
        None => Vec::new(),
    };
    Answer {
        stored,
        understood,
        lines,
    }
}

#[tokio::test]
async fn every_engines_order_sets_get_one_verdict_by_mail_and_on_the_web() {
    let app = crate::helpers::TestApp::spawn().await;
    let pool = app.db.pool.clone();
    let zine = zines::insert(
        &pool,
        &ZineSlug::parse("gazette").unwrap(),
        "The Gazette",
        trafalgar(),
    )
    .await
    .unwrap();
    subscribe(&pool, zine.id, NELSON, "Horatio Nelson").await;
    subscribe(&pool, zine.id, VILLENEUVE, "Pierre Villeneuve").await;
    let mut browser: Browser = logged_in(&app, NELSON).await;
    // One player answered hundreds of times in an hour: above the reply budget, which is
    // not what is tested here.
    let mut settings = inbox::Settings::from(DOMAIN);
    settings.limits.replies_per_hour = 100_000;
    let mut compared = 0;
    let mut message = 0;
    for (seed, engine) in (3..).zip(EngineKind::ALL) {
        // A seed of its own: the entropy makes the players' reply tokens.
        let game = start_game(&pool, zine.id, engine.name(), engine, seed).await;
        let name = engine.name();
        let address = reply_address_of(&pool, game, nelsons_seat(&pool, game).await).await;
        let orders_path = format!("/me/games/{game}/orders");
        // What the engine's corpus showed, so that it cannot pass by judging nothing.
        let mut seen: std::collections::BTreeSet<String> = Default::default();
        for set in corpus(engine) {
            // By mail.
            clear(&pool).await;
            message += 1;
            let raw = format!(
                "From: Horatio Nelson <{NELSON}>\r\nTo: <{address}>\r\n\
                 Message-ID: <verdict-{message}@victory.example>\r\nSubject: Re: {name}\r\n\
                 Content-Type: text/plain; charset=utf-8\r\n\r\n{}\r\n",
                set.replace('\n', "\r\n")
            );
            inbox::ingest(&pool, raw.as_bytes(), "pipe", trafalgar(), &settings)
                .await
                .unwrap();
            let reply = last_reply(&pool).await;
            let by_mail = mail_answer(&reply, name);
            let filed_by_mail = on_file(&pool, game).await;

            // On the web.
            clear(&pool).await;
            let csrf = crate::console::hidden_csrf(&browser.get_text("/me").await);
            let response = browser
                .post(&orders_path, &[("csrf", &csrf), ("orders", &set)])
                .await;
            let page = match response.status() {
                StatusCode::SEE_OTHER => {
                    let to = response.headers()["location"].to_str().unwrap().to_owned();
                    browser.get_text(&to).await
                }
                StatusCode::OK | StatusCode::UNPROCESSABLE_ENTITY => response.text().await.unwrap(),
                other => panic!("{engine} {set:?}: the form answered {other}"),
            };
            let on_web = web_answer(&page, name);
            let filed_on_web = on_file(&pool, game).await;

            assert_eq!(
                (&by_mail.stored, &by_mail.lines),
                (&on_web.stored, &on_web.lines),
                "{engine}: {set:?} is judged differently by mail (left) and on the web (right); \
                 the mail:\n{reply}"
            );
            if by_mail.stored {
                // A PRESS line is mail's own command by mail (its answer says what became of
                // the press apart), and the engine's on the form: the orders are compared.
                let orders = |understood: &[String]| -> Vec<String> {
                    understood
                        .iter()
                        .filter(|u| !u.starts_with("press: "))
                        .cloned()
                        .collect()
                };
                assert_eq!(
                    orders(&by_mail.understood),
                    orders(&on_web.understood),
                    "{engine}: {set:?} is understood differently"
                );
            }
            assert_eq!(
                filed_by_mail.is_some(),
                filed_on_web.is_some(),
                "{engine}: {set:?} is stored by one door only"
            );
            compared += 1;
            seen.insert(
                if by_mail.stored {
                    "stored"
                } else {
                    "not stored"
                }
                .to_owned(),
            );
            seen.extend(by_mail.lines.iter().map(|(kind, ..)| kind.clone()));
        }
        for wanted in ["stored", "not stored", "Error", "Chat"] {
            assert!(
                seen.contains(wanted),
                "{engine}: no {wanted} in the corpus: {seen:?}"
            );
        }
        eprintln!("{engine}: judged alike by both doors: {seen:?}");
    }
    eprintln!("{compared} sets compared");
    assert!(compared >= 60, "{compared} sets compared");
    app.stop().await;
}
