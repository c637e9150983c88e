//! Bounces and complaints read from raw mail: RFC 3464 delivery status notifications
//! (`multipart/report; report-type=delivery-status`), the common non-standard bounces (qmail,
//! Exim, Postfix's plain text, Microsoft Exchange's), and RFC 5965 ARF complaints
//! (`multipart/report; report-type=feedback-report`). Pure: no IO, never panics on any bytes.
//!
//! No maintained crate on crates.io parses DSNs for us (mail-parser splits the MIME parts but
//! leaves `message/delivery-status` as bytes), so the per-recipient fields are read here: they
//! are header syntax, and mail-parser reads them.
//!
//! A message that is none of these (a vacation reply, a person's mail) is `None`: only a
//! report's own structure or a mail system's fixed wording makes a bounce.

use mail_parser::{MessageParser, MimeHeaders, PartType};
use serde::Serialize;

/// What a report says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Report {
    /// A delivery report: the recipients it is about (failed or delayed only; successes are
    /// left out).
    Bounce {
        format: Format,
        recipients: Vec<Recipient>,
    },
    /// A recipient's complaint (marked as spam) through a feedback loop.
    Complaint(Complaint),
}

/// Whose wording the report was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// RFC 3464 `message/delivery-status` (Postfix, Exim, Sendmail, Gmail, Microsoft 365 …).
    Rfc3464,
    Qmail,
    Exim,
    /// Postfix's plain-text bounce, before it wrote DSNs.
    Postfix,
    /// Exchange's plain "Delivery has failed to these recipients or groups".
    Microsoft,
}

/// How bad a failure is: a permanent 5.x.x, or a 4.x.x / delayed that may pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Hard,
    Soft,
}

/// One recipient's failure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Recipient {
    /// RFC 3464's Final-Recipient (or the address the plain text names), without its
    /// `rfc822;` type.
    pub final_recipient: String,
    /// Original-Recipient, when the report has one (the address as first given, before any
    /// forwarding).
    pub original_recipient: Option<String>,
    /// The RFC 3463 status (`5.1.1`) or, failing that, the SMTP reply code.
    pub status: Option<String>,
    pub severity: Severity,
    /// What the remote server said, if anything: shown to the GM, at most 300 characters.
    pub diagnostic: Option<String>,
}

/// An ARF feedback report (RFC 5965).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Complaint {
    /// `abuse`, `fraud`, `not-spam`, …; `not-spam` is no complaint.
    pub feedback_type: String,
    /// `Original-Rcpt-To`: who complained, when the reporter says.
    pub original_rcpt_to: Vec<String>,
    /// `Original-Mail-From`: the return path of the reported message, which carries our tag.
    pub original_mail_from: Option<String>,
    /// The reported message's own headers (the third part), as text: its To and Return-Path.
    pub reported_headers: String,
}

/// Reads `raw` as a report; `None` when it is not one.
pub fn read(raw: &[u8]) -> Option<Report> {
    // mail-parser never panics by its contract; `inbound::parse` guards it anyway, and so do we.
    let message = std::panic::catch_unwind(|| MessageParser::default().parse(raw))
        .ok()
        .flatten()?;
    let content_type = message.content_type();
    let report_type = content_type
        .filter(|ct| {
            ct.ctype().eq_ignore_ascii_case("multipart")
                && ct
                    .subtype()
                    .is_some_and(|s| s.eq_ignore_ascii_case("report"))
        })
        .and_then(|ct| ct.attribute("report-type"))
        .map(str::to_ascii_lowercase);
    match report_type.as_deref() {
        Some("feedback-report") => return complaint(&message),
        Some("delivery-status") => {
            if let Some(report) = delivery_status(&message) {
                return Some(report);
            }
        }
        _ => {}
    }
    // Some reporters mislabel the report type: any delivery-status part counts.
    if report_type.is_some()
        && let Some(report) = delivery_status(&message)
    {
        return Some(report);
    }
    plain_text(&message)
}

/// The parts' bytes of a given MIME type (`message/delivery-status`), decoded.
fn parts_of<'a>(
    message: &'a mail_parser::Message<'a>,
    ctype: &str,
    subtype: &str,
) -> Vec<&'a [u8]> {
    message
        .parts
        .iter()
        .filter(|part| {
            part.content_type().is_some_and(|ct| {
                ct.ctype().eq_ignore_ascii_case(ctype)
                    && ct
                        .subtype()
                        .is_some_and(|s| s.eq_ignore_ascii_case(subtype))
            })
        })
        .map(|part| match &part.body {
            PartType::Text(text) | PartType::Html(text) => text.as_bytes(),
            PartType::Binary(bytes) | PartType::InlineBinary(bytes) => bytes.as_ref(),
            _ => &[][..],
        })
        .collect()
}

