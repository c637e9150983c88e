//! Raw RFC 5322 bytes to [`InboundMail`]: the headers the server needs and the text a person
//! wrote, read with mail-parser.
//!
//! Untrusted input: nothing here panics on any bytes, and what is read is capped
//! ([`MAX_MESSAGE_BYTES`], [`MAX_BODY_BYTES`], [`MAX_HEADERS`], [`MAX_ADDRESSES`]); a cut is
//! recorded in [`InboundMail::truncated`] so the confirmation can say so.

use std::fmt;

use mail_parser::{Address, HeaderName, HeaderValue, MessageParser, MimeHeaders, PartType};
use serde::Serialize;

use crate::html::html_to_text;
use crate::token::{ReplyToken, reply_token};

/// Bytes of a raw message that are parsed; the rest (in practice, the tail of a large
/// attachment: text parts come first) is not read.
pub const MAX_MESSAGE_BYTES: usize = 4 * 1024 * 1024;
/// Bytes of body text kept, cut at a line's end. Orders fit in a few kilobytes.
pub const MAX_BODY_BYTES: usize = 256 * 1024;
/// Header fields kept in [`InboundMail::headers`], and bytes kept of each value.
pub const MAX_HEADERS: usize = 500;
/// Bytes kept of one header value.
pub const MAX_HEADER_VALUE_BYTES: usize = 4096;
/// Addresses kept of one address field (To, Cc, ...).
pub const MAX_ADDRESSES: usize = 100;
/// Attachments listed in [`InboundMail::attachments`].
pub const MAX_ATTACHMENTS: usize = 50;

/// Why bytes could not be read as a message at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MailError {
    #[error("the message is empty")]
    /// Nothing but white space.
    Empty,
    #[error("the message has no header fields: it is not an RFC 5322 message")]
    /// Not one header field.
    NoHeaders,
    #[error("the message's MIME structure is broken beyond reading")]
    /// The MIME parser gave up on it (see [`parse`]).
    Malformed,
}

/// An address with its display name, as written in From:, To:, Cc: or Reply-To:.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Mailbox {
    /// `local@domain`, trimmed, case as written.
    pub address: String,
    /// The display name, if any (decoded from RFC 2047, control characters removed).
    pub name: Option<String>,
}

/// The Return-Path header, which the final MTA writes from the SMTP envelope's MAIL FROM.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "address")]
pub enum ReturnPath {
    /// No Return-Path header (the SMTP listener should add one; see the crate docs).
    Missing,
    /// `Return-Path: <>`: the null sender of bounces and auto-replies (RFC 5321 section 4.5.5).
    Null,
    /// The envelope sender's address.
    Address(String),
}

/// Where the body text came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BodySource {
    /// text/plain.
    Plain,
    /// text/plain with format=flowed, its soft line breaks joined (RFC 3676).
    Flowed,
    /// text/html turned into text: the message had no text/plain part with any text in it.
    Html,
    /// No text part at all.
    None,
}

/// A part that was not read as text: an attachment, an inline image, a nested message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Attachment {
    /// The file name, if the sender gave one.
    pub name: Option<String>,
    /// `type/subtype`, lower case.
    pub content_type: String,
    /// Decoded size in bytes (of what was read; see [`Truncated::message`]).
    pub size: usize,
    /// Shown inside the message (`Content-Disposition: inline` or a Content-ID, like the logo
    /// in an Outlook signature) rather than attached as a file.
    pub inline: bool,
}

/// Which caps were hit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Truncated {
    /// Only the first [`MAX_MESSAGE_BYTES`] bytes were parsed.
    pub message: bool,
    /// The body text was cut at [`MAX_BODY_BYTES`].
    pub body: bool,
}

impl Truncated {
    /// Whether anything was cut.
    pub fn any(&self) -> bool {
        self.message || self.body
    }
}

/// One header field, as written (unfolded, not decoded).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RawHeader {
    /// The field name as written.
    pub name: String,
    /// The value, unfolded and trimmed, at most [`MAX_HEADER_VALUE_BYTES`] bytes.
    pub value: String,
}

