//! Seats offered to standbys (docs/rosters.md), in one place below `turns` (a player who
//! misses the game's limit of turns in a row, `turns::missed`) and `rosters` (a player who
//! resigns, the GM's replacements): the policy of each game, the seats that want a player,
//! making an offer ([`make`]), the GM's side ([`gm`]), a standby's answer and offers that
//! expire ([`answers`]), offers that lapse ([`lapses`]), and a seat changing hands
//! ([`handover`]).

pub mod answers;
pub mod gm;
pub mod handover;
pub mod lapses;
pub mod make;

use games::EngineKind;
use store::PgPool;
use store::games::GameId;
use store::offers::{MissedPolicy, Offer};
use store::players::PlayerRowId;
use store::status::{GameStatus, PlayerStatus};

pub(crate) use answers::answer_in;
pub use answers::{Answer, Answered, answer, expire_offers};
pub use gm::{offer_seat, set_policy, withdraw};
pub use lapses::SeatKept;
pub(crate) use lapses::tell_offers_lapsed;
pub(crate) use make::seat_left;

use crate::lifecycle::{self, LifecycleError};

/// The limit that holds for a game: the GM's, else the engine's default; `None` where seats are
/// never handed over (Barmy, BARMY-02).
pub fn limit(engine: EngineKind, policy: MissedPolicy) -> Option<u32> {
    engine.missed_turns_limit()?;
    policy.limit.or_else(|| engine.missed_turns_limit())
}

/// The longest an offer may stand (`games.offer_days`).
pub const MAX_OFFER_DAYS: u32 = 14;

/// Why a seat wants a player.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Want {
    Resigned,
    Missed {
        turns: u32,
        limit: u32,
    },
    /// Still playing, but the GM offered the seat (the offer stands until withdrawn).
    OfferedByGm,
}

/// A seat of a running game that wants a player, with the offers made of it that are open.
#[derive(Debug, Clone)]
pub struct WantedSeat {
    pub player: PlayerRowId,
    pub name: String,
    pub want: Want,
    pub offers: Vec<Offer>,
}

/// The game's seats that want a player, in engine order: resigned, at their missed-turns
/// limit, or offered by the GM. None in a finished game or one whose seats are never handed
/// over.
pub async fn wanted_seats(pool: &PgPool, game: GameId) -> Result<Vec<WantedSeat>, LifecycleError> {
    let Some(summary) = store::games::summary(pool, game).await? else {
        return Ok(Vec::new());
    };
    let engine = summary.engine;
    let policy = store::offers::policy(pool, game).await?;
    let Some(limit) = limit(engine, policy) else {
        return Ok(Vec::new());
    };
    if summary.status == GameStatus::Finished {
        return Ok(Vec::new());
    }
    let open = store::offers::open_of_game(pool, game).await?;
    // Only seats still in the battle: a resigned player's fleet leaves at the next resolution,
    // and a fleet sunk or wiped out has nothing left to hand on.
    let state = lifecycle::game_state(pool, game).await?;
    let mut wanted = Vec::new();
    for player in store::players::of_game(pool, game).await? {
        if !state.expects_orders(lifecycle::player_id(player.engine_player_id)) {
            continue;
        }
        let missed = u32::try_from(player.missed_turns).unwrap_or(0);
        let want = match player.status {
            PlayerStatus::Resigned => Want::Resigned,
            PlayerStatus::Active if missed >= limit => Want::Missed {
                turns: missed,
                limit,
            },
            PlayerStatus::Active if open.iter().any(|offer| offer.player_id == player.id) => {
                Want::OfferedByGm
            }
            _ => continue,
        };
        wanted.push(WantedSeat {
            player: player.id,
            name: player.display_name,
            want,
            offers: open
                .iter()
                .filter(|offer| offer.player_id == player.id)
                .cloned()
                .collect(),
        });
    }
    Ok(wanted)
}
