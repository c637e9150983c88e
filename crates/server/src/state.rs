use std::sync::Arc;

use store::PgPool;

use crate::clock::Clock;
use crate::config::BaseUrl;
use crate::public_cache::PublicCache;

/// What every handler may use. Cheap to clone.
#[derive(Clone)]
pub struct AppState {
    pub pool: PgPool,
    pub clock: Arc<dyn Clock>,
    pub base_url: BaseUrl,
    /// Rendered public pages, kept a few seconds (see [`PublicCache`]).
    pub public_cache: Arc<PublicCache>,
}

impl AppState {
    pub fn new(pool: PgPool, clock: Arc<dyn Clock>, base_url: BaseUrl) -> Self {
        AppState {
            pool,
            clock,
            base_url,
            public_cache: Arc::new(PublicCache::default()),
        }
    }
}
