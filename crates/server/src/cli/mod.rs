//! The `gm` command line: its arguments (here), the one-shot commands ([`commands`]) and the
//! service ([`serve`]). Each subcommand is a function taking its parsed arguments.

mod backup;
mod commands;
mod game;
mod mailauth;
mod rosters;
mod serve;
mod standbys;
mod zine;

use std::sync::Arc;

use anyhow::Context;
use clap::{Args, Parser, Subcommand};

use crate::clock::{Clock, service_clock};
use crate::config::{DatabaseArgs, LogArgs, SecretArgs, ServeArgs};

/// Admiralty's game master: runs play-by-email naval wargames for zines.
///
/// Settings come from options or from the environment variables named in each option's help
/// (docs/configuration.md has the full table). For a local set-up with its own PostgreSQL,
/// use ./scripts/run instead of calling gm directly.
#[derive(Debug, Parser)]
#[command(name = "gm", version, about, long_about, propagate_version = true)]
pub struct Cli {
    #[command(flatten)]
    pub database: DatabaseArgs,

    #[command(flatten)]
    pub log: LogArgs,

    #[command(flatten)]
    pub secrets: SecretArgs,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve the web UI and HTTP endpoints (/healthz) until SIGINT or SIGTERM.
    ///
    /// Refuses to start when the database schema is behind this binary: run `gm migrate`
    /// first, or pass --migrate.
    Serve(Box<ServeArgs>),

    /// Apply pending database migrations (a no-op when the schema is up to date).
    ///
    /// Safe to run repeatedly and from several processes at once.
    Migrate(MigrateArgs),

    /// Resolve a turn offline: a game, its orders and seeds as JSON on stdin; the new state
    /// and the rendered report as JSON on stdout.
    ///
    /// Needs no database. With `new-game`, start a game from an engine's setup and a player
    /// list instead. The JSON is described, with an example per engine, in
    /// docs/adjudicate/README.md.
    Adjudicate(AdjudicateArgs),

    /// Replay every published turn of a game and compare each report byte for byte.
    ///
    /// Prints one line per turn and exits non-zero at the first mismatch. The open seeds are
    /// the published ones, checked against their commitments; for a game still running, the
    /// sealed seeds come from the game's secret.
    Verify(VerifyArgs),

    /// Take one RFC 5322 message on stdin (for an MTA pipe, procmail or .forward).
    ///
    /// The raw message is stored first (a message delivered twice is stored once), then
    /// processed: orders and press saved, a confirmation queued. Exits 75 (EX_TEMPFAIL: the
    /// MTA keeps the message and delivers it again later, which is safe) when the database
    /// fails, and 1 (the MTA bounces it) for a message over ADMIRALTY_MAIL_MAX_BYTES, which
    /// is not stored.
    Ingest(PipeArgs),

    /// The inbound mail queue.
    #[command(subcommand)]
    Inbox(InboxCommand),

    /// The outbound mail queue: what was sent, what waits, what failed.
    #[command(subcommand)]
    Outbox(OutboxCommand),

    /// The GM's actions on a game: resolve now, extend the deadline, pause, resume, end.
    /// Every action goes into the audit log.
    Game(GameArgs),

    /// Start a game now with its players: `gm game-new --zine SLUG --name NAME --engine
    /// skyfleet --seat 3=North --seat 5=South` (subscriber ids; seats by name, or `plays`).
    /// Prints the game's id; each player is mailed their seat and position.
    GameNew(rosters::GameNewArgs),

    /// Games open for sign-up: open one, list a zine's, start one now.
    #[command(subcommand)]
    Signup(rosters::SignupCommand),

    /// The zine's issues: rhythm, editorial, preview, publish, letters to the editor
    /// (docs/issues.md). Every action goes into the audit log.
    Zine(zine::ZineArgs),

    /// Administration: GM accounts for the web console.
    #[command(subcommand)]
    Admin(AdminCommand),

    /// Write a consistent backup of the whole database with PostgreSQL's pg_dump (custom
    /// format, one snapshot). pg_dump must be at least the server's version.
    Backup(backup::BackupArgs),

    /// Restore a backup from `gm backup` into an empty database with pg_restore (one
    /// transaction), then check its schema against this binary's.
    Restore(backup::RestoreArgs),

    /// DKIM keys for signing outgoing mail (docs/mail.md#dkim).
    #[command(subcommand)]
    Dkim(mailauth::DkimCommand),

    /// Print the DNS records the mail domain needs (SPF, DKIM, DMARC, MX) and check the
    /// published ones. Exits 0 when all are published as printed, 1 when one is missing or
    /// wrong, 75 when DNS could not be reached (nothing was checked).
    Dns(mailauth::DnsArgs),
}

