//! The zine's issues: the rhythm, the draft being put together, what it will print (reports
//! published since the last issue, approved letters), and the published issues (frozen).
//! Letters to the editor and what each subscriber chose to receive by mail live here too.

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::PgExecutor;

use crate::StoreError;
use crate::games::GameId;
use crate::status::{IssueStatus, LetterStatus, MailChoice, Source};
use crate::subscribers::SubscriberId;
use crate::zines::ZineId;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, sqlx::Type)]
#[sqlx(transparent)]
pub struct IssueId(pub i64);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, sqlx::Type)]
#[sqlx(transparent)]
pub struct LetterId(pub i64);

/// Whether and when a zine publishes issues.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct IssueSettings {
    pub zine_id: ZineId,
    /// The rhythm (`schedule::Schedule` as JSON); `None`: no issues, per-game reports.
    pub issue_rhythm: Option<serde_json::Value>,
    pub issues_since: Option<DateTime<Utc>>,
    pub next_issue_at: Option<DateTime<Utc>>,
}

macro_rules! settings_columns {
    () => {
        "SELECT id AS zine_id, issue_rhythm, issues_since, next_issue_at FROM zines"
    };
}

pub async fn settings<'e>(
    db: impl PgExecutor<'e>,
    zine: ZineId,
) -> Result<Option<IssueSettings>, StoreError> {
    Ok(
        sqlx::query_as(concat!(settings_columns!(), " WHERE id = $1"))
            .bind(zine)
            .fetch_optional(db)
            .await?,
    )
}

/// The zine's settings, its row locked until the transaction ends: one publication at a time.
pub async fn lock_zine(
    tx: &mut sqlx::PgConnection,
    zine: ZineId,
) -> Result<Option<IssueSettings>, StoreError> {
    Ok(
        sqlx::query_as(concat!(settings_columns!(), " WHERE id = $1 FOR UPDATE"))
            .bind(zine)
            .fetch_optional(&mut *tx)
            .await?,
    )
}

/// A zine whose rhythm says an issue is due at `now`, locked; another process skips it.
pub async fn claim_due_zine(
    tx: &mut sqlx::PgConnection,
    now: DateTime<Utc>,
) -> Result<Option<IssueSettings>, StoreError> {
    Ok(sqlx::query_as(concat!(
        settings_columns!(),
        " WHERE next_issue_at <= $1 AND issue_rhythm IS NOT NULL \
         ORDER BY next_issue_at, id LIMIT 1 FOR UPDATE SKIP LOCKED"
    ))
    .bind(now)
    .fetch_optional(&mut *tx)
    .await?)
}

/// Sets (or, with `None`, ends) the zine's issues. Reports count from the first time issues
/// were turned on; turning them off forgets that.
pub async fn set_rhythm<'e>(
    db: impl PgExecutor<'e>,
    zine: ZineId,
    rhythm: Option<&serde_json::Value>,
    next_issue_at: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    sqlx::query(
        "UPDATE zines SET issue_rhythm = $2, \
         issues_since = CASE WHEN $2::jsonb IS NULL THEN NULL ELSE coalesce(issues_since, $4) END, \
         next_issue_at = $3 WHERE id = $1",
    )
    .bind(zine)
    .bind(rhythm)
    .bind(next_issue_at)
    .bind(now)
    .execute(db)
    .await?;
    Ok(())
}

pub async fn set_next_issue_at<'e>(
    db: impl PgExecutor<'e>,
    zine: ZineId,
    at: Option<DateTime<Utc>>,
) -> Result<(), StoreError> {
    sqlx::query("UPDATE zines SET next_issue_at = $2 WHERE id = $1")
        .bind(zine)
        .bind(at)
        .execute(db)
        .await?;
    Ok(())
}

/// An issue as stored: a draft has no text or HTML yet.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
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

macro_rules! issue_columns {
    () => {
        "SELECT id, zine_id, number, status, editorial, text, html, published_at FROM zine_issues"
    };
}

