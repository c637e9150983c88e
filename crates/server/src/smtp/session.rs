//! One SMTP session, bounded every way a client could stretch it: a command line is at most
//! 4 KiB, a message is read in pieces of at most 8 KiB and held only within the listener's
//! shared memory budget (beyond it the message is refused with 452: try again later), a client
//! may stay silent for the idle timeout and keep the session for its lifetime, no longer (a
//! NOOP every few minutes does not keep it open), and a stop closes it between two commands.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use mailin::{Action, SessionBuilder};
use tokio::io::{AsyncBufRead, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore, mpsc, oneshot};
use tokio::time::Sleep;

use super::SmtpSettings;
use super::groups::ToStore;
use super::wire::{
    Collector, Envelope, LineRead, Normalised, Verb, announce_size, lock, normalise_command,
    read_bounded_line, write_response,
};
use crate::clock::Clock;
use crate::doors::Stop;
use crate::doors::admission::Ticket;
use crate::inbox;

/// Longest command line accepted; RFC 5321 allows 512 octets, clients sometimes send more.
const MAX_COMMAND_LINE: usize = 4096;
/// A message is read in pieces of at most this many bytes (a longer line in several).
const DATA_CHUNK: usize = 8192;

/// What a session needs besides its connection.
pub(super) struct Session {
    pub to_store: mpsc::Sender<ToStore>,
    pub clock: Arc<dyn Clock>,
    pub settings: Arc<SmtpSettings>,
    pub stored: Arc<Notify>,
    /// The listener's memory budget for messages being received, in bytes.
    pub buffers: Arc<Semaphore>,
    pub stop: Stop,
}

/// Why a session ends before its client is done.
enum Ended {
    Idle,
    Lifetime,
    Shed,
    Stopping,
}

impl Ended {
    fn reply(&self) -> &'static [u8] {
        match self {
            Ended::Idle => b"421 4.4.2 idle too long, closing\r\n",
            Ended::Lifetime => {
                b"421 4.4.2 this session has lasted too long, closing; please reconnect\r\n"
            }
            Ended::Shed => b"421 4.3.2 too many sessions: closing this idle one\r\n",
            Ended::Stopping => b"421 4.3.2 the service is stopping; please try again later\r\n",
        }
    }
}

/// What [`Session::gate`] made of a command.
enum Gate {
    /// mailin answers it.
    Pass,
    /// Answered already; the next command.
    Answered,
    /// Answered, and the session is over.
    Close,
}

/// How receiving one message ended.
enum Received {
    /// The message, with the share of the memory budget it holds until it is stored.
    Message(Vec<u8>, Option<OwnedSemaphorePermit>),
    /// Larger than the size limit: read to its end and dropped.
    TooBig,
    /// Would have taken the listener beyond its memory budget: read to its end and dropped.
    NoRoom,
}

/// A client's byte stream: the TCP connection, or TLS over it after STARTTLS.
trait Stream: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Stream for T {}

/// One client's connection as a session reads and answers it.
struct Connection {
    /// Read through the buffer; written to directly (a `BufReader` passes writes on).
    io: BufReader<Box<dyn Stream>>,
    /// Whether STARTTLS has been done.
    over_tls: bool,
    /// Commands that made no progress so far.
    junk: u32,
    /// The line being read, reused from line to line.
    line: Vec<u8>,
    /// The end of the session's lifetime.
    lifetime: Pin<Box<Sleep>>,
}

impl Session {
    pub async fn serve(
        self,
        stream: TcpStream,
        peer: SocketAddr,
        ticket: &Ticket,
    ) -> io::Result<()> {
        let (mut session, mut envelope) = self.new_conversation(peer, false);
        let mut conn = Connection {
            io: BufReader::new(Box::new(stream)),
            over_tls: false,
            junk: 0,
            line: Vec::new(),
            lifetime: Box::pin(tokio::time::sleep(self.settings.limits.session_lifetime)),
        };
        write_response(&mut conn.io, &session.greeting()).await?;
        loop {
            let Some(command) = self.next_command(&mut conn, ticket, &envelope).await? else {
                return Ok(());
            };
            let verb = Verb::of(&command);
            match self.gate(&mut conn, verb).await? {
                Gate::Pass => {}
                Gate::Answered => continue,
                Gate::Close => return Ok(()),
            }
            let reply = session.process(&command);
            if verb == Verb::Ehlo && reply.code == 250 {
                let text = announce_size(&reply.buffer()?, self.settings.max_bytes);
                conn.io.write_all(&text).await?;
            } else {
                write_response(&mut conn.io, &reply).await?;
            }
            if reply.action == Action::Close {
                return Ok(());
            }
            if reply.action == Action::UpgradeTls {
                conn.io.flush().await?;
                if !self.start_tls(&mut conn, ticket).await? {
                    return Ok(());
                }
                // RFC 3207 section 4.2: the client starts again with EHLO; nothing said
                // before the handshake holds.
                (session, envelope) = self.new_conversation(peer, true);
                continue;
            }
            if reply.code != 354 {
                ticket.idle();
                continue;
            }
            ticket.busy();
            if !self
                .take_message(&mut conn, ticket, &envelope, &mut session)
                .await?
            {
                return Ok(());
            }
            ticket.idle();
        }
    }

