//! The one-shot commands: adjudicate offline, verify a game, take one message from an MTA,
//! tend the mail queues, add a GM, migrate (and seed the demo).

use anyhow::{Context, bail};

use super::{
    AdjudicateAction, AdjudicateArgs, DEMO_GM, IngestArgs, ListArgs, MigrateArgs, OutboxCommand,
    PipeArgs, TryAgainLater, VerifyArgs, clock, connect,
};
use crate::config::DatabaseArgs;

/// Pure JSON in, JSON out: no runtime, no database, no logging to mix into stdout.
pub(super) fn run_adjudicate(args: &AdjudicateArgs) -> anyhow::Result<()> {
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

/// `gm verify --record FILE`: the standalone verifier's check (the `record` crate), no database.
pub(super) fn run_verify_record(path: &std::path::Path) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading the record {}", path.display()))?;
    let record = record::GameRecord::parse(&text).with_context(|| path.display().to_string())?;
    let verdict = record::verify(&record);
    print!("{}", record::describe(&verdict));
    if let Some(failed) = verdict.first_fault() {
        bail!("{}: turn {} does not verify", path.display(), failed.turn);
    }
    Ok(())
}

pub(super) async fn run_verify(database: &DatabaseArgs, args: VerifyArgs) -> anyhow::Result<()> {
    let Some(game) = args.game else {
        bail!("give a game's id, or --record FILE");
    };
    let pool = connect(database).await?;
    let checks = crate::turns::verify_game(&pool, game)
        .await
        .with_context(|| format!("verifying game {game}"))?;
    pool.close().await;
    if checks.is_empty() {
        println!("game {game}: no published turn to verify");
    }
    for check in &checks {
        let verdict = if check.matches { "ok" } else { "MISMATCH" };
        println!(
            "turn {}: {verdict} (sealed seed from the {})",
            check.turn, check.sealed_from
        );
    }
    if checks.iter().any(|c| !c.matches) {
        bail!("game {game}: a published report does not match its replay");
    }
    Ok(())
}

pub(super) async fn run_ingest(database: &DatabaseArgs, args: PipeArgs) -> anyhow::Result<()> {
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
        let outcome = crate::inbox::ingest_with_envelope(
            &pool,
            &raw,
            &args.recipients,
            "pipe",
            now,
            args.ingest.inbox_settings()?,
        )
        .await
        .context("storing and processing the message")?;
        pool.close().await;
        anyhow::Ok(outcome)
    }
    .await
    .map_err(TryAgainLater)?;
    match outcome {
        crate::inbox::Ingested::Stored(id) => println!("stored as inbound message {}", id),
        crate::inbox::Ingested::Duplicate(id) => {
            println!(
                "already stored as inbound message {}: this delivery has no effect",
                id
            )
        }
    }
    Ok(())
}

pub(super) async fn run_inbox_retry(
    database: &DatabaseArgs,
    args: IngestArgs,
) -> anyhow::Result<()> {
    let pool = connect(database).await?;
    let retried = crate::mailroom::retry_inbound(
        &pool,
        &crate::turns::StateCache::default(),
        clock()?.now(),
        crate::mailroom::Retry::AllFailed,
        "gm",
        args.inbox_settings()?,
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

pub(super) async fn run_inbox_list(database: &DatabaseArgs, args: ListArgs) -> anyhow::Result<()> {
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
            e.id,
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

pub(super) async fn run_outbox(
    database: &DatabaseArgs,
    command: OutboxCommand,
) -> anyhow::Result<()> {
    let pool = connect(database).await?;
    match command {
        OutboxCommand::List(args) => {
            let status: store::status::OutboundStatus = args
                .status
                .parse()
                .context("outbound statuses: queued, sent, failed")?;
            let entries = store::outbox::list_by_status(&pool, status, None, args.limit).await?;
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

pub(super) async fn run_add_gm(database: &DatabaseArgs, name: &str) -> anyhow::Result<()> {
    let name = store::accounts::GmName::parse(name)?;
    let mut password = String::new();
    std::io::stdin()
        .read_line(&mut password)
        .context("reading the password from standard input")?;
    let password = password.trim_end_matches(['\r', '\n']).to_owned();
    // Refused before any connection is made.
    crate::secrets::check_new(&password)?;
    let pool = connect(database).await?;
    crate::accounts::add_gm(&pool, clock()?.now(), &name, password, "cli")
        .await
        .with_context(|| format!("creating GM {name}"))?;
    pool.close().await;
    println!("GM {name} created: log in at /gm/login");
    Ok(())
}

pub(super) async fn run_migrate(database: &DatabaseArgs, args: MigrateArgs) -> anyhow::Result<()> {
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
                // 16 hex digits, or more when ADMIRALTY_PASSWORD_MIN_CHARS asks for more.
                let bytes = crate::secrets::limits()
                    .password_min_chars
                    .div_ceil(2)
                    .max(8);
                let password = crate::web::random_hex(bytes);
                let name = store::accounts::GmName::parse(DEMO_GM)?;
                match crate::accounts::add_gm(&pool, clock.now(), &name, password.clone(), "system")
                    .await
                {
                    Ok(()) => println!(
                        "demo: GM console login {DEMO_GM:?}, password {password:?} (at /gm/login)"
                    ),
                    Err(crate::accounts::AccountError::Store(
                        store::StoreError::AlreadyExists { .. },
                    )) => {}
                    Err(error) => return Err(error).context("creating the demo GM"),
                }
            }
        }
    }
    pool.close().await;
    Ok(())
}
