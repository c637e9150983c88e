//! A seat changing hands: the GM's replacement of a player, or a standby's accepted offer. The
//! seat keeps its engine player id, so the engine state is untouched and every published turn
//! still replays; the newcomer gets their own reply token and the position by mail, the old
//! token is answered "you were replaced", and the standbys still offered the seat are told.

use chrono::{DateTime, Utc};
use store::audit::{AuditAction, NewAuditEntry};
use store::games::{GameId, GameSummary};
use store::outbox::Headers;
use store::status::{GameStatus, SubscriberStatus};
use store::subscribers::SubscriberId;

use super::lapses::{SeatKept, tell_offers_lapsed};
use crate::entropy::{Entropy, new_reply_token};
use crate::letters;
use crate::lifecycle::{self, LifecycleError};
use crate::outbox::post::{Posting, post_letter};

/// The game, refused unless it goes on with a turn open: a seat changes hands (or comes back)
/// only then.
pub(crate) async fn open_game(
    tx: &mut sqlx::PgConnection,
    game: GameId,
) -> Result<GameSummary, LifecycleError> {
    let summary = store::games::summary(&mut *tx, game)
        .await?
        .ok_or(LifecycleError::GameNotFound(game))?;
    if summary.status == GameStatus::Finished {
        return Err(LifecycleError::GameOver(game));
    }
    if summary.open_turn.is_none() {
        return Err(LifecycleError::NoOpenTurn(game));
    }
    Ok(summary)
}

/// What the GM asked for: the seat (by its holder's name or engine id) and the newcomer.
#[derive(Debug, Clone)]
pub struct Replacement<'a> {
    pub game: GameId,
    /// The current player: their name, or the engine's player id.
    pub player: &'a str,
    pub subscriber: SubscriberId,
}

/// What was done, for the GM's page and the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replaced {
    pub old_name: String,
    pub new_name: String,
    /// The first turn the newcomer plays (the open turn).
    pub from_turn: u32,
}

fn refused(why: impl Into<String>) -> LifecycleError {
    LifecycleError::Roster(why.into())
}

/// The seat the GM named and the subscriber who takes it, checked: the game goes on with a turn
/// open and hands seats over, the seat's fleet is still in the battle, and the newcomer is an
/// active subscriber of the zine who does not play the game.
struct Handover {
    game: GameSummary,
    player: store::players::GamePlayer,
    newcomer: store::subscribers::Subscriber,
    from_turn: u32,
}

async fn checked(
    tx: &mut sqlx::PgConnection,
    wanted: &Replacement<'_>,
) -> Result<Handover, LifecycleError> {
    let game = open_game(&mut *tx, wanted.game).await?;
    // Barmy seats every subscriber (BARMY-02): a newcomer joins by subscribing, and someone
    // who left would be enrolled again, so its seats are never handed over.
    if game.engine == games::EngineKind::Barmy {
        return Err(refused(format!(
            "every subscriber plays {} (Barmy): a new subscriber joins at the next turn, no seat is handed over",
            game.name
        )));
    }
    let from_turn = game
        .open_turn
        .and_then(|n| u32::try_from(n).ok())
        .ok_or(LifecycleError::NoOpenTurn(game.id))?;
    let players = store::players::of_game(&mut *tx, game.id).await?;
    let wanted_player = wanted.player.trim();
    let player = players
        .iter()
        .find(|p| {
            p.display_name.trim().eq_ignore_ascii_case(wanted_player)
                || p.engine_player_id.to_string() == wanted_player
        })
        .cloned()
        .ok_or_else(|| {
            let known: Vec<String> = players
                .iter()
                .map(|p| format!("{} ({})", p.display_name, p.engine_player_id))
                .collect();
            refused(format!(
                "{} has no player \"{wanted_player}\" (its players: {})",
                game.name,
                known.join(", ")
            ))
        })?;
    let newcomer = store::subscribers::find(&mut *tx, wanted.subscriber)
        .await?
        .filter(|s| s.zine_id == game.zine_id && s.status == SubscriberStatus::Active)
        .ok_or_else(|| {
            refused(format!(
                "subscriber {} is not an active subscriber of this zine",
                wanted.subscriber
            ))
        })?;
    if store::players::rows_of_subscriber(&mut *tx, newcomer.id)
        .await?
        .iter()
        .any(|row| players.iter().any(|p| p.id == *row))
    {
        return Err(refused(format!(
            "{} already plays in {}",
            newcomer.display_name.as_str(),
            game.name
        )));
    }
    // A fleet that left the battle (its player resigned and a turn resolved, or it was sunk)
    // has no position to take over.
    let state = lifecycle::game_state(&mut *tx, game.id).await?;
    if !state.expects_orders(lifecycle::player_id(player.engine_player_id)) {
        return Err(refused(format!(
            "{}'s fleet is out of {} (it left the game or was sunk): there is no position to take over",
            player.display_name, game.name
        )));
    }
    Ok(Handover {
        game,
        player,
        newcomer,
        from_turn,
    })
}

