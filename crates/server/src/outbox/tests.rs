use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::Tls;
use lettre::transport::smtp::extension::ClientId;
use store::outbox::Headers;

use super::relay::{Server, open_socket};
use super::*;

/// A relay that answers every command with success and keeps what it was sent, from
/// MAIL to the end of the message.
async fn recording_relay() -> (u16, tokio::task::JoinHandle<Vec<u8>>) {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let relay = tokio::spawn(async move {
        let (socket, _) = listener.accept().await.unwrap();
        let (read, mut write) = socket.into_split();
        let mut read = BufReader::new(read);
        write.write_all(b"220 relay ESMTP\r\n").await.unwrap();
        let mut seen = Vec::new();
        let mut in_data = false;
        let mut line_began = true;
        loop {
            let mut line = Vec::new();
            if read.read_until(b'\n', &mut line).await.unwrap() == 0 {
                return seen;
            }
            let upper = String::from_utf8_lossy(&line).to_ascii_uppercase();
            let reply: &[u8] = if in_data {
                seen.extend_from_slice(&line);
                // The end is CRLF . CRLF: a `.` line after a bare LF is still data.
                let after_crlf = std::mem::replace(&mut line_began, line.ends_with(b"\r\n"));
                if !(after_crlf && line == b".\r\n") {
                    continue;
                }
                in_data = false;
                b"250 queued\r\n"
            } else if upper.starts_with("EHLO") {
                b"250-relay\r\n250-8BITMIME\r\n250 SMTPUTF8\r\n"
            } else if upper.starts_with("QUIT") {
                write.write_all(b"221 bye\r\n").await.unwrap();
                return seen;
            } else {
                seen.extend_from_slice(&line);
                if upper.starts_with("DATA") {
                    in_data = true;
                    line_began = true;
                    b"354 go on\r\n"
                } else {
                    b"250 ok\r\n"
                }
            };
            write.write_all(reply).await.unwrap();
        }
    });
    (port, relay)
}

async fn on_the_wire(message: &[u8], ours: bool) -> Vec<u8> {
    let (port, relay) = recording_relay().await;
    let socket = open_socket("127.0.0.1", port).await.unwrap();
    let mut connection =
        AsyncSmtpConnection::connect_with_transport(Box::new(socket), &ClientId::default())
            .await
            .unwrap();
    let from: Address = "gm@example.org".parse().unwrap();
    let to: Address = "player@example.org".parse().unwrap();
    let envelope = lettre::address::Envelope::new(Some(from.clone()), vec![to.clone()]).unwrap();
    if ours {
        let outcomes = transact(&mut connection, &from, &[to], message).await;
        assert!(matches!(outcomes.as_slice(), [Ok(())]));
    } else {
        connection.send(&envelope, message).await.unwrap();
    }
    connection.quit().await.unwrap();
    relay.await.unwrap()
}

#[tokio::test]
async fn a_transaction_puts_the_same_bytes_on_the_wire_as_lettre() {
    let mut messages: Vec<Vec<u8>> = [
        "Subject: x\r\n\r\nplain body\r\n",
        ".starts with a dot\r\n",
        "Subject: x\r\n\r\n.\r\n..\r\nline\r\n.end\r\n.",
        "bare\n.newline dot\r.carriage dot\r\n\r\n.",
        "8 bit: Fähnrich, café\r\n.Æ\r\n",
        "",
        ".",
    ]
    .iter()
    .map(|m| m.as_bytes().to_vec())
    .collect();
    // And a few hundred mixtures of the bytes that matter, from a fixed seed.
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    for _ in 0..200 {
        let mut message = Vec::new();
        for _ in 0..(state % 40) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let pieces: [&[u8]; 6] = [b".", b"\r", b"\n", b"\r\n", b"a", b"\r\n."];
            message.extend_from_slice(pieces[usize::try_from(state % 6).unwrap()]);
        }
        messages.push(message);
    }
    for message in messages {
        let lettres = on_the_wire(&message, false).await;
        let ours = on_the_wire(&message, true).await;
        assert_eq!(
            String::from_utf8_lossy(&ours),
            String::from_utf8_lossy(&lettres),
            "message {:?}",
            String::from_utf8_lossy(&message)
        );
    }
}

fn leased(id: i64, body: Option<i64>, message_id: &str, headers: Headers) -> Leased {
    Leased {
        id: (id + 1).to_string().parse().unwrap(),
        message_id: message_id.into(),
        to_address: format!("reader{id}@example.org"),
        subject: "Gazette: turn 3 report".into(),
        body_text: String::new(),
        body_html: None,
        headers,
        attempts: 0,
        created_at: DateTime::UNIX_EPOCH,
        shared_body_id: body.map(|body| body.to_string().parse().unwrap()),
    }
}