    /// The session's own rules, before mailin sees a command: the junk-command limit, TLS
    /// required before MAIL, and nothing sent in clear after STARTTLS.
    async fn gate(&self, conn: &mut Connection, verb: Verb) -> io::Result<Gate> {
        if verb == Verb::Junk {
            conn.junk += 1;
            if conn.junk > self.settings.limits.junk_commands {
                conn.io
                    .write_all(b"421 4.7.0 too many commands that make no progress, closing\r\n")
                    .await?;
                return Ok(Gate::Close);
            }
        }
        if verb == Verb::Mail && self.settings.require_tls && !conn.over_tls {
            conn.io
                .write_all(b"530 5.7.0 Must issue a STARTTLS command first\r\n")
                .await?;
            return Ok(Gate::Answered);
        }
        if verb == Verb::StartTls && !conn.over_tls && !conn.io.buffer().is_empty() {
            // Commands sent with STARTTLS, before the handshake, would otherwise be read as
            // if they came over TLS (CVE-2011-0411): nothing sent in clear counts.
            conn.io
                .write_all(
                    b"554 5.5.1 commands sent after STARTTLS before the handshake, closing\r\n",
                )
                .await?;
            return Ok(Gate::Close);
        }
        Ok(Gate::Pass)
    }

    /// A fresh conversation with mailin: at the start, and again after STARTTLS.
    fn new_conversation(
        &self,
        peer: SocketAddr,
        over_tls: bool,
    ) -> (mailin::Session<Collector>, Arc<Mutex<Envelope>>) {
        let collector = Collector::new(&self.settings.domain);
        let envelope = collector.envelope.clone();
        let mut builder = SessionBuilder::new(self.settings.domain.clone());
        if self.settings.tls.is_some() {
            builder.enable_start_tls();
        }
        let mut session = builder.build(peer.ip(), collector);
        if over_tls {
            // mailin then stops offering STARTTLS.
            session.tls_active();
        }
        {
            let mut envelope = lock(&envelope);
            envelope.over_tls = over_tls;
            envelope.peer = peer.ip();
        }
        (session, envelope)
    }

    /// Does the TLS handshake that follows STARTTLS's 220, within the session's bounds (a
    /// client that stalls in it is cut at the idle limit); `false` when the session is over.
    async fn start_tls(&self, conn: &mut Connection, ticket: &Ticket) -> io::Result<bool> {
        let Some(certificates) = &self.settings.tls else {
            return Ok(false);
        };
        let acceptor = certificates.acceptor();
        // The buffer is empty (checked before the 220): the stream is all there is.
        let placeholder: Box<dyn Stream> = Box::new(tokio::io::duplex(1).0);
        let plain = std::mem::replace(&mut conn.io, BufReader::new(placeholder)).into_inner();
        let idle = self.settings.limits.idle_timeout;
        let handshake = tokio::select! {
            biased;
            () = self.stop.draining() => return Ok(false),
            () = ticket.shed() => return Ok(false),
            () = conn.lifetime.as_mut() => return Ok(false),
            done = tokio::time::timeout(idle, acceptor.accept(plain)) => done,
        };
        match handshake {
            Ok(Ok(tls)) => {
                conn.io = BufReader::new(Box::new(tls));
                conn.over_tls = true;
                Ok(true)
            }
            Ok(Err(error)) => {
                tracing::debug!(%error, "STARTTLS handshake failed");
                Ok(false)
            }
            Err(_) => Ok(false),
        }
    }

