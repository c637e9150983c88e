//! Missed turns (issue 18 item 3): a turn that resolves without a player's orders (while they
//! still have something to order and are not excused as absent) adds to their run of missed
//! turns; at the game's limit (the engine's default unless the GM set one) the player is
//! warned, and where Admiralty makes the offers, the seat is offered to the longest-waiting
//! standby (`crate::offers`).

use chrono::{DateTime, Utc};
use engine::TurnInput;
use games::{AnyOrders, AnyState, EngineKind};
use store::audit::{AuditAction, NewAuditEntry};
use store::games::GameId;
use store::outbox::Headers;
use store::players::{GamePlayer, PlayerRowId};
use store::status::{GameStatus, OfferReason, PlayerStatus, StandbyOffers};

use super::LifecycleError;
use crate::letters::{self, offers as words};
use crate::offers::{self, limit};
use crate::outbox::post::{Posting, post_letter};

/// Who missed a turn and who ordered, read before it resolves.
#[derive(Debug, Clone, Default)]
pub(crate) struct Tally {
    missed: Vec<PlayerRowId>,
    ordered: Vec<PlayerRowId>,
}

/// Reads the turn about to resolve: a player who still has something to order, played this
/// turn and is not excused as absent either ordered (a set that answers the turn) or missed it.
pub(crate) fn tally(
    players: &[GamePlayer],
    state: &AnyState,
    input: &TurnInput<AnyOrders>,
) -> Tally {
    let number = i32::try_from(state.turn()).unwrap_or(i32::MAX);
    let mut tally = Tally::default();
    for player in players {
        let id = super::player_id(player.engine_player_id);
        if player.status != PlayerStatus::Active
            || player.joined_turn > number
            || !state.expects_orders(id)
        {
            continue;
        }
        match input.orders.get(&id) {
            Some(orders) if state.answers_turn(orders) => tally.ordered.push(player.id),
            _ if input.excused.contains(&id) => {}
            _ => tally.missed.push(player.id),
        }
    }
    tally
}

/// Counts a resolved turn (after the next one opened): runs of missed turns grow or start
/// again. A player reaching the limit is recorded (`player.missed_limit`), and offered to a
/// standby when Admiralty makes the offers; a player who orders again lets the offers made for
/// their missed turns lapse. `domain` is `None` when the resolution mails nothing (the demo).
pub(crate) async fn count_turn(
    tx: &mut sqlx::PgConnection,
    game: GameId,
    engine: EngineKind,
    tally: &Tally,
    turn: u32,
    now: DateTime<Utc>,
    domain: Option<&str>,
) -> Result<(), LifecycleError> {
    store::offers::lapse_missed_of_players(&mut *tx, &tally.ordered, now).await?;
    // A resigned player's fleet left the game with this turn (as the rules treat a player who
    // leaves): no seat is left to offer.
    store::offers::lapse_open_of_departed(&mut *tx, game, now).await?;
    let counts = store::offers::count_turn(&mut *tx, &tally.missed, &tally.ordered).await?;
    let policy = store::offers::policy(&mut *tx, game).await?;
    // A game this turn ended has no seat to hand on.
    let over = store::games::summary(&mut *tx, game)
        .await?
        .is_none_or(|summary| summary.status == GameStatus::Finished);
    if over {
        store::offers::lapse_open_of_game(&mut *tx, game, now).await?;
    }
    let Some(limit) = limit(engine, policy) else {
        return Ok(());
    };
    for (player, count) in counts {
        if u32::try_from(count).ok() != Some(limit) {
            continue;
        }
        let reached = NewAuditEntry {
            actor: "system",
            game: Some(game),
            action: AuditAction::MissedLimit {
                player,
                missed: count,
                limit,
                turn,
            },
        };
        let Some(domain) = domain.filter(|_| !over) else {
            store::audit::append(&mut *tx, &reached, now).await?;
            continue;
        };
        tell_the_gm(tx, game, player, count, now).await?;
        warn_the_player(tx, game, player, count, turn, &reached, now, domain).await?;
        if policy.offers == StandbyOffers::Automatic {
            offers::make::offer_to_next_standby(tx, game, player, OfferReason::Missed, now, domain)
                .await?;
        }
    }
    Ok(())
}

/// Records for the GM's digest that a player reached the missed-turns limit.
async fn tell_the_gm(
    tx: &mut sqlx::PgConnection,
    game: GameId,
    player: PlayerRowId,
    missed: i32,
    now: DateTime<Utc>,
) -> Result<(), LifecycleError> {
    let name = store::players::name_of(&mut *tx, player)
        .await?
        .unwrap_or_else(|| format!("player {player}"));
    let game_name = store::games::summary(&mut *tx, game)
        .await?
        .map_or_else(|| format!("game {game}"), |summary| summary.name);
    let summary = format!(
        "{name} has missed {missed} turns in a row in {game_name}: the seat wants a player."
    );
    let notice = store::notices::NewNotice {
        kind: store::status::NoticeKind::SeatWanted,
        game: Some(game),
        summary: &summary,
        link: &format!("/gm/games/{game}#standby-heading"),
    };
    store::notices::record(&mut *tx, &notice, now).await?;
    Ok(())
}

/// Tells a player who reached the limit that their seat may now go to a standby, and how to
/// keep it: order for the open turn. Recorded as `reached`.
#[allow(clippy::too_many_arguments, reason = "one warning's parts, all needed")]
async fn warn_the_player(
    tx: &mut sqlx::PgConnection,
    game: GameId,
    player: PlayerRowId,
    missed: i32,
    turn: u32,
    reached: &NewAuditEntry<'_>,
    now: DateTime<Utc>,
    domain: &str,
) -> Result<(), LifecycleError> {
    let summary = store::games::summary(&mut *tx, game).await?;
    let holder = store::players::of_game(&mut *tx, game)
        .await?
        .into_iter()
        .find(|p| p.id == player);
    let (Some(summary), Some(holder)) = (summary, holder) else {
        store::audit::append(&mut *tx, reached, now).await?;
        return Ok(());
    };
    let next = summary
        .deadline
        .map(|at| letters::deadline(at, summary.schedule.zone()));
    let letter = words::missed_limit(&holder.display_name, &summary.name, missed, next.as_deref());
    let warning = Posting::once(
        "missed",
        &format!("{game}|{player}|{turn}"),
        domain,
        &holder.email,
        letter,
    )
    .with_headers(Headers::reply_to(letters::reply_address(
        &holder.reply_token,
        domain,
    )));
    post_letter(tx, &warning, Some(reached), now).await?;
    Ok(())
}
