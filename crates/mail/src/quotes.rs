//! Keeps only what the person wrote in this message, so a player can simply reply to a turn
//! report: quoted history, attributions ("On ... wrote:"), Outlook's original-message blocks,
//! forwarded messages, signatures and mobile footers are removed, and each kept line keeps its
//! ORIGINAL line number (the confirmation cites errors by the line number of the message as the
//! player wrote it).
//!
//! The rules, in the order they are tried on each line:
//! 1. A line starting with `>` (after spaces) is quoted: removed, and reading goes on, so text
//!    written between quoted lines (an inline or bottom-posted reply) is kept.
//! 2. A line from which everything to the end is history, removed to the end:
//!    a signature separator (`-- ` or `--`); Outlook's `-----Original Message-----` (and its
//!    German, French, Spanish, Italian, Dutch, Nordic and Polish forms, and Foxmail's
//!    `--- Original ---`); a line of 16 or more `_` (Outlook's separator); a `From:` line
//!    followed within six lines by `Sent:`/`Date:` and `To:`/`Subject:` (Outlook's header
//!    block, in the same languages); a forwarded-message marker; Yahoo's
//!    `On <date>, <name> wrote: <original text>` all on one line; a mobile footer ("Sent from my
//!    iPhone", "Get Outlook for Android", ...) when nothing the person wrote follows it.
//! 3. An attribution line (`On <date>, <name> wrote:`, also wrapped over two or three lines,
//!    and `Am ... schrieb ...:`, `Le ... a écrit :`, `El ... escribió:`, `Il ... ha scritto:`,
//!    `Op ... schreef ...:`, `Em ... escreveu:`, `Den ... skrev ...:`, `W dniu ... napisał:`,
//!    `... kirjoitti:`, `<address> wrote:`): removed. If the next non-blank line is quoted
//!    (`>`) reading goes on (a bottom-posted reply may follow the quote); if it is not, the
//!    client pasted the original unquoted (Yahoo, some mobile clients) and everything to the
//!    end is removed.
//!
//! Greetings and sign-offs ("Hi all,", "Regards, Agnes") are the person's text and are kept:
//! the order reader of every door (`engine::chat`, the same for mail and the web form) sets
//! them aside and says so, so that a line is judged alike whichever door it came through.
//!
//! Forwards: a forwarded message is not what the person wrote in this message, so it is removed
//! like history ([`RemovalKind::Forwarded`]), and only the text above the marker counts. The
//! confirmation should say so, for the player who meant to resend earlier orders: copy them into
//! the body instead.

use serde::Serialize;

/// One line of a message body, with its 1-based line number in the body as the sender wrote it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Line {
    /// 1-based line number in the body.
    pub number: usize,
    /// The line as written, without its line end.
    pub text: String,
}

/// Why lines were removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RemovalKind {
    /// Lines starting with `>`.
    Quoted,
    /// "On ... wrote:" and its translations.
    Attribution,
    /// A previous message pasted below the reply: Outlook's blocks and separators, or an
    /// original pasted unquoted after an attribution.
    History,
    /// A forwarded message, from its marker to the end.
    Forwarded,
    /// A signature, from `-- ` to the end.
    Signature,
    /// "Sent from my iPhone" and its kin.
    MobileFooter,
}

/// A run of removed lines, by original line numbers (inclusive).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Removal {
    /// Why.
    pub kind: RemovalKind,
    /// First removed line number.
    pub first: usize,
    /// Last removed line number (inclusive).
    pub last: usize,
}

/// The lines a person wrote in this message, and what was removed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Stripped {
    /// Kept lines, blank ones included (a blank line ends a PRESS), with original numbers.
    pub lines: Vec<Line>,
    /// What was removed, in line order.
    pub removed: Vec<Removal>,
}

impl Stripped {
    /// Whether lines of this kind were removed (for the confirmation: "the forwarded message
    /// was ignored").
    pub fn removed_any(&self, kind: RemovalKind) -> bool {
        self.removed.iter().any(|r| r.kind == kind)
    }
}

/// The body's lines, numbered from 1. Line ends are `\n` (as [`crate::InboundMail::body`] has
/// them); a `\r` before one is dropped.
pub fn number_lines(body: &str) -> Vec<Line> {
    body.split('\n')
        .enumerate()
        .map(|(index, text)| Line {
            number: index + 1,
            text: text.strip_suffix('\r').unwrap_or(text).to_owned(),
        })
        .collect()
}

