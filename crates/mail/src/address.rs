//! One mailbox, however its address is spelled: what Admiralty's limits on mail count by.
//!
//! `Victim@Example.COM`, `victim+1@example.com`, `"victim"@example.com` and
//! `victim@example.com.` all reach the same person, so a limit that counted addresses as
//! written would give a forger a fresh allowance for each spelling. [`MailboxKey::parse`]
//! takes the parts every mail system agrees on away: the letter case, a quoted local part's
//! quotes and escapes, a `+tag` (RFC 5233 subaddressing, which the big providers and
//! Postfix, Exim and Sendmail's defaults implement), the angle brackets and a source route,
//! a trailing dot on the domain, and an internationalised domain's Unicode form (turned into
//! its ASCII form, so both spellings meet). One provider rule more is applied, because its
//! owner documents it: Gmail ignores dots in the local part and `googlemail.com` is
//! `gmail.com`. Other providers' private rules (a `-` separator, Fastmail's
//! `anything@user.fastmail.com`) are not guessed at: the per-domain limit bounds them.
//!
//! ```
//! use mail::address::MailboxKey;
//! let key = MailboxKey::parse("\"Victim+2\"@Example.COM.").unwrap();
//! assert_eq!(key.as_str(), "victim@example.com");
//! assert_eq!(key.domain(), "example.com");
//! assert_eq!(MailboxKey::parse("V.I.C.T.I.M+x@googlemail.com").unwrap().as_str(), "victim@gmail.com");
//! ```

use std::fmt;

/// Local parts that belong to mail systems, not people: never answered.
const SYSTEM_LOCAL_PARTS: &[&str] = &[
    "mailer-daemon",
    "mailer_daemon",
    "mailerdaemon",
    "postmaster",
    "noreply",
    "no-reply",
    "no_reply",
    "no.reply",
    "donotreply",
    "do-not-reply",
    "do_not_reply",
    "bounce",
    "bounces",
    "listserv",
    "majordomo",
];

/// Domains whose owner documents that dots in the local part do not matter, with the
/// domain they are the same as.
const DOTLESS_DOMAINS: &[(&str, &str)] =
    &[("gmail.com", "gmail.com"), ("googlemail.com", "gmail.com")];

/// A mailbox as the limits count it: `local@domain`, normalised (see the module's text).
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MailboxKey {
    text: String,
    /// Where the domain starts in `text` (after the `@`).
    domain_at: usize,
}

impl MailboxKey {
    /// The mailbox `address` reaches, or `None` when it is no `local@domain` address.
    pub fn parse(address: &str) -> Option<MailboxKey> {
        let address = address.trim();
        let address = address
            .strip_prefix('<')
            .and_then(|a| a.strip_suffix('>'))
            .unwrap_or(address)
            .trim();
        // A source route (`@relay1,@relay2:local@domain`, RFC 5321 section 4.1.2) is ignored.
        let address = match address.strip_prefix('@') {
            Some(_) => address.split_once(':')?.1,
            None => address,
        };
        let (local, domain) = split_at_domain(address)?;
        let local = unquote(local);
        let mut local: String = local.to_lowercase();
        if let Some((base, _tag)) = local.split_once('+')
            && !base.is_empty()
        {
            local.truncate(base.len());
        }
        let domain = domain.trim().trim_end_matches('.').to_lowercase();
        if local.is_empty() || domain.is_empty() {
            return None;
        }
        let domain = if domain.starts_with('[') {
            domain
        } else {
            idna::domain_to_ascii(&domain).unwrap_or(domain)
        };
        let (local, domain) = match DOTLESS_DOMAINS.iter().find(|(d, _)| *d == domain) {
            Some((_, same)) => (local.replace('.', ""), (*same).to_owned()),
            None => (local, domain),
        };
        if local.is_empty() {
            return None;
        }
        Some(MailboxKey {
            domain_at: local.len() + 1,
            text: format!("{local}@{domain}"),
        })
    }

    /// `local@domain`, normalised.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The local part, normalised.
    pub fn local(&self) -> &str {
        self.text
            .get(..self.domain_at.saturating_sub(1))
            .unwrap_or_default()
    }

    /// The domain, lower case, in its ASCII form.
    pub fn domain(&self) -> &str {
        self.text.get(self.domain_at..).unwrap_or_default()
    }

