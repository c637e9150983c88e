//! Settings read from the command line and the environment (the table: docs/configuration.md).

use std::fmt;
use std::net::SocketAddr;
use std::str::FromStr;

use clap::{Args, ValueEnum};
use thiserror::Error;

use crate::secrets;

mod mail_auth;
pub use mail_auth::{DkimArgs, DnsSettings, MailAuthArgs, Switch};

/// Largest inbound message by default (10 MiB), for every door: SMTP, webhook, `gm ingest`.
pub const DEFAULT_MAIL_MAX_BYTES: usize = 10 * 1024 * 1024;

/// Where the database is. Global to every subcommand that needs it.
#[derive(Debug, Clone, Args)]
pub struct DatabaseArgs {
    /// PostgreSQL URL, e.g. postgres://user:password@127.0.0.1:5432/admiralty.
    /// ./scripts/run sets it for its private cluster.
    #[arg(long, env = "DATABASE_URL", hide_env_values = true, global = true)]
    pub database_url: Option<String>,

    /// Largest number of database connections the process opens.
    #[arg(
        long,
        env = "ADMIRALTY_DB_MAX_CONNECTIONS",
        default_value_t = 10,
        global = true
    )]
    pub db_max_connections: u32,
}

#[derive(Debug, Error)]
#[error(
    "DATABASE_URL is not set. Use ./scripts/run (it starts a private PostgreSQL and sets it), \
     or set DATABASE_URL (or --database-url) to postgres://USER:PASSWORD@HOST:PORT/DATABASE"
)]
pub struct MissingDatabaseUrl;

impl DatabaseArgs {
    pub fn url(&self) -> Result<&str, MissingDatabaseUrl> {
        match self.database_url.as_deref() {
            Some(url) if !url.trim().is_empty() => Ok(url),
            _ => Err(MissingDatabaseUrl),
        }
    }
}

/// The limits on guessing secrets and on the work of checking passwords (`crate::secrets`).
/// Global: mail is checked by `gm serve`, `gm ingest` and `gm inbox retry` alike.
#[derive(Debug, Clone, Args)]
pub struct SecretArgs {
    /// Password hashes (argon2id, 19 MiB each) computed at once; default: one per core.
    #[arg(long, env = "ADMIRALTY_PASSWORD_WORKERS", global = true, value_parser = clap::value_parser!(u16).range(1..))]
    pub password_workers: Option<u16>,

    /// Web logins that may wait for a password check beyond those running; more get 503.
    #[arg(long, env = "ADMIRALTY_PASSWORD_QUEUE", global = true, default_value_t = secrets::DEFAULT_PASSWORD_QUEUE)]
    pub password_queue: usize,

    /// The shortest password accepted: GM accounts and mail PASSWORD (at least 8).
    #[arg(long, env = "ADMIRALTY_PASSWORD_MIN_CHARS", global = true, default_value_t = secrets::DEFAULT_PASSWORD_MIN_CHARS as u16, value_parser = clap::value_parser!(u16).range(8..))]
    pub password_min_chars: u16,

    /// Failed GM logins per name within the window; then the name is locked for the window.
    #[arg(long, env = "ADMIRALTY_GM_LOGIN_MAX_FAILURES", global = true, default_value_t = secrets::DEFAULT_GM_LOGIN_MAX_FAILURES, value_parser = clap::value_parser!(i64).range(1..))]
    pub gm_login_max_failures: i64,

    /// The GM login limit's window, in minutes.
    #[arg(long, env = "ADMIRALTY_GM_LOGIN_WINDOW_MINUTES", global = true, default_value_t = secrets::DEFAULT_GM_LOGIN_WINDOW_MINUTES, value_parser = clap::value_parser!(i64).range(1..))]
    pub gm_login_window_minutes: i64,

    /// Failed mail PASSWORDs per subscriber within the window; then their password is not
    /// checked until the window has passed, and they are mailed once to say so.
    #[arg(long, env = "ADMIRALTY_MAIL_PASSWORD_MAX_FAILURES", global = true, default_value_t = secrets::DEFAULT_MAIL_PASSWORD_MAX_FAILURES, value_parser = clap::value_parser!(i64).range(1..))]
    pub mail_password_max_failures: i64,

