//! Putting mail in the outbox: the one way a letter composed in `crate::letters` is queued,
//! in the caller's transaction, with its audit entry when it has one. Each letter has a name
//! (its idempotency key) that queues it once however often the transaction is retried, and a
//! Message-ID fixed here, so that a message sent again is the same message.

use chrono::{DateTime, Utc};
use store::StoreError;
use store::audit::NewAuditEntry;
use store::outbox::{BudgetTag, Headers, NewOutbound};

use crate::letters::{self, Letter};

/// A letter addressed to one person.
#[derive(Debug, Clone)]
pub struct Posting {
    pub to: String,
    pub letter: Letter,
    /// An HTML part beside the text, where the letter has one.
    pub html: Option<String>,
    pub headers: Headers,
    /// The letter's name among all Admiralty queues: queued once.
    pub key: String,
    pub message_id: String,
}

impl Posting {
    /// A letter of `kind` about `seed` (what names it: an offer's token, a game and a player),
    /// to `to`: its name and Message-ID follow from the two (`letters::queued_ids`).
    pub fn once(kind: &str, seed: &str, domain: &str, to: &str, letter: Letter) -> Posting {
        let (key, message_id) = letters::queued_ids(kind, seed, domain);
        Posting {
            to: to.to_owned(),
            letter,
            html: None,
            headers: Headers::default(),
            key,
            message_id,
        }
    }

    /// The same letter with these headers (a reply address, say).
    #[must_use]
    pub fn with_headers(mut self, headers: Headers) -> Posting {
        self.headers = headers;
        self
    }

    fn outbound(&self) -> NewOutbound<'_> {
        NewOutbound {
            message_id: &self.message_id,
            idempotency_key: &self.key,
            to_address: &self.to,
            subject: &self.letter.subject,
            body_text: &self.letter.body,
            body_html: self.html.as_deref(),
            headers: &self.headers,
        }
    }
}

/// Queues the letter (unless one of its name is queued already) and records `audit`, both in
/// the caller's transaction. Returns whether this call queued it.
pub async fn post_letter(
    tx: &mut sqlx::PgConnection,
    posting: &Posting,
    audit: Option<&NewAuditEntry<'_>>,
    now: DateTime<Utc>,
) -> Result<bool, StoreError> {
    let queued = store::outbox::enqueue(&mut *tx, &posting.outbound(), now).await?;
    if let Some(entry) = audit {
        store::audit::append(&mut *tx, entry, now).await?;
    }
    Ok(queued)
}

/// Queues many personal letters at once (a turn's positions, a game's start), each once.
/// Returns how many this call queued.
pub async fn post_each(
    tx: &mut sqlx::PgConnection,
    postings: &[Posting],
    now: DateTime<Utc>,
) -> Result<u64, StoreError> {
    let outbound: Vec<NewOutbound<'_>> = postings.iter().map(Posting::outbound).collect();
    store::outbox::enqueue_many(&mut *tx, &outbound, None, now).await
}

/// One letter to many readers (a turn's report, an issue): one Message-ID, the body stored
/// once and shared by every copy, each copy named by its own key.
#[derive(Debug, Clone)]
pub struct Circular<'a> {
    pub message_id: String,
    pub letter: &'a Letter,
    pub html: Option<&'a str>,
    /// Each copy's name and address.
    pub copies: Vec<(String, String)>,
}

/// Queues a circular's copies, each once; the shared body is stored first. Returns how many
/// copies this call queued.
pub async fn post_circular(
    tx: &mut sqlx::PgConnection,
    circular: &Circular<'_>,
    now: DateTime<Utc>,
) -> Result<u64, StoreError> {
    if circular.copies.is_empty() {
        return Ok(0);
    }
    let body =
        store::outbox::insert_shared_body(&mut *tx, &circular.letter.body, circular.html, now)
            .await?;
    let no_headers = Headers::default();
    let outbound: Vec<NewOutbound<'_>> = circular
        .copies
        .iter()
        .map(|(key, to)| NewOutbound {
            message_id: &circular.message_id,
            idempotency_key: key,
            to_address: to,
            subject: &circular.letter.subject,
            body_text: "",
            body_html: None,
            headers: &no_headers,
        })
        .collect();
    store::outbox::enqueue_many(&mut *tx, &outbound, Some(body), now).await
}

/// Queues answers and relayed messages within the hourly budgets: each letter with the budget
/// it counts against (the caller counted and holds `store::outbox::lock_budgets`). Returns how
/// many this call queued.
pub async fn post_budgeted(
    tx: &mut sqlx::PgConnection,
    letters: &[(Posting, BudgetTag<'_>)],
    now: DateTime<Utc>,
) -> Result<u64, StoreError> {
    let outbound: Vec<(NewOutbound<'_>, BudgetTag<'_>)> = letters
        .iter()
        .map(|(posting, tag)| (posting.outbound(), *tag))
        .collect();
    store::outbox::enqueue_budgeted(tx, &outbound, now).await
}