/// Header-syntax groups (`Name: value` lines, folded, blank lines between groups), each
/// group's fields lower-cased by name.
fn field_groups(bytes: &[u8]) -> Vec<Vec<(String, String)>> {
    let text = String::from_utf8_lossy(bytes);
    let mut groups: Vec<Vec<(String, String)>> = Vec::new();
    let mut group: Vec<(String, String)> = Vec::new();
    for line in text.split('\n') {
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() {
            if !group.is_empty() {
                groups.push(std::mem::take(&mut group));
            }
            continue;
        }
        if line.starts_with([' ', '\t']) {
            if let Some((_, value)) = group.last_mut() {
                value.push(' ');
                value.push_str(line.trim());
            }
            continue;
        }
        if let Some((name, value)) = line.split_once(':') {
            group.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    if !group.is_empty() {
        groups.push(group);
    }
    groups
}

fn field<'a>(group: &'a [(String, String)], name: &str) -> Option<&'a str> {
    group
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

/// `rfc822; fred@example.com` → `fred@example.com` (any address type; brackets dropped).
fn typed_address(value: &str) -> Option<String> {
    let address = value.split_once(';').map_or(value, |(_, a)| a);
    let address = address
        .trim()
        .trim_start_matches('<')
        .trim_end_matches('>')
        .trim();
    (address.contains('@') && address.len() <= 254).then(|| address.to_owned())
}

fn delivery_status(message: &mail_parser::Message<'_>) -> Option<Report> {
    let parts = parts_of(message, "message", "delivery-status");
    let parts = if parts.is_empty() {
        parts_of(message, "message", "global-delivery-status")
    } else {
        parts
    };
    let part = parts.first()?;
    let groups = field_groups(part);
    let mut recipients = Vec::new();
    // The first group is per-message; each later one is a recipient. Some MTAs put the
    // recipient fields in the first group too, so every group with a Final-Recipient counts.
    for group in &groups {
        let Some(final_recipient) = field(group, "final-recipient").and_then(typed_address) else {
            continue;
        };
        let action = field(group, "action").unwrap_or("").to_ascii_lowercase();
        let status = field(group, "status").and_then(status_code);
        let severity = match (action.as_str(), status.as_deref()) {
            ("delivered" | "relayed" | "expanded", _) => continue,
            ("delayed", _) => Severity::Soft,
            (_, Some(s)) if s.starts_with('4') => Severity::Soft,
            (_, Some(s)) if s.starts_with('2') => continue,
            _ => Severity::Hard,
        };
        recipients.push(Recipient {
            final_recipient,
            original_recipient: field(group, "original-recipient").and_then(typed_address),
            status,
            severity,
            diagnostic: field(group, "diagnostic-code").map(short),
        });
    }
    Some(Report::Bounce {
        format: Format::Rfc3464,
        recipients,
    })
}

/// The RFC 3463 code at the start of a Status field (`5.1.1 (bad mailbox)` → `5.1.1`).
fn status_code(value: &str) -> Option<String> {
    let code = value.split_whitespace().next()?;
    let mut parts = code.split('.');
    let class = parts.next()?;
    let ok = matches!(class, "2" | "4" | "5")
        && parts.clone().count() == 2
        && parts.all(|p| !p.is_empty() && p.len() <= 3 && p.bytes().all(|b| b.is_ascii_digit()));
    ok.then(|| code.to_owned())
}

/// The first status the text gives: an RFC 3463 code (`5.1.1`), else a three-digit SMTP
/// reply code (`550`).
fn status_in(text: &str) -> Option<String> {
    let words = || {
        text.split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .map(|w| w.trim_matches('.'))
    };
    words().find_map(status_code).or_else(|| {
        words()
            .find(|w| w.len() == 3 && (w.starts_with('4') || w.starts_with('5')))
            .map(str::to_owned)
    })
}

fn severity_of(status: Option<&str>, soft_by_wording: bool) -> Severity {
    match status {
        Some(s) if s.starts_with('4') => Severity::Soft,
        Some(_) => Severity::Hard,
        None if soft_by_wording => Severity::Soft,
        None => Severity::Hard,
    }
}

/// At most 300 characters of a diagnostic, on one line.
fn short(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(300)
        .collect()
}

/// The first text part's text, or nothing.
fn body_text(message: &mail_parser::Message<'_>) -> String {
    message
        .body_text(0)
        .map(|t| t.replace("\r\n", "\n"))
        .unwrap_or_default()
}

fn plain_text(message: &mail_parser::Message<'_>) -> Option<Report> {
    let body = body_text(message);
    let subject = message.subject().unwrap_or("").to_ascii_lowercase();
    if body.contains("This is the qmail-send program") {
        return Some(qmail(&body));
    }
    if body.contains("could not be delivered to one or more of its")
        || body.contains("This message was created automatically by mail delivery software")
    {
        let delayed =
            subject.starts_with("warning: message") || body.contains("has not yet been delivered");
        return Some(exim(&body, delayed));
    }
    if body.contains("This is the mail system at host")
        || body.contains("This is the Postfix program at host")
    {
        let delayed = body.contains("THIS IS A WARNING ONLY");
        return Some(postfix(&body, delayed));
    }
    if body.contains("Delivery has failed to these recipients or groups") {
        return Some(microsoft(&body));
    }
    None
}

/// A line that is nothing but an address (bracketed or not), with what follows it on the line.
fn leading_address(line: &str) -> Option<(String, &str)> {
    let line = line.trim();
    let (address, rest) = match line.strip_prefix('<') {
        Some(inner) => {
            let end = inner.find('>')?;
            (inner.get(..end)?, inner.get(end + 1..)?)
        }
        None => {
            let end = line.find(char::is_whitespace).unwrap_or(line.len());
            (line.get(..end)?.trim_end_matches(':'), line.get(end..)?)
        }
    };
    let ok = address.contains('@')
        && !address.contains(char::is_whitespace)
        && address.len() <= 254
        && !address.starts_with('@');
    ok.then(|| (address.to_owned(), rest.trim_start_matches(':').trim()))
}

/// qmail: `<addr>:` then the reason, paragraph by paragraph, after the greeting, until the
/// returned message.
fn qmail(body: &str) -> Report {
    let mut recipients = Vec::new();
    let text = body
        .split("--- Below this line is a copy of the message.")
        .next()
        .unwrap_or("");
    for paragraph in text.split("\n\n") {
        let mut lines = paragraph.lines();
        let Some(first) = lines.next() else { continue };
        if !first.trim_start().starts_with('<') {
            continue;
        }
        let Some((address, rest)) = leading_address(first) else {
            continue;
        };
        let reason: String = std::iter::once(rest)
            .chain(lines)
            .collect::<Vec<_>>()
            .join(" ");
        let status = status_in(&reason);
        let soft =
            !reason.contains("permanent error") && status.is_none() && reason.contains("temporary");
        recipients.push(Recipient {
            final_recipient: address,
            original_recipient: None,
            severity: severity_of(status.as_deref(), soft),
            status,
            diagnostic: Some(short(&reason)).filter(|d| !d.is_empty()),
        });
    }
    Report::Bounce {
        format: Format::Qmail,
        recipients,
    }
}

/// Exim: the failed addresses indented by two spaces, each followed by lines indented by
/// four that say why; the returned message after "------ This is a copy".
fn exim(body: &str, delayed: bool) -> Report {
    let text = body.split("------ This is a copy").next().unwrap_or("");
    let mut recipients: Vec<Recipient> = Vec::new();
    let mut reason = String::new();
    let flush = |recipients: &mut Vec<Recipient>, reason: &mut String| {
        if let Some(last) = recipients.last_mut() {
            let status = status_in(reason);
            last.severity = severity_of(status.as_deref(), delayed);
            if delayed {
                last.severity = Severity::Soft;
            }
            last.status = status;
            last.diagnostic = Some(short(reason)).filter(|d| !d.is_empty());
        }
        reason.clear();
    };
    for line in text.lines() {
        let indent = line.len() - line.trim_start().len();
        if (1..=3).contains(&indent)
            && let Some((address, _)) = leading_address(line)
        {
            flush(&mut recipients, &mut reason);
            recipients.push(Recipient {
                final_recipient: address,
                original_recipient: None,
                status: None,
                severity: if delayed {
                    Severity::Soft
                } else {
                    Severity::Hard
                },
                diagnostic: None,
            });
        } else if indent >= 4 && !recipients.is_empty() {
            reason.push_str(line.trim());
            reason.push(' ');
        }
    }
    flush(&mut recipients, &mut reason);
    Report::Bounce {
        format: Format::Exim,
        recipients,
    }
}

/// Postfix's plain text: `<addr>: host … said: 550 …` (continued on indented lines).
fn postfix(body: &str, delayed: bool) -> Report {
    let text = body
        .split("--- Original message follows")
        .next()
        .unwrap_or("");
    let mut recipients = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if !line.starts_with('<') {
            continue;
        }
        let Some((address, rest)) = leading_address(line) else {
            continue;
        };
        let mut reason = rest.to_owned();
        while let Some(next) = lines.peek() {
            if next.starts_with([' ', '\t']) && !next.trim().is_empty() {
                reason.push(' ');
                reason.push_str(next.trim());
                lines.next();
            } else {
                break;
            }
        }
        let status = status_in(&reason);
        let severity = if delayed {
            Severity::Soft
        } else {
            severity_of(status.as_deref(), false)
        };
        recipients.push(Recipient {
            final_recipient: address,
            original_recipient: None,
            status,
            severity,
            diagnostic: Some(short(&reason)).filter(|d| !d.is_empty()),
        });
    }
    Report::Bounce {
        format: Format::Postfix,
        recipients,
    }
}

