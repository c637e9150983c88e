use std::net::SocketAddr;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use server::config::BaseUrl;
use server::{AppState, ManualClock};
use store::testing::TestDatabase;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

/// A moment for tests that need one.
pub fn trafalgar() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("1805-10-21T11:45:00Z")
        .unwrap()
        .with_timezone(&Utc)
}

/// The app, served over real HTTP on a free port, against a fresh database.
pub struct TestApp {
    pub address: SocketAddr,
    pub db: TestDatabase,
    /// The app's clock: tests of deadlines and timestamps move it.
    #[allow(dead_code)]
    pub clock: Arc<ManualClock>,
    pub http: reqwest::Client,
    stop: Option<oneshot::Sender<()>>,
    server: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
}

impl TestApp {
    pub async fn spawn() -> TestApp {
        let db = TestDatabase::migrated().await;
        let pool = db.pool.clone();
        TestApp::spawn_with_pool(db, pool).await
    }

    /// Serves with `pool` (which may point elsewhere than `db`, e.g. at a dead server).
    pub async fn spawn_with_pool(db: TestDatabase, pool: store::PgPool) -> TestApp {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let clock = Arc::new(ManualClock::new(trafalgar()));
        let base_url = BaseUrl::parse(&format!("http://{address}")).unwrap();
        let state = AppState::new(pool, clock.clone(), base_url);
        let (stop, stopped) = oneshot::channel::<()>();
        let server = tokio::spawn(server::serve(listener, state, async {
            let _ = stopped.await;
        }));
        let http = reqwest::Client::builder()
            .timeout(std::time::Duration::from_secs(20))
            .build()
            .unwrap();
        TestApp {
            address,
            db,
            clock,
            http,
            stop: Some(stop),
            server: Some(server),
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.address)
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.http.get(self.url(path)).send().await.unwrap()
    }

    /// Shuts the server down gracefully and drops the database.
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(server) = self.server.take() {
            server.await.unwrap().unwrap();
        }
        self.db.drop_database().await;
    }
}

/// A fixed, distinct byte stream for `server::turns::Entropy`: tests must not depend on the
/// operating system's generator.
pub struct Counter(pub u8);

impl server::turns::Entropy for Counter {
    fn fill(&mut self, bytes: &mut [u8]) {
        for byte in bytes {
            self.0 = self.0.wrapping_add(37);
            *byte = self.0;
        }
    }
}

/// A row id read raw from the database (tests query rows directly), as its typed id.
pub fn id<T: std::str::FromStr>(raw: i64) -> T
where
    T::Err: std::fmt::Debug,
{
    raw.to_string().parse().unwrap()
}
