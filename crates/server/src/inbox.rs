//! Orders by email: every inbound message is stored raw first, then processed in its own
//! transaction — authenticated by the personal reply token, read with the `mail` crate, acted
//! on, and answered with a confirmation queued in the outbox. A message delivered twice is
//! stored once and acted on once; a message whose processing fails keeps its error and can be
//! run again (`gm inbox retry`).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use engine::{LineIssue, ParsedOrders, Viewer};
use games::EngineKind;
use mail::commands::Command;
use mail::{Delivery, Reading};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use store::PgPool;
use store::games::TokenHolder;
use store::inbox::{self, Claimed, Stored};
use store::outbox::{self, NewOutbound};
use store::subscribers::{SendersLock, SubscriberId};
use tokio::sync::Notify;

use crate::clock::Clock;
use crate::turns::{self, LifecycleError};

/// The local part of Admiralty's addresses: players reply to `orders+TOKEN@domain`.
pub const REPLY_LOCAL_PART: &str = "orders";

/// A player's personal reply address, `orders+TOKEN@domain`: every mail to a player carries it.
pub fn reply_address(token: &str, domain: &str) -> String {
    format!("{REPLY_LOCAL_PART}+{token}@{domain}")
}

/// The idempotency key and Message-ID of a mail queued because of an inbound message, from
/// `seed` (which names that message): the same however often the message is processed.
fn queued_ids(kind: &str, seed: &str, domain: &str) -> (String, String) {
    let digest = hex::encode(Sha256::digest(seed.as_bytes()));
    let short = digest.get(..32).unwrap_or(&digest);
    (
        format!("{kind}:{digest}"),
        format!("<{kind}.{short}@{domain}>"),
    )
}

/// The Message-ID a message is stored under: its own, or a digest of its bytes when it has none,
/// so that the same bytes delivered twice are still stored once.
pub fn storage_key(raw: &[u8]) -> String {
    match mail::inbound::message_id(raw) {
        Some(id) if !id.trim().is_empty() => id,
        _ => format!(
            "<sha256.{}@admiralty.invalid>",
            hex::encode(Sha256::digest(raw))
        ),
    }
}

/// What happened to one delivery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ingested {
    Stored(inbox::InboundId),
    Duplicate(inbox::InboundId),
}

/// Stores one raw message (the first thing done with any message), then processes the queue.
pub async fn ingest(
    pool: &PgPool,
    raw: &[u8],
    via: &str,
    now: DateTime<Utc>,
    domain: &str,
) -> Result<Ingested, LifecycleError> {
    let stored = inbox::store_raw(pool, &storage_key(raw), raw, via, now).await?;
    process_pending(pool, now, domain).await?;
    Ok(match stored {
        Stored::New(id) => Ingested::Stored(id),
        Stored::Duplicate(id) => Ingested::Duplicate(id),
    })
}

/// Replies (confirmations and refusals) one address may get in an hour; more are not sent, so
/// a misbehaving robot or a forged sender cannot make Admiralty flood a mailbox. What the
/// messages do is still done, and each suppressed reply is audited.
pub const REPLIES_PER_HOUR: i64 = 20;

/// A worker of `gm serve`: processes the inbound queue whenever a door stores a message (or
/// every `poll` in case a wake-up was missed, e.g. a message stored by `gm ingest`). Several
/// run at once: each message is claimed by one of them.
pub async fn worker(
    pool: PgPool,
    clock: Arc<dyn Clock>,
    domain: String,
    stored: Arc<Notify>,
    poll: Duration,
) {
    loop {
        match process_pending(&pool, clock.now(), &domain).await {
            Ok(0) => {}
            Ok(count) => tracing::debug!(count, "inbound messages processed"),
            Err(error) => tracing::error!(%error, "processing inbound mail failed; will retry"),
        }
        // A wake-up that came while processing is kept by Notify, so nothing waits a full poll.
        let _ = tokio::time::timeout(poll, stored.notified()).await;
    }
}

/// Messages one worker claims and processes in one transaction.
const BATCH: i64 = 32;

