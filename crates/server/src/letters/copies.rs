//! What the confirmation of a re-sent copy says (docs/mail.md, "The same message"): a message
//! with the same text as one the player sent earlier in the same turn is carried out again,
//! except what would be done twice.

use chrono::{DateTime, Utc};

use super::deadline;

/// The confirmation's paragraph saying the message is a copy of the one that arrived `earlier`.
pub fn copy_note(earlier: DateTime<Utc>) -> String {
    format!(
        "This message is the same as the one of yours that arrived {} (the same text, in the \
         same turn). Its orders are taken again, but its press and private messages were sent \
         with that one and are not sent twice.",
        deadline(earlier, chrono_tz::Tz::UTC)
    )
}

/// The line of the confirmation for a PRESS or TELL line of a copy.
pub fn not_again(line: usize, earlier: DateTime<Utc>) -> String {
    format!(
        "Line {line}: not sent again: it was sent with your message that arrived {}.",
        deadline(earlier, chrono_tz::Tz::UTC)
    )
}
