//! `gm zine SLUG …`: the zine's issues from the command line (the console does the same).

use std::io::Read;

use anyhow::Context;
use clap::{Args, Subcommand};
use store::status::LetterStatus;

use super::{clock, connect};
use crate::config::{BaseUrl, DatabaseArgs};
use crate::issues;
use schedule::Schedule;

/// The actor these commands write in the audit log.
const ACTOR: &str = "cli";

#[derive(Debug, Clone, Args)]
pub struct ZineArgs {
    /// The zine's short name (as in /zines/SLUG).
    pub slug: String,
    #[command(subcommand)]
    pub action: ZineCommand,
    /// Domain of Admiralty's addresses, for the issue's mail.
    #[arg(
        long,
        env = "ADMIRALTY_MAIL_DOMAIN",
        default_value = "localhost",
        global = true
    )]
    pub mail_domain: String,
    /// Public URL of the web UI, for the links in the issue.
    #[arg(
        long,
        env = "ADMIRALTY_BASE_URL",
        default_value = "http://127.0.0.1:8080",
        global = true
    )]
    pub base_url: BaseUrl,
}

#[derive(Debug, Clone, Subcommand)]
pub enum ZineCommand {
    /// Set how issues follow one another: `manual` (by hand only), `every N days`, `weekly DAY
    /// HH:MM ZONE` (e.g. `weekly Saturday 09:00 Europe/London`, after the week's deadlines), or
    /// `off` (no issues: subscribers get each game's report).
    Issues {
        #[arg(required = true, num_args = 1..)]
        rhythm: Vec<String>,
    },
    /// What the first issue gathers: `since-zine` (every report since the zine began, the
    /// default) or `since-issues` (only those since issues were turned on).
    FirstIssue { gathers: String },
    /// Replace the next issue's editorial with the Markdown read from standard input.
    Editorial,
    /// Print the next issue as it would come out now (plain text).
    Preview,
    /// Publish the next issue now and queue its mail.
    Publish,
    /// List letters to the editor (pending by default).
    Letters {
        /// pending, approved or rejected.
        #[arg(long, default_value = "pending")]
        status: String,
    },
    /// Print a published issue to a PDF with headless Chromium (for postal subscribers).
    Pdf {
        /// The issue's number.
        number: i32,
        /// a4 or letter.
        #[arg(long, default_value = "a4")]
        paper: String,
        /// Where to write the PDF.
        #[arg(long)]
        out: std::path::PathBuf,
    },
    /// Approve a letter: it is printed in the next issue.
    Approve { letter: store::issues::LetterId },
    /// Turn a letter down: it is never printed.
    Reject { letter: store::issues::LetterId },
    /// List the subscribers whose address has bounced: address, score, last bounce, and
    /// whether delivery to it is suspended (docs/mail.md#bounces).
    Bounces,
}

pub(super) async fn run_zine(database: &DatabaseArgs, args: ZineArgs) -> anyhow::Result<()> {
    let pool = connect(database).await?;
    let now = clock()?.now();
    let zine = issues::find_zine(&pool, &args.slug).await?;
    let base = args.base_url.as_str();
    match args.action {
        ZineCommand::Issues { rhythm } => set_rhythm(&pool, now, &zine, &rhythm.join(" ")).await?,
        ZineCommand::FirstIssue { gathers } => {
            let gathers = issues::parse_first_issue_gathers(&gathers)?;
            let changed =
                issues::set_first_issue_gathers(&pool, now, &zine, gathers, ACTOR).await?;
            println!(
                "{}: the first issue gathers {}{}.",
                zine.name,
                issues::first_issue_words(gathers),
                if changed { "" } else { " (as it did already)" }
            );
        }
        ZineCommand::Editorial => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .context("reading the editorial from standard input")?;
            let number = issues::set_editorial(&pool, now, &zine, &text, ACTOR).await?;
            println!("The editorial of issue {number} is set.");
        }
        ZineCommand::Preview => {
            print!(
                "{}",
                issues::preview(&pool, now, &zine, base).await?.to_text()
            );
        }
        ZineCommand::Publish => {
            let published =
                issues::publish_now(&pool, now, &zine, Some(&args.mail_domain), base, ACTOR)
                    .await?;
            println!(
                "Issue {} of {} is out: {} mails queued; {base}/zines/{}/issues/{}",
                published.number, zine.name, published.mails_queued, zine.slug, published.number
            );
        }
        ZineCommand::Bounces => print_bounces(&pool, &zine).await?,
        ZineCommand::Letters { status } => print_letters(&pool, &zine, status.parse()?).await?,
        ZineCommand::Pdf { number, paper, out } => {
            print_pdf(&pool, &zine, number, paper.parse()?, &out, base).await?;
        }
        ZineCommand::Approve { letter } => {
            issues::moderate_letter(&pool, now, &zine, letter, true, ACTOR).await?;
            println!("Letter {letter} approved: it goes into the next issue.");
        }
        ZineCommand::Reject { letter } => {
            issues::moderate_letter(&pool, now, &zine, letter, false, ACTOR).await?;
            println!("Letter {letter} turned down.");
        }
    }
    Ok(())
}

