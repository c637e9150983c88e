//! The GM strikes a press entry of the open turn (issue 27 item 8, docs/web-console.md): it is
//! not printed with the report, the player is told by mail, and the audit log keeps the entry
//! and the reason. Once the turn is resolved its press is on the record: it cannot be struck.

use chrono::{DateTime, Utc};
use store::PgPool;
use store::audit::{AuditAction, NewAuditEntry};
use store::games::GameId;
use store::ids::PressId;
use store::outbox::Headers;
use store::status::TurnStatus;

use super::LifecycleError;
use crate::letters;
use crate::outbox::post::{Posting, post_letter};

/// The longest reason the GM may give, in characters.
pub const MAX_REASON_CHARS: usize = 300;

/// Why a press entry was not struck.
#[derive(Debug, thiserror::Error)]
pub enum StrikeError {
    #[error(transparent)]
    Lifecycle(#[from] LifecycleError),
    #[error("no such press entry in this game: it was withdrawn, replaced or struck already")]
    NotFound,
    #[error("turn {0}'s report is out: its press is on the record and can no longer be struck")]
    Published(i32),
    #[error("give a short reason: the player is told it")]
    NoReason,
    #[error("the reason is {0} characters long; at most {MAX_REASON_CHARS}")]
    ReasonTooLong(usize),
}

impl From<store::StoreError> for StrikeError {
    fn from(error: store::StoreError) -> Self {
        StrikeError::Lifecycle(LifecycleError::Store(error))
    }
}

impl From<sqlx::Error> for StrikeError {
    fn from(error: sqlx::Error) -> Self {
        StrikeError::Lifecycle(LifecycleError::from(error))
    }
}

/// A reason for striking, checked: 1 to [`MAX_REASON_CHARS`] characters on one line.
pub fn strike_reason(text: &str) -> Result<String, StrikeError> {
    let reason = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match reason.chars().count() {
        0 => Err(StrikeError::NoReason),
        n if n > MAX_REASON_CHARS => Err(StrikeError::ReasonTooLong(n)),
        _ => Ok(reason),
    }
}

/// What the GM asks to strike.
#[derive(Debug, Clone)]
pub struct Strike<'a> {
    pub game: GameId,
    pub press: PressId,
    pub reason: &'a str,
    pub actor: &'a str,
}

/// Strikes the entry, in one transaction that holds its turn (so the turn cannot resolve
/// meanwhile): deleted, audited `press.strike` with its text and the reason, and the player
/// mailed. Returns the player's name.
pub async fn strike_press(
    pool: &PgPool,
    now: DateTime<Utc>,
    strike: &Strike<'_>,
    domain: &str,
) -> Result<String, StrikeError> {
    let reason = strike_reason(strike.reason)?;
    let mut tx = pool.begin().await?;
    let game = store::games::summary(&mut *tx, strike.game)
        .await?
        .ok_or(LifecycleError::GameNotFound(strike.game))?;
    let entry = store::orders::lock_press_entry(&mut tx, strike.game, strike.press)
        .await?
        .ok_or(StrikeError::NotFound)?;
    if entry.turn_status != TurnStatus::Open {
        return Err(StrikeError::Published(entry.turn_number));
    }
    if !store::orders::delete_press_entry(&mut tx, entry.id).await? {
        return Err(StrikeError::NotFound);
    }
    let letter = letters::press::press_struck(
        &entry.display_name,
        &game.name,
        entry.turn_number,
        &entry.text,
        &reason,
    );
    let posting = Posting::once(
        "press-struck",
        &entry.id.to_string(),
        domain,
        entry.email.as_str(),
        letter,
    )
    .with_headers(Headers {
        reply_to: Some(letters::reply_address(&entry.reply_token, domain)),
        ..Headers::default()
    });
    let audit = NewAuditEntry {
        actor: strike.actor,
        game: Some(strike.game),
        action: AuditAction::PressStrike {
            press: entry.id,
            player: entry.player_id,
            turn_id: entry.turn_id,
            text: entry.text.clone(),
            reason,
        },
    };
    post_letter(&mut tx, &posting, Some(&audit), now).await?;
    tx.commit().await?;
    Ok(entry.display_name)
}
