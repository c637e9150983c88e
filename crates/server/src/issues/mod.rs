//! The zine's issue (docs/issues.md): the rhythm the GM sets, the draft with its editorial,
//! publishing (by hand or when the rhythm says), the mail to every subscriber who chose the
//! issue, letters to the editor and their moderation, and each subscriber's choice between the
//! issue and per-game reports. Each function owns its transaction and audit entry.

pub mod contents;
pub mod markdown;
pub mod pdf;
pub mod render;
pub mod sign_ups;

use crate::letters;
use crate::outbox::post::{Circular, post_circular};
use chrono::{DateTime, Utc};
use store::audit::AuditAction;
use store::issues::{Issue, IssueSettings, LetterId};
use store::status::{FirstIssueGathers, LetterStatus, MailChoice, Source};
use store::subscribers::SubscriberId;
use store::zines::{Zine, ZineId};
use store::{PgPool, StoreError};

pub use render::IssueContents;
use schedule::{Schedule, ScheduleError};

/// The print style sheet of the issue (A4 and US letter alike, games packed on pages,
/// boards in black and white): the web page's, the printable page's and the PDF's.
pub const PRINT_STYLE: &str = include_str!("../../../../templates/public/issue_print.css");

/// The longest editorial, in characters (the column's CHECK).
pub const MAX_EDITORIAL_CHARS: usize = 20_000;
/// The longest letter, in characters (the column's CHECK).
pub const MAX_LETTER_CHARS: usize = 4_000;

#[derive(Debug, thiserror::Error)]
pub enum IssueError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Database(#[from] sqlx::Error),
    #[error("there is no zine {0:?}")]
    ZineNotFound(String),
    #[error(
        "{0} publishes no issues: set a rhythm first (`manual` to publish by hand only), e.g. \
         `gm zine SLUG issues weekly Saturday 09:00 Europe/London`"
    )]
    NoIssues(String),
    #[error(transparent)]
    Rhythm(#[from] ScheduleError),
    #[error("the editorial is {0} characters long; at most {MAX_EDITORIAL_CHARS} are printed")]
    EditorialTooLong(usize),
    #[error("a letter needs some text")]
    EmptyLetter,
    #[error("the letter is {0} characters long; at most {MAX_LETTER_CHARS} are printed")]
    LetterTooLong(usize),
    #[error(
        "{0:?}: the first issue gathers `since-zine` (every report since the zine began) or \
         `since-issues` (only those since issues were turned on)"
    )]
    FirstIssue(String),
    #[error("no letter {0} waits for moderation in this zine")]
    LetterNotFound(LetterId),
}

/// A published issue: its number and how many mails it queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Published {
    pub zine: ZineId,
    pub number: i32,
    pub mails_queued: u64,
}

async fn zine_by_slug(pool: &PgPool, slug: &str) -> Result<Zine, IssueError> {
    let parsed =
        store::ZineSlug::parse(slug).map_err(|_| IssueError::ZineNotFound(slug.to_owned()))?;
    store::zines::find_by_slug(pool, &parsed)
        .await?
        .ok_or_else(|| IssueError::ZineNotFound(slug.to_owned()))
}

/// The zine named by its short name.
pub async fn find_zine(pool: &PgPool, slug: &str) -> Result<Zine, IssueError> {
    zine_by_slug(pool, slug).await
}

