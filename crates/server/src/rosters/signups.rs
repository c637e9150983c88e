//! Games open for sign-up: the GM opens one with a number of seats; subscribers join (by mail,
//! on the player pages) and learn their place in the queue; the game starts when the last seat
//! is taken, or when the GM starts it, with the seats given in order of sign-up, at random with
//! the committed seating seed, or by the GM.

use chrono::{DateTime, Utc};
use engine::{Dice, GameSecret, SeatPlan};
use games::{AnySetup, EngineKind};
use store::PgPool;
use store::audit::{AuditAction, NewAuditEntry};
use store::games::GameId;
use store::signups::{NewOpening, Opening, OpeningId, SignedUp};
use store::status::{OpeningStatus, Seating, SubscriberStatus};
use store::subscribers::SubscriberId;
use store::zines::ZineId;

use crate::entropy::{Entropy, OsEntropy};
use crate::letters::MailSite;
use crate::turns::LifecycleError;
use crate::turns::create::{Creation, GameSpec, Roster, RosterPick, create_game_in};
use schedule::Schedule;

/// A game the GM opens for sign-up.
#[derive(Debug, Clone)]
pub struct OpeningSpec<'a> {
    pub zine: ZineId,
    pub name: &'a str,
    /// The GM's settings, which say the engine.
    pub setup: &'a AnySetup,
    pub schedule: Schedule,
    pub seats: u32,
    pub seating: Seating,
    /// The game's time zone: it starts in it (a weekly schedule keeps its own).
    pub zone: chrono_tz::Tz,
    /// The first deadline the GM typed: the first turn's, when the game starts.
    pub first_deadline: Option<DateTime<Utc>>,
}

/// Opens a game for sign-up, its secret made now so that the seating seed's commitment can be
/// shown while sign-ups are open. The seat count must suit the engine's seats.
pub async fn open_signup(
    pool: &PgPool,
    now: DateTime<Utc>,
    spec: &OpeningSpec<'_>,
    entropy: &mut impl Entropy,
    actor: &str,
) -> Result<OpeningId, LifecycleError> {
    let engine = spec.setup.kind();
    if engine == EngineKind::Barmy {
        return Err(LifecycleError::Roster(
            "in Barmy every subscriber plays (BARMY-02): it takes no sign-ups".into(),
        ));
    }
    let plan = spec.setup.seat_plan();
    let seats = usize::try_from(spec.seats).unwrap_or(usize::MAX);
    if seats < plan.fewest_players().max(1) {
        return Err(LifecycleError::Roster(format!(
            "the game needs at least {} seats",
            plan.fewest_players().max(1)
        )));
    }
    if let Some(most) = plan.most_players()
        && seats > most
    {
        return Err(LifecycleError::Roster(format!(
            "the game has room for at most {most} players"
        )));
    }
    let secret = entropy.secret();
    let mut tx = pool.begin().await?;
    let opening = store::signups::insert_opening(
        &mut *tx,
        &NewOpening {
            zine_id: spec.zine,
            name: spec.name,
            setup: spec.setup,
            schedule: spec.schedule,
            seats: spec.seats,
            seating: spec.seating,
            secret: &secret,
            zone: spec.zone,
            first_deadline: spec.first_deadline,
        },
        now,
    )
    .await?;
    store::audit::append(
        &mut *tx,
        &NewAuditEntry {
            actor,
            game: None,
            action: AuditAction::SignupOpen {
                opening,
                name: spec.name.to_owned(),
                engine,
                seats: spec.seats,
                seating: spec.seating,
                zone: spec.zone.name().to_owned(),
            },
        },
        now,
    )
    .await?;
    tx.commit().await?;
    Ok(opening)
}

/// The public commitment to a sign-up's seating seed, while seats are given at random.
pub fn seating_commitment(opening: &Opening) -> Option<String> {
    (opening.seating == Seating::Random).then(|| secret_of(opening).seating_seed().commitment())
}

/// The seating seed of a game whose sign-ups were seated at random, revealed once it started,
/// so anyone can redo the draw ([`SeatPlan::shuffled`] of the queue, then dealt round the seats).
pub async fn revealed_seating_seed(
    pool: &PgPool,
    game: GameId,
) -> Result<Option<String>, store::StoreError> {
    Ok(store::signups::random_seating_of_game(pool, game)
        .await?
        .and_then(|secret| <[u8; 32]>::try_from(secret.as_slice()).ok())
        .map(|secret| GameSecret::from_bytes(secret).seating_seed().to_hex()))
}

