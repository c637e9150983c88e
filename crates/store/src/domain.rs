//! Values parsed at the edge: holding one means it is valid.

use std::fmt;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// A mail address in the subset Admiralty accepts: ASCII, one `@`, a dotted domain.
/// The domain is lower-cased; the local part is kept as given (it may be case-sensitive).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct EmailAddress(String);

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EmailAddressError {
    #[error("the address is empty")]
    Empty,
    #[error("the address is longer than 254 characters")]
    TooLong,
    #[error("the address must contain exactly one '@'")]
    NotOneAt,
    #[error("the part before '@' is not a valid mailbox name")]
    InvalidLocalPart,
    #[error("the part after '@' is not a valid domain name")]
    InvalidDomain,
}

impl EmailAddress {
    /// Parses an address typed by a person or taken from a header; surrounding spaces are
    /// ignored.
    ///
    /// ```
    /// use store::EmailAddress;
    /// let address = EmailAddress::parse(" Nelson@Victory.EXAMPLE ").unwrap();
    /// assert_eq!(address.as_str(), "Nelson@victory.example");
    /// assert!(EmailAddress::parse("nelson@localhost").is_err());
    /// ```
    pub fn parse(input: &str) -> Result<Self, EmailAddressError> {
        let input = input.trim();
        if input.is_empty() {
            return Err(EmailAddressError::Empty);
        }
        if input.len() > 254 {
            return Err(EmailAddressError::TooLong);
        }
        let (local, domain) = match input.split_once('@') {
            Some((local, domain)) if !domain.contains('@') => (local, domain),
            _ => return Err(EmailAddressError::NotOneAt),
        };
        if !is_valid_local_part(local) {
            return Err(EmailAddressError::InvalidLocalPart);
        }
        if !is_valid_domain(domain) {
            return Err(EmailAddressError::InvalidDomain);
        }
        Ok(EmailAddress(format!(
            "{local}@{}",
            domain.to_ascii_lowercase()
        )))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// RFC 5322 dot-atom: atext characters separated by single dots.
fn is_valid_local_part(local: &str) -> bool {
    const SPECIALS: &str = "!#$%&'*+-/=?^_`{|}~";
    !local.is_empty()
        && local.len() <= 64
        && local.split('.').all(|atom| {
            !atom.is_empty()
                && atom
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || SPECIALS.contains(c))
        })
}

/// At least two labels of letters, digits and inner hyphens.
fn is_valid_domain(domain: &str) -> bool {
    let labels: Vec<&str> = domain.split('.').collect();
    domain.len() <= 253
        && labels.len() >= 2
        && labels.iter().all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        })
}

impl fmt::Display for EmailAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for EmailAddress {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for EmailAddress {
    type Error = EmailAddressError;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        EmailAddress::parse(&value)
    }
}

/// A name shown to other people: 1 to 100 characters, no control characters, trimmed; a new
/// name has no `<` or `>` either (markup is refused at entry: a name is text wherever it is
/// shown, and a TELL must be able to name it). A name stored before that rule is read back
/// as it is ([`DisplayName::stored`]) and shown escaped.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct DisplayName(String);

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DisplayNameError {
    #[error("the name is empty")]
    Empty,
    #[error("the name is longer than {} characters", DisplayName::MAX_CHARS)]
    TooLong,
    #[error("the name contains control characters")]
    ControlCharacter,
    #[error("the name contains < or >: write the name as plain text, without markup")]
    Markup,
}

impl DisplayName {
    pub const MAX_CHARS: usize = 100;

    /// A name as entered (a form, an import, a setup file): [`DisplayName::stored`]'s rules,
    /// and no markup.
    pub fn parse(input: &str) -> Result<Self, DisplayNameError> {
        let name = DisplayName::stored(input)?;
        if name.0.contains(['<', '>']) {
            return Err(DisplayNameError::Markup);
        }
        Ok(name)
    }

