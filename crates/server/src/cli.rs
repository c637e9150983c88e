//! The `gm` command line. Each subcommand is a function taking its parsed arguments.

use std::sync::Arc;

use anyhow::{Context, bail};
use clap::{Args, Parser, Subcommand};
use tokio::net::TcpListener;

use crate::clock::{Clock, service_clock};
use crate::config::{DatabaseArgs, LogArgs, ServeArgs};
use crate::{AppState, serve, shutdown_signal};

/// Admiralty's game master: runs play-by-email naval wargames for zines.
///
/// Settings come from options or from the environment variables named in each option's help
/// (the README has the full table). For a local set-up with its own PostgreSQL, use
/// ./scripts/run instead of calling gm directly.
#[derive(Debug, Parser)]
#[command(name = "gm", version, about, long_about, propagate_version = true)]
pub struct Cli {
    #[command(flatten)]
    pub database: DatabaseArgs,

    #[command(flatten)]
    pub log: LogArgs,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve the web UI and HTTP endpoints (/healthz) until SIGINT or SIGTERM.
    ///
    /// Refuses to start when the database schema is behind this binary: run `gm migrate`
    /// first, or pass --migrate.
    Serve(ServeArgs),

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

    /// Administration: GM accounts for the web console.
    #[command(subcommand)]
    Admin(AdminCommand),
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
    pub game: i64,
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
    /// Stop the clock: no turn resolves until the game is resumed.
    Pause,
    /// Start the clock again, giving back the time that was left when it was paused.
    Resume,
    /// End the game now and reveal every sealed seed.
    End,
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
    crate::schedule::parse_duration(text).map_err(|e| e.to_string())
}

#[derive(Debug, Clone, Args)]
pub struct IngestArgs {
    /// Domain of Admiralty's addresses (`orders+TOKEN@DOMAIN`).
    #[arg(long, env = "ADMIRALTY_MAIL_DOMAIN", default_value = "localhost")]
    pub mail_domain: String,
}

#[derive(Debug, Clone, Args)]
pub struct PipeArgs {
    #[command(flatten)]
    pub ingest: IngestArgs,
    /// Largest message taken, in bytes: the SMTP listener's and the webhook's limit.
    #[arg(long, env = "ADMIRALTY_MAIL_MAX_BYTES", default_value_t = crate::config::DEFAULT_MAIL_MAX_BYTES)]
    pub mail_max_bytes: usize,
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
        id: i64,
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
    pub game: i64,
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
        return run_adjudicate(args);
    }
    crate::telemetry::init(&cli.log)?;
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    runtime.block_on(async move {
        match cli.command {
            Command::Serve(args) => run_serve(&cli.database, args).await,
            Command::Migrate(args) => run_migrate(&cli.database, args).await,
            Command::Adjudicate(args) => run_adjudicate(&args),
            Command::Verify(args) => run_verify(&cli.database, args).await,
            Command::Ingest(args) => run_ingest(&cli.database, args).await,
            Command::Inbox(InboxCommand::Retry(args)) => run_inbox_retry(&cli.database, args).await,
            Command::Inbox(InboxCommand::List(args)) => run_inbox_list(&cli.database, args).await,
            Command::Outbox(command) => run_outbox(&cli.database, command).await,
            Command::Game(args) => run_game_action(&cli.database, args).await,
            Command::Admin(AdminCommand::AddGm { name }) => run_add_gm(&cli.database, &name).await,
        }
    })
}

/// Pure JSON in, JSON out: no runtime, no database, no logging to mix into stdout.
fn run_adjudicate(args: &AdjudicateArgs) -> anyhow::Result<()> {
    use std::io::Read;
    let mut input = String::new();
    std::io::stdin()
        .read_to_string(&mut input)
        .context("reading the JSON request from standard input")?;
    let output = match args.action {
        AdjudicateAction::Resolve => games::adjudicate::resolve_json(&input),
        AdjudicateAction::NewGame => games::adjudicate::new_game_json(&input),
    }?;
    println!("{output}");
    Ok(())
}

