//! The zine's issues: the rhythm, the draft being put together, what it will print (reports
//! published since the last issue, approved letters), and the published issues (frozen).
//! Letters to the editor and what each subscriber chose to receive by mail live here too.

use chrono::{DateTime, Utc};
use games::EngineKind;
use schedule::Schedule;
use sqlx::PgExecutor;
use sqlx::types::Json;

use crate::StoreError;
use crate::games::{GameId, engine_of};
use crate::ids::SubscriberId;
use crate::ids::TurnId;
use crate::ids::ZineId;
use crate::status::{
    FirstIssueGathers, IssueStatus, LetterStatus, MailChoice, Source, SubscriberStatus, TurnStatus,
};

pub use crate::ids::IssueId;
pub use crate::ids::LetterId;

/// Whether and when a zine publishes issues.
#[derive(Debug, Clone, PartialEq)]
pub struct IssueSettings {
    pub zine_id: ZineId,
    /// The rhythm; `None`: no issues, per-game reports.
    pub issue_rhythm: Option<Schedule>,
    pub issues_since: Option<DateTime<Utc>>,
    pub next_issue_at: Option<DateTime<Utc>>,
    /// What the first issue gathers.
    pub first_issue_gathers: FirstIssueGathers,
}

/// [`IssueSettings`]: the query with the given condition, its parameters from `$1` on.
macro_rules! issue_settings {
    ($condition:literal, $($param:expr),+ $(,)?) => {
        sqlx::query!(
            r#"SELECT id AS "zine_id: ZineId", issue_rhythm AS "issue_rhythm: Json<Schedule>",
                      issues_since, next_issue_at,
                      first_issue_gathers AS "first_issue_gathers: FirstIssueGathers" FROM zines "#
                + $condition,
            $($param),+
        )
        .map(|row| IssueSettings {
            zine_id: row.zine_id,
            issue_rhythm: row.issue_rhythm.map(|rhythm| rhythm.0),
            issues_since: row.issues_since,
            next_issue_at: row.next_issue_at,
            first_issue_gathers: row.first_issue_gathers,
        })
    };
}

pub async fn settings<'e>(
    db: impl PgExecutor<'e>,
    zine: ZineId,
) -> Result<Option<IssueSettings>, StoreError> {
    Ok(issue_settings!("WHERE id = $1", zine as ZineId)
        .fetch_optional(db)
        .await?)
}

/// The zine's settings, its row locked until the transaction ends: one publication at a time.
pub async fn lock_zine(
    tx: &mut sqlx::PgConnection,
    zine: ZineId,
) -> Result<Option<IssueSettings>, StoreError> {
    Ok(issue_settings!("WHERE id = $1 FOR UPDATE", zine as ZineId)
        .fetch_optional(&mut *tx)
        .await?)
}

/// A zine whose rhythm says an issue is due at `now`, locked; another process skips it.
pub async fn claim_due_zine(
    tx: &mut sqlx::PgConnection,
    now: DateTime<Utc>,
) -> Result<Option<IssueSettings>, StoreError> {
    Ok(issue_settings!(
        "WHERE next_issue_at <= $1 AND issue_rhythm IS NOT NULL
         ORDER BY next_issue_at, id LIMIT 1 FOR UPDATE SKIP LOCKED",
        now,
    )
    .fetch_optional(&mut *tx)
    .await?)
}

/// Sets (or, with `None`, ends) the zine's issues. Reports count from the first time issues
/// were turned on; turning them off forgets that.
pub async fn set_rhythm<'e>(
    db: impl PgExecutor<'e>,
    zine: ZineId,
    rhythm: Option<Schedule>,
    next_issue_at: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    sqlx::query!(
        "UPDATE zines SET issue_rhythm = $2,
         issues_since = CASE WHEN $2::jsonb IS NULL THEN NULL ELSE coalesce(issues_since, $4) END,
         next_issue_at = $3 WHERE id = $1",
        zine as ZineId,
        rhythm.map(Json) as _,
        next_issue_at,
        now,
    )
    .execute(db)
    .await?;
    Ok(())
}

/// Sets what the zine's first issue gathers; false if it gathered that already.
pub async fn set_first_issue_gathers<'e>(
    db: impl PgExecutor<'e>,
    zine: ZineId,
    gathers: FirstIssueGathers,
) -> Result<bool, StoreError> {
    let done = sqlx::query!(
        "UPDATE zines SET first_issue_gathers = $2 WHERE id = $1 AND first_issue_gathers <> $2",
        zine as ZineId,
        gathers as FirstIssueGathers,
    )
    .execute(db)
    .await?;
    Ok(done.rows_affected() == 1)
}

