//! What the players' game page says about a set of orders the engine found problems in: each
//! problem worded for the web, with the engines' examples (written between backticks, as mail
//! shows them) as code.

use crate::letters::verdict::EntryKind;

/// A piece of a problem's text: plain words, or an example to show as code.
pub(crate) struct TextPart {
    pub text: String,
    pub code: bool,
}

/// `text` cut at its backticks: what stands between a pair is code. An unpaired backtick
/// is kept as written.
pub(crate) fn code_spans(text: &str) -> Vec<TextPart> {
    let mut parts = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('`') {
        let after = rest.get(open + 1..).unwrap_or_default();
        let Some(close) = after.find('`') else { break };
        let (before, code) = (rest.get(..open).unwrap_or_default(), after.get(..close));
        if !before.is_empty() {
            parts.push(TextPart {
                text: before.to_owned(),
                code: false,
            });
        }
        if let Some(code) = code.filter(|c| !c.is_empty()) {
            parts.push(TextPart {
                text: code.to_owned(),
                code: true,
            });
        }
        rest = after.get(close + 1..).unwrap_or_default();
    }
    if !rest.is_empty() {
        parts.push(TextPart {
            text: rest.to_owned(),
            code: false,
        });
    }
    parts
}

/// One problem with a line, as the web page words it.
pub(crate) struct IssueView {
    pub kind: EntryKind,
    pub line: usize,
    pub text: String,
    pub problem: Vec<TextPart>,
    pub expected: Vec<TextPart>,
}

impl IssueView {
    /// A line of the one verdict (`letters::verdict`), in its words.
    pub fn from_entry(entry: &crate::letters::verdict::Entry) -> Self {
        IssueView {
            kind: entry.kind,
            line: entry.line,
            text: entry.text.clone(),
            problem: code_spans(&entry.problem),
            expected: code_spans(entry.expected.as_deref().unwrap_or("")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(parts: &[TextPart]) -> String {
        parts
            .iter()
            .map(|p| {
                if p.code {
                    format!("<{}>", p.text)
                } else {
                    p.text.clone()
                }
            })
            .collect()
    }

    #[test]
    fn examples_between_backticks_are_code() {
        assert_eq!(
            shown(&code_spans("two squares such as `G13, K19` (columns A–S)")),
            "two squares such as <G13, K19> (columns A–S)"
        );
        assert_eq!(shown(&code_spans("`A` or `B`")), "<A> or <B>");
        assert_eq!(shown(&code_spans("a lone ` stays")), "a lone ` stays");
        assert_eq!(shown(&code_spans("")), "");
    }
}
