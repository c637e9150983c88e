//! Demo data for a fresh local database, so `./scripts/run` shows something at once.

use chrono::{DateTime, Utc};
use engine::{GameSecret, Player, PlayerId, Viewer};
use games::EngineKind;
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::games::{self as game_rows, GameId, NewGame, NewOrders, NewPlayer, NewReport, NewTurn};
use crate::subscribers::{self, NewSubscriber, Subscriber};
use crate::zines::{self, ZineId};
use crate::{DisplayName, EmailAddress, PgPool, StoreError, ZineSlug, audit};

/// Short name of the demo zine.
pub const DEMO_ZINE_SLUG: &str = "demo";

const DEMO_ZINE_NAME: &str = "The Admiralty Gazette (demo)";

/// `(address, display name)`: `example.org` addresses never reach a real mailbox.
const DEMO_SUBSCRIBERS: [(&str, &str); 4] = [
    ("nelson@example.org", "Horatio Nelson"),
    ("villeneuve@example.org", "Pierre Villeneuve"),
    ("gravina@example.org", "Federico Gravina"),
    ("collingwood@example.org", "Cuthbert Collingwood"),
];

/// Arbitrary constant for `pg_advisory_xact_lock`: two processes seeding at once seed once.
const SEED_LOCK_KEY: i64 = 0x4144_4d5f_4445_4d4f; // "ADM_DEMO"

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SeedOutcome {
    /// The database already had a zine; nothing was written.
    AlreadyPopulated,
    Seeded {
        zine: ZineId,
        subscribers: usize,
        game: GameId,
    },
}

/// The demo game's name.
pub const DEMO_GAME_NAME: &str = "Barmy Battleships (demo)";

/// Writes the demo zine, a few subscribers, and a Barmy Battleships game of them with its first
/// turn resolved and published and its second turn open, when the database has no zine at all.
/// `secret` is the demo game's dice secret (the caller's randomness).
pub async fn seed_if_empty(
    pool: &PgPool,
    now: DateTime<Utc>,
    secret: [u8; 32],
) -> Result<SeedOutcome, StoreError> {
    let mut tx = pool.begin().await?;
    sqlx::query("SELECT pg_advisory_xact_lock($1)")
        .bind(SEED_LOCK_KEY)
        .execute(&mut *tx)
        .await?;
    if zines::count(&mut *tx).await? > 0 {
        return Ok(SeedOutcome::AlreadyPopulated);
    }

    let slug = ZineSlug::parse(DEMO_ZINE_SLUG)
        .map_err(|e| StoreError::invalid_row("demo zine slug", e))?;
    let zine = zines::insert(&mut *tx, &slug, DEMO_ZINE_NAME, now).await?;
    let mut seeded = Vec::with_capacity(DEMO_SUBSCRIBERS.len());
    for (address, name) in DEMO_SUBSCRIBERS {
        let new = NewSubscriber {
            zine_id: zine.id,
            email: EmailAddress::parse(address)
                .map_err(|e| StoreError::invalid_row("demo subscriber email", e))?,
            display_name: DisplayName::parse(name)
                .map_err(|e| StoreError::invalid_row("demo subscriber name", e))?,
        };
        seeded.push(subscribers::insert(&mut *tx, &new, now).await?);
    }
    let game = seed_demo_game(&mut tx, zine.id, &seeded, secret, now).await?;

    let entry = audit::NewAuditEntry {
        actor: "system",
        action: "demo.seed",
        game_id: None,
        details: json!({ "zine": DEMO_ZINE_SLUG, "subscribers": DEMO_SUBSCRIBERS.len(), "game": game.0 }),
    };
    audit::append(&mut *tx, &entry, now).await?;
    tx.commit().await?;
    Ok(SeedOutcome::Seeded {
        zine: zine.id,
        subscribers: DEMO_SUBSCRIBERS.len(),
        game,
    })
}

