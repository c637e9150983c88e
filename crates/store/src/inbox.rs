//! Inbound mail: every message is stored, raw, before anything else is done with it, keyed by
//! its Message-ID so a message delivered twice is stored once.

use chrono::{DateTime, Utc};
use sqlx::PgExecutor;

use crate::StoreError;
use crate::ids::SubscriberId;
use crate::status::{DkimVerdict, DmarcPolicy, DmarcVerdict, InboundStatus, SpfVerdict};

pub use crate::ids::InboundId;

/// What storing a message did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stored {
    New(InboundId),
    /// The same message (its Message-ID and body) was stored before: this delivery has no
    /// effect.
    Duplicate(InboundId),
}

/// A message to store: [`store_raw`] one, [`store_many`] a group.
#[derive(Debug, Clone, Copy)]
pub struct NewInbound<'a> {
    /// Its Message-ID (or, without one, a digest of its bytes).
    pub message_id: &'a str,
    /// SHA-256 of its body: with the Message-ID, what a second delivery of it is the same as.
    pub body_sha256: &'a [u8],
    pub raw: &'a [u8],
    /// The envelope recipients the door accepted (none when it did not say).
    pub envelope_recipients: &'a [String],
    pub received_at: DateTime<Utc>,
    /// Whether it came over TLS (the SMTP listener knows; the other doors say `None`).
    pub over_tls: Option<bool>,
}

/// What SPF, DKIM and DMARC said of a message (`None` where it is kept: not checked).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MailAuth {
    pub spf: SpfVerdict,
    pub dkim: DkimVerdict,
    pub dmarc: DmarcVerdict,
    /// The From domain's published policy, when it has one.
    pub dmarc_policy: Option<DmarcPolicy>,
}

impl MailAuth {
    /// Fails DMARC where its domain asks receivers to reject or quarantine such mail.
    pub fn forged_by_policy(&self) -> bool {
        self.dmarc == DmarcVerdict::Fail
            && matches!(
                self.dmarc_policy,
                Some(DmarcPolicy::Reject | DmarcPolicy::Quarantine)
            )
    }
}

/// The stored columns back into a [`MailAuth`]: all of them, or not checked.
fn mail_auth(
    spf: Option<SpfVerdict>,
    dkim: Option<DkimVerdict>,
    dmarc: Option<DmarcVerdict>,
    dmarc_policy: Option<DmarcPolicy>,
) -> Option<MailAuth> {
    Some(MailAuth {
        spf: spf?,
        dkim: dkim?,
        dmarc: dmarc?,
        dmarc_policy,
    })
}

/// Envelope recipients as one text per message (unnest takes no ragged arrays); an address
/// holds no line break, and one that does is dropped.
fn joined_recipients(recipients: &[String]) -> String {
    recipients
        .iter()
        .filter(|r| !r.is_empty() && !r.contains(['\n', '\r', '\0']))
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Stores one message unless the same one (its Message-ID and body) is stored already.
pub async fn store_raw<'e>(
    db: impl PgExecutor<'e> + Copy,
    message: &NewInbound<'_>,
    via: &str,
) -> Result<Stored, StoreError> {
    let inserted = sqlx::query_scalar!(
        r#"INSERT INTO inbound_messages (message_id, body_sha256, raw, envelope_recipients, received_via, received_at, status, over_tls)
           SELECT $1, $2, $3, string_to_array($4, E'\n'), $5, $6, $7, $8
           WHERE NOT EXISTS (SELECT 1 FROM inbound_messages o WHERE o.message_id = $1 AND o.body_sha256 IS NULL)
           ON CONFLICT (message_id, body_sha256) DO NOTHING RETURNING id AS "id: InboundId""#,
        message.message_id,
        message.body_sha256,
        message.raw,
        joined_recipients(message.envelope_recipients),
        via,
        message.received_at,
        InboundStatus::New as InboundStatus,
        message.over_tls,
    )
    .fetch_optional(db)
    .await?;
    if let Some(id) = inserted {
        return Ok(Stored::New(id));
    }
    let id = sqlx::query_scalar!(
        r#"SELECT id AS "id: InboundId" FROM inbound_messages WHERE message_id = $1
           AND (body_sha256 = $2 OR body_sha256 IS NULL) ORDER BY id LIMIT 1"#,
        message.message_id,
        message.body_sha256,
    )
    .fetch_one(db)
    .await?;
    Ok(Stored::Duplicate(id))
}

