//! A person's data (issue 30 item 6): everything stored about one address, for its download,
//! and its erasure. A person is an address: every subscription with it (letter case aside),
//! in any zine, whatever its status, is theirs (docs/web-players.md#your-data).
//!
//! The download's sections are built as JSON here: the file is an edge, read by people.

use serde_json::Value;
use sqlx::PgConnection;

use crate::StoreError;
use crate::ids::SubscriberId;

/// The subscriptions sharing `subscriber`'s address, and that address.
#[derive(Debug, Clone)]
pub struct Person {
    pub address: String,
    pub subscribers: Vec<SubscriberId>,
}

impl Person {
    fn ids(&self) -> Vec<i64> {
        self.subscribers
            .iter()
            .filter_map(|s| s.to_string().parse().ok())
            .collect()
    }

    fn id_texts(&self) -> Vec<String> {
        self.subscribers.iter().map(ToString::to_string).collect()
    }
}

/// The person behind `subscriber`, their subscriptions locked (an erasure and a download or
/// a second erasure wait for each other). `None` when there is no such subscriber.
pub async fn person(
    db: &mut PgConnection,
    subscriber: SubscriberId,
) -> Result<Option<Person>, StoreError> {
    let rows = sqlx::query!(
        r#"SELECT id AS "id: SubscriberId", email FROM subscribers
           WHERE lower(email) = (SELECT lower(email) FROM subscribers WHERE id = $1)
           ORDER BY id FOR UPDATE"#,
        subscriber as SubscriberId,
    )
    .fetch_all(&mut *db)
    .await?;
    let Some(address) = rows
        .iter()
        .find(|r| r.id == subscriber)
        .map(|r| r.email.clone())
    else {
        return Ok(None);
    };
    Ok(Some(Person {
        address,
        subscribers: rows.into_iter().map(|r| r.id).collect(),
    }))
}

/// Everything stored about a person, section by section (each a JSON array, oldest first).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Record {
    pub subscriptions: Value,
    pub seats: Value,
    pub orders: Value,
    pub press: Value,
    pub letters_to_the_editor: Value,
    pub absences: Value,
    pub mail_to_them: Value,
    pub mail_from_them: Vec<InboundMail>,
    pub audit_entries: Value,
}

/// A message received from the person, its raw text as received.
#[derive(Debug, Clone, serde::Serialize)]
pub struct InboundMail {
    pub message_id: String,
    pub received_at: chrono::DateTime<chrono::Utc>,
    pub status: String,
    pub raw: String,
}

