//! The audit log: who did what, when. Append-only, enforced by a trigger in the database.
//!
//! What was done is an [`AuditAction`]: one variant per kind of entry, its details typed. The
//! stored form is the same as ever: the action's dotted name (`zine.create`) in `action`, and
//! its details as a JSON object in `details` (the console shows them as stored, old entries
//! included).

use chrono::{DateTime, NaiveDate, Utc};
use games::EngineKind;
use schedule::{Schedule, ScheduleSettings};
use serde::Serialize;
use serde_json::Value;
use sqlx::PgExecutor;

use crate::StoreError;
use crate::ids::GameId;
use crate::ids::InboundId;
use crate::ids::LetterId;
use crate::ids::OfferId;
use crate::ids::OpeningId;
use crate::ids::OutboundId;
use crate::ids::PlayerRowId;
use crate::ids::PressId;
use crate::ids::SubscriberId;
use crate::ids::TurnId;
use crate::ids::ZineId;
use crate::status::{
    AbsencePolicy, Budget, GameStatus, LetterStatus, MailChoice, NoticeKind, OfferReason, Seating,
    Source, StandbyOffers, SubscriberStatus,
};
use crate::{EmailAddress, ZineSlug};

pub use crate::ids::AuditId;

/// By which door a player acted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Via {
    Mail,
    Web,
}

impl Via {
    pub fn as_str(self) -> &'static str {
        match self {
            Via::Mail => "mail",
            Via::Web => "web",
        }
    }
}

/// What ending or starting a subscription again revoked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Revoked {
    pub web_sessions: u64,
    pub login_links: u64,
    pub reply_tokens: u64,
}

/// Which limit stopped a mail, with what it allows and what went out in the last hour.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Stopped {
    /// The setting, or "never answered" for an address Admiralty never answers.
    pub limit: String,
    pub allowed: Option<u32>,
    pub sent_last_hour: Option<i64>,
}

/// What a GM's action on a game's clock changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum ClockChange {
    /// Nothing but the status (a game with no open turn, an end).
    Status { status_before: GameStatus },
    /// The open turn's deadline moved.
    Deadline {
        turn: i32,
        deadline_before: Option<DateTime<Utc>>,
        deadline: DateTime<Utc>,
    },
    /// The clock stopped with this much time left to the open turn's deadline.
    Paused { turn: i32, time_left_seconds: i64 },
}

