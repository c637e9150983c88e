//! Who the client is. Behind a reverse proxy every TCP peer is the proxy, so the proxies an
//! operator lists (`ADMIRALTY_TRUSTED_PROXIES`) are believed about the client they forward
//! for: walking `X-Forwarded-For` (or `Forwarded: for=`) from the right past trusted proxies,
//! the first address that is not one is the client. From any other peer the headers are
//! ignored, and a header that cannot be read counts as absent: the peer is the client.
//!
//! The address found is what the per-client limits count (GM login failures here; the HTTP
//! door's per-peer connection cap leaves trusted proxies to the total cap), what the request's
//! log span names and what a GM login's audit entry records.

mod failures;
mod forwarded;

use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};

use axum::extract::{ConnectInfo, FromRequestParts, Request, State};
use axum::http::HeaderMap;
use axum::http::request::Parts;
use axum::middleware::Next;
use axum::response::Response;
use ipnet::IpNet;

pub use failures::{ClientFailures, DEFAULT_MAX_FAILURES_PER_CLIENT};

use crate::AppState;

/// The proxies whose forwarding headers are believed: addresses and CIDR blocks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<IpNet>);

#[derive(Debug, thiserror::Error)]
#[error("{0:?} is neither an IP address nor a CIDR block (e.g. 10.0.0.0/8, ::1)")]
pub struct TrustedProxiesError(String);

impl TrustedProxies {
    /// A comma-separated list of addresses and CIDR blocks; empty trusts no one.
    pub fn parse(text: &str) -> Result<TrustedProxies, TrustedProxiesError> {
        let mut blocks = Vec::new();
        for item in text.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let block = match item.parse::<IpNet>() {
                Ok(block) => block,
                Err(_) => item
                    .parse::<IpAddr>()
                    .map(IpNet::from)
                    .map_err(|_| TrustedProxiesError(item.to_owned()))?,
            };
            blocks.push(block.trunc());
        }
        Ok(TrustedProxies(blocks))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn contains(&self, address: IpAddr) -> bool {
        let address = address.to_canonical();
        self.0.iter().any(|block| block.contains(&address))
    }

    /// The client a request from `peer` with these headers comes from.
    pub fn client_of(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        let peer = peer.to_canonical();
        if !self.contains(peer) {
            return peer;
        }
        let Some(hops) = forwarded::hops(headers) else {
            return peer;
        };
        // From the right: each trusted hop vouches for the one before it; the first hop that
        // is not trusted is as far as the chain of trust reaches.
        let mut client = peer;
        for hop in hops.iter().rev().map(|hop| hop.to_canonical()) {
            client = hop;
            if !self.contains(hop) {
                break;
            }
        }
        client
    }
}

impl std::str::FromStr for TrustedProxies {
    type Err = TrustedProxiesError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        TrustedProxies::parse(text)
    }
}

/// The request's client address, when the request came through a door that knows its peer
/// (not a test's direct call of the router).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientAddress(pub Option<IpAddr>);

impl<S: Send + Sync> FromRequestParts<S> for ClientAddress {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(parts
            .extensions
            .get::<ClientAddress>()
            .copied()
            .unwrap_or(ClientAddress(None)))
    }
}

/// Finds the request's client once, for the handlers, the log span and the limits.
pub async fn find_client(
    State(state): State<AppState>,
    mut request: Request,
    next: Next,
) -> Response {
    let peer = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|info| info.0.ip());
    let client = peer.map(|peer| state.trusted_proxies.client_of(peer, request.headers()));
    request.extensions_mut().insert(ClientAddress(client));
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_xff(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert("x-forwarded-for", value.parse().unwrap());
        headers
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn only_a_trusted_peer_is_believed() {
        let trusted = TrustedProxies::parse("127.0.0.1, 10.0.0.0/8").unwrap();
        let headers = with_xff("203.0.113.7");
        assert_eq!(
            trusted.client_of(ip("127.0.0.1"), &headers),
            ip("203.0.113.7")
        );
        assert_eq!(
            trusted.client_of(ip("192.0.2.9"), &headers),
            ip("192.0.2.9")
        );
        assert_eq!(
            TrustedProxies::default().client_of(ip("127.0.0.1"), &headers),
            ip("127.0.0.1")
        );
    }

    #[test]
    fn the_rightmost_untrusted_hop_is_the_client() {
        let trusted = TrustedProxies::parse("127.0.0.1,10.0.0.0/8").unwrap();
        // The client's own claim (198.51.100.1) is left of what our proxies saw.
        let headers = with_xff("198.51.100.1, 203.0.113.7, 10.1.2.3");
        assert_eq!(
            trusted.client_of(ip("127.0.0.1"), &headers),
            ip("203.0.113.7")
        );
        // Every hop trusted: the farthest one is the best we know.
        let headers = with_xff("10.9.9.9, 10.1.2.3");
        assert_eq!(trusted.client_of(ip("127.0.0.1"), &headers), ip("10.9.9.9"));
    }

    #[test]
    fn a_malformed_header_falls_back_to_the_peer() {
        let trusted = TrustedProxies::parse("127.0.0.1").unwrap();
        assert_eq!(
            trusted.client_of(ip("127.0.0.1"), &with_xff("203.0.113.7, oops")),
            ip("127.0.0.1")
        );
    }

    #[test]
    fn ipv4_mapped_peers_match_ipv4_blocks() {
        let trusted = TrustedProxies::parse("127.0.0.0/8").unwrap();
        assert!(trusted.contains(ip("::ffff:127.0.0.1")));
        assert!(!trusted.contains(ip("::1")));
    }

    #[test]
    fn the_setting_refuses_what_is_not_an_address() {
        assert!(TrustedProxies::parse("10.0.0.0/33").is_err());
        assert!(TrustedProxies::parse("proxy.example").is_err());
        assert!(TrustedProxies::parse(" ").unwrap().is_empty());
        assert_eq!(
            TrustedProxies::parse("10.1.2.3/8").unwrap(),
            TrustedProxies::parse("10.0.0.0/8").unwrap()
        );
    }
}