/// Sets the zine's rhythm (`None`: the zine stops publishing issues, its subscribers get each
/// game's report again unless they chose otherwise). The first issue under a rhythm comes at
/// its next moment after `now`; `Schedule::Manual` publishes only by hand.
pub async fn set_rhythm(
    pool: &PgPool,
    now: DateTime<Utc>,
    zine: &Zine,
    rhythm: Option<Schedule>,
    actor: &str,
) -> Result<Option<DateTime<Utc>>, IssueError> {
    let mut tx = pool.begin().await?;
    let before = store::issues::lock_zine(&mut tx, zine.id).await?;
    let next = rhythm.and_then(|r| r.next_deadline(None, now));
    store::issues::set_rhythm(&mut *tx, zine.id, rhythm, next, now).await?;
    if rhythm.is_some() {
        store::issues::draft(&mut tx, zine.id, now).await?;
    }
    store::audit::append(
        &mut *tx,
        &store::audit::NewAuditEntry {
            actor,
            game: None,
            action: AuditAction::IssueRhythm {
                zine: zine.id,
                before: before.and_then(|b| b.issue_rhythm),
                after: rhythm,
                next_issue_at: next,
            },
        },
        now,
    )
    .await?;
    tx.commit().await?;
    Ok(next)
}

/// Sets what the zine's first issue gathers (it matters until that issue is out): every
/// report since the zine began, or only those since issues were turned on. Audited when it
/// changes; the same choice again changes nothing. Returns whether it changed.
pub async fn set_first_issue_gathers(
    pool: &PgPool,
    now: DateTime<Utc>,
    zine: &Zine,
    gathers: FirstIssueGathers,
    actor: &str,
) -> Result<bool, IssueError> {
    let mut tx = pool.begin().await?;
    let changed = store::issues::set_first_issue_gathers(&mut *tx, zine.id, gathers).await?;
    if changed {
        let action = AuditAction::FirstIssueGathers {
            zine: zine.id,
            gathers,
        };
        let entry = store::audit::NewAuditEntry {
            actor,
            game: None,
            action,
        };
        store::audit::append(&mut *tx, &entry, now).await?;
    }
    tx.commit().await?;
    Ok(changed)
}

/// What the first issue gathers, in words for the GM.
pub fn first_issue_words(gathers: FirstIssueGathers) -> &'static str {
    match gathers {
        FirstIssueGathers::SinceZineBegan => "every report since the zine began",
        FirstIssueGathers::SinceIssuesBegan => "only the reports since issues were turned on",
    }
}

/// What the words of a form or the command line choose for the first issue.
pub fn parse_first_issue_gathers(words: &str) -> Result<FirstIssueGathers, IssueError> {
    match words
        .trim()
        .to_ascii_lowercase()
        .replace(['-', ' '], "_")
        .as_str()
    {
        "since_zine_began" | "since_zine" | "zine" => Ok(FirstIssueGathers::SinceZineBegan),
        "since_issues_began" | "since_issues" | "issues" => Ok(FirstIssueGathers::SinceIssuesBegan),
        _ => Err(IssueError::FirstIssue(words.trim().to_owned())),
    }
}

/// The zine's issue settings.
pub async fn settings(pool: &PgPool, zine: ZineId) -> Result<IssueSettings, IssueError> {
    store::issues::settings(pool, zine)
        .await?
        .ok_or_else(|| IssueError::ZineNotFound(zine.to_string()))
}

/// The zine's rhythm, read back.
pub fn rhythm_of(settings: &IssueSettings) -> Option<Schedule> {
    settings.issue_rhythm
}

/// The draft issue of a zine that publishes issues.
async fn open_draft(
    tx: &mut sqlx::PgConnection,
    zine: &Zine,
    now: DateTime<Utc>,
) -> Result<Issue, IssueError> {
    let settings = store::issues::lock_zine(&mut *tx, zine.id).await?;
    if settings.and_then(|s| s.issue_rhythm).is_none() {
        return Err(IssueError::NoIssues(zine.name.clone()));
    }
    Ok(store::issues::draft(&mut *tx, zine.id, now).await?)
}