pub async fn set_next_issue_at<'e>(
    db: impl PgExecutor<'e>,
    zine: ZineId,
    at: Option<DateTime<Utc>>,
) -> Result<(), StoreError> {
    sqlx::query!(
        "UPDATE zines SET next_issue_at = $2 WHERE id = $1",
        zine as ZineId,
        at,
    )
    .execute(db)
    .await?;
    Ok(())
}

/// An issue as stored: a draft has no text or HTML yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issue {
    pub id: IssueId,
    pub zine_id: ZineId,
    pub number: i32,
    pub status: IssueStatus,
    pub editorial: String,
    pub text: Option<String>,
    pub html: Option<String>,
    pub published_at: Option<DateTime<Utc>>,
}

/// [`Issue`]s: the query with the given condition, its parameters from `$1` on.
macro_rules! issues {
    ($condition:literal, $($param:expr),+ $(,)?) => {
        sqlx::query_as!(
            Issue,
            r#"SELECT id AS "id: IssueId", zine_id AS "zine_id: ZineId", number,
                      status AS "status: IssueStatus", editorial, text, html, published_at
               FROM zine_issues "#
                + $condition,
            $($param),+
        )
    };
}

/// The zine's draft, made (numbered after the last issue) if there is none.
pub async fn draft(
    tx: &mut sqlx::PgConnection,
    zine: ZineId,
    now: DateTime<Utc>,
) -> Result<Issue, StoreError> {
    sqlx::query!(
        "INSERT INTO zine_issues (zine_id, number, created_at, status)
         SELECT $1, coalesce(max(number), 0) + 1, $2, $3 FROM zine_issues WHERE zine_id = $1
         ON CONFLICT DO NOTHING",
        zine as ZineId,
        now,
        IssueStatus::Draft as IssueStatus,
    )
    .execute(&mut *tx)
    .await?;
    Ok(issues!(
        "WHERE zine_id = $1 AND status = $2",
        zine as ZineId,
        IssueStatus::Draft as IssueStatus,
    )
    .fetch_one(&mut *tx)
    .await?)
}

/// The zine's draft, if it has one.
pub async fn current_draft<'e>(
    db: impl PgExecutor<'e>,
    zine: ZineId,
) -> Result<Option<Issue>, StoreError> {
    Ok(issues!(
        "WHERE zine_id = $1 AND status = $2",
        zine as ZineId,
        IssueStatus::Draft as IssueStatus,
    )
    .fetch_optional(db)
    .await?)
}

/// The zine's issue `number`, draft or published.
pub async fn by_number<'e>(
    db: impl PgExecutor<'e>,
    zine: ZineId,
    number: i32,
) -> Result<Option<Issue>, StoreError> {
    Ok(
        issues!("WHERE zine_id = $1 AND number = $2", zine as ZineId, number)
            .fetch_optional(db)
            .await?,
    )
}

/// The zine's published issues, newest first.
pub async fn published<'e>(
    db: impl PgExecutor<'e>,
    zine: ZineId,
) -> Result<Vec<Issue>, StoreError> {
    Ok(issues!(
        "WHERE zine_id = $1 AND status = $2 ORDER BY number DESC",
        zine as ZineId,
        IssueStatus::Published as IssueStatus,
    )
    .fetch_all(db)
    .await?)
}

pub async fn set_editorial<'e>(
    db: impl PgExecutor<'e>,
    issue: IssueId,
    editorial: &str,
) -> Result<(), StoreError> {
    sqlx::query!(
        "UPDATE zine_issues SET editorial = $2 WHERE id = $1 AND status = $3",
        issue as IssueId,
        editorial,
        IssueStatus::Draft as IssueStatus,
    )
    .execute(db)
    .await?;
    Ok(())
}

