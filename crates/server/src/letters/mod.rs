//! Every mail Admiralty writes, composed in one place: what a turn publishes ([`turns`]: the
//! report, each player's position, reminders) and the answers to players' mail ([`replies`]:
//! confirmations, refusals, relayed messages, login links), about mail passwords
//! ([`passwords`]), and what a re-sent copy's confirmation says ([`copies`]). The callers
//! decide when a mail is due and queue it; here is only what it says and how it is addressed.

pub mod copies;
pub mod digest;
pub mod issues;
pub mod lists;
pub mod offers;
pub mod passwords;
pub mod postal;
pub mod press;
pub mod replacements;
pub mod replies;
pub mod signups;
pub mod started;
pub mod tells;
pub mod turns;
pub mod verdict;

use sha2::{Digest, Sha256};

/// The local part of Admiralty's addresses: players reply to `orders+TOKEN@domain`.
pub const REPLY_LOCAL_PART: &str = "orders";

/// A player's personal reply address, `orders+TOKEN@domain`: every mail to a player carries it.
pub fn reply_address(token: &str, domain: &str) -> String {
    format!("{REPLY_LOCAL_PART}+{token}@{domain}")
}

/// Where Admiralty's mail points: reply addresses at `domain`, links to the site at `base_url`
/// (no trailing slash).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MailSite<'a> {
    pub domain: &'a str,
    pub base_url: &'a str,
}

/// A mail's subject and plain-text body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Letter {
    pub subject: String,
    pub body: String,
}

/// The idempotency key and Message-ID of a mail queued because of an inbound message, from
/// `seed` (which names that message): the same however often the message is processed.
pub fn queued_ids(kind: &str, seed: &str, domain: &str) -> (String, String) {
    let digest = hex::encode(Sha256::digest(seed.as_bytes()));
    let short = digest.get(..32).unwrap_or(&digest);
    (
        format!("{kind}:{digest}"),
        format!("<{kind}.{short}@{domain}>"),
    )
}

/// When a deadline is, as mails write it: in the game's time zone, with UTC beside it when
/// the zone is another (`Friday 27 November 2026, 18:00 GMT (18:00 UTC)`).
pub fn deadline(at: chrono::DateTime<chrono::Utc>, zone: chrono_tz::Tz) -> String {
    let local = at.with_timezone(&zone);
    let shown = local.format("%A %-d %B %Y, %H:%M %Z").to_string();
    if zone == chrono_tz::Tz::UTC {
        shown
    } else if local.date_naive() == at.date_naive() {
        format!("{shown} ({} UTC)", at.format("%H:%M"))
    } else {
        format!("{shown} ({} UTC)", at.format("%A %-d %B, %H:%M"))
    }
}