/// [`crate::rosters::replace::replace_player`] in the caller's transaction (an accepted offer
/// too); any other open offer of the seat lapses, and its standbys are told.
pub(crate) async fn replace_in(
    tx: &mut sqlx::PgConnection,
    now: DateTime<Utc>,
    wanted: &Replacement<'_>,
    actor: &str,
    domain: &str,
    entropy: &mut impl Entropy,
) -> Result<Replaced, LifecycleError> {
    let handover = checked(&mut *tx, wanted).await?;
    let Handover {
        game,
        player,
        newcomer,
        from_turn,
    } = &handover;
    // An address whose subscription ended was promised no more mail.
    let old_still_subscribed = store::players::player_rows_of_game(&mut *tx, game.id)
        .await?
        .iter()
        .any(|holder| holder.player_id == player.id);
    let token = new_reply_token(entropy);
    let new_name = newcomer.display_name.as_str().to_owned();
    // Read before the seat changes hands: the letters name its holder until now.
    let lapsed = store::offers::lapse_open_of_player(&mut *tx, player.id, now).await?;
    let old_name = store::replacements::replace(
        &mut *tx,
        &store::replacements::NewReplacement {
            game_id: game.id,
            player: player.id,
            from_turn: *from_turn,
            new_subscriber: newcomer.id,
            new_name: &new_name,
            new_reply_token: &token,
        },
    )
    .await?
    .ok_or(LifecycleError::GameNotFound(game.id))?;
    // The standbys still holding an offer of the seat are told someone took it.
    tell_offers_lapsed(&mut *tx, &lapsed, SeatKept::TakenBy(&new_name), now, domain).await?;
    // The player who leaves the seat is told, at the address they played from.
    if old_still_subscribed {
        let letter =
            letters::offers::you_were_replaced(&old_name, &game.name, &new_name, *from_turn);
        let told = Posting::once(
            "replaced",
            &format!("{}|{}|{}", game.id, player.id, player.reply_token),
            domain,
            &player.email,
            letter,
        );
        post_letter(tx, &told, None, now).await?;
    }
    let replacement = NewAuditEntry {
        actor,
        game: Some(game.id),
        action: AuditAction::Replace {
            player: player.id,
            engine_player_id: player.engine_player_id,
            old_name: old_name.clone(),
            new_subscriber: newcomer.id,
            new_name: new_name.clone(),
            from_turn: *from_turn,
        },
    };
    mail_the_position(tx, &handover, &old_name, &token, &replacement, now, domain).await?;
    Ok(Replaced {
        old_name,
        new_name,
        from_turn: *from_turn,
    })
}

/// The newcomer's position: the engine's view for the seat only, under their own name, with
/// their new reply address; recorded as `replacement`.
async fn mail_the_position(
    tx: &mut sqlx::PgConnection,
    handover: &Handover,
    old_name: &str,
    token: &str,
    replacement: &NewAuditEntry<'_>,
    now: DateTime<Utc>,
    domain: &str,
) -> Result<(), LifecycleError> {
    let Handover {
        game,
        player,
        newcomer,
        from_turn,
    } = handover;
    let state = lifecycle::game_state(&mut *tx, game.id).await?;
    let seat = lifecycle::player_id(player.engine_player_id);
    let lines = state.view(engine::Viewer::Player(seat)).lines;
    let letter = letters::replacements::position(
        &game.name,
        newcomer.display_name.as_str(),
        old_name,
        *from_turn,
        &lines,
        &state.order_help(),
    );
    let position = Posting::once(
        "replacement",
        &format!("{}|{}|{}", game.id, player.id, token),
        domain,
        newcomer.email.as_str(),
        letter,
    )
    .with_headers(Headers::reply_to(letters::reply_address(token, domain)));
    post_letter(tx, &position, Some(replacement), now).await?;
    Ok(())
}
