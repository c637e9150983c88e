//! Demo data for a fresh local database, so `./scripts/run` shows something at once: a zine, a
//! few subscribers, and a Barmy Battleships game of them with its first turn resolved and
//! published (through the same lifecycle a real game goes through) and its second turn open.

use chrono::{DateTime, Utc};
use engine::{PlayerId, Viewer};
use games::{AnyState, EngineKind};
use serde_json::json;
use sha2::{Digest, Sha256};
use store::games::GameId;
use store::status::Source;
use store::subscribers::NewSubscriber;
use store::zines::ZineId;
use store::{DisplayName, EmailAddress, PgPool, ZineSlug};

use crate::entropy::Entropy;
use crate::turns::create::{Creation, GameSpec, Roster, create_game_in};
use crate::turns::resolve::Mailing;
use crate::turns::{LifecycleError, OpenTurns, StateCache, Submission, submit_orders_in};
use schedule::Schedule;

/// Short name of the demo zine.
pub const DEMO_ZINE_SLUG: &str = "demo";

const DEMO_ZINE_NAME: &str = "The Admiralty Gazette (demo)";

/// The demo game's name.
pub const DEMO_GAME_NAME: &str = "Barmy Battleships (demo)";

/// `(address, display name)`: `example.org` addresses never reach a real mailbox.
const DEMO_SUBSCRIBERS: [(&str, &str); 4] = [
    ("nelson@example.org", "Horatio Nelson"),
    ("villeneuve@example.org", "Pierre Villeneuve"),
    ("gravina@example.org", "Federico Gravina"),
    ("collingwood@example.org", "Cuthbert Collingwood"),
];

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

/// Writes the demo zine, its subscribers and its game, when the database has no zine at all,
/// in one transaction. `secret` is the demo game's dice secret (the caller's randomness). The
/// demo's turn is published on the web only: its subscribers' addresses are examples.
pub async fn seed_if_empty(
    pool: &PgPool,
    now: DateTime<Utc>,
    secret: [u8; 32],
) -> Result<SeedOutcome, LifecycleError> {
    let mut tx = pool.begin().await?;
    store::zines::lock_seeding(&mut tx).await?;
    if store::zines::count(&mut *tx).await? > 0 {
        return Ok(SeedOutcome::AlreadyPopulated);
    }
    let slug = ZineSlug::parse(DEMO_ZINE_SLUG).map_err(demo_data)?;
    let zine = store::zines::insert(&mut *tx, &slug, DEMO_ZINE_NAME, now).await?;
    for (address, name) in DEMO_SUBSCRIBERS {
        let new = NewSubscriber {
            zine_id: zine.id,
            email: EmailAddress::parse(address).map_err(demo_data)?,
            display_name: DisplayName::parse(name).map_err(demo_data)?,
        };
        store::subscribers::insert(&mut *tx, &new, now).await?;
    }
    let game = seed_demo_game(&mut tx, zine.id, secret, now).await?;
    store::audit::append(
        &mut *tx,
        &store::audit::NewAuditEntry {
            actor: "system",
            game: None,
            action: store::audit::AuditAction::DemoSeed {
                zine: DEMO_ZINE_SLUG.to_owned(),
                subscribers: DEMO_SUBSCRIBERS.len(),
                game,
            },
        },
        now,
    )
    .await?;
    tx.commit().await?;
    Ok(SeedOutcome::Seeded {
        zine: zine.id,
        subscribers: DEMO_SUBSCRIBERS.len(),
        game,
    })
}

