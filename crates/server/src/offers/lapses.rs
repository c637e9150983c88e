//! Offers that lapse because the seat was kept or taken: each standby is told which.

use chrono::{DateTime, Utc};

use crate::letters::offers as words;
pub use crate::letters::offers::SeatKept;
use crate::lifecycle::LifecycleError;
use crate::outbox::post::{Posting, post_letter};

/// Tells each standby whose offer of a seat lapsed, and why.
pub(crate) async fn tell_offers_lapsed(
    tx: &mut sqlx::PgConnection,
    lapsed: &[store::offers::Offer],
    why: SeatKept<'_>,
    now: DateTime<Utc>,
    domain: &str,
) -> Result<(), LifecycleError> {
    for offer in lapsed {
        let Some(standby) = store::subscribers::find(&mut *tx, offer.subscriber_id).await? else {
            continue;
        };
        let on_the_list = store::replacements::is_standby(&mut *tx, standby.id).await?;
        let letter = words::no_longer_offered(
            standby.display_name.as_str(),
            &offer.holder_name,
            &offer.game_name,
            why,
            on_the_list,
        );
        let told = Posting::once(
            "offer-lapsed",
            &offer.id.to_string(),
            domain,
            standby.email.as_str(),
            letter,
        );
        post_letter(tx, &told, None, now).await?;
    }
    Ok(())
}