#[derive(Debug, Clone, Subcommand)]
pub enum AdminCommand {
    /// Create a GM account for the web console (/gm). The password is read from standard input
    /// (its first line; at least 12 characters), so it stays out of the shell's history and
    /// the process list: `gm admin add-gm nelson < password-file`, or type it and press Ctrl-D.
    AddGm {
        /// The login name: letters, digits, '_', '.', '-' (also the actor in the audit log).
        name: String,
    },
}

#[derive(Debug, Clone, Args)]
pub struct GameArgs {
    /// The game's id.
    pub game: store::games::GameId,
    #[command(subcommand)]
    pub action: GameCommand,
    /// Domain of Admiralty's addresses, for the mail a resolution queues.
    #[arg(
        long,
        env = "ADMIRALTY_MAIL_DOMAIN",
        default_value = "localhost",
        global = true
    )]
    pub mail_domain: String,
}

#[derive(Debug, Clone, Subcommand)]
pub enum GameCommand {
    /// Resolve the open turn now, whatever its deadline.
    ResolveNow,
    /// Move the open turn's deadline later.
    Extend {
        /// How many hours later.
        #[arg(long)]
        hours: u32,
    },
    /// Print the game's roster: each player, their seat (an ironclad side, a skyfleet fleet),
    /// the turn they joined and whether they still play; then the seats that want a player
    /// (resigned, or at the missed-turns limit) and the open offers of them.
    Roster,
    /// Offer a player's seat to an active subscriber of the zine (a standby, say): they are
    /// mailed the offer (nothing of the position) and take the seat by answering ACCEPT.
    Offer {
        /// The seat: its player's name or the engine's player id.
        player: String,
        /// The subscriber id of the one offered the seat.
        subscriber: store::subscribers::SubscriberId,
    },
    /// Take back a player's resignation before the turn resolves (their fleet leaves then):
    /// they play on with the same reply address, and are told by mail.
    Reinstate {
        /// The player's name or the engine's player id.
        player: String,
    },
    /// Take back an open offer of a seat (its id, as `roster` prints it); the subscriber is told.
    Withdraw {
        /// The offer's id.
        offer: store::offers::OfferId,
    },
    /// Set the missed-turns limit and who offers seats to standbys (docs/rosters.md).
    ///
    /// Examples: `missed --limit 3 --offers automatic --offer-days 5`, `missed --offers gm`
    /// (the engine's default limit, offers standing 3 days).
    Missed {
        /// Turns missed in a row before a seat wants a player, 1 to 20; without it, the
        /// engine's default.
        #[arg(long)]
        limit: Option<u32>,
        /// Who offers the seat: `gm` (from the console or this command line) or `automatic`
        /// (Admiralty, to the longest-waiting standby).
        #[arg(long, default_value = "gm")]
        offers: store::status::StandbyOffers,
        /// Days an offer stands unanswered before it expires, 1 to 14 (default 3).
        #[arg(long, default_value_t = store::offers::MissedPolicy::DEFAULT_OFFER_DAYS)]
        offer_days: u32,
    },
    /// Hand a player's seat to another active subscriber of the zine (a standby, say) from the
    /// open turn: same position, a new reply address mailed to the newcomer.
    Replace {
        /// The player to replace: their name or the engine's player id.
        player: String,
        /// The subscriber id of the newcomer.
        subscriber: store::subscribers::SubscriberId,
    },
    /// Stop the clock: no turn resolves until the game is resumed.
    Pause,
    /// Start the clock again, giving back the time that was left when it was paused.
    Resume,
    /// End the game now and reveal every sealed seed.
    End,
    /// Write the game's portable record (docs/record.md) to a file: what its public pages show,
    /// and for a finished game the states, orders and seeds that let anyone replay every turn
    /// (`admiralty-verify FILE`, `gm verify --record FILE`).
    Export {
        /// The file to write (`-` for standard output).
        #[arg(long)]
        out: std::path::PathBuf,
    },
    /// Set the deadline schedule, reminders, grace period and early resolution (all at once:
    /// what is not given is off). Applies from the next deadline; an open turn without a
    /// deadline gets the schedule's next one.
    ///
    /// Examples: `schedule weekly Friday 18:00 Europe/London --remind 48h,6h --grace 2h`,
    /// `schedule every 7 days --early`, `schedule manual`.
    Schedule {
        /// `manual`, `every N days`, or `weekly DAY HH:MM ZONE` (an IANA time zone; the local
        /// time holds across daylight-saving changes).
        #[arg(required = true, num_args = 1..)]
        deadlines: Vec<String>,
        /// Remind each active player who has not ordered this long before the deadline (e.g.
        /// 48h, 6h, 90m, 2d); repeat or separate with commas.
        #[arg(long = "remind", value_delimiter = ',', value_parser = duration_arg)]
        remind: Vec<chrono::Duration>,
        /// Orders are still taken this long after the deadline, and the turn resolves when it
        /// ends (e.g. 2h).
        #[arg(long, value_parser = duration_arg, default_value = "0")]
        grace: chrono::Duration,
        /// Resolve a turn as soon as every active player has orders in.
        #[arg(long)]
        early: bool,
    },
}

