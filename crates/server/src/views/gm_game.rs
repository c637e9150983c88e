//! A game in the console: its desk (the open turn, the players and their orders, the press,
//! the roster, the seats still in battle and who may take one, the standbys, the absence
//! policy), what an irreversible action puts at stake, the postal players' sheets, and a game
//! open for sign-up.

use std::collections::BTreeMap;

use games::{AnyState, EngineKind};
use store::absences::GamePolicy;
use store::games::{GameId, GameSummary};
use store::offers::MissedPolicy;
use store::orders::PressEntry;
use store::players::{GamePlayer, PlayerRowId, PlayerTurnStatus, RosterRow};
use store::signups::{Opening, OpeningId, Signup};
use store::status::{PlayerStatus, SubscriberStatus, TurnStatus};
use store::subscribers::{Subscriber, SubscriberId};
use store::turns::TurnSummary;
use store::zines::Zine;
use store::{PgPool, StoreError};

use crate::offers::WantedSeat;
use crate::rosters::RosterEntry;
use crate::turns::LifecycleError;

/// A game by its id.
pub async fn game(pool: &PgPool, id: GameId) -> Result<Option<GameSummary>, StoreError> {
    store::games::summary(pool, id).await
}

/// What the game's console page shows.
pub struct GameDesk {
    /// Every turn, newest first.
    pub turns: Vec<TurnSummary>,
    /// The open turn's players with the orders that count (none without an open turn).
    pub players: Vec<PlayerTurnStatus>,
    /// The open turn's press.
    pub press: Vec<PressEntry>,
    /// Every player the game has had, with their seats.
    pub roster: Vec<RosterEntry>,
    /// The game's state while a turn is open: whose fleets are still in the battle.
    current: Option<AnyState>,
    /// For replacements, with an open turn and but in Barmy: the seats still in the battle,
    /// and who may take one (subscriber id, label; the zine's standbys first).
    pub seats: Vec<RosterRow>,
    pub takers: Vec<Taker>,
    /// Missed turns and standbys; none for Barmy (no seat is handed over).
    pub standbys: Option<Standbys>,
    pub absence: GamePolicy,
}

impl GameDesk {
    /// The open turn, if any.
    pub fn open_turn(&self) -> Option<&TurnSummary> {
        self.turns.iter().find(|t| t.status == TurnStatus::Open)
    }

    /// Whether the player's fleet is still in the battle (only such a seat can be handed on,
    /// or taken back after a resignation).
    pub fn in_battle(&self, engine_player_id: i64) -> bool {
        self.current
            .as_ref()
            .is_some_and(|c| c.expects_orders(crate::turns::player_id(engine_player_id)))
    }

    /// The roster as the page shows it, in a few characters: who holds which seat in what
    /// status, and the open offers. A roster form (replace, offer, withdraw, take back a
    /// resignation) carries it, and is refused once the roster has moved on.
    pub fn roster_version(&self) -> String {
        use sha2::{Digest, Sha256};
        let mut seen = String::new();
        for p in &self.players {
            seen.push_str(&format!(
                "p{}:{}:{};",
                p.player_id, p.engine_player_id, p.status
            ));
        }
        for r in &self.roster {
            seen.push_str(&format!("r{}:{:?}:{};", r.name, r.seat, r.status));
        }
        for seat in self.standbys.iter().flat_map(|s| &s.wanted) {
            seen.push_str(&format!("w{}:", seat.player));
            for offer in &seat.offers {
                seen.push_str(&format!("o{},", offer.id));
            }
        }
        let digest = Sha256::digest(seen.as_bytes());
        hex::encode(digest.iter().take(8).copied().collect::<Vec<u8>>())
    }
}

/// Everything the game's console page reads.
pub async fn game_desk(pool: &PgPool, game: &GameSummary) -> Result<GameDesk, LifecycleError> {
    let turns = store::turns::turn_summaries(pool, game.id).await?;
    let open = turns
        .iter()
        .find(|t| t.status == TurnStatus::Open)
        .map(|t| t.id);
    let (players, press) = match open {
        Some(turn) => (
            store::players::player_turn_status(pool, game.id, turn).await?,
            store::orders::press_entries(pool, turn).await?,
        ),
        None => (Vec::new(), Vec::new()),
    };
    let roster = crate::rosters::roster(pool, game.id)
        .await?
        .unwrap_or_default();
    let current = match open {
        Some(_) => Some(crate::turns::game_state(pool, game.id).await?),
        None => None,
    };
    let mut desk = GameDesk {
        turns,
        players,
        press,
        roster,
        current,
        seats: Vec::new(),
        takers: Vec::new(),
        standbys: standbys(pool, game).await?,
        absence: store::absences::policy(pool, game.id).await?,
    };
    if open.is_some() && game.engine != EngineKind::Barmy {
        desk.seats = store::players::roster(pool, game.id)
            .await?
            .into_iter()
            .filter(|p| desk.in_battle(p.engine_player_id))
            .collect();
        desk.takers = takers(pool, game).await?;
    }
    Ok(desk)
}

