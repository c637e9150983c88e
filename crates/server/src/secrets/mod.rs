//! The secrets people can guess, and the work of checking them.
//!
//! - Every argon2 hash and check in the process goes through one [`Gate`]: at most
//!   `password_workers` at once (19 MiB each), off the async threads, in reused memory; a web
//!   login beyond a short queue is refused ([`Busy`], a 503), mail and the command line wait.
//! - New passwords (GM accounts, mail `PASSWORD`) are at least `password_min_chars` long.
//! - Guessing is limited where a secret can be guessed: GM logins per name typed, mail
//!   passwords per subscriber, login-link mails per address (the [`Limits`]). Session tokens,
//!   login links and reply tokens are 160 to 256 random bits: not guessable, so not limited.
//!
//! The limits and the gate belong to the process (the memory they bound is the process's), so
//! they are set once at start-up from the settings ([`configure`]) and read where needed.

mod argon;
mod gate;

use std::sync::OnceLock;

use chrono::Duration;
use store::StoreError;
use store::subscribers::SubscriberId;

pub use gate::{Busy, Gate, Wait};

use crate::entropy::{Entropy, new_reply_token};

/// Password checks queued beyond the running ones before web logins are refused.
pub const DEFAULT_PASSWORD_QUEUE: usize = 8;
/// The shortest password accepted, for GM accounts and mail alike.
pub const DEFAULT_PASSWORD_MIN_CHARS: usize = 12;
/// Failed GM logins allowed per name typed within the window.
pub const DEFAULT_GM_LOGIN_MAX_FAILURES: i64 = 5;
pub const DEFAULT_GM_LOGIN_WINDOW_MINUTES: i64 = 15;
/// Failed mail passwords allowed per subscriber within the window.
pub const DEFAULT_MAIL_PASSWORD_MAX_FAILURES: i64 = 5;
pub const DEFAULT_MAIL_PASSWORD_WINDOW_MINUTES: i64 = 60;
/// Login-link mails one address may be sent in an hour.
pub const DEFAULT_LOGIN_LINKS_PER_HOUR: i64 = 3;

/// The limits on guessing secrets and on the work of checking them (docs/configuration.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// argon2 hashes run at once; `None`: one per core.
    pub password_workers: Option<usize>,
    pub password_queue: usize,
    pub password_min_chars: usize,
    pub gm_login_max_failures: i64,
    pub gm_login_window_minutes: i64,
    pub mail_password_max_failures: i64,
    pub mail_password_window_minutes: i64,
    pub login_links_per_hour: i64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            password_workers: None,
            password_queue: DEFAULT_PASSWORD_QUEUE,
            password_min_chars: DEFAULT_PASSWORD_MIN_CHARS,
            gm_login_max_failures: DEFAULT_GM_LOGIN_MAX_FAILURES,
            gm_login_window_minutes: DEFAULT_GM_LOGIN_WINDOW_MINUTES,
            mail_password_max_failures: DEFAULT_MAIL_PASSWORD_MAX_FAILURES,
            mail_password_window_minutes: DEFAULT_MAIL_PASSWORD_WINDOW_MINUTES,
            login_links_per_hour: DEFAULT_LOGIN_LINKS_PER_HOUR,
        }
    }
}

impl Limits {
    /// The workers the gate runs: the setting, or the machine's cores.
    pub fn workers(&self) -> usize {
        self.password_workers
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, usize::from))
            .max(1)
    }

    pub fn gm_login_window(&self) -> Duration {
        Duration::minutes(self.gm_login_window_minutes.max(1))
    }

    pub fn mail_password_window(&self) -> Duration {
        Duration::minutes(self.mail_password_window_minutes.max(1))
    }
}

static LIMITS: OnceLock<Limits> = OnceLock::new();
static GATE: OnceLock<Gate> = OnceLock::new();

/// Sets the process's limits, once, at start-up, before any password is checked. Returns
/// false (and changes nothing) when they were set, or used, already.
pub fn configure(limits: Limits) -> bool {
    LIMITS.set(limits).is_ok()
}

/// The process's limits: as [`configure`]d, else the defaults.
pub fn limits() -> Limits {
    *LIMITS.get_or_init(Limits::default)
}

/// The process's gate, sized by [`limits`].
pub fn gate() -> &'static Gate {
    GATE.get_or_init(|| {
        let limits = limits();
        Gate::new(limits.workers(), limits.password_queue)
    })
}

