//! The outbound mail worker: delivers queued messages through an SMTP relay with lettre, with
//! retries and exponential back-off. Each message's Message-ID was fixed when it was queued, so
//! a retry is the same message. With no relay configured, mail stays in the outbox for the GM
//! to read (the development default).
//!
//! The connections are our own, not lettre's pool: lettre never sets TCP_NODELAY, and it writes
//! a message's closing `.` as a separate small segment, which Nagle's algorithm then holds back
//! until the relay's delayed ACK (~40 ms per message). Ours set TCP_NODELAY and otherwise do
//! what lettre's transport does (STARTTLS, implicit TLS, AUTH), through lettre's connection.

use std::borrow::Cow;
use std::collections::HashMap;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::SystemTime;

use chrono::{DateTime, Duration, Utc};
use lettre::Address;
use lettre::transport::smtp::authentication::{Credentials, DEFAULT_MECHANISMS};
#[allow(deprecated, reason = "see ImplicitTls")]
use lettre::transport::smtp::client::AsyncNetworkStream;
use lettre::transport::smtp::client::{AsyncSmtpConnection, AsyncTokioStream, Tls, TlsParameters};
use lettre::transport::smtp::commands::{Data, Mail, Rcpt, Rset};
use lettre::transport::smtp::extension::{ClientId, Extension, MailBodyParameter, MailParameter};
use mail::Mailbox;
use mail::outbound::{AutoSubmitted, EncodedText, Outgoing};
use store::PgPool;
use store::outbox::{self, Leased};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

/// How long a worker holds messages it is sending before others may retry them.
const LEASE: Duration = Duration::minutes(5);
/// Messages taken per round.
const BATCH: i64 = 500;
/// Messages sent at once, each sender over its own SMTP connection.
const CONCURRENT_SENDS: usize = 16;
/// After this many temporary failures a message is given up as failed.
const MAX_ATTEMPTS: i32 = 10;
/// Opening a connection (TCP, greeting, EHLO, TLS, AUTH) takes at most this long.
const CONNECT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);
/// One message's transaction takes at most this long; well under [`LEASE`], so a message is
/// never still being sent when its lease runs out and another worker may take it.
const SEND_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(120);
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
    server: Arc<Server>,
    from: Mailbox,
    /// `from`'s address as the envelope's sender (MAIL FROM).
    sender: Address,
}

/// The relay's address and how to talk to it, as lettre's transport reads them from a URL.
struct Server {
    host: String,
    port: u16,
    tls: Tls,
    credentials: Option<Credentials>,
    hello_name: ClientId,
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
        })
    }
}