/// Processes every stored message not processed yet; returns how many.
pub async fn process_pending(
    pool: &PgPool,
    now: DateTime<Utc>,
    domain: &str,
) -> Result<usize, LifecycleError> {
    let mut count = 0;
    // Whether each message of the next batch gets its own savepoint (after a failure).
    let mut careful = false;
    loop {
        let mut tx = pool.begin().await?;
        let claimed = inbox::claim_batch(&mut tx, BATCH).await?;
        if claimed.is_empty() {
            return Ok(count);
        }
        // Each message was stored with a durable commit before anyone was told so. This
        // transaction only records what was done with a batch of them, atomically: if a crash
        // loses it, the messages are still `new` and are processed again (the same effects, the
        // same replies, their Message-IDs unchanged). So it need not wait for its own disk
        // flush, which is what bounds how many messages a second a worker gets through.
        sqlx::query("SET LOCAL synchronous_commit = off")
            .execute(&mut *tx)
            .await?;
        let readings: Vec<_> = claimed
            .iter()
            .map(|claimed| mail::read(&claimed.raw, REPLY_LOCAL_PART))
            .collect();
        let senders = lock_senders(&mut tx, &readings).await?;
        let mut batch = Batch::look_up(&mut tx, senders, &readings).await?;
        let mut outcomes = Vec::with_capacity(claimed.len());
        for (message, reading) in claimed.iter().zip(&readings) {
            let reading = reading.as_ref();
            // A message's effects and its outcome commit together, so a crash never leaves a
            // message acted on but still queued.
            let outcome = if careful {
                // Each message in a savepoint, what it put off written inside it: a failure
                // rolls back to it and records the error on the stored message instead.
                let mut effects = sqlx::Acquire::begin(&mut *tx).await?;
                let mut outcome =
                    process(&mut effects, &mut batch, message, reading, now, domain).await;
                if outcome.is_ok()
                    && let Err(error) = batch.write_put_off(&mut effects, now).await
                {
                    outcome = Err(error);
                }
                if outcome.is_ok() {
                    effects.commit().await?;
                } else {
                    effects.rollback().await?;
                    // Locks taken inside the savepoint went with it, and so did what the
                    // message put off.
                    batch.open_turns.forget();
                    batch.press.clear();
                    batch.replies.clear();
                }
                outcome
            } else {
                process(&mut tx, &mut batch, message, reading, now, domain).await
            };
            outcomes.push(match outcome {
                Ok(Outcome::Dropped(reason)) => {
                    inbox::Outcome::new(message.id, "dropped", Some(reason))
                }
                Ok(Outcome::Answered) => inbox::Outcome::new(message.id, "processed", None),
                Err(_) if !careful => break,
                Err(error) => inbox::Outcome::new(message.id, "failed", Some(error.to_string())),
            });
        }
        // Without savepoints, what the batch's messages put off is written together, here.
        let queued = if outcomes.len() == claimed.len() && !careful {
            batch.write_put_off(&mut tx, now).await
        } else {
            Ok(())
        };
        if outcomes.len() < claimed.len() || queued.is_err() {
            // Without savepoints (two statements a message saved), a failure leaves the batch
            // half done: undo all of it and run it again with them.
            tx.rollback().await?;
            careful = true;
            continue;
        }
        careful = false;
        count += claimed.len();
        inbox::finish_many(&mut *tx, &outcomes, now).await?;
        crate::fault::point("inbox_before_commit").await;
        tx.commit().await?;
    }
}

/// What the messages of one batch share within its transaction: the locks of their senders,
/// what was looked up for all of them at once, and the replies waiting to be queued together.
struct Batch {
    senders: SendersLock,
    /// The player rows of each reply token of the batch, read once the senders were locked;
    /// emptied when a message changes player rows (a resignation), after which each message
    /// reads its own.
    holders_by_token: HashMap<String, Vec<TokenHolder>>,
    open_turns: turns::OpenTurns,
    /// PRESS commands' press, saved together with the replies.
    press: Vec<store::games::NewPress>,
    replies: Vec<PendingReply>,
}

/// A reply waiting to be queued, with what its audit entry needs if the rate limit stops it.
struct PendingReply {
    inbound_id: String,
    game: Option<i64>,
    message_id: String,
    key: String,
    to: String,
    subject: String,
    body: String,
    headers: Value,
}

