//! `gm serve`: the web UI, the mail doors and the workers (inbox, deadlines, outbox), until a
//! signal stops them.

use std::sync::Arc;

use anyhow::{Context, bail};
use tokio::net::TcpListener;

use super::{clock, connect};
use crate::clock::Clock;
use crate::config::{DatabaseArgs, ServeArgs};
use crate::{AppState, serve_with, shutdown_signal};

pub(super) async fn run_serve(database: &DatabaseArgs, args: ServeArgs) -> anyhow::Result<()> {
    let dkim = load_dkim(&args)?;
    let pool = connect(database).await?;
    check_schema(&pool, args.migrate).await?;
    warn_if_few_descriptors(database, &args);
    let stop = crate::doors::Stop::on(
        shutdown_signal(),
        std::time::Duration::from_secs(args.doors.shutdown_grace_seconds),
    );
    let listener = TcpListener::bind(args.bind)
        .await
        .with_context(|| format!("listening on {} (ADMIRALTY_BIND)", args.bind))?;
    let address = listener.local_addr().context("reading the bound address")?;
    let clock = clock()?;
    let stored = Arc::new(tokio::sync::Notify::new());
    let state = app_state(&pool, &clock, &args, &stored, dkim.as_deref())?;
    let inbound: Vec<_> = (0..args.inbox_workers.max(1))
        .map(|_| {
            tokio::spawn(crate::inbox::worker(
                pool.clone(),
                state.states.clone(),
                clock.clone(),
                state.inbox_settings(),
                stored.clone(),
                std::time::Duration::from_secs(30),
            ))
        })
        .collect();
    let smtp_door = match args.smtp_listen {
        crate::config::Listen::On(address) => {
            let door = smtp_door(address, &args, &pool, &clock, &stored, &stop).await?;
            Some(door)
        }
        crate::config::Listen::Off => None,
    };
    tracing::info!(%address, base_url = %args.base_url, "serving");
    let deadlines = tokio::spawn(deadline_worker(
        pool.clone(),
        clock.clone(),
        args.mail_domain.clone(),
        args.base_url.to_string(),
        std::time::Duration::from_secs(args.deadline_poll_seconds.max(1)),
    ));
    let mail = outbox_relay(&args, &pool, &clock, dkim).await?;
    // HTTP and SMTP stop taking connections at the same moment, and close what is left when
    // the grace period is over.
    let metrics_door = metrics_door(&args, &state, &stop).await?;
    let served = serve_with(listener, state, http_limits(&args), stop).await;
    if let Some(door) = metrics_door {
        let _ = door.await;
    }
    if let Some(smtp) = smtp_door {
        let _ = smtp.await;
    }
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

/// The DKIM key, read before anything starts: a bad key file stops `gm serve` with the reason;
/// no key is allowed, and said.
fn load_dkim(args: &ServeArgs) -> anyhow::Result<Option<Arc<crate::dkim::DkimKey>>> {
    let dkim = args
        .dkim
        .load(&args.mail_domain)
        .context("reading the DKIM key (ADMIRALTY_DKIM_KEY)")?;
    match &dkim {
        Some(key) => tracing::info!(
            selector = key.selector(),
            domain = key.domain(),
            algorithm = key.algorithm().tag(),
            "outbound mail is DKIM-signed"
        ),
        None => tracing::warn!(
            "no ADMIRALTY_DKIM_KEY: outbound mail goes out unsigned, and the big mailbox providers bin or refuse unsigned bulk mail (gm dkim generate; docs/mail.md)"
        ),
    }
    Ok(dkim.map(Arc::new))
}

/// Applies the migrations when asked to; refuses to serve a schema that is out of date.
async fn check_schema(pool: &store::PgPool, migrate: bool) -> anyhow::Result<()> {
    if migrate {
        let report = store::migrate(pool).await.context("applying migrations")?;
        tracing::info!(applied = ?report.applied, version = ?report.current_version, "migrations checked");
    }
    let pending = store::pending_migrations(pool)
        .await
        .context("reading the applied migrations")?;
    if !pending.is_empty() {
        bail!(
            "the database schema is out of date (pending migrations {pending:?}): run `gm migrate` first"
        );
    }
    Ok(())
}

/// Raises the open-file limit to its hard limit, so that the doors' caps, not the kernel's
/// default soft limit, decide how many connections are held; warns when even that is short.
fn warn_if_few_descriptors(database: &DatabaseArgs, args: &ServeArgs) {
    if let Some(limit) = crate::doors::raise_open_file_limit() {
        let needed = args.doors.descriptors_needed() + u64::from(database.db_max_connections) + 64;
        if limit < needed {
            tracing::warn!(
                limit,
                needed,
                "the open-file limit is below what the connection caps allow: lower \
                 ADMIRALTY_HTTP_MAX_CONNECTIONS or ADMIRALTY_SMTP_MAX_SESSIONS, or raise the hard limit"
            );
        }
    }
}

/// The web's state, with the webhook door when a secret is configured.
fn app_state(
    pool: &store::PgPool,
    clock: &Arc<dyn Clock>,
    args: &ServeArgs,
    stored: &Arc<tokio::sync::Notify>,
    dkim: Option<&crate::dkim::DkimKey>,
) -> anyhow::Result<AppState> {
    let mut state = AppState::new(pool.clone(), clock.clone(), args.base_url.clone())
        .with_mail_domain(args.mail_domain.clone())
        .with_limits(args.limits, args.mail_from.clone())
        .with_mail_auth(
            crate::inbox::authenticate::MailAuthenticator::from_settings(
                &args.mail_auth,
                &args.mail_domain,
            )
            .map_err(anyhow::Error::msg)?,
        );
    if state.mail_auth.is_none() {
        tracing::info!("ADMIRALTY_MAIL_AUTH=off: inbound SPF, DKIM and DMARC are not checked");
    }
    let plan = args.dns.plan(
        &args.mail_domain,
        &args.base_url,
        args.smtp_url.as_deref(),
        dkim,
    );
    state.dns = Some(Arc::new(crate::dns::DnsCheck {
        plan,
        resolver: args.mail_auth.dns_resolver,
        timeout: args.dns.timeout(),
    }));
    state.relay_configured = args.smtp_url.is_some();
    state.trusted_proxies = Arc::new(args.watch.trusted_proxies.clone());
    state.client_failures = Arc::new(crate::clients::ClientFailures::new(
        args.watch.gm_login_max_failures_per_client,
        crate::secrets::limits().gm_login_window(),
    ));
    state.metrics = metrics_recorder(&args.watch)?;
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
    Ok(state)
}

/// The metrics' recorder, installed only when they are served: without a token or an address
/// of their own, nothing is measured.
fn metrics_recorder(
    watch: &crate::config::WatchArgs,
) -> anyhow::Result<Option<Arc<crate::MetricsDoor>>> {
    if watch.metrics_token.is_none() && watch.metrics_listen.is_none() {
        return Ok(None);
    }
    if let Some(token) = &watch.metrics_token
        && token.chars().count() < 16
    {
        bail!("ADMIRALTY_METRICS_TOKEN is too short: use at least 16 random characters");
    }
    let handle = crate::measures::install().context("installing the metrics recorder")?;
    Ok(Some(Arc::new(crate::MetricsDoor {
        handle,
        token: watch.metrics_token.clone(),
    })))
}

/// `/metrics` on its own address (`ADMIRALTY_METRICS_LISTEN`), serving until `stop`.
async fn metrics_door(
    args: &ServeArgs,
    state: &AppState,
    stop: &crate::doors::Stop,
) -> anyhow::Result<Option<tokio::task::JoinHandle<std::io::Result<()>>>> {
    let Some(address) = args.watch.metrics_listen else {
        return Ok(None);
    };
    let listener = TcpListener::bind(address).await.with_context(|| {
        format!("listening for metrics on {address} (ADMIRALTY_METRICS_LISTEN)")
    })?;
    tracing::info!(%address, "metrics listener");
    Ok(Some(tokio::spawn(crate::doors::http::serve(
        listener,
        crate::metrics_app(state.clone()),
        crate::doors::http::HttpLimits::default(),
        stop.clone(),
    ))))
}

/// The SMTP listener for inbound mail, serving until `stop`.
async fn smtp_door(
    address: std::net::SocketAddr,
    args: &ServeArgs,
    pool: &store::PgPool,
    clock: &Arc<dyn Clock>,
    stored: &Arc<tokio::sync::Notify>,
    stop: &crate::doors::Stop,
) -> anyhow::Result<tokio::task::JoinHandle<()>> {
    let smtp = TcpListener::bind(address).await.with_context(|| {
        format!("listening for SMTP on {address} (ADMIRALTY_SMTP_LISTEN; `off` turns it off)")
    })?;
    let address = smtp
        .local_addr()
        .context("reading the SMTP listener's address")?;
    tracing::info!(%address, "SMTP listener for inbound mail");
    let mut settings = crate::smtp::SmtpSettings::new(&args.mail_domain, args.mail_max_bytes);
    settings.limits = smtp_limits(&args.doors);
    if let (Some(cert), Some(key)) = (&args.doors.smtp_tls_cert, &args.doors.smtp_tls_key) {
        settings.tls = Some(
            crate::smtp::TlsCertificates::load(cert, key)
                .context("reading ADMIRALTY_SMTP_TLS_CERT and ADMIRALTY_SMTP_TLS_KEY")?,
        );
        settings.require_tls = args.doors.smtp_require_tls;
        tracing::info!(
            require = settings.require_tls,
            "SMTP listener offers STARTTLS"
        );
    }
    Ok(tokio::spawn(crate::smtp::serve(
        smtp,
        pool.clone(),
        clock.clone(),
        settings,
        stored.clone(),
        stop.clone(),
    )))
}

/// The outbox worker sending through the configured relay; without one, mail stays queued.
async fn outbox_relay(
    args: &ServeArgs,
    pool: &store::PgPool,
    clock: &Arc<dyn Clock>,
    dkim: Option<Arc<crate::dkim::DkimKey>>,
) -> anyhow::Result<Option<tokio::task::JoinHandle<()>>> {
    let Some(url) = &args.smtp_url else {
        tracing::info!("no ADMIRALTY_SMTP_URL: outbound mail stays queued in the outbox");
        return Ok(None);
    };
    let from = args
        .mail_from
        .clone()
        .unwrap_or_else(|| format!("Admiralty <orders@{}>", args.mail_domain));
    let relay = crate::outbox::Relay::new(url, &from)
        .context("setting up the SMTP relay")?
        .with_dkim(dkim);
    // Every message's return path is signed (bounces+TAG@): its bounces are scored.
    let key = crate::bounces::tag_key(pool, clock.now())
        .await
        .context("reading the return-path key")?;
    let relay = relay.with_return_paths(key);
    Ok(Some(tokio::spawn(outbox_worker(
        pool.clone(),
        clock.clone(),
        relay,
    ))))
}

/// Sends due reminders, resolves the turns that are due, publishes due issues and queues the
/// GMs' digests, every `every`, for as long as `gm serve` runs.
async fn deadline_worker(
    pool: store::PgPool,
    clock: Arc<dyn Clock>,
    mail_domain: String,
    base_url: String,
    every: std::time::Duration,
) {
    let mut ticks = tokio::time::interval(every);
    let site = crate::letters::MailSite {
        domain: &mail_domain,
        base_url: &base_url,
    };
    loop {
        ticks.tick().await;
        match crate::turns::send_due_reminders(&pool, clock.now(), site).await {
            Ok(rounds) => {
                for round in rounds {
                    tracing::info!(
                        game = %round.game,
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
                        game = %turn.game,
                        turn = turn.turn,
                        finished = turn.finished,
                        mails = turn.mails_queued,
                        "turn resolved"
                    );
                }
            }
            Err(error) => tracing::error!(error = %error, "resolving due turns failed; will retry"),
        }
        match crate::offers::expire_offers(&pool, clock.now(), &mail_domain).await {
            Ok(0) => {}
            Ok(expired) => tracing::info!(expired, "offers of seats expired"),
            Err(error) => tracing::error!(error = %error, "expiring offers failed; will retry"),
        }
        // After the turns, so an issue due at a deadline prints the reports of that deadline.
        match crate::issues::publish_due(&pool, clock.now(), &mail_domain, &base_url).await {
            Ok(done) => {
                for issue in done {
                    tracing::info!(
                        zine = %issue.zine,
                        issue = issue.number,
                        mails = issue.mails_queued,
                        "issue published"
                    );
                }
            }
            Err(error) => {
                tracing::error!(error = %error, "publishing due issues failed; will retry")
            }
        }
        // Last, so a digest tells what this round did.
        match crate::digest::send_due(&pool, clock.now(), site).await {
            Ok(0) => {}
            Ok(digests) => tracing::info!(digests, "GM digests queued"),
            Err(error) => tracing::error!(error = %error, "queueing GM digests failed; will retry"),
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

/// The HTTP door's limits, from the settings.
fn http_limits(args: &ServeArgs) -> crate::doors::http::HttpLimits {
    use std::time::Duration;
    let doors = &args.doors;
    crate::doors::http::HttpLimits {
        trusted_proxies: args.watch.trusted_proxies.clone(),
        header_timeout: Duration::from_secs(doors.http_header_timeout_seconds.max(1)),
        body_timeout: Duration::from_secs(doors.http_body_timeout_seconds.max(1)),
        max_header_bytes: doors.http_max_header_bytes,
        max_connections: doors.http_max_connections.max(1),
        max_connections_per_peer: doors.http_max_connections_per_peer.max(1),
    }
}

/// The SMTP listener's limits, from the settings.
fn smtp_limits(doors: &crate::config::DoorArgs) -> crate::smtp::SmtpLimits {
    use std::time::Duration;
    crate::smtp::SmtpLimits {
        max_sessions: doors.smtp_max_sessions.max(1),
        max_sessions_per_peer: doors.smtp_max_sessions_per_peer.max(1),
        max_buffered_bytes: doors.smtp_max_buffered_bytes,
        session_lifetime: Duration::from_secs(doors.smtp_session_seconds.max(1)),
        idle_timeout: Duration::from_secs(doors.smtp_idle_seconds.max(1)),
        shed_after_idle: Duration::from_secs(doors.smtp_shed_idle_seconds),
        admission_wait: Duration::from_secs(doors.smtp_admission_wait_seconds),
        junk_commands: doors.smtp_junk_commands,
    }
}
