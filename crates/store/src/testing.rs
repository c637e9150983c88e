//! Test support (feature `testing`): a fresh database per test, created on the cluster that
//! `./scripts/test` starts, so tests run in parallel without seeing each other's rows.

// A helper that cannot set up the test's database has nothing better to do than fail the test
// with a clear message.
#![allow(clippy::panic, clippy::expect_used)]

use sqlx::{AssertSqlSafe, Connection, PgConnection};

use crate::PgPool;

/// Names the variable holding the admin URL of the test cluster (any database on it; the
/// role must be allowed to create databases).
pub const ADMIN_URL_VAR: &str = "ADMIRALTY_TEST_DATABASE_URL";

/// A database of its own for one test.
pub struct TestDatabase {
    pub pool: PgPool,
    /// URL of this database, e.g. for a child `gm` process.
    pub url: String,
    pub name: String,
    admin_url: String,
}

impl TestDatabase {
    /// Creates a fresh database and applies the migrations.
    pub async fn migrated() -> TestDatabase {
        let db = TestDatabase::empty().await;
        crate::migrate(&db.pool)
            .await
            .unwrap_or_else(|e| panic!("migrating test database {}: {e:?}", db.name));
        db
    }

    /// Creates a fresh database with no tables at all.
    pub async fn empty() -> TestDatabase {
        let admin_url = admin_url();
        let name = format!("test_{}", uuid::Uuid::new_v4().simple());
        let mut admin = connect_admin(&admin_url).await;
        sqlx::query(AssertSqlSafe(format!("CREATE DATABASE \"{name}\"")))
            .execute(&mut admin)
            .await
            .unwrap_or_else(|e| panic!("creating test database {name}: {e}"));
        let _ = admin.close().await;
        let url = with_database(&admin_url, &name);
        let pool = crate::connect(&url, 5)
            .await
            .unwrap_or_else(|e| panic!("connecting to test database {name}: {e:?}"));
        TestDatabase {
            pool,
            url,
            name,
            admin_url,
        }
    }

    /// Drops the database. Optional: `./scripts/test` starts each run on a fresh cluster, so a
    /// test that fails before this leaves nothing behind for long.
    pub async fn drop_database(self) {
        self.pool.close().await;
        let mut admin = connect_admin(&self.admin_url).await;
        sqlx::query(AssertSqlSafe(format!(
            "DROP DATABASE IF EXISTS \"{}\" WITH (FORCE)",
            self.name
        )))
        .execute(&mut admin)
        .await
        .unwrap_or_else(|e| panic!("dropping test database {}: {e}", self.name));
        let _ = admin.close().await;
    }
}

/// The admin URL from the environment, or a failure telling how to get one: tests that need
/// a database must not pass silently without one.
pub fn admin_url() -> String {
    match std::env::var(ADMIN_URL_VAR) {
        Ok(url) if !url.trim().is_empty() => url,
        _ => panic!(
            "{ADMIN_URL_VAR} is not set, and this test needs PostgreSQL. Run the suite with \
             ./scripts/test, which starts a private cluster and sets it; or set {ADMIN_URL_VAR} \
             to the URL of a role that may CREATE DATABASE."
        ),
    }
}

async fn connect_admin(admin_url: &str) -> PgConnection {
    PgConnection::connect(admin_url)
        .await
        .unwrap_or_else(|e| panic!("connecting to {ADMIN_URL_VAR} ({}): {e}", redact(admin_url)))
}

/// `url` with its database (the path) replaced by `database`; the query string is kept.
pub fn with_database(url: &str, database: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (url, None),
    };
    let authority_start = base.find("://").map_or(0, |i| i + 3);
    let path_start = base[authority_start..]
        .find('/')
        .map_or(base.len(), |i| authority_start + i);
    let mut out = format!("{}/{database}", &base[..path_start]);
    if let Some(query) = query {
        out.push('?');
        out.push_str(query);
    }
    out
}

/// `url` without its password, for messages.
pub fn redact(url: &str) -> String {
    let Some(scheme_end) = url.find("://").map(|i| i + 3) else {
        return url.to_owned();
    };
    let rest = &url[scheme_end..];
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => match rest[..at].split_once(':') {
            Some((user, _password)) => format!("{}{user}:***{}", &url[..scheme_end], &rest[at..]),
            None => url.to_owned(),
        },
        None => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_the_database_in_a_url() {
        assert_eq!(
            with_database("postgres://u:p@h:5/postgres", "t1"),
            "postgres://u:p@h:5/t1"
        );
        assert_eq!(
            with_database("postgres://u:p@h:5", "t1"),
            "postgres://u:p@h:5/t1"
        );
        assert_eq!(
            with_database("postgres://h/db?sslmode=disable", "t1"),
            "postgres://h/t1?sslmode=disable"
        );
    }

    #[test]
    fn redacts_passwords() {
        assert_eq!(
            redact("postgres://u:secret@h:5/db"),
            "postgres://u:***@h:5/db"
        );
        assert_eq!(redact("postgres://u@h/db"), "postgres://u@h/db");
        assert_eq!(redact("postgres://h/db"), "postgres://h/db");
    }
}