impl Batch {
    /// Reads, for every message written to a reply address, the token's player rows, and
    /// share-locks the open turns of the games those addresses are for.
    async fn look_up(
        tx: &mut sqlx::PgConnection,
        senders: SendersLock,
        readings: &[Result<Reading, mail::MailError>],
    ) -> Result<Batch, LifecycleError> {
        let tokens: Vec<String> = readings
            .iter()
            .filter_map(|reading| reading.as_ref().ok()?.token.as_ref())
            .map(|token| token.as_str().to_owned())
            .collect();
        let mut holders_by_token = HashMap::new();
        let mut games = Vec::new();
        for (token, holders) in store::games::player_rows_of_tokens(&mut *tx, &tokens).await? {
            games.extend(
                holders
                    .iter()
                    .filter(|holder| holder.reply_token == token)
                    .map(|holder| holder.game_id),
            );
            holders_by_token.insert(token, holders);
        }
        let mut open_turns = turns::OpenTurns::default();
        open_turns.fetch(&mut *tx, &games).await?;
        Ok(Batch {
            senders,
            holders_by_token,
            open_turns,
            press: Vec::new(),
            replies: Vec::new(),
        })
    }

    /// Writes what the messages put off: saves their press, and queues their replies within
    /// the rate limit, auditing each reply that it stops.
    async fn write_put_off(
        &mut self,
        tx: &mut sqlx::PgConnection,
        now: DateTime<Utc>,
    ) -> Result<(), LifecycleError> {
        store::games::save_press_many(&mut *tx, &std::mem::take(&mut self.press)).await?;
        let replies = std::mem::take(&mut self.replies);
        let new: Vec<NewOutbound<'_>> = replies
            .iter()
            .map(|reply| NewOutbound {
                message_id: &reply.message_id,
                idempotency_key: &reply.key,
                to_address: &reply.to,
                subject: &reply.subject,
                body_text: &reply.body,
                body_html: None,
                headers: &reply.headers,
            })
            .collect();
        let since = now - chrono::Duration::hours(1);
        let outcomes = outbox::enqueue_many_within_limit(
            &mut *tx,
            &new,
            "reply:",
            REPLIES_PER_HOUR,
            since,
            now,
        )
        .await?;
        for (reply, outcome) in replies.iter().zip(outcomes) {
            if let outbox::Limited::OverLimit(recent) = outcome {
                audit(
                    tx,
                    "inbound.reply_suppressed",
                    reply.game,
                    json!({ "message_id": reply.inbound_id, "to": reply.to, "replies_last_hour": recent }),
                    now,
                )
                .await?;
            }
        }
        Ok(())
    }
}

/// Locks every subscriber the batch's messages may act for (by reply token or From address),
/// all at once and in order: another worker's batch with a message from the same player waits
/// for this one, so a player's messages are still acted on one after the other, while
/// different players' messages go in parallel.
async fn lock_senders(
    tx: &mut sqlx::PgConnection,
    readings: &[Result<Reading, mail::MailError>],
) -> Result<SendersLock, LifecycleError> {
    let readable = readings.iter().filter_map(|reading| reading.as_ref().ok());
    let tokens: Vec<String> = readable
        .clone()
        .filter_map(|reading| reading.token.as_ref().map(|t| t.as_str().to_owned()))
        .collect();
    let emails: Vec<String> = readable
        .filter_map(|reading| reading.mail.from.as_ref())
        .map(|from| from.address.to_lowercase())
        .collect();
    Ok(store::subscribers::lock_senders(tx, &tokens, &emails).await?)
}

enum Outcome {
    /// Nothing sent: a loop or bulk mail, or unreadable. The reason is kept.
    Dropped(String),
    Answered,
}