    /// The mail password lock-out's window, in minutes.
    #[arg(long, env = "ADMIRALTY_MAIL_PASSWORD_WINDOW_MINUTES", global = true, default_value_t = secrets::DEFAULT_MAIL_PASSWORD_WINDOW_MINUTES, value_parser = clap::value_parser!(i64).range(1..))]
    pub mail_password_window_minutes: i64,

    /// Login-link mails one address may be sent in an hour (the player pages' login).
    #[arg(long, env = "ADMIRALTY_LOGIN_LINKS_PER_HOUR", global = true, default_value_t = secrets::DEFAULT_LOGIN_LINKS_PER_HOUR, value_parser = clap::value_parser!(i64).range(1..))]
    pub login_links_per_hour: i64,
}

impl SecretArgs {
    pub fn limits(&self) -> secrets::Limits {
        secrets::Limits {
            password_workers: self.password_workers.map(usize::from),
            password_queue: self.password_queue,
            password_min_chars: usize::from(self.password_min_chars),
            gm_login_max_failures: self.gm_login_max_failures,
            gm_login_window_minutes: self.gm_login_window_minutes,
            mail_password_max_failures: self.mail_password_max_failures,
            mail_password_window_minutes: self.mail_password_window_minutes,
            login_links_per_hour: self.login_links_per_hour,
        }
    }
}

/// How logs are written (to standard error).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line, for log collectors.
    Json,
}

#[derive(Debug, Clone, Args)]
pub struct LogArgs {
    /// Which logs to show: a tracing filter such as `info` or `info,server=debug,sqlx=warn`.
    #[arg(
        long = "log",
        env = "ADMIRALTY_LOG",
        default_value = "info,sqlx=warn",
        global = true
    )]
    pub filter: String,

    #[arg(long, env = "ADMIRALTY_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text, global = true)]
    pub log_format: LogFormat,
}

#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// Address and port the web server listens on.
    #[arg(long, env = "ADMIRALTY_BIND", default_value = "127.0.0.1:8080")]
    pub bind: SocketAddr,

    /// Public URL of the web UI, used in links sent by mail.
    #[arg(
        long,
        env = "ADMIRALTY_BASE_URL",
        default_value = "http://127.0.0.1:8080"
    )]
    pub base_url: BaseUrl,

    /// Apply pending migrations before serving (handy in containers). Without it, `serve`
    /// refuses to start on an out-of-date schema.
    #[arg(long, env = "ADMIRALTY_MIGRATE_ON_START")]
    pub migrate: bool,

    /// Domain of the addresses Admiralty mails from and takes replies at
    /// (`orders+TOKEN@DOMAIN`); it also ends every Message-ID.
    #[arg(long, env = "ADMIRALTY_MAIL_DOMAIN", default_value = "localhost")]
    pub mail_domain: String,

    /// How often, in seconds, to look for turns whose deadline has passed.
    #[arg(long, env = "ADMIRALTY_DEADLINE_POLL_SECONDS", default_value_t = 30)]
    pub deadline_poll_seconds: u64,

    /// The SMTP relay for outbound mail: `smtp://[user:pass@]host[:port][?tls=required]` or
    /// `smtps://…`. Without it, mail stays queued in the outbox for the GM to read.
    #[arg(long, env = "ADMIRALTY_SMTP_URL")]
    pub smtp_url: Option<String>,

    /// The sender of outbound mail; default `Admiralty <orders@MAIL_DOMAIN>`.
    #[arg(long, env = "ADMIRALTY_MAIL_FROM")]
    pub mail_from: Option<String>,

    /// Where the built-in SMTP listener takes inbound mail, or `off`.
    #[arg(long, env = "ADMIRALTY_SMTP_LISTEN", default_value = "127.0.0.1:2525")]
    pub smtp_listen: Listen,

    /// Largest inbound message accepted, in bytes, by the SMTP listener (announced as SIZE) and
    /// the webhook.
    #[arg(long, env = "ADMIRALTY_MAIL_MAX_BYTES", default_value_t = DEFAULT_MAIL_MAX_BYTES)]
    pub mail_max_bytes: usize,

    /// The shared secret of the inbound-mail webhook (`POST /inbound/mail` with
    /// `Authorization: Bearer <secret>`, at least 16 characters). Without it the webhook is off.
    #[arg(long, env = "ADMIRALTY_WEBHOOK_SECRET", hide_env_values = true)]
    pub webhook_secret: Option<String>,

    /// How many workers process inbound mail at once.
    #[arg(long, env = "ADMIRALTY_INBOX_WORKERS", default_value_t = 2)]
    pub inbox_workers: usize,

    #[command(flatten)]
    pub limits: Limits,

    #[command(flatten)]
    pub mail_auth: MailAuthArgs,

    #[command(flatten)]
    pub doors: Box<DoorArgs>,

    #[command(flatten)]
    pub watch: WatchArgs,

    #[command(flatten)]
    pub dkim: DkimArgs,

    #[command(flatten)]
    pub dns: DnsSettings,
}

