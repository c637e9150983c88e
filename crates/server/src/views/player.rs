//! The player pages' reads: the player's own games (and nothing of anyone else's), `/me` with
//! its sign-ups, absences and offers, one game's page.

use chrono::{DateTime, Utc};
use store::games::GameId;
use store::offers::{Offer, OfferId};
use store::orders::PastOrders;
use store::players::TokenHolder;
use store::signups::{Opening, OpeningId};
use store::status::{OpeningStatus, SubscriberStatus};
use store::subscribers::{Subscriber, SubscriberId};
use store::zines::Zine;
use store::{PgPool, StoreError};

use crate::turns::LifecycleError;

/// The subscriber, if their subscription is active (only an active one may sign up, declare
/// an absence or stand by).
pub async fn active_subscriber(
    pool: &PgPool,
    subscriber: SubscriberId,
) -> Result<Option<Subscriber>, StoreError> {
    Ok(store::subscribers::find(pool, subscriber)
        .await?
        .filter(|s| s.status == SubscriberStatus::Active))
}

/// The player's own row in `game`: any game of the person logged in (the same address in any
/// zine), never another's. `None` for a game they do not play in, whether or not it exists.
pub async fn own_game(
    pool: &PgPool,
    subscriber: SubscriberId,
    game: GameId,
) -> Result<Option<TokenHolder>, StoreError> {
    Ok(store::players::player_rows_of_person(pool, subscriber)
        .await?
        .into_iter()
        .find(|holder| holder.game_id == game))
}

/// One of the player's games on `/me`.
pub struct OwnGame {
    pub holder: TokenHolder,
    /// Whether orders are in for the open turn.
    pub ordered: bool,
}

/// A game of the player's zine open for sign-up, with their place once queued.
pub struct OpenOpening {
    pub opening: Opening,
    pub place: Option<i32>,
}

/// What `/me` shows.
pub struct MePage {
    pub games: Vec<OwnGame>,
    /// Empty unless the subscription is active.
    pub openings: Vec<OpenOpening>,
    /// The player's absences and each game's absence policy, in words (as mailed).
    pub absences: String,
    /// Whether the player is on the standby list.
    pub standby: bool,
    /// Seats offered to the player.
    pub offers: Vec<Offer>,
    /// Their address's bounces, and whether delivery to it is suspended (crate::bounces).
    pub bounces: Option<store::bounces::SubscriberBounces>,
}

/// `/me`: the person's games, their zine's openings, absences, standby and offers.
pub async fn me_page(
    pool: &PgPool,
    subscriber: SubscriberId,
    now: DateTime<Utc>,
) -> Result<MePage, LifecycleError> {
    let mut games = Vec::new();
    for holder in store::players::player_rows_of_person(pool, subscriber).await? {
        let ordered = store::orders::current_raw_orders(pool, holder.game_id, holder.player_id)
            .await?
            .is_some();
        games.push(OwnGame { holder, ordered });
    }
    Ok(MePage {
        games,
        openings: open_openings(pool, subscriber).await?,
        absences: absences(pool, subscriber, now).await?,
        standby: store::replacements::is_standby(pool, subscriber).await?,
        offers: store::offers::open_to_subscriber(pool, subscriber).await?,
        bounces: store::bounces::of_subscriber(pool, subscriber).await?,
    })
}

/// The player's zine's games open for sign-up (none unless the subscription is active).
async fn open_openings(
    pool: &PgPool,
    subscriber: SubscriberId,
) -> Result<Vec<OpenOpening>, StoreError> {
    let Some(found) = active_subscriber(pool, subscriber).await? else {
        return Ok(Vec::new());
    };
    let mut openings = Vec::new();
    for opening in store::signups::open_for_signup(pool, found.zine_id).await? {
        openings.push(OpenOpening {
            place: store::signups::place_of(pool, opening.id, subscriber).await?,
            opening,
        });
    }
    Ok(openings)
}

/// The player's absences and, per game, the policy and the turns it touches (as mailed).
async fn absences(
    pool: &PgPool,
    subscriber: SubscriberId,
    now: DateTime<Utc>,
) -> Result<String, LifecycleError> {
    let mut db = pool.acquire().await?;
    let text = crate::turns::absences::summary(&mut db, subscriber, now).await?;
    Ok(text.trim_start().to_owned())
}

/// An opening of the subscriber's own zine still open for sign-up.
pub async fn open_opening(
    pool: &PgPool,
    subscriber: &Subscriber,
    opening: OpeningId,
) -> Result<Option<Opening>, StoreError> {
    Ok(store::signups::find(pool, opening)
        .await?
        .filter(|o| o.zine_id == subscriber.zine_id && o.status == OpeningStatus::Open))
}

/// An open offer made to this subscriber (another's is none).
pub async fn own_offer(
    pool: &PgPool,
    subscriber: SubscriberId,
    offer: OfferId,
) -> Result<Option<Offer>, StoreError> {
    Ok(store::offers::open_to_subscriber(pool, subscriber)
        .await?
        .into_iter()
        .find(|o| o.id == offer))
}

/// What a player's game page reads beside the game's state.
pub struct GamePage {
    /// The orders that stand for the open turn, as sent.
    pub orders: Option<String>,
    /// The press the player has sent for the open turn.
    pub press_sent: Vec<String>,
    /// Their orders of past turns.
    pub history: Vec<PastOrders>,
    /// The game's zine, for the link to its public page.
    pub zine: Option<Zine>,
}

/// The player's orders, press and history in the game they hold a seat in.
pub async fn game_page(pool: &PgPool, holder: &TokenHolder) -> Result<GamePage, StoreError> {
    Ok(GamePage {
        orders: store::orders::current_raw_orders(pool, holder.game_id, holder.player_id).await?,
        press_sent: store::orders::open_turn_press_of_player(
            pool,
            holder.game_id,
            holder.player_id,
        )
        .await?,
        history: store::orders::past_orders_of_player(pool, holder.player_id).await?,
        zine: store::zines::find(pool, holder.zine_id).await?,
    })
}
