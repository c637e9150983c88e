//! The GM's digest (issue 27 item 8, docs/web-console.md): what needs the GM since the last
//! one, by kind, each line with the console page where the GM acts.

use chrono::{DateTime, Utc};
use store::notices::Notice;
use store::status::NoticeKind;

use super::{Letter, MailSite};

/// The kind of letter a digest is, in its idempotency key and Message-ID.
pub const KIND: &str = "gm-digest";

/// Whether a queued message is a GM's digest, by its Message-ID (a digest that cannot be
/// delivered is not told in the next digest, which would go to the same address).
pub fn is_digest(message_id: &str) -> bool {
    message_id
        .strip_prefix('<')
        .and_then(|rest| rest.strip_prefix(KIND))
        .is_some_and(|rest| rest.starts_with('.'))
}

/// The digest of `notices` (oldest first, kinds switched off left out by the caller) for the GM
/// `name`, links on `site`.
pub fn digest(name: &str, notices: &[Notice], site: MailSite<'_>) -> Letter {
    let count = notices.len();
    let subject = if count == 1 {
        "Admiralty: 1 thing needs the GM".to_owned()
    } else {
        format!("Admiralty: {count} things need the GM")
    };
    let mut body = format!("Hello {name},\n\nSince the last digest:\n");
    for kind in NoticeKind::ALL {
        let of_kind: Vec<&Notice> = notices.iter().filter(|n| n.kind == *kind).collect();
        if of_kind.is_empty() {
            continue;
        }
        body.push_str(&format!("\n{} ({})\n", kind.heading(), of_kind.len()));
        for notice in of_kind {
            body.push_str(&format!(
                "- {} ({})\n  {}{}\n",
                notice.summary,
                when(notice.at),
                site.base_url,
                notice.link
            ));
        }
    }
    body.push_str(&format!(
        "\nAt most one digest an hour. To choose what it tells you, or to stop it:\n{}/gm/settings\n",
        site.base_url
    ));
    Letter { subject, body }
}

fn when(at: DateTime<Utc>) -> String {
    at.format("%a %-d %b, %H:%M UTC").to_string()
}