/// `issues RHYTHM`: when issues are published (`off`: none).
async fn set_rhythm(
    pool: &store::PgPool,
    now: chrono::DateTime<chrono::Utc>,
    zine: &store::zines::Zine,
    words: &str,
) -> anyhow::Result<()> {
    let rhythm = if words.trim().eq_ignore_ascii_case("off") {
        None
    } else {
        Some(words.parse::<Schedule>()?)
    };
    let next = issues::set_rhythm(pool, now, zine, rhythm, ACTOR).await?;
    match (rhythm, next) {
        (None, _) => println!("{} publishes no issues now.", zine.name),
        (Some(rhythm), Some(next)) => {
            println!("{}: an issue {rhythm}; the next at {next}.", zine.name)
        }
        (Some(_), None) => println!(
            "{}: issues are published by hand (`gm zine {} publish`).",
            zine.name, zine.slug
        ),
    }
    Ok(())
}

/// `letters STATUS`: the zine's letters to the editor in that state.
async fn print_letters(
    pool: &store::PgPool,
    zine: &store::zines::Zine,
    status: LetterStatus,
) -> anyhow::Result<()> {
    for letter in store::issues::letters(pool, zine.id, status).await? {
        println!(
            "#{} {} from {} ({}){}:\n{}\n",
            letter.id,
            letter.received_at.format("%Y-%m-%d %H:%M UTC"),
            letter.writer,
            letter.source,
            letter
                .issue_number
                .map(|n| format!(", printed in issue {n}"))
                .unwrap_or_default(),
            letter.text
        );
    }
    Ok(())
}

/// `pdf NUMBER`: a published issue printed to a PDF file.
async fn print_pdf(
    pool: &store::PgPool,
    zine: &store::zines::Zine,
    number: i32,
    paper: issues::pdf::Paper,
    out: &std::path::Path,
    base: &str,
) -> anyhow::Result<()> {
    let issue = store::issues::by_number(pool, zine.id, number)
        .await?
        .filter(|i| i.status == store::status::IssueStatus::Published)
        .with_context(|| format!("{} has no published issue {number}", zine.name))?;
    let document = issues::pdf::printable_document(
        &format!("{}, issue {number}", zine.name),
        issue.html.as_deref().unwrap_or_default(),
        paper,
        base,
    );
    issues::pdf::print_to_pdf(&document, out).await?;
    println!(
        "Issue {number} of {} printed to {}.",
        zine.name,
        out.display()
    );
    Ok(())
}

/// `gm zine SLUG bounces`: one line per subscriber whose address has bounced.
async fn print_bounces(pool: &store::PgPool, zine: &store::zines::Zine) -> anyhow::Result<()> {
    let rows = crate::bounces::of_zine(pool, zine.id).await?;
    if rows.is_empty() {
        println!("No subscriber of {} has bounced.", zine.name);
        return Ok(());
    }
    println!(
        "{:<40} {:>5}  {:<20}  delivery",
        "address", "score", "last bounce"
    );
    for row in rows {
        let delivery = match (&row.suspended_at, &row.suspended_reason) {
            (Some(at), reason) => format!(
                "SUSPENDED since {} ({})",
                at.format("%Y-%m-%d %H:%M UTC"),
                reason.as_deref().unwrap_or("")
            ),
            (None, _) => "active".to_owned(),
        };
        println!(
            "{:<40} {:>5}  {:<20}  {delivery}",
            row.email.as_str(),
            row.score,
            row.last_bounce_at.format("%Y-%m-%d %H:%M UTC").to_string(),
        );
    }
    Ok(())
}