impl Server {
    /// The same reading of the URL as lettre's `AsyncSmtpTransport::from_url`.
    fn from_url(text: &str) -> Result<Server, RelayError> {
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
    async fn connection(&self) -> Result<AsyncSmtpConnection, Failure> {
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
    fn put_back(&self, connection: AsyncSmtpConnection) {
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
    async fn close_stale(&self) {
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
    async fn connect(&self) -> Result<AsyncSmtpConnection, Failure> {
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

fn parse_mailbox(text: &str) -> Option<Mailbox> {
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

/// What one round of delivery did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Delivered {
    /// Messages delivered, one per recipient.
    pub sent: usize,
    pub retrying: usize,
    pub failed: usize,
    /// SMTP transactions attempted: a report goes to up to [`MAX_RECIPIENTS`] subscribers in one.
    pub transactions: usize,
}

/// Recipients of one report per SMTP transaction, the number RFC 5321 (4.5.3.1.8) obliges
/// every server to accept. A relay that takes fewer answers 452 to the rest, which are retried.
const MAX_RECIPIENTS: usize = 100;

/// Sends every queued message that is due, once each. Each round leases a batch (committed at
/// once, so no transaction is open while sending), sends it with up to [`CONCURRENT_SENDS`]
/// senders, each keeping one connection for transaction after transaction, then records the
/// outcomes: the sent ones in one statement. The copies of a report go out as one message to
/// many recipients (see [`Transaction`]); everything else one message to one recipient.
pub async fn deliver_due(
    pool: &PgPool,
    relay: &Relay,
    now: DateTime<Utc>,
) -> Result<Delivered, store::StoreError> {
    relay.server.close_stale().await;
    let mut done = Delivered::default();
    let mut bodies: HashMap<i64, Arc<Shared>> = HashMap::new();
    loop {
        let batch = outbox::lease_due(pool, now, now + LEASE, BATCH).await?;
        if batch.is_empty() {
            return Ok(done);
        }
        let mut missing: Vec<i64> = batch
            .iter()
            .filter_map(|m| m.shared_body_id)
            .filter(|id| !bodies.contains_key(id))
            .collect();
        missing.sort_unstable();
        missing.dedup();
        if !missing.is_empty() {
            for body in outbox::shared_bodies(pool, &missing).await? {
                // Encoded once here, not once per recipient.
                let encoded = EncodedText::new(body.body_text.clone());
                bodies.insert(body.id, Arc::new(Shared { body, encoded }));
            }
        }
        let transactions = Transaction::group(batch, &bodies);
        done.transactions += transactions.len();
        let senders = transactions.len().min(CONCURRENT_SENDS);
        let queue = Arc::new(Mutex::new(transactions.into_iter()));
        // Each outcome is reported as soon as it is known, so a sender that panicked loses
        // only the transaction it was sending (its messages stay leased and are retried later).
        let (outcomes, mut received) = tokio::sync::mpsc::unbounded_channel();
        let mut sending = tokio::task::JoinSet::new();
        for _ in 0..senders {
            let (relay, queue, outcomes) = (relay.clone(), queue.clone(), outcomes.clone());
            sending.spawn(async move {
                let mut connection = None;
                while let Some(transaction) = queue.lock().ok().and_then(|mut q| q.next()) {
                    let results = send(&relay, &mut connection, &transaction).await;
                    if outcomes.send((transaction.messages, results)).is_err() {
                        break;
                    }
                }
                if let Some(connection) = connection {
                    relay.server.put_back(connection);
                }
            });
        }
        drop(outcomes);
        let mut sent = Vec::new();
        while let Some((messages, results)) = received.recv().await {
            for (message, outcome) in messages.iter().zip(results) {
                match outcome {
                    Ok(()) => sent.push(message.id),
                    Err(Failure::Permanent(error)) => {
                        outbox::mark_failed(pool, message.id, &error).await?;
                        done.failed += 1;
                    }
                    Err(Failure::Temporary(error)) if message.attempts + 1 >= MAX_ATTEMPTS => {
                        outbox::mark_failed(
                            pool,
                            message.id,
                            &format!("gave up after {MAX_ATTEMPTS} attempts: {error}"),
                        )
                        .await?;
                        done.failed += 1;
                    }
                    Err(Failure::Temporary(error)) => {
                        outbox::mark_retry(
                            pool,
                            message.id,
                            &error,
                            now + backoff(message.attempts),
                        )
                        .await?;
                        done.retrying += 1;
                    }
                }
            }
        }
        while sending.join_next().await.is_some() {}
        outbox::mark_sent_many(pool, &sent, now).await?;
        done.sent += sent.len();
    }
}

/// A shared body, with its text encoded for the wire once.
struct Shared {
    body: outbox::SharedBody,
    encoded: EncodedText,
}

/// One message and the queued rows it delivers, in one SMTP transaction.
///
/// A row with a shared body and nothing of its own (no text, no HTML, no headers: a turn's
/// report to a subscriber) is a copy of a circular, like a mailing list's post: every copy is
/// the same message (the same Message-ID, `To:` the zine's own address, the subscribers in the
/// envelope only, so none sees another's address), and up to [`MAX_RECIPIENTS`] copies go out
/// in one transaction, as list servers send. A 870 KB report to 10,000 subscribers is then
/// 100 transfers, not 10,000. Any other row is a message of its own to its one recipient.
struct Transaction {
    messages: Vec<Leased>,
    shared: Option<Arc<Shared>>,
}

impl Transaction {
    fn group(batch: Vec<Leased>, bodies: &HashMap<i64, Arc<Shared>>) -> Vec<Transaction> {
        let mut transactions: Vec<Transaction> = Vec::new();
        // The open transaction of each circular: (body, Message-ID, subject) -> index.
        let mut open: HashMap<(i64, String, String), usize> = HashMap::new();
        for message in batch {
            let shared = message
                .shared_body_id
                .and_then(|id| bodies.get(&id).cloned());
            let key = match (is_circular_copy(&message), message.shared_body_id) {
                (true, Some(body)) => {
                    Some((body, message.message_id.clone(), message.subject.clone()))
                }
                _ => None,
            };
            let joined = key
                .as_ref()
                .and_then(|key| open.get(key))
                .and_then(|&index| transactions.get_mut(index))
                .filter(|t| t.messages.len() < MAX_RECIPIENTS);
            match joined {
                Some(transaction) => transaction.messages.push(message),
                None => {
                    if let Some(key) = key {
                        open.insert(key, transactions.len());
                    }
                    transactions.push(Transaction {
                        messages: vec![message],
                        shared,
                    });
                }
            }
        }
        transactions
    }
}

/// See [`Transaction`].
fn is_circular_copy(message: &Leased) -> bool {
    message.shared_body_id.is_some()
        && message.body_text.is_empty()
        && message.body_html.is_none()
        && message.headers.is_empty()
}

/// 1 minute after the first failure, then doubling, at most 6 hours.
pub fn backoff(attempts_before: i32) -> Duration {
    let exponent = u32::try_from(attempts_before.clamp(0, 16)).unwrap_or(16);
    Duration::minutes(2i64.saturating_pow(exponent)).min(Duration::hours(6))
}

#[derive(Debug, Clone)]
enum Failure {
    Temporary(String),
    Permanent(String),
}

/// A relay's error, permanent (5xx) or not.
fn classify(error: lettre::transport::smtp::Error) -> Failure {
    if error.is_permanent() {
        Failure::Permanent(error.to_string())
    } else {
        Failure::Temporary(error.to_string())
    }
}

/// Sends one transaction over `connection`, opening one first when there is none; the outcome
/// for each of its messages, in order. A connection that failed is dropped (after QUIT), so
/// the next transaction opens a new one.
async fn send(
    relay: &Relay,
    connection: &mut Option<AsyncSmtpConnection>,
    transaction: &Transaction,
) -> Vec<Result<(), Failure>> {
    let all = |failure: Failure| vec![Err(failure); transaction.messages.len()];
    let Some(first) = transaction.messages.first() else {
        return Vec::new();
    };
    let bytes = match message_bytes(relay, first, transaction.shared.as_deref()) {
        Ok(bytes) => bytes,
        Err(failure) => return all(failure),
    };
    // A recipient the relay could never take fails alone.
    let recipients: Vec<Result<Address, Failure>> = transaction
        .messages
        .iter()
        .map(|m| {
            m.to_address
                .parse()
                .map_err(|e| Failure::Permanent(format!("recipient: {e}")))
        })
        .collect();
    let valid: Vec<Address> = recipients.iter().flatten().cloned().collect();
    if valid.is_empty() {
        return recipients.into_iter().map(|r| r.map(drop)).collect();
    }
    let mut open = match connection.take() {
        Some(open) if !open.has_broken() => open,
        _ => match relay.server.connection().await {
            Ok(open) => open,
            Err(failure) => return all(failure),
        },
    };
    let outcomes = match tokio::time::timeout(
        SEND_TIMEOUT,
        transact(&mut open, &relay.sender, &valid, &bytes),
    )
    .await
    {
        Ok(outcomes) => outcomes,
        Err(_) => {
            return all(Failure::Temporary(format!(
                "the relay took over {} s to take the message",
                SEND_TIMEOUT.as_secs()
            )));
        }
    };
    if !open.has_broken() {
        *connection = Some(open);
    }
    let mut outcomes = outcomes.into_iter();
    recipients
        .into_iter()
        .map(|recipient| match recipient {
            Ok(_) => outcomes
                .next()
                .unwrap_or_else(|| Err(Failure::Temporary("the relay gave no answer".into()))),
            Err(failure) => Err(failure),
        })
        .collect()
}

/// The message of a transaction, as RFC 5322 bytes: built from its first row, which for a
/// circular's copies is the same as any other's but for the recipient, who is not in it.
fn message_bytes(
    relay: &Relay,
    message: &Leased,
    shared: Option<&Shared>,
) -> Result<Vec<u8>, Failure> {
    if message.shared_body_id.is_some() && shared.is_none() {
        return Err(Failure::Permanent("its shared body is missing".into()));
    }
    // The shared text alone, plain text only: send it as it was encoded once.
    let encoded = shared
        .filter(|s| {
            message.body_text.is_empty()
                && message.body_html.is_none()
                && s.body.body_html.is_none()
        })
        .map(|s| &s.encoded);
    let outgoing = Outgoing {
        from: relay.from.clone(),
        to: if is_circular_copy(message) {
            relay.from.clone()
        } else {
            Mailbox {
                address: message.to_address.clone(),
                name: None,
            }
        },
        reply_to: message.headers.reply_to.as_deref().and_then(parse_mailbox),
        subject: message.subject.clone(),
        text: match (encoded, shared) {
            (Some(_), _) => String::new(),
            (None, Some(shared)) => format!("{}{}", shared.body.body_text, message.body_text),
            (None, None) => message.body_text.clone(),
        },
        html: message
            .body_html
            .clone()
            .or_else(|| shared.and_then(|s| s.body.body_html.clone())),
        message_id: message.message_id.clone(),
        date: SystemTime::from(message.created_at),
        in_reply_to: message
            .headers
            .in_reply_to
            .clone()
            .filter(|id| !id.is_empty()),
        references: Vec::new(),
        auto_submitted: match message.headers.auto_submitted {
            Some(store::outbox::AutoSubmitted::AutoReplied) => AutoSubmitted::AutoReplied,
            Some(store::outbox::AutoSubmitted::AutoGenerated) | None => {
                AutoSubmitted::AutoGenerated
            }
        },
    };
    match encoded {
        Some(encoded) => mail::outbound::build_with_text(&outgoing, encoded),
        None => mail::outbound::build(&outgoing),
    }
    .map_err(|e| Failure::Permanent(e.to_string()))
}

/// One mail transaction, as lettre's `AsyncSmtpConnection::send` does it (MAIL with the same
/// parameters, RCPT, DATA), with two differences. Each recipient gets the relay's own answer
/// (lettre gives up on the whole message at the first refused one): the message goes to the
/// accepted ones, the refused ones fail alone, permanently (5xx) or for a retry (4xx). And the
/// message itself: lettre dot-stuffs it byte by byte into a fresh buffer (its `ClientCodec`),
/// which was most of this process's CPU with a turn's 870 KB report; here the stuffing
/// searches with memchr and the message goes out as one write, through lettre's public
/// `command`. The outcome per recipient, in order.
async fn transact(
    connection: &mut AsyncSmtpConnection,
    from: &Address,
    recipients: &[Address],
    message: &[u8],
) -> Vec<Result<(), Failure>> {
    let all = |failure: Failure| vec![Err(failure); recipients.len()];
    // Our builder writes UTF-8 (in practice ASCII: lettre encodes the bodies).
    let Ok(text) = std::str::from_utf8(message) else {
        return all(Failure::Permanent("the message is not UTF-8".into()));
    };
    let non_ascii_addresses = std::iter::once(from)
        .chain(recipients)
        .any(|address| !AsRef::<str>::as_ref(address).is_ascii());
    let eight_bit = !text.is_ascii();
    let info = connection.server_info();
    if non_ascii_addresses && !info.supports_feature(Extension::SmtpUtfEight) {
        return all(Failure::Permanent(
            "an address is not ASCII and the relay does not offer SMTPUTF8".into(),
        ));
    }
    if eight_bit && !info.supports_feature(Extension::EightBitMime) {
        return all(Failure::Permanent(
            "the message is 8-bit and the relay does not offer 8BITMIME".into(),
        ));
    }
    let mut parameters = Vec::new();
    if non_ascii_addresses {
        parameters.push(MailParameter::SmtpUtfEight);
    }
    if eight_bit {
        parameters.push(MailParameter::Body(MailBodyParameter::EightBitMime));
    }
    let data = DataLines(dot_stuffed(text));
    // None: accepted (so far); Some: this recipient's own failure.
    let mut refused: Vec<Option<Failure>> = Vec::with_capacity(recipients.len());
    let result = async {
        connection
            .command(Mail::new(Some(from.clone()), parameters))
            .await?;
        for to in recipients {
            refused.push(
                match connection.command(Rcpt::new(to.clone(), vec![])).await {
                    Ok(_) => None,
                    // The relay's answer about this recipient: the transaction goes on.
                    Err(error) if error.is_permanent() || error.is_transient() => {
                        Some(classify(error))
                    }
                    Err(error) => return Err(error),
                },
            );
        }
        if refused.iter().all(Option::is_some) {
            connection.command(Rset).await?;
            return Ok(());
        }
        connection.command(Data).await?;
        connection.command(&data).await?;
        Ok(())
    }
    .await;
    let failure = match result {
        Ok(()) => None,
        Err(error) => {
            // As lettre does on any other error in a transaction: the connection is not used
            // again.
            connection.abort().await;
            Some(classify(error))
        }
    };
    refused.resize(recipients.len(), None);
    refused
        .into_iter()
        .map(|own| match own.or_else(|| failure.clone()) {
            Some(failure) => Err(failure),
            None => Ok(()),
        })
        .collect()
}

/// A message's text after DATA: already dot-stuffed, then the terminating `.` line.
struct DataLines<'a>(Cow<'a, str>);

impl std::fmt::Display for DataLines<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)?;
        f.write_str("\r\n.\r\n")
    }
}

/// RFC 5321 4.5.2 transparency, exactly as lettre's codec does it: a `.` that begins a line
/// (the message's first byte, or one after CRLF) gets a second `.`.
fn dot_stuffed(text: &str) -> Cow<'_, str> {
    let starts = text.starts_with('.');
    let mut breaks = memchr::memmem::find_iter(text.as_bytes(), "\r\n.").peekable();
    if !starts && breaks.peek().is_none() {
        return Cow::Borrowed(text);
    }
    let mut stuffed = String::with_capacity(text.len() + 64);
    if starts {
        stuffed.push('.');
    }
    let mut from = 0;
    for at in breaks {
        // `at + 2` is the `.`, an ASCII byte, so a char boundary.
        let dot = at + 2;
        stuffed.push_str(text.get(from..dot).unwrap_or_default());
        stuffed.push('.');
        from = dot;
    }
    stuffed.push_str(text.get(from..).unwrap_or_default());
    Cow::Owned(stuffed)
}

#[cfg(test)]
mod tests {
    use store::outbox::Headers;