/// What was read from one inbound message.
#[derive(Clone, PartialEq, Eq, Serialize)]
pub struct InboundMail {
    /// Message-ID without its angle brackets, or `None` when it has none: the server then keys
    /// the message by a digest of its raw bytes.
    pub message_id: Option<String>,
    /// The first From: address. Never authorises anything on its own.
    pub from: Option<Mailbox>,
    /// Reply-To addresses.
    pub reply_to: Vec<Mailbox>,
    /// To addresses.
    pub to: Vec<Mailbox>,
    /// Cc addresses.
    pub cc: Vec<Mailbox>,
    /// Delivered-To headers, as MTAs add them on final delivery (newest first).
    pub delivered_to: Vec<String>,
    /// The Subject, decoded (RFC 2047), control characters removed.
    pub subject: Option<String>,
    /// The Date header in RFC 3339, if it could be read.
    pub date: Option<String>,
    /// Message-IDs in In-Reply-To, without angle brackets.
    pub in_reply_to: Vec<String>,
    /// Message-IDs in References, without angle brackets.
    pub references: Vec<String>,
    /// Who bounces go to: the null path marks a robot's mail.
    pub return_path: ReturnPath,
    /// The top-level `type/subtype`, lower case (`multipart/report` for delivery reports).
    pub content_type: String,
    /// Every top-level header field, in order, for the loop checks and the audit log.
    pub headers: Vec<RawHeader>,
    /// The text the sender's program shows: line ends are `\n`, no-break spaces are spaces, other
    /// control characters are gone. Quotes and signatures are still in it (see [`crate::quotes`]).
    /// For HTML-only mail these are the lines the reader sees, and line numbers count them.
    pub body: String,
    /// Which part the body came from.
    pub body_source: BodySource,
    /// Parts not read: the confirmation can say they were ignored.
    pub attachments: Vec<Attachment>,
    /// Which caps were hit.
    pub truncated: Truncated,
    /// The MIME structure was broken (a multipart whose declared boundary never occurs) and
    /// was read with the boundary its parts actually use.
    pub repaired: bool,
}

impl InboundMail {
    /// The first value of header `name` (case-insensitive), as written.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.header_values(name).next()
    }

    /// Every value of header `name` (case-insensitive), in order.
    pub fn header_values<'a, 'n>(
        &'a self,
        name: &'n str,
    ) -> impl Iterator<Item = &'a str> + use<'a, 'n> {
        self.headers
            .iter()
            .filter(move |h| h.name.eq_ignore_ascii_case(name))
            .map(|h| h.value.as_str())
    }

    /// Recipient addresses, most trustworthy first: Delivered-To, then To, then Cc.
    pub fn recipients(&self) -> impl Iterator<Item = &str> {
        self.delivered_to
            .iter()
            .map(String::as_str)
            .chain(self.to.iter().map(|m| m.address.as_str()))
            .chain(self.cc.iter().map(|m| m.address.as_str()))
    }

    /// The reply token of the first recipient written `local_part+TOKEN@...`.
    pub fn reply_token(&self, local_part: &str) -> Option<ReplyToken> {
        reply_token(self.recipients(), local_part)
    }
}

/// The body is the player's text and may hold a PASSWORD line: Debug shows only its size.
impl fmt::Debug for InboundMail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InboundMail")
            .field("message_id", &self.message_id)
            .field("from", &self.from)
            .field("to", &self.to)
            .field("cc", &self.cc)
            .field("delivered_to", &self.delivered_to)
            .field("subject", &self.subject)
            .field("return_path", &self.return_path)
            .field("content_type", &self.content_type)
            .field("body", &format_args!("<{} bytes>", self.body.len()))
            .field("body_source", &self.body_source)
            .field("attachments", &self.attachments)
            .field("truncated", &self.truncated)
            .field("repaired", &self.repaired)
            .finish_non_exhaustive()
    }
}

