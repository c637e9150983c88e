//! SPF, DKIM and DMARC of inbound mail (issue 29 item 5), with stalwartlabs' `mail-auth`.
//!
//! Checked by the inbox workers after the message is stored and before it is processed, so the
//! SMTP listener's 250 never waits on DNS, and storing before processing still holds; a
//! worker's transaction is not open meanwhile. Each message gets at most
//! [`MailAuthenticator::time_box`]: what DNS has not answered by then is a `temperror`, which
//! changes nothing. The connecting address, HELO name and envelope sender are read from the
//! message's topmost Received header and its Return-Path: the SMTP listener writes both; for
//! `gm ingest` and the webhook they are those of the MTA in front of Admiralty, which must be
//! the one that took the message from the sender (docs/mail.md).

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use mail_auth::dmarc::Policy;
use mail_auth::hickory_resolver::config::{NameServerConfig, ResolverConfig, ResolverOpts};
use mail_auth::{
    AuthenticatedMessage, DkimResult, DmarcResult, MessageAuthenticator, SpfResult,
    dmarc::verify::DmarcParameters, spf::verify::SpfParameters,
};
use mail_parser::{HeaderValue, Host, MessageParser};
use store::PgPool;
use store::inbox::MailAuth;
use store::status::{DkimVerdict, DmarcPolicy, DmarcVerdict, SpfVerdict};
use tokio::task::JoinSet;

/// What checks inbound mail: a DNS resolver and the name Admiralty receives mail as.
#[derive(Clone)]
pub struct MailAuthenticator {
    resolver: Arc<MessageAuthenticator>,
    /// The receiving host's name, for SPF's `%{r}` macro.
    host: String,
    time_box: Duration,
}

impl std::fmt::Debug for MailAuthenticator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MailAuthenticator")
            .field("host", &self.host)
            .field("time_box", &self.time_box)
            .finish_non_exhaustive()
    }
}

impl PartialEq for MailAuthenticator {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.resolver, &other.resolver)
    }
}

impl Eq for MailAuthenticator {}

impl MailAuthenticator {
    /// Asks `resolver` (address:port), or the system's resolvers (/etc/resolv.conf) without
    /// one.
    pub fn new(
        resolver: Option<SocketAddr>,
        host: &str,
        time_box: Duration,
    ) -> Result<MailAuthenticator, String> {
        let authenticator = match resolver {
            Some(address) => {
                let mut server = NameServerConfig::udp_and_tcp(address.ip());
                for connection in &mut server.connections {
                    connection.port = address.port();
                }
                let mut options = ResolverOpts::default();
                options.timeout = time_box / 2;
                options.attempts = 1;
                MessageAuthenticator::new(ResolverConfig::from_name_servers(vec![server]), options)
            }
            None => MessageAuthenticator::new_system_conf(),
        }
        .map_err(|error| format!("cannot set up the DNS resolver: {error}"))?;
        Ok(MailAuthenticator {
            resolver: Arc::new(authenticator),
            host: host.to_owned(),
            time_box,
        })
    }

    /// The checker `ADMIRALTY_MAIL_AUTH` and its fellows ask for, unless the checks are off.
    pub fn from_settings(
        args: &crate::config::MailAuthArgs,
        mail_domain: &str,
    ) -> Result<Option<MailAuthenticator>, String> {
        if args.mail_auth == crate::config::Switch::Off {
            return Ok(None);
        }
        MailAuthenticator::new(
            args.dns_resolver,
            mail_domain,
            Duration::from_secs(args.mail_auth_seconds.max(1)),
        )
        .map(Some)
    }

    pub fn time_box(&self) -> Duration {
        self.time_box
    }

    /// SPF, DKIM and DMARC of one raw message, within the time box.
    pub async fn check(&self, raw: &[u8]) -> MailAuth {
        tokio::time::timeout(self.time_box, self.check_unbounded(raw))
            .await
            .unwrap_or(MailAuth {
                spf: SpfVerdict::TempError,
                dkim: DkimVerdict::TempError,
                dmarc: DmarcVerdict::TempError,
                dmarc_policy: None,
            })
    }

    async fn check_unbounded(&self, raw: &[u8]) -> MailAuth {
        let Some(message) = AuthenticatedMessage::parse(raw) else {
            return MailAuth {
                spf: SpfVerdict::None,
                dkim: DkimVerdict::PermError,
                dmarc: DmarcVerdict::PermError,
                dmarc_policy: None,
            };
        };
        let resolver = &self.resolver;
        let dkim = resolver.verify_dkim(&message).await;
        let trace = Trace::of(raw);
        let spf = match trace.ip {
            Some(ip) => {
                resolver
                    .verify_spf(SpfParameters::verify(
                        ip,
                        &trace.helo,
                        &self.host,
                        &trace.mail_from,
                    ))
                    .await
            }
            // No trusted hop names the sender's address: nothing SPF could check.
            None => mail_auth::SpfOutput::new(trace.mail_from_domain().to_owned()),
        };
        let dmarc = resolver
            .verify_dmarc(DmarcParameters::new(
                &message,
                &dkim,
                trace.mail_from_domain(),
                &spf,
            ))
            .await;
        MailAuth {
            spf: spf_verdict(&spf.result()),
            dkim: dkim_verdict(dkim.iter().map(|output| output.result())),
            dmarc: dmarc_verdict(&dmarc.result()),
            dmarc_policy: match dmarc.policy() {
                Policy::None => Some(DmarcPolicy::None),
                Policy::Quarantine => Some(DmarcPolicy::Quarantine),
                Policy::Reject => Some(DmarcPolicy::Reject),
                Policy::Unspecified => None,
            },
        }
    }
}

