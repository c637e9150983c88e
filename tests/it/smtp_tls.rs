//! STARTTLS on the SMTP listener and its junk-command limit (issue 29 item 6), with a real
//! client: Python's smtplib doing STARTTLS against a self-signed certificate made here.

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use server::smtp::{self, SmtpSettings, TlsCertificates};
use server::{Clock, ManualClock};
use sha2::{Digest, Sha256};
use store::PgPool;
use store::testing::TestDatabase;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;

use crate::helpers::trafalgar;
use crate::inbox::DOMAIN;

/// A fresh self-signed certificate written to `dir`; returns the SHA-256 of its DER.
fn write_certificate(dir: &Path) -> String {
    let made = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    std::fs::write(dir.join("cert.pem"), made.cert.pem()).unwrap();
    std::fs::write(dir.join("key.pem"), made.signing_key.serialize_pem()).unwrap();
    hex::encode(Sha256::digest(made.cert.der()))
}

/// The listener alone (no workers: these tests read what was stored).
async fn start(pool: &PgPool, settings: SmtpSettings) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let clock: Arc<dyn Clock> = Arc::new(ManualClock::new(trafalgar()));
    tokio::spawn(smtp::run(
        listener,
        pool.clone(),
        clock,
        settings,
        Arc::new(Notify::new()),
    ));
    address
}

fn tls_settings(dir: &Path, require: bool) -> SmtpSettings {
    let mut settings = SmtpSettings::new(DOMAIN, 1_000_000);
    settings.tls =
        Some(TlsCertificates::load(&dir.join("cert.pem"), &dir.join("key.pem")).unwrap());
    settings.require_tls = require;
    settings
}

