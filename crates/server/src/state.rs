use std::sync::Arc;

use store::PgPool;

use crate::clock::Clock;
use crate::config::BaseUrl;

/// What every handler may use. Cheap to clone.
#[derive(Clone)]
pub struct AppState {
    pub pool: PgPool,
    pub clock: Arc<dyn Clock>,
    pub base_url: BaseUrl,
    /// Domain of Admiralty's mail addresses, for the mail a web action queues (a turn resolved
    /// from the console, an inbound message retried).
    pub mail_domain: String,
}

impl AppState {
    pub fn new(pool: PgPool, clock: Arc<dyn Clock>, base_url: BaseUrl) -> Self {
        AppState {
            pool,
            clock,
            base_url,
            mail_domain: "localhost".to_owned(),
        }
    }

    pub fn with_mail_domain(mut self, mail_domain: impl Into<String>) -> Self {
        self.mail_domain = mail_domain.into();
        self
    }
}