/// Stores many messages in one statement (so one commit), each unless the same message (its
/// Message-ID and body) is stored already, this call's included: [`store_raw`] for a group of
/// messages that arrived together. Either every message is stored, or none.
pub async fn store_many<'e>(
    db: impl PgExecutor<'e>,
    messages: &[NewInbound<'_>],
    via: &str,
) -> Result<(), StoreError> {
    let ids: Vec<&str> = messages.iter().map(|m| m.message_id).collect();
    let digests: Vec<&[u8]> = messages.iter().map(|m| m.body_sha256).collect();
    let raws: Vec<&[u8]> = messages.iter().map(|m| m.raw).collect();
    let recipients: Vec<String> = messages
        .iter()
        .map(|m| joined_recipients(m.envelope_recipients))
        .collect();
    let times: Vec<DateTime<Utc>> = messages.iter().map(|m| m.received_at).collect();
    let tls: Vec<Option<bool>> = messages.iter().map(|m| m.over_tls).collect();
    sqlx::query!(
        r#"INSERT INTO inbound_messages (message_id, body_sha256, raw, envelope_recipients, received_via, received_at, status, over_tls)
           SELECT m.message_id, m.digest, m.raw, string_to_array(m.recipients, E'\n'), $6, m.received_at, $7, m.over_tls
           FROM unnest($1::text[], $2::bytea[], $3::bytea[], $4::text[], $5::timestamptz[], $8::boolean[])
                WITH ORDINALITY AS m(message_id, digest, raw, recipients, received_at, over_tls, n)
           WHERE NOT EXISTS (SELECT 1 FROM inbound_messages o WHERE o.message_id = m.message_id AND o.body_sha256 IS NULL)
           ORDER BY m.n ON CONFLICT (message_id, body_sha256) DO NOTHING"#,
        &ids as &[&str],
        &digests as &[&[u8]],
        &raws as &[&[u8]],
        &recipients as &[String],
        &times as &[DateTime<Utc>],
        via,
        InboundStatus::New as InboundStatus,
        &tls as &[Option<bool>],
    )
    .execute(db)
    .await?;
    Ok(())
}

/// A stored message waiting to be processed, locked for this transaction.
#[derive(Debug, Clone)]
pub struct Claimed {
    pub id: InboundId,
    pub raw: Vec<u8>,
    /// The envelope recipients its door accepted.
    pub envelope_recipients: Vec<String>,
    pub attempts: i32,
    /// When the message arrived: orders count as of then, not as of processing.
    pub received_at: DateTime<Utc>,
    /// What SPF, DKIM and DMARC said of it, when checked.
    pub auth: Option<MailAuth>,
}

/// This transaction records what was done with messages that were stored durably before
/// anyone was told so: if a crash loses it, they are still `new` and are processed again with
/// the same effects. So it need not wait for its own disk flush, which is what bounds how many
/// messages a second a worker gets through.
pub async fn commit_without_flush(tx: &mut sqlx::PgConnection) -> Result<(), StoreError> {
    sqlx::query_scalar!("SELECT set_config('synchronous_commit', 'off', true)")
        .fetch_one(&mut *tx)
        .await?;
    Ok(())
}

/// Claims up to `limit` stored messages waiting to be processed, oldest first, locked for this
/// transaction (other workers skip them); `checked_only`, only those whose authentication
/// was checked ([`record_authentication`]).
pub async fn claim_batch(
    tx: &mut sqlx::PgConnection,
    limit: i64,
    checked_only: bool,
) -> Result<Vec<Claimed>, StoreError> {
    let rows = sqlx::query!(
        r#"SELECT id AS "id: InboundId", raw, envelope_recipients, attempts, received_at,
                  auth_spf AS "auth_spf: SpfVerdict", auth_dkim AS "auth_dkim: DkimVerdict",
                  auth_dmarc AS "auth_dmarc: DmarcVerdict",
                  auth_dmarc_policy AS "auth_dmarc_policy: DmarcPolicy"
           FROM inbound_messages WHERE status = $2 AND (NOT $3 OR auth_checked_at IS NOT NULL)
           ORDER BY received_at, id LIMIT $1 FOR UPDATE SKIP LOCKED"#,
        limit,
        InboundStatus::New as InboundStatus,
        checked_only,
    )
    .fetch_all(&mut *tx)
    .await?;
    Ok(rows
        .into_iter()
        .map(|row| Claimed {
            id: row.id,
            raw: row.raw,
            envelope_recipients: row.envelope_recipients,
            attempts: row.attempts,
            received_at: row.received_at,
            auth: mail_auth(
                row.auth_spf,
                row.auth_dkim,
                row.auth_dmarc,
                row.auth_dmarc_policy,
            ),
        })
        .collect())
}

/// A stored message waiting for its authentication to be checked.
#[derive(Debug, Clone)]
pub struct Unchecked {
    pub id: InboundId,
    pub raw: Vec<u8>,
    pub received_via: String,
}

