//! The status columns, as enums. The database keeps them as `text` with a `CHECK` of the same
//! values; these types are the only way the service reads or writes them, so a status is never
//! a string compared in several places.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;
use sqlx::encode::IsNull;
use sqlx::error::BoxDynError;
use sqlx::postgres::{PgArgumentBuffer, PgTypeInfo, PgValueRef};
use sqlx::{Decode, Encode, Postgres, Type};

/// A status that is not one of its column's values.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {column} {value:?}")]
pub struct UnknownStatus {
    pub column: &'static str,
    pub value: String,
}

/// An enum stored as its lower-case name in a `text` column.
macro_rules! status {
    (
        $(#[$meta:meta])*
        $name:ident, $column:literal {
            $( $(#[$variant_meta:meta])* $variant:ident = $text:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
        #[serde(rename_all = "lowercase")]
        pub enum $name {
            $( $(#[$variant_meta])* $variant ),+
        }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }
        }

        impl FromStr for $name {
            type Err = UnknownStatus;
            fn from_str(text: &str) -> Result<Self, Self::Err> {
                match text {
                    $($text => Ok($name::$variant),)+
                    other => Err(UnknownStatus { column: $column, value: other.to_owned() }),
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl Type<Postgres> for $name {
            fn type_info() -> PgTypeInfo {
                <&str as Type<Postgres>>::type_info()
            }
            fn compatible(ty: &PgTypeInfo) -> bool {
                <&str as Type<Postgres>>::compatible(ty)
            }
        }

        impl sqlx::postgres::PgHasArrayType for $name {
            fn array_type_info() -> PgTypeInfo {
                <&str as sqlx::postgres::PgHasArrayType>::array_type_info()
            }
        }

        impl Encode<'_, Postgres> for $name {
            fn encode_by_ref(&self, buf: &mut PgArgumentBuffer) -> Result<IsNull, BoxDynError> {
                <&str as Encode<Postgres>>::encode(self.as_str(), buf)
            }
        }

        impl<'r> Decode<'r, Postgres> for $name {
            fn decode(value: PgValueRef<'r>) -> Result<Self, BoxDynError> {
                Ok(<&str as Decode<Postgres>>::decode(value)?.parse()?)
            }
        }
    };
}

status! {
    /// `subscribers.status`.
    SubscriberStatus, "subscriber status" {
        Active = "active",
        Unsubscribed = "unsubscribed",
        /// Removed by the editor; cannot resubscribe by themselves.
        Excluded = "excluded",
    }
}

status! {
    /// `games.status`.
    GameStatus, "game status" {
        /// Made, not started (no game is left here today: a game starts when it is made).
        Setup = "setup",
        Running = "running",
        /// The GM stopped the clock: nothing resolves, orders are still taken.
        Paused = "paused",
        Finished = "finished",
    }
}

impl GameStatus {
    /// Whether players may still send orders, press and messages.
    pub fn takes_orders(self) -> bool {
        matches!(self, GameStatus::Running | GameStatus::Paused)
    }
}

status! {
    /// `players.status`.
    PlayerStatus, "player status" {
        Active = "active",
        Resigned = "resigned",
        Excluded = "excluded",
    }
}

status! {
    /// `turns.status`.
    TurnStatus, "turn status" {
        /// Taking orders.
        Open = "open",
        /// Abandoned when the GM ended the game.
        Locked = "locked",
        Resolved = "resolved",
        Published = "published",
    }
}

status! {
    /// `inbound_messages.status`.
    InboundStatus, "inbound message status" {
        /// Stored, not processed yet.
        New = "new",
        Processed = "processed",
        /// Processing failed; the error is kept and `gm inbox retry` runs it again.
        Failed = "failed",
        /// Not acted on (automated, unreadable): the reason is kept.
        Dropped = "dropped",
    }
}

status! {
    /// `inbound_messages.auth_spf`: SPF's result for the message (RFC 7208 section 2.6).
    SpfVerdict, "spf result" {
        Pass = "pass",
        Fail = "fail",
        SoftFail = "softfail",
        Neutral = "neutral",
        None = "none",
        TempError = "temperror",
        PermError = "permerror",
    }
}

status! {
    /// `inbound_messages.auth_dkim`: the best of the message's DKIM signatures (RFC 6376),
    /// `none` without one.
    DkimVerdict, "dkim result" {
        Pass = "pass",
        Fail = "fail",
        Neutral = "neutral",
        None = "none",
        TempError = "temperror",
        PermError = "permerror",
    }
}

status! {
    /// `inbound_messages.auth_dmarc`: DMARC's result for the From domain (RFC 7489).
    DmarcVerdict, "dmarc result" {
        Pass = "pass",
        Fail = "fail",
        None = "none",
        TempError = "temperror",
        PermError = "permerror",
    }
}

status! {
    /// `inbound_messages.auth_dmarc_policy`: what the From domain asks for mail that fails.
    DmarcPolicy, "dmarc policy" {
        None = "none",
        Quarantine = "quarantine",
        Reject = "reject",
    }
}

status! {
    /// `outbound_messages.status`.
    OutboundStatus, "outbound message status" {
        Queued = "queued",
        Sent = "sent",
        Failed = "failed",
    }
}

status! {
    /// `outbound_messages.budget`: the hourly limit a mail counts against (issue 17).
    Budget, "budget" {
        /// A confirmation: the answer to an authenticated message.
        Reply = "reply",
        /// The answer to a message that proved no sender.
        Refusal = "refusal",
        /// A private message relayed by TELL.
        Tell = "tell",
    }
}

status! {
    /// `openings.status`: a game open for sign-up.
    OpeningStatus, "opening status" {
        Open = "open",
        /// The game was made: `openings.game_id`.
        Started = "started",
        Cancelled = "cancelled",
    }
}

status! {
    /// `openings.seating`: how the seats of a game filled by sign-up are given.
    Seating, "seating" {
        /// In order of sign-up, round the seats.
        Order = "order",
        /// In an order drawn with the committed seating seed.
        Random = "random",
        /// By the GM, when starting the game.
        Gm = "gm",
    }
}

status! {
    /// How orders or press reached Admiralty (`orders.source`, `press.source`).
    Source, "source" {
        Email = "email",
        Web = "web",
        /// Entered by the GM: received on paper or by phone (issue 18's postal players).
        Post = "post",
        /// An absent player's last orders, standing for a turn (the game's absence policy).
        Standing = "standing",
    }
}

status! {
    /// What a game does on a turn an absent player misses (`games.absence_policy`).
    AbsencePolicy, "absence_policy" {
        /// The deadline waits for the absent player, up to the game's limit.
        Wait = "wait",
        /// The absent player's last orders stand.
        Standing = "standing",
        /// The engine's no-orders rule applies, without a missed-turn penalty.
        NoPenalty = "no_penalty",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_reads_back_its_own_name() {
        for status in GameStatus::ALL {
            assert_eq!(status.as_str().parse::<GameStatus>(), Ok(*status));
        }
        for status in OutboundStatus::ALL {
            assert_eq!(status.to_string().parse::<OutboundStatus>(), Ok(*status));
        }
        assert_eq!(
            "Running".parse::<GameStatus>(),
            Err(UnknownStatus {
                column: "game status",
                value: "Running".into()
            })
        );
    }
}

status! {
    /// A zine issue: being put together, or out (and never changed again).
    IssueStatus, "issue status" {
        Draft = "draft",
        Published = "published",
    }
}

status! {
    /// A letter to the editor: waiting for the GM, printed when approved, or turned down.
    LetterStatus, "letter status" {
        Pending = "pending",
        Approved = "approved",
        Rejected = "rejected",
    }
}

status! {
    /// What a zine's first issue gathers (`zines.first_issue_gathers`): every report published
    /// since the zine began, or only those since issues were turned on.
    FirstIssueGathers, "first issue gathers" {
        SinceZineBegan = "since_zine_began",
        SinceIssuesBegan = "since_issues_began",
    }
}

status! {
    /// What a subscriber chose to receive by mail: the zine's issue, or each game's report.
    MailChoice, "mail choice" {
        Issue = "issue",
        Reports = "reports",
    }
}

status! {
    /// Who offers a seat to a standby (`games.standby_offers`).
    StandbyOffers, "standby offers" {
        /// The GM, from the game's console page.
        Gm = "gm",
        /// Admiralty, to the longest-waiting standby, and the next one on a decline.
        Automatic = "automatic",
    }
}

status! {
    /// Why a seat was offered (`seat_offers.reason`).
    OfferReason, "offer reason" {
        /// Its player missed the game's limit of turns in a row.
        Missed = "missed",
        /// Its player resigned.
        Resigned = "resigned",
        /// The GM chose to.
        Gm = "gm",
    }
}

status! {
    /// Where an offer of a seat stands (`seat_offers.status`).
    OfferStatus, "offer status" {
        Open = "open",
        Accepted = "accepted",
        Declined = "declined",
        /// Taken back by the GM.
        Withdrawn = "withdrawn",
        /// Overtaken: the seat was filled, its player came back, or the game ended.
        Lapsed = "lapsed",
        /// Not answered in time.
        Expired = "expired",
    }
}

status! {
    /// What a notice for the GM is about (`gm_notices.kind`); each kind the GM can switch off
    /// in the digest.
    NoticeKind, "notice kind" {
        /// A game's sign-up filled: it started, or waits for the GM to seat the players.
        SignupFilled = "signup_filled",
        /// A seat wants a player: its player resigned or reached the missed-turns limit.
        SeatWanted = "seat_wanted",
        /// A standby accepted an offer and took a seat.
        StandbySeated = "standby_seated",
        /// A letter to the editor waits for the GM.
        LetterWaiting = "letter_waiting",
        /// A mail could not be delivered, for good.
        MailFailed = "mail_failed",
        /// A due turn could not be resolved.
        TurnFailed = "turn_failed",
        /// A subscriber erased their data (their seats were resigned).
        SubscriberErased = "subscriber_erased",
    }
}

impl NoticeKind {
    /// The kind's heading in the digest and on the settings page.
    pub fn heading(self) -> &'static str {
        match self {
            NoticeKind::SignupFilled => "Sign-ups that filled",
            NoticeKind::SeatWanted => "Resignations and seats that want a player",
            NoticeKind::StandbySeated => "Standbys who took a seat",
            NoticeKind::LetterWaiting => "Letters to the editor waiting",
            NoticeKind::MailFailed => "Mail that could not be delivered",
            NoticeKind::TurnFailed => "Turns that could not be resolved",
            NoticeKind::SubscriberErased => "Subscribers who erased their data",
        }
    }
}