/// The person's record. Only rows of their own subscriptions and seats, and mail to or from
/// their address: nothing of another player's orders, press or position.
pub async fn record(db: &mut PgConnection, person: &Person) -> Result<Record, StoreError> {
    let ids = person.ids();
    let subscriptions = sqlx::query_scalar!(
        r#"SELECT COALESCE(jsonb_agg(jsonb_build_object(
             'subscriber', s.id, 'zine', z.slug, 'zine_name', z.name, 'address', s.email,
             'name', s.display_name, 'status', s.status, 'since', s.created_at,
             'postal', s.postal, 'mail_choice', s.mail_choice,
             'has_mail_password', s.password_hash IS NOT NULL,
             'standby_since', (SELECT since FROM standbys b WHERE b.subscriber_id = s.id))
             ORDER BY s.id), '[]') AS "json!"
           FROM subscribers s JOIN zines z ON z.id = s.zine_id WHERE s.id = ANY($1)"#,
        &ids
    )
    .fetch_one(&mut *db)
    .await?;
    let seats = sqlx::query_scalar!(
        r#"SELECT COALESCE(jsonb_agg(jsonb_build_object(
             'game', g.id, 'game_name', g.name, 'rules', g.engine, 'game_status', g.status,
             'name', p.display_name, 'player', p.engine_player_id, 'status', p.status,
             'joined_turn', p.joined_turn, 'seat', p.seat, 'missed_turns', p.missed_turns)
             ORDER BY p.id), '[]') AS "json!"
           FROM players p JOIN games g ON g.id = p.game_id WHERE p.subscriber_id = ANY($1)"#,
        &ids
    )
    .fetch_one(&mut *db)
    .await?;
    let orders = sqlx::query_scalar!(
        r#"SELECT COALESCE(jsonb_agg(jsonb_build_object(
             'game', o.game_id, 'turn', t.number, 'text', o.raw_text, 'source', o.source,
             'received_at', o.received_at, 'superseded_at', o.superseded_at)
             ORDER BY o.id), '[]') AS "json!"
           FROM orders o JOIN players p ON p.id = o.player_id JOIN turns t ON t.id = o.turn_id
           WHERE p.subscriber_id = ANY($1)"#,
        &ids
    )
    .fetch_one(&mut *db)
    .await?;
    let press = sqlx::query_scalar!(
        r#"SELECT COALESCE(jsonb_agg(jsonb_build_object(
             'game', r.game_id, 'turn', t.number, 'text', r.text, 'source', r.source,
             'received_at', r.received_at) ORDER BY r.id), '[]') AS "json!"
           FROM press r JOIN players p ON p.id = r.player_id JOIN turns t ON t.id = r.turn_id
           WHERE p.subscriber_id = ANY($1)"#,
        &ids
    )
    .fetch_one(&mut *db)
    .await?;
    let letters_to_the_editor = sqlx::query_scalar!(
        r#"SELECT COALESCE(jsonb_agg(jsonb_build_object(
             'subscriber', l.subscriber_id, 'text', l.text, 'status', l.status,
             'received_at', l.received_at) ORDER BY l.id), '[]') AS "json!"
           FROM zine_letters l WHERE l.subscriber_id = ANY($1)"#,
        &ids
    )
    .fetch_one(&mut *db)
    .await?;
    let absences = sqlx::query_scalar!(
        r#"SELECT COALESCE(jsonb_agg(jsonb_build_object(
             'subscriber', a.subscriber_id, 'first_day', a.first_day, 'last_day', a.last_day)
             ORDER BY a.id), '[]') AS "json!"
           FROM absences a WHERE a.subscriber_id = ANY($1)"#,
        &ids
    )
    .fetch_one(&mut *db)
    .await?;
    let mail_to_them = sqlx::query_scalar!(
        r#"SELECT COALESCE(jsonb_agg(jsonb_build_object(
             'message_id', m.message_id, 'to', m.to_address, 'subject', m.subject,
             'body', COALESCE(b.body_text, m.body_text), 'status', m.status,
             'queued_at', m.created_at, 'sent_at', m.sent_at) ORDER BY m.id), '[]') AS "json!"
           FROM outbound_messages m LEFT JOIN outbound_bodies b ON b.id = m.shared_body_id
           WHERE lower(m.to_address) = lower($1)"#,
        person.address
    )
    .fetch_one(&mut *db)
    .await?;
    let mail_from_them = sqlx::query!(
        r#"SELECT message_id, received_at, status, raw FROM inbound_messages
           WHERE sender_subscriber_id = ANY($1)
              OR strpos(lower(encode(raw, 'escape')), lower($2)) > 0
           ORDER BY id"#,
        &ids,
        person.address
    )
    .fetch_all(&mut *db)
    .await?
    .into_iter()
    .map(|r| InboundMail {
        message_id: r.message_id,
        received_at: r.received_at,
        status: r.status,
        raw: String::from_utf8_lossy(&r.raw).into_owned(),
    })
    .collect();
    let audit_entries = audit_naming(db, person).await?;
    Ok(Record {
        subscriptions,
        seats,
        orders,
        press,
        letters_to_the_editor,
        absences,
        mail_to_them,
        mail_from_them,
        audit_entries,
    })
}

/// Audit entries naming the person: by a subscriber id of theirs, a player row of theirs, or
/// their address in the details.
async fn audit_naming(db: &mut PgConnection, person: &Person) -> Result<Value, StoreError> {
    let ids = person.ids();
    let texts = person.id_texts();
    Ok(sqlx::query_scalar!(
        r#"WITH seats AS (SELECT id::text AS id FROM players WHERE subscriber_id = ANY($1))
           SELECT COALESCE(jsonb_agg(jsonb_build_object(
             'at', a.at, 'actor', a.actor, 'action', a.action, 'game', a.game_id,
             'details', a.details) ORDER BY a.id), '[]') AS "json!"
           FROM audit_log a
           WHERE a.details->>'subscriber' = ANY($2)
              OR a.details->>'player' IN (SELECT id FROM seats)
              OR a.details->>'from_player' IN (SELECT id FROM seats)
              OR (jsonb_typeof(a.details->'subscribers') = 'array'
                  AND EXISTS (SELECT 1 FROM jsonb_array_elements_text(a.details->'subscribers') e
                              WHERE e = ANY($2)))
              OR strpos(lower(a.details::text), lower($3)) > 0"#,
        &ids,
        &texts,
        person.address
    )
    .fetch_one(&mut *db)
    .await?)
}

/// What an erasure changed, for its audit entry.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Erased {
    pub inbound_bodies: u64,
    pub outbound_messages: u64,
    pub queued_not_sent: u64,
}

