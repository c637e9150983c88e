//! The issue as a PDF for postal subscribers: the printable page (the issue's published HTML
//! and the print style sheet) printed by headless Chromium (`--print-to-pdf`).
//!
//! Why Chromium and not a PDF crate: the issue already has a print layout in HTML and CSS
//! (games packed on pages, tables kept whole by row, SVG boards); Chromium lays that out exactly as a reader
//! printing the page would get it, and it is already a dependency of the browser tests, which
//! `scripts/test` installs from Debian's packages. A pure-Rust PDF writer would mean a second
//! layout of the same issue (text flow, tables, fonts embedded by hand) to keep in step.

use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::process::Command;

/// The paper a PDF is laid out for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Paper {
    A4,
    Letter,
}

impl std::str::FromStr for Paper {
    type Err = PdfError;
    fn from_str(text: &str) -> Result<Paper, PdfError> {
        match text.to_ascii_lowercase().as_str() {
            "a4" => Ok(Paper::A4),
            "letter" | "us-letter" | "usletter" => Ok(Paper::Letter),
            _ => Err(PdfError::Paper(text.to_owned())),
        }
    }
}

impl Paper {
    fn css(self) -> &'static str {
        match self {
            Paper::A4 => "A4",
            Paper::Letter => "letter",
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum PdfError {
    #[error("{0:?} is not a paper size: write a4 or letter")]
    Paper(String),
    #[error(
        "no Chromium to print with: install Debian's `chromium` (or set ADMIRALTY_CHROMIUM to \
         the browser's path)"
    )]
    NoChromium,
    #[error("Chromium could not print the issue: {0}")]
    Chromium(String),
    #[error("writing or reading a file for the PDF: {0}")]
    Io(#[from] std::io::Error),
}

/// The whole printable document: what `/zines/SLUG/issues/N/print` serves, with the paper size
/// set, and `base` so the boards' images come from the site.
pub fn printable_document(title: &str, body: &str, paper: Paper, base: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><base href=\"{base}/\">\
         <title>{title}</title><style>body {{ font-family: Georgia, serif; }} \
         table {{ border-collapse: collapse; }} th, td {{ border: 1px solid #666; padding: .15em .4em; text-align: left; }}\n\
         {style}\n@page {{ size: {size}; }}</style></head><body>\n{body}\n</body></html>\n",
        title = crate::letters::issues::escape(title),
        base = crate::letters::issues::escape(base.trim_end_matches('/')),
        style = super::PRINT_STYLE,
        size = paper.css(),
    )
}

fn chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("ADMIRALTY_CHROMIUM") {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| {
            ["chromium", "chromium-browser", "google-chrome"]
                .into_iter()
                .map(move |name| dir.join(name))
        })
        .find(|candidate| candidate.is_file())
}

/// Prints `document` (HTML) to the PDF file `out` with headless Chromium, in a scratch
/// directory of its own; at most two minutes.
pub async fn print_to_pdf(document: &str, out: &Path) -> Result<(), PdfError> {
    let browser = chromium().ok_or(PdfError::NoChromium)?;
    let scratch = std::env::temp_dir().join(format!(
        "admiralty-pdf-{}-{}",
        std::process::id(),
        crate::entropy::new_reply_token(&mut crate::entropy::OsEntropy)
    ));
    tokio::fs::create_dir_all(&scratch).await?;
    let page = scratch.join("issue.html");
    tokio::fs::write(&page, document).await?;
    let out = std::path::absolute(out)?;
    let run = Command::new(browser)
        .arg("--headless")
        .arg("--no-sandbox")
        .arg("--disable-gpu")
        .arg("--no-pdf-header-footer")
        // Nothing but the page: no first-run, sync or update traffic from a print job.
        .args([
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!(
            "--user-data-dir={}",
            scratch.join("profile").display()
        ))
        .arg(format!("--print-to-pdf={}", out.display()))
        .arg(format!("file://{}", page.display()))
        .kill_on_drop(true)
        .output();
    let outcome = tokio::time::timeout(Duration::from_secs(120), run).await;
    let _ = tokio::fs::remove_dir_all(&scratch).await;
    let output = outcome.map_err(|_| PdfError::Chromium("it took over two minutes".into()))??;
    let head = tokio::fs::read(&out).await.unwrap_or_default();
    if !output.status.success() || !head.starts_with(b"%PDF-") {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let last = stderr.lines().last().unwrap_or("no message");
        return Err(PdfError::Chromium(format!("{} ({last})", output.status)));
    }
    Ok(())
}