/// A Barmy Battleships game of every demo subscriber (BARMY-02) on a small board, so that the
/// first turn already has hits: each player fires at a square of the next player's ship. Turn
/// 1 is resolved and published; turn 2 is open for a week.
async fn seed_demo_game(
    tx: &mut sqlx::PgConnection,
    zine: ZineId,
    secret: [u8; 32],
    now: DateTime<Utc>,
) -> Result<GameId, LifecycleError> {
    let setup = EngineKind::Barmy
        .parse_setup(&json!({ "width": 10, "height": 10 }))
        .map_err(demo_data)?;
    let spec = GameSpec {
        zine,
        name: DEMO_GAME_NAME,
        setup: &setup,
        first_deadline: Some(now),
        schedule: Schedule::EveryDays(7),
    };
    let game = create_game_in(
        &mut *tx,
        now,
        &spec,
        &Roster::EveryActiveSubscriber,
        None,
        &mut DemoEntropy::new(secret),
        // The demo's subscribers are made up: nobody to mail.
        &Creation {
            actor: "system",
            zone: chrono_tz::Tz::UTC,
            mail: None,
        },
    )
    .await?;
    let players = store::players::of_game(&mut *tx, game).await?;
    let mut open_turns = OpenTurns::new(StateCache::default());
    let turn = open_turns
        .get(&mut *tx, game)
        .await?
        .ok_or(LifecycleError::NoOpenTurn(game))?;
    let start = turn.state.clone();
    for (index, player) in players.iter().enumerate() {
        let target = players
            .get((index + 1) % players.len())
            .map_or(player.engine_player_id, |p| p.engine_player_id);
        let mut text = format!(
            "FIRE {}, {}",
            own_square(&start, crate::turns::player_id(target), index)?,
            corner(index)
        );
        if index == 0 {
            text.push_str(" Fair winds to all, and a broadside for my neighbour!");
        }
        let lock = store::subscribers::lock_player(&mut *tx, player.id).await?;
        let orders = Submission {
            game,
            engine_player: player.engine_player_id,
            text: &text,
            source: Source::Web,
            press_limits: crate::config::PressLimits::DEFAULT,
            with_press: true,
            mail_domain: None,
        };
        // Sent a minute before the deadline, which is now.
        let sent = now - chrono::Duration::minutes(1);
        submit_orders_in(&mut *tx, &mut open_turns, &lock, sent, &orders).await?;
    }
    let due = store::turns::claim_open_turn(&mut *tx, game)
        .await?
        .ok_or(LifecycleError::NoOpenTurn(game))?;
    crate::turns::resolve::resolve_claimed(&mut *tx, &due, now, Mailing::WebOnly).await?;
    Ok(game)
}

/// The demo game's randomness: its secret first, then reply tokens derived from it.
struct DemoEntropy {
    secret: [u8; 32],
    draws: u64,
}

impl DemoEntropy {
    fn new(secret: [u8; 32]) -> Self {
        DemoEntropy { secret, draws: 0 }
    }
}

impl Entropy for DemoEntropy {
    fn fill(&mut self, bytes: &mut [u8]) {
        let mut stream = Vec::with_capacity(bytes.len());
        if self.draws == 0 {
            stream.extend_from_slice(&self.secret);
        }
        let mut block = 0u64;
        while stream.len() < bytes.len() {
            let mut hasher = Sha256::new();
            hasher.update(b"admiralty/demo-entropy/v1");
            hasher.update(self.secret);
            hasher.update(self.draws.to_be_bytes());
            hasher.update(block.to_be_bytes());
            stream.extend_from_slice(&hasher.finalize());
            block += 1;
        }
        for (byte, value) in bytes.iter_mut().zip(stream) {
            *byte = value;
        }
        self.draws += 1;
    }
}

/// One square of `target`'s ship, as its owner sees it: the demo's players aim well.
fn own_square(state: &AnyState, target: PlayerId, pick: usize) -> Result<String, LifecycleError> {
    let no_ship = || LifecycleError::Internal("the demo game has no ship to aim at".into());
    let Some(engine::Board::Grid(picture)) = state.view(Viewer::Player(target)).board else {
        return Err(no_ship());
    };
    let own: Vec<&engine::GridMark> = picture
        .marks
        .iter()
        .filter(|m| m.mark == engine::Mark::OwnShip)
        .collect();
    let mark = own.get(pick % own.len().max(1)).ok_or_else(no_ship)?;
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

/// The demo's own constants refused by a domain type: a bug in this file.
fn demo_data(error: impl std::fmt::Display) -> LifecycleError {
    LifecycleError::Internal(format!("demo data: {error}"))
}

/// A second shot into a corner of the demo's 10x10 board.
fn corner(index: usize) -> &'static str {
    ["A1", "J1", "A10", "J10"]
        .get(index % 4)
        .copied()
        .unwrap_or("A1")
}
