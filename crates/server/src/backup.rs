//! `gm backup` and `gm restore`: the whole database with PostgreSQL's own tools, `pg_dump`'s
//! custom format (one snapshot, so the outbox's states, the open turns and their orders are
//! of one moment) and `pg_restore`. The password in DATABASE_URL reaches the tools through
//! their environment (`PGPASSWORD`), never their command line, which `ps` shows to anyone.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use thiserror::Error;
use tokio::process::Command;

#[derive(Debug, Error)]
pub enum BackupError {
    #[error("DATABASE_URL is not a postgres:// URL: {0}")]
    BadUrl(String),
    #[error(
        "{tool} was not found (looked in {looked}). Install PostgreSQL's client tools \
         (Debian: apt-get install postgresql-client), or set ADMIRALTY_PG_BIN_DIR to the \
         directory that holds them"
    )]
    ToolMissing { tool: &'static str, looked: String },
    #[error(
        "the newest {tool} found is version {found} ({path}), older than the database server \
         (PostgreSQL {server}): a {tool} older than the server cannot read it. Install \
         postgresql-client-{server} or newer, or set ADMIRALTY_PG_BIN_DIR to its bin directory"
    )]
    ToolTooOld {
        tool: &'static str,
        found: u32,
        path: String,
        server: u32,
    },
    #[error(
        "the database is not empty (it holds {objects} tables, indexes, sequences, types or \
         functions): restore into a new database (createdb NAME), or pass --clean to drop \
         what the backup holds before restoring it"
    )]
    NotEmpty { objects: i64 },
    #[error("{tool} failed ({status}):\n{stderr}")]
    ToolFailed {
        tool: &'static str,
        status: String,
        stderr: String,
    },
    #[error(
        "the restored schema has migrations this binary does not know ({unknown:?}): the \
         backup was made by a newer Admiralty; run that version"
    )]
    NewerSchema { unknown: Vec<i64> },
    #[error("{0}")]
    Io(String),
    #[error(transparent)]
    Store(#[from] store::StoreError),
}

/// How to reach the database from a child process: the URL without its password (safe on a
/// command line) and the password for the child's environment.
#[derive(Debug, Clone)]
pub struct Target {
    url: String,
    password: Option<String>,
}

impl Target {
    /// Splits `database_url` into its password and the rest.
    pub fn parse(database_url: &str) -> Result<Target, BackupError> {
        let mut url =
            url::Url::parse(database_url).map_err(|e| BackupError::BadUrl(format!("{e}")))?;
        if !matches!(url.scheme(), "postgres" | "postgresql") {
            return Err(BackupError::BadUrl(format!("scheme {:?}", url.scheme())));
        }
        let password = url.password().map(|p| {
            percent_encoding::percent_decode_str(p)
                .decode_utf8_lossy()
                .into_owned()
        });
        url.set_password(None)
            .map_err(|()| BackupError::BadUrl("cannot remove its password".into()))?;
        Ok(Target {
            url: url.to_string(),
            password,
        })
    }

    /// The URL as the tools' `--dbname`, without a password.
    pub fn public_url(&self) -> &str {
        &self.url
    }

    fn command(&self, tool: &Tool) -> Command {
        let mut command = Command::new(&tool.path);
        if let Some(password) = &self.password {
            command.env("PGPASSWORD", password);
        }
        command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        command
    }
}

/// One of PostgreSQL's programs and its major version.
#[derive(Debug, Clone)]
pub struct Tool {
    pub path: PathBuf,
    pub major: u32,
}

/// The newest `name` (pg_dump, pg_restore) in `dir`, or else on PATH and in
/// /usr/lib/postgresql/*/bin (where Debian keeps each version; scripts/lib/postgres.sh looks
/// there too); an error when none is found or the newest is older than `server_major`.
pub async fn find_tool(
    name: &'static str,
    dir: Option<&Path>,
    server_major: u32,
) -> Result<Tool, BackupError> {
    let candidates = candidates(name, dir);
    let mut best: Option<Tool> = None;
    for path in &candidates {
        let Some(major) = tool_major(path).await else {
            continue;
        };
        if best.as_ref().is_none_or(|b| major > b.major) {
            best = Some(Tool {
                path: path.clone(),
                major,
            });
        }
    }
    let Some(tool) = best else {
        let looked = candidates
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>();
        return Err(BackupError::ToolMissing {
            tool: name,
            looked: if looked.is_empty() {
                "PATH and /usr/lib/postgresql/*/bin".into()
            } else {
                looked.join(", ")
            },
        });
    };
    if tool.major < server_major {
        return Err(BackupError::ToolTooOld {
            tool: name,
            found: tool.major,
            path: tool.path.display().to_string(),
            server: server_major,
        });
    }
    Ok(tool)
}

fn candidates(name: &str, dir: Option<&Path>) -> Vec<PathBuf> {
    if let Some(dir) = dir {
        return vec![dir.join(name)];
    }
    let mut found: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|path| std::env::split_paths(&path).map(|d| d.join(name)).collect())
        .unwrap_or_default();
    if let Ok(versions) = std::fs::read_dir("/usr/lib/postgresql") {
        let mut dirs: Vec<PathBuf> = versions
            .filter_map(Result::ok)
            .map(|e| e.path().join("bin").join(name))
            .collect();
        dirs.sort();
        found.extend(dirs);
    }
    found.retain(|p| p.is_file());
    found.dedup();
    found
}