/// The zine's draft, made (numbered after the last issue) if there is none.
pub async fn draft(
    tx: &mut sqlx::PgConnection,
    zine: ZineId,
    now: DateTime<Utc>,
) -> Result<Issue, StoreError> {
    sqlx::query(
        "INSERT INTO zine_issues (zine_id, number, created_at) \
         SELECT $1, coalesce(max(number), 0) + 1, $2 FROM zine_issues WHERE zine_id = $1 \
         ON CONFLICT DO NOTHING",
    )
    .bind(zine)
    .bind(now)
    .execute(&mut *tx)
    .await?;
    Ok(sqlx::query_as(concat!(
        issue_columns!(),
        " WHERE zine_id = $1 AND status = 'draft'"
    ))
    .bind(zine)
    .fetch_one(&mut *tx)
    .await?)
}

/// The zine's draft, if it has one.
pub async fn current_draft<'e>(
    db: impl PgExecutor<'e>,
    zine: ZineId,
) -> Result<Option<Issue>, StoreError> {
    Ok(sqlx::query_as(concat!(
        issue_columns!(),
        " WHERE zine_id = $1 AND status = 'draft'"
    ))
    .bind(zine)
    .fetch_optional(db)
    .await?)
}

/// The zine's issue `number`, draft or published.
pub async fn by_number<'e>(
    db: impl PgExecutor<'e>,
    zine: ZineId,
    number: i32,
) -> Result<Option<Issue>, StoreError> {
    Ok(sqlx::query_as(concat!(
        issue_columns!(),
        " WHERE zine_id = $1 AND number = $2"
    ))
    .bind(zine)
    .bind(number)
    .fetch_optional(db)
    .await?)
}

/// The zine's published issues, newest first.
pub async fn published<'e>(
    db: impl PgExecutor<'e>,
    zine: ZineId,
) -> Result<Vec<Issue>, StoreError> {
    Ok(sqlx::query_as(concat!(
        issue_columns!(),
        " WHERE zine_id = $1 AND status = 'published' ORDER BY number DESC"
    ))
    .bind(zine)
    .fetch_all(db)
    .await?)
}

pub async fn set_editorial<'e>(
    db: impl PgExecutor<'e>,
    issue: IssueId,
    editorial: &str,
) -> Result<(), StoreError> {
    sqlx::query("UPDATE zine_issues SET editorial = $2 WHERE id = $1 AND status = 'draft'")
        .bind(issue)
        .bind(editorial)
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
    reports: &[i64],
    letters: &[LetterId],
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    sqlx::query(
        "UPDATE zine_issues SET status = 'published', text = $2, html = $3, published_at = $4 \
         WHERE id = $1 AND status = 'draft'",
    )
    .bind(issue)
    .bind(text)
    .bind(html)
    .bind(now)
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "INSERT INTO zine_issue_reports (turn_id, issue_id) SELECT unnest($2::bigint[]), $1",
    )
    .bind(issue)
    .bind(reports)
    .execute(&mut *tx)
    .await?;
    let letters: Vec<i64> = letters.iter().map(|l| l.0).collect();
    sqlx::query("UPDATE zine_letters SET issue_id = $1 WHERE id = ANY($2)")
        .bind(issue)
        .bind(&letters)
        .execute(&mut *tx)
        .await?;
    Ok(())
}

/// A published report not yet printed in an issue: the public text and HTML as the turn's page
/// shows them.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct UnprintedReport {
    pub turn_id: i64,
    pub game_id: GameId,
    pub game_name: String,
    pub engine: String,
    pub number: i32,
    pub text: String,
    pub html: String,
    pub revealed_seed: Option<String>,
    pub published_at: DateTime<Utc>,
}