/// Who a message is from, once proven: a subscriber, with the games they play.
struct Sender {
    subscriber: SubscriberId,
    email: String,
    /// The subscriber's player rows, one per game.
    games: Vec<TokenHolder>,
    /// The game lines without a GAME line are for: the reply address's game, or the player's
    /// only running game.
    default: Option<TokenHolder>,
    proof: Proof,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Proof {
    /// The personal reply address: a PASSWORD line in it sets the password.
    ReplyToken,
    /// A PASSWORD line, from the subscribed address.
    Password,
}

async fn process(
    tx: &mut sqlx::PgConnection,
    batch: &mut Batch,
    claimed: &Claimed,
    reading: Result<&Reading, &mail::MailError>,
    now: DateTime<Utc>,
    domain: &str,
) -> Result<Outcome, LifecycleError> {
    let reading = match reading {
        Ok(reading) => reading,
        Err(error) => return Ok(Outcome::Dropped(format!("unreadable: {error}"))),
    };
    if let Delivery::Automated(reason) = &reading.delivery {
        audit(
            tx,
            "inbound.drop",
            None,
            json!({ "message_id": reading.mail.message_id, "reason": reason.to_string() }),
            now,
        )
        .await?;
        return Ok(Outcome::Dropped(reason.to_string()));
    }
    let Some(from) = reading.mail.from.as_ref().map(|m| m.address.clone()) else {
        return Ok(Outcome::Dropped("no From address to answer".into()));
    };
    let sender = match identify(tx, batch, reading, &from).await? {
        Ok(sender) => sender,
        Err(why) => {
            // A From: header alone authorises nothing: explain how to authenticate.
            let body = format!(
                "Admiralty changed nothing: {why}\n\n\
                 Every mail Admiralty sends you carries your personal reply address \
                 ({REPLY_LOCAL_PART}+...@{domain}): reply to one of those mails, keeping the address, \
                 and your orders will be accepted. If you cannot reply to one, write from your \
                 subscribed address with a line PASSWORD <your password> (set it by replying to \
                 any mail from Admiralty with PASSWORD <new password>).\n\n{}",
                mail::HELP
            );
            let reply = Reply {
                to: &from,
                holder: None,
                subject: "Your message was not accepted",
                body: &body,
            };
            batch.queue_reply(reading, &reply, domain);
            return Ok(Outcome::Answered);
        }
    };
    let (subject, body) = act(
        tx,
        batch,
        reading,
        &sender,
        claimed.received_at,
        now,
        domain,
    )
    .await?;
    let reply = Reply {
        to: &sender.email,
        holder: sender.default.as_ref().or(sender.games.first()),
        subject: &subject,
        body: &body,
    };
    batch.queue_reply(reading, &reply, domain);
    Ok(Outcome::Answered)
}

/// Proves who wrote: the reply token, else the From address with a matching PASSWORD.
/// `Err` says why not, for the reply.
async fn identify(
    tx: &mut sqlx::PgConnection,
    batch: &Batch,
    reading: &Reading,
    from: &str,
) -> Result<Result<Sender, String>, LifecycleError> {
    if let Some(token) = &reading.token {
        let games = match batch.holders_by_token.get(token.as_str()) {
            Some(games) => games.clone(),
            None => store::games::player_rows_of_token(&mut *tx, token.as_str()).await?,
        };
        let Some(holder) = games
            .iter()
            .find(|g| g.reply_token == token.as_str())
            .cloned()
        else {
            return Ok(Err(
                "the reply address you wrote to is not one Admiralty gave out (or no longer is)."
                    .into(),
            ));
        };
        return Ok(Ok(Sender {
            subscriber: SubscriberId(holder.subscriber_id),
            email: holder.email.clone(),
            games,
            default: Some(holder),
            proof: Proof::ReplyToken,
        }));
    }
    let Some(password) = reading.commands.password() else {
        return Ok(Err(
            "Admiralty could not tell which game and player your message is for.".into(),
        ));
    };
    let candidates = store::subscribers::with_password_by_email(&mut *tx, from).await?;
    let Some(subscriber) = candidates
        .into_iter()
        .find(|(_, hash)| crate::web::password::verify(hash, password.expose_secret()))
        .map(|(id, _)| id)
    else {
        return Ok(Err(
            "the password does not match the one set for this address (or none is set).".into(),
        ));
    };
    let games = store::games::player_rows_of_subscriber(&mut *tx, subscriber.0).await?;
    let mut playing = games
        .iter()
        .filter(|g| g.status == "active" && matches!(g.game_status.as_str(), "running" | "paused"));
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
    }))
}

