//! Inbound SPF, DKIM and DMARC (issue 29 item 5): a DNS stub on loopback serves the records,
//! mail-auth checks every stored message before it is processed, and a message its From
//! domain disowns (DMARC fails under p=reject) is never answered, and its PASSWORD proves
//! nothing; sent to a reply address, whose token is a secret of its own, its orders are kept.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hickory_proto::op::{Message, MessageType};
use hickory_proto::rr::rdata::TXT;
use hickory_proto::rr::{RData, Record};
use mail_auth::common::crypto::Ed25519Key;
use mail_auth::common::headers::HeaderWriter;
use mail_auth::dkim::DkimSigner;
use server::inbox::{self, Settings, authenticate::MailAuthenticator};
use store::PgPool;
use store::testing::TestDatabase;
use tokio::net::UdpSocket;

use crate::helpers::trafalgar;
use crate::inbox::{DOMAIN, count, game, message, reply_address_of};

/// TXT records by name (lower case, no final dot).
type Zone = Arc<Mutex<BTreeMap<String, String>>>;

/// A DNS server on loopback answering TXT queries from `zone` (anything else: no answer).
async fn dns_stub(zone: Zone) -> SocketAddr {
    let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let address = socket.local_addr().unwrap();
    tokio::spawn(async move {
        let mut buffer = vec![0u8; 4096];
        loop {
            let Ok((n, peer)) = socket.recv_from(&mut buffer).await else {
                return;
            };
            let Ok(query) = Message::from_vec(&buffer[..n]) else {
                continue;
            };
            let mut answer = Message::new(
                query.metadata.id,
                MessageType::Response,
                query.metadata.op_code,
            );
            answer.metadata.recursion_desired = query.metadata.recursion_desired;
            answer.metadata.recursion_available = true;
            for question in &query.queries {
                answer.add_query(question.clone());
                let name = question.name().to_ascii().to_lowercase();
                let name = name.trim_end_matches('.');
                if let Some(text) = zone.lock().unwrap().get(name) {
                    answer.add_answer(Record::from_rdata(
                        question.name().clone(),
                        60,
                        RData::TXT(TXT::new(vec![text.clone()])),
                    ));
                }
            }
            let _ = socket.send_to(&answer.to_vec().unwrap(), peer).await;
        }
    });
    address
}

/// Inbox settings checking mail against the stub (a fresh resolver: nothing cached).
fn settings(resolver: SocketAddr) -> Settings {
    let mut settings = Settings::from(DOMAIN);
    settings.mail_auth =
        Some(MailAuthenticator::new(Some(resolver), DOMAIN, Duration::from_secs(5)).unwrap());
    settings
}

/// A message from Fred's subscribed address to Admiralty's plain address.
fn from_fred(id: &str, body: &str) -> Vec<u8> {
    format!(
        "From: Fred Bloggs <fred@example.org>\r\nTo: orders@{DOMAIN}\r\nMessage-ID: <{id}@example.org>\r\n\
         Subject: orders\r\nContent-Type: text/plain\r\n\r\n{body}"
    )
    .into_bytes()
}

async fn auth_of(pool: &PgPool, id: &str) -> (String, Option<String>, String, Option<String>) {
    sqlx::query_as(
        "SELECT status, auth_dkim, auth_dmarc, auth_dmarc_policy FROM inbound_messages \
         WHERE message_id = $1",
    )
    .bind(format!("{id}@example.org"))
    .fetch_one(pool)
    .await
    .map(
        |(status, dkim, dmarc, policy): (
            String,
            Option<String>,
            Option<String>,
            Option<String>,
        )| { (status, dkim, dmarc.unwrap_or_default(), policy) },
    )
    .unwrap()
}