    use super::*;

    /// A relay that answers every command with success and keeps what it was sent, from
    /// MAIL to the end of the message.
    async fn recording_relay() -> (u16, tokio::task::JoinHandle<Vec<u8>>) {
        use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let relay = tokio::spawn(async move {
            let (socket, _) = listener.accept().await.unwrap();
            let (read, mut write) = socket.into_split();
            let mut read = BufReader::new(read);
            write.write_all(b"220 relay ESMTP\r\n").await.unwrap();
            let mut seen = Vec::new();
            let mut in_data = false;
            let mut line_began = true;
            loop {
                let mut line = Vec::new();
                if read.read_until(b'\n', &mut line).await.unwrap() == 0 {
                    return seen;
                }
                let upper = String::from_utf8_lossy(&line).to_ascii_uppercase();
                let reply: &[u8] = if in_data {
                    seen.extend_from_slice(&line);
                    // The end is CRLF . CRLF: a `.` line after a bare LF is still data.
                    let after_crlf = std::mem::replace(&mut line_began, line.ends_with(b"\r\n"));
                    if !(after_crlf && line == b".\r\n") {
                        continue;
                    }
                    in_data = false;
                    b"250 queued\r\n"
                } else if upper.starts_with("EHLO") {
                    b"250-relay\r\n250-8BITMIME\r\n250 SMTPUTF8\r\n"
                } else if upper.starts_with("QUIT") {
                    write.write_all(b"221 bye\r\n").await.unwrap();
                    return seen;
                } else {
                    seen.extend_from_slice(&line);
                    if upper.starts_with("DATA") {
                        in_data = true;
                        line_began = true;
                        b"354 go on\r\n"
                    } else {
                        b"250 ok\r\n"
                    }
                };
                write.write_all(reply).await.unwrap();
            }
        });
        (port, relay)
    }