/// Someone who may take a seat. The name is kept apart from the "(standby)" mark: the
/// dropdown shows the mark, the confirmation pages and mails name the person.
#[derive(Debug, Clone)]
pub struct Taker {
    pub id: SubscriberId,
    pub name: String,
    pub standby: bool,
}

impl Taker {
    /// How the dropdown lists them.
    pub fn label(&self) -> String {
        if self.standby {
            format!("{} (standby)", self.name)
        } else {
            self.name.clone()
        }
    }
}

/// Who may take a seat: the zine's standbys first (marked), then every other active
/// subscriber who does not play the game.
async fn takers(pool: &PgPool, game: &GameSummary) -> Result<Vec<Taker>, StoreError> {
    let standbys = store::replacements::standbys_for_game(pool, game.zine_id, game.id).await?;
    let mut out: Vec<Taker> = standbys
        .iter()
        .map(|s| Taker {
            id: s.subscriber_id,
            name: s.display_name.clone(),
            standby: true,
        })
        .collect();
    for other in store::players::unenrolled_subscribers(pool, game.id).await? {
        if !standbys
            .iter()
            .any(|s| s.subscriber_id == other.subscriber_id)
        {
            out.push(Taker {
                id: other.subscriber_id,
                name: other.display_name,
                standby: false,
            });
        }
    }
    Ok(out)
}

/// The game's missed turns and standbys.
pub struct Standbys {
    pub engine: EngineKind,
    /// The engine's own missed-turns limit.
    pub engine_default: u32,
    pub policy: MissedPolicy,
    /// The seats that want a player, with their open offers.
    pub wanted: Vec<WantedSeat>,
}

/// The missed-turns policy and the seats that want a player; none for Barmy.
async fn standbys(pool: &PgPool, game: &GameSummary) -> Result<Option<Standbys>, LifecycleError> {
    let Some(engine_default) = game.engine.missed_turns_limit() else {
        return Ok(None);
    };
    Ok(Some(Standbys {
        engine: game.engine,
        engine_default,
        policy: missed_policy(pool, game.id).await?,
        wanted: crate::offers::wanted_seats(pool, game.id).await?,
    }))
}

/// The game's missed-turns limit, who makes offers, and how long one stands.
pub async fn missed_policy(pool: &PgPool, game: GameId) -> Result<MissedPolicy, StoreError> {
    store::offers::policy(pool, game).await
}

/// What resolving now, ending or deleting a game puts at stake, as its confirmation page says.
pub struct Stakes {
    /// The open turn's number.
    pub open_turn: Option<i32>,
    pub published: usize,
    /// The open turn's active players, and how many of them have ordered ([`OrderCount`]).
    pub players: usize,
    pub ordered: usize,
    /// The zine's active subscribers, and those who take each game's report by mail.
    pub subscribers: usize,
    pub readers: usize,
}

/// The open turn's active players, and how many of them have sent orders that answer it: one
/// count for the game's page and its confirmation pages, so neither counts a player who left.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OrderCount {
    pub playing: usize,
    pub ordered: usize,
}

impl OrderCount {
    pub fn of(rows: &[PlayerTurnStatus]) -> OrderCount {
        let playing = || rows.iter().filter(|p| p.status == PlayerStatus::Active);
        OrderCount {
            playing: playing().count(),
            ordered: playing()
                .filter(|p| p.orders_answer_turn == Some(true))
                .count(),
        }
    }
}

/// The game's open turn, published turns, players and the zine's readers.
pub async fn stakes(pool: &PgPool, game: &GameSummary) -> Result<Stakes, StoreError> {
    let turns = store::turns::turn_summaries(pool, game.id).await?;
    let open = turns.iter().find(|t| t.status == TurnStatus::Open);
    let published = turns
        .iter()
        .filter(|t| t.status != TurnStatus::Open)
        .count();
    let count = match open {
        Some(turn) => {
            OrderCount::of(&store::players::player_turn_status(pool, game.id, turn.id).await?)
        }
        None => OrderCount::default(),
    };
    let subscribers = store::subscribers::list_for_zine(pool, game.zine_id)
        .await?
        .into_iter()
        .filter(|s| s.status == SubscriberStatus::Active)
        .count();
    let readers = store::issues::report_readers(pool, game.zine_id)
        .await?
        .len();
    Ok(Stakes {
        open_turn: open.map(|t| t.number),
        published,
        players: count.playing,
        ordered: count.ordered,
        subscribers,
        readers,
    })
}