impl Sender {
    /// The player row that lines under `game` (a GAME line's name, or none) are for.
    fn game(&self, game: Option<&str>) -> Result<&TokenHolder, String> {
        let found = match game {
            None => self.default.as_ref(),
            Some(name) => self
                .games
                .iter()
                .find(|g| g.game_name.trim().eq_ignore_ascii_case(name.trim())),
        };
        found.ok_or_else(|| {
            let names: Vec<&str> = self.games.iter().map(|g| g.game_name.as_str()).collect();
            let yours = if names.is_empty() {
                "you play in no game yet".to_owned()
            } else {
                format!("your games: {}", names.join(", "))
            };
            match game {
                None => {
                    format!("which game is this for? Put a line GAME <name> before it ({yours}).")
                }
                Some(name) => format!("you play in no game called \"{name}\" ({yours})."),
            }
        })
    }
}

/// Carries out the commands and orders of an authenticated message; returns the
/// confirmation's subject and text.
async fn act(
    tx: &mut sqlx::PgConnection,
    batch: &mut Batch,
    reading: &Reading,
    sender: &Sender,
    received: DateTime<Utc>,
    now: DateTime<Utc>,
    domain: &str,
) -> Result<(String, String), LifecycleError> {
    let commands = &reading.commands;
    let mut out = Vec::new();
    if let Some(default) = &sender.default {
        out.push(format!(
            "Game: {}. You are {}.{}",
            default.game_name,
            default.display_name,
            turn_and_deadline(default)
        ));
    }
    if reading.mail.truncated.any() {
        out.push(format!(
            "Your message was longer than Admiralty reads (at most {} KB of mail and {} KB of \
             text): only its beginning was read, and anything after that was ignored.",
            mail::inbound::MAX_MESSAGE_BYTES / 1024,
            mail::inbound::MAX_BODY_BYTES / 1024
        ));
    }
    for problem in &commands.problems {
        out.push(format!(
            "Line {}: \"{}\"\n  {}\n  Would be accepted: {}",
            problem.line, problem.text, problem.problem, problem.expected
        ));
    }
    let mut ordered_games = Vec::new();
    // Orders first, then the commands: press written with the orders comes before PRESS lines.
    for game in commands.order_games() {
        let orders = commands.order_text(game);
        let first_line = orders.lines.first().copied().unwrap_or_default();
        let holder = match sender.game(game) {
            Ok(holder) => holder,
            Err(why) => {
                out.push(format!(
                    "The order lines from line {first_line} were NOT accepted: {why}"
                ));
                continue;
            }
        };
        if let Err(why) = may_play(holder) {
            out.push(format!(
                "Your orders for {} were NOT accepted: {why}",
                holder.game_name
            ));
            continue;
        }
        let lock = match batch
            .senders
            .player(holder.player_id.0, holder.subscriber_id)
        {
            Some(lock) => lock,
            // Not among the batch's senders (a row added since): lock it now.
            None => store::subscribers::lock_player(&mut *tx, holder.player_id.0).await?,
        };
        let submission = turns::Submission {
            game: holder.game_id,
            engine_player: holder.engine_player_id,
            text: &orders.text,
            source: "email",
        };
        match turns::submit_orders_in(tx, &mut batch.open_turns, &lock, received, &submission).await
        {
            Ok(parsed) => {
                ordered_games.push(holder.game_name.clone());
                out.push(confirmation(holder, &parsed, &orders));
            }
            Err(
                error @ (LifecycleError::DeadlinePassed(_)
                | LifecycleError::NoOpenTurn(_)
                | LifecycleError::LaterOrdersStand),
            ) => {
                out.push(format!(
                    "Your orders for {} were NOT accepted: {error}",
                    holder.game_name
                ));
            }
            Err(error) => return Err(error),
        }
    }
    let mut helped = false;
    for command in &commands.commands {
        let line = command.line;
        let target = sender.game(command.game.as_deref());
        match &command.command {
            // However many HELP lines a message has, the help is sent once.
            Command::Help if !helped => {
                helped = true;
                out.push(mail::HELP.to_owned());
            }
            Command::Help => {}
            Command::Game { .. } => {}
            Command::Password { secret } => {
                if sender.proof == Proof::ReplyToken {
                    let hash = crate::web::password::hash(secret.expose_secret()).map_err(|e| {
                        LifecycleError::Inconsistent {
                            game: 0,
                            reason: e.to_string(),
                        }
                    })?;
                    store::subscribers::set_password_hash(&mut *tx, sender.subscriber, &hash)
                        .await?;
                    audit(
                        tx,
                        "subscriber.password_set",
                        None,
                        json!({ "subscriber": sender.subscriber.0, "via": "mail" }),
                        now,
                    )
                    .await?;
                    out.push(format!(
                        "Line {line}: your password is set. When you cannot reply to a mail from \
                         Admiralty, write from {} with a line PASSWORD <your password>.",
                        sender.email
                    ));
                }
            }
            Command::Press { text } => match target.and_then(|h| may_play(h).map(|()| h)) {
                Ok(holder) => match turns::press_for_open_turn(
                    tx,
                    &mut batch.open_turns,
                    received,
                    holder.game_id,
                    holder.player_id,
                    text,
                    "email",
                )
                .await
                {
                    Ok(press) => {
                        batch.press.push(press);
                        out.push(format!(
                            "Press accepted for {}, to be published with the report: \"{text}\"",
                            holder.game_name
                        ));
                    }
                    Err(error @ LifecycleError::NoOpenTurn(_)) => {
                        out.push(format!("Line {line}: press not accepted: {error}"));
                    }
                    Err(error) => return Err(error),
                },
                Err(why) => out.push(format!("Line {line}: press not accepted: {why}")),
            },
            Command::Position => match target {
                Ok(holder) => {
                    let state = turns::game_state(&mut *tx, holder.game_id).await?;
                    let engine: EngineKind = holder.engine.parse()?;
                    let id = turns::player_id(holder.engine_player_id);
                    out.push(format!(
                        "Your position in {}:\n{}",
                        holder.game_name,
                        engine.view(&state, Viewer::Player(id))?.lines.join("\n")
                    ));
                }
                Err(why) => out.push(format!("Line {line}: {why}")),
            },
            Command::Status => match target {
                Ok(holder) => {
                    let current = store::games::current_raw_orders(
                        &mut *tx,
                        holder.game_id,
                        holder.player_id,
                    )
                    .await?;
                    out.push(format!(
                        "{}: you are {} ({}).{}\n{}",
                        holder.game_name,
                        holder.display_name,
                        holder.status,
                        turn_and_deadline(holder),
                        match current {
                            Some(text) => format!("Your current orders:\n{text}"),
                            None => "You have no orders in for this turn yet.".to_owned(),
                        }
                    ));
                }
                Err(why) => out.push(format!("Line {line}: {why}")),
            },
            Command::Tell { to, text } => match target.and_then(|h| may_play(h).map(|()| h)) {
                Ok(holder) => {
                    out.push(tell(tx, reading, holder, line, to, text, now, domain).await?)
                }
                Err(why) => out.push(format!("Line {line}: your message was not relayed: {why}")),
            },
            Command::Join { game } => out.push(join(sender, game)),
            Command::Resign => match target {
                Ok(holder) if holder.status == "active" => {
                    store::games::set_player_status(&mut *tx, holder.player_id, "resigned").await?;
                    // The batch's player rows read before no longer say who plays.
                    batch.holders_by_token.clear();
                    audit(
                        tx,
                        "player.resign",
                        Some(holder.game_id.0),
                        json!({ "player": holder.player_id, "via": "mail" }),
                        now,
                    )
                    .await?;
                    out.push(format!(
                        "You have resigned from {}. From the next resolution your fleet is treated as \
                         the game's rules treat a player who leaves. Only the GM can undo this.",
                        holder.game_name
                    ));
                }
                Ok(holder) => out.push(format!(
                    "Line {line}: you are already {} in {}.",
                    holder.status, holder.game_name
                )),
                Err(why) => out.push(format!("Line {line}: {why}")),
            },
            Command::Unsubscribe => {
                store::subscribers::set_status(
                    &mut *tx,
                    sender.subscriber,
                    store::subscribers::SubscriberStatus::Unsubscribed,
                )
                .await?;
                batch.holders_by_token.clear();
                let mut left = Vec::new();
                for holder in sender.games.iter().filter(|g| g.status == "active") {
                    store::games::set_player_status(&mut *tx, holder.player_id, "resigned").await?;
                    left.push(holder.game_name.clone());
                }
                audit(tx, "subscriber.unsubscribe", None, json!({ "subscriber": sender.subscriber.0, "resigned_from": left, "via": "mail" }), now).await?;
                out.push(format!(
                    "You are unsubscribed: this is the last mail Admiralty sends you{}. To come \
                     back, ask the GM.",
                    if left.is_empty() {
                        String::new()
                    } else {
                        format!(", and you have left {}", left.join(", "))
                    }
                ));
            }
        }
    }
    if !reading.mail.attachments.is_empty() {
        out.push(format!(
            "{} attachment(s) were ignored: write orders in the message itself.",
            reading.mail.attachments.len()
        ));
    }
    if commands.commands.is_empty() && commands.orders.is_empty() && commands.problems.is_empty() {
        out.push(
            "Your message held no orders and no commands, so nothing was changed. Send HELP for \
             the list of commands."
                .to_owned(),
        );
    }
    let game = sender
        .default
        .as_ref()
        .map_or("Admiralty", |d| d.game_name.as_str());
    let subject = if ordered_games.is_empty() {
        format!("{game}: your message was received")
    } else {
        format!("{}: your orders were received", ordered_games.join(", "))
    };
    Ok((subject, out.join("\n\n") + "\n"))
}