    async fn on_the_wire(message: &[u8], ours: bool) -> Vec<u8> {
        let (port, relay) = recording_relay().await;
        let socket = open_socket("127.0.0.1", port).await.unwrap();
        let mut connection =
            AsyncSmtpConnection::connect_with_transport(Box::new(socket), &ClientId::default())
                .await
                .unwrap();
        let from: Address = "gm@example.org".parse().unwrap();
        let to: Address = "player@example.org".parse().unwrap();
        let envelope =
            lettre::address::Envelope::new(Some(from.clone()), vec![to.clone()]).unwrap();
        if ours {
            let outcomes = transact(&mut connection, &from, &[to], message).await;
            assert!(matches!(outcomes.as_slice(), [Ok(())]));
        } else {
            connection.send(&envelope, message).await.unwrap();
        }
        connection.quit().await.unwrap();
        relay.await.unwrap()
    }

    #[tokio::test]
    async fn a_transaction_puts_the_same_bytes_on_the_wire_as_lettre() {
        let mut messages: Vec<Vec<u8>> = [
            "Subject: x\r\n\r\nplain body\r\n",
            ".starts with a dot\r\n",
            "Subject: x\r\n\r\n.\r\n..\r\nline\r\n.end\r\n.",
            "bare\n.newline dot\r.carriage dot\r\n\r\n.",
            "8 bit: Fähnrich, café\r\n.Æ\r\n",
            "",
            ".",
        ]
        .iter()
        .map(|m| m.as_bytes().to_vec())
        .collect();
        // And a few hundred mixtures of the bytes that matter, from a fixed seed.
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..200 {
            let mut message = Vec::new();
            for _ in 0..(state % 40) {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let pieces: [&[u8]; 6] = [b".", b"\r", b"\n", b"\r\n", b"a", b"\r\n."];
                message.extend_from_slice(pieces[usize::try_from(state % 6).unwrap()]);
            }
            messages.push(message);
        }
        for message in messages {
            let lettres = on_the_wire(&message, false).await;
            let ours = on_the_wire(&message, true).await;
            assert_eq!(
                String::from_utf8_lossy(&ours),
                String::from_utf8_lossy(&lettres),
                "message {:?}",
                String::from_utf8_lossy(&message)
            );
        }
    }