/// Everything the audit log records, each with its details.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "action", content = "details")]
pub enum AuditAction {
    #[serde(rename = "demo.seed")]
    DemoSeed {
        /// The demo zine's short name.
        zine: String,
        subscribers: usize,
        game: GameId,
    },
    #[serde(rename = "zine.create")]
    ZineCreate {
        zine: ZineId,
        slug: ZineSlug,
        name: String,
    },
    #[serde(rename = "zine.issue_rhythm")]
    IssueRhythm {
        zine: ZineId,
        before: Option<Schedule>,
        after: Option<Schedule>,
        next_issue_at: Option<DateTime<Utc>>,
    },
    #[serde(rename = "zine.first_issue_gathers")]
    FirstIssueGathers {
        zine: ZineId,
        gathers: crate::status::FirstIssueGathers,
    },
    #[serde(rename = "zine.issue_editorial")]
    IssueEditorial {
        zine: ZineId,
        issue: i32,
        chars: usize,
    },
    #[serde(rename = "zine.issue_publish")]
    IssuePublish {
        zine: ZineId,
        issue: i32,
        reports: usize,
        letters: usize,
        mails: u64,
    },
    #[serde(rename = "zine.letter")]
    Letter {
        zine: ZineId,
        letter: LetterId,
        subscriber: SubscriberId,
        source: Source,
    },
    #[serde(rename = "zine.letter_moderate")]
    LetterModerate {
        zine: ZineId,
        letter: LetterId,
        status: LetterStatus,
    },
    #[serde(rename = "gm.create")]
    GmCreate { name: String },
    #[serde(rename = "gm.login")]
    GmLogin {
        /// The client's address, as `crate::clients` of the server found it (entries written
        /// before it was recorded have none).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        client: Option<String>,
    },
    #[serde(rename = "gm.logout")]
    GmLogout {},
    #[serde(rename = "subscriber.add")]
    SubscriberAdd {
        zine: ZineId,
        subscriber: SubscriberId,
        email: EmailAddress,
    },
    #[serde(rename = "subscriber.edit")]
    SubscriberEdit {
        subscriber: SubscriberId,
        email_before: EmailAddress,
        email: EmailAddress,
        name_before: String,
        name: String,
        revoked: Revoked,
    },
    /// The GM ended a subscription (`subscriber.unsubscribe`, `subscriber.exclude`) or started
    /// it again (`subscriber.resubscribe`): see [`AuditAction::subscription`].
    #[serde(rename = "subscriber.unsubscribe")]
    SubscriberUnsubscribe(SubscriptionChange),
    #[serde(rename = "subscriber.exclude")]
    SubscriberExclude(SubscriptionChange),
    #[serde(rename = "subscriber.resubscribe")]
    SubscriberResubscribe(SubscriptionChange),
    /// A subscriber's UNSUBSCRIBE by mail.
    #[serde(rename = "subscriber.unsubscribe")]
    SubscriberUnsubscribeByMail {
        subscriber: SubscriberId,
        resigned_from: Vec<String>,
        via: Via,
        revoked: Revoked,
    },
    #[serde(rename = "subscriber.import")]
    SubscriberImport {
        zine: ZineId,
        added: usize,
        rejected_rows: usize,
    },
    #[serde(rename = "subscriber.postal")]
    SubscriberPostal {
        subscriber: SubscriberId,
        postal: bool,
    },
    /// The GM posted the postal players' sheets: they have had every report up to the turn.
    #[serde(rename = "postal.sheets_posted")]
    SheetsPosted {
        players: Vec<PlayerRowId>,
        through_turn: i32,
    },
    #[serde(rename = "subscriber.mail_choice")]
    MailChoice {
        subscriber: SubscriberId,
        choice: MailChoice,
    },
    #[serde(rename = "subscriber.password_set")]
    PasswordSet { subscriber: SubscriberId, via: Via },
    #[serde(rename = "subscriber.password_locked")]
    PasswordLocked {
        subscriber: SubscriberId,
        failures: i64,
        window_minutes: i64,
    },
    #[serde(rename = "player.login_link")]
    LoginLink { subscribers: Vec<SubscriberId> },
    #[serde(rename = "player.login_link_refused")]
    LoginLinkRefused {
        subscribers: Vec<SubscriberId>,
        links_last_hour: i64,
    },
    #[serde(rename = "player.login")]
    PlayerLogin {},
    /// A person erased their data: every subscription of their address (which is not
    /// written here), the seats resigned, what was scrubbed.
    #[serde(rename = "subscriber.erase")]
    SubscriberErase {
        subscribers: Vec<SubscriberId>,
        resigned_from: Vec<String>,
        inbound_bodies: u64,
        outbound_messages: u64,
        queued_not_sent: u64,
    },
    #[serde(rename = "standby.on")]
    StandbyOn { subscriber: SubscriberId, via: Via },
    #[serde(rename = "standby.off")]
    StandbyOff { subscriber: SubscriberId, via: Via },
    #[serde(rename = "game.create")]
    GameCreate {
        name: String,
        engine: EngineKind,
        players: usize,
    },
    #[serde(rename = "game.signup_open")]
    SignupOpen {
        opening: OpeningId,
        name: String,
        engine: EngineKind,
        seats: u32,
        seating: Seating,
        zone: String,
    },
    #[serde(rename = "game.schedule")]
    GameSchedule {
        schedule: ScheduleSettings,
        described: String,
        before: ScheduleSettings,
        /// The open turn's new deadline, when the new rule set one.
        open_turn_deadline_set: Option<DateTime<Utc>>,
    },
    #[serde(rename = "game.missed_turns")]
    MissedTurns {
        limit: Option<u32>,
        offers: StandbyOffers,
        offer_days: u32,
    },
    #[serde(rename = "game.absence_policy")]
    AbsencePolicy {
        policy: AbsencePolicy,
        wait_days: u32,
    },
    #[serde(rename = "game.resolve_now")]
    ResolveNow(ClockChange),
    #[serde(rename = "game.extend")]
    Extend(ClockChange),
    #[serde(rename = "game.set_deadline")]
    SetDeadline(ClockChange),
    #[serde(rename = "game.pause")]
    Pause(ClockChange),
    #[serde(rename = "game.resume")]
    Resume(ClockChange),
    #[serde(rename = "game.end")]
    End(ClockChange),
    #[serde(rename = "game.delete")]
    GameDelete { name: String },
    #[serde(rename = "turn.resolve")]
    TurnResolve {
        turn: u32,
        seed: String,
        finished: bool,
        mails: u64,
        joining: usize,
        leaving: usize,
    },
    #[serde(rename = "turn.resolve_failed")]
    TurnResolveFailed {
        turn_id: TurnId,
        error: String,
        failures: i32,
        retry_at: DateTime<Utc>,
    },
    #[serde(rename = "turn.waits_for_absent")]
    WaitsForAbsent {
        turn_id: TurnId,
        deadline: DateTime<Utc>,
        new_deadline: DateTime<Utc>,
        first_deadline: DateTime<Utc>,
        /// The absent players' engine ids.
        players: Vec<i64>,
    },
    #[serde(rename = "orders.standing")]
    OrdersStanding {
        turn_id: TurnId,
        /// The absent player's engine id.
        player: i64,
    },
    #[serde(rename = "orders.post")]
    OrdersPost {
        player: PlayerRowId,
        name: String,
        received_on: NaiveDate,
        entered_by: String,
    },
    #[serde(rename = "press.post")]
    PressPost {
        player: PlayerRowId,
        name: String,
        received_on: NaiveDate,
        entered_by: String,
        printed: bool,
    },
    #[serde(rename = "press.withdraw")]
    PressWithdraw { player: PlayerRowId, entries: u64 },
    /// The GM struck a press entry of the open turn: it is not printed.
    #[serde(rename = "press.strike")]
    PressStrike {
        press: PressId,
        player: PlayerRowId,
        turn_id: TurnId,
        text: String,
        reason: String,
    },
    /// A GM changed their address or the digest's kinds.
    #[serde(rename = "gm.digest")]
    GmDigest {
        email: Option<String>,
        off: Vec<NoticeKind>,
    },
    /// A GM's digest was queued, with how many notices it mails and how many it passed over.
    #[serde(rename = "gm.digest_sent")]
    GmDigestSent { mailed: usize, passed_over: usize },
    #[serde(rename = "player.resign")]
    Resign { player: PlayerRowId, via: Via },
    #[serde(rename = "player.reinstate")]
    Reinstate {
        player: PlayerRowId,
        offers_lapsed: usize,
    },
    #[serde(rename = "player.replace")]
    Replace {
        player: PlayerRowId,
        engine_player_id: i64,
        old_name: String,
        new_subscriber: SubscriberId,
        new_name: String,
        from_turn: u32,
    },
    #[serde(rename = "player.missed_limit")]
    MissedLimit {
        player: PlayerRowId,
        missed: i32,
        limit: u32,
        turn: u32,
    },
    #[serde(rename = "seat.offer")]
    SeatOffer {
        offer: OfferId,
        player: PlayerRowId,
        subscriber: SubscriberId,
        reason: OfferReason,
    },
    #[serde(rename = "seat.accept")]
    SeatAccept {
        offer: OfferId,
        player: PlayerRowId,
        via: Via,
    },
    #[serde(rename = "seat.decline")]
    SeatDecline {
        offer: OfferId,
        player: PlayerRowId,
        via: Via,
    },
    #[serde(rename = "seat.withdraw")]
    SeatWithdraw { offer: OfferId, player: PlayerRowId },
    #[serde(rename = "seat.offer_expired")]
    SeatOfferExpired {
        offer: OfferId,
        player: PlayerRowId,
        subscriber: SubscriberId,
    },
    #[serde(rename = "seat.no_time")]
    SeatNoTime {
        player: PlayerRowId,
        reason: OfferReason,
    },
    #[serde(rename = "seat.no_standby")]
    SeatNoStandby {
        player: PlayerRowId,
        reason: OfferReason,
    },
    /// A bounce to a signed return path, scored (or not: once a day) against a mailbox.
    #[serde(rename = "mail.bounce")]
    Bounce {
        message_id: Option<String>,
        mailbox: String,
        status: Option<String>,
        hard: bool,
        scored: bool,
        score: f64,
    },
    /// Delivery to a subscriber's address suspended: its bounce score reached the threshold.
    #[serde(rename = "subscriber.bounce_suspend")]
    BounceSuspend {
        subscriber: SubscriberId,
        email: EmailAddress,
        score: f64,
        reason: String,
    },
    /// Delivery to a subscriber's address resumed, its score reset (GM or player).
    #[serde(rename = "subscriber.bounce_resume")]
    BounceResume {
        subscriber: SubscriberId,
        email: EmailAddress,
        via: Via,
    },
    /// An ARF complaint about our mail: the subscriber is unsubscribed (its own entry).
    #[serde(rename = "mail.complaint")]
    Complaint {
        message_id: Option<String>,
        subscriber: SubscriberId,
        feedback_type: String,
    },
    #[serde(rename = "inbound.drop")]
    InboundDrop {
        message_id: Option<String>,
        reason: String,
    },
    /// Acted on, but not answered: its From domain disowns it (DMARC), so the answer could
    /// reach whoever was forged.
    #[serde(rename = "inbound.unanswered")]
    InboundUnanswered {
        message_id: Option<String>,
        reason: String,
    },
    #[serde(rename = "inbound.copy")]
    InboundCopy {
        message_id: Option<String>,
        copy_of: InboundId,
        subscriber: SubscriberId,
    },
    #[serde(rename = "inbound.reply_suppressed")]
    ReplySuppressed {
        /// The Message-ID of the message answered.
        message_id: String,
        to: String,
        mailbox: Option<String>,
        kind: Budget,
        #[serde(flatten)]
        stopped: Stopped,
    },
    /// A TELL the sender's budget stopped before its recipient was looked up.
    #[serde(rename = "tell.suppressed")]
    TellSuppressed {
        from_player: PlayerRowId,
        to: String,
        #[serde(flatten)]
        stopped: Stopped,
    },
    /// A relayed TELL over the sender's or the recipient's hourly budget.
    #[serde(rename = "tell.suppressed")]
    TellOverBudget {
        from_player: PlayerRowId,
        to_player: PlayerRowId,
        #[serde(flatten)]
        stopped: Stopped,
    },
    /// A TELL longer than the limit.
    #[serde(rename = "tell.suppressed")]
    TellTooLong {
        from_player: PlayerRowId,
        to: String,
        limit: &'static str,
        allowed: u32,
        characters: usize,
    },
    #[serde(rename = "inbox.retry")]
    InboxRetry { inbound: InboundId },
    #[serde(rename = "inbox.retry")]
    InboxRetryAll { requeued: u64 },
    #[serde(rename = "outbox.resend")]
    OutboxResend { outbound: OutboundId },
}