/// Where a message came from, as the trusted hop recorded it.
struct Trace {
    ip: Option<IpAddr>,
    helo: String,
    /// The envelope sender (empty for a bounce).
    mail_from: String,
}

impl Trace {
    fn of(raw: &[u8]) -> Trace {
        let parsed = MessageParser::new().parse_headers(raw);
        let received = parsed.as_ref().and_then(|message| message.received());
        let helo = received
            .and_then(|r| r.helo.as_ref().or(r.from.as_ref()))
            .map(|host| match host {
                Host::Name(name) => name.to_string(),
                Host::IpAddr(ip) => format!("[{ip}]"),
            })
            .unwrap_or_default();
        let mail_from = match parsed.as_ref().map(|message| message.return_path()) {
            Some(HeaderValue::Address(address)) => address
                .first()
                .and_then(|a| a.address())
                .unwrap_or_default()
                .to_owned(),
            Some(HeaderValue::Text(text)) => text.trim_matches(['<', '>', ' ']).to_owned(),
            _ => String::new(),
        };
        Trace {
            ip: received.and_then(|r| r.from_ip),
            helo,
            mail_from,
        }
    }

    /// The domain SPF and DMARC take as the envelope's: the sender's, or the HELO name's for
    /// a bounce (RFC 7208 section 2.4).
    fn mail_from_domain(&self) -> &str {
        match self.mail_from.rsplit_once('@') {
            Some((_, domain)) => domain,
            None => &self.helo,
        }
    }
}

fn spf_verdict(result: &SpfResult) -> SpfVerdict {
    match result {
        SpfResult::Pass => SpfVerdict::Pass,
        SpfResult::Fail => SpfVerdict::Fail,
        SpfResult::SoftFail => SpfVerdict::SoftFail,
        SpfResult::Neutral => SpfVerdict::Neutral,
        SpfResult::TempError => SpfVerdict::TempError,
        SpfResult::PermError => SpfVerdict::PermError,
        SpfResult::None => SpfVerdict::None,
    }
}

/// The best of several signatures' results: one that passes is enough.
fn dkim_verdict<'a>(results: impl Iterator<Item = &'a DkimResult>) -> DkimVerdict {
    results
        .map(|result| match result {
            DkimResult::Pass => DkimVerdict::Pass,
            DkimResult::Fail(_) => DkimVerdict::Fail,
            DkimResult::Neutral(_) => DkimVerdict::Neutral,
            DkimResult::TempError(_) => DkimVerdict::TempError,
            DkimResult::PermError(_) => DkimVerdict::PermError,
            DkimResult::None => DkimVerdict::None,
        })
        .min_by_key(|verdict| match verdict {
            DkimVerdict::Pass => 0,
            DkimVerdict::Fail => 1,
            DkimVerdict::TempError => 2,
            DkimVerdict::PermError => 3,
            DkimVerdict::Neutral => 4,
            DkimVerdict::None => 5,
        })
        .unwrap_or(DkimVerdict::None)
}

fn dmarc_verdict(result: &DmarcResult) -> DmarcVerdict {
    match result {
        DmarcResult::Pass => DmarcVerdict::Pass,
        DmarcResult::Fail(_) => DmarcVerdict::Fail,
        DmarcResult::TempError(_) => DmarcVerdict::TempError,
        DmarcResult::PermError(_) => DmarcVerdict::PermError,
        DmarcResult::None => DmarcVerdict::None,
    }
}

/// Messages checked together: they wait on DNS side by side.
const CHECKED_AT_ONCE: i64 = 32;

/// Checks every stored message waiting to be processed that is not checked yet; returns how
/// many.
pub async fn check_pending(
    pool: &PgPool,
    authenticator: &MailAuthenticator,
    now: DateTime<Utc>,
) -> Result<usize, store::StoreError> {
    let mut count = 0;
    loop {
        let waiting = store::inbox::unchecked(pool, CHECKED_AT_ONCE).await?;
        if waiting.is_empty() {
            return Ok(count);
        }
        let mut checks = JoinSet::new();
        for message in waiting {
            let authenticator = authenticator.clone();
            checks.spawn(async move { (message.id, authenticator.check(&message.raw).await) });
        }
        let mut results = Vec::with_capacity(checks.len());
        while let Some(done) = checks.join_next().await {
            match done {
                Ok(result) => results.push(result),
                // A check that panicked leaves its message unchecked: the next round tries
                // it again, and the error is logged.
                Err(error) => tracing::error!(%error, "checking a message's SPF/DKIM/DMARC failed"),
            }
        }
        if results.is_empty() {
            return Ok(count);
        }
        count += results.len();
        store::inbox::record_authentication(pool, &results, now).await?;
    }
}