fn secret_of(opening: &Opening) -> GameSecret {
    GameSecret::from_bytes(opening.secret_seed)
}

/// What a JOIN did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Joined {
    /// Queued (or already queued) at `place` of `seats`.
    Queued {
        game: String,
        place: i32,
        seats: i32,
        already: bool,
        seating: Seating,
    },
    /// The sign-up took the last seat and the game started.
    Started { game: String, id: GameId },
    /// Every seat is taken and the GM seats the players.
    Full { game: String, seats: i32 },
    /// The game of that name has started (filled, or started by the GM): no more sign-ups.
    Closed { game: String },
    /// No game of that name is open for sign-up in the zine.
    NotOpen { game: String },
}

/// Signs `subscriber` (of `zine`) up for the zine's game called `name`; starts the game when
/// the last seat is taken, unless the GM seats the players.
pub(crate) async fn join_in(
    tx: &mut sqlx::PgConnection,
    now: DateTime<Utc>,
    zine: ZineId,
    subscriber: SubscriberId,
    name: &str,
    site: MailSite<'_>,
) -> Result<Joined, LifecycleError> {
    let Some(opening) = store::signups::lock_open_by_name(&mut *tx, zine, name).await? else {
        // A JOIN that lost the last seat (or came after the start) is told the game filled.
        return Ok(
            match store::signups::newest_by_name(&mut *tx, zine, name).await? {
                Some(started) if started.status == OpeningStatus::Started => {
                    Joined::Closed { game: started.name }
                }
                _ => Joined::NotOpen {
                    game: name.trim().to_owned(),
                },
            },
        );
    };
    if store::signups::place_of(&mut *tx, opening.id, subscriber)
        .await?
        .is_none()
        && opening.signed >= i64::from(opening.seats)
    {
        return Ok(Joined::Full {
            game: opening.name,
            seats: opening.seats,
        });
    }
    let place = match store::signups::sign_up(&mut *tx, opening.id, subscriber, now).await? {
        SignedUp::Already(place) => {
            return Ok(Joined::Queued {
                game: opening.name,
                place,
                seats: opening.seats,
                already: true,
                seating: opening.seating,
            });
        }
        SignedUp::Queued(place) => place,
    };
    if place == opening.seats {
        return filled(tx, now, opening, site).await;
    }
    Ok(Joined::Queued {
        game: opening.name,
        place,
        seats: opening.seats,
        already: false,
        seating: opening.seating,
    })
}

/// The last seat was taken: the game starts, unless the GM seats the players; the GM is told.
async fn filled(
    tx: &mut sqlx::PgConnection,
    now: DateTime<Utc>,
    opening: Opening,
    site: MailSite<'_>,
) -> Result<Joined, LifecycleError> {
    if opening.seating == Seating::Gm {
        let summary = format!(
            "The sign-up for {} filled ({} of {}): seat the players and start it.",
            opening.name, opening.seats, opening.seats
        );
        tell_the_gm(
            tx,
            None,
            &summary,
            &format!("/gm/signups/{}", opening.id),
            now,
        )
        .await?;
        return Ok(Joined::Full {
            game: opening.name,
            seats: opening.seats,
        });
    }
    let id = start_in(tx, now, &opening, None, "system", site).await?;
    let summary = format!(
        "The sign-up for {} filled ({} of {}): the game started.",
        opening.name, opening.seats, opening.seats
    );
    tell_the_gm(tx, Some(id), &summary, &format!("/gm/games/{id}"), now).await?;
    Ok(Joined::Started {
        game: opening.name,
        id,
    })
}

/// Records for the GM's digest that a sign-up filled.
async fn tell_the_gm(
    tx: &mut sqlx::PgConnection,
    game: Option<GameId>,
    summary: &str,
    link: &str,
    now: DateTime<Utc>,
) -> Result<(), LifecycleError> {
    let notice = store::notices::NewNotice {
        kind: store::status::NoticeKind::SignupFilled,
        game,
        summary,
        link,
    };
    store::notices::record(&mut *tx, &notice, now).await?;
    Ok(())
}