/// Whether this player row may send orders, press and messages (by mail or on the web).
pub(crate) fn may_play(holder: &TokenHolder) -> Result<(), String> {
    if holder.status != "active" {
        return Err(format!(
            "you are no longer playing in {} ({}).",
            holder.game_name, holder.status
        ));
    }
    match holder.game_status.as_str() {
        "running" | "paused" => Ok(()),
        "finished" => Err(format!("{} is over.", holder.game_name)),
        other => Err(format!("{} is not running ({other}).", holder.game_name)),
    }
}

fn turn_and_deadline(holder: &TokenHolder) -> String {
    match (holder.turn_number, holder.deadline) {
        (Some(turn), Some(deadline)) => format!(
            " Turn {turn}, deadline {}.",
            deadline.format("%A %-d %B %Y, %H:%M UTC")
        ),
        (Some(turn), None) => format!(" Turn {turn}; the GM sets the deadline."),
        (None, _) => " No turn is open.".to_owned(),
    }
}

/// JOIN: in a zine, who plays is the subscription (BARMY-02: every subscriber plays); so JOIN
/// says where the sender stands rather than changing anything.
fn join(sender: &Sender, game: &str) -> String {
    match sender.game(Some(game)) {
        Ok(holder) if holder.status == "active" => {
            format!(
                "You already play in {} as {}.",
                holder.game_name, holder.display_name
            )
        }
        Ok(holder) => format!(
            "You have left {} ({}); only the GM can bring you back.",
            holder.game_name, holder.status
        ),
        Err(_) => format!(
            "You are not a player of a game called \"{game}\". Every active subscriber of the zine \
             is enrolled in its Barmy Battleships games at their next turn (rules BARMY-02, \
             BARMY-GM-11); other games take players when the GM starts them. Ask the GM to add you."
        ),
    }
}

