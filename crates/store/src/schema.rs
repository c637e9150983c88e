//! Whether the database's schema is the one this binary was built for: the readiness probe's
//! question. The answer compares `_sqlx_migrations` with the embedded [`crate::MIGRATOR`] the
//! way sqlx's migrator does (version and checksum), without changing anything.

use std::collections::BTreeMap;

use crate::{MIGRATOR, StoreError};

/// How the applied migrations differ from the embedded ones; [`SchemaCheck::Current`] when
/// they do not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SchemaCheck {
    Current,
    /// No migration was ever applied (no `_sqlx_migrations` table).
    Unmigrated,
    /// A migration failed half way (sqlx marks it unsuccessful): the schema is in between.
    Dirty {
        version: i64,
    },
    /// Embedded migrations the database has not applied (a `gm migrate` is due).
    Missing {
        versions: Vec<i64>,
    },
    /// Applied migrations this binary does not know (a newer binary migrated the database).
    Unknown {
        versions: Vec<i64>,
    },
    /// Applied migrations whose text differs from the embedded one.
    Changed {
        versions: Vec<i64>,
    },
}

impl SchemaCheck {
    /// A short plain reason, for an operator reading a probe's answer.
    pub fn reason(&self) -> String {
        let list = |versions: &[i64]| {
            versions
                .iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self {
            SchemaCheck::Current => "schema current".to_owned(),
            SchemaCheck::Unmigrated => "no migration applied: run `gm migrate`".to_owned(),
            SchemaCheck::Dirty { version } => {
                format!("migration {version} failed part way: repair the database")
            }
            SchemaCheck::Missing { versions } => {
                format!(
                    "migrations not applied: {}: run `gm migrate`",
                    list(versions)
                )
            }
            SchemaCheck::Unknown { versions } => format!(
                "migrations applied that this binary does not know: {}: run the newer binary",
                list(versions)
            ),
            SchemaCheck::Changed { versions } => format!(
                "applied migrations differ from this binary's: {}",
                list(versions)
            ),
        }
    }
}

/// Compares the applied migrations with the embedded ones.
pub async fn check(pool: &crate::PgPool) -> Result<SchemaCheck, StoreError> {
    let table_exists =
        sqlx::query_scalar!(r#"SELECT to_regclass('_sqlx_migrations') IS NOT NULL AS "exists!""#)
            .fetch_one(pool)
            .await?;
    if !table_exists {
        return Ok(SchemaCheck::Unmigrated);
    }
    let rows = sqlx::query!("SELECT version, checksum, success FROM _sqlx_migrations")
        .fetch_all(pool)
        .await?;
    let applied: BTreeMap<i64, (Vec<u8>, bool)> = rows
        .into_iter()
        .map(|row| (row.version, (row.checksum, row.success)))
        .collect();
    if let Some((version, _)) = applied.iter().find(|(_, (_, success))| !success) {
        return Ok(SchemaCheck::Dirty { version: *version });
    }
    let embedded: BTreeMap<i64, &[u8]> = MIGRATOR
        .iter()
        .filter(|m| !m.migration_type.is_down_migration())
        .map(|m| (m.version, m.checksum.as_ref()))
        .collect();
    Ok(compare(&embedded, &applied))
}

fn compare(
    embedded: &BTreeMap<i64, &[u8]>,
    applied: &BTreeMap<i64, (Vec<u8>, bool)>,
) -> SchemaCheck {
    let unknown: Vec<i64> = applied
        .keys()
        .filter(|v| !embedded.contains_key(v))
        .copied()
        .collect();
    if !unknown.is_empty() {
        return SchemaCheck::Unknown { versions: unknown };
    }
    let missing: Vec<i64> = embedded
        .keys()
        .filter(|v| !applied.contains_key(v))
        .copied()
        .collect();
    if !missing.is_empty() {
        return SchemaCheck::Missing { versions: missing };
    }
    let changed: Vec<i64> = embedded
        .iter()
        .filter(|(v, sum)| {
            applied
                .get(v)
                .is_some_and(|(stored, _)| stored.as_slice() != **sum)
        })
        .map(|(v, _)| *v)
        .collect();
    if !changed.is_empty() {
        return SchemaCheck::Changed { versions: changed };
    }
    SchemaCheck::Current
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differences_are_named_by_version() {
        let embedded = BTreeMap::from([(1, &b"a"[..]), (2, &b"b"[..])]);
        let applied = |rows: &[(i64, &[u8])]| {
            rows.iter()
                .map(|(v, sum)| (*v, (sum.to_vec(), true)))
                .collect::<BTreeMap<_, _>>()
        };
        assert_eq!(
            compare(&embedded, &applied(&[(1, b"a"), (2, b"b")])),
            SchemaCheck::Current
        );
        assert_eq!(
            compare(&embedded, &applied(&[(1, b"a")])),
            SchemaCheck::Missing { versions: vec![2] }
        );
        assert_eq!(
            compare(&embedded, &applied(&[(1, b"a"), (2, b"b"), (3, b"c")])),
            SchemaCheck::Unknown { versions: vec![3] }
        );
        assert_eq!(
            compare(&embedded, &applied(&[(1, b"a"), (2, b"x")])),
            SchemaCheck::Changed { versions: vec![2] }
        );
    }
}
