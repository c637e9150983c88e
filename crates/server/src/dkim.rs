//! DKIM (RFC 6376): the key outgoing mail is signed with, read once at start from a PEM file
//! (RSA or Ed25519, RFC 8463), the signature of one message, new key pairs (`gm dkim
//! generate`) and the TXT record a key's public half is published in. The signing itself is
//! stalwartlabs' `mail-auth`: it signs the bytes `outbox::wire` made, whichever way they were
//! built.

use std::fmt;
use std::path::Path;

use base64::Engine as _;
use mail_auth::common::crypto::{Ed25519Key, RsaKey, Sha256};
use mail_auth::common::headers::HeaderWriter;
use mail_auth::dkim::{DkimSigner, Done};
use rustls_pki_types::PrivateKeyDer;
use rustls_pki_types::pem::PemObject;

/// The headers signed when present: the ones a reader sees and a forger would change, and the
/// unsubscribe headers RFC 8058 section 4 asks to be signed. `From` twice: a second From added
/// on the way then breaks the signature (RFC 6376 section 8.15).
pub const SIGNED_HEADERS: [&str; 9] = [
    "From",
    "From",
    "To",
    "Subject",
    "Date",
    "Message-ID",
    "List-Unsubscribe",
    "List-Unsubscribe-Post",
    "List-Id",
];

/// A key's algorithm, as the `k=` tag of its DNS record names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Algorithm {
    /// RSA, 2048 bits when generated (rsa-sha256): every verifier knows it.
    Rsa,
    /// Ed25519 (ed25519-sha256, RFC 8463): short keys, fast; not every verifier knows it yet,
    /// so publish an RSA key beside it.
    Ed25519,
}

impl Algorithm {
    /// The `k=` tag's value.
    pub fn tag(self) -> &'static str {
        match self {
            Algorithm::Rsa => "rsa",
            Algorithm::Ed25519 => "ed25519",
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum DkimError {
    #[error("the DKIM key file {path} could not be read: {reason}")]
    Read { path: String, reason: String },
    #[error(
        "the DKIM key file {path} holds no private key in PEM form (PKCS#8 \"PRIVATE KEY\" or PKCS#1 \"RSA PRIVATE KEY\"): {reason}"
    )]
    Pem { path: String, reason: String },
    #[error(
        "the DKIM key file {path} is neither an Ed25519 key nor an RSA key of 2048 to 4096 bits: {reason}"
    )]
    Key { path: String, reason: String },
    #[error("the DKIM selector {0:?} is not a DNS label (letters, digits, hyphens, dots)")]
    Selector(String),
    #[error("the DKIM domain {0:?} is not a domain name")]
    Domain(String),
    #[error("the key could not be generated: {0}")]
    Generate(String),
    #[error("the message could not be signed: {0}")]
    Sign(String),
}

enum Signer {
    Rsa(DkimSigner<RsaKey<Sha256>, Done>),
    Ed25519(DkimSigner<Ed25519Key, Done>),
}

/// The process's signing key with its selector and domain (`ADMIRALTY_DKIM_*`).
pub struct DkimKey {
    algorithm: Algorithm,
    selector: String,
    domain: String,
    /// The public key as the `p=` tag carries it.
    public: Vec<u8>,
    signer: Signer,
}

/// The selector and domain only: the key stays out of logs.
impl fmt::Debug for DkimKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "DkimKey({} {}._domainkey.{})",
            self.algorithm.tag(),
            self.selector,
            self.domain
        )
    }
}

/// A selector or domain: dot-separated labels of letters, digits and hyphens.
fn is_dns_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 253
        && name.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
                && !label.starts_with('-')
                && !label.ends_with('-')
        })
}

impl DkimKey {
    /// Reads the key from `path` (PEM), for `selector._domainkey.domain`.
    pub fn load(path: &Path, selector: &str, domain: &str) -> Result<DkimKey, DkimError> {
        let shown = path.display().to_string();
        let pem = std::fs::read(path).map_err(|e| DkimError::Read {
            path: shown.clone(),
            reason: e.to_string(),
        })?;
        let der = PrivateKeyDer::from_pem_slice(&pem).map_err(|e| DkimError::Pem {
            path: shown.clone(),
            reason: e.to_string(),
        })?;
        DkimKey::from_der(der, selector, domain).map_err(|e| match e {
            DkimError::Key { reason, .. } => DkimError::Key {
                path: shown,
                reason,
            },
            other => other,
        })
    }

