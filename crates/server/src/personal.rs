//! A subscriber's data (issue 30 item 6, docs/web-players.md#your-data): the download of
//! everything stored about them, and its erasure. A person is an address: both act on every
//! subscription with it, as the player pages do.

use chrono::{DateTime, Utc};
use store::PgPool;
use store::audit::{AuditAction, NewAuditEntry, Via};
use store::notices::NewNotice;
use store::status::{GameStatus, NoticeKind};
use store::subscribers::SubscriberId;

use crate::rosters::resign::resign_in;
use crate::turns::LifecycleError;

/// The download's format, named in the file so that a reader knows what they hold.
pub const FORMAT: &str = "admiralty-personal-data";
pub const FORMAT_VERSION: u32 = 1;

#[derive(Debug, thiserror::Error)]
pub enum PersonalError {
    #[error("there is no such subscriber")]
    NotFound,
    #[error("the address you typed is not the address of your subscription: nothing was erased")]
    NotConfirmed,
    #[error(transparent)]
    Lifecycle(#[from] LifecycleError),
}

impl From<store::StoreError> for PersonalError {
    fn from(error: store::StoreError) -> Self {
        PersonalError::Lifecycle(LifecycleError::Store(error))
    }
}

impl From<sqlx::Error> for PersonalError {
    fn from(error: sqlx::Error) -> Self {
        PersonalError::Lifecycle(LifecycleError::from(error))
    }
}

#[derive(serde::Serialize)]
struct Download<'a> {
    format: &'static str,
    version: u32,
    exported_at: DateTime<Utc>,
    address: &'a str,
    note: &'static str,
    #[serde(flatten)]
    record: store::personal::Record,
}

/// Everything stored about the person behind `subscriber`, as one pretty-printed JSON file.
pub async fn download(
    pool: &PgPool,
    subscriber: SubscriberId,
    now: DateTime<Utc>,
) -> Result<String, PersonalError> {
    let mut tx = pool.begin().await?;
    let person = store::personal::person(&mut tx, subscriber)
        .await?
        .ok_or(PersonalError::NotFound)?;
    let record = store::personal::record(&mut tx, &person).await?;
    tx.commit().await?;
    let download = Download {
        format: FORMAT,
        version: FORMAT_VERSION,
        exported_at: now,
        address: &person.address,
        note: "Your subscriptions, seats, orders, press, letters, absences, the mail Admiralty \
               sent to your address and received from it, and the audit entries naming you. \
               Other players' press is in the reports mailed to you; their orders and \
               positions are theirs.",
        record,
    };
    serde_json::to_string_pretty(&download)
        .map_err(|e| PersonalError::Lifecycle(LifecycleError::Internal(e.to_string())))
}

/// What an erasure did, for the page that says so.
#[derive(Debug, Clone)]
pub struct ErasureDone {
    pub subscriptions: usize,
    pub resigned_from: Vec<String>,
}

/// Erases the person behind `subscriber` once they typed their address (`typed`, letter case
/// aside): their seats are resigned as a resignation is (`rosters::resign`), then their
/// address and personal data are removed (`store::personal::erase` says what), audited
/// `subscriber.erase` without the address, and the GMs are told in their digest. One
/// transaction: all of it or nothing.
pub async fn erase(
    pool: &PgPool,
    now: DateTime<Utc>,
    subscriber: SubscriberId,
    typed: &str,
    via: Via,
    domain: &str,
) -> Result<ErasureDone, PersonalError> {
    let mut tx = pool.begin().await?;
    let person = store::personal::person(&mut tx, subscriber)
        .await?
        .ok_or(PersonalError::NotFound)?;
    if !typed.trim().eq_ignore_ascii_case(person.address.trim()) {
        return Err(PersonalError::NotConfirmed);
    }
    let mut resigned_from = Vec::new();
    for holder in store::players::player_rows_of_person(&mut *tx, subscriber).await? {
        if holder.game_status == GameStatus::Finished {
            continue;
        }
        if resign_in(&mut tx, holder.game_id, holder.player_id, via, now, domain).await? {
            resigned_from.push(holder.game_name.clone());
        }
    }
    let erased = store::personal::erase(&mut tx, &person).await?;
    store::audit::append(
        &mut *tx,
        &NewAuditEntry {
            actor: via.as_str(),
            game: None,
            action: AuditAction::SubscriberErase {
                subscribers: person.subscribers.clone(),
                resigned_from: resigned_from.clone(),
                inbound_bodies: erased.inbound_bodies,
                outbound_messages: erased.outbound_messages,
                queued_not_sent: erased.queued_not_sent,
            },
        },
        now,
    )
    .await?;
    let ids: Vec<String> = person.subscribers.iter().map(ToString::to_string).collect();
    let summary = format!(
        "Subscriber {} erased their data{}",
        ids.join(", "),
        if resigned_from.is_empty() {
            String::new()
        } else {
            format!("; resigned from {}", resigned_from.join(", "))
        }
    );
    store::notices::record(
        &mut *tx,
        &NewNotice {
            kind: NoticeKind::SubscriberErased,
            game: None,
            summary: &summary,
            link: "/gm",
        },
        now,
    )
    .await?;
    tx.commit().await?;
    Ok(ErasureDone {
        subscriptions: person.subscribers.len(),
        resigned_from,
    })
}