/// TELL: relays a private message to another player of the same game, from Admiralty's
/// address, so that no one learns another's address. Returns the line for the confirmation.
#[allow(clippy::too_many_arguments, reason = "one relay's parts, all needed")]
async fn tell(
    tx: &mut sqlx::PgConnection,
    reading: &Reading,
    from: &TokenHolder,
    line: usize,
    to: &str,
    text: &str,
    now: DateTime<Utc>,
    domain: &str,
) -> Result<String, LifecycleError> {
    let players = store::games::player_rows_of_game(&mut *tx, from.game_id).await?;
    let wanted = to.trim();
    let recipient = players.iter().find(|p| {
        p.display_name.trim().eq_ignore_ascii_case(wanted)
            || wanted.parse::<i64>().is_ok_and(|n| n == p.engine_player_id)
    });
    let Some(recipient) = recipient.filter(|p| p.status == "active") else {
        let names: Vec<String> = players
            .iter()
            .filter(|p| p.status == "active" && p.player_id != from.player_id)
            .map(|p| format!("{} ({})", p.display_name, p.engine_player_id))
            .collect();
        return Ok(format!(
            "Line {line}: your message was not relayed: no active player \"{wanted}\" in {}. \
             Players: {}.",
            from.game_name,
            names.join(", ")
        ));
    };
    if recipient.player_id == from.player_id {
        return Ok(format!(
            "Line {line}: your message was not relayed: it was addressed to yourself."
        ));
    }
    let inbound_id = reading.mail.message_id.clone().unwrap_or_default();
    let (key, message_id) = queued_ids("tell", &format!("{inbound_id}|tell|{line}"), domain);
    let body = format!(
        "A private message from {sender} in {game}, relayed by Admiralty:\n\n{text}\n\n\
         To answer, reply to this mail with a line\n  TELL {sender}: <your message>\n\
         (it goes to {sender} alone; quoted text is ignored).\n",
        sender = from.display_name,
        game = from.game_name,
    );
    let subject = format!(
        "{}: a private message from {}",
        from.game_name, from.display_name
    );
    let mut headers = serde_json::Map::new();
    headers.insert(
        "Reply-To".into(),
        Value::from(reply_address(&recipient.reply_token, domain)),
    );
    outbox::enqueue(
        &mut *tx,
        &NewOutbound {
            message_id: &message_id,
            idempotency_key: &key,
            to_address: &recipient.email,
            subject: &subject,
            body_text: &body,
            body_html: None,
            headers: &Value::Object(headers),
        },
        now,
    )
    .await?;
    Ok(format!(
        "Line {line}: your private message was relayed to {} (your address is not shown).",
        recipient.display_name
    ))
}

