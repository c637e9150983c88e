//! The routes' path parameters. axum's own `Path` answers a segment it cannot read (`abc`
//! where a number belongs) with a 400 of its own words ("Invalid URL: Cannot parse ..."); this
//! one says the page does not exist, in the site's 404 page: an address with a bad id names
//! no page, the same as an id that is not there.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use crate::AppError;

/// The path's parameters as `T`; a segment that does not read as `T` is not found.
#[derive(Debug)]
pub struct Path<T>(pub T);

impl<T, S> FromRequestParts<S> for Path<T>
where
    T: DeserializeOwned + Send,
    S: Send + Sync,
{
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        #[allow(clippy::disallowed_types, reason = "the one place that reads it")]
        match axum::extract::Path::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Path(value)) => Ok(Path(value)),
            Err(rejection) => {
                tracing::debug!(%rejection, path = parts.uri.path(), "a path that names no page");
                Err(AppError::NotFound)
            }
        }
    }
}
