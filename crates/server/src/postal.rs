//! Postal players (issue 18): orders that came on paper or by phone, entered by the GM. They go
//! in as any orders do, stored with source `post`, audited with the GM's name and the day they
//! were received; the confirmation the GM sees is the one mailed to the player.

use chrono::{DateTime, NaiveDate, Utc};
use serde_json::json;
use store::PgPool;
use store::games::GameId;
use store::outbox::{Headers, NewOutbound};
use store::players::PlayerRowId;
use store::status::Source;

use crate::config::PressLimits;
use crate::letters;
use crate::turns::{LifecycleError, OpenTurns, Submission, submit_orders_in};

/// Orders for one player, as the GM typed them from the post.
#[derive(Debug, Clone)]
pub struct PostedOrders<'a> {
    pub game: GameId,
    pub player: PlayerRowId,
    pub text: &'a str,
    pub received_on: NaiveDate,
}

/// The player the post came from, and their game's name: refused in words when the player is
/// not one of the game's, or the day received is after today in the game's time zone.
async fn postal_player(
    tx: &mut sqlx::PgConnection,
    posted: &PostedOrders<'_>,
    now: DateTime<Utc>,
) -> Result<(store::players::GamePlayer, String), LifecycleError> {
    let game = store::games::summary(&mut *tx, posted.game)
        .await?
        .ok_or(LifecycleError::GameNotFound(posted.game.0))?;
    let today = now
        .with_timezone(&crate::schedule::zone_of(&game.schedule))
        .date_naive();
    if posted.received_on > today {
        return Err(LifecycleError::Roster(format!(
            "the day received, {}, is after today ({today}): post cannot come from the future",
            posted.received_on
        )));
    }
    let player = store::players::of_game(&mut *tx, posted.game)
        .await?
        .into_iter()
        .find(|p| p.id == posted.player)
        .ok_or_else(|| LifecycleError::Roster(format!("{} has no such player", game.name)))?;
    Ok((player, game.name))
}

/// Enters the orders, audits the entry as `actor`'s, and queues the confirmation to the
/// player's address; returns the confirmation's text, for the GM's page.
pub async fn enter_orders(
    pool: &PgPool,
    now: DateTime<Utc>,
    posted: &PostedOrders<'_>,
    actor: &str,
    domain: &str,
) -> Result<String, LifecycleError> {
    let mut tx = pool.begin().await?;
    let (player, game_name) = postal_player(&mut tx, posted, now).await?;
    let player = &player;
    let lock = store::subscribers::lock_player(&mut tx, posted.player.0).await?;
    let submission = Submission {
        game: posted.game,
        engine_player: player.engine_player_id,
        text: posted.text,
        source: Source::Post,
        press_limits: PressLimits::DEFAULT,
        with_press: true,
        mail_domain: Some(domain),
    };
    let taken =
        submit_orders_in(&mut tx, &mut OpenTurns::default(), &lock, now, &submission).await?;
    let mut text = letters::postal::confirmation(
        &game_name,
        &player.display_name,
        posted.received_on,
        // The console's actor is `gm:NAME`: the player is told the GM's name.
        actor.strip_prefix("gm:").unwrap_or(actor),
        &taken.parsed,
    );
    // What became of the press, said as a mailed set's confirmation says it.
    if taken.press_withdrawn > 0 {
        text.push_str(
            "

",
        );
        text.push_str(&letters::replies::press_replaced(
            &game_name,
            taken.press_withdrawn,
        ));
    }
    for (sent, admitted) in taken.parsed.press.iter().zip(&taken.press) {
        text.push_str(
            "

",
        );
        text.push_str(&letters::replies::press(
            &game_name,
            sent,
            admitted,
            &submission.press_limits,
        ));
    }
    let (key, message_id) = letters::queued_ids(
        "post",
        &format!("{}|{}|{}", posted.game.0, posted.player.0, now.to_rfc3339()),
        domain,
    );
    let reply_to = letters::reply_address(&player.reply_token, domain);
    let headers = Headers {
        reply_to: Some(reply_to),
        ..Headers::default()
    };
    store::outbox::enqueue(
        &mut *tx,
        &NewOutbound {
            message_id: &message_id,
            idempotency_key: &key,
            to_address: &player.email,
            subject: &format!("{game_name}: your orders received by post"),
            body_text: &text,
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
            action: "orders.post",
            game_id: Some(posted.game.0),
            details: json!({ "player": posted.player.0, "name": player.display_name,
                "received_on": posted.received_on.to_string(), "entered_by": actor }),
        },
        now,
    )
    .await?;
    tx.commit().await?;
    Ok(text)
}

/// Enters press alone for a player (a letter for the zine, without orders): their orders stay
/// as they were. Audited (`press.post`) and confirmed as [`enter_orders`] does.
pub async fn enter_press(
    pool: &PgPool,
    now: DateTime<Utc>,
    posted: &PostedOrders<'_>,
    actor: &str,
    domain: &str,
) -> Result<String, LifecycleError> {
    let mut tx = pool.begin().await?;
    let (player, game_name) = postal_player(&mut tx, posted, now).await?;
    let player = &player;
    let lock = store::subscribers::lock_player(&mut tx, posted.player.0).await?;
    let mut open_turns = OpenTurns::default();
    let limits = PressLimits::DEFAULT;
    let taken = crate::turns::press_for_open_turn(
        &mut tx,
        &mut open_turns,
        &lock,
        now,
        posted.game,
        posted.text.trim(),
        Source::Post,
        limits,
    )
    .await?;
    if let Some(press) = &taken.press {
        store::orders::save_press_many(&mut *tx, std::slice::from_ref(press)).await?;
    }
    let what = letters::replies::press(&game_name, posted.text.trim(), &taken.admitted, &limits);
    let text = letters::postal::press_confirmation(
        &game_name,
        &player.display_name,
        posted.received_on,
        actor.strip_prefix("gm:").unwrap_or(actor),
        &what,
    );
    let (key, message_id) = letters::queued_ids(
        "post-press",
        &format!("{}|{}|{}", posted.game.0, posted.player.0, now.to_rfc3339()),
        domain,
    );
    let headers = Headers {
        reply_to: Some(letters::reply_address(&player.reply_token, domain)),
        ..Headers::default()
    };
    store::outbox::enqueue(
        &mut *tx,
        &NewOutbound {
            message_id: &message_id,
            idempotency_key: &key,
            to_address: &player.email,
            subject: &format!("{game_name}: your press received by post"),
            body_text: &text,
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
            action: "press.post",
            game_id: Some(posted.game.0),
            details: json!({ "player": posted.player.0, "name": player.display_name,
                "received_on": posted.received_on.to_string(), "entered_by": actor,
                "printed": taken.press.is_some() }),
        },
        now,
    )
    .await?;
    tx.commit().await?;
    Ok(text)
}

/// Marks a subscriber postal (or not), audited as `actor`'s.
pub async fn set_postal(
    pool: &PgPool,
    now: DateTime<Utc>,
    subscriber: store::subscribers::SubscriberId,
    postal: bool,
    actor: &str,
) -> Result<bool, LifecycleError> {
    let mut tx = pool.begin().await?;
    if !store::subscribers::set_postal(&mut *tx, subscriber, postal).await? {
        return Ok(false);
    }
    store::audit::append(
        &mut *tx,
        &store::audit::NewAuditEntry {
            actor,
            action: "subscriber.postal",
            game_id: None,
            details: json!({ "subscriber": subscriber.0, "postal": postal }),
        },
        now,
    )
    .await?;
    tx.commit().await?;
    Ok(true)
}