/// The major version `path --version` prints ("pg_dump (PostgreSQL) 15.18 (Debian …)").
async fn tool_major(path: &Path) -> Option<u32> {
    let output = Command::new(path)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .await
        .ok()?;
    if !output.status.success() {
        return None;
    }
    parse_major(&String::from_utf8_lossy(&output.stdout))
}

/// "pg_dump (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)" → 15; "… 9.6.24" → 9.
pub fn parse_major(version_line: &str) -> Option<u32> {
    let after = version_line.split_once(')')?.1.trim_start();
    let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// What a backup wrote.
#[derive(Debug)]
pub struct Written {
    pub bytes: u64,
    pub tool: Tool,
    pub server_major: u32,
}

/// Dumps the whole database into `file` (custom format). The dump goes to a file beside it
/// first and is renamed when complete, so a failed backup never leaves a file that looks whole.
pub async fn backup(
    pool: &store::PgPool,
    target: &Target,
    bin_dir: Option<&Path>,
    file: &Path,
) -> Result<Written, BackupError> {
    let server_major = store::maintenance::server_major_version(pool).await?;
    let tool = find_tool("pg_dump", bin_dir, server_major).await?;
    let partial = partial_path(file);
    let mut command = target.command(&tool);
    command
        .arg("--format=custom")
        .arg("--no-password")
        .arg(format!("--file={}", partial.display()))
        .arg(format!("--dbname={}", target.public_url()));
    let run = run(command, "pg_dump").await;
    if let Err(e) = run {
        let _ = std::fs::remove_file(&partial);
        return Err(e);
    }
    std::fs::rename(&partial, file).map_err(|e| {
        BackupError::Io(format!(
            "renaming {} to {}: {e}",
            partial.display(),
            file.display()
        ))
    })?;
    let bytes = std::fs::metadata(file)
        .map_err(|e| BackupError::Io(format!("reading {}: {e}", file.display())))?
        .len();
    Ok(Written {
        bytes,
        tool,
        server_major,
    })
}

fn partial_path(file: &Path) -> PathBuf {
    let mut name = file.file_name().unwrap_or_default().to_os_string();
    name.push(".partial");
    file.with_file_name(name)
}

/// What a restore found afterwards.
#[derive(Debug)]
pub struct Restored {
    pub tool: Tool,
    /// The newest migration in the restored database.
    pub schema_version: Option<i64>,
    /// Migrations of this binary the backup did not have yet: `gm migrate` applies them.
    pub pending: Vec<i64>,
}

/// Restores `file` into the database, which must be empty unless `clean` (then what the
/// backup holds is dropped first), in one transaction: a failed restore leaves nothing.
/// Then checks the schema against this binary's migrations.
pub async fn restore(
    pool: &store::PgPool,
    target: &Target,
    bin_dir: Option<&Path>,
    file: &Path,
    clean: bool,
) -> Result<Restored, BackupError> {
    if !file.is_file() {
        return Err(BackupError::Io(format!("{} is not a file", file.display())));
    }
    let objects = store::maintenance::user_objects(pool).await?;
    if objects > 0 && !clean {
        return Err(BackupError::NotEmpty { objects });
    }
    let server_major = store::maintenance::server_major_version(pool).await?;
    let tool = find_tool("pg_restore", bin_dir, server_major).await?;
    let mut command = target.command(&tool);
    command
        .arg("--no-password")
        .arg("--exit-on-error")
        .arg("--single-transaction")
        // The restoring role owns what it restores: the backup may come from another host.
        .arg("--no-owner")
        .arg("--no-privileges");
    if clean {
        command.arg("--clean").arg("--if-exists");
    }
    command
        .arg(format!("--dbname={}", target.public_url()))
        .arg(file);
    run(command, "pg_restore").await?;
    let applied = store::applied_migrations(pool).await?;
    let known: Vec<i64> = store::MIGRATOR.iter().map(|m| m.version).collect();
    let unknown: Vec<i64> = applied
        .iter()
        .copied()
        .filter(|v| !known.contains(v))
        .collect();
    if !unknown.is_empty() {
        return Err(BackupError::NewerSchema { unknown });
    }
    Ok(Restored {
        tool,
        schema_version: applied.last().copied(),
        pending: store::pending_migrations(pool).await?,
    })
}

async fn run(mut command: Command, tool: &'static str) -> Result<(), BackupError> {
    let output = command
        .output()
        .await
        .map_err(|e| BackupError::Io(format!("starting {tool}: {e}")))?;
    if output.status.success() {
        return Ok(());
    }
    Err(BackupError::ToolFailed {
        tool,
        status: output.status.to_string(),
        stderr: String::from_utf8_lossy(&output.stderr).trim().to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_major_version_of_each_numbering() {
        assert_eq!(
            parse_major("pg_dump (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)"),
            Some(15)
        );
        assert_eq!(parse_major("pg_restore (PostgreSQL) 9.6.24"), Some(9));
        assert_eq!(parse_major("pg_dump (PostgreSQL) 17devel"), Some(17));
        assert_eq!(parse_major("something else"), None);
    }

    #[test]
    fn the_password_leaves_the_url_for_the_environment() {
        let target =
            Target::parse("postgres://gm:s%40cret@db.example:5432/zine?sslmode=require").unwrap();
        assert_eq!(
            target.public_url(),
            "postgres://gm@db.example:5432/zine?sslmode=require"
        );
        assert_eq!(target.password.as_deref(), Some("s@cret"));
        assert!(Target::parse("mysql://x@y/z").is_err());
    }
}