/// What an operator watches and what stands in front: metrics, proxies (docs/operations.md).
#[derive(Debug, Clone, Args)]
pub struct WatchArgs {
    /// Token a scraper sends as `Authorization: Bearer <token>` to read `/metrics` on the web
    /// port. Without it (and without ADMIRALTY_METRICS_LISTEN) no metrics are kept.
    #[arg(long, env = "ADMIRALTY_METRICS_TOKEN", hide_env_values = true)]
    pub metrics_token: Option<String>,

    /// An address of its own for `/metrics` (e.g. 127.0.0.1:9464), asking the token only when
    /// one is set.
    #[arg(long, env = "ADMIRALTY_METRICS_LISTEN")]
    pub metrics_listen: Option<SocketAddr>,

    /// Reverse proxies (addresses or CIDR blocks, comma-separated) whose X-Forwarded-For or
    /// Forwarded header names the client; from anyone else those headers are ignored.
    #[arg(long, env = "ADMIRALTY_TRUSTED_PROXIES", default_value = "")]
    pub trusted_proxies: crate::clients::TrustedProxies,

    /// Failed GM logins one client address may make within the GM login window (any names).
    #[arg(long, env = "ADMIRALTY_GM_LOGIN_MAX_FAILURES_PER_CLIENT", default_value_t = crate::clients::DEFAULT_MAX_FAILURES_PER_CLIENT, value_parser = clap::value_parser!(u32).range(1..))]
    pub gm_login_max_failures_per_client: u32,
}