/// smtplib: EHLO, STARTTLS when `tls`, EHLO again, and one message; prints what it saw.
async fn smtplib(address: &str, tls: bool, raw: &[u8]) -> String {
    let (host, port) = address.rsplit_once(':').unwrap();
    let script = r#"
import hashlib, smtplib, ssl, sys
host, port, tls = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
raw = sys.stdin.buffer.read()
try:
    with smtplib.SMTP(host, port, timeout=30) as client:
        client.ehlo("client.example")
        print("offers starttls:", client.has_extn("starttls"))
        if tls:
            context = ssl.create_default_context()
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
            client.starttls(context=context)
            print("peer:", hashlib.sha256(client.sock.getpeercert(binary_form=True)).hexdigest())
            client.ehlo("client.example")
            print("offers starttls after:", client.has_extn("starttls"))
        client.sendmail("fred@example.org", ["orders@zine.example.org"], raw)
    print("sent")
except smtplib.SMTPException as error:
    print("refused:", error)
"#;
    let args = [
        "-c".to_owned(),
        script.to_owned(),
        host.to_owned(),
        port.to_owned(),
        if tls { "1" } else { "0" }.to_owned(),
    ];
    let raw = raw.to_vec();
    tokio::task::spawn_blocking(move || {
        let mut child = Command::new("python3")
            .args(&args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("python3 is needed for the SMTP client");
        use std::io::Write;
        child.stdin.take().unwrap().write_all(&raw).unwrap();
        String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap()
    })
    .await
    .unwrap()
}

fn raw(id: &str) -> Vec<u8> {
    format!(
        "From: Fred <fred@example.org>\r\nTo: orders@{DOMAIN}\r\nMessage-ID: <{id}@example.org>\r\n\
         Subject: orders\r\n\r\nG13\r\n"
    )
    .into_bytes()
}

#[tokio::test]
async fn a_message_sent_over_starttls_is_stored_as_such_and_a_renewed_certificate_serves_the_next_session()
 {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let dir = tempdir("renew");
    let first = write_certificate(&dir);
    let address = start(pool, tls_settings(&dir, false)).await;

    let said = smtplib(&address, true, &raw("tls-1")).await;
    assert!(said.contains("offers starttls: True"), "{said}");
    assert!(said.contains(&format!("peer: {first}")), "{said}");
    // RFC 3207: once TLS is on, STARTTLS is offered no more.
    assert!(said.contains("offers starttls after: False"), "{said}");
    assert!(said.ends_with("sent\n"), "{said}");
    let (over_tls, stored): (Option<bool>, Vec<u8>) =
        sqlx::query_as("SELECT over_tls, raw FROM inbound_messages")
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(over_tls, Some(true));
    let stored = String::from_utf8_lossy(&stored);
    assert!(stored.contains("with ESMTPS;"), "{stored}");

    // The certificate renewed on disk: the next session gets it, with no restart.
    let renewed = write_certificate(&dir);
    assert_ne!(first, renewed);
    let said = smtplib(&address, true, &raw("tls-2")).await;
    assert!(said.contains(&format!("peer: {renewed}")), "{said}");

    // A broken renewal keeps the certificate in use.
    std::fs::write(dir.join("cert.pem"), "not a certificate").unwrap();
    let said = smtplib(&address, true, &raw("tls-3")).await;
    assert!(said.contains(&format!("peer: {renewed}")), "{said}");

    // In clear, the flag says so.
    let said = smtplib(&address, false, &raw("clear-1")).await;
    assert!(said.ends_with("sent\n"), "{said}");
    let clear: Option<bool> = sqlx::query_scalar(
        "SELECT over_tls FROM inbound_messages WHERE message_id = 'clear-1@example.org'",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!(clear, Some(false));
    std::fs::remove_dir_all(&dir).unwrap();
    db.drop_database().await;
}

#[tokio::test]
async fn with_tls_required_mail_in_clear_is_refused() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let dir = tempdir("require");
    write_certificate(&dir);
    let address = start(pool, tls_settings(&dir, true)).await;
    let said = smtplib(&address, false, &raw("clear-2")).await;
    assert!(
        said.contains("530") && said.contains("Must issue a STARTTLS command first"),
        "{said}"
    );
    let said = smtplib(&address, true, &raw("tls-4")).await;
    assert!(said.ends_with("sent\n"), "{said}");
    let stored: i64 = sqlx::query_scalar("SELECT count(*) FROM inbound_messages")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(stored, 1);
    std::fs::remove_dir_all(&dir).unwrap();
    db.drop_database().await;
}

/// A raw client: reads replies line by line (smtplib hides what these tests look at).
struct Raw {
    read: BufReader<tokio::net::tcp::OwnedReadHalf>,
    write: tokio::net::tcp::OwnedWriteHalf,
}

impl Raw {
    async fn connect(address: &str) -> Raw {
        let (read, write) = TcpStream::connect(address).await.unwrap().into_split();
        let mut raw = Raw {
            read: BufReader::new(read),
            write,
        };
        raw.reply().await;
        raw
    }

    /// The whole reply (every line of a multi-line one), or "" when the server closed.
    async fn reply(&mut self) -> String {
        let mut all = String::new();
        loop {
            let mut line = String::new();
            if self.read.read_line(&mut line).await.unwrap() == 0 {
                return all;
            }
            all.push_str(&line);
            if line.as_bytes().get(3) != Some(&b'-') {
                return all;
            }
        }
    }

    async fn say(&mut self, line: &str) -> String {
        self.write.write_all(line.as_bytes()).await.unwrap();
        self.reply().await
    }
}

#[tokio::test]
async fn the_101st_command_that_makes_no_progress_closes_the_session() {
    let db = TestDatabase::migrated().await;
    let address = start(&db.pool, SmtpSettings::new(DOMAIN, 1_000_000)).await;
    let mut client = Raw::connect(&address).await;
    assert!(
        client
            .say("EHLO client.example\r\n")
            .await
            .starts_with("250")
    );
    for n in 0..100 {
        let command = ["NOOP\r\n", "RSET\r\n", "VRFY fred\r\n", "HELP\r\n"][n % 4];
        let reply = client.say(command).await;
        assert!(
            !reply.starts_with("421"),
            "command {n} ({command:?}): {reply}"
        );
    }
    let reply = client.say("NOOP\r\n").await;
    assert!(reply.starts_with("421 4.7.0"), "{reply}");
    assert_eq!(client.reply().await, "", "the session must be closed");
    db.drop_database().await;
}

#[tokio::test]
async fn commands_sent_with_starttls_before_the_handshake_are_refused() {
    let db = TestDatabase::migrated().await;
    let dir = tempdir("inject");
    write_certificate(&dir);
    let address = start(&db.pool, tls_settings(&dir, false)).await;
    let mut client = Raw::connect(&address).await;
    let ehlo = client.say("EHLO client.example\r\n").await;
    assert!(ehlo.contains("STARTTLS"), "{ehlo}");
    // CVE-2011-0411: a command injected in clear after STARTTLS must not count after it.
    let reply = client
        .say("STARTTLS\r\nMAIL FROM:<forged@example.org>\r\n")
        .await;
    assert!(reply.starts_with("554"), "{reply}");
    assert_eq!(client.reply().await, "");
    std::fs::remove_dir_all(&dir).unwrap();
    db.drop_database().await;
}

fn tempdir(name: &str) -> std::path::PathBuf {
    let dir =
        std::env::temp_dir().join(format!("admiralty-smtp-tls-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A private Postfix instance (its own configuration, queue and port on loopback; never the
/// system's) relaying everything to `relay` with `smtp_tls_security_level = encrypt`.
struct Postfix {
    dir: std::path::PathBuf,
    port: u16,
}

impl Postfix {
    fn start(relay: &str) -> Postfix {
        let dir = tempdir("postfix");
        let port = crate::outbox::free_port();
        for sub in ["conf", "queue", "data"] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
        }
        let d = dir.display();
        let (relay_host, relay_port) = relay.rsplit_once(':').unwrap();
        let main_cf = format!(
            "compatibility_level = 3.6\nqueue_directory = {d}/queue\ndata_directory = {d}/data\n\
             mail_owner = postfix\nsetgid_group = postdrop\nmyhostname = sender.example\n\
             mydomain = sender.example\nmyorigin = example.org\nmydestination =\n\
             local_recipient_maps =\nalias_maps =\nalias_database =\n\
             inet_interfaces = 127.0.0.1\ninet_protocols = ipv4\nrelayhost = [{relay_host}]:{relay_port}\n\
             smtp_tls_security_level = encrypt\nsmtp_tls_loglevel = 1\n\
             smtp_dns_support_level = disabled\nmynetworks = 127.0.0.0/8\n\
             smtpd_relay_restrictions = permit_mynetworks, reject\n\
             maillog_file_prefixes = {d}\nmaillog_file = {d}/maillog\n"
        );
        std::fs::write(dir.join("conf/main.cf"), main_cf).unwrap();
        let services = [
            "pickup unix n - n 60 1 pickup",
            "cleanup unix n - n - 0 cleanup",
            "qmgr unix n - n 300 1 qmgr",
            "tlsmgr unix - - n 1000? 1 tlsmgr",
            "rewrite unix - - n - - trivial-rewrite",
            "bounce unix - - n - 0 bounce",
            "defer unix - - n - 0 bounce",
            "trace unix - - n - 0 bounce",
            "verify unix - - n - 1 verify",
            "flush unix n - n 1000? 0 flush",
            "proxymap unix - - n - - proxymap",
            "smtp unix - - n - - smtp",
            "relay unix - - n - - smtp",
            "showq unix n - n - - showq",
            "error unix - - n - - error",
            "retry unix - - n - - error",
            "discard unix - - n - - discard",
            "anvil unix - - n - 1 anvil",
            "scache unix - - n - 1 scache",
            "postlog unix-dgram n - n - 1 postlogd",
        ];
        let master_cf = format!(
            "127.0.0.1:{port} inet n - n - - smtpd\n{}\n",
            services.join("\n")
        );
        std::fs::write(dir.join("conf/master.cf"), master_cf).unwrap();
        // Postfix's daemons write here as the postfix user.
        let chown = Command::new("chown")
            .args(["postfix", &format!("{d}/data")])
            .status()
            .expect("chown");
        assert!(chown.success(), "the Postfix test must run as root");
        let postfix = Postfix { dir, port };
        let started = postfix.command("start");
        assert!(started.status.success(), "postfix start: {started:?}");
        postfix
    }

    fn command(&self, verb: &str) -> std::process::Output {
        Command::new("postfix")
            .args(["-c", &format!("{}/conf", self.dir.display()), verb])
            .output()
            .expect("Debian's postfix is needed (scripts/lib/postfix_peer.sh installs it)")
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("maillog")).unwrap_or_default()
    }
}

impl Drop for Postfix {
    fn drop(&mut self) {
        let _ = self.command("stop");
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[tokio::test]
async fn postfix_requiring_encryption_delivers_to_the_listener_over_starttls() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let dir = tempdir("postfix-cert");
    write_certificate(&dir);
    let address = start(pool, tls_settings(&dir, true)).await;
    let postfix = Postfix::start(&address);

    // Injected through Postfix's own SMTP server; Postfix relays it (or defers it, never in
    // clear: `encrypt`).
    let inject = format!("127.0.0.1:{}", postfix.port);
    let mut said = String::new();
    for _ in 0..50 {
        said = smtplib(&inject, false, &raw("postfix-1")).await;
        if said.ends_with("sent\n") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(said.ends_with("sent\n"), "{said}");
    let started = std::time::Instant::now();
    let over_tls = loop {
        let row: Option<Option<bool>> = sqlx::query_scalar(
            "SELECT over_tls FROM inbound_messages WHERE message_id = 'postfix-1@example.org'",
        )
        .fetch_optional(pool)
        .await
        .unwrap();
        if let Some(over_tls) = row {
            break over_tls;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(60),
            "Postfix did not deliver: {}",
            postfix.log()
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    };
    assert_eq!(over_tls, Some(true));
    let log = postfix.log();
    assert!(log.contains("TLS connection established to"), "{log}");
    assert!(log.contains("status=sent"), "{log}");
    drop(postfix);
    std::fs::remove_dir_all(&dir).unwrap();
    db.drop_database().await;
}

#[tokio::test]
async fn a_client_that_stalls_in_the_handshake_is_cut_at_the_idle_limit() {
    let db = TestDatabase::migrated().await;
    let dir = tempdir("stall");
    write_certificate(&dir);
    let mut settings = tls_settings(&dir, false);
    settings.limits.idle_timeout = std::time::Duration::from_secs(1);
    let address = start(&db.pool, settings).await;
    let mut client = Raw::connect(&address).await;
    client.say("EHLO client.example\r\n").await;
    assert!(client.say("STARTTLS\r\n").await.starts_with("220"));
    // No ClientHello: the listener closes the connection once the idle limit has passed.
    let started = std::time::Instant::now();
    let closed = tokio::time::timeout(std::time::Duration::from_secs(10), client.reply()).await;
    assert_eq!(closed.as_deref(), Ok(""), "the connection must be closed");
    assert!(started.elapsed() >= std::time::Duration::from_millis(900));
    std::fs::remove_dir_all(&dir).unwrap();
    db.drop_database().await;
}