fn duration_arg(text: &str) -> Result<chrono::Duration, String> {
    schedule::parse_duration(text).map_err(|e| e.to_string())
}

#[derive(Debug, Clone, Args)]
pub struct IngestArgs {
    /// Domain of Admiralty's addresses (`orders+TOKEN@DOMAIN`).
    #[arg(long, env = "ADMIRALTY_MAIL_DOMAIN", default_value = "localhost")]
    pub mail_domain: String,

    /// Public URL of the web UI, for the links in the mail a message may cause (a game's
    /// start mail, when a sign-up fills it).
    #[arg(
        long,
        env = "ADMIRALTY_BASE_URL",
        default_value = crate::config::DEFAULT_BASE_URL
    )]
    pub base_url: crate::config::BaseUrl,

    /// The sender of outbound mail, as `gm serve` has it: never answered.
    #[arg(long, env = "ADMIRALTY_MAIL_FROM")]
    pub mail_from: Option<String>,

    #[command(flatten)]
    pub limits: crate::config::Limits,

    #[command(flatten)]
    pub mail_auth: crate::config::MailAuthArgs,
}

impl IngestArgs {
    /// What processing inbound mail needs of these settings.
    pub fn inbox_settings(&self) -> anyhow::Result<crate::inbox::Settings> {
        Ok(crate::inbox::Settings {
            domain: self.mail_domain.clone(),
            base_url: self.base_url.clone(),
            mail_from: self.mail_from.clone(),
            limits: self.limits,
            mail_auth: crate::inbox::authenticate::MailAuthenticator::from_settings(
                &self.mail_auth,
                &self.mail_domain,
            )
            .map_err(anyhow::Error::msg)?,
        })
    }
}

#[derive(Debug, Clone, Args)]
pub struct PipeArgs {
    #[command(flatten)]
    pub ingest: IngestArgs,
    /// Largest message taken, in bytes: the SMTP listener's and the webhook's limit.
    #[arg(long, env = "ADMIRALTY_MAIL_MAX_BYTES", default_value_t = crate::config::DEFAULT_MAIL_MAX_BYTES)]
    pub mail_max_bytes: usize,
    /// The envelope recipient the MTA delivered the message to (may repeat): a reply token
    /// found only there authenticates it. Postfix's pipe(8): `--recipient ${original_recipient}`;
    /// local(8) (aliases, .forward) sets ORIGINAL_RECIPIENT, read when no option is given.
    #[arg(long = "recipient", env = "ORIGINAL_RECIPIENT")]
    pub recipients: Vec<String>,
}

/// A failure after which the same command may succeed if run again: `gm` exits with sysexits'
/// EX_TEMPFAIL (75), which tells an MTA running `gm ingest` to keep the message and retry.
#[derive(Debug, thiserror::Error)]
#[error("{0:#}")]
pub struct TryAgainLater(pub anyhow::Error);

/// EX_TEMPFAIL, see [`TryAgainLater`].
pub const EX_TEMPFAIL: u8 = 75;

#[derive(Debug, Clone, Subcommand)]
pub enum InboxCommand {
    /// Put every message whose processing failed back in the queue, and process the queue.
    Retry(IngestArgs),
    /// The newest inbound messages, with their outcome and error.
    List(ListArgs),
}

#[derive(Debug, Clone, Subcommand)]
pub enum OutboxCommand {
    /// The newest outbound messages, with their status, attempts and last error.
    List(ListArgs),
    /// Queue a failed (or sent) message again, same Message-ID; the worker of `gm serve` sends it.
    Resend {
        /// The message's id, as `gm outbox list` shows it.
        id: store::outbox::OutboundId,
    },
}

#[derive(Debug, Clone, Args)]
pub struct ListArgs {
    /// Messages with this status (inbox: new, processed, failed, dropped; outbox: queued,
    /// sent, failed).
    #[arg(long, default_value = "failed")]
    pub status: String,
    /// How many, newest first.
    #[arg(long, default_value_t = 50)]
    pub limit: i64,
}

#[derive(Debug, Clone, Args)]
pub struct VerifyArgs {
    /// The game's id (as shown in the web UI and the audit log).
    #[arg(required_unless_present = "record", conflicts_with = "record")]
    pub game: Option<store::games::GameId>,
    /// Verify a game's record file instead (`gm game ID export`), with no database: the same
    /// check as the standalone `admiralty-verify FILE`.
    #[arg(long, value_name = "FILE")]
    pub record: Option<std::path::PathBuf>,
}