/// Freezes the draft's contents and publishes it, with the reports and letters it printed.
pub async fn publish(
    tx: &mut sqlx::PgConnection,
    issue: IssueId,
    text: &str,
    html: &str,
    reports: &[TurnId],
    letters: &[LetterId],
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    sqlx::query!(
        "UPDATE zine_issues SET status = $5, text = $2, html = $3, published_at = $4
         WHERE id = $1 AND status = $6",
        issue as IssueId,
        text,
        html,
        now,
        IssueStatus::Published as IssueStatus,
        IssueStatus::Draft as IssueStatus,
    )
    .execute(&mut *tx)
    .await?;
    sqlx::query!(
        "INSERT INTO zine_issue_reports (turn_id, issue_id) SELECT unnest($2::bigint[]), $1",
        issue as IssueId,
        reports as &[TurnId],
    )
    .execute(&mut *tx)
    .await?;
    sqlx::query!(
        "UPDATE zine_letters SET issue_id = $1 WHERE id = ANY($2)",
        issue as IssueId,
        letters as &[LetterId],
    )
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// A published report not yet printed in an issue: the public text and HTML as the turn's page
/// shows them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnprintedReport {
    pub turn_id: TurnId,
    pub game_id: GameId,
    pub game_name: String,
    pub engine: EngineKind,
    pub number: i32,
    pub text: String,
    pub html: String,
    pub revealed_seed: Option<String>,
    pub published_at: DateTime<Utc>,
}

/// The reports of the zine's games in no issue yet, by game (oldest game first), then turn:
/// those published since issues began, and, until the zine's first issue is out and if the
/// GM chose so, every earlier one too (the first issue gathers since the zine began).
pub async fn unprinted_reports<'e>(
    db: impl PgExecutor<'e>,
    zine: ZineId,
) -> Result<Vec<UnprintedReport>, StoreError> {
    let rows = sqlx::query!(
        r#"SELECT t.id AS "turn_id: TurnId", g.id AS "game_id: GameId", g.name AS game_name,
                  g.engine, t.number, r.text, r.html, t.revealed_seed, r.published_at
           FROM published_reports r JOIN turns t ON t.id = r.turn_id JOIN games g ON g.id = t.game_id
           JOIN zines z ON z.id = g.zine_id
           WHERE g.zine_id = $1 AND z.issues_since IS NOT NULL
           AND (r.published_at >= z.issues_since
                OR (z.first_issue_gathers = $3 AND NOT EXISTS (
                    SELECT 1 FROM zine_issues i WHERE i.zine_id = z.id AND i.status = $4)))
           AND t.status = $2
           AND NOT EXISTS (SELECT 1 FROM zine_issue_reports i WHERE i.turn_id = t.id)
           ORDER BY g.created_at, g.id, t.number"#,
        zine as ZineId,
        TurnStatus::Published as TurnStatus,
        FirstIssueGathers::SinceZineBegan as FirstIssueGathers,
        IssueStatus::Published as IssueStatus,
    )
    .fetch_all(db)
    .await?;
    rows.into_iter()
        .map(|row| {
            Ok(UnprintedReport {
                turn_id: row.turn_id,
                game_id: row.game_id,
                game_name: row.game_name,
                engine: engine_of("games.engine", &row.engine)?,
                number: row.number,
                text: row.text,
                html: row.html,
                revealed_seed: row.revealed_seed,
                published_at: row.published_at,
            })
        })
        .collect()
}

/// A letter to the editor, with its writer's name as subscribed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Letter {
    pub id: LetterId,
    pub subscriber_id: SubscriberId,
    pub writer: String,
    pub text: String,
    pub source: Source,
    pub status: LetterStatus,
    pub received_at: DateTime<Utc>,
    pub issue_number: Option<i32>,
}

/// [`Letter`]s: the query with the given condition, its parameters from `$1` on.
macro_rules! letters {
    ($condition:literal, $($param:expr),+ $(,)?) => {
        sqlx::query_as!(
            Letter,
            r#"SELECT l.id AS "id: LetterId", l.subscriber_id AS "subscriber_id: SubscriberId",
                      s.display_name AS writer, l.text, l.source AS "source: Source",
                      l.status AS "status: LetterStatus", l.received_at,
                      i.number AS "issue_number?"
               FROM zine_letters l JOIN subscribers s ON s.id = l.subscriber_id
               LEFT JOIN zine_issues i ON i.id = l.issue_id "#
                + $condition,
            $($param),+
        )
    };
}

pub async fn insert_letter<'e>(
    db: impl PgExecutor<'e>,
    zine: ZineId,
    subscriber: SubscriberId,
    text: &str,
    source: Source,
    now: DateTime<Utc>,
) -> Result<LetterId, StoreError> {
    Ok(sqlx::query_scalar!(
        r#"INSERT INTO zine_letters (zine_id, subscriber_id, text, source, received_at, status)
           VALUES ($1, $2, $3, $4, $5, $6) RETURNING id AS "id: LetterId""#,
        zine as ZineId,
        subscriber as SubscriberId,
        text,
        source as Source,
        now,
        LetterStatus::Pending as LetterStatus,
    )
    .fetch_one(db)
    .await?)
}