/// What the GM's change of a subscription records.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SubscriptionChange {
    pub subscriber: SubscriberId,
    pub email: EmailAddress,
    pub status_before: SubscriberStatus,
    pub revoked: Revoked,
    pub left_games: Vec<GameId>,
}

impl AuditAction {
    /// The GM's change of a subscription to `status`.
    pub fn subscription(status: SubscriberStatus, change: SubscriptionChange) -> AuditAction {
        match status {
            SubscriberStatus::Active => AuditAction::SubscriberResubscribe(change),
            SubscriberStatus::Unsubscribed => AuditAction::SubscriberUnsubscribe(change),
            SubscriberStatus::Excluded => AuditAction::SubscriberExclude(change),
        }
    }

    /// The stored form: the action's name and its details (a JSON object).
    fn stored(&self) -> Result<(String, Value), StoreError> {
        let invalid = |reason: String| StoreError::invalid_row("audit_log.details", reason);
        let Value::Object(mut entry) =
            serde_json::to_value(self).map_err(|e| invalid(e.to_string()))?
        else {
            return Err(invalid("an action serialises to an object".into()));
        };
        let Some(Value::String(name)) = entry.remove("action") else {
            return Err(invalid("an action has a name".into()));
        };
        let details = match entry.remove("details") {
            Some(details @ Value::Object(_)) => details,
            None => Value::Object(serde_json::Map::new()),
            Some(other) => {
                return Err(invalid(format!(
                    "{name}: details are not an object: {other}"
                )));
            }
        };
        Ok((name, details))
    }