async fn run_verify(database: &DatabaseArgs, args: VerifyArgs) -> anyhow::Result<()> {
    let pool = connect(database).await?;
    let checks = crate::turns::verify_game(&pool, store::games::GameId(args.game))
        .await
        .with_context(|| format!("verifying game {}", args.game))?;
    pool.close().await;
    if checks.is_empty() {
        println!("game {}: no published turn to verify", args.game);
    }
    for check in &checks {
        let verdict = if check.matches { "ok" } else { "MISMATCH" };
        println!(
            "turn {}: {verdict} (sealed seed from the {})",
            check.turn, check.sealed_from
        );
    }
    if checks.iter().any(|c| !c.matches) {
        bail!(
            "game {}: a published report does not match its replay",
            args.game
        );
    }
    Ok(())
}

async fn run_ingest(database: &DatabaseArgs, args: PipeArgs) -> anyhow::Result<()> {
    use tokio::io::AsyncReadExt;
    let limit = args.mail_max_bytes;
    let mut raw = Vec::new();
    // One byte more than the limit tells an oversized message without reading all of it.
    tokio::io::stdin()
        .take(u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1))
        .read_to_end(&mut raw)
        .await
        .context("reading the message from standard input")?;
    if raw.len() > limit {
        bail!(
            "the message is larger than {limit} bytes (ADMIRALTY_MAIL_MAX_BYTES); it was not stored"
        );
    }
    // Run again, the same message is stored once and has one effect: any failure from here
    // on is one for the MTA to retry.
    let outcome = async {
        let pool = connect(database).await?;
        let now = clock()?.now();
        let outcome = crate::inbox::ingest(&pool, &raw, "pipe", now, &args.ingest.mail_domain)
            .await
            .context("storing and processing the message")?;
        pool.close().await;
        anyhow::Ok(outcome)
    }
    .await
    .map_err(TryAgainLater)?;
    match outcome {
        crate::inbox::Ingested::Stored(id) => println!("stored as inbound message {}", id.0),
        crate::inbox::Ingested::Duplicate(id) => {
            println!(
                "already stored as inbound message {}: this delivery has no effect",
                id.0
            )
        }
    }
    Ok(())
}

async fn run_inbox_retry(database: &DatabaseArgs, args: IngestArgs) -> anyhow::Result<()> {
    let pool = connect(database).await?;
    let retried = crate::mailroom::retry_inbound(
        &pool,
        &crate::turns::StateCache::default(),
        clock()?.now(),
        crate::mailroom::Retry::AllFailed,
        "gm",
        &args.mail_domain,
    )
    .await
    .context("requeueing failed messages and processing the inbound queue")?;
    pool.close().await;
    println!(
        "requeued {} failed message(s); processed {}",
        retried.requeued, retried.processed
    );
    Ok(())
}

async fn run_inbox_list(database: &DatabaseArgs, args: ListArgs) -> anyhow::Result<()> {
    let pool = connect(database).await?;
    let status: store::status::InboundStatus = args
        .status
        .parse()
        .context("inbound statuses: new, processed, failed, dropped")?;
    let entries = store::inbox::list_by_status(&pool, status, args.limit).await?;
    pool.close().await;
    for e in &entries {
        println!(
            "{:>6}  {}  {:<9} {:<8} {}{}",
            e.id.0,
            e.received_at.format("%Y-%m-%d %H:%M"),
            e.status,
            e.received_via,
            e.message_id,
            e.error
                .as_deref()
                .map(|err| format!("\n        error: {err}"))
                .unwrap_or_default()
        );
    }
    println!("{} message(s)", entries.len());
    Ok(())
}

