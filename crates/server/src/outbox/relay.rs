//! The relay's connections: our own over lettre's SMTP client, with TCP_NODELAY, STARTTLS,
//! implicit TLS and AUTH, kept idle between rounds (see the module above for why).

use std::borrow::Cow;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use lettre::Address;
use lettre::transport::smtp::authentication::{Credentials, DEFAULT_MECHANISMS};
#[allow(deprecated, reason = "see ImplicitTls")]
use lettre::transport::smtp::client::AsyncNetworkStream;
use lettre::transport::smtp::client::{AsyncSmtpConnection, AsyncTokioStream, Tls, TlsParameters};
use lettre::transport::smtp::commands::Rset;
use lettre::transport::smtp::extension::ClientId;
use mail::Mailbox;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

use super::Failure;

/// Opening a connection (TCP, greeting, EHLO, TLS, AUTH) takes at most this long.
const CONNECT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);
/// One message's transaction takes at most this long; well under [`LEASE`], so a message is
/// never still being sent when its lease runs out and another worker may take it.
pub(super) const SEND_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(120);
/// An idle connection older than this is closed (QUIT) rather than reused: relays drop idle
/// clients after a few minutes.
const MAX_IDLE: std::time::Duration = std::time::Duration::from_secs(30);
/// SMTP's well-known ports, as lettre defaults them per scheme.
const SMTP_PORT: u16 = 25;
const SUBMISSION_PORT: u16 = 587;
const SUBMISSIONS_PORT: u16 = 465;

#[derive(Debug, thiserror::Error)]
pub enum RelayError {
    #[error(
        "ADMIRALTY_SMTP_URL is not a valid SMTP URL (smtp://host:port, smtps://…, ?tls=required): {0}"
    )]
    Url(String),
    #[error("the sender address {0:?} is not valid")]
    From(String),
}

/// Where mail goes: an SMTP relay, and the address it comes from. Clones share the idle
/// connections.
#[derive(Clone)]
pub struct Relay {
    pub(super) server: Arc<Server>,
    pub(super) from: Mailbox,
    /// `from`'s address as the envelope's sender (MAIL FROM) when no return paths are signed.
    pub(super) sender: Address,
    /// The key every message is signed with, if any.
    pub(super) dkim: Option<Arc<crate::dkim::DkimKey>>,
    /// Signs each transaction's return path, `bounces+TAG@` `from`'s domain (mail::verp).
    pub(super) return_paths: Option<mail::verp::TagKey>,
}

/// The relay's address and how to talk to it, as lettre's transport reads them from a URL.
pub(super) struct Server {
    pub(super) host: String,
    pub(super) port: u16,
    pub(super) tls: Tls,
    pub(super) credentials: Option<Credentials>,
    pub(super) hello_name: ClientId,
    idle: Mutex<Vec<Idle>>,
}

struct Idle {
    connection: AsyncSmtpConnection,
    since: tokio::time::Instant,
}

impl Relay {
    /// `url` as lettre reads it: `smtp://[user:pass@]host[:port][/ehlo-name][?tls=required|opportunistic]`
    /// or `smtps://…` for TLS from the start. `from` is `Name <address>` or a bare address.
    pub fn new(url: &str, from: &str) -> Result<Relay, RelayError> {
        let server = Server::from_url(url)?;
        let invalid = || RelayError::From(from.to_owned());
        let from = parse_mailbox(from).ok_or_else(invalid)?;
        let sender = from.address.parse().map_err(|_| invalid())?;
        Ok(Relay {
            server: Arc::new(server),
            from,
            sender,
            dkim: None,
            return_paths: None,
        })
    }

    /// The same relay, signing each message with `key` (once per transaction: the copies of a
    /// circular sent together are one message).
    #[must_use]
    pub fn with_dkim(mut self, key: Option<Arc<crate::dkim::DkimKey>>) -> Relay {
        self.dkim = key;
        self
    }

    /// Every message sent from now on carries a signed return path naming it, so that its
    /// bounces come back to `bounces+TAG@` and are scored (crate::bounces).
    pub fn with_return_paths(mut self, key: mail::verp::TagKey) -> Relay {
        self.return_paths = Some(key);
        self
    }