/// Exchange: the addresses on the lines after "Delivery has failed to these recipients or
/// groups:", the status in "Remote Server returned '550 5.1.10 …'" further down.
fn microsoft(body: &str) -> Report {
    let after = body
        .split("Delivery has failed to these recipients or groups")
        .nth(1)
        .unwrap_or("");
    let diagnostics = body
        .split("Diagnostic information for administrators")
        .nth(1)
        .unwrap_or("");
    let mut recipients: Vec<Recipient> = Vec::new();
    for line in after.lines().skip(1) {
        if line.trim().starts_with("Diagnostic information") {
            break;
        }
        // "Fred Bloggs (fred@example.com)" or a bare address.
        let candidate = match (line.rfind('('), line.rfind(')')) {
            (Some(open), Some(close)) if open < close => line.get(open + 1..close).unwrap_or(""),
            _ => line.trim(),
        };
        if let Some((address, _)) = leading_address(candidate)
            && !recipients
                .iter()
                .any(|r| r.final_recipient.eq_ignore_ascii_case(&address))
        {
            recipients.push(Recipient {
                final_recipient: address,
                original_recipient: None,
                status: None,
                severity: Severity::Hard,
                diagnostic: None,
            });
        }
    }
    let returned = diagnostics
        .lines()
        .find(|l| l.contains("Remote Server returned") || l.contains("Remote server returned"))
        .map(short);
    let status = returned.as_deref().and_then(status_in);
    for recipient in &mut recipients {
        recipient.severity = severity_of(status.as_deref(), false);
        recipient.status.clone_from(&status);
        recipient.diagnostic.clone_from(&returned);
    }
    Report::Bounce {
        format: Format::Microsoft,
        recipients,
    }
}