/// The lines of `body` that the person wrote in this message (see the module docs).
pub fn strip(body: &str) -> Stripped {
    let all = number_lines(body);
    let last_number = all.last().map_or(0, |l| l.number);
    let mut out = Stripped::default();
    let mut index = 0;
    while let Some(line) = all.get(index) {
        if is_quoted(&line.text) {
            note(
                &mut out.removed,
                RemovalKind::Quoted,
                line.number,
                line.number,
            );
            index += 1;
            continue;
        }
        if let Some(kind) = history_marker(&all, index) {
            note(&mut out.removed, kind, line.number, last_number);
            break;
        }
        if let Some(length) = attribution(&all, index) {
            let after = index + length;
            let last_of_attribution = line.number + length - 1;
            note(
                &mut out.removed,
                RemovalKind::Attribution,
                line.number,
                last_of_attribution,
            );
            let next = all
                .get(after..)
                .unwrap_or_default()
                .iter()
                .find(|l| !l.text.trim().is_empty());
            match next {
                Some(next) if !is_quoted(&next.text) => {
                    note(
                        &mut out.removed,
                        RemovalKind::History,
                        last_of_attribution + 1,
                        last_number,
                    );
                    break;
                }
                _ => {
                    index = after;
                    continue;
                }
            }
        }
        out.lines.push(line.clone());
        index += 1;
    }
    out.removed.sort_by_key(|r| r.first);
    out
}

/// Records removed lines, joining a run that continues the previous one of the same kind.
fn note(removed: &mut Vec<Removal>, kind: RemovalKind, first: usize, last: usize) {
    if let Some(previous) = removed.last_mut()
        && previous.kind == kind
        && previous.last + 1 == first
    {
        previous.last = last;
        return;
    }
    removed.push(Removal { kind, first, last });
}

fn is_quoted(text: &str) -> bool {
    text.trim_start().starts_with('>')
}

/// A line from which everything to the end is not the person's new text.
fn history_marker(all: &[Line], index: usize) -> Option<RemovalKind> {
    let text = &all.get(index)?.text;
    if let Some(kind) = hard_marker(all, index) {
        return Some(kind);
    }
    if is_mobile_footer(text) && rest_is_history(all, index + 1) {
        return Some(RemovalKind::MobileFooter);
    }
    None
}

/// The markers that end the person's text whatever follows.
fn hard_marker(all: &[Line], index: usize) -> Option<RemovalKind> {
    let text = &all.get(index)?.text;
    if text.trim_end() == "--" {
        return Some(RemovalKind::Signature);
    }
    let trimmed = text.trim();
    if trimmed.len() >= 16 && trimmed.chars().all(|c| c == '_') {
        return Some(RemovalKind::History);
    }
    let lower = trimmed.to_lowercase();
    if is_inline_attribution(&lower) {
        return Some(RemovalKind::History);
    }
    if lower.starts_with("--") || lower.starts_with("==") {
        let inner = lower.trim_matches(|c: char| c == '-' || c == '=' || c.is_whitespace());
        if ORIGINAL_MARKERS.contains(&inner) {
            return Some(RemovalKind::History);
        }
        if FORWARD_MARKERS.contains(&inner) {
            return Some(RemovalKind::Forwarded);
        }
    }
    if FORWARD_LINES.contains(&lower.as_str()) {
        return Some(RemovalKind::Forwarded);
    }
    if is_header_block(all, index) {
        return Some(RemovalKind::History);
    }
    None
}

/// Whether nothing after `index` is the person's text: only blank lines, quoted lines,
/// attributions and history follow.
fn rest_is_history(all: &[Line], index: usize) -> bool {
    let mut index = index;
    while let Some(line) = all.get(index) {
        if line.text.trim().is_empty() {
            index += 1;
            continue;
        }
        return is_quoted(&line.text)
            || hard_marker(all, index).is_some()
            || attribution(all, index).is_some();
    }
    true
}