    /// The envelope sender of a transaction whose first message is `first`: its signed
    /// return path, or the From address when none are signed.
    pub(super) fn envelope_sender(&self, first: store::outbox::OutboundId) -> Address {
        let signed = self.return_paths.as_ref().and_then(|key| {
            let id: i64 = first.to_string().parse().ok()?;
            key.return_path(id, self.sender.domain()).parse().ok()
        });
        signed.unwrap_or_else(|| self.sender.clone())
    }
}

impl Server {
    /// The same reading of the URL as lettre's `AsyncSmtpTransport::from_url`.
    pub(super) fn from_url(text: &str) -> Result<Server, RelayError> {
        let bad = |reason: String| RelayError::Url(reason);
        let url = url::Url::parse(text).map_err(|e| bad(e.to_string()))?;
        let host = url
            .host_str()
            .ok_or_else(|| bad("no host".into()))?
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_owned();
        let tls_query = url
            .query_pairs()
            .find(|(key, _)| key == "tls")
            .map(|(_, value)| value.into_owned());
        let tls_parameters =
            || TlsParameters::new(host.clone()).map_err(|e| bad(format!("TLS: {e}")));
        let (default_port, tls) = match (url.scheme(), tls_query.as_deref()) {
            ("smtp", None) => (SMTP_PORT, Tls::None),
            ("smtp", Some("required")) => (SUBMISSION_PORT, Tls::Required(tls_parameters()?)),
            ("smtp", Some("opportunistic")) => {
                (SUBMISSION_PORT, Tls::Opportunistic(tls_parameters()?))
            }
            ("smtps", _) => (SUBMISSIONS_PORT, Tls::Wrapper(tls_parameters()?)),
            (scheme, tls) => {
                return Err(bad(format!(
                    "unknown scheme {scheme:?} or tls parameter {tls:?}"
                )));
            }
        };
        let hello_name = match url.path().trim_matches('/') {
            "" => ClientId::default(),
            name => ClientId::Domain(name.to_owned()),
        };
        let decode = |part: &str| {
            percent_encoding::percent_decode_str(part)
                .decode_utf8()
                .map(Cow::into_owned)
                .map_err(|e| bad(format!("user or password: {e}")))
        };
        let credentials = match url.password() {
            Some(password) => Some(Credentials::new(decode(url.username())?, decode(password)?)),
            None => None,
        };
        Ok(Server {
            port: url.port().unwrap_or(default_port),
            host,
            tls,
            credentials,
            hello_name,
            idle: Mutex::new(Vec::new()),
        })
    }

    /// A connection ready for a mail transaction: an idle one that still answers RSET, or a
    /// new one.
    pub(super) async fn connection(&self) -> Result<AsyncSmtpConnection, Failure> {
        while let Some(mut idle) = self.take_idle() {
            if idle.since.elapsed() < MAX_IDLE && idle.connection.command(Rset).await.is_ok() {
                return Ok(idle.connection);
            }
            idle.connection.abort().await;
        }
        tokio::time::timeout(CONNECT_TIMEOUT, self.connect())
            .await
            .unwrap_or_else(|_| {
                Err(Failure::Temporary(format!(
                    "connecting to {}:{} timed out",
                    self.host, self.port
                )))
            })
    }

    fn take_idle(&self) -> Option<Idle> {
        self.idle.lock().ok()?.pop()
    }

    /// Keeps a connection that is still sound for the next message.
    pub(super) fn put_back(&self, connection: AsyncSmtpConnection) {
        if connection.has_broken() {
            return;
        }
        if let Ok(mut idle) = self.idle.lock() {
            idle.push(Idle {
                connection,
                since: tokio::time::Instant::now(),
            });
        }
    }

    /// Says QUIT on the idle connections that have waited too long.
    pub(super) async fn close_stale(&self) {
        let stale: Vec<Idle> = match self.idle.lock() {
            Ok(mut idle) => {
                let (stale, fresh) = std::mem::take(&mut *idle)
                    .into_iter()
                    .partition(|i| i.since.elapsed() >= MAX_IDLE);
                *idle = fresh;
                stale
            }
            Err(_) => return,
        };
        for mut idle in stale {
            let _ = idle.connection.quit().await;
        }
    }