/// What unsubscribing puts at stake: the subscriber, their zine, and the games they play
/// (not finished) as an active player.
pub async fn unsubscribe_stakes(
    pool: &PgPool,
    id: SubscriberId,
) -> Result<Option<(Subscriber, Zine, Vec<String>)>, StoreError> {
    let Some((subscriber, zine)) = super::gm_zine::subscriber(pool, id).await? else {
        return Ok(None);
    };
    let games = store::players::player_rows_of_subscriber(pool, subscriber.id)
        .await?
        .into_iter()
        .filter(|p| p.game_status.as_str() != "finished" && p.status == PlayerStatus::Active)
        .map(|p| p.game_name)
        .collect();
    Ok(Some((subscriber, zine, games)))
}

/// A game's players, in the engine's order.
pub async fn players(pool: &PgPool, game: GameId) -> Result<Vec<GamePlayer>, StoreError> {
    store::players::of_game(pool, game).await
}

/// The game's postal players (who send orders on paper or by phone).
pub async fn postal_players(pool: &PgPool, game: GameId) -> Result<Vec<PlayerRowId>, StoreError> {
    store::players::postal_players(pool, game).await
}

/// What the postal players' sheets print: the players, the game's state (each sheet shows one
/// player's own view of it and the order help), the turns (for the reports) and the last
/// turn whose report each player has had on paper.
pub struct Printing {
    pub players: Vec<GamePlayer>,
    pub state: AnyState,
    /// Newest first.
    pub turns: Vec<TurnSummary>,
    pub paper_through: BTreeMap<PlayerRowId, i32>,
}

impl Printing {
    /// The published reports `player` has not had on paper, oldest first.
    pub fn reports_not_on_paper(&self, player: PlayerRowId) -> Vec<(i32, String)> {
        let through = self.paper_through.get(&player).copied().unwrap_or(0);
        let mut reports: Vec<(i32, String)> = self
            .turns
            .iter()
            .filter(|t| t.number > through)
            .filter_map(|t| t.report_text.clone().map(|text| (t.number, text)))
            .collect();
        reports.reverse();
        reports
    }

    /// The latest turn with a published report (0: none yet).
    pub fn latest_report(&self) -> i32 {
        self.turns
            .iter()
            .find(|t| t.report_text.is_some())
            .map_or(0, |t| t.number)
    }
}

/// The game's players, its state and its turns, for printed sheets.
pub async fn printing(pool: &PgPool, game: GameId) -> Result<Printing, LifecycleError> {
    let players = store::players::of_game(pool, game).await?;
    let state = crate::turns::game_state(pool, game).await?;
    let turns = store::turns::turn_summaries(pool, game).await?;
    let paper_through = store::paper::through_turns(pool, game).await?;
    Ok(Printing {
        players,
        state,
        turns,
        paper_through,
    })
}

/// What a game open for sign-up shows its GM.
pub struct OpeningDesk {
    pub opening: Opening,
    pub queue: Vec<Signup>,
    /// The zine's short name (empty if the zine is gone).
    pub zine_slug: String,
}

/// A game open for sign-up (or started from one), with its queue.
pub async fn opening(pool: &PgPool, id: OpeningId) -> Result<Option<OpeningDesk>, StoreError> {
    let Some(opening) = store::signups::find(pool, id).await? else {
        return Ok(None);
    };
    let queue = store::signups::queue(pool, opening.id).await?;
    let zine_slug = store::zines::find(pool, opening.zine_id)
        .await?
        .map(|z| z.slug.as_str().to_owned())
        .unwrap_or_default();
    Ok(Some(OpeningDesk {
        opening,
        queue,
        zine_slug,
    }))
}

/// A press entry of the game, for the page that strikes it; `None` when it is gone.
pub async fn press_to_strike(
    pool: &PgPool,
    game: GameId,
    press: store::ids::PressId,
) -> Result<Option<store::orders::PressToStrike>, StoreError> {
    // The entry's lock lasts only this statement: the page reads, the strike checks again.
    let mut conn = pool.acquire().await?;
    store::orders::lock_press_entry(&mut conn, game, press).await
}