/// Up to `limit` messages waiting to be processed whose authentication was not checked,
/// oldest first. Not locked: two workers checking the same message record the same results.
pub async fn unchecked<'e>(
    db: impl PgExecutor<'e>,
    limit: i64,
) -> Result<Vec<Unchecked>, StoreError> {
    Ok(sqlx::query_as!(
        Unchecked,
        r#"SELECT id AS "id: InboundId", raw, received_via FROM inbound_messages
           WHERE status = $2 AND auth_checked_at IS NULL
           ORDER BY received_at, id LIMIT $1"#,
        limit,
        InboundStatus::New as InboundStatus,
    )
    .fetch_all(db)
    .await?)
}

/// Records what SPF, DKIM and DMARC said of each message, in one statement.
pub async fn record_authentication<'e>(
    db: impl PgExecutor<'e>,
    results: &[(InboundId, MailAuth)],
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    let ids: Vec<InboundId> = results.iter().map(|r| r.0).collect();
    let spf: Vec<SpfVerdict> = results.iter().map(|r| r.1.spf).collect();
    let dkim: Vec<DkimVerdict> = results.iter().map(|r| r.1.dkim).collect();
    let dmarc: Vec<DmarcVerdict> = results.iter().map(|r| r.1.dmarc).collect();
    let policy: Vec<Option<DmarcPolicy>> = results.iter().map(|r| r.1.dmarc_policy).collect();
    sqlx::query!(
        "UPDATE inbound_messages m SET auth_checked_at = $6, auth_spf = r.spf,
                auth_dkim = r.dkim, auth_dmarc = r.dmarc, auth_dmarc_policy = r.policy
         FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[])
              AS r(id, spf, dkim, dmarc, policy)
         WHERE m.id = r.id AND m.auth_checked_at IS NULL",
        &ids as &[InboundId],
        &spf as &[SpfVerdict],
        &dkim as &[DkimVerdict],
        &dmarc as &[DmarcVerdict],
        &policy as &[Option<DmarcPolicy>],
        now,
    )
    .execute(db)
    .await?;
    Ok(())
}

/// How processing one message ended, for [`finish_many`].
#[derive(Debug, Clone)]
pub struct Outcome {
    id: InboundId,
    status: InboundStatus,
    error: Option<String>,
    /// Whose message it was and the SHA-256 of what they wrote, once acted on.
    acted: Option<(SubscriberId, Vec<u8>)>,
}

impl Outcome {
    /// Answered (a refusal, or a message that asked only for information).
    pub fn processed(id: InboundId) -> Outcome {
        Outcome {
            id,
            status: InboundStatus::Processed,
            error: None,
            acted: None,
        }
    }

    /// Acted on for `subscriber`, who wrote the text with this SHA-256: a copy of it re-sent
    /// later is found by [`earlier_copy`].
    pub fn acted(id: InboundId, subscriber: SubscriberId, text_sha256: &[u8]) -> Outcome {
        Outcome {
            acted: Some((subscriber, text_sha256.to_vec())),
            ..Outcome::processed(id)
        }
    }

    /// Not acted on (a loop, bulk mail, unreadable), with the reason.
    pub fn dropped(id: InboundId, reason: String) -> Outcome {
        Outcome {
            id,
            status: InboundStatus::Dropped,
            error: Some(reason),
            acted: None,
        }
    }

    /// Processing failed, with the error.
    pub fn failed(id: InboundId, error: String) -> Outcome {
        Outcome {
            id,
            status: InboundStatus::Failed,
            error: Some(error),
            acted: None,
        }
    }
}

/// Records how processing ended for a batch of messages, in one statement: `processed`,
/// `dropped` (a loop or bulk mail, with the reason), or `failed` (with the error; `gm inbox
/// retry` runs it again).
pub async fn finish_many<'e>(
    db: impl PgExecutor<'e>,
    outcomes: &[Outcome],
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    let ids: Vec<InboundId> = outcomes.iter().map(|o| o.id).collect();
    let statuses: Vec<InboundStatus> = outcomes.iter().map(|o| o.status).collect();
    let errors: Vec<Option<&str>> = outcomes.iter().map(|o| o.error.as_deref()).collect();
    let senders: Vec<Option<SubscriberId>> = outcomes
        .iter()
        .map(|o| o.acted.as_ref().map(|a| a.0))
        .collect();
    let texts: Vec<Option<&[u8]>> = outcomes
        .iter()
        .map(|o| o.acted.as_ref().map(|a| a.1.as_slice()))
        .collect();
    sqlx::query!(
        "UPDATE inbound_messages m SET status = o.status, error = o.error,
                attempts = m.attempts + 1, processed_at = $4,
                sender_subscriber_id = o.sender, text_sha256 = o.text
         FROM unnest($1::bigint[], $2::text[], $3::text[], $5::bigint[], $6::bytea[])
              AS o(id, status, error, sender, text) WHERE m.id = o.id",
        &ids as &[InboundId],
        &statuses as &[InboundStatus],
        &errors as &[Option<&str>],
        now,
        &senders as &[Option<SubscriberId>],
        &texts as &[Option<&[u8]>],
    )
    .execute(db)
    .await?;
    Ok(())
}

