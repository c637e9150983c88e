//! A zine in the console: its page (subscribers, games, openings), a subscriber's page, and
//! the issues desk (the rhythm, the draft, the letters waiting, the published issues).

use store::games::GameSummary;
use store::issues::{Issue, IssueSettings, Letter};
use store::signups::Opening;
use store::status::LetterStatus;
use store::subscribers::{Subscriber, SubscriberId};
use store::zines::{Zine, ZineId};
use store::{PgPool, StoreError};

use crate::issues::IssueError;

/// What a zine's console page shows.
pub struct ZineDesk {
    pub subscribers: Vec<Subscriber>,
    pub games: Vec<GameSummary>,
    /// Games open for sign-up (and those that started from one).
    pub signups: Vec<Opening>,
    /// The subscribers whose address has bounced (crate::bounces).
    pub bounces: Vec<store::bounces::SubscriberBounces>,
}

/// A zine's subscribers, games and openings.
pub async fn zine_desk(pool: &PgPool, zine: ZineId) -> Result<ZineDesk, StoreError> {
    Ok(ZineDesk {
        subscribers: subscribers(pool, zine).await?,
        games: store::games::list_summaries(pool, Some(zine)).await?,
        signups: store::signups::of_zine(pool, zine).await?,
        bounces: store::bounces::of_zine(pool, zine).await?,
    })
}

/// A zine's subscribers, oldest first (also the CSV export's rows).
pub async fn subscribers(pool: &PgPool, zine: ZineId) -> Result<Vec<Subscriber>, StoreError> {
    store::subscribers::list_for_zine(pool, zine).await
}

/// A subscriber and their zine; none if either is missing.
pub async fn subscriber(
    pool: &PgPool,
    id: SubscriberId,
) -> Result<Option<(Subscriber, Zine)>, StoreError> {
    let Some(subscriber) = store::subscribers::find(pool, id).await? else {
        return Ok(None);
    };
    Ok(store::zines::find(pool, subscriber.zine_id)
        .await?
        .map(|zine| (subscriber, zine)))
}

/// Whether the subscriber sends orders on paper or by phone (the GM enters them).
pub async fn is_postal(pool: &PgPool, subscriber: SubscriberId) -> Result<bool, StoreError> {
    store::subscribers::is_postal(pool, subscriber).await
}

/// What the zine's issues page shows.
pub struct IssuesDesk {
    pub settings: IssueSettings,
    /// The next issue's draft, when the zine publishes issues.
    pub draft: Option<Issue>,
    /// Letters waiting for moderation.
    pub pending: Vec<Letter>,
    /// How many subscribers are mailed an issue when it is published.
    pub issue_readers: usize,
    /// The published issues, newest first.
    pub published: Vec<Issue>,
}

/// The zine's rhythm, its draft, the letters waiting and the published issues.
pub async fn issues_desk(pool: &PgPool, zine: ZineId) -> Result<IssuesDesk, IssueError> {
    let settings = crate::issues::settings(pool, zine).await?;
    let draft = match crate::issues::rhythm_of(&settings) {
        Some(_) => store::issues::current_draft(pool, zine).await?,
        None => None,
    };
    Ok(IssuesDesk {
        settings,
        draft,
        pending: store::issues::letters(pool, zine, LetterStatus::Pending).await?,
        issue_readers: store::issues::issue_readers(pool, zine).await?.len(),
        published: store::issues::published(pool, zine).await?,
    })
}

/// A subscriber's bounce record, if their address has bounced.
pub async fn bounces(
    pool: &PgPool,
    id: SubscriberId,
) -> Result<Option<store::bounces::SubscriberBounces>, StoreError> {
    store::bounces::of_subscriber(pool, id).await
}
