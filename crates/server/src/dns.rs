//! The DNS records a zine's mail domain needs (`gm dns` and the console's DNS page): SPF for
//! the relay that sends, the DKIM key that signs, a DMARC policy (`p=none` to start, reports to
//! `rua`), the MX that brings replies to the SMTP listener; and a check of what is published,
//! through hickory's resolver, when DNS can be reached.

use std::net::SocketAddr;
use std::time::Duration;

use mail_auth::hickory_resolver::config::{
    ConnectionConfig, NameServerConfig, ResolverConfig, ResolverOpts,
};
use mail_auth::hickory_resolver::net::NetError;
use mail_auth::hickory_resolver::net::runtime::TokioRuntimeProvider;
use mail_auth::hickory_resolver::proto::rr::{RData, RecordType};
use mail_auth::hickory_resolver::{Resolver, TokioResolver};

use crate::dkim::TxtRecord;

/// What the records are made from (the settings of `gm serve`).
#[derive(Debug, Clone)]
pub struct DnsPlan {
    /// The mail domain: From addresses, replies, Message-IDs.
    pub domain: String,
    /// The host that takes the domain's mail (the SMTP listener's public name).
    pub mx_host: String,
    /// The relay that sends, when it is a host of its own (not loopback).
    pub relay_host: Option<String>,
    /// The DKIM key's record, when a key is set.
    pub dkim: Option<TxtRecord>,
    /// Where DMARC's aggregate reports go (`mailto:…`).
    pub dmarc_rua: String,
}

/// The plan and the resolver to check it with, as `gm serve` was given them.
#[derive(Debug, Clone)]
pub struct DnsCheck {
    pub plan: DnsPlan,
    pub resolver: Option<SocketAddr>,
    pub timeout: Duration,
}

/// One kind of record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Spf,
    Dkim,
    Dmarc,
    Mx,
}

impl Kind {
    pub fn label(self) -> &'static str {
        match self {
            Kind::Spf => "SPF",
            Kind::Dkim => "DKIM",
            Kind::Dmarc => "DMARC",
            Kind::Mx => "MX",
        }
    }
}

/// A record to publish.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wanted {
    pub kind: Kind,
    pub name: String,
    /// `TXT` or `MX`.
    pub record_type: &'static str,
    /// The value (a TXT record's text whole; an MX's `10 host.`).
    pub value: String,
}

impl Wanted {
    /// As a zone file line.
    pub fn zone_line(&self) -> String {
        match self.record_type {
            "TXT" => crate::dkim::zone_line(&self.name, &self.value),
            other => format!("{} IN {other} {}", self.name, self.value),
        }
    }
}

/// What the check found for one record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// Published as it should be (the text as found).
    Ok(String),
    Missing,
    /// Published, but not as it should be: why.
    Wrong(String),
    /// The lookup failed (no answer from the resolver): why.
    Unchecked(String),
}

impl Found {
    pub fn label(&self) -> &'static str {
        match self {
            Found::Ok(_) => "ok",
            Found::Missing => "missing",
            Found::Wrong(_) => "wrong",
            Found::Unchecked(_) => "not checked",
        }
    }
}

/// The records to publish, in the order to read them.
pub fn wanted(plan: &DnsPlan) -> Vec<Wanted> {
    let domain = &plan.domain;
    let relay = plan
        .relay_host
        .as_deref()
        .map(|host| format!(" a:{host}"))
        .unwrap_or_default();
    let mut records = vec![Wanted {
        kind: Kind::Spf,
        name: domain.clone(),
        record_type: "TXT",
        value: format!("v=spf1 mx{relay} ~all"),
    }];
    if let Some(dkim) = &plan.dkim {
        records.push(Wanted {
            kind: Kind::Dkim,
            name: dkim.name.clone(),
            record_type: "TXT",
            value: dkim.value.clone(),
        });
    }
    records.push(Wanted {
        kind: Kind::Dmarc,
        name: format!("_dmarc.{domain}"),
        record_type: "TXT",
        value: format!("v=DMARC1; p=none; rua={}", plan.dmarc_rua),
    });
    records.push(Wanted {
        kind: Kind::Mx,
        name: domain.clone(),
        record_type: "MX",
        value: format!("10 {}.", plan.mx_host.trim_end_matches('.')),
    });
    records
}