#[test]
fn a_reports_copies_go_a_hundred_to_a_transaction_and_personal_mail_alone() {
    let mut batch = Vec::new();
    for id in 0..250 {
        batch.push(leased(id, Some(1), "<report.3@z>", Headers::default()));
        if id % 100 == 7 {
            // Another report's copies, in between.
            batch.push(leased(
                1000 + id,
                Some(2),
                "<report.4@z>",
                Headers::default(),
            ));
        }
    }
    // A shared body with something of its own is personal.
    batch.push(leased(
        2000,
        Some(1),
        "<report.3@z>",
        Headers::reply_to("orders+t@z".into()),
    ));
    batch.push(leased(2001, None, "<confirm.1@z>", Headers::default()));
    let mut with_text = leased(2002, Some(1), "<report.3@z>", Headers::default());
    with_text.body_text = "P.S. your own line".into();
    batch.push(with_text);

    let sizes: Vec<(usize, i64)> = Transaction::group(batch, &HashMap::new())
        .iter()
        .map(|t| {
            let first = t.messages.first().unwrap().id.to_string();
            (t.messages.len(), first.parse::<i64>().unwrap() - 1)
        })
        .collect();
    assert_eq!(
        sizes,
        [
            (100, 0),
            (3, 1007),
            (100, 100),
            (50, 200),
            (1, 2000),
            (1, 2001),
            (1, 2002)
        ]
    );
}

#[tokio::test]
async fn refused_credentials_put_the_mail_off_rather_than_fail_it() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        let (socket, _) = listener.accept().await.unwrap();
        let (read, mut write) = socket.into_split();
        let mut lines = BufReader::new(read).lines();
        write.write_all(b"220 relay ESMTP\r\n").await.unwrap();
        while let Ok(Some(line)) = lines.next_line().await {
            let reply: &[u8] = if line.to_ascii_uppercase().starts_with("EHLO") {
                b"250-relay\r\n250 AUTH PLAIN LOGIN\r\n"
            } else if line.to_ascii_uppercase().starts_with("AUTH") {
                b"535 5.7.8 Authentication credentials invalid\r\n"
            } else {
                b"221 bye\r\n"
            };
            if write.write_all(reply).await.is_err() {
                break;
            }
        }
    });
    let server = Server::from_url(&format!("smtp://gm:wrong@127.0.0.1:{port}")).unwrap();
    match server.connect().await {
        Err(Failure::Temporary(error)) => assert!(error.contains("535"), "{error}"),
        Err(Failure::Permanent(error)) => panic!("given up: {error}"),
        Ok(_) => panic!("logged in with refused credentials"),
    }
}

#[tokio::test]
async fn the_relay_socket_has_nagle_off() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let socket = open_socket("127.0.0.1", port).await.unwrap();
    assert!(socket.nodelay().unwrap());
}

#[test]
fn the_relay_url_is_read_as_lettre_reads_it() {
    let server = Server::from_url("smtp://relay.example.org").unwrap();
    assert_eq!(
        (server.host.as_str(), server.port),
        ("relay.example.org", 25)
    );
    assert!(matches!(server.tls, Tls::None));
    assert!(server.credentials.is_none());

    let server =
        Server::from_url("smtp://us%40er:p%3Ass@relay.example.org/gm.example.org?tls=required")
            .unwrap();
    assert_eq!(server.port, 587);
    assert!(matches!(server.tls, Tls::Required(_)));
    assert_eq!(
        server.credentials,
        Some(Credentials::new("us@er".into(), "p:ss".into()))
    );
    assert_eq!(server.hello_name, ClientId::Domain("gm.example.org".into()));

    let server = Server::from_url("smtp://relay.example.org:2525?tls=opportunistic").unwrap();
    assert_eq!(server.port, 2525);
    assert!(matches!(server.tls, Tls::Opportunistic(_)));

    let server = Server::from_url("smtps://[::1]").unwrap();
    assert_eq!((server.host.as_str(), server.port), ("::1", 465));
    assert!(matches!(server.tls, Tls::Wrapper(_)));

    for bad in [
        "http://relay.example.org",
        "smtp://relay?tls=maybe",
        "smtp://",
        "relay:25",
    ] {
        assert!(Server::from_url(bad).is_err(), "{bad}");
    }
}
