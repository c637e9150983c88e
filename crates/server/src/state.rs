use std::sync::Arc;

use store::PgPool;
use tokio::sync::Notify;

use crate::clients::{ClientFailures, TrustedProxies};
use crate::clock::Clock;
use crate::config::{BaseUrl, Limits};
use crate::public_cache::PublicCache;
use crate::turns::StateCache;

/// What every handler may use. Cheap to clone.
#[derive(Clone)]
pub struct AppState {
    pub pool: PgPool,
    pub clock: Arc<dyn Clock>,
    pub base_url: BaseUrl,
    /// Rendered public pages, kept a few seconds (see [`PublicCache`]).
    pub public_cache: Arc<PublicCache>,
    /// The webhook door for inbound mail; `None` (no secret configured) turns it off.
    pub webhook: Option<Arc<Webhook>>,
    /// Domain of Admiralty's mail addresses, for the mail a web action queues (a turn resolved
    /// from the console, an inbound message retried).
    pub mail_domain: String,
    /// The open turns' parsed states, shared with the inbox workers of the same process.
    pub states: StateCache,
    /// What one sender may make Admiralty send or print (the web press form's limits, and
    /// the inbox's when the console retries a message).
    pub limits: Limits,
    /// `ADMIRALTY_MAIL_FROM`, when set: never answered.
    pub mail_from: Option<String>,
    /// Checks inbound mail's SPF, DKIM and DMARC (`ADMIRALTY_MAIL_AUTH`), when on.
    pub mail_auth: Option<crate::inbox::authenticate::MailAuthenticator>,
    /// Whether this process sends the outbox through an SMTP relay (`ADMIRALTY_SMTP_URL`):
    /// without one, the console's outbox says that nothing is being sent.
    pub relay_configured: bool,
    /// The proxies whose forwarding headers name the client (`ADMIRALTY_TRUSTED_PROXIES`).
    pub trusted_proxies: Arc<TrustedProxies>,
    /// Failed GM logins per client address.
    pub client_failures: Arc<ClientFailures>,
    /// The metrics, when this process serves them.
    pub metrics: Option<Arc<MetricsDoor>>,
    /// The mail domain's DNS records and how to check them (the console's DNS page).
    pub dns: Option<Arc<crate::dns::DnsCheck>>,
}

/// The metrics' recorder and who may read them.
pub struct MetricsDoor {
    pub handle: metrics_exporter_prometheus::PrometheusHandle,
    /// `ADMIRALTY_METRICS_TOKEN`: asked of every scrape; with it, `/metrics` is also served
    /// on the web port.
    pub token: Option<String>,
}

/// The webhook door's settings.
pub struct Webhook {
    /// The shared secret a caller must present as `Authorization: Bearer <secret>`.
    pub secret: String,
    /// Largest message accepted, in bytes.
    pub max_bytes: usize,
    /// Woken for each stored message: the inbox workers wait on it.
    pub stored: Arc<Notify>,
}

impl AppState {
    pub fn new(pool: PgPool, clock: Arc<dyn Clock>, base_url: BaseUrl) -> Self {
        AppState {
            pool,
            clock,
            base_url,
            webhook: None,
            mail_domain: "localhost".to_owned(),
            public_cache: Arc::new(PublicCache::default()),
            states: StateCache::default(),
            limits: Limits::DEFAULT,
            mail_from: None,
            mail_auth: None,
            relay_configured: false,
            trusted_proxies: Arc::new(TrustedProxies::default()),
            client_failures: Arc::new(ClientFailures::default()),
            metrics: None,
            dns: None,
        }
    }

    /// The limits, and the sender never answered, that `gm serve` was given.
    pub fn with_limits(mut self, limits: Limits, mail_from: Option<String>) -> Self {
        self.limits = limits;
        self.mail_from = mail_from;
        self
    }

    /// Where this server's mail points: its reply addresses and its site.
    pub fn mail_site(&self) -> crate::letters::MailSite<'_> {
        crate::letters::MailSite {
            domain: &self.mail_domain,
            base_url: self.base_url.as_str(),
        }
    }

    /// What processing inbound mail needs of this state's settings.
    pub fn inbox_settings(&self) -> crate::inbox::Settings {
        crate::inbox::Settings {
            domain: self.mail_domain.clone(),
            base_url: self.base_url.clone(),
            mail_from: self.mail_from.clone(),
            limits: self.limits,
            mail_auth: self.mail_auth.clone(),
        }
    }

    /// Checks inbound mail's SPF, DKIM and DMARC with `authenticator` (none: not checked).
    pub fn with_mail_auth(
        mut self,
        authenticator: Option<crate::inbox::authenticate::MailAuthenticator>,
    ) -> Self {
        self.mail_auth = authenticator;
        self
    }

    /// Opens the webhook door for inbound mail.
    pub fn with_webhook(mut self, webhook: Webhook) -> Self {
        self.webhook = Some(Arc::new(webhook));
        self
    }

    pub fn with_mail_domain(mut self, mail_domain: impl Into<String>) -> Self {
        self.mail_domain = mail_domain.into();
        self
    }
}