/// Reads a raw RFC 5322 message. Fails only when the bytes hold no header at all.
pub fn parse(raw: &[u8]) -> Result<InboundMail, MailError> {
    if raw.iter().all(u8::is_ascii_whitespace) {
        return Err(MailError::Empty);
    }
    let message_truncated = raw.len() > MAX_MESSAGE_BYTES;
    let raw = raw.get(..MAX_MESSAGE_BYTES).unwrap_or(raw);
    let message = parse_mime(raw)?.ok_or(MailError::NoHeaders)?;
    let root = message.root_part();
    if root.headers.is_empty() {
        return Err(MailError::NoHeaders);
    }

    let headers: Vec<RawHeader> = root
        .headers
        .iter()
        .take(MAX_HEADERS)
        .map(|header| RawHeader {
            name: clean_line(header.name.as_str()),
            value: raw_value(raw, header.offset_start, header.offset_end),
        })
        .collect();
    let raw_values = |name: &str| -> Vec<String> {
        headers
            .iter()
            .filter(|h| h.name.eq_ignore_ascii_case(name))
            .map(|h| h.value.clone())
            .collect()
    };

    let (mut body, mut body_source, mut body_truncated) = body_text(&message);
    let mut attachments = attachments_of(&message);
    let mut repaired = false;
    let is_multipart = root
        .content_type()
        .is_some_and(|ct| ct.ctype().eq_ignore_ascii_case("multipart"));
    if body_source == BodySource::None && is_multipart {
        let body_start = usize::try_from(root.offset_body).unwrap_or(usize::MAX);
        if let Some(recovered) = recover_multipart(raw.get(body_start..).unwrap_or_default()) {
            (body, body_source, body_truncated, attachments) = recovered;
            repaired = true;
        }
    }

    let content_type = root.content_type().map_or_else(
        || "text/plain".to_owned(),
        |ct| match ct.subtype() {
            Some(sub) => format!("{}/{}", ct.ctype(), sub).to_ascii_lowercase(),
            None => ct.ctype().to_ascii_lowercase(),
        },
    );

    Ok(InboundMail {
        message_id: message.message_id().and_then(clean_id),
        from: message
            .from()
            .and_then(|a| mailboxes(a).into_iter().next())
            .or_else(|| raw_values("From").first().and_then(|v| raw_mailbox(v))),
        reply_to: message.reply_to().map(mailboxes).unwrap_or_default(),
        to: all_mailboxes(message.header_values(HeaderName::To)),
        cc: all_mailboxes(message.header_values(HeaderName::Cc)),
        delivered_to: raw_values("Delivered-To")
            .iter()
            .filter_map(|v| bare_address(v))
            .take(MAX_ADDRESSES)
            .collect(),
        subject: message.subject().map(clean_line),
        date: message.date().map(|d| d.to_rfc3339()),
        in_reply_to: ids(message.in_reply_to()),
        references: ids(message.references()),
        return_path: match raw_values("Return-Path").first() {
            None => ReturnPath::Missing,
            Some(value) => match bare_address(value) {
                None => ReturnPath::Null,
                Some(address) => ReturnPath::Address(address),
            },
        },
        content_type,
        headers,
        body,
        body_source,
        attachments,
        truncated: Truncated {
            message: message_truncated,
            body: body_truncated,
        },
        repaired,
    })
}

fn attachments_of(message: &mail_parser::Message<'_>) -> Vec<Attachment> {
    message
        .attachments()
        .take(MAX_ATTACHMENTS)
        .map(|part| {
            let content_type = part.content_type().map_or_else(
                || "application/octet-stream".to_owned(),
                |ct| match ct.subtype() {
                    Some(sub) => format!("{}/{}", ct.ctype(), sub).to_ascii_lowercase(),
                    None => ct.ctype().to_ascii_lowercase(),
                },
            );
            let inline = part.content_disposition().is_some_and(|d| d.is_inline())
                || part.content_id().is_some();
            Attachment {
                name: part.attachment_name().map(clean_line),
                content_type,
                size: part.len(),
                inline,
            }
        })
        .collect()
}

/// The Message-ID alone, reading the headers only: what the doors store a message under,
/// before anything else is done with it. The same as [`parse`]'s `message_id` for the same bytes.
pub fn message_id(raw: &[u8]) -> Option<String> {
    let raw = raw.get(..MAX_MESSAGE_BYTES).unwrap_or(raw);
    std::panic::catch_unwind(|| MessageParser::default().parse_headers(raw))
        .ok()
        .flatten()?
        .message_id()
        .and_then(clean_id)
}

/// The From: (as `Name <address>`, or the address) and the Subject: of a message, reading its
/// headers only (the GM's inbox lists messages by them). Each `None` when missing.
pub fn sender_and_subject(raw: &[u8]) -> (Option<String>, Option<String>) {
    let raw = raw.get(..MAX_MESSAGE_BYTES).unwrap_or(raw);
    let Some(headers) = std::panic::catch_unwind(|| MessageParser::default().parse_headers(raw))
        .ok()
        .flatten()
    else {
        return (None, None);
    };
    let from = headers.from().and_then(|from| from.first()).map(|who| {
        let address = who.address().unwrap_or_default();
        match who.name() {
            Some(name) if !name.trim().is_empty() => format!("{} <{address}>", clean_line(name)),
            _ => address.to_owned(),
        }
    });
    let subject = headers.subject().map(clean_line);
    (from, subject)
}