/// A Barmy Battleships game of every demo subscriber (BARMY-02) on a small board, so that the
/// first turn already has hits: each player fires at a square of the next player's ship.
async fn seed_demo_game(
    tx: &mut sqlx::PgConnection,
    zine: ZineId,
    subscribers: &[Subscriber],
    secret: [u8; 32],
    now: DateTime<Utc>,
) -> Result<GameId, StoreError> {
    let engine = EngineKind::Barmy;
    let fail = |e: games::GameError| StoreError::invalid_row("demo game", e);
    let game_secret = GameSecret::from_bytes(secret);
    let roster: Vec<Player> = subscribers
        .iter()
        .zip(1u64..)
        .map(|(subscriber, id)| Player {
            id: PlayerId(id),
            name: subscriber.display_name.as_str().to_owned(),
        })
        .collect();
    let setup = engine
        .parse_setup(&json!({ "width": 10, "height": 10 }))
        .map_err(fail)?;
    let start = engine
        .new_game(&setup, &roster, &mut game_secret.turn_dice(0))
        .map_err(fail)?;
    let game = game_rows::insert_game(
        &mut *tx,
        &NewGame {
            zine_id: zine,
            name: DEMO_GAME_NAME,
            engine: engine.name(),
            setup: &setup,
            state: &start,
            secret: &secret,
        },
        now,
    )
    .await?;
    let mut player_rows = Vec::with_capacity(roster.len());
    for (subscriber, player) in subscribers.iter().zip(&roster) {
        let token = demo_reply_token(&secret, player.id);
        let new = NewPlayer {
            game_id: game,
            subscriber_id: subscriber.id,
            display_name: &player.name,
            engine_player_id: player.id.0,
            reply_token: &token,
            joined_turn: 1,
        };
        player_rows.push(game_rows::insert_player(&mut *tx, &new).await?);
    }

    // Turn 1: open, ordered, resolved and published.
    let opening = |number: u32| {
        (
            game_secret.turn_seed(number).commitment(),
            game_secret.sealed_seed(number).commitment(),
        )
    };
    let (open, sealed) = opening(1);
    let turn = game_rows::open_turn(
        &mut *tx,
        &NewTurn {
            game_id: game,
            number: 1,
            deadline: Some(now),
            seed_commitment: &open,
            sealed_commitment: &sealed,
            state_before: &start,
        },
        now,
    )
    .await?;
    let mut input = engine::TurnInput::default();
    let mut press = Vec::new();
    for (index, (player, row)) in roster.iter().zip(&player_rows).enumerate() {
        let target = roster
            .get((index + 1) % roster.len())
            .map(|p| p.id)
            .unwrap_or(player.id);
        let mut text = format!(
            "FIRE {}, {}",
            own_square(engine, &start, target, index)?,
            corner(index)
        );
        if index == 0 {
            text.push_str(" Fair winds to all, and a broadside for my neighbour!");
        }
        let parsed = engine
            .parse_orders(&start, player.id, &text)
            .map_err(fail)?;
        let orders = NewOrders {
            game_id: game,
            turn_id: turn,
            player_id: *row,
            raw_text: &text,
            parsed: &parsed.orders,
            source: "web",
        };
        game_rows::save_orders(&mut *tx, &orders, &parsed.press, now).await?;
        for item in &parsed.press {
            press.push(games::PressItem {
                player: player.id,
                text: item.clone(),
            });
        }
        input.orders.insert(player.id, parsed.orders);
    }
    let resolved = engine
        .resolve(&start, &input, &press, &mut game_secret.turn_dice(1))
        .map_err(fail)?;
    game_rows::mark_resolved(&mut *tx, turn, &game_secret.turn_seed(1).to_hex(), now).await?;
    let report_json = serde_json::to_value(&resolved.report)
        .map_err(|e| StoreError::invalid_row("demo report", e))?;
    let report = NewReport {
        turn_id: turn,
        text: &resolved.report.to_text(),
        markdown: &resolved.report.to_markdown(),
        html: &resolved.report.to_html(),
        report: &report_json,
    };
    game_rows::publish_report(&mut *tx, &report, now).await?;
    game_rows::set_state(&mut *tx, game, &resolved.state).await?;

    // Turn 2: open until a week from now.
    let (open, sealed) = opening(2);
    game_rows::open_turn(
        &mut *tx,
        &NewTurn {
            game_id: game,
            number: 2,
            deadline: Some(now + chrono::Duration::days(7)),
            seed_commitment: &open,
            sealed_commitment: &sealed,
            state_before: &resolved.state,
        },
        now,
    )
    .await?;
    Ok(game)
}

/// One square of `target`'s ship, as its owner sees it: the demo's players aim well.
fn own_square(
    engine: EngineKind,
    state: &serde_json::Value,
    target: PlayerId,
    pick: usize,
) -> Result<String, StoreError> {
    let view = engine
        .view(state, Viewer::Player(target))
        .map_err(|e| StoreError::invalid_row("demo game", e))?;
    let Some(engine::Board::Grid(picture)) = view.board else {
        return Err(StoreError::invalid_row("demo game", "no board"));
    };
    let own: Vec<&engine::GridMark> = picture
        .marks
        .iter()
        .filter(|m| m.mark == engine::Mark::OwnShip)
        .collect();
    let mark = own
        .get(pick % own.len().max(1))
        .ok_or_else(|| StoreError::invalid_row("demo game", "no ship"))?;
    let column = picture
        .column_labels
        .get(usize::from(mark.x))
        .cloned()
        .unwrap_or_default();
    let row = picture
        .row_labels
        .get(usize::from(mark.y))
        .cloned()
        .unwrap_or_default();
    Ok(format!("{column}{row}"))
}

/// A second shot into a corner of the demo's 10x10 board.
fn corner(index: usize) -> &'static str {
    ["A1", "J1", "A10", "J10"]
        .get(index % 4)
        .copied()
        .unwrap_or("A1")
}

/// An unguessable token for a demo player's reply address, derived from the game's secret.
fn demo_reply_token(secret: &[u8; 32], player: PlayerId) -> String {
    let mut hasher = Sha256::new();
    hasher.update(b"admiralty/demo-reply-token/v1");
    hasher.update(secret);
    hasher.update(player.0.to_be_bytes());
    hex::encode(hasher.finalize()).chars().take(32).collect()
}