/// The network doors' limits against clients that never finish (see `doors`).
#[derive(Debug, Clone, Args)]
pub struct DoorArgs {
    /// Seconds a client has to send a request's headers (and an idle kept-alive connection
    /// waits for its next request).
    #[arg(
        long,
        env = "ADMIRALTY_HTTP_HEADER_TIMEOUT_SECONDS",
        default_value_t = 10
    )]
    pub http_header_timeout_seconds: u64,

    /// Seconds a client has to send a request's whole body.
    #[arg(
        long,
        env = "ADMIRALTY_HTTP_BODY_TIMEOUT_SECONDS",
        default_value_t = 60
    )]
    pub http_body_timeout_seconds: u64,

    /// Largest request head (request line and headers), in bytes.
    #[arg(long, env = "ADMIRALTY_HTTP_MAX_HEADER_BYTES", default_value_t = 65536)]
    pub http_max_header_bytes: usize,

    /// Most HTTP connections held at once; beyond it the slowest is closed.
    #[arg(long, env = "ADMIRALTY_HTTP_MAX_CONNECTIONS", default_value_t = 4096)]
    pub http_max_connections: usize,

    /// Most HTTP connections held for one client address (an IPv6 /64); beyond it that
    /// client's slowest is closed.
    #[arg(
        long,
        env = "ADMIRALTY_HTTP_MAX_CONNECTIONS_PER_PEER",
        default_value_t = 256
    )]
    pub http_max_connections_per_peer: usize,

    /// Most SMTP sessions at once; a client beyond it waits for a free one (or an idle session
    /// is closed), then is refused with 421.
    #[arg(long, env = "ADMIRALTY_SMTP_MAX_SESSIONS", default_value_t = 1000)]
    pub smtp_max_sessions: usize,

    /// The SMTP listener's certificate chain for STARTTLS (PEM); with the key, EHLO offers
    /// STARTTLS. Read again when the file changes.
    #[arg(long, env = "ADMIRALTY_SMTP_TLS_CERT", requires = "smtp_tls_key")]
    pub smtp_tls_cert: Option<std::path::PathBuf>,

    /// The private key of `ADMIRALTY_SMTP_TLS_CERT` (PEM).
    #[arg(long, env = "ADMIRALTY_SMTP_TLS_KEY", requires = "smtp_tls_cert")]
    pub smtp_tls_key: Option<std::path::PathBuf>,

    /// Refuse MAIL before STARTTLS (530 5.7.0): `1` or `true`.
    #[arg(long, env = "ADMIRALTY_SMTP_REQUIRE_TLS", requires = "smtp_tls_cert")]
    pub smtp_require_tls: bool,

    /// Commands that make no progress (NOOP, RSET, VRFY, EXPN, HELP, ETRN, unknown ones) one
    /// SMTP session may send; the next is answered 421 and the session closed.
    #[arg(long, env = "ADMIRALTY_SMTP_JUNK_COMMANDS", default_value_t = 100)]
    pub smtp_junk_commands: u32,

    /// Most SMTP sessions for one client address (an IPv6 /64).
    #[arg(
        long,
        env = "ADMIRALTY_SMTP_MAX_SESSIONS_PER_PEER",
        default_value_t = 100
    )]
    pub smtp_max_sessions_per_peer: usize,

    /// Bytes of unfinished messages all SMTP sessions together may hold in memory; a message
    /// that would go beyond it is refused with 452 (try again later).
    #[arg(long, env = "ADMIRALTY_SMTP_MAX_BUFFERED_BYTES", default_value_t = 256 * 1024 * 1024)]
    pub smtp_max_buffered_bytes: usize,

    /// Seconds an SMTP session may last in all, whatever it does.
    #[arg(long, env = "ADMIRALTY_SMTP_SESSION_SECONDS", default_value_t = 600)]
    pub smtp_session_seconds: u64,

    /// Seconds an SMTP client may stay silent.
    #[arg(long, env = "ADMIRALTY_SMTP_IDLE_SECONDS", default_value_t = 300)]
    pub smtp_idle_seconds: u64,

    /// When the SMTP listener is full (for a client address or in all), a session silent for
    /// this many seconds is closed to make room for a new one.
    #[arg(long, env = "ADMIRALTY_SMTP_SHED_IDLE_SECONDS", default_value_t = 5)]
    pub smtp_shed_idle_seconds: u64,

    /// Seconds a new SMTP client beyond the caps waits for room before it is refused with
    /// 421 (as many may wait as may be served).
    #[arg(
        long,
        env = "ADMIRALTY_SMTP_ADMISSION_WAIT_SECONDS",
        default_value_t = 30
    )]
    pub smtp_admission_wait_seconds: u64,

    /// Seconds a stopping `gm serve` lets open connections finish before closing them.
    #[arg(long, env = "ADMIRALTY_SHUTDOWN_GRACE_SECONDS", default_value_t = 10)]
    pub shutdown_grace_seconds: u64,
}

impl DoorArgs {
    /// Descriptors the doors may hold at most: HTTP connections, SMTP sessions and as many
    /// waiting for room.
    pub fn descriptors_needed(&self) -> u64 {
        let sockets = self.http_max_connections + 2 * self.smtp_max_sessions;
        u64::try_from(sockets).unwrap_or(u64::MAX)
    }
}

/// What one sender may make Admiralty send or print (issue 17): each an hourly budget of mail,
/// or a turn's press. A mailbox is counted however its address is spelled
/// (`mail::address::MailboxKey`). `0` allows none.
#[derive(Debug, Clone, Copy, PartialEq, Args)]
pub struct Limits {
    /// Answers (confirmations and refusals) one mailbox may get in an hour.
    #[arg(long, env = "ADMIRALTY_REPLIES_PER_HOUR", default_value_t = Limits::DEFAULT.replies_per_hour)]
    pub replies_per_hour: u32,