const ORIGINAL_MARKERS: &[&str] = &[
    "original message",
    "original",
    "ursprüngliche nachricht",
    "ursprungliche nachricht",
    "message d'origine",
    "message d’origine",
    "mensaje original",
    "messaggio originale",
    "oorspronkelijk bericht",
    "originalmeddelande",
    "ursprungligt meddelande",
    "oprindelig meddelelse",
    "opprinnelig melding",
    "wiadomość oryginalna",
    "mensagem original",
];

const FORWARD_MARKERS: &[&str] = &[
    "forwarded message",
    "forwarded message follows",
    "weitergeleitete nachricht",
    "message transféré",
    "mensaje reenviado",
    "messaggio inoltrato",
    "doorgestuurd bericht",
    "mensagem encaminhada",
    "vidarebefordrat meddelande",
    "videresendt meddelelse",
    "przekazana wiadomość",
];

const FORWARD_LINES: &[&str] = &[
    "begin forwarded message:",
    "anfang der weitergeleiteten nachricht:",
    "début du message réexpédié :",
    "début du message réexpédié:",
    "inicio del mensaje reenviado:",
    "inizio messaggio inoltrato:",
    "begin doorgestuurd bericht:",
    "início da mensagem reencaminhada:",
];

const MOBILE_FOOTERS: &[&str] = &[
    "sent from my ",
    "sent from mobile",
    "sent from yahoo mail",
    "sent from the all new aol app",
    "sent from aol mobile mail",
    "sent from mail for windows",
    "sent from outlook",
    "sent from proton mail",
    "sent with proton mail",
    "sent from protonmail",
    "sent with protonmail",
    "sent from fastmail",
    "sent from samsung",
    "sent via the samsung",
    "sent from gmail mobile",
    "sent from my phone",
    "sent using ",
    "get outlook for ",
    "envoyé de mon ",
    "envoyé depuis mon ",
    "envoyé à partir de ",
    "von meinem ",
    "gesendet von meinem ",
    "gesendet mit der ",
    "enviado desde mi ",
    "enviado de meu ",
    "enviado do meu ",
    "inviato da ",
    "verzonden vanaf mijn ",
    "verstuurd vanaf mijn ",
    "skickat från min ",
    "sendt fra min ",
    "wysłane z mojego ",
];

fn is_mobile_footer(text: &str) -> bool {
    let lower = text.trim().to_lowercase();
    lower.chars().count() <= 80 && MOBILE_FOOTERS.iter().any(|f| lower.starts_with(f))
}

/// The label before `:` of an Outlook header line (`*From:*` and `From :` too), lower case.
fn header_label(text: &str) -> Option<String> {
    let text = text.trim().trim_start_matches('*');
    let (label, _) = text.split_once(':')?;
    let label = label.trim().trim_end_matches('*').trim();
    (label.chars().count() <= 20).then(|| label.to_lowercase())
}

const FROM_LABELS: &[&str] = &["from", "von", "de", "da", "van", "från", "fra", "od"];
const SENT_LABELS: &[&str] = &[
    "sent",
    "date",
    "gesendet",
    "datum",
    "envoyé",
    "envoyé le",
    "date d'envoi",
    "enviado",
    "enviado el",
    "fecha",
    "inviato",
    "data",
    "verzonden",
    "skickat",
    "sendt",
    "wysłano",
];
const TO_LABELS: &[&str] = &[
    "to",
    "subject",
    "an",
    "betreff",
    "à",
    "a",
    "objet",
    "para",
    "asunto",
    "oggetto",
    "aan",
    "onderwerp",
    "till",
    "ämne",
    "til",
    "emne",
    "do",
    "temat",
    "cc",
];

/// `From:` followed, within six lines, by `Sent:`/`Date:` and `To:`/`Subject:`.
fn is_header_block(all: &[Line], index: usize) -> bool {
    let is_from = all
        .get(index)
        .and_then(|l| header_label(&l.text))
        .is_some_and(|label| FROM_LABELS.contains(&label.as_str()));
    if !is_from {
        return false;
    }
    let labels: Vec<String> = all
        .iter()
        .skip(index + 1)
        .filter(|l| !l.text.trim().is_empty())
        .take(6)
        .filter_map(|l| header_label(&l.text))
        .collect();
    labels.iter().any(|l| SENT_LABELS.contains(&l.as_str()))
        && labels.iter().any(|l| TO_LABELS.contains(&l.as_str()))
}