    fn from_der(
        der: PrivateKeyDer<'_>,
        selector: &str,
        domain: &str,
    ) -> Result<DkimKey, DkimError> {
        if !is_dns_name(selector) {
            return Err(DkimError::Selector(selector.to_owned()));
        }
        let domain = domain.trim_end_matches('.').to_ascii_lowercase();
        if !is_dns_name(&domain) {
            return Err(DkimError::Domain(domain));
        }
        let bad = |reason: String| DkimError::Key {
            path: String::new(),
            reason,
        };
        // A PKCS#8 file may hold either kind: Ed25519 is tried first, as ring tells them apart.
        let ed25519 = match &der {
            PrivateKeyDer::Pkcs8(pkcs8) => {
                Ed25519Key::from_pkcs8_der(pkcs8.secret_pkcs8_der()).ok()
            }
            _ => None,
        };
        let (algorithm, public, signer) = match ed25519 {
            Some(key) => {
                let public = key.public_key();
                let signer = DkimSigner::from_key(key)
                    .domain(domain.clone())
                    .selector(selector)
                    .headers(SIGNED_HEADERS);
                (Algorithm::Ed25519, public, Signer::Ed25519(signer))
            }
            None => {
                let key = RsaKey::<Sha256>::from_key_der(der).map_err(|e| bad(e.to_string()))?;
                let public = rsa_spki(&key.public_key()).map_err(bad)?;
                let signer = DkimSigner::from_key(key)
                    .domain(domain.clone())
                    .selector(selector)
                    .headers(SIGNED_HEADERS);
                (Algorithm::Rsa, public, Signer::Rsa(signer))
            }
        };
        Ok(DkimKey {
            algorithm,
            selector: selector.to_owned(),
            domain,
            public,
            signer,
        })
    }

    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    pub fn selector(&self) -> &str {
        &self.selector
    }

    pub fn domain(&self) -> &str {
        &self.domain
    }

    /// The TXT record that publishes this key.
    pub fn record(&self) -> TxtRecord {
        TxtRecord::new(&self.selector, &self.domain, self.algorithm, &self.public)
    }

    /// The `DKIM-Signature:` header field (folded, CRLF-terminated) for `message`, the whole
    /// RFC 5322 message as it goes out; put it before the message's first line.
    pub fn signature(&self, message: &[u8]) -> Result<String, DkimError> {
        let signature = match &self.signer {
            Signer::Rsa(signer) => signer.sign(message),
            Signer::Ed25519(signer) => signer.sign(message),
        }
        .map_err(|e| DkimError::Sign(e.to_string()))?;
        Ok(signature.to_header())
    }

    /// `message` with its signature in front.
    pub fn signed(&self, message: &[u8]) -> Result<Vec<u8>, DkimError> {
        let header = self.signature(message)?;
        let mut out = Vec::with_capacity(header.len() + message.len());
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(message);
        Ok(out)
    }
}

/// RSA's public key as DKIM records carry it: the SubjectPublicKeyInfo (what `openssl rsa
/// -pubout` and opendkim-genkey write), not ring's bare PKCS#1 form.
fn rsa_spki(pkcs1: &[u8]) -> Result<Vec<u8>, String> {
    use rsa::pkcs1::DecodeRsaPublicKey;
    use rsa::pkcs8::EncodePublicKey;
    let key = rsa::RsaPublicKey::from_pkcs1_der(pkcs1).map_err(|e| e.to_string())?;
    key.to_public_key_der()
        .map(|der| der.as_bytes().to_vec())
        .map_err(|e| e.to_string())
}

/// A DKIM key's DNS record: its name and its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxtRecord {
    /// `SEL._domainkey.DOMAIN`.
    pub name: String,
    /// `v=DKIM1; k=…; p=…`, whole.
    pub value: String,
}

/// The most bytes in one of a TXT record's strings (RFC 1035 section 3.3.14).
pub const TXT_STRING_MAX: usize = 255;

impl TxtRecord {
    fn new(selector: &str, domain: &str, algorithm: Algorithm, public: &[u8]) -> TxtRecord {
        let p = base64::engine::general_purpose::STANDARD.encode(public);
        TxtRecord {
            name: format!("{selector}._domainkey.{domain}"),
            value: format!("v=DKIM1; k={}; p={p}", algorithm.tag()),
        }
    }

    /// The value cut into strings of at most 255 bytes, as DNS needs a long one (a 2048-bit RSA
    /// key is about 400); resolvers join them again.
    pub fn strings(&self) -> Vec<&str> {
        txt_strings(&self.value)
    }

    /// The record as a zone file line: `NAME IN TXT "…" "…"`.
    pub fn zone_line(&self) -> String {
        zone_line(&self.name, &self.value)
    }
}

