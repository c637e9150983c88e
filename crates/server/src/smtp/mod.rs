//! The built-in SMTP listener: one of the three doors for inbound mail (with `gm ingest` and the
//! webhook). `mailin` runs the SMTP conversation; this module is its tokio shell: sessions
//! admitted per peer and in all ([`crate::doors::admission`]), each bounded in what it buffers
//! and how long it lasts ([`session`]), the size limit (announced in EHLO, enforced while
//! receiving), and storing each message before the client is told it was accepted. A message
//! is acknowledged with 250 only once it is in `inbound_messages`; processing happens after,
//! in the inbox workers, so a slow turn never holds an SMTP client. Messages are stored by
//! group commit ([`groups`]).

mod groups;
mod session;
mod tls;
mod wire;

pub use tls::{TlsCertificates, TlsError};

use std::sync::Arc;
use std::time::Duration;

use store::PgPool;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;
use tokio::sync::{Notify, Semaphore, mpsc};
use tokio::task::JoinSet;

use crate::clock::Clock;
use crate::doors::Stop;
use crate::doors::admission::{Admission, Shedding};

/// What the listener needs to know.
#[derive(Debug, Clone)]
pub struct SmtpSettings {
    /// Only `orders` and `orders+TOKEN` at this domain are accepted as recipients.
    pub domain: String,
    /// Largest message accepted, in bytes, as the client sends it (announced as the SIZE
    /// extension: a message of exactly this size is accepted).
    pub max_bytes: usize,
    pub limits: SmtpLimits,
    /// STARTTLS's certificate, when offered.
    pub tls: Option<Arc<TlsCertificates>>,
    /// MAIL before STARTTLS is refused (530).
    pub require_tls: bool,
}

impl SmtpSettings {
    /// The settings for `domain` and `max_bytes`, with the default limits.
    pub fn new(domain: impl Into<String>, max_bytes: usize) -> SmtpSettings {
        SmtpSettings {
            domain: domain.into(),
            max_bytes,
            limits: SmtpLimits::default(),
            tls: None,
            require_tls: false,
        }
    }
}

/// The listener's limits against clients that never finish (see docs/configuration.md).
#[derive(Debug, Clone)]
pub struct SmtpLimits {
    pub max_sessions: usize,
    pub max_sessions_per_peer: usize,
    /// Bytes of messages being received that all sessions together may hold.
    pub max_buffered_bytes: usize,
    /// How long a session may last, whatever it does.
    pub session_lifetime: Duration,
    /// How long a client may stay silent.
    pub idle_timeout: Duration,
    /// When the listener is full, a session silent for this long is closed to make room.
    pub shed_after_idle: Duration,
    /// How long a client beyond the caps waits for room before it is refused with 421.
    pub admission_wait: Duration,
    /// Commands that make no progress (NOOP, RSET, VRFY, EXPN, HELP and unknown ones) a
    /// session may send; the next gets 421 and the session closes (Postfix's
    /// `smtpd_junk_command_limit`).
    pub junk_commands: u32,
}

impl Default for SmtpLimits {
    fn default() -> Self {
        SmtpLimits {
            max_sessions: 1000,
            max_sessions_per_peer: 100,
            max_buffered_bytes: 256 * 1024 * 1024,
            session_lifetime: Duration::from_secs(600),
            idle_timeout: Duration::from_secs(300),
            shed_after_idle: Duration::from_secs(5),
            admission_wait: Duration::from_secs(30),
            junk_commands: 100,
        }
    }
}

/// Accepts connections until the task is dropped. Every stored message wakes `stored`, which
/// the inbox workers wait on.
pub async fn run(
    listener: TcpListener,
    pool: PgPool,
    clock: Arc<dyn Clock>,
    settings: SmtpSettings,
    stored: Arc<Notify>,
) {
    serve(listener, pool, clock, settings, stored, Stop::never()).await;
}

/// Accepts connections until `stop` drains the doors (the listener is closed at once, and
/// sessions end with 421 at their next command), and returns once every session has ended or
/// the stop closes them.
pub async fn serve(
    listener: TcpListener,
    pool: PgPool,
    clock: Arc<dyn Clock>,
    settings: SmtpSettings,
    stored: Arc<Notify>,
    stop: Stop,
) {
    let limits = settings.limits.clone();
    let settings = Arc::new(settings);
    // Sessions wait on the writer anyway: a short queue is enough.
    let (to_store, waiting) = mpsc::channel(groups::GROUP_MAX_MESSAGES);
    let writer = tokio::spawn(groups::write_groups(pool, waiting));
    let admission = Admission::new(
        limits.max_sessions,
        limits.max_sessions_per_peer,
        Shedding::IdleFor(limits.shed_after_idle),
    );
    let buffers = Arc::new(Semaphore::new(
        limits.max_buffered_bytes.min(Semaphore::MAX_PERMITS),
    ));
    let mut sessions = JoinSet::new();
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = stop.draining() => break,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(error) => {
                // Out of file descriptors and the like: back off instead of spinning.
                tracing::warn!(%error, "SMTP accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let session = session::Session {
            to_store: to_store.clone(),
            clock: clock.clone(),
            settings: settings.clone(),
            stored: stored.clone(),
            buffers: buffers.clone(),
            stop: stop.clone(),
        };
        sessions.spawn(admit_and_serve(
            session,
            stream,
            peer,
            admission.clone(),
            stop.clone(),
            limits.clone(),
        ));
        while sessions.try_join_next().is_some() {}
    }
    // Closing the listener refuses new connections at once, rather than leaving them queued.
    drop(listener);
    drop(to_store);
    tokio::select! {
        () = async { while sessions.join_next().await.is_some() {} } => {}
        () = stop.closed() => sessions.shutdown().await,
    }
    // Every session is gone, and with it every sender: the writer ends once it has answered.
    let _ = writer.await;
}

/// Serves one connection once it is admitted (or tells it there are too many), within the
/// session's hard limit, until it is shed or the stop closes it.
async fn admit_and_serve(
    session: session::Session,
    mut stream: tokio::net::TcpStream,
    peer: std::net::SocketAddr,
    admission: Arc<Admission>,
    stop: Stop,
    limits: SmtpLimits,
) {
    let admitted = tokio::select! {
        ticket = admission.admit(peer.ip(), limits.admission_wait) => ticket,
        () = stop.draining() => None,
    };
    let Some(ticket) = admitted else {
        if !stop.is_draining() {
            crate::measures::smtp_session_refused();
        }
        let refusal =
            b"421 4.7.0 too many connections from your address; please try again later\r\n";
        let _ = tokio::time::timeout(Duration::from_secs(1), stream.write_all(refusal)).await;
        return;
    };
    // The session's own bounds work between its reads; this one also covers a client that
    // stops reading our replies.
    let hard_limit = limits.session_lifetime + limits.idle_timeout;
    let _open = crate::measures::smtp_session_opened();
    tokio::select! {
        served = session.serve(stream, peer, &ticket) => {
            if let Err(error) = served {
                tracing::debug!(%error, %peer, "SMTP connection ended");
            }
        }
        () = tokio::time::sleep(hard_limit) => {}
        () = ticket.shed() => {}
        () = stop.closed() => {}
    }
}