async fn run_outbox(database: &DatabaseArgs, command: OutboxCommand) -> anyhow::Result<()> {
    let pool = connect(database).await?;
    match command {
        OutboxCommand::List(args) => {
            let status: store::status::OutboundStatus = args
                .status
                .parse()
                .context("outbound statuses: queued, sent, failed")?;
            let entries = store::outbox::list_by_status(&pool, status, args.limit).await?;
            for e in &entries {
                println!(
                    "{:>6}  {}  {:<7} tries {:<2} {}  {}{}",
                    e.id,
                    e.created_at.format("%Y-%m-%d %H:%M"),
                    e.status,
                    e.attempts,
                    e.to_address,
                    e.subject,
                    e.last_error
                        .as_deref()
                        .map(|err| format!("\n        last error: {err}"))
                        .unwrap_or_default()
                );
            }
            println!("{} message(s)", entries.len());
        }
        OutboxCommand::Resend { id } => {
            if !crate::mailroom::resend_outbound(&pool, clock()?.now(), id, "gm").await? {
                bail!("outbound message {id} is neither failed nor sent: it is still queued");
            }
            println!("outbound message {id} queued again");
        }
    }
    pool.close().await;
    Ok(())
}

async fn run_game_action(database: &DatabaseArgs, args: GameArgs) -> anyhow::Result<()> {
    use crate::turns::GmAction;
    let game = store::games::GameId(args.game);
    let action = match args.action {
        GameCommand::Schedule {
            deadlines,
            remind,
            grace,
            early,
        } => {
            let deadlines: crate::schedule::Schedule = deadlines.join(" ").parse()?;
            let settings =
                crate::schedule::ScheduleSettings::new(deadlines, &remind, grace, early)?;
            let pool = connect(database).await?;
            crate::turns::set_schedule(&pool, clock()?.now(), game, &settings, "gm")
                .await
                .with_context(|| format!("game {}", args.game))?;
            pool.close().await;
            println!("game {}: schedule set: {settings}", args.game);
            return Ok(());
        }
        GameCommand::ResolveNow => GmAction::ResolveNow,
        GameCommand::Extend { hours } => {
            GmAction::Extend(chrono::Duration::hours(i64::from(hours)))
        }
        GameCommand::Pause => GmAction::Pause,
        GameCommand::Resume => GmAction::Resume,
        GameCommand::End => GmAction::End,
    };
    let pool = connect(database).await?;
    crate::turns::gm_action(&pool, clock()?.now(), game, action, "gm", &args.mail_domain)
        .await
        .with_context(|| format!("game {}", args.game))?;
    pool.close().await;
    println!("game {}: done ({action:?})", args.game);
    Ok(())
}

/// The wall clock, unless the test-only `ADMIRALTY_NOW` fixes the time.
fn clock() -> anyhow::Result<Arc<dyn Clock>> {
    service_clock().map_err(anyhow::Error::msg)
}

async fn run_add_gm(database: &DatabaseArgs, name: &str) -> anyhow::Result<()> {
    let name = store::accounts::GmName::parse(name)?;
    let mut password = String::new();
    std::io::stdin()
        .read_line(&mut password)
        .context("reading the password from standard input")?;
    let password = password.trim_end_matches(['\r', '\n']).to_owned();
    let hash =
        tokio::task::spawn_blocking(move || crate::web::password::hash_gm_password(&password))
            .await
            .context("hashing the password")??;
    let pool = connect(database).await?;
    let now = clock()?.now();
    let mut tx = pool.begin().await.context("starting a transaction")?;
    store::accounts::insert_gm(&mut *tx, &name, &hash, now)
        .await
        .with_context(|| format!("creating GM {name}"))?;
    store::audit::append(
        &mut *tx,
        &store::audit::NewAuditEntry {
            actor: "cli",
            action: "gm.create",
            game_id: None,
            details: serde_json::json!({ "name": name.as_str() }),
        },
        now,
    )
    .await?;
    tx.commit().await.context("committing")?;
    pool.close().await;
    println!("GM {name} created: log in at /gm/login");
    Ok(())
}

async fn connect(database: &DatabaseArgs) -> anyhow::Result<store::PgPool> {
    let url = database.url()?;
    store::connect(url, database.db_max_connections)
        .await
        .map_err(anyhow::Error::from)
        .context("connecting to the database (DATABASE_URL)")
}