    /// What lettre's transport does to connect, over a socket with TCP_NODELAY. Every failure
    /// here is temporary, even the relay's 5xx (e.g. 535, credentials refused): it says
    /// nothing of the messages, which wait (with back-off, their error shown to the GM) until
    /// the relay or the settings are mended, rather than all being given up at once.
    pub(super) async fn connect(&self) -> Result<AsyncSmtpConnection, Failure> {
        let failure = |step: &str, error: &dyn std::fmt::Display| {
            Failure::Temporary(format!("{step} {}:{}: {error}", self.host, self.port))
        };
        let socket = open_socket(&self.host, self.port)
            .await
            .map_err(|e| failure("connecting to", &e))?;
        let mut connection = match &self.tls {
            Tls::Wrapper(parameters) => {
                let stream = ImplicitTls::handshake(socket, parameters.clone())
                    .await
                    .map_err(|e| failure("TLS with", &e))?;
                AsyncSmtpConnection::connect_with_transport(Box::new(stream), &self.hello_name)
                    .await
            }
            _ => {
                AsyncSmtpConnection::connect_with_transport(Box::new(socket), &self.hello_name)
                    .await
            }
        }
        .map_err(|e| failure("greeting or EHLO from", &e))?;
        match &self.tls {
            Tls::Opportunistic(parameters) if connection.can_starttls() => connection
                .starttls(parameters.clone(), &self.hello_name)
                .await
                .map_err(|e| failure("STARTTLS with", &e))?,
            Tls::Required(parameters) => connection
                .starttls(parameters.clone(), &self.hello_name)
                .await
                .map_err(|e| failure("STARTTLS with", &e))?,
            _ => {}
        }
        if let Some(credentials) = &self.credentials {
            connection
                .auth(DEFAULT_MECHANISMS, credentials)
                .await
                .map_err(|e| failure("logging in (AUTH) to", &e))?;
        }
        Ok(connection)
    }
}

/// A TCP connection to the relay with Nagle's algorithm off (see the module's comment).
pub(crate) async fn open_socket(host: &str, port: u16) -> io::Result<TcpStream> {
    let socket = TcpStream::connect((host, port)).await?;
    socket.set_nodelay(true)?;
    Ok(socket)
}

/// Implicit TLS (`smtps://`) over our own socket. lettre only starts TLS on a socket it opened
/// itself, unless given a stream that is already encrypted: this is its own TLS stream (its
/// certificate checks and SNI, from the same `TlsParameters`), upgraded over our socket and
/// handed back to it as a plain stream. `AsyncNetworkStream` is public but deprecated.
#[allow(deprecated, reason = "the one public way to reuse lettre's TLS set-up")]
#[derive(Debug)]
struct ImplicitTls(AsyncNetworkStream);

#[allow(deprecated, reason = "see ImplicitTls")]
impl ImplicitTls {
    async fn handshake(
        socket: TcpStream,
        parameters: TlsParameters,
    ) -> Result<ImplicitTls, lettre::transport::smtp::Error> {
        let mut stream = AsyncNetworkStream::use_existing_tokio1(Box::new(socket));
        stream.upgrade_tls(parameters).await?;
        Ok(ImplicitTls(stream))
    }
}

impl AsyncRead for ImplicitTls {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let unfilled = buf.initialize_unfilled();
        match futures_io::AsyncRead::poll_read(Pin::new(&mut self.0), cx, unfilled) {
            Poll::Ready(Ok(read)) => {
                buf.advance(read);
                Poll::Ready(Ok(()))
            }
            Poll::Ready(Err(error)) => Poll::Ready(Err(error)),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl AsyncWrite for ImplicitTls {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        futures_io::AsyncWrite::poll_write(Pin::new(&mut self.0), cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        futures_io::AsyncWrite::poll_flush(Pin::new(&mut self.0), cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        futures_io::AsyncWrite::poll_close(Pin::new(&mut self.0), cx)
    }
}

impl AsyncTokioStream for ImplicitTls {
    fn peer_addr(&self) -> io::Result<std::net::SocketAddr> {
        self.0.peer_addr()
    }
}

pub(super) fn parse_mailbox(text: &str) -> Option<Mailbox> {
    let text = text.trim();
    match (text.rfind('<'), text.rfind('>')) {
        (Some(open), Some(close)) if open < close => Some(Mailbox {
            address: text.get(open + 1..close)?.trim().to_owned(),
            name: Some(text.get(..open)?.trim().trim_matches('"').to_owned())
                .filter(|n| !n.is_empty()),
        }),
        _ if text.contains('@') => Some(Mailbox {
            address: text.to_owned(),
            name: None,
        }),
        _ => None,
    }
}
