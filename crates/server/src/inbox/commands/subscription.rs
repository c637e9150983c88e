//! Commands about the subscription: sign-ups and the games open, the standby list, the
//! password, unsubscribing.

use store::audit::{AuditAction, Via};
use store::status::{OfferReason, PlayerStatus, SubscriberStatus};
use store::zines::ZineId;

use super::Context;
use crate::entropy::OsEntropy;
use crate::inbox::audit;
use crate::inbox::identify::Proof;
use crate::letters::{self, replies};
use crate::secrets::{self, PasswordError, Wait};
use crate::turns::LifecycleError;

/// The sender's zine: every subscription belongs to one.
async fn zine_of_sender(cx: &mut Context<'_, '_>) -> Result<Option<ZineId>, LifecycleError> {
    Ok(store::subscribers::find(&mut *cx.tx, cx.sender.subscriber)
        .await?
        .filter(|s| s.status == SubscriberStatus::Active)
        .map(|s| s.zine_id))
}
/// JOIN a game the sender does not play: a sign-up for the zine's game of that name.
pub(super) async fn sign_up(
    cx: &mut Context<'_, '_>,
    game: &str,
) -> Result<String, LifecycleError> {
    let Some(zine) = zine_of_sender(cx).await? else {
        return Ok(letters::signups::not_subscribed(game));
    };
    use crate::rosters::signups::Joined;
    let joined = crate::rosters::signups::join_in(
        &mut *cx.tx,
        cx.now,
        zine,
        cx.sender.subscriber,
        game,
        letters::MailSite {
            domain: &cx.settings.domain,
            base_url: cx.settings.base_url.as_str(),
        },
    )
    .await?;
    Ok(match joined {
        Joined::Queued {
            game,
            place,
            seats,
            already,
            seating,
        } => letters::signups::queued(&game, place, seats, already, seating),
        Joined::Started { game, .. } => letters::signups::started(&game),
        Joined::Full { game, seats } => letters::signups::full(&game, seats),
        Joined::Closed { game } => letters::signups::closed(&game),
        Joined::NotOpen { game } => {
            let open = store::signups::open_for_signup(&mut *cx.tx, zine).await?;
            letters::signups::not_open(&game, &open)
        }
    })
}
/// LIST: the sender's zine's games open for sign-up.
pub(super) async fn list(cx: &mut Context<'_, '_>) -> Result<String, LifecycleError> {
    let Some(zine) = zine_of_sender(cx).await? else {
        return Ok(letters::signups::listed(&[]));
    };
    let open = store::signups::open_for_signup(&mut *cx.tx, zine).await?;
    Ok(letters::signups::listed(&open))
}
/// PASSWORD in a reply to a personal address sets the password (elsewhere it only proved who
/// wrote).
pub(super) async fn password(
    cx: &mut Context<'_, '_>,
    line: usize,
    secret: &str,
) -> Result<Option<String>, LifecycleError> {
    if cx.sender.proof != Proof::ReplyToken {
        return Ok(None);
    }
    // Argon2 is 19 MiB and tens of milliseconds: through the process's gate, off the async
    // threads; mail waits its turn.
    let hash = match secrets::hash_new(secrets::gate(), Wait::Always, secret.to_owned()).await {
        Ok(hash) => hash,
        Err(PasswordError::TooShort(min)) => {
            return Ok(Some(letters::passwords::too_short(line, min)));
        }
        Err(error) => {
            return Err(LifecycleError::Internal(error.to_string()));
        }
    };
    store::subscribers::set_password_hash(&mut *cx.tx, cx.sender.subscriber, &hash).await?;
    audit(
        cx.tx,
        None,
        AuditAction::PasswordSet {
            subscriber: cx.sender.subscriber,
            via: Via::Mail,
        },
        cx.now,
    )
    .await?;
    Ok(Some(replies::password_set(line, &cx.sender.email)))
}
/// STANDBY / STANDBY OFF: the sender's place on the standby list (docs/rosters.md).
pub(super) async fn standby(cx: &mut Context<'_, '_>, on: bool) -> Result<String, LifecycleError> {
    let subscriber = cx.sender.subscriber;
    let changed = if on {
        store::replacements::standby_on(&mut *cx.tx, subscriber).await?
    } else {
        store::replacements::standby_off(&mut *cx.tx, subscriber).await?
    };
    if changed {
        let via = Via::Mail;
        let action = if on {
            AuditAction::StandbyOn { subscriber, via }
        } else {
            AuditAction::StandbyOff { subscriber, via }
        };
        audit(cx.tx, None, action, cx.now).await?;
    }
    Ok(if on {
        crate::letters::replacements::standby_on(changed)
    } else {
        crate::letters::replacements::standby_off(changed)
    })
}
/// UNSUBSCRIBE: the sender leaves the zine, resigning from every game and losing every login.
pub(super) async fn unsubscribe(cx: &mut Context<'_, '_>) -> Result<String, LifecycleError> {
    let sender = cx.sender;
    store::subscribers::set_status(
        &mut *cx.tx,
        sender.subscriber,
        SubscriberStatus::Unsubscribed,
    )
    .await?;
    cx.batch.holders_by_token.clear();
    let mut left = Vec::new();
    for holder in sender
        .games
        .iter()
        .filter(|g| g.status == PlayerStatus::Active)
    {
        store::players::set_status(&mut *cx.tx, holder.player_id, PlayerStatus::Resigned).await?;
        crate::offers::seat_left(
            &mut *cx.tx,
            holder.game_id,
            holder.player_id,
            OfferReason::Resigned,
            cx.now,
            &cx.settings.domain,
        )
        .await?;
        left.push(holder.game_name.clone());
    }
    let revoked = secrets::revoke_subscriber(cx.tx, sender.subscriber, &mut OsEntropy).await?;
    audit(
        cx.tx,
        None,
        AuditAction::SubscriberUnsubscribeByMail {
            subscriber: sender.subscriber,
            resigned_from: left.clone(),
            via: Via::Mail,
            revoked,
        },
        cx.now,
    )
    .await?;
    Ok(replies::unsubscribed(&left))
}