    /// Whether the mailbox is a mail system's (MAILER-DAEMON, postmaster, noreply, ...).
    pub fn is_system(&self) -> bool {
        SYSTEM_LOCAL_PARTS.contains(&self.local())
    }
}

impl fmt::Debug for MailboxKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MailboxKey({})", self.text)
    }
}

impl fmt::Display for MailboxKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// The local part and domain: the domain follows the last `@` outside quotes.
fn split_at_domain(address: &str) -> Option<(&str, &str)> {
    let mut quoted = false;
    let mut escaped = false;
    let mut at = None;
    for (index, c) in address.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            '@' if !quoted => at = Some(index),
            _ => {}
        }
    }
    let at = at?;
    Some((address.get(..at)?, address.get(at + 1..)?))
}

/// A local part without its quoting: `"victim"` is `victim`, and `"vic\"tim"` is `victim` too
/// (quotes and backslashes are dropped, not interpreted: a mailbox whose name holds a quote is
/// counted with the one without, which only ever tightens a limit).
fn unquote(local: &str) -> String {
    local.chars().filter(|c| !matches!(c, '"' | '\\')).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(address: &str) -> String {
        MailboxKey::parse(address).map_or_else(|| "-".to_owned(), |k| k.to_string())
    }

    #[test]
    fn every_spelling_of_one_mailbox_is_one_key() {
        for spelling in [
            "victim@example.com",
            "Victim@Example.COM",
            "VICTIM@EXAMPLE.COM",
            "victim+1@example.com",
            "victim+a+b@example.com",
            "\"victim\"@example.com",
            "\"Victim+3\"@example.com",
            "\"vic\\tim\"@example.com",
            "<victim@example.com>",
            " victim@example.com. ",
            "@relay.example,@other.example:victim@example.com",
        ] {
            assert_eq!(key(spelling), "victim@example.com", "{spelling}");
        }
    }

    #[test]
    fn different_mailboxes_stay_apart() {
        assert_eq!(key("victim2@example.com"), "victim2@example.com");
        assert_eq!(key("v.ictim@example.com"), "v.ictim@example.com");
        assert_eq!(key("victim-1@example.com"), "victim-1@example.com");
        assert_eq!(key("victim@sub.example.com"), "victim@sub.example.com");
        // A local part that is all tag is its own mailbox.
        assert_eq!(key("+tag@example.com"), "+tag@example.com");
        assert_eq!(key("\"a@b\"@example.com"), "a@b@example.com");
        assert_eq!(
            MailboxKey::parse("\"a@b\"@example.com").map(|k| k.domain().to_owned()),
            Some("example.com".to_owned())
        );
    }

    #[test]
    fn gmail_ignores_dots_as_its_owner_documents() {
        for spelling in [
            "victim@gmail.com",
            "v.i.c.t.i.m@gmail.com",
            "Vic.Tim+x@GoogleMail.com",
        ] {
            assert_eq!(key(spelling), "victim@gmail.com", "{spelling}");
        }
        assert_eq!(key("v.ictim@outlook.com"), "v.ictim@outlook.com");
    }

    #[test]
    fn internationalised_domains_meet_their_ascii_form() {
        assert_eq!(key("hans@Bücher.example"), "hans@xn--bcher-kva.example");
        assert_eq!(
            key("hans@xn--bcher-kva.example"),
            "hans@xn--bcher-kva.example"
        );
        assert_eq!(key("Ünïcode@example.com"), "ünïcode@example.com");
    }

    #[test]
    fn no_address_no_key() {
        for bad in [
            "",
            "victim",
            "@example.com",
            "victim@",
            "\"\"@example.com",
            "<>",
            "a@.",
        ] {
            assert_eq!(key(bad), "-", "{bad:?}");
        }
    }

    #[test]
    fn mail_systems_are_known_however_spelled() {
        for system in [
            "MAILER-DAEMON@mx.example.com",
            "\"postmaster\"@example.com",
            "Postmaster+x@example.com",
            "no-reply@example.com",
            "bounces+1234@lists.example.com",
        ] {
            assert!(
                MailboxKey::parse(system).is_some_and(|k| k.is_system()),
                "{system}"
            );
        }
        assert!(!MailboxKey::parse("fred@example.com").is_some_and(|k| k.is_system()));
    }
}