/// An earlier message acted on for `subscriber` with the same text (SHA-256) that arrived
/// before `received_at` while the same turns were open: no turn of any of the subscriber's games
/// opened between the two. Its id and arrival, the latest if several.
pub async fn earlier_copy(
    tx: &mut sqlx::PgConnection,
    subscriber: SubscriberId,
    text_sha256: &[u8],
    received_at: DateTime<Utc>,
    this: InboundId,
) -> Result<Option<(InboundId, DateTime<Utc>)>, StoreError> {
    let row = sqlx::query!(
        r#"SELECT m.id AS "id: InboundId", m.received_at FROM inbound_messages m
           WHERE m.sender_subscriber_id = $1 AND m.text_sha256 = $2 AND m.id <> $4
             AND m.received_at <= $3
             AND NOT EXISTS (SELECT 1 FROM turns t JOIN players p ON p.game_id = t.game_id
                             WHERE p.subscriber_id = $1 AND t.opened_at > m.received_at
                               AND t.opened_at <= $3)
           ORDER BY m.received_at DESC, m.id DESC LIMIT 1"#,
        subscriber as SubscriberId,
        text_sha256,
        received_at,
        this as InboundId,
    )
    .fetch_optional(&mut *tx)
    .await?;
    Ok(row.map(|row| (row.id, row.received_at)))
}

/// Puts every failed message back in the queue; returns how many.
pub async fn retry_failed<'e>(db: impl PgExecutor<'e>) -> Result<u64, StoreError> {
    Ok(sqlx::query!(
        "UPDATE inbound_messages SET status = $1, processed_at = NULL WHERE status = $2",
        InboundStatus::New as InboundStatus,
        InboundStatus::Failed as InboundStatus,
    )
    .execute(db)
    .await?
    .rows_affected())
}

/// A stored inbound message as the GM's console lists it (without the raw bytes).
#[derive(Debug, Clone)]
pub struct InboundSummary {
    pub id: InboundId,
    pub message_id: String,
    pub received_via: String,
    pub received_at: DateTime<Utc>,
    pub status: InboundStatus,
    pub error: Option<String>,
    pub attempts: i32,
    /// The first 500 bytes, lossily decoded, to recognise the message by.
    pub excerpt: String,
    /// The first 16 KiB, where the headers are (the console reads From: and Subject:).
    pub head: Vec<u8>,
    /// Whether it came over TLS (`None`: not by the SMTP listener).
    pub over_tls: Option<bool>,
    /// What SPF, DKIM and DMARC said of it (`None`: not checked).
    pub auth: Option<MailAuth>,
}

/// Messages with `status`, newest first.
pub async fn list_by_status<'e>(
    db: impl PgExecutor<'e>,
    status: InboundStatus,
    limit: i64,
) -> Result<Vec<InboundSummary>, StoreError> {
    let rows = sqlx::query!(
        r#"SELECT id AS "id: InboundId", message_id, received_via, received_at,
                  status AS "status: InboundStatus", error, attempts,
                  substring(raw FROM 1 FOR 16384) AS "head!", over_tls,
                  auth_spf AS "auth_spf: SpfVerdict", auth_dkim AS "auth_dkim: DkimVerdict",
                  auth_dmarc AS "auth_dmarc: DmarcVerdict",
                  auth_dmarc_policy AS "auth_dmarc_policy: DmarcPolicy"
           FROM inbound_messages WHERE status = $1 ORDER BY id DESC LIMIT $2"#,
        status as InboundStatus,
        limit.max(0),
    )
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(|row| InboundSummary {
            id: row.id,
            message_id: row.message_id,
            received_via: row.received_via,
            received_at: row.received_at,
            status: row.status,
            error: row.error,
            attempts: row.attempts,
            excerpt: String::from_utf8_lossy(row.head.get(..500).unwrap_or(&row.head)).into_owned(),
            head: row.head,
            over_tls: row.over_tls,
            auth: mail_auth(
                row.auth_spf,
                row.auth_dkim,
                row.auth_dmarc,
                row.auth_dmarc_policy,
            ),
        })
        .collect())
}

/// Puts one failed message back in the queue. Returns whether it was failed.
pub async fn retry_one<'e>(db: impl PgExecutor<'e>, id: InboundId) -> Result<bool, StoreError> {
    Ok(sqlx::query!(
        "UPDATE inbound_messages SET status = $2, processed_at = NULL WHERE id = $1 AND status = $3",
        id as InboundId,
        InboundStatus::New as InboundStatus,
        InboundStatus::Failed as InboundStatus,
    )
    .execute(db)
    .await?
    .rows_affected()
        == 1)
}