    fn leased(id: i64, body: Option<i64>, message_id: &str, headers: Headers) -> Leased {
        Leased {
            id,
            message_id: message_id.into(),
            to_address: format!("reader{id}@example.org"),
            subject: "Gazette: turn 3 report".into(),
            body_text: String::new(),
            body_html: None,
            headers,
            attempts: 0,
            created_at: DateTime::UNIX_EPOCH,
            shared_body_id: body,
        }
    }

    #[test]
    fn a_reports_copies_go_a_hundred_to_a_transaction_and_personal_mail_alone() {
        let mut batch = Vec::new();
        for id in 0..250 {
            batch.push(leased(id, Some(1), "<report.3@z>", Headers::default()));
            if id % 100 == 7 {
                // Another report's copies, in between.
                batch.push(leased(
                    1000 + id,
                    Some(2),
                    "<report.4@z>",
                    Headers::default(),
                ));
            }
        }
        // A shared body with something of its own is personal.
        batch.push(leased(
            2000,
            Some(1),
            "<report.3@z>",
            Headers::reply_to("orders+t@z".into()),
        ));
        batch.push(leased(2001, None, "<confirm.1@z>", Headers::default()));
        let mut with_text = leased(2002, Some(1), "<report.3@z>", Headers::default());
        with_text.body_text = "P.S. your own line".into();
        batch.push(with_text);

        let sizes: Vec<(usize, i64)> = Transaction::group(batch, &HashMap::new())
            .iter()
            .map(|t| (t.messages.len(), t.messages.first().unwrap().id))
            .collect();
        assert_eq!(
            sizes,
            [
                (100, 0),
                (3, 1007),
                (100, 100),
                (50, 200),
                (1, 2000),
                (1, 2001),
                (1, 2002)
            ]
        );
    }

