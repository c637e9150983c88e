//! VERP return paths: every outgoing message's envelope sender is `bounces+TAG@DOMAIN`, the
//! tag naming the outgoing message (its outbox row) and signed, so that a bounce says which
//! message it is about and a forged one is known. The tag is `ID-MAC`: the row's id in decimal
//! and the first 10 bytes of HMAC-SHA-256(key, "bounce:ID") in lower-case hex, so that an MTA
//! that lower-cases a local part keeps it valid. The key is the caller's (the server keeps one
//! in its database); no clock, no randomness here.

use hmac::{Hmac, KeyInit, Mac};
use sha2_hmac::Sha256;

/// The local part of return paths, before the `+`.
pub const BOUNCE_LOCAL_PART: &str = "bounces";

/// Bytes of the MAC kept in a tag: 80 bits, not guessable by a forger who must hit one
/// message's tag.
const MAC_BYTES: usize = 10;

/// The secret that signs and checks tags.
#[derive(Clone)]
pub struct TagKey([u8; 32]);

impl TagKey {
    pub fn new(bytes: [u8; 32]) -> TagKey {
        TagKey(bytes)
    }

    fn mac(&self, id: i64) -> [u8; MAC_BYTES] {
        // HMAC takes a key of any length, so this never fails.
        let mut mac = match <Hmac<Sha256> as KeyInit>::new_from_slice(&self.0) {
            Ok(mac) => mac,
            Err(_) => return [0; MAC_BYTES],
        };
        mac.update(b"bounce:");
        mac.update(id.to_string().as_bytes());
        let full = mac.finalize().into_bytes();
        let mut out = [0; MAC_BYTES];
        for (o, b) in out.iter_mut().zip(full.iter()) {
            *o = *b;
        }
        out
    }

    /// The signed tag of outgoing message `id`.
    pub fn tag(&self, id: i64) -> String {
        format!("{id}-{}", hex::encode(self.mac(id)))
    }

    /// The return path of outgoing message `id`: `bounces+ID-MAC@domain`.
    pub fn return_path(&self, id: i64, domain: &str) -> String {
        format!("{BOUNCE_LOCAL_PART}+{}@{domain}", self.tag(id))
    }

    /// The message a tag names, if its MAC is right (compared in constant time).
    pub fn verify(&self, tag: &str) -> Option<i64> {
        let (id, mac) = tag.trim().split_once('-')?;
        if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) || id.starts_with('0') {
            return None;
        }
        let id: i64 = id.parse().ok()?;
        let given = hex::decode(mac.to_ascii_lowercase()).ok()?;
        let mut check = <Hmac<Sha256> as KeyInit>::new_from_slice(&self.0).ok()?;
        check.update(b"bounce:");
        check.update(id.to_string().as_bytes());
        check.verify_truncated_left(&given).ok()?;
        (given.len() == MAC_BYTES).then_some(id)
    }
}

impl std::fmt::Debug for TagKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TagKey([redacted])")
    }
}

/// The tag of the first address `bounces+TAG@...` among `addresses` (any letter case, angle
/// brackets allowed), unchecked: see [`TagKey::verify`].
pub fn find_tag<'a>(addresses: impl IntoIterator<Item = &'a str>) -> Option<String> {
    addresses.into_iter().find_map(|address| {
        let address = address.trim().trim_start_matches('<').trim_end_matches('>');
        let (local, _domain) = address.rsplit_once('@')?;
        let (base, tag) = local.split_once('+')?;
        (base.eq_ignore_ascii_case(BOUNCE_LOCAL_PART) && !tag.is_empty())
            .then(|| tag.to_ascii_lowercase())
    })
}

/// Whether `address` is a return path (`bounces+…@` or bare `bounces@`).
pub fn is_return_path(address: &str) -> bool {
    let address = address.trim().trim_start_matches('<').trim_end_matches('>');
    address.rsplit_once('@').is_some_and(|(local, _)| {
        local
            .split('+')
            .next()
            .is_some_and(|base| base.eq_ignore_ascii_case(BOUNCE_LOCAL_PART))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tag_verifies_and_a_forged_one_does_not() {
        let key = TagKey::new([7; 32]);
        let tag = key.tag(1234);
        assert!(
            tag.starts_with("1234-") && tag.len() == 5 + 2 * MAC_BYTES,
            "{tag}"
        );
        assert_eq!(key.verify(&tag), Some(1234));
        assert_eq!(key.verify(&tag.to_ascii_uppercase()), Some(1234));
        // Another message's id with this MAC, a wrong MAC, a short MAC, another key.
        assert_eq!(key.verify(&tag.replacen("1234", "1235", 1)), None);
        assert_eq!(key.verify("1234-00000000000000000000"), None);
        assert_eq!(key.verify(tag.get(..tag.len() - 2).unwrap_or("")), None);
        assert_eq!(TagKey::new([8; 32]).verify(&tag), None);
        assert_eq!(key.verify("01234-x"), None);
        assert_eq!(key.verify(""), None);
    }

    #[test]
    fn the_tag_is_found_among_addresses() {
        let key = TagKey::new([1; 32]);
        let path = key.return_path(9, "example.org");
        assert_eq!(path, format!("bounces+{}@example.org", key.tag(9)));
        let found = find_tag(["orders@example.org", &format!("<{}>", path.to_uppercase())]);
        assert_eq!(found.as_deref().and_then(|t| key.verify(t)), Some(9));
        assert_eq!(find_tag(["orders+abc@example.org"]), None);
        assert!(is_return_path(&path) && is_return_path("Bounces@example.org"));
        assert!(!is_return_path("orders+x@example.org"));
    }
}
