//! What the pages show, read through the store: one query function per page (or part of a
//! page), as kanidm's handlers call one `handle_*` each. Routes read through these and act
//! through the services; neither a route nor a view opens a transaction to show a page.
//!
//! A view answers with the store's rows (or its own small structs of them) and the store's
//! error, or the service error of the service it asks; the route maps that to HTTP as it maps
//! the same error from a service.

pub mod archive;
pub mod gm_console;
pub mod gm_game;
pub mod gm_zine;
pub mod player;

use store::zines::Zine;
use store::{PgPool, StoreError, ZineSlug};

/// Whether the database answers (the health probe's question).
pub async fn database_answers(pool: &PgPool) -> Result<(), StoreError> {
    store::ping(pool).await
}

/// Whether the applied migrations are the ones this binary embeds (the readiness probe's).
pub async fn schema_check(pool: &PgPool) -> Result<store::schema::SchemaCheck, StoreError> {
    store::schema::check(pool).await
}

/// The zines hosted here, oldest first.
pub async fn zines(pool: &PgPool) -> Result<Vec<Zine>, StoreError> {
    store::zines::list(pool).await
}

/// The zine a URL names by its short name; `None` for a name that is not one (malformed, or
/// no such zine), so that the two look the same.
pub async fn zine(pool: &PgPool, slug: &str) -> Result<Option<Zine>, StoreError> {
    let Ok(slug) = ZineSlug::parse(slug) else {
        return Ok(None);
    };
    store::zines::find_by_slug(pool, &slug).await
}

/// The first `size` of `found` (fetched one over `size`), and the id of the last shown when
/// `found` had more: the next, older page starts below it.
pub(crate) fn one_page<T, I>(
    mut found: Vec<T>,
    size: i64,
    id: impl Fn(&T) -> I,
) -> (Vec<T>, Option<I>) {
    let size = usize::try_from(size).unwrap_or(usize::MAX);
    let more = found.len() > size;
    found.truncate(size);
    let older = more.then(|| found.last().map(id)).flatten();
    (found, older)
}

/// Whose one-click unsubscribe link this is, for its confirmation page: the zine's name and
/// whether they subscribe still; `None` for a token that is no one's.
pub async fn unsubscribe_link(
    pool: &PgPool,
    token: &str,
) -> Result<Option<(String, bool)>, StoreError> {
    let Some(subscriber) = store::subscribers::find_by_unsubscribe_token(pool, token).await? else {
        return Ok(None);
    };
    let zine = store::zines::find(pool, subscriber.zine_id).await?;
    let active = subscriber.status == store::subscribers::SubscriberStatus::Active;
    Ok(Some((zine.map(|z| z.name).unwrap_or_default(), active)))
}