/// [`join_in`] in a transaction of its own (the player pages).
pub async fn join(
    pool: &PgPool,
    now: DateTime<Utc>,
    zine: ZineId,
    subscriber: SubscriberId,
    name: &str,
    site: MailSite<'_>,
) -> Result<Joined, LifecycleError> {
    let mut tx = pool.begin().await?;
    let joined = join_in(&mut tx, now, zine, subscriber, name, site).await?;
    tx.commit().await?;
    Ok(joined)
}

/// The GM starts a game open for sign-up now, with whoever has signed up; `gm_seats` gives
/// each subscriber's seat when the GM seats the players. The players are mailed their seats.
pub async fn start(
    pool: &PgPool,
    now: DateTime<Utc>,
    opening: OpeningId,
    gm_seats: Option<&[RosterPick]>,
    actor: &str,
    site: MailSite<'_>,
) -> Result<GameId, LifecycleError> {
    let mut tx = pool.begin().await?;
    let Some(found) = store::signups::lock(&mut *tx, opening).await? else {
        return Err(LifecycleError::Roster(format!(
            "there is no sign-up {}",
            opening
        )));
    };
    if found.status != OpeningStatus::Open {
        return Err(LifecycleError::Roster(format!(
            "{} is not open for sign-up ({})",
            found.name, found.status
        )));
    }
    let game = start_in(&mut tx, now, &found, gm_seats, actor, site).await?;
    tx.commit().await?;
    Ok(game)
}

/// Makes the game of `opening` (locked) from its queue and marks the opening started.
async fn start_in(
    tx: &mut sqlx::PgConnection,
    now: DateTime<Utc>,
    opening: &Opening,
    gm_seats: Option<&[RosterPick]>,
    actor: &str,
    site: MailSite<'_>,
) -> Result<GameId, LifecycleError> {
    let plan = opening.setup.seat_plan();
    let secret = secret_of(opening);
    let active: Vec<SubscriberId> = store::signups::queue(&mut *tx, opening.id)
        .await?
        .into_iter()
        .map(|s| s.subscriber_id)
        .collect();
    let mut still_subscribed = Vec::with_capacity(active.len());
    for subscriber in active {
        if let Some(found) = store::subscribers::find(&mut *tx, subscriber).await?
            && found.status == SubscriberStatus::Active
        {
            still_subscribed.push(subscriber);
        }
    }
    let picks = match (opening.seating, gm_seats) {
        (_, Some(chosen)) => {
            if let Some(stranger) = chosen
                .iter()
                .find(|pick| !still_subscribed.contains(&pick.subscriber))
            {
                return Err(LifecycleError::Roster(format!(
                    "subscriber {} has not signed up for {}",
                    stranger.subscriber, opening.name
                )));
            }
            chosen.to_vec()
        }
        (Seating::Gm, None) => {
            return Err(LifecycleError::Roster(format!(
                "the GM seats the players of {}: give each their seat (on its sign-up page, or `gm signup start` with --seat)",
                opening.name
            )));
        }
        (Seating::Order, None) => dealt(&plan, &still_subscribed),
        (Seating::Random, None) => {
            let mut dice = Dice::from_seed(&secret.seating_seed());
            let order = SeatPlan::shuffled(still_subscribed.len(), &mut dice);
            let shuffled: Vec<SubscriberId> = order
                .iter()
                .filter_map(|index| still_subscribed.get(*index).copied())
                .collect();
            dealt(&plan, &shuffled)
        }
    };
    let spec = GameSpec {
        zine: opening.zine_id,
        name: &opening.name,
        setup: &opening.setup,
        first_deadline: opening.first_deadline,
        schedule: opening.schedule,
    };
    let game = create_game_in(
        &mut *tx,
        now,
        &spec,
        &Roster::Chosen(picks),
        Some(*secret.as_bytes()),
        &mut OsEntropy,
        &Creation {
            actor,
            zone: opening.zone,
            mail: Some(site),
        },
    )
    .await?;
    store::signups::mark_started(&mut *tx, opening.id, game, now).await?;
    Ok(game)
}

/// Seats in the order given, round the seats while they have room.
fn dealt(plan: &SeatPlan, subscribers: &[SubscriberId]) -> Vec<RosterPick> {
    subscribers
        .iter()
        .zip(plan.deal(subscribers.len()))
        .filter_map(|(subscriber, seat)| {
            Some(RosterPick {
                subscriber: *subscriber,
                seat: u32::try_from(seat?).ok()?,
            })
        })
        .collect()
}
