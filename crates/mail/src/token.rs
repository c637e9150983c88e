//! Personal reply tokens: the `TOKEN` in `orders+TOKEN@example.org`.
//!
//! Every mail Admiralty sends a player carries a reply address with a token only that player
//! knows, so a plain reply is authenticated without trusting the From: header. The server makes
//! the token (randomness is not this crate's business); this module only checks its form, finds
//! it among a message's recipients, and writes the address.

use std::fmt;

use serde::{Serialize, Serializer};

/// Fewest characters in a token: 16 characters of `[a-z0-9]` carry about 82 bits.
pub const TOKEN_MIN_LEN: usize = 16;
/// Most characters in a token (the local part of an address is at most 64 octets).
pub const TOKEN_MAX_LEN: usize = 48;

/// A token of valid form: 16 to 48 characters of `[a-z0-9]`, kept in lower case.
///
/// Lower case only, because some mail systems change the case of local parts: the server must
/// generate tokens from lower-case letters and digits (for example 26 characters of lower-case
/// base32, 130 bits), and compare them in this normalised form.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ReplyToken(String);

impl ReplyToken {
    /// The token, lower case, as written in addresses and stored by the server.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Only the first characters: a token authenticates, so logs should not carry it whole.
impl fmt::Debug for ReplyToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let head: String = self.0.chars().take(4).collect();
        write!(f, "ReplyToken({head}…)")
    }
}

impl Serialize for ReplyToken {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

/// Why a string is not a reply token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    #[error("a reply token has {TOKEN_MIN_LEN} to {TOKEN_MAX_LEN} characters, not {0}")]
    /// Too short or too long.
    Length(usize),
    #[error("a reply token has only letters a-z and digits")]
    /// A character outside `[a-zA-Z0-9]`.
    Charset,
}

/// Checks a token's form (charset and length), accepting upper case and returning it lower case.
pub fn parse_token(text: &str) -> Result<ReplyToken, TokenError> {
    let length = text.chars().count();
    if !(TOKEN_MIN_LEN..=TOKEN_MAX_LEN).contains(&length) {
        return Err(TokenError::Length(length));
    }
    if !text.chars().all(|c| c.is_ascii_alphanumeric()) {
        return Err(TokenError::Charset);
    }
    Ok(ReplyToken(text.to_ascii_lowercase()))
}

/// The first valid token among `addresses` written as `local_part+TOKEN@domain` (local part
/// compared case-insensitively, any domain: the message reached us, so the domain was ours).
///
/// Pass the most trustworthy recipients first: the SMTP envelope's RCPT TO, then Delivered-To,
/// To and Cc (as [`crate::InboundMail::recipients`] orders them).
pub fn reply_token<'a>(
    addresses: impl IntoIterator<Item = &'a str>,
    local_part: &str,
) -> Option<ReplyToken> {
    addresses
        .into_iter()
        .find_map(|address| token_of(address, local_part))
}

fn token_of(address: &str, local_part: &str) -> Option<ReplyToken> {
    let address = address.trim().trim_start_matches('<').trim_end_matches('>');
    let (local, _domain) = address.rsplit_once('@')?;
    let (base, token) = local.split_once('+')?;
    if !base.eq_ignore_ascii_case(local_part) {
        return None;
    }
    parse_token(token).ok()
}

/// The personal reply address `local_part+TOKEN@domain`.
pub fn reply_address(local_part: &str, token: &ReplyToken, domain: &str) -> String {
    format!("{local_part}+{}@{domain}", token.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_checked_and_lowered() {
        assert_eq!(
            parse_token("ABCDEFGHIJKLMNOP2345").map(|t| t.as_str().to_owned()),
            Ok("abcdefghijklmnop2345".to_owned())
        );
        assert_eq!(parse_token("short"), Err(TokenError::Length(5)));
        assert_eq!(
            parse_token("abcdefghijklmnop-345"),
            Err(TokenError::Charset)
        );
        assert_eq!(
            parse_token("abcdéfghijklmnop2345"),
            Err(TokenError::Charset)
        );
        assert!(parse_token(&"a".repeat(49)).is_err());
    }

    #[test]
    fn finds_the_token_among_recipients() {
        let addresses = [
            "someone@example.com",
            "orders+tooshort@example.org",
            "<Orders+K7QW2XZP4M9RTB3N@Example.org>",
        ];
        let token = reply_token(addresses, "orders");
        assert_eq!(token.map(|t| t.0), Some("k7qw2xzp4m9rtb3n".to_owned()));
        assert_eq!(
            reply_token(["gm+k7qw2xzp4m9rtb3n@example.org"], "orders"),
            None
        );
        assert_eq!(reply_token(["orders@example.org"], "orders"), None);
    }

    #[test]
    fn debug_shows_only_the_start() {
        let token = parse_token("k7qw2xzp4m9rtb3n").ok();
        assert_eq!(format!("{token:?}"), "Some(ReplyToken(k7qw…))");
    }

    #[test]
    fn writes_the_address() {
        let token = parse_token("k7qw2xzp4m9rtb3n");
        assert_eq!(
            token.map(|t| reply_address("orders", &t, "example.org")),
            Ok("orders+k7qw2xzp4m9rtb3n@example.org".to_owned())
        );
    }
}