/// A relay host worth naming in SPF: not loopback, not `localhost`.
pub fn relay_host(smtp_url: Option<&str>) -> Option<String> {
    let url = url::Url::parse(smtp_url?).ok()?;
    let host = url.host_str()?.trim_matches(['[', ']']).to_owned();
    let loopback = host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback() || ip.is_unspecified());
    (!loopback).then_some(host)
}

/// The resolver: the one at `server` (an `IP:port`), or the system's (`/etc/resolv.conf`).
pub fn resolver(server: Option<SocketAddr>, timeout: Duration) -> Result<TokioResolver, String> {
    let mut builder = match server {
        Some(server) => {
            let mut udp = ConnectionConfig::udp();
            udp.port = server.port();
            let mut tcp = ConnectionConfig::tcp();
            tcp.port = server.port();
            let name_server = NameServerConfig::new(server.ip(), true, vec![udp, tcp]);
            Resolver::builder_with_config(
                ResolverConfig::from_parts(None, vec![], vec![name_server]),
                TokioRuntimeProvider::default(),
            )
        }
        None => Resolver::builder_tokio().map_err(|e| format!("the system's resolver: {e}"))?,
    };
    let mut options = ResolverOpts::default();
    options.timeout = timeout;
    options.attempts = 1;
    // A check must see what is published now, not what was cached.
    options.cache_size = 0;
    builder = builder.with_options(options);
    builder.build().map_err(|e| e.to_string())
}

/// Each record with what is published, looked up at once (a page waits one timeout at most).
pub async fn check(resolver: &TokioResolver, wanted: &[Wanted]) -> Vec<(Wanted, Found)> {
    let mut lookups = tokio::task::JoinSet::new();
    for (index, record) in wanted.iter().cloned().enumerate() {
        let resolver = resolver.clone();
        lookups.spawn(async move {
            let found = match record.kind {
                Kind::Mx => check_mx(&resolver, &record).await,
                _ => check_txt(&resolver, &record).await,
            };
            (index, found)
        });
    }
    let mut results: Vec<Option<Found>> = vec![None; wanted.len()];
    while let Some(done) = lookups.join_next().await {
        if let Ok((index, found)) = done
            && let Some(slot) = results.get_mut(index)
        {
            *slot = Some(found);
        }
    }
    wanted
        .iter()
        .cloned()
        .zip(results)
        .map(|(record, found)| {
            let found = found.unwrap_or_else(|| Found::Unchecked("the lookup failed".into()));
            (record, found)
        })
        .collect()
}

/// The name as an absolute name, so no search domain is tried.
fn absolute(name: &str) -> String {
    format!("{}.", name.trim_end_matches('.'))
}

fn failed(error: &NetError) -> Found {
    if error.is_no_records_found() {
        Found::Missing
    } else {
        Found::Unchecked(error.to_string())
    }
}

async fn txt_values(resolver: &TokioResolver, name: &str) -> Result<Vec<String>, NetError> {
    let lookup = resolver.lookup(absolute(name), RecordType::TXT).await?;
    Ok(lookup
        .answers()
        .iter()
        .filter_map(|record| match &record.data {
            // A record's strings are one text (RFC 7208 3.3, RFC 6376 3.6.2.2).
            RData::TXT(txt) => Some(
                txt.txt_data
                    .iter()
                    .map(|s| String::from_utf8_lossy(s).into_owned())
                    .collect::<String>(),
            ),
            _ => None,
        })
        .collect())
}

/// The value of a `tag=value; …` record's tag, whitespace taken out (RFC 6376 3.2).
fn tag<'a>(record: &'a str, name: &str) -> Option<String> {
    record.split(';').find_map(|pair: &'a str| {
        let (key, value) = pair.split_once('=')?;
        (key.trim() == name).then(|| value.split_whitespace().collect())
    })
}