    /// A name as read back from the database: names stored before markup was refused keep
    /// working.
    pub fn stored(input: &str) -> Result<Self, DisplayNameError> {
        let name = input.trim();
        if name.is_empty() {
            return Err(DisplayNameError::Empty);
        }
        if name.chars().count() > Self::MAX_CHARS {
            return Err(DisplayNameError::TooLong);
        }
        if name.chars().any(char::is_control) {
            return Err(DisplayNameError::ControlCharacter);
        }
        Ok(DisplayName(name.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for DisplayName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<String> for DisplayName {
    type Error = DisplayNameError;
    /// Serde's way in, which reads stored JSON too: [`DisplayName::stored`]'s rules.
    fn try_from(value: String) -> Result<Self, Self::Error> {
        DisplayName::stored(&value)
    }
}

/// A zine's short name in URLs and mail addresses: lower-case letters, digits and inner
/// hyphens, 1 to 64 characters.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct ZineSlug(String);

#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("a zine's short name is 1 to 64 lower-case letters, digits and inner hyphens")]
pub struct ZineSlugError;

impl ZineSlug {
    pub fn parse(input: &str) -> Result<Self, ZineSlugError> {
        let valid = (1..=64).contains(&input.len())
            && !input.starts_with('-')
            && !input.ends_with('-')
            && input
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
        if valid {
            Ok(ZineSlug(input.to_owned()))
        } else {
            Err(ZineSlugError)
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ZineSlug {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<String> for ZineSlug {
    type Error = ZineSlugError;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        ZineSlug::parse(&value)
    }
}

impl From<EmailAddress> for String {
    fn from(value: EmailAddress) -> String {
        value.0
    }
}

impl From<DisplayName> for String {
    fn from(value: DisplayName) -> String {
        value.0
    }
}

impl From<ZineSlug> for String {
    fn from(value: ZineSlug) -> String {
        value.0
    }
}

/// Stored as `text`; read back through `parse` (a display name through `stored`), so a row
/// that holds what the type refuses is an error, never a value in hand.
macro_rules! stored_as_text {
    ($name:ident via $read:ident) => {
        impl sqlx::Type<sqlx::Postgres> for $name {
            fn type_info() -> sqlx::postgres::PgTypeInfo {
                <&str as sqlx::Type<sqlx::Postgres>>::type_info()
            }
            fn compatible(ty: &sqlx::postgres::PgTypeInfo) -> bool {
                <&str as sqlx::Type<sqlx::Postgres>>::compatible(ty)
            }
        }

        impl sqlx::Encode<'_, sqlx::Postgres> for $name {
            fn encode_by_ref(
                &self,
                buf: &mut sqlx::postgres::PgArgumentBuffer,
            ) -> Result<sqlx::encode::IsNull, sqlx::error::BoxDynError> {
                <&str as sqlx::Encode<sqlx::Postgres>>::encode(self.as_str(), buf)
            }
        }

        impl<'r> sqlx::Decode<'r, sqlx::Postgres> for $name {
            fn decode(
                value: sqlx::postgres::PgValueRef<'r>,
            ) -> Result<Self, sqlx::error::BoxDynError> {
                Ok($name::$read(
                    <&str as sqlx::Decode<sqlx::Postgres>>::decode(value)?,
                )?)
            }
        }
    };
}

stored_as_text!(EmailAddress via parse);
stored_as_text!(ZineSlug via parse);
stored_as_text!(DisplayName via stored);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_ordinary_addresses() {
        for ok in [
            "a@b.co",
            "first.last+tag@sub.example.org",
            "o'brien@example.ie",
            "x_y-z@a-b.example",
        ] {
            assert!(EmailAddress::parse(ok).is_ok(), "{ok}");
        }
    }

    #[test]
    fn rejects_malformed_addresses() {
        let cases = [
            ("", EmailAddressError::Empty),
            ("   ", EmailAddressError::Empty),
            ("plainaddress", EmailAddressError::NotOneAt),
            ("a@b@c.example", EmailAddressError::NotOneAt),
            ("@example.org", EmailAddressError::InvalidLocalPart),
            ("a..b@example.org", EmailAddressError::InvalidLocalPart),
            (".a@example.org", EmailAddressError::InvalidLocalPart),
            ("a b@example.org", EmailAddressError::InvalidLocalPart),
            ("a@", EmailAddressError::InvalidDomain),
            ("a@localhost", EmailAddressError::InvalidDomain),
            ("a@-x.example", EmailAddressError::InvalidDomain),
            ("a@x..example", EmailAddressError::InvalidDomain),
            ("a@exa mple.org", EmailAddressError::InvalidDomain),
            ("ü@example.org", EmailAddressError::InvalidLocalPart),
        ];
        for (input, expected) in cases {
            assert_eq!(EmailAddress::parse(input), Err(expected), "{input:?}");
        }
        let long = format!("{}@example.org", "a".repeat(250));
        assert_eq!(EmailAddress::parse(&long), Err(EmailAddressError::TooLong));
    }

    #[test]
    fn lower_cases_only_the_domain() {
        assert_eq!(
            EmailAddress::parse("Jack.Aubrey@HMS.Surprise.Example")
                .unwrap()
                .as_str(),
            "Jack.Aubrey@hms.surprise.example"
        );
    }

    #[test]
    fn display_names_are_trimmed_and_bounded() {
        assert_eq!(
            DisplayName::parse("  Horatio ").unwrap().as_str(),
            "Horatio"
        );
        assert_eq!(DisplayName::parse(" \t"), Err(DisplayNameError::Empty));
        assert_eq!(
            DisplayName::parse("<i>Felix</i> Fell"),
            Err(DisplayNameError::Markup)
        );
        // One stored before the rule reads back as it is.
        assert_eq!(
            DisplayName::stored("<i>Felix</i> Fell").unwrap().as_str(),
            "<i>Felix</i> Fell"
        );
        assert!(DisplayName::parse("Felix & Fell").is_ok());
        assert_eq!(
            DisplayName::parse("a\u{7}b"),
            Err(DisplayNameError::ControlCharacter)
        );
        assert_eq!(
            DisplayName::parse(&"é".repeat(100)).map(|n| n.as_str().chars().count()),
            Ok(100)
        );
        assert_eq!(
            DisplayName::parse(&"é".repeat(101)),
            Err(DisplayNameError::TooLong)
        );
    }

    #[test]
    fn slugs() {
        assert!(ZineSlug::parse("the-gazette-2").is_ok());
        for bad in ["", "-a", "a-", "Upper", "sp ace", "ünï", &"a".repeat(65)] {
            assert_eq!(ZineSlug::parse(bad), Err(ZineSlugError), "{bad:?}");
        }
    }
}