    /// Answers one mail domain may get in an hour, to all its mailboxes together.
    #[arg(long, env = "ADMIRALTY_REPLIES_PER_DOMAIN_PER_HOUR", default_value_t = Limits::DEFAULT.replies_per_domain_per_hour)]
    pub replies_per_domain_per_hour: u32,

    /// Refusals (answers to mail that proved no sender) one mailbox may get in an hour.
    #[arg(long, env = "ADMIRALTY_REFUSALS_PER_HOUR", default_value_t = Limits::DEFAULT.refusals_per_hour)]
    pub refusals_per_hour: u32,

    /// Refusals one mail domain may get in an hour.
    #[arg(long, env = "ADMIRALTY_REFUSALS_PER_DOMAIN_PER_HOUR", default_value_t = Limits::DEFAULT.refusals_per_domain_per_hour)]
    pub refusals_per_domain_per_hour: u32,

    /// Refusals Admiralty sends in an hour, to everyone together.
    #[arg(long, env = "ADMIRALTY_REFUSALS_IN_ALL_PER_HOUR", default_value_t = Limits::DEFAULT.refusals_in_all_per_hour)]
    pub refusals_in_all_per_hour: u32,

    /// Private messages (TELL) relayed for one player (subscriber) in an hour.
    #[arg(long, env = "ADMIRALTY_TELLS_PER_HOUR", default_value_t = Limits::DEFAULT.tells_per_hour)]
    pub tells_per_hour: u32,

    /// Private messages (TELL) relayed to one mailbox in an hour, from everyone together.
    #[arg(long, env = "ADMIRALTY_TELLS_RECEIVED_PER_HOUR", default_value_t = Limits::DEFAULT.tells_received_per_hour)]
    pub tells_received_per_hour: u32,

    /// Characters of one private message (TELL): a longer one is not relayed.
    #[arg(long, env = "ADMIRALTY_TELL_MAX_CHARS", default_value_t = Limits::DEFAULT.tell_max_chars)]
    pub tell_max_chars: u32,

    #[command(flatten)]
    pub press: PressLimits,

    #[command(flatten)]
    pub bounces: BounceRules,
}

impl Limits {
    pub const DEFAULT: Limits = Limits {
        replies_per_hour: 20,
        replies_per_domain_per_hour: 5000,
        refusals_per_hour: 3,
        refusals_per_domain_per_hour: 30,
        refusals_in_all_per_hour: 300,
        tells_per_hour: 20,
        tells_received_per_hour: 30,
        tell_max_chars: 3000,
        press: PressLimits::DEFAULT,
        bounces: BounceRules::DEFAULT,
    };
}

/// How bounces are scored (Mailman's defaults): a mailbox whose score reaches the threshold
/// is no longer mailed until it is resumed (crate::bounces, docs/mail.md#bounces).
#[derive(Debug, Clone, Copy, PartialEq, Args)]
pub struct BounceRules {
    /// Score of a hard bounce (5.x.x).
    #[arg(long, env = "ADMIRALTY_BOUNCE_HARD_SCORE", default_value_t = BounceRules::DEFAULT.hard_score)]
    pub hard_score: f64,
    /// Score of a soft bounce (4.x.x, or delayed).
    #[arg(long, env = "ADMIRALTY_BOUNCE_SOFT_SCORE", default_value_t = BounceRules::DEFAULT.soft_score)]
    pub soft_score: f64,
    /// Hours within which a second bounce of a mailbox is not scored again.
    #[arg(long, env = "ADMIRALTY_BOUNCE_SCORE_ONCE_PER_HOURS", default_value_t = BounceRules::DEFAULT.once_per_hours, value_parser = clap::value_parser!(u32).range(1..))]
    pub once_per_hours: u32,
    /// Days without a bounce after which a mailbox's score starts again from nothing.
    #[arg(long, env = "ADMIRALTY_BOUNCE_RESET_DAYS", default_value_t = BounceRules::DEFAULT.reset_days, value_parser = clap::value_parser!(u32).range(1..))]
    pub reset_days: u32,
    /// Score at which delivery to the mailbox is suspended.
    #[arg(long, env = "ADMIRALTY_BOUNCE_SUSPEND_AT", default_value_t = BounceRules::DEFAULT.suspend_at)]
    pub suspend_at: f64,
}