/// mail-parser, with its panics caught: 0.11 panics on some broken multiparts ("Invalid part
/// ID, could not find multipart", found by fuzzing). Uncaught, that panic would end the
/// worker and leave the stored message first in the queue, to end the next one too.
fn parse_mime(raw: &[u8]) -> Result<Option<mail_parser::Message<'_>>, MailError> {
    std::panic::catch_unwind(|| MessageParser::default().parse(raw))
        .map_err(|_| MailError::Malformed)
}

/// A multipart body whose declared boundary never occurs (a broken mailer's): reads it again
/// with the boundary its first delimiter line (`--something`) uses.
fn recover_multipart(body: &[u8]) -> Option<(String, BodySource, bool, Vec<Attachment>)> {
    let delimiter = body
        .split(|&b| b == b'\n')
        .take(200)
        .map(|line| line.strip_suffix(b"\r").unwrap_or(line))
        .find(|line| line.starts_with(b"--") && (3..=72).contains(&line.len()))?;
    let boundary = std::str::from_utf8(delimiter.get(2..)?).ok()?.trim_end();
    if boundary.is_empty()
        || !boundary
            .chars()
            .all(|c| (c.is_ascii_graphic() && c != '"' && c != '\\') || c == ' ')
    {
        return None;
    }
    let mut synthetic = format!(
        "MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"{boundary}\"\r\n\r\n"
    )
    .into_bytes();
    synthetic.extend_from_slice(body);
    let message = parse_mime(&synthetic).ok().flatten()?;
    let (text, source, truncated) = body_text(&message);
    (source != BodySource::None).then(|| (text, source, truncated, attachments_of(&message)))
}

/// The raw value of a header field: unfolded, lossily decoded, trimmed, capped.
fn raw_value(raw: &[u8], start: u32, end: u32) -> String {
    let start = usize::try_from(start).unwrap_or(usize::MAX);
    let end = usize::try_from(end).unwrap_or(usize::MAX);
    let bytes = raw.get(start..end).unwrap_or_default();
    let bytes = bytes.get(..MAX_HEADER_VALUE_BYTES).unwrap_or(bytes);
    clean_line(&String::from_utf8_lossy(bytes))
}

/// A single line of text: control characters (CR, LF, tab, NUL ...) become spaces, runs of
/// spaces one space, ends trimmed.
pub(crate) fn clean_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        let c = if c.is_control() || c == '\u{a0}' || c == '\u{2028}' || c == '\u{2029}' {
            ' '
        } else {
            c
        };
        if c == ' ' && (out.is_empty() || out.ends_with(' ')) {
            continue;
        }
        out.push(c);
    }
    out.truncate(out.trim_end().len());
    out
}

/// A Message-ID as kept: no angle brackets, no spaces or control characters, at most 998 bytes.
fn clean_id(id: &str) -> Option<String> {
    let id = id
        .trim()
        .trim_start_matches('<')
        .trim_end_matches('>')
        .trim();
    if id.is_empty() || id.len() > 998 || id.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return None;
    }
    Some(id.to_owned())
}

fn ids(value: &HeaderValue<'_>) -> Vec<String> {
    match value {
        HeaderValue::Text(id) => clean_id(id).into_iter().collect(),
        HeaderValue::TextList(list) => list
            .iter()
            .filter_map(|id| clean_id(id))
            .take(MAX_ADDRESSES)
            .collect(),
        _ => Vec::new(),
    }
}

/// The address in `<a@b>`, `a@b` or `Name <a@b>`; `None` for `<>` or nothing.
fn bare_address(value: &str) -> Option<String> {
    let inner = match (value.find('<'), value.rfind('>')) {
        (Some(open), Some(close)) if open < close => value.get(open + 1..close).unwrap_or(""),
        _ => value,
    };
    let inner = inner.trim();
    if inner.is_empty() || inner.chars().any(char::is_whitespace) {
        None
    } else {
        Some(inner.to_owned())
    }
}