/// The reports of the zine's games published since issues began and in no issue yet, by game
/// (oldest game first), then turn.
pub async fn unprinted_reports<'e>(
    db: impl PgExecutor<'e>,
    zine: ZineId,
) -> Result<Vec<UnprintedReport>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT t.id AS turn_id, g.id AS game_id, g.name AS game_name, g.engine, t.number, \
         r.text, r.html, t.revealed_seed, r.published_at \
         FROM published_reports r JOIN turns t ON t.id = r.turn_id JOIN games g ON g.id = t.game_id \
         JOIN zines z ON z.id = g.zine_id \
         WHERE g.zine_id = $1 AND z.issues_since IS NOT NULL AND r.published_at >= z.issues_since \
         AND t.status = 'published' \
         AND NOT EXISTS (SELECT 1 FROM zine_issue_reports i WHERE i.turn_id = t.id) \
         ORDER BY g.created_at, g.id, t.number",
    )
    .bind(zine)
    .fetch_all(db)
    .await?)
}

/// A letter to the editor, with its writer's name as subscribed.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
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

macro_rules! letter_columns {
    () => {
        "SELECT l.id, l.subscriber_id, s.display_name AS writer, l.text, l.source, \
         l.status, l.received_at, i.number AS issue_number \
         FROM zine_letters l JOIN subscribers s ON s.id = l.subscriber_id \
         LEFT JOIN zine_issues i ON i.id = l.issue_id"
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
    Ok(LetterId(
        sqlx::query_scalar(
            "INSERT INTO zine_letters (zine_id, subscriber_id, text, source, received_at) \
             VALUES ($1, $2, $3, $4, $5) RETURNING id",
        )
        .bind(zine)
        .bind(subscriber)
        .bind(text)
        .bind(source)
        .bind(now)
        .fetch_one(db)
        .await?,
    ))
}

/// The zine's letters with this status, oldest first.
pub async fn letters<'e>(
    db: impl PgExecutor<'e>,
    zine: ZineId,
    status: LetterStatus,
) -> Result<Vec<Letter>, StoreError> {
    Ok(sqlx::query_as(concat!(
        letter_columns!(),
        " WHERE l.zine_id = $1 AND l.status = $2 ORDER BY l.received_at, l.id"
    ))
    .bind(zine)
    .bind(status)
    .fetch_all(db)
    .await?)
}

/// Approved letters no issue has printed yet, oldest first.
pub async fn unprinted_letters<'e>(
    db: impl PgExecutor<'e>,
    zine: ZineId,
) -> Result<Vec<Letter>, StoreError> {
    Ok(sqlx::query_as(concat!(
        letter_columns!(),
        " WHERE l.zine_id = $1 AND l.status = 'approved' AND l.issue_id IS NULL \
         ORDER BY l.received_at, l.id"
    ))
    .bind(zine)
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
    let done = sqlx::query(
        "UPDATE zine_letters SET status = $3, moderated_by = $4, moderated_at = $5 \
         WHERE id = $2 AND zine_id = $1 AND issue_id IS NULL",
    )
    .bind(zine)
    .bind(letter)
    .bind(status)
    .bind(by)
    .bind(now)
    .execute(db)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// The subscriber's zine and explicit mail choice.
pub async fn mail_choice<'e>(
    db: impl PgExecutor<'e>,
    subscriber: SubscriberId,
) -> Result<Option<(ZineId, Option<MailChoice>)>, StoreError> {
    Ok(
        sqlx::query_as("SELECT zine_id, mail_choice FROM subscribers WHERE id = $1")
            .bind(subscriber)
            .fetch_optional(db)
            .await?,
    )
}

pub async fn set_mail_choice<'e>(
    db: impl PgExecutor<'e>,
    subscriber: SubscriberId,
    choice: Option<MailChoice>,
) -> Result<(), StoreError> {
    sqlx::query("UPDATE subscribers SET mail_choice = $2 WHERE id = $1")
        .bind(subscriber)
        .bind(choice)
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
    Ok(sqlx::query_as(
        "SELECT s.id, s.email FROM subscribers s JOIN zines z ON z.id = s.zine_id \
         WHERE s.zine_id = $1 AND s.status = 'active' AND coalesce(s.mail_choice, \
         CASE WHEN z.issue_rhythm IS NULL THEN 'reports' ELSE 'issue' END) = $2 ORDER BY s.id",
    )
    .bind(zine)
    .bind(choice)
    .fetch_all(db)
    .await?)
}