/// The number of lines (1 to 3) of an attribution starting at `index`.
fn attribution(all: &[Line], index: usize) -> Option<usize> {
    let first = all.get(index)?.text.trim();
    if first.is_empty() || is_quoted(first) {
        return None;
    }
    if is_attribution(first) {
        return Some(1);
    }
    let lower = first.to_lowercase();
    if !ATTRIBUTION_STARTS.iter().any(|s| lower.starts_with(s)) {
        return None;
    }
    let mut joined = first.to_owned();
    for extra in 1..=2 {
        let next = all.get(index + extra)?.text.trim();
        if next.is_empty() || is_quoted(next) {
            return None;
        }
        joined.push(' ');
        joined.push_str(next);
        if is_attribution(&joined) {
            return Some(extra + 1);
        }
    }
    None
}

/// "On <date>, <name> wrote: <the original's first line>" on one line, as Yahoo's text part
/// has it: the original follows unquoted.
fn is_inline_attribution(lower: &str) -> bool {
    lower.starts_with("on ")
        && lower
            .find(" wrote: ")
            .is_some_and(|at| at < 300 && lower.get(at + 8..).is_some_and(|r| !r.trim().is_empty()))
}

const ATTRIBUTION_STARTS: &[&str] = &[
    "on ", "am ", "le ", "el ", "il ", "op ", "em ", "den ", "d. ", "w dniu ",
];