fn complaint(message: &mail_parser::Message<'_>) -> Option<Report> {
    let part = parts_of(message, "message", "feedback-report");
    let groups: Vec<(String, String)> = field_groups(part.first()?).into_iter().flatten().collect();
    let values = |name: &str| -> Vec<String> {
        groups
            .iter()
            .filter(|(n, _)| n == name)
            .filter_map(|(_, v)| typed_address(v))
            .collect()
    };
    // The reported message: a message/rfc822 part (parsed by mail-parser) or text/rfc822-headers.
    let mut reported_headers = String::new();
    for part in &message.parts {
        match &part.body {
            PartType::Message(inner) => {
                // Its header block: what comes before the first empty line.
                let raw = String::from_utf8_lossy(inner.raw_message());
                let head = raw.replace("\r\n", "\n");
                reported_headers.push_str(head.split("\n\n").next().unwrap_or(""));
            }
            PartType::Text(text)
                if part.content_type().is_some_and(|ct| {
                    ct.subtype()
                        .is_some_and(|s| s.eq_ignore_ascii_case("rfc822-headers"))
                }) =>
            {
                reported_headers.push_str(text);
            }
            _ => {}
        }
    }
    Some(Report::Complaint(Complaint {
        feedback_type: field(&groups, "feedback-type")
            .unwrap_or("abuse")
            .trim()
            .to_ascii_lowercase(),
        original_rcpt_to: values("original-rcpt-to"),
        original_mail_from: values("original-mail-from").into_iter().next(),
        reported_headers: reported_headers.chars().take(16 * 1024).collect(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_codes() {
        assert_eq!(status_code("5.1.1 (bad)").as_deref(), Some("5.1.1"));
        assert_eq!(status_code("4.4.7"), Some("4.4.7".into()));
        assert_eq!(status_code("5.1"), None);
        assert_eq!(status_code("9.1.1"), None);
        assert_eq!(
            status_in("said: 550 5.1.1 <x@y>: Recipient").as_deref(),
            Some("5.1.1")
        );
        assert_eq!(status_in("said: 452 too many").as_deref(), Some("452"));
        assert_eq!(status_in("no code"), None);
    }

    #[test]
    fn a_vacation_reply_is_no_report() {
        let raw = b"From: fred@example.com\r\nTo: bounces+1-00@example.org\r\nSubject: Out of Office\r\nAuto-Submitted: auto-replied\r\n\r\nI am away until Monday; mail to <fred@example.com>: 550 is not read.\r\n";
        assert_eq!(read(raw), None);
    }
}