#[derive(Debug, Clone, Args)]
pub struct AdjudicateArgs {
    /// `resolve` (the default): resolve the state's next turn. `new-game`: start a game.
    #[arg(value_enum, default_value = "resolve")]
    pub action: AdjudicateAction,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum AdjudicateAction {
    Resolve,
    NewGame,
}

/// The GM account `gm migrate --seed-demo` creates beside the demo zine.
const DEMO_GM: &str = "demo";

#[derive(Debug, Clone, Args)]
pub struct MigrateArgs {
    /// Afterwards, if the database has no zine yet, add a demo zine with a few subscribers.
    #[arg(long)]
    pub seed_demo: bool,
}

/// Runs the parsed command line to completion.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    if let Command::Adjudicate(args) = &cli.command {
        return commands::run_adjudicate(args);
    }
    if let Command::Verify(VerifyArgs {
        record: Some(path), ..
    }) = &cli.command
    {
        return commands::run_verify_record(path);
    }
    // Needs neither logs nor a runtime: its output is the record.
    if let Command::Dkim(command) = &cli.command {
        return mailauth::run_dkim(command.clone());
    }
    crate::telemetry::init(&cli.log)?;
    crate::secrets::configure(cli.secrets.limits());
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    runtime.block_on(async move {
        match cli.command {
            Command::Serve(args) => serve::run_serve(&cli.database, *args).await,
            Command::Migrate(args) => commands::run_migrate(&cli.database, args).await,
            Command::Adjudicate(args) => commands::run_adjudicate(&args),
            Command::Verify(args) => commands::run_verify(&cli.database, args).await,
            Command::Ingest(args) => commands::run_ingest(&cli.database, args).await,
            Command::Inbox(InboxCommand::Retry(args)) => {
                commands::run_inbox_retry(&cli.database, args).await
            }
            Command::Inbox(InboxCommand::List(args)) => {
                commands::run_inbox_list(&cli.database, args).await
            }
            Command::Outbox(command) => commands::run_outbox(&cli.database, command).await,
            Command::Game(args) => game::run_game_action(&cli.database, args).await,
            Command::Zine(args) => zine::run_zine(&cli.database, args).await,
            Command::GameNew(args) => rosters::run_game_new(&cli.database, args).await,
            Command::Signup(command) => rosters::run_signup(&cli.database, command).await,
            Command::Backup(args) => backup::run_backup(&cli.database, args).await,
            Command::Restore(args) => backup::run_restore(&cli.database, args).await,
            Command::Admin(AdminCommand::AddGm { name }) => {
                commands::run_add_gm(&cli.database, &name).await
            }
            Command::Dns(args) => mailauth::run_dns(args).await,
            Command::Dkim(command) => mailauth::run_dkim(command),
        }
    })
}

/// The wall clock, unless the test-only `ADMIRALTY_NOW` fixes the time.
fn clock() -> anyhow::Result<Arc<dyn Clock>> {
    service_clock().map_err(anyhow::Error::msg)
}

async fn connect(database: &DatabaseArgs) -> anyhow::Result<store::PgPool> {
    let url = database.url()?;
    store::connect(url, database.db_max_connections)
        .await
        .map_err(anyhow::Error::from)
        .context("connecting to the database (DATABASE_URL)")
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::{Cli, Command, InboxCommand};
    use crate::config::Limits;

    #[test]
    fn the_limits_are_settings_of_every_command_that_processes_mail() {
        let serve = Cli::try_parse_from([
            "gm",
            "serve",
            "--refusals-per-hour",
            "7",
            "--press-chars-per-turn",
            "100",
        ])
        .unwrap();
        let Command::Serve(args) = serve.command else {
            panic!("not serve");
        };
        assert_eq!(args.limits.refusals_per_hour, 7);
        assert_eq!(args.limits.press.chars_per_turn, 100);
        assert_eq!(
            args.limits.replies_per_hour,
            Limits::DEFAULT.replies_per_hour
        );
        let ingest = Cli::try_parse_from([
            "gm",
            "ingest",
            "--tells-per-hour",
            "2",
            "--mail-from",
            "GM <gm@example.org>",
        ])
        .unwrap();
        let Command::Ingest(args) = ingest.command else {
            panic!("not ingest");
        };
        let settings = args.ingest.inbox_settings().unwrap();
        assert_eq!(settings.limits.tells_per_hour, 2);
        assert_eq!(settings.mail_from.as_deref(), Some("GM <gm@example.org>"));
        let retry =
            Cli::try_parse_from(["gm", "inbox", "retry", "--press-entries-per-turn", "3"]).unwrap();
        let Command::Inbox(InboxCommand::Retry(args)) = retry.command else {
            panic!("not inbox retry");
        };
        assert_eq!(args.limits.press.entries_per_turn, 3);
    }
}