fn is_attribution(text: &str) -> bool {
    let lower = text.trim().to_lowercase();
    if lower.chars().count() > 400 || !lower.ends_with(':') {
        return false;
    }
    let starts = |s: &str| lower.starts_with(s);
    let has = |s: &str| lower.contains(s);
    let wrote =
        lower.ends_with("wrote:") || lower.ends_with("wrote :") || lower.ends_with("writes:");
    (wrote && (starts("on ") || lower.contains('@')))
        || (starts("am ") && has("schrieb"))
        || (starts("le ") && has("écrit"))
        || (starts("el ") && has("escribió"))
        || (starts("il ") && has("scritto"))
        || (starts("op ") && has("schreef"))
        || (starts("em ") && has("escreveu"))
        || ((starts("den ") || starts("d. ")) && has("skrev"))
        || (starts("w dniu ") && has("napisał"))
        || lower.ends_with("kirjoitti:")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(body: &str) -> Vec<(usize, String)> {
        strip(body)
            .lines
            .into_iter()
            .filter(|l| !l.text.trim().is_empty())
            .map(|l| (l.number, l.text))
            .collect()
    }

    fn k(number: usize, text: &str) -> (usize, String) {
        (number, text.to_owned())
    }

    #[test]
    fn quoted_lines_go_and_inline_answers_stay() {
        let body = "F1 A-B\n\nOn Mon, 3 Mar 2025 at 10:00, Admiralty <orders@example.org> wrote:\n> Turn 3\n> Your orders?\nF2 C-D\n> more\n";
        assert_eq!(kept(body), vec![k(1, "F1 A-B"), k(6, "F2 C-D")]);
    }

    #[test]
    fn gmail_wraps_the_attribution() {
        let body = "FIRE B7\n\nOn Mon, Mar 3, 2025 at 10:00 AM Admiralty <\norders+k7qw2xzp4m9rtb3n@example.org> wrote:\n\n> Turn 3 report\n";
        let stripped = strip(body);
        assert_eq!(kept(body), vec![k(1, "FIRE B7")]);
        assert_eq!(
            stripped.removed.first(),
            Some(&Removal {
                kind: RemovalKind::Attribution,
                first: 3,
                last: 4
            })
        );
    }

    #[test]
    fn unquoted_original_after_attribution_is_history() {
        let body = "F1 A-B\nOn Monday, March 3, 2025, 10:00 AM GMT, Admiralty <orders@example.org> wrote:\n\nTurn 3 report\nF9 X-Y";
        assert_eq!(kept(body), vec![k(1, "F1 A-B")]);
    }

    #[test]
    fn yahoo_puts_the_original_on_the_attribution_line() {
        let body = "FIRE D4\nSent from Yahoo Mail on Android\n \n  On Mon, 3 Mar 2025 at 10:00, Admiralty<orders@example.org> wrote:   Turn 3 report\nFIRE B7";
        let stripped = strip(body);
        assert_eq!(kept(body), vec![k(1, "FIRE D4")]);
        assert!(stripped.removed_any(RemovalKind::MobileFooter));
    }

    #[test]
    fn foreign_attributions() {
        for attribution in [
            "Am 03.03.2025 um 10:00 schrieb Admiralty <orders@example.org>:",
            "Le lun. 3 mars 2025 à 10:00, Admiralty <orders@example.org> a écrit :",
            "El lun, 3 mar 2025 a las 10:00, Admiralty (<orders@example.org>) escribió:",
            "Il giorno lun 3 mar 2025 alle ore 10:00 Admiralty <orders@example.org> ha scritto:",
            "Op ma 3 mrt 2025 om 10:00 schreef Admiralty <orders@example.org>:",
        ] {
            let body = format!("F1 A-B\n{attribution}\n> quoted");
            assert_eq!(kept(&body), vec![k(1, "F1 A-B")], "{attribution}");
        }
    }

    #[test]
    fn outlook_blocks_cut_to_the_end() {
        let body = "F1 A-B\n\n-----Original Message-----\nFrom: Admiralty\nF9 X-Y";
        assert_eq!(kept(body), vec![k(1, "F1 A-B")]);
        let body = "F1 A-B\n________________________________\nFrom: Admiralty\nF9 X-Y";
        assert_eq!(kept(body), vec![k(1, "F1 A-B")]);
        let body = "F1 A-B\n\nFrom: Admiralty <orders@example.org>\nSent: Monday, March 3, 2025 10:00 AM\nTo: Fred\nSubject: Turn 3\n\nF9 X-Y";
        assert_eq!(kept(body), vec![k(1, "F1 A-B")]);
        let body = "F1 A-B\n*Von:* Admiralty\n*Gesendet:* Montag\n*An:* Fred\nF9";
        assert_eq!(kept(body), vec![k(1, "F1 A-B")]);
    }

    #[test]
    fn a_lone_from_line_is_text() {
        let body = "PRESS news\nFrom: the admiral\nto all hands";
        assert_eq!(kept(body).len(), 3);
    }

    #[test]
    fn signatures_and_footers() {
        assert_eq!(kept("F1 A-B\n-- \nFred\nF9"), vec![k(1, "F1 A-B")]);
        assert_eq!(kept("F1 A-B\n--\nFred"), vec![k(1, "F1 A-B")]);
        assert_eq!(
            kept("F1 A-B\n\nSent from my iPhone\n\n> On ... wrote:\n> x"),
            vec![k(1, "F1 A-B")]
        );
        assert_eq!(
            kept("F1 A-B\nGet Outlook for Android"),
            vec![k(1, "F1 A-B")]
        );
        // Not a footer when the person goes on writing after it.
        assert_eq!(
            kept("PRESS\nSent from my flagship\nthe Victory"),
            vec![
                k(1, "PRESS"),
                k(2, "Sent from my flagship"),
                k(3, "the Victory")
            ]
        );
    }

    #[test]
    fn forwards_keep_only_the_text_above() {
        let body = "Please see below\n\n---------- Forwarded message ---------\nFrom: Fred\nF1 A-B";
        let stripped = strip(body);
        assert_eq!(kept(body), vec![k(1, "Please see below")]);
        assert!(stripped.removed_any(RemovalKind::Forwarded));
        assert_eq!(kept("x\nBegin forwarded message:\n\nF1"), vec![k(1, "x")]);
    }

    #[test]
    fn greetings_and_sign_offs_are_the_persons_text() {
        // Kept for the order reader, which sets them aside the same way at every door.
        let body = "Hi all,\n\nFIRE B7\nPRESS Onward.\n\nCheers,\nOlle Svensson\n";
        let stripped = strip(body);
        assert!(stripped.removed.is_empty(), "{:?}", stripped.removed);
        assert_eq!(
            kept("FIRE B7\nThanks!"),
            vec![k(1, "FIRE B7"), k(2, "Thanks!")]
        );
    }

    #[test]
    fn line_numbers_are_original() {
        let body = "> a\n> b\n\nF1 A-B\r\n";
        assert_eq!(kept(body), vec![k(4, "F1 A-B")]);
    }
}
