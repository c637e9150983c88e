//! Row ids. Each table's id is its own type, so a game's id cannot be passed where a turn's is
//! wanted. The number inside is the database's: an id is read from a row, or parsed from text
//! (a URL, a form, a command line) with `FromStr`, and shown with `Display`; nothing outside
//! the store takes it apart.

/// A table's id: `bigint` in the database, a positive number in text (digits only: no sign, no
/// spaces).
macro_rules! row_id {
    ($(#[$meta:meta])* $name:ident, $what:literal) => {
        $(#[$meta])*
        #[derive(
            Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord,
            serde::Serialize, serde::Deserialize, sqlx::Type,
        )]
        #[sqlx(transparent)]
        #[serde(transparent)]
        pub struct $name(i64);

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }

        impl std::str::FromStr for $name {
            type Err = IdError;
            fn from_str(text: &str) -> Result<Self, Self::Err> {
                let digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
                match text.parse::<i64>() {
                    Ok(id) if digits && id > 0 => Ok($name(id)),
                    _ => Err(IdError { what: $what, text: text.to_owned() }),
                }
            }
        }
    };
}

row_id!(AuditId, "audit entry");
row_id!(ConversationId, "TELL conversation");
row_id!(GameId, "game");
row_id!(GmAccountId, "GM account");
row_id!(InboundId, "inbound message");
row_id!(IssueId, "issue");
row_id!(LetterId, "letter");
row_id!(OfferId, "offer");
row_id!(OpeningId, "opening");
row_id!(NoticeId, "notice");
row_id!(OutboundId, "outbound message");
row_id!(PlayerRowId, "player");
row_id!(PressId, "press entry");
row_id!(SharedBodyId, "shared body");
row_id!(SubscriberId, "subscriber");
row_id!(TurnId, "turn");
row_id!(ZineId, "zine");

/// Text that is not an id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{text:?} is not a {what} number")]
pub struct IdError {
    pub what: &'static str,
    pub text: String,
}