async fn check_txt(resolver: &TokioResolver, wanted: &Wanted) -> Found {
    let values = match txt_values(resolver, &wanted.name).await {
        Ok(values) => values,
        Err(error) => return failed(&error),
    };
    let marker = match wanted.kind {
        Kind::Spf => "v=spf1",
        Kind::Dmarc => "v=DMARC1",
        Kind::Dkim | Kind::Mx => "v=DKIM1",
    };
    let ours: Vec<&String> = values
        .iter()
        .filter(|v| {
            let v = v.trim_start();
            v.get(..marker.len())
                .is_some_and(|head| head.eq_ignore_ascii_case(marker))
                || (wanted.kind == Kind::Dkim && tag(v, "p").is_some())
        })
        .collect();
    match (wanted.kind, ours.as_slice()) {
        (_, []) => Found::Missing,
        (Kind::Spf | Kind::Dmarc, [one]) => Found::Ok((*one).clone()),
        (Kind::Spf | Kind::Dmarc, _) => Found::Wrong(format!(
            "{} records published: receivers treat more than one as an error",
            ours.len()
        )),
        (_, [one, ..]) if tag(one, "p") == tag(&wanted.value, "p") => Found::Ok((*one).clone()),
        (_, [one, ..]) => Found::Wrong(format!(
            "the published key is not the key in ADMIRALTY_DKIM_KEY: {one}"
        )),
    }
}

async fn check_mx(resolver: &TokioResolver, wanted: &Wanted) -> Found {
    let lookup = match resolver
        .lookup(absolute(&wanted.name), RecordType::MX)
        .await
    {
        Ok(lookup) => lookup,
        Err(error) => return failed(&error),
    };
    let hosts: Vec<String> = lookup
        .answers()
        .iter()
        .filter_map(|record| match &record.data {
            RData::MX(mx) => Some(format!("{} {}", mx.preference, mx.exchange)),
            _ => None,
        })
        .collect();
    let host = wanted
        .value
        .split_whitespace()
        .last()
        .unwrap_or_default()
        .to_ascii_lowercase();
    if hosts.is_empty() {
        Found::Missing
    } else if hosts
        .iter()
        .any(|mx| mx.to_ascii_lowercase().ends_with(&format!(" {host}")))
    {
        Found::Ok(hosts.join(", "))
    } else {
        Found::Wrong(format!("the MX is {}, not {host}", hosts.join(", ")))
    }
}

impl DnsCheck {
    /// The records, each with what is published; every one `Unchecked` when no resolver can be
    /// made.
    pub async fn run(&self) -> Vec<(Wanted, Found)> {
        let records = wanted(&self.plan);
        match resolver(self.resolver, self.timeout) {
            Ok(resolver) => check(&resolver, &records).await,
            Err(why) => records
                .into_iter()
                .map(|record| (record, Found::Unchecked(why.clone())))
                .collect(),
        }
    }
}

/// What a whole check says, and `gm dns`'s exit status for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Every record is published as it should be: exit 0.
    AllPublished,
    /// A record is missing or wrong: exit 1.
    Problems,
    /// DNS could not be reached for any record: exit 75 (EX_TEMPFAIL: try again later).
    NotChecked,
}

impl Verdict {
    pub fn of(found: &[(Wanted, Found)]) -> Verdict {
        if found
            .iter()
            .any(|(_, f)| matches!(f, Found::Missing | Found::Wrong(_)))
        {
            Verdict::Problems
        } else if found.iter().any(|(_, f)| matches!(f, Found::Unchecked(_))) {
            Verdict::NotChecked
        } else {
            Verdict::AllPublished
        }
    }

    pub fn exit_code(self) -> i32 {
        match self {
            Verdict::AllPublished => 0,
            Verdict::Problems => 1,
            Verdict::NotChecked => 75,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_records_follow_the_settings() {
        let plan = DnsPlan {
            domain: "zine.example.org".into(),
            mx_host: "mail.example.org".into(),
            relay_host: relay_host(Some("smtp://relay.example.net:587")),
            dkim: None,
            dmarc_rua: "mailto:dmarc@zine.example.org".into(),
        };
        let lines: Vec<String> = wanted(&plan).iter().map(Wanted::zone_line).collect();
        assert_eq!(
            lines,
            [
                "zine.example.org IN TXT \"v=spf1 mx a:relay.example.net ~all\"",
                "_dmarc.zine.example.org IN TXT \"v=DMARC1; p=none; rua=mailto:dmarc@zine.example.org\"",
                "zine.example.org IN MX 10 mail.example.org.",
            ]
        );
        assert_eq!(relay_host(Some("smtp://127.0.0.1:2525")), None);
        assert_eq!(relay_host(Some("smtp://localhost")), None);
    }

    #[test]
    fn tags_ignore_folding_whitespace() {
        assert_eq!(
            tag("v=DKIM1; k=rsa; p=MIIB IjAN\tBg", "p").as_deref(),
            Some("MIIBIjANBg")
        );
        assert_eq!(tag("v=DKIM1; k=rsa", "p"), None);
    }
}