    #[tokio::test]
    async fn refused_credentials_put_the_mail_off_rather_than_fail_it() {
        use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        tokio::spawn(async move {
            let (socket, _) = listener.accept().await.unwrap();
            let (read, mut write) = socket.into_split();
            let mut lines = BufReader::new(read).lines();
            write.write_all(b"220 relay ESMTP\r\n").await.unwrap();
            while let Ok(Some(line)) = lines.next_line().await {
                let reply: &[u8] = if line.to_ascii_uppercase().starts_with("EHLO") {
                    b"250-relay\r\n250 AUTH PLAIN LOGIN\r\n"
                } else if line.to_ascii_uppercase().starts_with("AUTH") {
                    b"535 5.7.8 Authentication credentials invalid\r\n"
                } else {
                    b"221 bye\r\n"
                };
                if write.write_all(reply).await.is_err() {
                    break;
                }
            }
        });
        let server = Server::from_url(&format!("smtp://gm:wrong@127.0.0.1:{port}")).unwrap();
        match server.connect().await {
            Err(Failure::Temporary(error)) => assert!(error.contains("535"), "{error}"),
            Err(Failure::Permanent(error)) => panic!("given up: {error}"),
            Ok(_) => panic!("logged in with refused credentials"),
        }
    }

    #[tokio::test]
    async fn the_relay_socket_has_nagle_off() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let socket = open_socket("127.0.0.1", port).await.unwrap();
        assert!(socket.nodelay().unwrap());
    }

