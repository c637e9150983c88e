//! `gm dkim generate` and `gm dns`: the keys and DNS records that let the big mailbox
//! providers take a zine's mail (docs/mail.md#dkim, docs/operations.md#dns-records).

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, Subcommand};

use crate::config::{BaseUrl, DkimArgs, DnsSettings};
use crate::dkim::{Algorithm, generate};
use crate::dns::{self, Found, Verdict};

#[derive(Debug, Clone, Subcommand)]
pub enum DkimCommand {
    /// Make a key pair: write the private key to KEYFILE (mode 0600; an existing file is never
    /// overwritten) and print the DNS TXT record of the public key, in strings of at most 255
    /// bytes. Then set ADMIRALTY_DKIM_KEY=KEYFILE and ADMIRALTY_DKIM_SELECTOR=SEL.
    Generate(GenerateArgs),
}

#[derive(Debug, Clone, Args)]
pub struct GenerateArgs {
    /// The selector: the record is `SEL._domainkey.DOMAIN`.
    #[arg(long)]
    pub selector: String,
    /// Where to write the private key (PEM).
    #[arg(long)]
    pub out: PathBuf,
    #[arg(long, value_enum, default_value_t = Algorithm::Rsa)]
    pub algorithm: Algorithm,
    /// The signing domain; default: the mail domain.
    #[arg(long, env = "ADMIRALTY_DKIM_DOMAIN")]
    pub domain: Option<String>,
    #[arg(long, env = "ADMIRALTY_MAIL_DOMAIN", default_value = "localhost")]
    pub mail_domain: String,
}

pub fn run_dkim(command: DkimCommand) -> anyhow::Result<()> {
    let DkimCommand::Generate(args) = command;
    let domain = args.domain.as_deref().unwrap_or(&args.mail_domain);
    let made = generate(args.algorithm, &args.selector, domain)?;
    write_private(&args.out, &made.pem)?;
    println!("{}", made.record.zone_line());
    Ok(())
}

/// Writes a new file readable by its owner only; refuses to replace one.
fn write_private(path: &PathBuf, text: &str) -> anyhow::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .with_context(|| {
            format!(
                "creating {} (an existing key file is never overwritten)",
                path.display()
            )
        })?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.sync_all())
        .with_context(|| format!("writing {}", path.display()))
}

#[derive(Debug, Clone, Args)]
pub struct DnsArgs {
    #[arg(long, env = "ADMIRALTY_MAIL_DOMAIN", default_value = "localhost")]
    pub mail_domain: String,
    #[arg(
        long,
        env = "ADMIRALTY_BASE_URL",
        default_value = "http://127.0.0.1:8080"
    )]
    pub base_url: BaseUrl,
    #[arg(long, env = "ADMIRALTY_SMTP_URL", hide_env_values = true)]
    pub smtp_url: Option<String>,
    #[command(flatten)]
    pub dns: DnsSettings,
    /// The DNS server the check asks (`IP:port`); default: the system's (/etc/resolv.conf).
    #[arg(long, env = "ADMIRALTY_DNS_RESOLVER")]
    pub dns_resolver: Option<std::net::SocketAddr>,
    #[command(flatten)]
    pub dkim: DkimArgs,
    /// Print the records only: no lookups.
    #[arg(long)]
    pub no_check: bool,
}

pub async fn run_dns(args: DnsArgs) -> anyhow::Result<()> {
    let key = args
        .dkim
        .load(&args.mail_domain)
        .context("reading the DKIM key (ADMIRALTY_DKIM_KEY)")?;
    let plan = args.dns.plan(
        &args.mail_domain,
        &args.base_url,
        args.smtp_url.as_deref(),
        key.as_ref(),
    );
    let wanted = dns::wanted(&plan);
    println!("; The records to publish for {}:", plan.domain);
    for record in &wanted {
        println!("{}", record.zone_line());
    }
    if key.is_none() {
        println!("; No DKIM key is set (ADMIRALTY_DKIM_KEY): make one with `gm dkim generate`.");
    }
    if args.no_check {
        return Ok(());
    }
    let resolver = dns::resolver(args.dns_resolver, args.dns.timeout())
        .map_err(|e| crate::cli::TryAgainLater(anyhow::anyhow!("could not check: {e}")))?;
    let found = dns::check(&resolver, &wanted).await;
    println!();
    println!("; What is published:");
    for (record, result) in &found {
        let detail = match result {
            Found::Ok(text) => text.clone(),
            Found::Missing => format!("no {} record at {}", record.record_type, record.name),
            Found::Wrong(why) | Found::Unchecked(why) => why.clone(),
        };
        println!(
            "{:<6} {:<12} {}",
            record.kind.label(),
            result.label(),
            detail
        );
    }
    match Verdict::of(&found) {
        Verdict::AllPublished => Ok(()),
        Verdict::Problems => anyhow::bail!("a record is missing or wrong (see above)"),
        Verdict::NotChecked => Err(crate::cli::TryAgainLater(anyhow::anyhow!(
            "could not check: DNS did not answer (ADMIRALTY_DNS_RESOLVER)"
        ))
        .into()),
    }
}
