//! Starting a game: the roster, the dice secret, the engine's first state and turn 1 opened
//! with the public commitments to its seeds.

use chrono::{DateTime, Utc};
use engine::{GameSecret, Player, PlayerId, SeatPlan, Seated};
use games::{AnySetup, EngineKind};
use store::PgPool;
use store::games::{GameId, NewGame};
use store::players::NewPlayer;
use store::status::SubscriberStatus;
use store::subscribers::SubscriberId;
use store::turns::NewTurn;
use store::zines::ZineId;

use super::{LifecycleError, ScheduleSettings};
use crate::entropy::{Entropy, new_reply_token};
use crate::letters::{self, MailSite};
use schedule::Schedule;

/// A game the GM starts.
#[derive(Debug, Clone)]
pub struct GameSpec<'a> {
    pub zine: ZineId,
    pub name: &'a str,
    /// The GM's settings, which say the engine.
    pub setup: &'a AnySetup,
    pub first_deadline: Option<DateTime<Utc>>,
    pub schedule: Schedule,
}

/// Who plays a new game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Roster {
    /// Every active subscriber of the zine, in subscription order, seated as the engine deals
    /// them (BARMY-02; the default, and Barmy's only way).
    EveryActiveSubscriber,
    /// The GM's choice of subscribers, each with a seat (ignored where every player has a
    /// place of their own), in this order.
    Chosen(Vec<RosterPick>),
}

/// One subscriber the GM seats in a new game: `seat` indexes the engine's named seats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RosterPick {
    pub subscriber: SubscriberId,
    pub seat: u32,
}

/// Starts a game with every active subscriber of the zine as a player (BARMY-02), and opens
/// turn 1 with the public commitments to its seeds. Mails nobody (see [`Creation::mail`]).
pub async fn create_game(
    pool: &PgPool,
    now: DateTime<Utc>,
    spec: &GameSpec<'_>,
    entropy: &mut impl Entropy,
) -> Result<GameId, LifecycleError> {
    create_game_as(pool, now, spec, entropy, "gm").await
}

/// [`create_game`], audited as done by `actor` (the GM console names the GM).
pub async fn create_game_as(
    pool: &PgPool,
    now: DateTime<Utc>,
    spec: &GameSpec<'_>,
    entropy: &mut impl Entropy,
    actor: &str,
) -> Result<GameId, LifecycleError> {
    let creation = Creation {
        actor,
        zone: chrono_tz::Tz::UTC,
        mail: None,
    };
    create_game_with(
        pool,
        now,
        spec,
        &Roster::EveryActiveSubscriber,
        entropy,
        &creation,
    )
    .await
}

/// How a game is made, besides what it is and who plays: who makes it (audited), the time
/// zone its deadlines are shown and typed in (a weekly schedule keeps its own), and where the
/// players' start mails point.
#[derive(Debug, Clone, Copy)]
pub struct Creation<'a> {
    pub actor: &'a str,
    pub zone: chrono_tz::Tz,
    /// Each seated player is mailed the game, their seat and position, with their reply
    /// address at this site (`turns::started`). `None` mails nobody: for tools and tests
    /// that set up games without a mail domain (`create_game`, the demo).
    pub mail: Option<MailSite<'a>>,
}

/// [`create_game_as`] with the GM's roster, in one transaction.
pub async fn create_game_with(
    pool: &PgPool,
    now: DateTime<Utc>,
    spec: &GameSpec<'_>,
    roster: &Roster,
    entropy: &mut impl Entropy,
    creation: &Creation<'_>,
) -> Result<GameId, LifecycleError> {
    let mut tx = pool.begin().await?;
    let game = create_game_in(&mut tx, now, spec, roster, None, entropy, creation).await?;
    tx.commit().await?;
    Ok(game)
}

/// The players of a new game with their seats, checked against the zine's subscribers.
struct SeatedSubscribers {
    subscribers: Vec<(SubscriberId, Player)>,
    /// Each player's named seat, in the same order; `None` where the engine deals places.
    seats: Vec<Option<u32>>,
}

impl SeatedSubscribers {
    fn roster(&self) -> Vec<Player> {
        self.subscribers.iter().map(|(_, p)| p.clone()).collect()
    }

    /// The game's first state: the engine's own dealing for every active subscriber (the same
    /// game from the same players), or the players in the seats chosen for them.
    fn deal(
        &self,
        setup: &AnySetup,
        choice: &Roster,
        dice: &mut engine::TurnDice,
    ) -> Result<games::AnyState, LifecycleError> {
        let roster = self.roster();
        Ok(match choice {
            Roster::EveryActiveSubscriber => setup.new_game(&roster, dice)?,
            Roster::Chosen(_) => {
                let places: Vec<Seated> = roster
                    .into_iter()
                    .zip(&self.seats)
                    .map(|(player, seat)| Seated {
                        player,
                        seat: seat.map_or(0, |s| usize::try_from(s).unwrap_or(usize::MAX)),
                    })
                    .collect();
                setup.new_game_seated(&places, dice)?
            }
        })
    }

    /// The game's player rows, each with a fresh reply token.
    async fn insert_players(
        &self,
        tx: &mut sqlx::PgConnection,
        game: GameId,
        entropy: &mut impl Entropy,
    ) -> Result<(), LifecycleError> {
        let tokens: Vec<String> = self
            .subscribers
            .iter()
            .map(|_| new_reply_token(entropy))
            .collect();
        let players: Vec<NewPlayer<'_>> = self
            .subscribers
            .iter()
            .zip(&self.seats)
            .zip(&tokens)
            .map(|(((subscriber, player), seat), token)| NewPlayer {
                game_id: game,
                subscriber_id: *subscriber,
                display_name: &player.name,
                engine_player_id: player.id.0,
                reply_token: token,
                joined_turn: 1,
                seat: *seat,
            })
            .collect();
        store::players::insert_many(&mut *tx, &players).await?;
        Ok(())
    }
}