/// Replaces the draft's editorial (Markdown). Returns the draft's number.
pub async fn set_editorial(
    pool: &PgPool,
    now: DateTime<Utc>,
    zine: &Zine,
    editorial: &str,
    actor: &str,
) -> Result<i32, IssueError> {
    let editorial = editorial.replace("\r\n", "\n");
    let length = editorial.chars().count();
    if length > MAX_EDITORIAL_CHARS {
        return Err(IssueError::EditorialTooLong(length));
    }
    let mut tx = pool.begin().await?;
    let draft = open_draft(&mut tx, zine, now).await?;
    store::issues::set_editorial(&mut *tx, draft.id, &editorial).await?;
    store::audit::append(
        &mut *tx,
        &store::audit::NewAuditEntry {
            actor,
            game: None,
            action: AuditAction::IssueEditorial {
                zine: zine.id,
                issue: draft.number,
                chars: length,
            },
        },
        now,
    )
    .await?;
    tx.commit().await?;
    Ok(draft.number)
}

/// The draft as it would come out now: for the GM's preview only (it prints approved letters
/// and the editorial before they are public).
pub async fn preview(
    pool: &PgPool,
    now: DateTime<Utc>,
    zine: &Zine,
    base: &str,
) -> Result<IssueContents, IssueError> {
    let mut tx = pool.begin().await?;
    let draft = open_draft(&mut tx, zine, now).await?;
    let gathered = contents::gather(&mut tx, zine, &draft, now, base).await?;
    // The draft row may have just been made: keep it.
    tx.commit().await?;
    Ok(gathered.contents)
}

/// Publishes the zine's draft now, by hand: frozen, numbered, mailed to every subscriber who
/// chose the issue; a new draft opens. `domain`: Message-IDs' domain (`None`: no mail, the
/// demo's web-only zines); `base`: the site's URL for the issue's links.
pub async fn publish_now(
    pool: &PgPool,
    now: DateTime<Utc>,
    zine: &Zine,
    domain: Option<&str>,
    base: &str,
    actor: &str,
) -> Result<Published, IssueError> {
    let mut tx = pool.begin().await?;
    let draft = open_draft(&mut tx, zine, now).await?;
    let published = publish_draft(&mut tx, zine, &draft, now, domain, base, actor).await?;
    tx.commit().await?;
    Ok(published)
}

/// Publishes every issue whose rhythm says it is due at `now`, one transaction per zine. An
/// issue with nothing new in it (no report, no letter) is not published: the rhythm moves on.
pub async fn publish_due(
    pool: &PgPool,
    now: DateTime<Utc>,
    domain: &str,
    base: &str,
) -> Result<Vec<Published>, IssueError> {
    let mut done = Vec::new();
    loop {
        let mut tx = pool.begin().await?;
        let Some(due) = store::issues::claim_due_zine(&mut tx, now).await? else {
            return Ok(done);
        };
        let next = rhythm_of(&due)
            .and_then(|rhythm| rhythm.next_deadline(due.next_issue_at, now))
            .filter(|next| *next > now);
        store::issues::set_next_issue_at(&mut *tx, due.zine_id, next).await?;
        let zine = store::zines::find(&mut *tx, due.zine_id)
            .await?
            .ok_or_else(|| IssueError::ZineNotFound(due.zine_id.to_string()))?;
        let draft = store::issues::draft(&mut tx, zine.id, now).await?;
        let nothing_new = store::issues::unprinted_reports(&mut *tx, zine.id)
            .await?
            .is_empty()
            && store::issues::unprinted_letters(&mut *tx, zine.id)
                .await?
                .is_empty();
        if !nothing_new {
            done.push(
                publish_draft(&mut tx, &zine, &draft, now, Some(domain), base, "system").await?,
            );
        }
        tx.commit().await?;
        if !nothing_new {
            crate::measures::issue_published();
        }
    }
}