/// Each order as understood, each error with its line as written and what would be accepted,
/// and what happens if nothing more arrives.
fn confirmation(
    holder: &TokenHolder,
    parsed: &ParsedOrders<Value>,
    orders: &mail::commands::OrderText,
) -> String {
    let mut out = format!("Your orders for {}, as understood:\n", holder.game_name);
    for line in &parsed.understood {
        out.push_str(&format!("  - {line}\n"));
    }
    let issue = |kind: &str, issue: &LineIssue| {
        let line = orders.original_line(issue.line).unwrap_or(issue.line);
        format!(
            "{kind} on line {line}: \"{}\"\n    {}\n    Would be accepted: {}\n",
            issue.text, issue.problem, issue.expected
        )
    };
    for error in &parsed.errors {
        out.push_str(&issue("Error", error));
    }
    for warning in &parsed.warnings {
        out.push_str(&issue("Warning", warning));
    }
    out.push_str(
        "\nIf nothing more arrives before the deadline, these orders stand. To change them, send a \
         complete new set: the last set received counts.",
    );
    out
}

async fn audit(
    tx: &mut sqlx::PgConnection,
    action: &str,
    game_id: Option<i64>,
    details: Value,
    now: DateTime<Utc>,
) -> Result<(), LifecycleError> {
    store::audit::append(
        &mut *tx,
        &store::audit::NewAuditEntry {
            actor: "mail",
            action,
            game_id,
            details,
        },
        now,
    )
    .await?;
    Ok(())
}

struct Reply<'a> {
    to: &'a str,
    /// The player whose personal address goes in Reply-To.
    holder: Option<&'a TokenHolder>,
    subject: &'a str,
    body: &'a str,
}

impl Batch {
    /// Puts the answer to a message with the batch's replies (see [`Batch::write_put_off`]):
    /// queued once however often the message is processed, and no more than
    /// [`REPLIES_PER_HOUR`] an hour to one address.
    fn queue_reply(&mut self, reading: &Reading, reply: &Reply<'_>, domain: &str) {
        let inbound_id = reading.mail.message_id.clone().unwrap_or_default();
        let (key, message_id) = queued_ids("reply", &format!("{inbound_id}|{}", reply.to), domain);
        let mut headers = serde_json::Map::new();
        headers.insert("Auto-Submitted".into(), Value::from("auto-replied"));
        headers.insert("In-Reply-To".into(), Value::from(inbound_id.clone()));
        if let Some(holder) = reply.holder {
            headers.insert(
                "Reply-To".into(),
                Value::from(reply_address(&holder.reply_token, domain)),
            );
        }
        self.replies.push(PendingReply {
            inbound_id,
            game: reply.holder.map(|h| h.game_id.0),
            message_id,
            key,
            to: reply.to.to_owned(),
            subject: reply.subject.to_owned(),
            body: reply.body.to_owned(),
            headers: Value::Object(headers),
        });
    }
}