#[derive(Debug, thiserror::Error)]
pub enum PasswordError {
    #[error("the password must be at least {0} characters long")]
    TooShort(usize),
    #[error(transparent)]
    Busy(#[from] Busy),
    #[error("hashing the password failed: {0}")]
    Hash(String),
}

/// Refuses a new password shorter than the process's `password_min_chars`.
pub fn check_new(password: &str) -> Result<(), PasswordError> {
    let min = limits().password_min_chars;
    if password.chars().count() < min {
        return Err(PasswordError::TooShort(min));
    }
    Ok(())
}

/// Hashes a new password (checked with [`check_new`]) with a fresh salt, through `gate`.
pub async fn hash_new(gate: &Gate, wait: Wait, password: String) -> Result<String, PasswordError> {
    check_new(&password)?;
    let mut salt = [0u8; 16];
    getrandom::fill(&mut salt).map_err(|e| PasswordError::Hash(e.to_string()))?;
    gate.run(wait, move |memory| {
        argon::hash(password.as_bytes(), &salt, memory)
    })
    .await?
    .map_err(PasswordError::Hash)
}

/// Whether `password` matches `stored`, through `gate`. With no stored hash (an unknown
/// account), a hash that nothing matches is checked instead: the same work and the same time,
/// through the same gate, so that neither the answer nor its timing tells which accounts
/// exist, and unknown names are no way round the gate.
pub async fn verify(
    gate: &Gate,
    wait: Wait,
    stored: Option<String>,
    password: String,
) -> Result<bool, Busy> {
    gate.run(wait, move |memory| {
        let found = stored.is_some();
        let matched = argon::verify(
            stored.as_deref().unwrap_or(argon::NOBODY),
            password.as_bytes(),
            memory,
        );
        found && matched
    })
    .await
}

pub use store::audit::Revoked;

/// Revokes what a subscriber holds, within `tx`, when their subscription ends (UNSUBSCRIBE by
/// mail, the GM's unsubscribe or exclude) or starts again (the GM's resubscribe): their web
/// sessions end, their unused login links die, and every player row gets a new reply token, so
/// the personal addresses of every mail sent so far name no one (their mail gets the answer to
/// unauthenticated mail); mails sent from then on carry the new ones. The mail password is kept
/// but proves nothing while the subscription is not active (docs/mail.md).
pub async fn revoke_subscriber(
    tx: &mut sqlx::PgConnection,
    subscriber: SubscriberId,
    entropy: &mut impl Entropy,
) -> Result<Revoked, StoreError> {
    let web_sessions = store::sessions::delete_of_subscriber(&mut *tx, subscriber).await?;
    let login_links = store::login_links::delete_of_subscriber(&mut *tx, subscriber).await?;
    let rows = store::players::rows_of_subscriber(&mut *tx, subscriber).await?;
    let tokens: Vec<String> = rows.iter().map(|_| new_reply_token(entropy)).collect();
    let reply_tokens = store::players::replace_reply_tokens(&mut *tx, &rows, &tokens).await?;
    // The relay addresses of TELLs mailed to them go too (docs/mail.md).
    store::tells::delete_of_subscriber(&mut *tx, subscriber).await?;
    Ok(Revoked {
        web_sessions,
        login_links,
        reply_tokens,
    })
}

/// Ends a subscriber's web sessions and unused login links, within `tx`: their address changed,
/// and both were given to the old one. Returns how many of each.
pub async fn end_logins(
    tx: &mut sqlx::PgConnection,
    subscriber: SubscriberId,
) -> Result<Revoked, StoreError> {
    Ok(Revoked {
        web_sessions: store::sessions::delete_of_subscriber(&mut *tx, subscriber).await?,
        login_links: store::login_links::delete_of_subscriber(&mut *tx, subscriber).await?,
        reply_tokens: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn new_passwords_are_long_enough_and_checked_through_the_gate() {
        let gate = Gate::new(1, 0);
        assert!(matches!(
            hash_new(&gate, Wait::Always, "short".into()).await,
            Err(PasswordError::TooShort(12))
        ));
        assert_eq!(gate.runs(), 0, "a refused password costs no hash");
        let stored = hash_new(&gate, Wait::Always, "correct horse battery".into())
            .await
            .unwrap();
        assert!(stored.starts_with("$argon2id$"), "{stored}");
        let check = |stored: Option<&str>, password: &str| {
            verify(
                &gate,
                Wait::Always,
                stored.map(str::to_owned),
                password.to_owned(),
            )
        };
        assert_eq!(
            check(Some(&stored), "correct horse battery").await,
            Ok(true)
        );
        assert_eq!(
            check(Some(&stored), "correct horse batterY").await,
            Ok(false)
        );
        // An unknown account costs a check too, and matches nothing.
        assert_eq!(check(None, "correct horse battery").await, Ok(false));
        assert_eq!(gate.runs(), 4);
        let again = hash_new(&gate, Wait::Always, "correct horse battery".into())
            .await
            .unwrap();
        assert_ne!(again, stored, "salted");
    }
}
