//! TELL conversations (issue 27): the relay address each relayed TELL carries as its Reply-To,
//! one for each ordered pair of seats, and the Message-IDs of the relayed TELLs, so that a
//! reply to either goes back to the TELL's sender and never into orders.

use chrono::{DateTime, Utc};
use sqlx::PgExecutor;

use crate::StoreError;
use crate::ids::{ConversationId, PlayerRowId, SubscriberId};
use crate::status::SubscriberStatus;

/// One side of a conversation: a seat and the subscriber who held it when the conversation
/// began (a seat handed to a standby keeps its row; the conversation does not pass with it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Side {
    pub player: PlayerRowId,
    pub subscriber: SubscriberId,
}

/// A conversation as its holder sees it: their relay address answers the counterpart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conversation {
    pub id: ConversationId,
    /// The token of the relay address `orders+TOKEN@`, mailed to the holder alone.
    pub reply_token: String,
    pub holder: Side,
    pub counterpart: Side,
}

/// The conversation in which `holder` answers `counterpart`: the existing one, or a new one
/// with `new_token` (unguessable, made by the caller).
pub async fn conversation(
    tx: &mut sqlx::PgConnection,
    holder: Side,
    counterpart: Side,
    new_token: &str,
    now: DateTime<Utc>,
) -> Result<Conversation, StoreError> {
    sqlx::query!(
        "INSERT INTO tell_conversations (holder_player_id, holder_subscriber_id,
             counterpart_player_id, counterpart_subscriber_id, reply_token, created_at)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (holder_player_id, holder_subscriber_id, counterpart_player_id,
             counterpart_subscriber_id) DO NOTHING",
        holder.player as PlayerRowId,
        holder.subscriber as SubscriberId,
        counterpart.player as PlayerRowId,
        counterpart.subscriber as SubscriberId,
        new_token,
        now,
    )
    .execute(&mut *tx)
    .await?;
    let row = sqlx::query!(
        r#"SELECT id AS "id: ConversationId", reply_token FROM tell_conversations
           WHERE holder_player_id = $1 AND holder_subscriber_id = $2
             AND counterpart_player_id = $3 AND counterpart_subscriber_id = $4"#,
        holder.player as PlayerRowId,
        holder.subscriber as SubscriberId,
        counterpart.player as PlayerRowId,
        counterpart.subscriber as SubscriberId,
    )
    .fetch_one(&mut *tx)
    .await?;
    Ok(Conversation {
        id: row.id,
        reply_token: row.reply_token,
        holder,
        counterpart,
    })
}

/// Records the Message-ID (without angle brackets) of a TELL relayed in `conversation`'s
/// reverse direction, i.e. mailed to its holder.
pub async fn record_relayed<'e>(
    db: impl PgExecutor<'e>,
    message_id: &str,
    conversation: ConversationId,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    sqlx::query!(
        "INSERT INTO tell_relayed_messages (message_id, conversation_id, relayed_at)
         VALUES ($1, $2, $3) ON CONFLICT (message_id) DO NOTHING",
        message_id,
        conversation as ConversationId,
        now,
    )
    .execute(db)
    .await?;
    Ok(())
}

/// The conversation whose relay address has token `token`, while it still proves its holder:
/// the holder's subscriber is active and still holds the seat. `None` otherwise.
pub async fn of_token<'e>(
    db: impl PgExecutor<'e>,
    token: &str,
) -> Result<Option<Conversation>, StoreError> {
    conversation_where(db, ConversationKey::Token(token)).await
}

/// The conversation of the relayed TELL with Message-ID `message_id`, if it was mailed to
/// `subscriber` (who still holds the seat and is active): a reply that names it in
/// In-Reply-To answers that TELL.
pub async fn of_message<'e>(
    db: impl PgExecutor<'e>,
    message_id: &str,
    subscriber: SubscriberId,
) -> Result<Option<Conversation>, StoreError> {
    conversation_where(db, ConversationKey::Message(message_id, subscriber)).await
}

enum ConversationKey<'a> {
    Token(&'a str),
    Message(&'a str, SubscriberId),
}

async fn conversation_where<'e>(
    db: impl PgExecutor<'e>,
    key: ConversationKey<'_>,
) -> Result<Option<Conversation>, StoreError> {
    let (token, message, subscriber) = match key {
        ConversationKey::Token(token) => (Some(token), None, None),
        ConversationKey::Message(id, subscriber) => (None, Some(id), Some(subscriber)),
    };
    let row = sqlx::query!(
        r#"SELECT c.id AS "id: ConversationId", c.reply_token,
                  c.holder_player_id AS "holder_player: PlayerRowId",
                  c.holder_subscriber_id AS "holder_subscriber: SubscriberId",
                  c.counterpart_player_id AS "counterpart_player: PlayerRowId",
                  c.counterpart_subscriber_id AS "counterpart_subscriber: SubscriberId"
           FROM tell_conversations c
           JOIN players p ON p.id = c.holder_player_id AND p.subscriber_id = c.holder_subscriber_id
           JOIN subscribers s ON s.id = c.holder_subscriber_id AND s.status = $4
           WHERE ($1::text IS NULL OR c.reply_token = $1)
             AND ($2::text IS NULL OR c.id = (SELECT m.conversation_id FROM tell_relayed_messages m
                                              WHERE m.message_id = $2))
             AND ($3::bigint IS NULL OR c.holder_subscriber_id = $3)
             AND ($1::text IS NOT NULL OR $2::text IS NOT NULL)"#,
        token,
        message,
        subscriber as Option<SubscriberId>,
        SubscriberStatus::Active as SubscriberStatus,
    )
    .fetch_optional(db)
    .await?;
    Ok(row.map(|row| Conversation {
        id: row.id,
        reply_token: row.reply_token,
        holder: Side {
            player: row.holder_player,
            subscriber: row.holder_subscriber,
        },
        counterpart: Side {
            player: row.counterpart_player,
            subscriber: row.counterpart_subscriber,
        },
    }))
}

/// Ends every relay address mailed to `subscriber` (unsubscribed or excluded: like their
/// reply tokens, the addresses in mail sent so far name no one). Returns how many.
pub async fn delete_of_subscriber<'e>(
    db: impl PgExecutor<'e>,
    subscriber: SubscriberId,
) -> Result<u64, StoreError> {
    let done = sqlx::query!(
        "DELETE FROM tell_conversations WHERE holder_subscriber_id = $1",
        subscriber as SubscriberId,
    )
    .execute(db)
    .await?;
    Ok(done.rows_affected())
}
