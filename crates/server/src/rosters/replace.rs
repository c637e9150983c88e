//! Replacements (issue 18 item 3): the GM hands a player's seat to a standby or any active
//! subscriber. The seat keeps its engine player id, so the engine state is untouched and every
//! published turn still replays; the newcomer gets their own reply token and the position by
//! mail, and the old token is answered "you were replaced".

use chrono::{DateTime, Utc};
use serde_json::json;
use store::PgPool;
use store::games::GameId;
use store::outbox::{Headers, NewOutbound};
use store::status::SubscriberStatus;
use store::subscribers::SubscriberId;

use crate::entropy::{Entropy, new_reply_token};
use crate::letters;
use crate::turns::{self, LifecycleError};

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

/// Replaces the player, audited as `actor`'s, and queues the newcomer's mail.
pub async fn replace_player(
    pool: &PgPool,
    now: DateTime<Utc>,
    wanted: &Replacement<'_>,
    actor: &str,
    domain: &str,
    entropy: &mut impl Entropy,
) -> Result<Replaced, LifecycleError> {
    let mut tx = pool.begin().await?;
    let replaced = replace_in(&mut tx, now, wanted, actor, domain, entropy).await?;
    tx.commit().await?;
    Ok(replaced)
}

/// [`replace_player`] in the caller's transaction (an accepted offer); any other open offer of
/// the seat lapses.
pub(crate) async fn replace_in(
    tx: &mut sqlx::PgConnection,
    now: DateTime<Utc>,
    wanted: &Replacement<'_>,
    actor: &str,
    domain: &str,
    entropy: &mut impl Entropy,
) -> Result<Replaced, LifecycleError> {
    let game = super::open_game(&mut *tx, wanted.game).await?;
    // Barmy seats every subscriber (BARMY-02): a newcomer joins by subscribing, and someone
    // who left would be enrolled again, so its seats are never handed over.
    if game.engine == games::EngineKind::Barmy.name() {
        return Err(refused(format!(
            "every subscriber plays {} (Barmy): a new subscriber joins at the next turn, no seat is handed over",
            game.name
        )));
    }
    let from_turn = game
        .open_turn
        .and_then(|n| u32::try_from(n).ok())
        .ok_or(LifecycleError::NoOpenTurn(game.id.0))?;
    let players = store::players::of_game(&mut *tx, game.id).await?;
    let wanted_player = wanted.player.trim();
    let player = players
        .iter()
        .find(|p| {
            p.display_name.trim().eq_ignore_ascii_case(wanted_player)
                || p.engine_player_id.to_string() == wanted_player
        })
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
                wanted.subscriber.0
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
    let state = turns::game_state(&mut *tx, game.id).await?;
    let seat = turns::player_id(player.engine_player_id);
    if !state.expects_orders(seat) {
        return Err(refused(format!(
            "{}'s fleet is out of {} (it left the game or was sunk): there is no position to take over",
            player.display_name, game.name
        )));
    }
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
            from_turn,
            new_subscriber: newcomer.id,
            new_name: &new_name,
            new_reply_token: &token,
        },
    )
    .await?
    .ok_or(LifecycleError::GameNotFound(game.id.0))?;
    // The standbys still holding an offer of the seat are told someone took it.
    turns::missed::tell_offers_lapsed(
        &mut *tx,
        &lapsed,
        turns::missed::SeatKept::TakenBy(&new_name),
        now,
        domain,
    )
    .await?;
    // The player who leaves the seat is told, at the address they played from.
    if old_still_subscribed {
        let (key, message_id) = letters::queued_ids(
            "replaced",
            &format!("{}|{}|{}", game.id.0, player.id.0, player.reply_token),
            domain,
        );
        store::outbox::enqueue(
            &mut *tx,
            &NewOutbound {
                message_id: &message_id,
                idempotency_key: &key,
                to_address: &player.email,
                subject: &format!("{}: {new_name} takes your seat", game.name),
                body_text: &letters::offers::you_were_replaced(
                    &old_name, &game.name, &new_name, from_turn,
                ),
                body_html: None,
                headers: &Headers::default(),
            },
            now,
        )
        .await?;
    }
    // The newcomer's position: the engine's view for this seat only, under their own name.
    let state = turns::game_state(&mut *tx, game.id).await?;
    let lines = state.view(engine::Viewer::Player(seat)).lines;
    let body = letters::replacements::position(
        &game.name,
        &new_name,
        &old_name,
        from_turn,
        &lines,
        &state.order_help(),
    );
    let (key, message_id) = letters::queued_ids(
        "replacement",
        &format!("{}|{}|{}", game.id.0, player.id.0, token),
        domain,
    );
    let headers = Headers {
        reply_to: Some(letters::reply_address(&token, domain)),
        ..Headers::default()
    };
    store::outbox::enqueue(
        &mut *tx,
        &NewOutbound {
            message_id: &message_id,
            idempotency_key: &key,
            to_address: newcomer.email.as_str(),
            subject: &format!("{}: you take over from {old_name}", game.name),
            body_text: &body,
            body_html: None,
            headers: &headers,
        },
        now,
    )
    .await?;
    store::audit::append(
        &mut *tx,
        &store::audit::NewAuditEntry {
            actor,
            action: "player.replace",
            game_id: Some(game.id.0),
            details: json!({ "player": player.id.0, "engine_player_id": player.engine_player_id,
                "old_name": old_name, "new_subscriber": newcomer.id.0, "new_name": new_name,
                "from_turn": from_turn }),
        },
        now,
    )
    .await?;
    Ok(Replaced {
        old_name,
        new_name,
        from_turn,
    })
}

/// Puts a subscriber on the standby list or takes them off, audited (`via` the web or mail);
/// `true` when that changed anything.
pub async fn set_standby(
    pool: &PgPool,
    now: DateTime<Utc>,
    subscriber: SubscriberId,
    on: bool,
    via: &str,
) -> Result<bool, LifecycleError> {
    let mut tx = pool.begin().await?;
    let changed = if on {
        store::replacements::standby_on(&mut *tx, subscriber).await?
    } else {
        store::replacements::standby_off(&mut *tx, subscriber).await?
    };
    if changed {
        store::audit::append(
            &mut *tx,
            &store::audit::NewAuditEntry {
                actor: &format!("subscriber:{}", subscriber.0),
                action: if on { "standby.on" } else { "standby.off" },
                game_id: None,
                details: json!({ "subscriber": subscriber.0, "via": via }),
            },
            now,
        )
        .await?;
    }
    tx.commit().await?;
    Ok(changed)
}