/// `Name <a@b>` or `a@b` read from a header's raw text, for a From that mail-parser cannot read
/// (raw 8-bit bytes in the display name, as old mailers send Latin-1 names).
fn raw_mailbox(value: &str) -> Option<Mailbox> {
    let address = bare_address(value).filter(|a| deliverable(a))?;
    let name = value
        .find('<')
        .and_then(|open| value.get(..open))
        .map(|name| clean_line(name.trim().trim_matches('"')))
        .filter(|name| !name.is_empty());
    Some(Mailbox { address, name })
}

/// Whether an address can be mailed at all: `local@domain` within RFC 5321's limits (a path
/// of 256 octets with its brackets, a local part of 64). Anything longer is no one's mailbox,
/// and a reply to it could never be delivered.
fn deliverable(address: &str) -> bool {
    address.len() <= 254
        // An RFC 2047 encoded word run into the address (`=?UTF-8?Q?Chlo=E9?=chloe@...`) is a
        // display name without its angle brackets: written back in a reply's To:, it reads as
        // a name and a different address than the one the reply goes to.
        && !address.contains("=?")
        && address.rsplit_once('@').is_some_and(|(local, domain)| {
            !local.is_empty() && local.len() <= 64 && !domain.is_empty()
        })
}

fn mailboxes(address: &Address<'_>) -> Vec<Mailbox> {
    address
        .iter()
        .filter_map(|addr| {
            let address = clean_line(addr.address()?);
            if !deliverable(&address) {
                return None;
            }
            let name = addr.name().map(clean_line).filter(|n| !n.is_empty());
            Some(Mailbox { address, name })
        })
        .take(MAX_ADDRESSES)
        .collect()
}

fn all_mailboxes<'a>(values: impl Iterator<Item = &'a HeaderValue<'a>>) -> Vec<Mailbox> {
    values
        .filter_map(HeaderValue::as_address)
        .flat_map(mailboxes)
        .take(MAX_ADDRESSES)
        .collect()
}

/// The body text: every text/plain part the sender's program shows, in order; HTML turned into
/// text only when there is no text/plain with any text in it.
fn body_text(message: &mail_parser::Message<'_>) -> (String, BodySource, bool) {
    let mut texts: Vec<String> = Vec::new();
    let mut flowed = false;
    for part in message.text_bodies() {
        if let PartType::Text(text) = &part.body {
            let format = part.content_type().and_then(|ct| ct.attribute("format"));
            if format.is_some_and(|f| f.eq_ignore_ascii_case("flowed")) {
                let delsp = part
                    .content_type()
                    .and_then(|ct| ct.attribute("delsp"))
                    .is_some_and(|d| d.eq_ignore_ascii_case("yes"));
                texts.push(unflow(&normalise(text), delsp));
                flowed = true;
            } else {
                texts.push(normalise(text));
            }
        }
    }
    let mut source = if flowed {
        BodySource::Flowed
    } else {
        BodySource::Plain
    };
    if texts.iter().all(|t| t.trim().is_empty()) {
        texts = message
            .text_bodies()
            .chain(message.html_bodies())
            .filter_map(|part| match &part.body {
                PartType::Html(html) => {
                    let html = html
                        .get(..cap_at_char(html, MAX_MESSAGE_BYTES))
                        .unwrap_or("");
                    Some(normalise(&html_to_text(html)))
                }
                _ => None,
            })
            .take(1)
            .collect();
        source = if texts.is_empty() {
            BodySource::None
        } else {
            BodySource::Html
        };
    }
    let mut body = texts.join("\n");
    let mut truncated = false;
    if body.len() > MAX_BODY_BYTES {
        let cut = cap_at_char(&body, MAX_BODY_BYTES);
        let cut = body.get(..cut).and_then(|b| b.rfind('\n')).unwrap_or(cut);
        body.truncate(cut);
        truncated = true;
    }
    (body, source, truncated)
}

/// The largest index at most `max` that is a char boundary of `text`.
fn cap_at_char(text: &str, max: usize) -> usize {
    if text.len() <= max {
        return text.len();
    }
    (0..=max)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0)
}

