//! Rendered public pages kept in memory for a few seconds.
//!
//! A published turn never changes, and the rest of the archive changes once a turn at most;
//! so readers may be served a page rendered up to [`PublicCache::ttl`] ago. The time comes from
//! the service's clock (tests move it), the key is the request path, and only successful
//! responses are kept. Entries are never shared between paths, and nothing but public pages
//! goes in, so the cache cannot show anyone what the page itself would not.

use std::collections::HashMap;
use std::sync::{Arc, PoisonError, RwLock};

use axum::body::Bytes;
use chrono::{DateTime, Duration, Utc};
use sha2::{Digest, Sha256};

/// The most paths kept; when full, the cache starts afresh (the archive is small, and a flood
/// of distinct paths must not grow memory without bound).
const CAPACITY: usize = 4096;

/// One rendered response.
#[derive(Debug, Clone)]
pub struct CachedPage {
    pub content_type: &'static str,
    pub body: Bytes,
    /// A strong validator: the SHA-256 of the body, quoted.
    pub etag: Arc<str>,
    expires: DateTime<Utc>,
}

#[derive(Debug)]
pub struct PublicCache {
    ttl: Duration,
    pages: RwLock<HashMap<String, CachedPage>>,
}

impl Default for PublicCache {
    fn default() -> Self {
        PublicCache::new(Duration::seconds(2))
    }
}

impl PublicCache {
    /// A cache keeping pages for `ttl` (zero keeps nothing).
    pub fn new(ttl: Duration) -> Self {
        PublicCache {
            ttl,
            pages: RwLock::new(HashMap::new()),
        }
    }

    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// The page rendered for `path`, if it is still fresh at `now`.
    pub fn get(&self, path: &str, now: DateTime<Utc>) -> Option<CachedPage> {
        let pages = self.pages.read().unwrap_or_else(PoisonError::into_inner);
        pages.get(path).filter(|page| page.expires > now).cloned()
    }

    /// Keeps `body` for `path` until `now + ttl`, and returns it as kept.
    pub fn put(
        &self,
        path: &str,
        content_type: &'static str,
        body: Bytes,
        now: DateTime<Utc>,
    ) -> CachedPage {
        let page = CachedPage {
            content_type,
            etag: format!("\"{}\"", hex::encode(Sha256::digest(&body))).into(),
            body,
            expires: now + self.ttl,
        };
        if self.ttl > Duration::zero() {
            let mut pages = self.pages.write().unwrap_or_else(PoisonError::into_inner);
            if pages.len() >= CAPACITY && !pages.contains_key(path) {
                pages.clear();
            }
            pages.insert(path.to_owned(), page.clone());
        }
        page
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(seconds: i64) -> DateTime<Utc> {
        DateTime::<Utc>::UNIX_EPOCH + Duration::seconds(seconds)
    }

    #[test]
    fn a_page_is_served_until_it_expires() {
        let cache = PublicCache::new(Duration::seconds(2));
        let page = cache.put("/a", "text/plain", Bytes::from_static(b"one"), at(10));
        assert!(page.etag.starts_with('"') && page.etag.len() == 66);
        assert_eq!(
            cache.get("/a", at(11)).map(|p| p.body),
            Some(Bytes::from_static(b"one"))
        );
        assert!(cache.get("/a", at(12)).is_none());
        assert!(cache.get("/b", at(10)).is_none());
    }

    #[test]
    fn a_zero_ttl_keeps_nothing() {
        let cache = PublicCache::new(Duration::zero());
        cache.put("/a", "text/plain", Bytes::from_static(b"one"), at(10));
        assert!(cache.get("/a", at(10)).is_none());
    }
}