async fn seat_subscribers(
    tx: &mut sqlx::PgConnection,
    spec: &GameSpec<'_>,
    plan: &SeatPlan,
    roster: &Roster,
) -> Result<SeatedSubscribers, LifecycleError> {
    let active: Vec<_> = store::subscribers::list_for_zine(&mut *tx, spec.zine)
        .await?
        .into_iter()
        .filter(|s| s.status == SubscriberStatus::Active)
        .collect();
    if active.is_empty() {
        return Err(LifecycleError::NoPlayers);
    }
    let named = matches!(plan, SeatPlan::Named { .. });
    let chosen: Vec<(&store::subscribers::Subscriber, u32)> = match roster {
        Roster::EveryActiveSubscriber => {
            // Named seats are dealt round the players in turn, as the engines deal them.
            let seat_count = match plan {
                SeatPlan::Named { seats } => u32::try_from(seats.len().max(1)).unwrap_or(1),
                SeatPlan::OnePerPlayer { .. } => 1,
            };
            active
                .iter()
                .zip(0u32..)
                .map(|(s, i)| (s, i % seat_count))
                .collect()
        }
        Roster::Chosen(_) if spec.setup.kind() == EngineKind::Barmy => {
            return Err(LifecycleError::Roster(
                "in Barmy every subscriber plays (BARMY-02): there is no roster to choose".into(),
            ));
        }
        Roster::Chosen(picks) => {
            if picks.is_empty() {
                return Err(LifecycleError::Roster(
                    "choose the players of the game".into(),
                ));
            }
            let mut chosen = Vec::with_capacity(picks.len());
            for pick in picks {
                let subscriber =
                    active
                        .iter()
                        .find(|s| s.id == pick.subscriber)
                        .ok_or_else(|| {
                            LifecycleError::Roster(format!(
                                "subscriber {} is not an active subscriber of this zine",
                                pick.subscriber
                            ))
                        })?;
                chosen.push((subscriber, pick.seat));
            }
            chosen
        }
    };
    Ok(SeatedSubscribers {
        seats: chosen
            .iter()
            .map(|(_, seat)| named.then_some(*seat))
            .collect(),
        subscribers: chosen
            .iter()
            .zip(1u64..)
            .map(|((s, _), id)| {
                (
                    s.id,
                    Player {
                        id: PlayerId(id),
                        name: s.display_name.as_str().to_owned(),
                    },
                )
            })
            .collect(),
    })
}

/// [`create_game_with`] inside the caller's transaction.
pub(crate) async fn create_game_in(
    tx: &mut sqlx::PgConnection,
    now: DateTime<Utc>,
    spec: &GameSpec<'_>,
    roster_choice: &Roster,
    secret: Option<[u8; 32]>,
    entropy: &mut impl Entropy,
    creation: &Creation<'_>,
) -> Result<GameId, LifecycleError> {
    let setup = spec.setup;
    let engine = setup.kind();
    let plan = setup.seat_plan();
    let seated = seat_subscribers(&mut *tx, spec, &plan, roster_choice).await?;
    let players = seated.subscribers.len();
    // A game filled by sign-up has had its secret since the sign-up opened (the seating seed's
    // commitment was public); any other game gets a new one.
    let secret = secret.unwrap_or_else(|| entropy.secret());
    let game_secret = GameSecret::from_bytes(secret);
    let state = seated.deal(setup, roster_choice, &mut game_secret.turn_dice(0))?;
    let mut settings = ScheduleSettings::from(spec.schedule);
    if creation.zone != chrono_tz::Tz::UTC {
        settings = settings.with_zone(creation.zone);
    }
    let game = store::games::insert_game(
        &mut *tx,
        &NewGame {
            zine_id: spec.zine,
            name: spec.name,
            setup,
            state: &state,
            schedule: &settings,
            secret: &secret,
        },
        now,
    )
    .await?;
    seated.insert_players(&mut *tx, game, entropy).await?;
    let first = state.turn();
    let deadline = first_deadline(spec.first_deadline, &settings, now);
    let opening = NewTurn {
        game_id: game,
        number: first,
        deadline,
        seed_commitment: &game_secret.turn_seed(first).commitment(),
        sealed_commitment: &game_secret.sealed_seed(first).commitment(),
        state_before: &state,
    };
    store::turns::open_turn(&mut *tx, &opening, now).await?;
    store::audit::append(
        &mut *tx,
        &store::audit::NewAuditEntry {
            actor: creation.actor,
            game: Some(game),
            action: store::audit::AuditAction::GameCreate {
                name: spec.name.to_owned(),
                engine,
                players,
            },
        },
        now,
    )
    .await?;
    if let Some(site) = creation.mail {
        let started = super::started::Started {
            game,
            name: spec.name,
            engine,
            plan: &plan,
            state: &state,
            turn: first,
            deadline: deadline.map(|at| letters::deadline(at, settings.zone())),
        };
        super::started::queue_start_mails(&mut *tx, now, &started, site).await?;
    }
    Ok(game)
}

/// The first turn's deadline: the one the GM typed, or, when it passed before the game started
/// (a sign-up that filled late), the first slot after now on its rhythm (none for a manual
/// schedule); with none typed, the schedule's first slot.
fn first_deadline(
    typed: Option<DateTime<Utc>>,
    settings: &ScheduleSettings,
    now: DateTime<Utc>,
) -> Option<DateTime<Utc>> {
    match typed {
        Some(at) if at > now => Some(at),
        Some(at) => settings.next_deadline(Some(at), now),
        None => settings.next_deadline(None, now),
    }
}