    /// Reads the next command for mailin, answering itself the lines it refuses; `None` when
    /// the session is over (the client left, or a bound was reached and said so).
    async fn next_command(
        &self,
        conn: &mut Connection,
        ticket: &Ticket,
        envelope: &Mutex<Envelope>,
    ) -> io::Result<Option<Vec<u8>>> {
        loop {
            let read_line = self
                .next_line(
                    &mut conn.io,
                    &mut conn.line,
                    MAX_COMMAND_LINE,
                    conn.lifetime.as_mut(),
                    ticket,
                    true,
                )
                .await;
            match read_line {
                Err(ended) => {
                    conn.io.write_all(ended.reply()).await?;
                    return Ok(None);
                }
                Ok(read) => match read? {
                    LineRead::Eof => return Ok(None),
                    LineRead::Partial => {
                        conn.io.write_all(b"500 5.5.6 line too long\r\n").await?;
                        return Ok(None);
                    }
                    LineRead::Line => {}
                },
            }
            match normalise_command(&conn.line, self.settings.max_bytes) {
                Normalised::Command(command, reverse_path) => {
                    if let Some(path) = reverse_path {
                        lock(envelope).reverse_path = path;
                    }
                    return Ok(Some(command));
                }
                Normalised::Refuse(reply) => conn.io.write_all(reply.as_bytes()).await?,
            }
        }
    }

    /// Receives the message that follows DATA's 354 and answers it once it is stored, or
    /// refused; `false` when the session is over.
    async fn take_message(
        &self,
        conn: &mut Connection,
        ticket: &Ticket,
        envelope: &Mutex<Envelope>,
        session: &mut mailin::Session<Collector>,
    ) -> io::Result<bool> {
        let trace = self.trace_headers(&lock(envelope));
        let received = self
            .receive(
                &mut conn.io,
                &mut conn.line,
                conn.lifetime.as_mut(),
                ticket,
                &trace,
            )
            .await;
        let received = match received {
            Err(ended) => {
                conn.io.write_all(ended.reply()).await?;
                return Ok(false);
            }
            Ok(received) => received?,
        };
        // mailin back to its state after a message; its 250 is sent once the message is
        // stored.
        let reply = session.process(b".\r\n");
        match received {
            Received::TooBig => {
                let text = format!(
                    "552 5.3.4 the message is larger than {} bytes; nothing was stored\r\n",
                    self.settings.max_bytes
                );
                conn.io.write_all(text.as_bytes()).await?;
            }
            Received::NoRoom => {
                conn.io
                    .write_all(b"452 4.3.1 too much mail is being received at once; nothing was stored, please try again later\r\n")
                    .await?;
            }
            Received::Message(raw, held) => {
                let recipients = std::mem::take(&mut lock(envelope).recipients);
                if !self.store(raw, recipients, conn.over_tls).await {
                    conn.io
                        .write_all(
                            b"451 4.3.0 the message could not be stored; please try again later\r\n",
                        )
                        .await?;
                    return Ok(false);
                }
                drop(held);
                crate::fault::point("smtp_stored_before_reply").await;
                write_response(&mut conn.io, &reply).await?;
            }
        }
        Ok(true)
    }

    /// Reads the next line within the session's bounds. Between commands a stop ends the
    /// session; while a message is received it may finish (until the stop's grace is over,
    /// when the listener drops the session).
    async fn next_line(
        &self,
        read: &mut (impl AsyncBufRead + Unpin),
        line: &mut Vec<u8>,
        limit: usize,
        lifetime: Pin<&mut Sleep>,
        ticket: &Ticket,
        between_commands: bool,
    ) -> Result<io::Result<LineRead>, Ended> {
        let idle = self.settings.limits.idle_timeout;
        tokio::select! {
            biased;
            () = self.stop.draining(), if between_commands => Err(Ended::Stopping),
            () = ticket.shed() => Err(Ended::Shed),
            () = lifetime => Err(Ended::Lifetime),
            read = tokio::time::timeout(idle, read_bounded_line(read, line, limit)) => {
                read.map_err(|_| Ended::Idle)
            }
        }
    }

