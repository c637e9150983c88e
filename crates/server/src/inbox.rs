//! Orders by email: every inbound message is stored raw first, then processed in its own
//! transaction — authenticated by the personal reply token, read with the `mail` crate, acted
//! on, and answered with a confirmation queued in the outbox. A message delivered twice is
//! stored once and acted on once; a message whose processing fails keeps its error and can be
//! run again (`gm inbox retry`).

use chrono::{DateTime, Utc};
use engine::{LineIssue, ParsedOrders, Viewer};
use games::EngineKind;
use mail::commands::Command;
use mail::{Delivery, Reading};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use store::PgPool;
use store::games::TokenHolder;
use store::inbox::{self, Stored};
use store::outbox::{self, NewOutbound};

use crate::turns::{self, LifecycleError};

/// The local part of Admiralty's addresses: players reply to `orders+TOKEN@domain`.
pub const REPLY_LOCAL_PART: &str = "orders";

/// The Message-ID a message is stored under: its own, or a digest of its bytes when it has none,
/// so that the same bytes delivered twice are still stored once.
pub fn storage_key(raw: &[u8]) -> String {
    match mail::inbound::parse(raw).ok().and_then(|m| m.message_id) {
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

/// Processes every stored message not processed yet; returns how many.
pub async fn process_pending(
    pool: &PgPool,
    now: DateTime<Utc>,
    domain: &str,
) -> Result<usize, LifecycleError> {
    let mut count = 0;
    loop {
        let mut tx = pool.begin().await?;
        let Some(claimed) = inbox::claim_next(&mut tx).await? else {
            return Ok(count);
        };
        count += 1;
        // The message's effects and its outcome commit together, so a crash never leaves a
        // message acted on but still queued. A failure rolls back to the savepoint and records
        // the error on the stored message instead.
        let mut effects = sqlx::Acquire::begin(&mut *tx).await?;
        match process(&mut effects, &claimed.raw, now, domain).await {
            Ok(outcome) => {
                effects.commit().await?;
                let (status, note) = match &outcome {
                    Outcome::Dropped(reason) => ("dropped", Some(reason.as_str())),
                    Outcome::Answered => ("processed", None),
                };
                inbox::finish(&mut *tx, claimed.id, status, note, now).await?;
            }
            Err(error) => {
                effects.rollback().await?;
                inbox::finish(
                    &mut *tx,
                    claimed.id,
                    "failed",
                    Some(&error.to_string()),
                    now,
                )
                .await?;
            }
        }
        tx.commit().await?;
    }
}

enum Outcome {
    /// Nothing sent: a loop or bulk mail, or unreadable. The reason is kept.
    Dropped(String),
    Answered,
}

async fn process(
    tx: &mut sqlx::PgConnection,
    raw: &[u8],
    now: DateTime<Utc>,
    domain: &str,
) -> Result<Outcome, LifecycleError> {
    let reading = match mail::read(raw, REPLY_LOCAL_PART) {
        Ok(reading) => reading,
        Err(error) => return Ok(Outcome::Dropped(format!("unreadable: {error}"))),
    };
    if let Delivery::Automated(reason) = &reading.delivery {
        store::audit::append(
            &mut *tx,
            &store::audit::NewAuditEntry {
                actor: "mail",
                action: "inbound.drop",
                game_id: None,
                details: json!({ "message_id": reading.mail.message_id, "reason": reason.to_string() }),
            },
            now,
        )
        .await?;
        return Ok(Outcome::Dropped(reason.to_string()));
    }
    let Some(sender) = reading.mail.from.as_ref().map(|m| m.address.clone()) else {
        return Ok(Outcome::Dropped("no From address to answer".into()));
    };
    let holder = match &reading.token {
        Some(token) => store::games::holder_of_token(&mut *tx, token.as_str()).await?,
        None => None,
    };
    let Some(holder) = holder else {
        // A From: header alone authorises nothing: explain how to authenticate.
        let body = format!(
            "Admiralty could not tell which game and player your message is for, so it changed nothing.\n\n\
             Every mail Admiralty sends you carries your personal reply address ({REPLY_LOCAL_PART}+...@{domain}): \
             reply to one of those mails, keeping the address, and your orders will be accepted.\n\n{}",
            mail::HELP
        );
        queue_reply(
            tx,
            &reading,
            &sender,
            None,
            "Your message was not accepted",
            &body,
            now,
            domain,
        )
        .await?;
        return Ok(Outcome::Answered);
    };
    let body = act(tx, &reading, &holder, now).await?;
    let subject = format!("{}: your orders were received", holder.game_name);
    queue_reply(
        tx,
        &reading,
        &holder.email,
        Some(&holder),
        &subject,
        &body,
        now,
        domain,
    )
    .await?;
    Ok(Outcome::Answered)
}

/// Carries out the commands and orders of an authenticated message; returns the confirmation.
async fn act(
    tx: &mut sqlx::PgConnection,
    reading: &Reading,
    holder: &TokenHolder,
    now: DateTime<Utc>,
) -> Result<String, LifecycleError> {
    let game = holder.game_id;
    let engine: EngineKind = holder.engine.parse()?;
    let mut out = vec![format!(
        "Game: {}. You are {}.{}",
        holder.game_name,
        holder.display_name,
        match (holder.turn_number, holder.deadline) {
            (Some(turn), Some(deadline)) => format!(
                " Turn {turn}, deadline {}.",
                deadline.format("%A %-d %B %Y, %H:%M UTC")
            ),
            (Some(turn), None) => format!(" Turn {turn}; the GM sets the deadline."),
            (None, _) => " No turn is open.".to_owned(),
        }
    )];
    for problem in &reading.commands.problems {
        out.push(format!(
            "Line {}: \"{}\"\n  {}\n  Would be accepted: {}",
            problem.line, problem.text, problem.problem, problem.expected
        ));
    }
    // Orders first, then the commands: press written with the orders comes before PRESS lines.
    let orders = reading.commands.order_text(None);
    if !orders.is_empty() {
        match turns::submit_orders_in(tx, now, game, holder.player_id, &orders.text, "email").await
        {
            Ok(parsed) => out.push(confirmation(&parsed, &orders)),
            Err(error @ (LifecycleError::DeadlinePassed(_) | LifecycleError::NoOpenTurn(_))) => {
                out.push(format!("Your orders were NOT accepted: {error}"));
            }
            Err(error) => return Err(error),
        }
    }
    for command in &reading.commands.commands {
        match &command.command {
            Command::Press { text } => match turns::submit_press_in(tx, now, game, holder.player_id, text, "email").await {
                Ok(()) => out.push(format!("Press accepted, to be published with the report: \"{text}\"")),
                Err(error) => out.push(format!("Press not accepted: {error}")),
            },
            Command::Help => out.push(mail::HELP.to_owned()),
            Command::Position => {
                let state: Value = sqlx::query_scalar("SELECT state FROM games WHERE id = $1")
                    .bind(game)
                    .fetch_one(&mut *tx)
                    .await?;
                let id = turns::player_id(holder.engine_player_id);
                out.push(engine.view(&state, Viewer::Player(id))?.lines.join("\n"));
            }
            Command::Status => {
                let current = store::games::current_raw_orders(&mut *tx, game, holder.player_id).await?;
                out.push(match current {
                    Some(text) => format!("Your current orders:\n{text}"),
                    None => "You have no orders in for this turn yet.".to_owned(),
                });
            }
            Command::Password { .. } | Command::Game { .. } => {}
            Command::Join { .. } | Command::Tell { .. } | Command::Resign | Command::Unsubscribe => out.push(format!(
                "Line {}: this command is not handled by mail yet; nothing was changed. Please write to the GM.",
                command.line
            )),
        }
    }
    if !reading.mail.attachments.is_empty() {
        out.push(format!(
            "{} attachment(s) were ignored: write orders in the message itself.",
            reading.mail.attachments.len()
        ));
    }
    Ok(out.join("\n\n") + "\n")
}

/// Each order as understood, each error with its line as written and what would be accepted,
/// and what happens if nothing more arrives.
fn confirmation(parsed: &ParsedOrders<Value>, orders: &mail::commands::OrderText) -> String {
    let mut out = String::from("Your orders, as understood:\n");
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

#[allow(clippy::too_many_arguments, reason = "one reply's parts, all needed")]
async fn queue_reply(
    tx: &mut sqlx::PgConnection,
    reading: &Reading,
    to: &str,
    holder: Option<&TokenHolder>,
    subject: &str,
    body: &str,
    now: DateTime<Utc>,
    domain: &str,
) -> Result<(), LifecycleError> {
    let inbound_id = reading.mail.message_id.clone().unwrap_or_default();
    let digest = hex::encode(Sha256::digest(format!("{inbound_id}|{to}").as_bytes()));
    let key = format!("reply:{digest}");
    let message_id = format!("<reply.{}@{domain}>", digest.get(..32).unwrap_or(&digest));
    let mut headers = serde_json::Map::new();
    headers.insert("Auto-Submitted".into(), Value::from("auto-replied"));
    headers.insert("In-Reply-To".into(), Value::from(inbound_id));
    if let Some(holder) = holder {
        let reply_to = format!("{REPLY_LOCAL_PART}+{}@{domain}", holder.reply_token);
        headers.insert("Reply-To".into(), Value::from(reply_to));
    }
    let headers = Value::Object(headers);
    let new = NewOutbound {
        message_id: &message_id,
        idempotency_key: &key,
        to_address: to,
        subject,
        body_text: body,
        body_html: None,
        headers: &headers,
    };
    outbox::enqueue(&mut *tx, &new, now).await?;
    Ok(())
}