async fn run_migrate(database: &DatabaseArgs, args: MigrateArgs) -> anyhow::Result<()> {
    let pool = connect(database).await?;
    let report = store::migrate(&pool).await.context("applying migrations")?;
    let version = report
        .current_version
        .map_or_else(|| "none".to_owned(), |v| v.to_string());
    if report.applied.is_empty() {
        println!("migrations: schema up to date (version {version})");
    } else {
        println!(
            "migrations: applied {:?}; schema now at version {version}",
            report.applied
        );
    }
    if args.seed_demo {
        let clock = clock()?;
        let mut secret = [0u8; 32];
        getrandom::fill(&mut secret)
            .map_err(|e| anyhow::anyhow!("reading the operating system's randomness: {e}"))?;
        match crate::demo::seed_if_empty(&pool, clock.now(), secret)
            .await
            .context("seeding the demo zine")?
        {
            crate::demo::SeedOutcome::AlreadyPopulated => {
                println!("demo: the database already has a zine; nothing seeded");
            }
            crate::demo::SeedOutcome::Seeded { subscribers, .. } => {
                println!(
                    "demo: seeded zine {:?} with {subscribers} subscribers and the game {:?} (turn 1 published, turn 2 open)",
                    crate::demo::DEMO_ZINE_SLUG,
                    crate::demo::DEMO_GAME_NAME
                );
                // A demo GM only beside the demo zine, so that a real database never gets one.
                let password = crate::web::random_hex(8);
                let hash = crate::web::password::hash_gm_password(&password)?;
                let name = store::accounts::GmName::parse(DEMO_GM)?;
                match store::accounts::insert_gm(&pool, &name, &hash, clock.now()).await {
                    Ok(_) => println!(
                        "demo: GM console login {DEMO_GM:?}, password {password:?} (at /gm/login)"
                    ),
                    Err(store::StoreError::AlreadyExists { .. }) => {}
                    Err(error) => return Err(error).context("creating the demo GM"),
                }
            }
        }
    }
    pool.close().await;
    Ok(())
}

