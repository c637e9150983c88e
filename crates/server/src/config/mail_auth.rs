//! The settings of mail's authentication: checking inbound mail's SPF, DKIM and DMARC, the DNS
//! records the mail domain publishes (`gm dns`), and the key outgoing mail is signed with.

use clap::Args;

use super::BaseUrl;

/// `on` or `off`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Switch {
    On,
    Off,
}

/// Checking inbound mail's SPF, DKIM and DMARC (docs/mail.md).
#[derive(Debug, Clone, Args)]
pub struct MailAuthArgs {
    /// Check SPF, DKIM and DMARC of every inbound message before it is processed (`on`, the
    /// default: a receiving server has DNS, and without the check a forged From is answered).
    /// `off` on a machine without DNS: messages are stored as "not checked".
    #[arg(long, env = "ADMIRALTY_MAIL_AUTH", value_enum, default_value = "on")]
    pub mail_auth: Switch,

    /// The DNS resolver the checks ask, as address:port; default: /etc/resolv.conf's.
    #[arg(long, env = "ADMIRALTY_DNS_RESOLVER")]
    pub dns_resolver: Option<std::net::SocketAddr>,

    /// Seconds the checks of one message may take; DNS that has not answered by then counts
    /// as a temporary error, which changes nothing.
    #[arg(long, env = "ADMIRALTY_MAIL_AUTH_SECONDS", default_value_t = 10)]
    pub mail_auth_seconds: u64,
}

/// Where the DNS records point and how they are checked (`gm dns`, the console's DNS page).
#[derive(Debug, Clone, Args)]
pub struct DnsSettings {
    /// The host that takes the mail domain's mail (the MX); default: the host of
    /// ADMIRALTY_BASE_URL.
    #[arg(long, env = "ADMIRALTY_MX_HOST")]
    pub mx_host: Option<String>,
    /// Where DMARC's aggregate reports go; default `mailto:dmarc-reports@MAIL_DOMAIN` (a
    /// mailbox people read: Admiralty's own listener takes only orders).
    #[arg(long, env = "ADMIRALTY_DMARC_RUA")]
    pub dmarc_rua: Option<String>,
    /// Seconds a lookup may take (the resolver is `ADMIRALTY_DNS_RESOLVER`, as for the
    /// inbound checks: [`MailAuthArgs::dns_resolver`]).
    #[arg(long, env = "ADMIRALTY_DNS_TIMEOUT_SECONDS", default_value_t = 3)]
    pub dns_timeout_seconds: u64,
}

impl DnsSettings {
    /// The records' plan for these settings.
    pub fn plan(
        &self,
        mail_domain: &str,
        base_url: &BaseUrl,
        smtp_url: Option<&str>,
        dkim: Option<&crate::dkim::DkimKey>,
    ) -> crate::dns::DnsPlan {
        let base_host = url::Url::parse(base_url.as_str())
            .ok()
            .and_then(|u| u.host_str().map(str::to_owned))
            .unwrap_or_else(|| mail_domain.to_owned());
        crate::dns::DnsPlan {
            domain: mail_domain.to_owned(),
            mx_host: self.mx_host.clone().unwrap_or(base_host),
            relay_host: crate::dns::relay_host(smtp_url),
            dkim: dkim.map(crate::dkim::DkimKey::record),
            dmarc_rua: self
                .dmarc_rua
                .clone()
                .unwrap_or_else(|| format!("mailto:dmarc-reports@{mail_domain}")),
        }
    }

    pub fn timeout(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.dns_timeout_seconds.max(1))
    }
}

/// The DKIM key outgoing mail is signed with (docs/mail.md#dkim). Read by `gm serve` and
/// `gm dns`.
#[derive(Debug, Clone, Args)]
pub struct DkimArgs {
    /// The private key (a PEM file, RSA or Ed25519; `gm dkim generate` makes one). Without it
    /// mail goes out unsigned; a file that is not such a key stops `gm serve` from starting.
    #[arg(long, env = "ADMIRALTY_DKIM_KEY")]
    pub dkim_key: Option<std::path::PathBuf>,

    /// The key's selector: its record is `SELECTOR._domainkey.DOMAIN`.
    #[arg(long, env = "ADMIRALTY_DKIM_SELECTOR", default_value = "admiralty")]
    pub dkim_selector: String,

    /// The signing domain (`d=`); default: the mail domain, so the signature aligns with the
    /// From address as DMARC requires.
    #[arg(long, env = "ADMIRALTY_DKIM_DOMAIN")]
    pub dkim_domain: Option<String>,
}

impl DkimArgs {
    /// The key, read and checked; `None` without one.
    pub fn load(
        &self,
        mail_domain: &str,
    ) -> Result<Option<crate::dkim::DkimKey>, crate::dkim::DkimError> {
        let Some(path) = &self.dkim_key else {
            return Ok(None);
        };
        let domain = self.dkim_domain.as_deref().unwrap_or(mail_domain);
        crate::dkim::DkimKey::load(path, &self.dkim_selector, domain).map(Some)
    }
}