    /// Reads a message to its end (`.` alone on a line), undoing dot-stuffing, in pieces: it
    /// is kept only while it stays within the size limit (counted as the client sent it, so a
    /// message of exactly the announced SIZE is accepted) and the memory budget.
    async fn receive(
        &self,
        read: &mut (impl AsyncBufRead + Unpin),
        line: &mut Vec<u8>,
        mut lifetime: Pin<&mut Sleep>,
        ticket: &Ticket,
        trace: &str,
    ) -> Result<io::Result<Received>, Ended> {
        let max_bytes = self.settings.max_bytes;
        let mut message = Vec::new();
        let mut held = None;
        let mut refused = None;
        if !self.keep(&mut message, &mut held, trace.as_bytes()) {
            refused = Some(Received::NoRoom);
        }
        let mut size = 0usize;
        let mut at_line_start = true;
        loop {
            let piece = match self
                .next_line(read, line, DATA_CHUNK, lifetime.as_mut(), ticket, false)
                .await?
            {
                Ok(LineRead::Eof) => {
                    return Ok(Err(io::ErrorKind::UnexpectedEof.into()));
                }
                Ok(piece) => piece,
                Err(error) => return Ok(Err(error)),
            };
            if at_line_start && (line.as_slice() == b".\r\n" || line.as_slice() == b".\n") {
                break;
            }
            let content = if at_line_start && line.first() == Some(&b'.') {
                line.get(1..).unwrap_or_default()
            } else {
                line.as_slice()
            };
            at_line_start = matches!(piece, LineRead::Line);
            if refused.is_some() {
                continue;
            }
            size += content.len();
            if size > max_bytes {
                refused = Some(Received::TooBig);
            } else if !self.keep(&mut message, &mut held, content) {
                refused = Some(Received::NoRoom);
            }
            if refused.is_some() {
                message = Vec::new();
                held = None;
            }
        }
        Ok(Ok(refused.unwrap_or(Received::Message(message, held))))
    }

    /// The headers a delivering MTA puts in front of a message. The envelope sender goes
    /// first: the mail crate reads an empty Return-Path as a bounce, which is never answered.
    /// Received records the client's address and HELO, from which SPF is checked later
    /// ([`crate::inbox::authenticate`]); "ESMTPS" says it came over TLS (RFC 3848).
    fn trace_headers(&self, envelope: &Envelope) -> String {
        // A HELO name is the client's word: only what a host name may hold goes in a header.
        let helo: String = envelope
            .helo
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '[' | ']' | ':' | '_'))
            .take(255)
            .collect();
        let helo = if helo.is_empty() { "unknown" } else { &helo };
        format!(
            "Return-Path: <{}>\r\nReceived: from {helo} ([{}])\r\n\tby {} with {}; {}\r\n",
            envelope.reverse_path,
            envelope.peer,
            self.settings.domain,
            if envelope.over_tls { "ESMTPS" } else { "ESMTP" },
            self.clock.now().to_rfc2822(),
        )
    }

    /// Appends `bytes` to `message` if the memory budget has room for what that allocates;
    /// `held` is the message's share of the budget.
    fn keep(
        &self,
        message: &mut Vec<u8>,
        held: &mut Option<OwnedSemaphorePermit>,
        bytes: &[u8],
    ) -> bool {
        let needed = message.len() + bytes.len();
        if needed > message.capacity() {
            let capacity = needed
                .max(message.capacity() * 2)
                .min(needed.max(self.settings.max_bytes + 1024));
            let more = capacity - message.capacity();
            let Ok(more_permits) = u32::try_from(more) else {
                return false;
            };
            let Ok(permit) = self.buffers.clone().try_acquire_many_owned(more_permits) else {
                return false;
            };
            match held {
                Some(held) => held.merge(permit),
                None => *held = Some(permit),
            }
            message.reserve_exact(capacity - message.len());
        }
        message.extend_from_slice(bytes);
        true
    }

    /// Hands the message to the group writer and waits until it is stored.
    async fn store(&self, raw: Vec<u8>, recipients: Vec<String>, over_tls: bool) -> bool {
        let (told, stored) = oneshot::channel();
        let message = ToStore {
            key: inbox::storage_key(&raw),
            body_sha256: inbox::body_sha256(&raw),
            raw,
            recipients,
            received_at: self.clock.now(),
            over_tls,
            told,
        };
        // A writer gone (the listener shutting down) stored nothing.
        let is_stored = self.to_store.send(message).await.is_ok() && stored.await.unwrap_or(false);
        if is_stored {
            self.stored.notify_one();
        }
        is_stored
    }
}
