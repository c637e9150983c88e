//! What the messages of a batch claimed together share in its transaction: their senders
//! locked together, what they need looked up once, and what they put off (press, replies),
//! written together.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use mail::Reading;
use store::games::GameId;
use store::inbox;
use store::orders::NewPress;
use store::outbox::{AutoSubmitted, Headers};
use store::players::TokenHolder;
use store::status::Budget;
use store::subscribers::SendersLock;

use super::{Settings, budget, copies};
use crate::letters::{self, Letter};
use crate::outbox::post::Posting;
use crate::turns::{LifecycleError, OpenTurns, StateCache};

/// What the messages of one batch share within its transaction: the locks of their senders,
/// what was looked up for all of them at once, and the replies waiting to be queued together.
pub(super) struct Batch {
    pub(super) senders: SendersLock,
    /// The player rows of each reply token of the batch, read once the senders were locked;
    /// emptied when a message changes player rows (a resignation), after which each message
    /// reads its own.
    pub(super) holders_by_token: HashMap<String, Vec<TokenHolder>>,
    pub(super) open_turns: OpenTurns,
    /// PRESS commands' press, saved together with the replies.
    pub(super) press: Vec<NewPress>,
    pub(super) replies: Vec<PendingReply>,
    /// The message being processed: what it queues is keyed by it (two messages may share a
    /// Message-ID).
    pub(super) current: Option<inbox::InboundId>,
    /// The messages acted on so far in this batch, for [`copies::earlier_copy`].
    pub(super) acted: Vec<copies::Acted>,
}

/// A reply waiting to be queued, with what its audit entry needs if a limit stops it.
pub(super) struct PendingReply {
    /// A confirmation, or a refusal (whose budget is tighter).
    pub(super) budget: Budget,
    pub(super) inbound_id: String,
    pub(super) game: Option<GameId>,
    pub(super) posting: Posting,
}

/// An answer to a message, for [`Batch::queue_reply`].
pub(super) struct Reply<'a> {
    /// `Budget::Reply` for a confirmation, `Budget::Refusal` for the answer to mail that
    /// proved no sender.
    pub(super) budget: Budget,
    pub(super) to: &'a str,
    /// The player whose personal address goes in Reply-To.
    pub(super) holder: Option<&'a TokenHolder>,
    pub(super) letter: Letter,
}

impl Batch {
    /// Reads, for every message written to a reply address, the token's player rows, and
    /// share-locks the open turns of the games those addresses are for.
    pub(super) async fn look_up(
        tx: &mut sqlx::PgConnection,
        states: &StateCache,
        senders: SendersLock,
        readings: &[Result<Reading, mail::MailError>],
    ) -> Result<Batch, LifecycleError> {
        let tokens: Vec<String> = readings
            .iter()
            .filter_map(|reading| reading.as_ref().ok()?.token.as_ref())
            .map(|token| token.as_str().to_owned())
            .collect();
        let mut holders_by_token = HashMap::new();
        let mut games = Vec::new();
        for (token, holders) in store::players::player_rows_of_tokens(&mut *tx, &tokens).await? {
            games.extend(
                holders
                    .iter()
                    .filter(|holder| holder.reply_token == token)
                    .map(|holder| holder.game_id),
            );
            holders_by_token.insert(token, holders);
        }
        let mut open_turns = OpenTurns::new(states.clone());
        open_turns.fetch(&mut *tx, &games).await?;
        Ok(Batch {
            senders,
            holders_by_token,
            open_turns,
            press: Vec::new(),
            replies: Vec::new(),
            current: None,
            acted: Vec::new(),
        })
    }

    /// Puts the answer to a message with the batch's replies (see [`Batch::write_put_off`]):
    /// queued once however often the message is processed, and within its recipient's hourly
    /// budgets.
    pub(super) fn queue_reply(&mut self, reading: &Reading, reply: Reply<'_>, domain: &str) {
        let inbound_id = reading.mail.message_id.clone().unwrap_or_default();
        let headers = Headers {
            reply_to: reply
                .holder
                .map(|holder| letters::reply_address(&holder.reply_token, domain)),
            in_reply_to: Some(inbound_id.clone()),
            auto_submitted: Some(AutoSubmitted::AutoReplied),
            // A reply is personal mail.
            list: None,
        };
        let posting = Posting::once(
            "reply",
            &format!("{}|{}", self.message_key(reading), reply.to),
            domain,
            reply.to,
            reply.letter,
        )
        .with_headers(headers);
        self.replies.push(PendingReply {
            budget: reply.budget,
            inbound_id,
            game: reply.holder.map(|h| h.game_id),
            posting,
        });
    }

    /// What names the message being processed in the keys of what it queues: its Message-ID
    /// and its row.
    pub(super) fn message_key(&self, reading: &Reading) -> String {
        let message_id = reading.mail.message_id.as_deref().unwrap_or_default();
        match self.current {
            Some(id) => format!("{message_id}#{}", id),
            None => message_id.to_owned(),
        }
    }

    /// Writes what the messages put off: saves their press, and queues their replies within
    /// their recipients' budgets, auditing each reply that a limit stops.
    pub(super) async fn write_put_off(
        &mut self,
        tx: &mut sqlx::PgConnection,
        now: DateTime<Utc>,
        settings: &Settings,
    ) -> Result<(), LifecycleError> {
        let mut press = std::mem::take(&mut self.press);
        press.retain(|p| self.open_turns.press_stands(p));
        store::orders::save_press_many(&mut *tx, &press).await?;
        let replies = std::mem::take(&mut self.replies);
        budget::queue_replies(tx, &replies, settings, now).await
    }
}

/// Locks every subscriber the batch's messages may act for (by reply token or From address),
/// all at once and in order: another worker's batch with a message from the same player waits
/// for this one, so a player's messages are still acted on one after the other, while
/// different players' messages go in parallel.
pub(super) async fn lock_senders(
    tx: &mut sqlx::PgConnection,
    readings: &[Result<Reading, mail::MailError>],
) -> Result<SendersLock, LifecycleError> {
    let readable = readings.iter().filter_map(|reading| reading.as_ref().ok());
    let tokens: Vec<String> = readable
        .clone()
        .filter_map(|reading| reading.token.as_ref().map(|t| t.as_str().to_owned()))
        .collect();
    let emails: Vec<String> = readable
        .filter_map(|reading| reading.mail.from.as_ref())
        .map(|from| from.address.to_lowercase())
        .collect();
    Ok(store::subscribers::lock_senders(tx, &tokens, &emails).await?)
}
