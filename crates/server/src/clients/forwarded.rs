//! The client addresses a proxy's headers name, hop by hop, oldest first: `X-Forwarded-For`
//! (a comma-separated list of addresses) or `Forwarded` (RFC 7239, its `for=` parameters).
//! Anything malformed in the list makes the whole list unusable (`None`): a header we cannot
//! read is not evidence.

use std::net::{IpAddr, SocketAddr};

use axum::http::HeaderMap;
use axum::http::header::{FORWARDED, HeaderName};

const X_FORWARDED_FOR: HeaderName = HeaderName::from_static("x-forwarded-for");

/// The hops of `X-Forwarded-For` when present, else of `Forwarded`; `None` when neither is
/// present or the one read is malformed. Several fields of one header are one list, in order.
pub(super) fn hops(headers: &HeaderMap) -> Option<Vec<IpAddr>> {
    if headers.contains_key(&X_FORWARDED_FOR) {
        return list(headers, &X_FORWARDED_FOR, |element| node(element.trim()));
    }
    if headers.contains_key(FORWARDED) {
        return list(headers, &FORWARDED, forwarded_for);
    }
    None
}

fn list(
    headers: &HeaderMap,
    name: &HeaderName,
    element: impl Fn(&str) -> Option<IpAddr>,
) -> Option<Vec<IpAddr>> {
    let mut hops = Vec::new();
    for value in headers.get_all(name) {
        let value = value.to_str().ok()?;
        for part in value.split(',') {
            hops.push(element(part)?);
        }
    }
    (!hops.is_empty()).then_some(hops)
}

/// The `for=` of one RFC 7239 element (`for=192.0.2.60;proto=http;by=203.0.113.43`). An
/// element without one, or naming no address (`unknown`, an obfuscated `_name`), is malformed
/// for us: we could not tell who that hop was.
fn forwarded_for(element: &str) -> Option<IpAddr> {
    let value = element.split(';').find_map(|pair| {
        let (key, value) = pair.trim().split_once('=')?;
        key.trim()
            .eq_ignore_ascii_case("for")
            .then_some(value.trim())
    })?;
    let value = match value.strip_prefix('"') {
        Some(quoted) => quoted.strip_suffix('"')?,
        None => value,
    };
    node(value)
}

/// An address, possibly with a port: `192.0.2.1`, `192.0.2.1:4711`, `2001:db8::1`,
/// `[2001:db8::1]`, `[2001:db8::1]:4711`.
fn node(text: &str) -> Option<IpAddr> {
    if let Ok(address) = text.parse::<IpAddr>() {
        return Some(address);
    }
    if let Ok(socket) = text.parse::<SocketAddr>() {
        return Some(socket.ip());
    }
    text.strip_prefix('[')?.strip_suffix(']')?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, value.parse().unwrap());
        }
        map
    }

    fn ips(list: &[&str]) -> Option<Vec<IpAddr>> {
        Some(list.iter().map(|a| a.parse().unwrap()).collect())
    }

    #[test]
    fn x_forwarded_for_lists_every_hop_across_fields() {
        let map = headers(&[
            ("x-forwarded-for", "203.0.113.7, 10.0.0.1"),
            ("x-forwarded-for", "[2001:db8::1]:80"),
        ]);
        assert_eq!(hops(&map), ips(&["203.0.113.7", "10.0.0.1", "2001:db8::1"]));
    }

    #[test]
    fn forwarded_reads_the_for_parameter_quoted_or_not() {
        let map = headers(&[(
            "forwarded",
            r#"for=192.0.2.60;proto=http;by=203.0.113.43, For="[2001:db8:cafe::17]:4711""#,
        )]);
        assert_eq!(hops(&map), ips(&["192.0.2.60", "2001:db8:cafe::17"]));
        let map = headers(&[("forwarded", r#"for="192.0.2.43:47011""#)]);
        assert_eq!(hops(&map), ips(&["192.0.2.43"]));
    }

    #[test]
    fn x_forwarded_for_is_preferred_to_forwarded() {
        let map = headers(&[
            ("forwarded", "for=192.0.2.60"),
            ("x-forwarded-for", "198.51.100.2"),
        ]);
        assert_eq!(hops(&map), ips(&["198.51.100.2"]));
    }

    #[test]
    fn anything_malformed_makes_the_list_unusable() {
        for (name, value) in [
            ("x-forwarded-for", "203.0.113.7, nonsense"),
            ("x-forwarded-for", ""),
            ("x-forwarded-for", "203.0.113.7,"),
            ("x-forwarded-for", "300.1.1.1"),
            ("forwarded", "for=unknown"),
            ("forwarded", "for=_hidden"),
            ("forwarded", "proto=https"),
            ("forwarded", r#"for="[2001:db8::1"#),
            ("forwarded", "for="),
        ] {
            assert_eq!(hops(&headers(&[(name, value)])), None, "{name}: {value}");
        }
        assert_eq!(hops(&HeaderMap::new()), None);
    }
}