async fn run_serve(database: &DatabaseArgs, args: ServeArgs) -> anyhow::Result<()> {
    let pool = connect(database).await?;
    if args.migrate {
        let report = store::migrate(&pool).await.context("applying migrations")?;
        tracing::info!(applied = ?report.applied, version = ?report.current_version, "migrations checked");
    }
    let pending = store::pending_migrations(&pool)
        .await
        .context("reading the applied migrations")?;
    if !pending.is_empty() {
        bail!(
            "the database schema is out of date (pending migrations {pending:?}): run `gm migrate` first"
        );
    }

    let listener = TcpListener::bind(args.bind)
        .await
        .with_context(|| format!("listening on {} (ADMIRALTY_BIND)", args.bind))?;
    let address = listener.local_addr().context("reading the bound address")?;
    let clock = clock()?;
    let mut state = AppState::new(pool.clone(), clock.clone(), args.base_url.clone())
        .with_mail_domain(args.mail_domain.clone());
    let stored = Arc::new(tokio::sync::Notify::new());
    if let Some(secret) = &args.webhook_secret {
        if secret.chars().count() < 16 {
            bail!("ADMIRALTY_WEBHOOK_SECRET is too short: use at least 16 random characters");
        }
        state = state.with_webhook(crate::Webhook {
            secret: secret.clone(),
            max_bytes: args.mail_max_bytes,
            stored: stored.clone(),
        });
    }
    let mut inbound = Vec::new();
    for _ in 0..args.inbox_workers.max(1) {
        inbound.push(tokio::spawn(crate::inbox::worker(
            pool.clone(),
            state.states.clone(),
            clock.clone(),
            args.mail_domain.clone(),
            stored.clone(),
            std::time::Duration::from_secs(30),
        )));
    }
    if let crate::config::Listen::On(address) = args.smtp_listen {
        let smtp = TcpListener::bind(address).await.with_context(|| {
            format!("listening for SMTP on {address} (ADMIRALTY_SMTP_LISTEN; `off` turns it off)")
        })?;
        let address = smtp
            .local_addr()
            .context("reading the SMTP listener's address")?;
        tracing::info!(%address, "SMTP listener for inbound mail");
        inbound.push(tokio::spawn(crate::smtp::run(
            smtp,
            pool.clone(),
            clock.clone(),
            crate::smtp::SmtpSettings {
                domain: args.mail_domain.clone(),
                max_bytes: args.mail_max_bytes,
            },
            stored.clone(),
        )));
    }
    tracing::info!(%address, base_url = %args.base_url, "serving");
    let deadlines = tokio::spawn(deadline_worker(
        pool.clone(),
        clock.clone(),
        args.mail_domain.clone(),
        std::time::Duration::from_secs(args.deadline_poll_seconds.max(1)),
    ));
    let mail = match &args.smtp_url {
        Some(url) => {
            let from = args
                .mail_from
                .clone()
                .unwrap_or_else(|| format!("Admiralty <orders@{}>", args.mail_domain));
            let relay =
                crate::outbox::Relay::new(url, &from).context("setting up the SMTP relay")?;
            Some(tokio::spawn(outbox_worker(
                pool.clone(),
                clock.clone(),
                relay,
            )))
        }
        None => {
            tracing::info!("no ADMIRALTY_SMTP_URL: outbound mail stays queued in the outbox");
            None
        }
    };
    let served = serve(listener, state, shutdown_signal()).await;
    // Stopping mid-resolution is safe: the turn's transaction rolls back and is redone later;
    // a message being sent stays leased and is retried, with the same Message-ID.
    deadlines.abort();
    for task in inbound {
        task.abort();
    }
    if let Some(mail) = mail {
        mail.abort();
    }
    served.context("serving HTTP")?;
    pool.close().await;
    tracing::info!("stopped");
    Ok(())
}

/// Sends due reminders and resolves the turns that are due, every `every`, for as long as
/// `gm serve` runs.
async fn deadline_worker(
    pool: store::PgPool,
    clock: Arc<dyn Clock>,
    mail_domain: String,
    every: std::time::Duration,
) {
    let mut ticks = tokio::time::interval(every);
    loop {
        ticks.tick().await;
        match crate::turns::send_due_reminders(&pool, clock.now(), &mail_domain).await {
            Ok(rounds) => {
                for round in rounds {
                    tracing::info!(
                        game = round.game.0,
                        turn = round.turn,
                        minutes_before = round.before_deadline.num_minutes(),
                        mails = round.mails_queued,
                        "reminders queued"
                    );
                }
            }
            Err(error) => tracing::error!(error = %error, "sending reminders failed; will retry"),
        }
        match crate::turns::resolve_due(&pool, clock.now(), &mail_domain).await {
            Ok(done) => {
                for turn in done {
                    tracing::info!(
                        game = turn.game.0,
                        turn = turn.turn,
                        finished = turn.finished,
                        mails = turn.mails_queued,
                        "turn resolved"
                    );
                }
            }
            Err(error) => tracing::error!(error = %error, "resolving due turns failed; will retry"),
        }
    }
}

/// Delivers queued mail every few seconds, for as long as `gm serve` runs.
async fn outbox_worker(pool: store::PgPool, clock: Arc<dyn Clock>, relay: crate::outbox::Relay) {
    let mut ticks = tokio::time::interval(std::time::Duration::from_secs(5));
    loop {
        ticks.tick().await;
        match crate::outbox::deliver_due(&pool, &relay, clock.now()).await {
            Ok(done) if done != crate::outbox::Delivered::default() => {
                tracing::info!(
                    sent = done.sent,
                    retrying = done.retrying,
                    failed = done.failed,
                    "outbound mail"
                );
            }
            Ok(_) => {}
            Err(error) => {
                tracing::error!(error = %error, "delivering outbound mail failed; will retry")
            }
        }
    }
}