impl BounceRules {
    pub const DEFAULT: BounceRules = BounceRules {
        hard_score: 1.0,
        soft_score: 0.5,
        once_per_hours: 24,
        reset_days: 7,
        suspend_at: 5.0,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}

/// How much press one player may have printed with one turn's report, whatever way it came
/// (PRESS lines, press in orders, the web form).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Args)]
pub struct PressLimits {
    /// Characters of press one player may have printed with one turn's report, in all.
    #[arg(long = "press-chars-per-turn", env = "ADMIRALTY_PRESS_CHARS_PER_TURN", default_value_t = PressLimits::DEFAULT.chars_per_turn)]
    pub chars_per_turn: u32,

    /// Press entries one player may have printed with one turn's report.
    #[arg(long = "press-entries-per-turn", env = "ADMIRALTY_PRESS_ENTRIES_PER_TURN", default_value_t = PressLimits::DEFAULT.entries_per_turn)]
    pub entries_per_turn: u32,
}

impl PressLimits {
    pub const DEFAULT: PressLimits = PressLimits {
        chars_per_turn: 3000,
        entries_per_turn: 10,
    };
}

impl Default for PressLimits {
    fn default() -> Self {
        PressLimits::DEFAULT
    }
}

/// A listening address, or `off`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listen {
    Off,
    On(SocketAddr),
}

impl std::str::FromStr for Listen {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        if text.eq_ignore_ascii_case("off") {
            return Ok(Listen::Off);
        }
        text.parse()
            .map(Listen::On)
            .map_err(|_| format!("{text:?} is neither host:port nor off"))
    }
}

/// An absolute http(s) URL without a trailing slash, so paths can be appended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaseUrl(String);

/// The base URL when none is given: a server on this machine, as `gm serve` binds by default.
pub const DEFAULT_BASE_URL: &str = "http://127.0.0.1:8080";

#[derive(Debug, Error)]
#[error(
    "the base URL must start with http:// or https:// and name a host, e.g. https://admiralty.example.org"
)]
pub struct BaseUrlError;

impl BaseUrl {
    pub fn parse(input: &str) -> Result<Self, BaseUrlError> {
        let trimmed = input.trim().trim_end_matches('/');
        let rest = trimmed
            .strip_prefix("http://")
            .or_else(|| trimmed.strip_prefix("https://"))
            .ok_or(BaseUrlError)?;
        let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
        if host.is_empty() || trimmed.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(BaseUrlError);
        }
        Ok(BaseUrl(trimmed.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// [`DEFAULT_BASE_URL`]: for tools and tests that give none.
    pub fn local() -> BaseUrl {
        BaseUrl(DEFAULT_BASE_URL.to_owned())
    }
}

impl FromStr for BaseUrl {
    type Err = BaseUrlError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        BaseUrl::parse(s)
    }
}

impl fmt::Display for BaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Where `gm backup` and `gm restore` find PostgreSQL's `pg_dump` and `pg_restore`.
#[derive(Debug, Clone, Args)]
pub struct PgToolArgs {
    /// A directory holding pg_dump and pg_restore (e.g. /usr/lib/postgresql/16/bin); unset,
    /// they are looked for on PATH and in /usr/lib/postgresql/*/bin, newest first.
    #[arg(long, env = "ADMIRALTY_PG_BIN_DIR")]
    pub pg_bin_dir: Option<std::path::PathBuf>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_urls() {
        assert_eq!(
            BaseUrl::parse("http://127.0.0.1:8080/").unwrap().as_str(),
            "http://127.0.0.1:8080"
        );
        assert_eq!(
            BaseUrl::parse("https://x.example/gm").unwrap().as_str(),
            "https://x.example/gm"
        );
        for bad in [
            "",
            "ftp://x",
            "http://",
            "https:///path",
            "http://a b",
            "127.0.0.1:8080",
        ] {
            assert!(BaseUrl::parse(bad).is_err(), "{bad:?}");
        }
    }
}
