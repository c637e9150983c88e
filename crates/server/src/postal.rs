//! Postal players (issue 18): orders that came on paper or by phone, entered by the GM. They go
//! in as any orders do, stored with source `post`, audited with the GM's name and the day they
//! were received; the confirmation the GM sees is the one mailed to the player.

use chrono::{DateTime, NaiveDate, Utc};
use store::PgPool;
use store::audit::AuditAction;
use store::games::GameId;
use store::outbox::Headers;
use store::players::PlayerRowId;
use store::status::Source;

use crate::config::PressLimits;
use crate::letters;
use crate::outbox::post::{Posting, post_letter};
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
        .ok_or(LifecycleError::GameNotFound(posted.game))?;
    let today = now.with_timezone(&game.schedule.zone()).date_naive();
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
    let lock = store::subscribers::lock_player(&mut tx, posted.player).await?;
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
    let posted_by = letters::postal::Posted {
        game: &game_name,
        player: &player.display_name,
        received_on: posted.received_on,
        // The console's actor is `gm:NAME`: the player is told the GM's name.
        gm: actor.strip_prefix("gm:").unwrap_or(actor),
    };
    let letter = letters::postal::confirmation(
        &posted_by,
        &letters::postal::Entered {
            parsed: &taken.parsed,
            press_withdrawn: taken.press_withdrawn,
            press: taken
                .parsed
                .press
                .iter()
                .map(String::as_str)
                .zip(&taken.press)
                .collect(),
            limits: &submission.press_limits,
        },
    );
    let text = letter.body.clone();
    let confirmation = Posting::once(
        "post",
        &format!("{}|{}|{}", posted.game, posted.player, now.to_rfc3339()),
        domain,
        &player.email,
        letter,
    )
    .with_headers(Headers::reply_to(letters::reply_address(
        &player.reply_token,
        domain,
    )));
    let entry = store::audit::NewAuditEntry {
        actor,
        game: Some(posted.game),
        action: AuditAction::OrdersPost {
            player: posted.player,
            name: player.display_name.clone(),
            received_on: posted.received_on,
            entered_by: actor.to_owned(),
        },
    };
    post_letter(&mut tx, &confirmation, Some(&entry), now).await?;
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
    let lock = store::subscribers::lock_player(&mut tx, posted.player).await?;
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
    let posted_by = letters::postal::Posted {
        game: &game_name,
        player: &player.display_name,
        received_on: posted.received_on,
        gm: actor.strip_prefix("gm:").unwrap_or(actor),
    };
    let letter = letters::postal::press_confirmation(
        &posted_by,
        posted.text.trim(),
        &taken.admitted,
        &limits,
    );
    let text = letter.body.clone();
    let confirmation = Posting::once(
        "post-press",
        &format!("{}|{}|{}", posted.game, posted.player, now.to_rfc3339()),
        domain,
        &player.email,
        letter,
    )
    .with_headers(Headers::reply_to(letters::reply_address(
        &player.reply_token,
        domain,
    )));
    let entry = store::audit::NewAuditEntry {
        actor,
        game: Some(posted.game),
        action: AuditAction::PressPost {
            player: posted.player,
            name: player.display_name.clone(),
            received_on: posted.received_on,
            entered_by: actor.to_owned(),
            printed: taken.press.is_some(),
        },
    };
    post_letter(&mut tx, &confirmation, Some(&entry), now).await?;
    tx.commit().await?;
    Ok(text)
}

/// Records that the GM posted the sheets of `players` (rows of `game`) printed with every
/// report up to turn `through`: their next sheets start after it. Audited when it moves a
/// player on; the same sheets marked again (a resubmitted form) change nothing. Returns how
/// many players it moved on.
pub async fn mark_sheets_posted(
    pool: &PgPool,
    now: DateTime<Utc>,
    game: GameId,
    players: &[PlayerRowId],
    through: i32,
    actor: &str,
) -> Result<usize, LifecycleError> {
    let mut tx = pool.begin().await?;
    let moved = store::paper::mark_posted(&mut *tx, game, players, through).await?;
    if !moved.is_empty() {
        let entry = store::audit::NewAuditEntry {
            actor,
            game: Some(game),
            action: AuditAction::SheetsPosted {
                players: moved.clone(),
                through_turn: through,
            },
        };
        store::audit::append(&mut *tx, &entry, now).await?;
    }
    tx.commit().await?;
    Ok(moved.len())
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
            game: None,
            action: AuditAction::SubscriberPostal { subscriber, postal },
        },
        now,
    )
    .await?;
    tx.commit().await?;
    Ok(true)
}