/// Line ends as `\n`; no-break spaces as spaces; other control characters, byte-order marks and
/// zero-width spaces dropped.
fn normalise(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                if chars.peek() != Some(&'\n') {
                    out.push('\n');
                }
            }
            '\n' | '\t' => out.push(c),
            '\u{a0}' => out.push(' '),
            '\u{feff}' | '\u{200b}' => {}
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// Joins the soft line breaks of format=flowed text (RFC 3676 section 4): a line ending in a
/// space continues on the next line of the same quote depth. The signature separator `-- ` is
/// never joined; space-stuffing is undone.
fn unflow(text: &str, delsp: bool) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut open: Option<(usize, String)> = None;
    for line in text.split('\n') {
        let depth = line.chars().take_while(|&c| c == '>').count();
        let content = line.get(depth..).unwrap_or("");
        let content = content.strip_prefix(' ').unwrap_or(content);
        let soft = content.ends_with(' ') && content != "-- ";
        let piece = if soft && delsp {
            content.strip_suffix(' ').unwrap_or(content)
        } else {
            content
        };
        match &mut open {
            Some((open_depth, buffer)) if *open_depth == depth => buffer.push_str(piece),
            _ => {
                if let Some((d, buffer)) = open.take() {
                    out.push(quoted(d, &buffer));
                }
                open = Some((depth, piece.to_owned()));
            }
        }
        if !soft && let Some((d, buffer)) = open.take() {
            out.push(quoted(d, &buffer));
        }
    }
    if let Some((d, buffer)) = open {
        out.push(quoted(d, &buffer));
    }
    out.join("\n")
}

fn quoted(depth: usize, content: &str) -> String {
    if depth == 0 {
        content.to_owned()
    } else {
        format!("{} {}", ">".repeat(depth), content.trim_end())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flowed_lines_are_joined() {
        let text = "PRESS The fleet sails at dawn and the admiral \nsays so.\n>> quoted \n>> more\n-- \nsig";
        assert_eq!(
            unflow(text, false),
            "PRESS The fleet sails at dawn and the admiral says so.\n>> quoted more\n-- \nsig"
        );
        assert_eq!(unflow("a \nb", true), "ab");
        assert_eq!(unflow(" From me", false), "From me");
    }

    #[test]
    fn clean_line_removes_controls() {
        assert_eq!(clean_line(" a\r\n\tb\0c  "), "a b c");
    }

    #[test]
    fn addresses_are_found_in_angle_brackets() {
        assert_eq!(bare_address("<>"), None);
        assert_eq!(bare_address(" <a@b> "), Some("a@b".to_owned()));
        assert_eq!(bare_address("a@b"), Some("a@b".to_owned()));
        assert_eq!(bare_address("Some One <a@b>"), Some("a@b".to_owned()));
    }

    #[test]
    fn a_from_with_raw_8bit_bytes_in_its_name_is_read() {
        // Found by the hostile-mail tests: mail-parser reads no address here, and the message
        // was dropped as having no From although it carried a valid reply token.
        let mail = parse(
            b"From: Fr\xe9d\xe9ric \xc3\x28 <fred@example.org>\r\nTo: a@b.example\r\n\r\nHELP\r\n",
        )
        .unwrap();
        let from = mail.from.unwrap();
        assert_eq!(from.address, "fred@example.org");
        assert!(from.name.is_some_and(|n| n.starts_with("Fr")));
    }

    #[test]
    fn an_overlong_address_is_no_address() {
        // Found by the hostile-mail tests: a 5,000-character sender was answered, and the
        // reply could only fail at the relay.
        let raw = format!(
            "From: {}@example.org\r\nTo: orders@example.org, {}@example.org\r\n\r\nHELP\r\n",
            "f".repeat(5000),
            "x".repeat(65)
        );
        let mail = parse(raw.as_bytes()).unwrap();
        assert_eq!(mail.from, None);
        assert_eq!(mail.to.len(), 1);
        let mail = parse(b"From: Fred <fred@example.org>\r\n\r\nHELP\r\n").unwrap();
        assert_eq!(mail.from.unwrap().address, "fred@example.org");
    }

    #[test]
    fn empty_and_headerless_input_is_refused() {
        assert_eq!(parse(b""), Err(MailError::Empty));
        assert_eq!(parse(b" \r\n"), Err(MailError::Empty));
    }

    #[test]
    fn body_is_capped_at_a_line_end() {
        let mut raw = b"From: a@example.com\r\nSubject: big\r\n\r\n".to_vec();
        for _ in 0..40_000 {
            raw.extend_from_slice(b"F1 A-B\r\n");
        }
        let mail = parse(&raw).unwrap();
        assert!(mail.truncated.body);
        assert!(mail.body.len() <= MAX_BODY_BYTES);
        assert!(mail.body.ends_with("F1 A-B"));
    }
}