/// `value` cut into strings of at most [`TXT_STRING_MAX`] bytes (the value is ASCII).
pub fn txt_strings(value: &str) -> Vec<&str> {
    let mut strings = Vec::new();
    let mut rest = value;
    while rest.len() > TXT_STRING_MAX {
        let mut cut = TXT_STRING_MAX;
        while !rest.is_char_boundary(cut) {
            cut -= 1;
        }
        let (head, tail) = rest.split_at(cut);
        strings.push(head);
        rest = tail;
    }
    strings.push(rest);
    strings
}

/// `NAME IN TXT "…" "…"`, the value's strings quoted.
pub fn zone_line(name: &str, value: &str) -> String {
    let quoted: Vec<String> = txt_strings(value)
        .into_iter()
        .map(|s| format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\"")))
        .collect();
    format!("{name} IN TXT {}", quoted.join(" "))
}

/// A new private key as a PEM file's text, and its public key's record.
pub struct Generated {
    pub pem: String,
    pub record: TxtRecord,
}

/// Makes a key pair: RSA of 2048 bits or Ed25519.
pub fn generate(
    algorithm: Algorithm,
    selector: &str,
    domain: &str,
) -> Result<Generated, DkimError> {
    let (label, der) = match algorithm {
        Algorithm::Rsa => {
            let pair = mail_auth::dkim::generate::DkimKeyPair::generate_rsa(2048)
                .map_err(|e| DkimError::Generate(e.to_string()))?;
            ("RSA PRIVATE KEY", pair.private_key().to_vec())
        }
        Algorithm::Ed25519 => {
            let der =
                Ed25519Key::generate_pkcs8().map_err(|e| DkimError::Generate(e.to_string()))?;
            ("PRIVATE KEY", der)
        }
    };
    let pem = pem(label, &der);
    let key_der = PrivateKeyDer::from_pem_slice(pem.as_bytes())
        .map_err(|e| DkimError::Generate(e.to_string()))?;
    let key = DkimKey::from_der(key_der, selector, domain)?;
    Ok(Generated {
        pem,
        record: key.record(),
    })
}

/// RFC 7468 text: the base64 in lines of 64.
fn pem(label: &str, der: &[u8]) -> String {
    let body = base64::engine::general_purpose::STANDARD.encode(der);
    let mut out = format!("-----BEGIN {label}-----\n");
    for line in body.as_bytes().chunks(64) {
        out.push_str(&String::from_utf8_lossy(line));
        out.push('\n');
    }
    out.push_str(&format!("-----END {label}-----\n"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_values_are_cut_into_dns_strings() {
        let value = format!("v=DKIM1; k=rsa; p={}", "A".repeat(400));
        let strings = txt_strings(&value);
        assert_eq!(strings.len(), 2);
        assert!(strings.iter().all(|s| s.len() <= TXT_STRING_MAX));
        assert_eq!(strings.concat(), value);
        let line = zone_line("s._domainkey.example.org", &value);
        assert!(line.starts_with("s._domainkey.example.org IN TXT \"v=DKIM1; k=rsa; p=AAA"));
        assert_eq!(line.matches('"').count(), 4);
    }

    #[test]
    fn a_generated_key_signs_and_loads_again() {
        for algorithm in [Algorithm::Ed25519, Algorithm::Rsa] {
            let made = generate(algorithm, "s1", "example.org").unwrap();
            let der = PrivateKeyDer::from_pem_slice(made.pem.as_bytes()).unwrap();
            let key = DkimKey::from_der(der, "s1", "Example.org.").unwrap();
            assert_eq!(key.algorithm(), algorithm);
            assert_eq!(key.record(), made.record);
            assert_eq!(key.domain(), "example.org");
            let message = b"From: a@example.org\r\nTo: b@example.org\r\nSubject: x\r\n\r\nhi\r\n";
            let header = key.signature(message).unwrap();
            assert!(header.starts_with("DKIM-Signature: "), "{header}");
            assert!(header.contains("d=example.org"), "{header}");
            assert!(header.contains("s=s1"), "{header}");
        }
    }

    #[test]
    fn bad_selectors_are_refused() {
        let made = generate(Algorithm::Ed25519, "s1", "example.org").unwrap();
        let der = PrivateKeyDer::from_pem_slice(made.pem.as_bytes()).unwrap();
        assert!(matches!(
            DkimKey::from_der(der, "s1; x=y", "example.org"),
            Err(DkimError::Selector(_))
        ));
    }
}