/// Freezes, publishes and mails a draft this transaction holds (the zine's row locked).
async fn publish_draft(
    tx: &mut sqlx::PgConnection,
    zine: &Zine,
    draft: &Issue,
    now: DateTime<Utc>,
    domain: Option<&str>,
    base: &str,
    actor: &str,
) -> Result<Published, IssueError> {
    let gathered = contents::gather(&mut *tx, zine, draft, now, base).await?;
    let text = gathered.contents.to_text();
    let html = gathered.contents.to_html();
    store::issues::publish(
        &mut *tx,
        draft.id,
        &text,
        &html,
        &gathered.report_turns,
        &gathered.letters,
        now,
    )
    .await?;
    store::issues::draft(&mut *tx, zine.id, now).await?;
    let mails = match domain {
        Some(domain) => {
            queue_issue(
                &mut *tx,
                zine,
                draft,
                &gathered.contents,
                &text,
                &html,
                now,
                domain,
            )
            .await?
        }
        None => 0,
    };
    store::audit::append(
        &mut *tx,
        &store::audit::NewAuditEntry {
            actor,
            game: None,
            action: AuditAction::IssuePublish {
                zine: zine.id,
                issue: draft.number,
                reports: gathered.report_turns.len(),
                letters: gathered.letters.len(),
                mails,
            },
        },
        now,
    )
    .await?;
    Ok(Published {
        zine: zine.id,
        number: draft.number,
        mails_queued: mails,
    })
}

/// Queues the issue to every subscriber who gets it by mail: one message, its body stored once.
#[allow(
    clippy::too_many_arguments,
    reason = "one publication's parts, all needed"
)]
async fn queue_issue(
    tx: &mut sqlx::PgConnection,
    zine: &Zine,
    draft: &Issue,
    contents: &IssueContents,
    text: &str,
    html: &str,
    now: DateTime<Utc>,
    domain: &str,
) -> Result<u64, IssueError> {
    let readers = store::issues::issue_readers(&mut *tx, zine.id).await?;
    if readers.is_empty() {
        return Ok(0);
    }
    let (letter, document) = letters::issues::issue(&contents.title(), text, html);
    let circular = Circular {
        message_id: letters::issues::message_id(zine.id, draft.number, domain),
        letter: &letter,
        html: Some(&document),
        copies: readers
            .into_iter()
            .map(|(id, to)| (format!("issue:{}:{}", draft.id, id), to))
            .collect(),
    };
    Ok(post_circular(&mut *tx, &circular, now).await?)
}

/// A letter to the editor from a subscriber (by mail or on the web), waiting for the GM.
pub async fn submit_letter(
    tx: &mut sqlx::PgConnection,
    subscriber: SubscriberId,
    text: &str,
    source: Source,
    now: DateTime<Utc>,
) -> Result<LetterId, IssueError> {
    let text = text.replace("\r\n", "\n");
    let text = text.trim();
    if text.is_empty() {
        return Err(IssueError::EmptyLetter);
    }
    let length = text.chars().count();
    if length > MAX_LETTER_CHARS {
        return Err(IssueError::LetterTooLong(length));
    }
    let (zine, _) = store::issues::mail_choice(&mut *tx, subscriber)
        .await?
        .ok_or(IssueError::ZineNotFound(String::new()))?;
    let id = store::issues::insert_letter(&mut *tx, zine, subscriber, text, source, now).await?;
    store::audit::append(
        &mut *tx,
        &store::audit::NewAuditEntry {
            actor: "subscriber",
            game: None,
            action: store::audit::AuditAction::Letter {
                zine,
                letter: id,
                subscriber,
                source,
            },
        },
        now,
    )
    .await?;
    tell_the_gm(tx, zine, subscriber, now).await?;
    Ok(id)
}

/// Records for the GM's digest that a letter waits.
async fn tell_the_gm(
    tx: &mut sqlx::PgConnection,
    zine: ZineId,
    subscriber: SubscriberId,
    now: DateTime<Utc>,
) -> Result<(), IssueError> {
    let Some(zine) = store::zines::find(&mut *tx, zine).await? else {
        return Ok(());
    };
    let from = store::subscribers::find(&mut *tx, subscriber)
        .await?
        .map_or_else(String::new, |s| {
            format!(" from {}", s.display_name.as_str())
        });
    let summary = format!(
        "A letter to the editor of {}{from} waits for you.",
        zine.name
    );
    let notice = store::notices::NewNotice {
        kind: store::status::NoticeKind::LetterWaiting,
        game: None,
        summary: &summary,
        link: &format!("/gm/zines/{}/issues#letters", zine.slug),
    };
    store::notices::record(&mut *tx, &notice, now).await?;
    Ok(())
}