    /// The action's name as stored (`zine.create`).
    pub fn name(&self) -> Result<String, StoreError> {
        Ok(self.stored()?.0)
    }
}

/// An entry to append: who did it, the game it concerns (if any), and what.
#[derive(Debug, Clone, PartialEq)]
pub struct NewAuditEntry<'a> {
    pub actor: &'a str,
    pub game: Option<GameId>,
    pub action: AuditAction,
}

/// An entry as stored.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditEntry {
    pub id: AuditId,
    pub at: DateTime<Utc>,
    pub actor: String,
    pub action: String,
    pub game_id: Option<GameId>,
    pub details: Value,
}

/// Appends an entry. Write it in the same transaction as the change it records.
pub async fn append<'e>(
    db: impl PgExecutor<'e>,
    entry: &NewAuditEntry<'_>,
    at: DateTime<Utc>,
) -> Result<AuditId, StoreError> {
    let (action, details) = entry.action.stored()?;
    Ok(sqlx::query_scalar!(
        r#"INSERT INTO audit_log (at, actor, action, game_id, details) VALUES ($1, $2, $3, $4, $5)
           RETURNING id AS "id: AuditId""#,
        at,
        entry.actor,
        action,
        entry.game as Option<GameId>,
        details,
    )
    .fetch_one(db)
    .await?)
}

