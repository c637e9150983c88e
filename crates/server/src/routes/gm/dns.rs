//! The mail domain's DNS records (`crate::dns`): what to publish and what is published, the
//! same as `gm dns` prints.

use askama::Template;
use axum::extract::State;
use axum::response::Html;

use super::{Chrome, Gm};
use crate::dns::{Found, Verdict};
use crate::{AppError, AppState};

struct RecordRow {
    kind: &'static str,
    zone_line: String,
    status: &'static str,
    /// The row's class: the status without spaces.
    class: &'static str,
    detail: String,
}

#[derive(Template)]
#[template(path = "gm/dns.html")]
struct DnsPage {
    chrome: Chrome,
    domain: String,
    has_dkim: bool,
    rows: Vec<RecordRow>,
    /// `published`, `problems`, `unchecked` or `unconfigured`.
    verdict: &'static str,
}

pub(crate) async fn get_dns(
    State(state): State<AppState>,
    gm: Gm,
) -> Result<Html<String>, AppError> {
    let Some(check) = state.dns.clone() else {
        // A server made without `gm serve`'s settings (a test's): nothing to show.
        let page = DnsPage {
            chrome: gm.chrome(None),
            domain: state.mail_domain.clone(),
            // Not known here: no alarm about it.
            has_dkim: true,
            rows: Vec::new(),
            verdict: "unconfigured",
        };
        return Ok(Html(page.render()?));
    };
    let found = check.run().await;
    let verdict = match Verdict::of(&found) {
        Verdict::AllPublished => "published",
        Verdict::Problems => "problems",
        Verdict::NotChecked => "unchecked",
    };
    let rows = found
        .into_iter()
        .map(|(record, result)| RecordRow {
            kind: record.kind.label(),
            zone_line: record.zone_line(),
            status: result.label(),
            class: match result {
                Found::Ok(_) => "ok",
                Found::Missing => "missing",
                Found::Wrong(_) => "wrong",
                Found::Unchecked(_) => "unchecked",
            },
            detail: match result {
                Found::Ok(text) => text,
                Found::Missing => format!("No {} record at {}.", record.record_type, record.name),
                Found::Wrong(why) | Found::Unchecked(why) => why,
            },
        })
        .collect();
    let page = DnsPage {
        chrome: gm.chrome(None),
        domain: check.plan.domain.clone(),
        has_dkim: check.plan.dkim.is_some(),
        rows,
        verdict,
    };
    Ok(Html(page.render()?))
}
