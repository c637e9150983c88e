//! The HTTP door: hyper's HTTP/1.1 connections under our own accept loop, so that a client
//! that never finishes costs a bounded time and a bounded share of the file descriptors.
//!
//! - A request's headers must arrive within the header timeout (hyper's `header_read_timeout`,
//!   which also bounds how long an idle keep-alive connection waits for its next request).
//! - A request's body must arrive whole within the body timeout (a deadline for the whole
//!   body, not per chunk: a byte every few seconds does not keep it open); a handler reading a
//!   late body gets an error and the connection is closed.
//! - Connections are admitted per peer and in all ([`Admission`]), the slowest shed first, so
//!   that `/healthz` still answers while one client holds as many connections as it can.
//! - On [`Stop`]: no new connection; requests in flight finish, idle connections close; after
//!   the grace period every connection is closed, however slowly its client uploads.
//!
//! HTTP/2 is not served: behind a proxy, the proxy speaks HTTP/1.1 to us.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use http_body::{Body, Frame, SizeHint};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;
use tokio::time::Sleep;
use tower::Service;

use super::Stop;
use super::admission::{Admission, Shedding, Ticket};

/// The HTTP door's limits (see docs/configuration.md).
#[derive(Debug, Clone)]
pub struct HttpLimits {
    /// Time to receive a request's headers, and to wait for the next request on a kept-alive
    /// connection.
    pub header_timeout: Duration,
    /// Time to receive a request's whole body.
    pub body_timeout: Duration,
    /// Largest request head (request line and headers) read, in bytes.
    pub max_header_bytes: usize,
    pub max_connections: usize,
    pub max_connections_per_peer: usize,
    /// Peers held to the total cap only: a reverse proxy carries many clients' connections
    /// (whose own limits see the forwarded address, `crate::clients`).
    pub trusted_proxies: crate::clients::TrustedProxies,
}

impl Default for HttpLimits {
    fn default() -> Self {
        HttpLimits {
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(60),
            max_header_bytes: 64 * 1024,
            max_connections: 4096,
            max_connections_per_peer: 256,
            trusted_proxies: crate::clients::TrustedProxies::default(),
        }
    }
}

/// Serves `app` on `listener` until `stop` closes the door; returns once every connection is
/// closed.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: HttpLimits,
    stop: Stop,
) -> io::Result<()> {
    let admission = Admission::new(
        limits.max_connections,
        limits.max_connections_per_peer,
        Shedding::Slowest,
    );
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        // hyper's floor is 8 KiB.
        .max_buf_size(limits.max_header_bytes.max(8192));
    let mut connections = JoinSet::new();
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = stop.draining() => break,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(error) => {
                // Out of file descriptors and the like: back off instead of spinning.
                tracing::warn!(%error, "HTTP accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        // With Shedding::Slowest there is always room.
        let per_peer = !limits.trusted_proxies.contains(peer.ip());
        let Some(ticket) = admission.try_admit_capped(peer.ip(), per_peer) else {
            continue;
        };
        // Responses go out as soon as they are written (no Nagle delay on a partial segment).
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!(%error, "cannot set TCP_NODELAY");
        }
        let connection = Connection {
            peer,
            builder: builder.clone(),
            app: app.clone(),
            body_timeout: limits.body_timeout,
            stop: stop.clone(),
        };
        connections.spawn(connection.run(stream, ticket));
        while connections.try_join_next().is_some() {}
    }
    // Closing the listener refuses new connections at once, rather than leaving them queued.
    drop(listener);
    tokio::select! {
        () = async { while connections.join_next().await.is_some() {} } => {}
        () = stop.closed() => connections.shutdown().await,
    }
    Ok(())
}

struct Connection {
    peer: std::net::SocketAddr,
    builder: http1::Builder,
    app: Router,
    body_timeout: Duration,
    stop: Stop,
}

impl Connection {
    async fn run(self, stream: TcpStream, ticket: Ticket) {
        let ticket = Arc::new(ticket);
        let (app, body_timeout, peer) = (self.app, self.body_timeout, self.peer);
        let service = {
            let ticket = ticket.clone();
            hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
                let mut app = app.clone();
                let busy = Busy::new(ticket.clone());
                let mut request = request
                    .map(|body| axum::body::Body::new(DeadlineBody::new(body, body_timeout)));
                // Who the client is starts from the peer (`crate::clients`).
                request
                    .extensions_mut()
                    .insert(axum::extract::ConnectInfo(peer));
                async move {
                    let response = app.call(request).await;
                    drop(busy);
                    response
                }
            })
        };
        let connection = self.builder.serve_connection(TokioIo::new(stream), service);
        tokio::pin!(connection);
        tokio::select! {
            _ = connection.as_mut() => return,
            () = ticket.shed() => return,
            () = self.stop.draining() => connection.as_mut().graceful_shutdown(),
        }
        tokio::select! {
            _ = connection.as_mut() => {}
            () = ticket.shed() => {}
            () = self.stop.closed() => {}
        }
    }
}

/// Marks the connection busy while a request is served.
struct Busy(Arc<Ticket>);

impl Busy {
    fn new(ticket: Arc<Ticket>) -> Busy {
        ticket.busy();
        Busy(ticket)
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.idle();
    }
}

/// The body did not arrive within the body timeout.
#[derive(Debug, thiserror::Error)]
#[error("the request body was not received in time")]
pub struct BodyTimedOut;

/// Whether reading a body failed because it was not received in time.
pub fn is_body_timeout(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = Some(error);
    while let Some(error) = cause {
        if error.is::<BodyTimedOut>() {
            return true;
        }
        cause = error.source();
    }
    false
}

/// A request body that must arrive whole before its deadline.
struct DeadlineBody<B> {
    inner: B,
    deadline: Pin<Box<Sleep>>,
}

impl<B> DeadlineBody<B> {
    fn new(inner: B, timeout: Duration) -> Self {
        DeadlineBody {
            inner,
            deadline: Box::pin(tokio::time::sleep(timeout)),
        }
    }
}

impl<B> Body for DeadlineBody<B>
where
    B: Body<Data = Bytes> + Unpin,
    B::Error: Into<axum::BoxError>,
{
    type Data = Bytes;
    type Error = axum::BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = &mut *self;
        if let Poll::Ready(frame) = Pin::new(&mut this.inner).poll_frame(cx) {
            return Poll::Ready(frame.map(|frame| frame.map_err(Into::into)));
        }
        if this.deadline.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Some(Err(Box::new(BodyTimedOut))));
        }
        Poll::Pending
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A body that never sends anything.
    struct Silent;

    impl Body for Silent {
        type Data = Bytes;
        type Error = std::convert::Infallible;

        fn poll_frame(
            self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
            Poll::Pending
        }
    }

    #[tokio::test]
    async fn a_body_that_does_not_arrive_in_time_fails() {
        let body = axum::body::Body::new(DeadlineBody::new(Silent, Duration::from_millis(20)));
        let read = tokio::time::timeout(
            Duration::from_secs(2),
            axum::body::to_bytes(body, usize::MAX),
        )
        .await
        .unwrap();
        assert!(is_body_timeout(&read.unwrap_err()));
        let whole = DeadlineBody::new(http_body_full(b"hello"), Duration::from_millis(20));
        assert!(!whole.is_end_stream());
        let bytes = axum::body::to_bytes(axum::body::Body::new(whole), 100)
            .await
            .unwrap();
        assert_eq!(&bytes[..], b"hello");
    }

    fn http_body_full(bytes: &'static [u8]) -> axum::body::Body {
        axum::body::Body::from(bytes)
    }
}
