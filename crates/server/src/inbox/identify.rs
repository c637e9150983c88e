//! Who wrote a message: the personal reply token, else the subscribed From address with a
//! matching PASSWORD line. A From: header alone proves nothing.

use chrono::{DateTime, Utc};
use mail::Reading;
use store::audit::{AuditAction, NewAuditEntry};
use store::outbox::{AutoSubmitted, Headers};
use store::players::TokenHolder;
use store::subscribers::SubscriberId;
use store::tells::Conversation;

use super::Batch;
use crate::letters::{self, passwords};
use crate::outbox::post::{Posting, post_letter};
use crate::secrets::{self, Wait};
use crate::turns::LifecycleError;

/// Who a message is from, once proven: a subscriber, with the games they play.
pub(super) struct Sender {
    pub subscriber: SubscriberId,
    pub email: String,
    /// The subscriber's player rows, one per game.
    pub games: Vec<TokenHolder>,
    /// The game lines without a GAME line are for: the reply address's game, or the player's
    /// only running game.
    pub default: Option<TokenHolder>,
    pub proof: Proof,
    /// The offer of a seat whose reply address the message came to (ACCEPT, DECLINE).
    pub offer: Option<store::offers::OfferId>,
    /// The relayed TELL this message answers (it came to the TELL's relay address, or names
    /// the relayed mail in In-Reply-To): what the sender wrote goes back as a TELL, never
    /// into orders.
    pub conversation: Option<Conversation>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Proof {
    /// The personal reply address: a PASSWORD line in it sets the password.
    ReplyToken,
    /// A PASSWORD line, from the subscribed address.
    Password,
}

/// Proves who wrote: the reply token, else the From address with a matching PASSWORD.
/// `Err` says why not, for the reply. A token proves something only while its subscriber is
/// active (`store::players::player_rows_of_token`).
pub(super) async fn identify(
    tx: &mut sqlx::PgConnection,
    batch: &Batch,
    reading: &Reading,
    from: &str,
    now: DateTime<Utc>,
    domain: &str,
) -> Result<Result<Sender, String>, LifecycleError> {
    let mut found = match &reading.token {
        Some(token) => by_reply_token(tx, batch, token.as_str()).await?,
        None => by_password(tx, batch, reading, from, now, domain).await?,
    };
    if let Ok(sender) = &mut found
        && sender.conversation.is_none()
    {
        sender.conversation = answered_tell(tx, reading, sender.subscriber).await?;
    }
    Ok(found)
}

/// The relayed TELL a message from a proven sender answers, by its headers: the message it
/// replies to (In-Reply-To, else the last of References) is a TELL relayed to this sender.
/// Only the direct parent counts: a later reply in the same thread (to a confirmation, say)
/// is not a reply to the TELL.
async fn answered_tell(
    tx: &mut sqlx::PgConnection,
    reading: &Reading,
    subscriber: SubscriberId,
) -> Result<Option<Conversation>, LifecycleError> {
    let mail = &reading.mail;
    let parent = match mail.in_reply_to.first() {
        Some(parent) => Some(parent),
        None => mail.references.last(),
    };
    // Relayed TELLs' Message-IDs are `tell.…@` (`letters::queued_ids`): most replies answer
    // other mail, and cost no look-up.
    let Some(parent) = parent.filter(|id| id.starts_with("tell.")) else {
        return Ok(None);
    };
    Ok(store::tells::of_message(&mut *tx, parent, subscriber).await?)
}

/// The holder of a personal reply address; or the standby a seat was offered to at that
/// address.
async fn by_reply_token(
    tx: &mut sqlx::PgConnection,
    batch: &Batch,
    token: &str,
) -> Result<Result<Sender, String>, LifecycleError> {
    let games = match batch.holders_by_token.get(token) {
        Some(games) => games.clone(),
        None => store::players::player_rows_of_token(&mut *tx, token).await?,
    };
    if let Some(holder) = games.iter().find(|g| g.reply_token == token).cloned() {
        return Ok(Ok(Sender {
            subscriber: holder.subscriber_id,
            email: holder.email.clone(),
            games,
            default: Some(holder),
            proof: Proof::ReplyToken,
            offer: None,
            conversation: None,
        }));
    }
    // The relay address of a TELL: it was mailed to its holder alone.
    if let Some(conversation) = store::tells::of_token(&mut *tx, token).await? {
        let games =
            store::players::player_rows_of_subscriber(&mut *tx, conversation.holder.subscriber)
                .await?;
        if let Some(holder) = games
            .iter()
            .find(|g| g.player_id == conversation.holder.player)
            .cloned()
        {
            return Ok(Ok(Sender {
                subscriber: holder.subscriber_id,
                email: holder.email.clone(),
                games,
                default: Some(holder),
                proof: Proof::ReplyToken,
                offer: None,
                conversation: Some(conversation),
            }));
        }
    }
    // A seat handed to a standby: the old holder is told so, not "unknown address".
    if let Some((game, turn)) = store::replacements::replaced_token(&mut *tx, token).await? {
        return Ok(Err(letters::replacements::replaced(&game, turn)));
    }
    // An offer of a seat: its address proves the standby it was mailed to.
    if let Some(offer) = store::offers::of_token(&mut *tx, token).await?
        && let Some(standby) = store::subscribers::find(&mut *tx, offer.subscriber_id)
            .await?
            .filter(|s| s.status == store::status::SubscriberStatus::Active)
    {
        let games = store::players::player_rows_of_subscriber(&mut *tx, standby.id).await?;
        return Ok(Ok(Sender {
            subscriber: standby.id,
            email: standby.email.as_str().to_owned(),
            games,
            default: None,
            proof: Proof::ReplyToken,
            offer: Some(offer.id),
            conversation: None,
        }));
    }
    Ok(Err(letters::replies::unknown_reply_address()))
}

/// The subscriber of the From address whose PASSWORD the message carries; their game is the
/// one they play, if they play only one.
async fn by_password(
    tx: &mut sqlx::PgConnection,
    batch: &Batch,
    reading: &Reading,
    from: &str,
    now: DateTime<Utc>,
    domain: &str,
) -> Result<Result<Sender, String>, LifecycleError> {
    let Some(password) = reading.commands.password() else {
        return Ok(Err(letters::replies::no_proof()));
    };
    let password = password.expose_secret().to_owned();
    let inbound = batch.message_key(reading);
    let Some(subscriber) = check_password(tx, &inbound, from, password, now, domain).await? else {
        return Ok(Err(letters::replies::password_mismatch()));
    };
    let subscriber = match subscriber {
        Ok(subscriber) => subscriber,
        Err(locked) => return Ok(Err(locked)),
    };
    let games = store::players::player_rows_of_subscriber(&mut *tx, subscriber).await?;
    let mut playing = games.iter().filter(|g| crate::turns::may_play(g).is_ok());
    let default = match (playing.next(), playing.next()) {
        (Some(only), None) => Some(only.clone()),
        _ => None,
    };
    let email = games
        .first()
        .map_or_else(|| from.to_owned(), |g| g.email.clone());
    Ok(Ok(Sender {
        subscriber,
        email,
        games,
        default,
        proof: Proof::Password,
        offer: None,
        conversation: None,
    }))
}

/// The subscription of `from` whose password `password` is: `None` when none matches (or none
/// is set), `Some(Err(why))` when every subscription of the address with a password is locked
/// out. Each subscription is locked out after `mail_password_max_failures` failures within the
/// window: its password is then not checked at all, and its subscriber is mailed once. The
/// count and the check are one step: the batch holds the lock of every subscriber of the From
/// address (`super::lock_senders`), so no other message from it is checked meanwhile.
async fn check_password(
    tx: &mut sqlx::PgConnection,
    inbound: &str,
    from: &str,
    password: String,
    now: DateTime<Utc>,
    domain: &str,
) -> Result<Option<Result<SubscriberId, String>>, LifecycleError> {
    let limits = secrets::limits();
    let since = now - limits.mail_password_window();
    let candidates = store::subscribers::with_password_by_email(&mut *tx, from).await?;
    let ids: Vec<SubscriberId> = candidates.iter().map(|(id, _)| *id).collect();
    let locked = store::subscribers::password_locked(
        &mut *tx,
        &ids,
        since,
        limits.mail_password_max_failures,
    )
    .await?;
    let open: Vec<(SubscriberId, String)> = candidates
        .into_iter()
        .filter(|(id, _)| !locked.contains(id))
        .collect();
    if open.is_empty() && !locked.is_empty() {
        return Ok(Some(Err(passwords::locked(
            limits.mail_password_window_minutes,
        ))));
    }
    for (subscriber, stored) in &open {
        // Argon2 is 19 MiB and tens of milliseconds: through the process's gate, off the
        // async threads. Mail waits its turn (the inbox workers bound how many wait).
        let matched = secrets::verify(
            secrets::gate(),
            Wait::Always,
            Some(stored.clone()),
            password.clone(),
        )
        .await
        .map_err(|e| LifecycleError::Internal(format!("the password check stopped: {e}")))?;
        if matched {
            return Ok(Some(Ok(*subscriber)));
        }
    }
    if open.is_empty() {
        return Ok(None);
    }
    let ids: Vec<SubscriberId> = open.iter().map(|(id, _)| *id).collect();
    let counts = store::subscribers::record_password_failures(tx, &ids, since, now).await?;
    for (subscriber, failures) in counts {
        if failures == limits.mail_password_max_failures {
            lock_out(tx, inbound, subscriber, failures, now, domain).await?;
        }
    }
    Ok(None)
}

/// A subscriber's password just got locked: tell them, once, by mail, and audit it.
async fn lock_out(
    tx: &mut sqlx::PgConnection,
    inbound: &str,
    subscriber: SubscriberId,
    failures: i64,
    now: DateTime<Utc>,
    domain: &str,
) -> Result<(), LifecycleError> {
    let Some(found) = store::subscribers::find(&mut *tx, subscriber).await? else {
        return Ok(());
    };
    let window = secrets::limits().mail_password_window_minutes;
    let letter = passwords::locked_out(found.email.as_str(), failures, window);
    let warning = Posting::once(
        "lockout",
        &format!("{inbound}|{subscriber}"),
        domain,
        found.email.as_str(),
        letter,
    )
    .with_headers(Headers {
        auto_submitted: Some(AutoSubmitted::AutoGenerated),
        ..Headers::default()
    });
    let locked = NewAuditEntry {
        actor: "mail",
        game: None,
        action: AuditAction::PasswordLocked {
            subscriber,
            failures,
            window_minutes: window,
        },
    };
    post_letter(tx, &warning, Some(&locked), now).await?;
    Ok(())
}

impl Sender {
    /// The player row that lines under `game` (a GAME line's name, or none) are for.
    pub fn game(&self, game: Option<&str>) -> Result<&TokenHolder, String> {
        let found = match game {
            None => self.default.as_ref(),
            Some(name) => self
                .games
                .iter()
                .find(|g| g.game_name.trim().eq_ignore_ascii_case(name.trim())),
        };
        found.ok_or_else(|| {
            let names: Vec<&str> = self.games.iter().map(|g| g.game_name.as_str()).collect();
            crate::letters::replies::which_game(game, &names)
        })
    }
}