/// The zine's letters with this status, oldest first.
pub async fn letters<'e>(
    db: impl PgExecutor<'e>,
    zine: ZineId,
    status: LetterStatus,
) -> Result<Vec<Letter>, StoreError> {
    Ok(letters!(
        "WHERE l.zine_id = $1 AND l.status = $2 ORDER BY l.received_at, l.id",
        zine as ZineId,
        status as LetterStatus,
    )
    .fetch_all(db)
    .await?)
}

/// Approved letters no issue has printed yet, oldest first.
pub async fn unprinted_letters<'e>(
    db: impl PgExecutor<'e>,
    zine: ZineId,
) -> Result<Vec<Letter>, StoreError> {
    Ok(letters!(
        "WHERE l.zine_id = $1 AND l.status = $2 AND l.issue_id IS NULL
         ORDER BY l.received_at, l.id",
        zine as ZineId,
        LetterStatus::Approved as LetterStatus,
    )
    .fetch_all(db)
    .await?)
}

/// Approves or turns down a letter of the zine not yet printed; false if there is none.
pub async fn moderate<'e>(
    db: impl PgExecutor<'e>,
    zine: ZineId,
    letter: LetterId,
    status: LetterStatus,
    by: &str,
    now: DateTime<Utc>,
) -> Result<bool, StoreError> {
    let done = sqlx::query!(
        "UPDATE zine_letters SET status = $3, moderated_by = $4, moderated_at = $5
         WHERE id = $2 AND zine_id = $1 AND issue_id IS NULL",
        zine as ZineId,
        letter as LetterId,
        status as LetterStatus,
        by,
        now,
    )
    .execute(db)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// The subscriber's zine and explicit mail choice.
pub async fn mail_choice<'e>(
    db: impl PgExecutor<'e>,
    subscriber: SubscriberId,
) -> Result<Option<(ZineId, Option<MailChoice>)>, StoreError> {
    let row = sqlx::query!(
        r#"SELECT zine_id AS "zine_id: ZineId", mail_choice AS "mail_choice: MailChoice"
           FROM subscribers WHERE id = $1"#,
        subscriber as SubscriberId,
    )
    .fetch_optional(db)
    .await?;
    Ok(row.map(|row| (row.zine_id, row.mail_choice)))
}

pub async fn set_mail_choice<'e>(
    db: impl PgExecutor<'e>,
    subscriber: SubscriberId,
    choice: Option<MailChoice>,
) -> Result<(), StoreError> {
    sqlx::query!(
        "UPDATE subscribers SET mail_choice = $2 WHERE id = $1",
        subscriber as SubscriberId,
        choice as Option<MailChoice>,
    )
    .execute(db)
    .await?;
    Ok(())
}

/// Active subscribers who get each game's report by mail: those who chose so, and those who
/// chose nothing while the zine publishes no issues. (subscriber id, address)
pub async fn report_readers<'e>(
    db: impl PgExecutor<'e>,
    zine: ZineId,
) -> Result<Vec<(SubscriberId, String)>, StoreError> {
    readers(db, zine, MailChoice::Reports).await
}

/// Active subscribers who get the issue by mail: those who chose it, and those who chose
/// nothing while the zine publishes issues. (subscriber id, address)
pub async fn issue_readers<'e>(
    db: impl PgExecutor<'e>,
    zine: ZineId,
) -> Result<Vec<(SubscriberId, String)>, StoreError> {
    readers(db, zine, MailChoice::Issue).await
}

async fn readers<'e>(
    db: impl PgExecutor<'e>,
    zine: ZineId,
    choice: MailChoice,
) -> Result<Vec<(SubscriberId, String)>, StoreError> {
    let rows = sqlx::query!(
        r#"SELECT s.id AS "id: SubscriberId", s.email FROM subscribers s JOIN zines z ON z.id = s.zine_id
           WHERE s.zine_id = $1 AND s.status = $3 AND coalesce(s.mail_choice,
           CASE WHEN z.issue_rhythm IS NULL THEN $4 ELSE $5 END) = $2 ORDER BY s.id"#,
        zine as ZineId,
        choice as MailChoice,
        SubscriberStatus::Active as SubscriberStatus,
        MailChoice::Reports as MailChoice,
        MailChoice::Issue as MailChoice,
    )
    .fetch_all(db)
    .await?;
    Ok(rows.into_iter().map(|row| (row.id, row.email)).collect())
}