/// The GM approves (printed in the next issue) or turns down a letter not printed yet.
pub async fn moderate_letter(
    pool: &PgPool,
    now: DateTime<Utc>,
    zine: &Zine,
    letter: LetterId,
    approve: bool,
    actor: &str,
) -> Result<(), IssueError> {
    let status = if approve {
        LetterStatus::Approved
    } else {
        LetterStatus::Rejected
    };
    let mut tx = pool.begin().await?;
    if !store::issues::moderate(&mut *tx, zine.id, letter, status, actor, now).await? {
        return Err(IssueError::LetterNotFound(letter));
    }
    store::audit::append(
        &mut *tx,
        &store::audit::NewAuditEntry {
            actor,
            game: None,
            action: AuditAction::LetterModerate {
                zine: zine.id,
                letter,
                status,
            },
        },
        now,
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

/// What a subscriber receives by mail from now on.
pub async fn choose_mail(
    db: &mut sqlx::PgConnection,
    subscriber: SubscriberId,
    choice: MailChoice,
    now: DateTime<Utc>,
) -> Result<(), IssueError> {
    store::issues::set_mail_choice(&mut *db, subscriber, Some(choice)).await?;
    store::audit::append(
        &mut *db,
        &store::audit::NewAuditEntry {
            actor: "subscriber",
            game: None,
            action: store::audit::AuditAction::MailChoice { subscriber, choice },
        },
        now,
    )
    .await?;
    Ok(())
}

/// What the subscriber gets by mail: their choice, else the zine's default.
pub async fn mail_choice_of(
    db: &mut sqlx::PgConnection,
    subscriber: SubscriberId,
) -> Result<MailChoice, IssueError> {
    let (zine, choice) = store::issues::mail_choice(&mut *db, subscriber)
        .await?
        .ok_or(IssueError::ZineNotFound(String::new()))?;
    if let Some(choice) = choice {
        return Ok(choice);
    }
    let publishes = store::issues::settings(&mut *db, zine)
        .await?
        .and_then(|s| s.issue_rhythm)
        .is_some();
    Ok(if publishes {
        MailChoice::Issue
    } else {
        MailChoice::Reports
    })
}

/// A letter sent on the web player pages: [`submit_letter`] in its own transaction.
pub async fn submit_letter_on_web(
    pool: &PgPool,
    subscriber: SubscriberId,
    text: &str,
    now: DateTime<Utc>,
) -> Result<LetterId, IssueError> {
    let mut tx = pool.begin().await?;
    let id = submit_letter(&mut tx, subscriber, text, Source::Web, now).await?;
    tx.commit().await?;
    Ok(id)
}

/// A mail choice made on the web player pages: [`choose_mail`] in its own transaction.
pub async fn choose_mail_on_web(
    pool: &PgPool,
    subscriber: SubscriberId,
    choice: MailChoice,
    now: DateTime<Utc>,
) -> Result<(), IssueError> {
    let mut tx = pool.begin().await?;
    choose_mail(&mut tx, subscriber, choice, now).await?;
    tx.commit().await?;
    Ok(())
}

/// What the subscriber gets by mail, for their page: [`mail_choice_of`].
pub async fn mail_choice_on_web(
    pool: &PgPool,
    subscriber: SubscriberId,
) -> Result<MailChoice, IssueError> {
    let mut conn = pool.acquire().await?;
    mail_choice_of(&mut conn, subscriber).await
}