/// The newest entries, newest first.
pub async fn list_recent<'e>(
    db: impl PgExecutor<'e>,
    limit: i64,
) -> Result<Vec<AuditEntry>, StoreError> {
    Ok(sqlx::query_as!(
        AuditEntry,
        r#"SELECT id AS "id: AuditId", at, actor, action, game_id AS "game_id: GameId", details
           FROM audit_log ORDER BY id DESC LIMIT $1"#,
        limit.max(0),
    )
    .fetch_all(db)
    .await?)
}

/// Which entries a page of the log shows: each filter that is set must match.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuditFilter {
    pub game_id: Option<GameId>,
    /// The actor exactly (`gm:nelson`, `system`, `subscriber:4`).
    pub actor: Option<String>,
    /// The action exactly (`game.end`), or a prefix ending with a dot (`game.`).
    pub action: Option<String>,
}

/// An entry as the console lists it, with its game's name.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditListed {
    pub entry: AuditEntry,
    pub game_name: Option<String>,
}

/// One page of the log, newest first: entries older than `before` (all when `None`) that
/// match `filter`.
pub async fn list_page<'e>(
    db: impl PgExecutor<'e>,
    before: Option<AuditId>,
    filter: &AuditFilter,
    limit: i64,
) -> Result<Vec<AuditListed>, StoreError> {
    let rows = sqlx::query!(
        r#"SELECT a.id AS "id: AuditId", a.at, a.actor, a.action, a.game_id AS "game_id: GameId",
                  a.details, g.name AS "game_name?"
           FROM audit_log a LEFT JOIN games g ON g.id = a.game_id AND g.deleted_at IS NULL
           WHERE ($1::bigint IS NULL OR a.id < $1) AND ($3::bigint IS NULL OR a.game_id = $3)
           AND ($4::text IS NULL OR a.actor = $4)
           AND ($5::text IS NULL OR a.action = $5 OR (right($5, 1) = '.' AND starts_with(a.action, $5)))
           ORDER BY a.id DESC LIMIT $2"#,
        before as Option<AuditId>,
        limit.max(0),
        filter.game_id as Option<GameId>,
        filter.actor.as_deref(),
        filter.action.as_deref(),
    )
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(|row| AuditListed {
            entry: AuditEntry {
                id: row.id,
                at: row.at,
                actor: row.actor,
                action: row.action,
                game_id: row.game_id,
                details: row.details,
            },
            game_name: row.game_name,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_action_is_stored_as_its_name_and_details_as_before() {
        let (name, details) = AuditAction::GmLogin { client: None }.stored().unwrap();
        assert_eq!(
            (name.as_str(), details),
            ("gm.login", serde_json::json!({}))
        );
        let (name, details) = AuditAction::Resign {
            player: "7".parse().unwrap(),
            via: Via::Web,
        }
        .stored()
        .unwrap();
        assert_eq!(name, "player.resign");
        assert_eq!(details, serde_json::json!({ "player": 7, "via": "web" }));
        let (name, details) = AuditAction::Pause(ClockChange::Paused {
            turn: 3,
            time_left_seconds: 60,
        })
        .stored()
        .unwrap();
        assert_eq!(name, "game.pause");
        assert_eq!(
            details,
            serde_json::json!({ "turn": 3, "time_left_seconds": 60 })
        );
        let (name, details) = AuditAction::TellSuppressed {
            from_player: "2".parse().unwrap(),
            to: "Bob".into(),
            stopped: Stopped {
                limit: "ADMIRALTY_TELLS_PER_HOUR".into(),
                allowed: Some(5),
                sent_last_hour: Some(5),
            },
        }
        .stored()
        .unwrap();
        assert_eq!(name, "tell.suppressed");
        assert_eq!(
            details,
            serde_json::json!({ "from_player": 2, "to": "Bob", "limit": "ADMIRALTY_TELLS_PER_HOUR",
                                "allowed": 5, "sent_last_hour": 5 })
        );
    }
}