    #[test]
    fn the_relay_url_is_read_as_lettre_reads_it() {
        let server = Server::from_url("smtp://relay.example.org").unwrap();
        assert_eq!(
            (server.host.as_str(), server.port),
            ("relay.example.org", 25)
        );
        assert!(matches!(server.tls, Tls::None));
        assert!(server.credentials.is_none());

        let server =
            Server::from_url("smtp://us%40er:p%3Ass@relay.example.org/gm.example.org?tls=required")
                .unwrap();
        assert_eq!(server.port, 587);
        assert!(matches!(server.tls, Tls::Required(_)));
        assert_eq!(
            server.credentials,
            Some(Credentials::new("us@er".into(), "p:ss".into()))
        );
        assert_eq!(server.hello_name, ClientId::Domain("gm.example.org".into()));

        let server = Server::from_url("smtp://relay.example.org:2525?tls=opportunistic").unwrap();
        assert_eq!(server.port, 2525);
        assert!(matches!(server.tls, Tls::Opportunistic(_)));

        let server = Server::from_url("smtps://[::1]").unwrap();
        assert_eq!((server.host.as_str(), server.port), ("::1", 465));
        assert!(matches!(server.tls, Tls::Wrapper(_)));

        for bad in [
            "http://relay.example.org",
            "smtp://relay?tls=maybe",
            "smtp://",
            "relay:25",
        ] {
            assert!(Server::from_url(bad).is_err(), "{bad}");
        }
    }
}
