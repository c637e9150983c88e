//! Structured logs with `tracing`, to standard error.

use std::io::IsTerminal;

use anyhow::Context;
use tracing_subscriber::EnvFilter;

use crate::config::{LogArgs, LogFormat};

pub fn init(args: &LogArgs) -> anyhow::Result<()> {
    let filter = EnvFilter::try_new(&args.filter)
        .with_context(|| format!("ADMIRALTY_LOG / --log: invalid filter {:?}", args.filter))?;
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal());
    let result = match args.log_format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().try_init(),
    };
    result
        .map_err(|e| anyhow::anyhow!(e))
        .context("installing the log subscriber")
}