/// Removes the person's address and personal data, in the caller's transaction (after their
/// seats were resigned, so that mail those resignations queued to them is caught too):
/// each subscription's address becomes `erased-ID@erased.invalid` and its name "Erased
/// subscriber", passwords, sessions, login links, standby, absences and unprinted letters go,
/// raw mail from them is emptied, mail to them loses its address, subject and body (what was
/// still queued is not sent), and the address is struck from the audit log, the GM's notices
/// and other mail. Orders, press, the names they played under and published reports stay:
/// they are the game's record, which `gm verify` replays byte for byte.
pub async fn erase(db: &mut PgConnection, person: &Person) -> Result<Erased, StoreError> {
    let ids = person.ids();
    let address = person.address.as_str();
    let pattern = regex_literal(address);
    let queued_not_sent = sqlx::query!(
        r#"UPDATE outbound_messages SET status = 'failed',
             last_error = 'not sent: the subscriber erased their data'
           WHERE lower(to_address) = lower($1) AND status = 'queued'"#,
        address
    )
    .execute(&mut *db)
    .await?
    .rows_affected();
    let outbound_messages = sqlx::query!(
        r#"UPDATE outbound_messages SET to_address = 'erased@erased.invalid',
             to_mailbox = CASE WHEN to_mailbox IS NULL THEN NULL ELSE 'erased@erased.invalid' END,
             to_domain = CASE WHEN to_domain IS NULL THEN NULL ELSE 'erased.invalid' END,
             subject = '(erased)', body_text = '(erased)', body_html = NULL, headers = '{}'
           WHERE lower(to_address) = lower($1)"#,
        address
    )
    .execute(&mut *db)
    .await?
    .rows_affected();
    sqlx::query!(
        r#"UPDATE outbound_messages SET body_text = regexp_replace(body_text, $2, '[erased]', 'gi'),
             subject = regexp_replace(subject, $2, '[erased]', 'gi'),
             body_html = regexp_replace(body_html, $2, '[erased]', 'gi'),
             headers = regexp_replace(headers::text, $2, '[erased]', 'gi')::jsonb,
             last_error = regexp_replace(last_error, $2, '[erased]', 'gi')
           WHERE strpos(lower(body_text || subject || COALESCE(body_html, '') || headers::text
                              || COALESCE(last_error, '')), lower($1)) > 0"#,
        address,
        pattern
    )
    .execute(&mut *db)
    .await?;
    let inbound_bodies = sqlx::query!(
        r#"UPDATE inbound_messages SET raw = ''::bytea,
             error = regexp_replace(error, $3, '[erased]', 'gi')
           WHERE sender_subscriber_id = ANY($1)
              OR strpos(lower(encode(raw, 'escape')), lower($2)) > 0
              OR strpos(lower(COALESCE(error, '')), lower($2)) > 0"#,
        &ids,
        address,
        pattern
    )
    .execute(&mut *db)
    .await?
    .rows_affected();
    // The audit log's trigger lets this transaction strike the address, and nothing else
    // (migration 0076).
    sqlx::query!(r#"SELECT set_config('admiralty.erasing', 'on', true) AS "on!""#)
        .fetch_one(&mut *db)
        .await?;
    sqlx::query!(
        r#"UPDATE audit_log SET details = regexp_replace(details::text, $2, '[erased]', 'gi')::jsonb
           WHERE strpos(lower(details::text), lower($1)) > 0"#,
        address,
        pattern
    )
    .execute(&mut *db)
    .await?;
    sqlx::query!(
        r#"UPDATE gm_notices SET summary = regexp_replace(summary, $2, '[erased]', 'gi')
           WHERE strpos(lower(summary), lower($1)) > 0"#,
        address,
        pattern
    )
    .execute(&mut *db)
    .await?;
    forget_subscriptions(db, &ids).await?;
    Ok(Erased {
        inbound_bodies,
        outbound_messages,
        queued_not_sent,
    })
}

async fn forget_subscriptions(db: &mut PgConnection, ids: &[i64]) -> Result<(), StoreError> {
    sqlx::query!(
        "DELETE FROM web_sessions WHERE subscriber_id = ANY($1)",
        ids
    )
    .execute(&mut *db)
    .await?;
    sqlx::query!("DELETE FROM login_links WHERE subscriber_id = ANY($1)", ids)
        .execute(&mut *db)
        .await?;
    sqlx::query!(
        "DELETE FROM password_failures WHERE subscriber_id = ANY($1)",
        ids
    )
    .execute(&mut *db)
    .await?;
    sqlx::query!("DELETE FROM standbys WHERE subscriber_id = ANY($1)", ids)
        .execute(&mut *db)
        .await?;
    sqlx::query!("DELETE FROM absences WHERE subscriber_id = ANY($1)", ids)
        .execute(&mut *db)
        .await?;
    // A letter printed in an issue is published; the others go.
    sqlx::query!(
        "DELETE FROM zine_letters WHERE subscriber_id = ANY($1) AND issue_id IS NULL",
        ids
    )
    .execute(&mut *db)
    .await?;
    sqlx::query!(
        r#"UPDATE subscribers SET email = 'erased-' || id || '@erased.invalid',
             display_name = 'Erased subscriber', password_hash = NULL, status = 'unsubscribed',
             postal = false
           WHERE id = ANY($1)"#,
        ids
    )
    .execute(&mut *db)
    .await?;
    Ok(())
}

/// `text` as a PostgreSQL regular expression matching itself: every character that is not a
/// letter or digit escaped (a backslash before a non-alphanumeric character is literal).
fn regex_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    for c in text.chars() {
        if !c.is_ascii_alphanumeric() {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_address_is_matched_literally() {
        assert_eq!(super::regex_literal("a.b+c@x.org"), r"a\.b\+c\@x\.org");
    }
}
