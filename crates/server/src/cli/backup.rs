//! `gm backup FILE` and `gm restore FILE` (docs/operations.md#backup-and-restore).

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use super::connect;
use crate::backup::{self, Target};
use crate::config::{DatabaseArgs, PgToolArgs};

#[derive(Debug, Clone, Args)]
pub struct BackupArgs {
    /// Where to write the backup (pg_dump's custom format); replaced if it exists.
    pub file: PathBuf,
    #[command(flatten)]
    pub tools: PgToolArgs,
}

#[derive(Debug, Clone, Args)]
pub struct RestoreArgs {
    /// A backup written by `gm backup`.
    pub file: PathBuf,
    /// Restore into a database that is not empty, dropping first what the backup holds.
    #[arg(long)]
    pub clean: bool,
    #[command(flatten)]
    pub tools: PgToolArgs,
}

pub(super) async fn run_backup(database: &DatabaseArgs, args: BackupArgs) -> anyhow::Result<()> {
    let target = Target::parse(database.url()?)?;
    let pool = connect(database).await?;
    let written = backup::backup(&pool, &target, args.tools.pg_bin_dir.as_deref(), &args.file)
        .await
        .with_context(|| format!("backing up to {}", args.file.display()))?;
    let schema = store::applied_migrations(&pool).await?.last().copied();
    pool.close().await;
    println!(
        "wrote {} ({} bytes) with {} (version {}) from PostgreSQL {}; schema version {}",
        args.file.display(),
        written.bytes,
        written.tool.path.display(),
        written.tool.major,
        written.server_major,
        schema.map_or_else(|| "none".to_owned(), |v| v.to_string())
    );
    Ok(())
}

pub(super) async fn run_restore(database: &DatabaseArgs, args: RestoreArgs) -> anyhow::Result<()> {
    let target = Target::parse(database.url()?)?;
    let pool = connect(database).await?;
    let restored = backup::restore(
        &pool,
        &target,
        args.tools.pg_bin_dir.as_deref(),
        &args.file,
        args.clean,
    )
    .await
    .with_context(|| format!("restoring {}", args.file.display()))?;
    pool.close().await;
    println!(
        "restored {} with {} (version {}); schema version {}",
        args.file.display(),
        restored.tool.path.display(),
        restored.tool.major,
        restored
            .schema_version
            .map_or_else(|| "none".to_owned(), |v| v.to_string())
    );
    if restored.pending.is_empty() {
        println!("the schema is the one this binary expects: ready for gm serve");
    } else {
        println!(
            "the backup predates migrations {:?} of this binary: run `gm migrate` before `gm serve`",
            restored.pending
        );
    }
    Ok(())
}