#[tokio::test]
async fn a_from_whose_domain_publishes_dmarc_reject_is_never_answered_and_its_password_proves_nothing()
 {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let game = game(pool).await;
    let to = reply_address_of(pool, game, 1).await;
    let zone: Zone = Arc::default();
    zone.lock()
        .unwrap()
        .insert("_dmarc.example.org".into(), "v=DMARC1; p=none".into());
    let resolver = dns_stub(zone.clone()).await;
    let right = "correct horse battery staple";
    let at = trafalgar();

    // p=none changes nothing: the password is set, and orders with it are confirmed.
    let set = message("set-1", &to, "", &format!("PASSWORD {right}\r\n"));
    inbox::ingest(pool, &set, "pipe", at, settings(resolver))
        .await
        .unwrap();
    let body = format!("PASSWORD {right}\r\nG13, K19\r\n");
    inbox::ingest(
        pool,
        &from_fred("none-1", &body),
        "pipe",
        at,
        settings(resolver),
    )
    .await
    .unwrap();
    let (status, _, dmarc, policy) = auth_of(pool, "none-1").await;
    assert_eq!((status.as_str(), dmarc.as_str()), ("processed", "fail"));
    assert_eq!(policy.as_deref(), Some("none"));
    let answered = count(pool, "SELECT count(*) FROM outbound_messages").await;
    assert!(answered >= 1, "the orders are confirmed");
    assert_eq!(count(pool, "SELECT count(*) FROM orders").await, 1);

    // The same From under p=reject, with nothing that aligns (no DKIM, no SPF): forged.
    zone.lock()
        .unwrap()
        .insert("_dmarc.example.org".into(), "v=DMARC1; p=reject".into());
    let body = format!("PASSWORD {right}\r\nK20\r\n");
    inbox::ingest(
        pool,
        &from_fred("reject-1", &body),
        "pipe",
        at,
        settings(resolver),
    )
    .await
    .unwrap();
    let (status, dkim, dmarc, policy) = auth_of(pool, "reject-1").await;
    assert_eq!(
        (
            status.as_str(),
            dkim.as_deref(),
            dmarc.as_str(),
            policy.as_deref()
        ),
        ("dropped", Some("none"), "fail", Some("reject"))
    );
    let error: String = sqlx::query_scalar(
        "SELECT error FROM inbound_messages WHERE message_id = 'reject-1@example.org'",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    assert!(error.contains("DMARC"), "{error}");
    assert_eq!(
        count(pool, "SELECT count(*) FROM outbound_messages").await,
        answered,
        "no answer to a forged From"
    );
    let orders: Vec<String> =
        sqlx::query_scalar("SELECT raw_text FROM orders WHERE superseded_at IS NULL")
            .fetch_all(pool)
            .await
            .unwrap();
    assert_eq!(orders, ["G13, K19"], "the forged orders are not stored");

    // The same disowned From, but to the reply address (a forwarder that broke the signature,
    // say): the token is a secret of its own, so the orders are kept, and nothing is answered.
    let forwarded = message("reject-2", &to, "", "K22\r\n");
    inbox::ingest(pool, &forwarded, "pipe", at, settings(resolver))
        .await
        .unwrap();
    let (status, _, dmarc, _) = auth_of(pool, "reject-2").await;
    assert_eq!((status.as_str(), dmarc.as_str()), ("processed", "fail"));
    assert_eq!(
        count(pool, "SELECT count(*) FROM outbound_messages").await,
        answered,
        "no answer to a disowned From, even with the reply address"
    );
    let orders: Vec<String> =
        sqlx::query_scalar("SELECT raw_text FROM orders WHERE superseded_at IS NULL")
            .fetch_all(pool)
            .await
            .unwrap();
    assert_eq!(orders, ["K22"], "orders to the reply address are kept");
    assert_eq!(
        count(
            pool,
            "SELECT count(*) FROM audit_log WHERE action = 'inbound.unanswered'"
        )
        .await,
        1
    );

    // Signed by example.org's key, the same mail passes DKIM, so DMARC, and is acted on.
    let pkcs8 = Ed25519Key::generate_pkcs8().unwrap();
    let key = Ed25519Key::from_pkcs8_der(&pkcs8).unwrap();
    let public = base64_of(&key.public_key());
    zone.lock().unwrap().insert(
        "s1._domainkey.example.org".into(),
        format!("v=DKIM1; k=ed25519; p={public}"),
    );
    let unsigned = from_fred("signed-1", &format!("PASSWORD {right}\r\nK21\r\n"));
    let signature = DkimSigner::from_key(key)
        .domain("example.org")
        .selector("s1")
        .headers(["From", "To", "Subject", "Message-ID"])
        .sign(&unsigned)
        .unwrap();
    let mut signed = signature.to_header().into_bytes();
    signed.extend_from_slice(&unsigned);
    inbox::ingest(pool, &signed, "pipe", at, settings(resolver))
        .await
        .unwrap();
    let (status, dkim, dmarc, _) = auth_of(pool, "signed-1").await;
    assert_eq!(
        (status.as_str(), dkim.as_deref(), dmarc.as_str()),
        ("processed", Some("pass"), "pass")
    );
    assert_eq!(
        count(pool, "SELECT count(*) FROM outbound_messages").await,
        answered + 1
    );
    db.drop_database().await;
}

#[tokio::test]
async fn with_the_checks_off_a_message_is_stored_as_not_checked() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    inbox::ingest(
        pool,
        &from_fred("off-1", "HELP\r\n"),
        "pipe",
        trafalgar(),
        DOMAIN,
    )
    .await
    .unwrap();
    let checked: Option<chrono::DateTime<chrono::Utc>> =
        sqlx::query_scalar("SELECT auth_checked_at FROM inbound_messages")
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(checked, None);
    assert_eq!(
        count(
            pool,
            "SELECT count(*) FROM inbound_messages WHERE status <> 'new'"
        )
        .await,
        1
    );
    db.drop_database().await;
}

fn base64_of(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}
