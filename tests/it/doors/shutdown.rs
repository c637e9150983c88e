//! SIGTERM: both doors stop taking connections and mail at the same moment, and the process
//! exits within the grace period even while a client is still slowly uploading.

use std::time::{Duration, Instant};

use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

use super::{Doors, smtp_reply, smtp_say};

#[tokio::test]
async fn sigterm_stops_both_doors_at_once_and_the_process_exits_within_the_grace() {
    let doors = Doors::start(&[
        ("ADMIRALTY_SHUTDOWN_GRACE_SECONDS", "1"),
        ("ADMIRALTY_HTTP_BODY_TIMEOUT_SECONDS", "300"),
        ("ADMIRALTY_HTTP_HEADER_TIMEOUT_SECONDS", "300"),
    ])
    .await;
    // An SMTP session in the middle of its conversation.
    let mut session = doors.smtp_connect().await;
    assert!(smtp_reply(&mut session).await.starts_with("220"));
    assert!(
        smtp_say(&mut session, "EHLO client.example")
            .await
            .starts_with("250")
    );
    // A slow upload: ten bytes every 200 ms of a 100,000-byte form.
    let mut upload = doors.http_connect().await;
    upload
        .write_all(
            b"POST /gm/login HTTP/1.1\r\nHost: doors\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100000\r\n\r\n",
        )
        .await
        .unwrap();
    let uploading = tokio::spawn(async move {
        while upload.write_all(b"name=aaaa&").await.is_ok() {
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    });
    tokio::time::sleep(Duration::from_millis(500)).await;

    let status = std::process::Command::new("kill")
        .args(["-TERM", &doors.pid().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let signalled = Instant::now();
    tokio::time::sleep(Duration::from_millis(300)).await;

    // SMTP takes no more mail from that moment: the open session is told so...
    let said = smtp_say(&mut session, "MAIL FROM:<fred@example.org>").await;
    assert!(said.starts_with("421"), "MAIL after SIGTERM: {said:?}");
    // ...and neither door takes a new connection.
    for port in [doors.smtp, doors.http] {
        if let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)).await {
            let greeted = tokio::time::timeout(Duration::from_millis(500), smtp_reply(&mut stream))
                .await
                .unwrap_or_default();
            assert!(
                !greeted.starts_with("220"),
                "port {port} still greets after SIGTERM"
            );
            let _ = stream
                .write_all(b"GET /healthz HTTP/1.1\r\nHost: d\r\n\r\n")
                .await;
            let answered =
                tokio::time::timeout(Duration::from_millis(500), smtp_reply(&mut stream))
                    .await
                    .unwrap_or_default();
            assert!(
                !answered.starts_with("HTTP/1.1 200"),
                "port {port} still serves after SIGTERM"
            );
        }
    }
    // The process is gone within the grace period, the slow upload notwithstanding.
    let Doors {
        mut serving, db, ..
    } = doors;
    let exited = tokio::time::timeout(Duration::from_secs(10), serving.child.wait()).await;
    let waited = signalled.elapsed();
    assert!(
        exited.is_ok(),
        "gm serve was still running {waited:?} after SIGTERM"
    );
    assert!(
        waited < Duration::from_secs(4),
        "gm serve took {waited:?} to stop with a 1 s grace"
    );
    uploading.abort();
    db.drop_database().await;
}
