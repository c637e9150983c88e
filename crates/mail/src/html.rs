//! HTML mail as the text a reader sees, for messages that have no text/plain part.
//!
//! Why not mail-parser's `html_to_text`: it breaks lines only at `<br>` and `</p>`, and the
//! webmails write each line as a `<div>` (Gmail, Apple Mail, Yahoo, Proton), so a message's
//! orders would run together on one line. Why not the html2text crate: it builds a DOM and its
//! layout takes time quadratic in nesting depth (2,000 nested `<div>`s took most of a second in a
//! test; a hostile message could nest 50,000), and it wraps lines and draws tables. This is a
//! single forward pass, linear in the input, that keeps what matters for orders: line breaks
//! where the reader sees them, `>` before quoted (`<blockquote>`) lines so the quote stripper
//! can drop them, entities decoded, and no text from `<head>`, `<style>` or `<script>`.

use mail_parser::decoders::html::add_html_token;

/// Elements whose content a reader never sees.
const HIDDEN: &[&str] = &["head", "style", "script", "title", "template", "xml"];

/// Elements that start and end a line.
const BLOCKS: &[&str] = &[
    "div", "li", "ul", "ol", "dl", "dt", "dd", "tr", "table", "tbody", "thead", "tfoot", "h1",
    "h2", "h3", "h4", "h5", "h6", "pre", "hr", "section", "article", "header", "footer", "address",
    "center", "form", "fieldset", "body", "html", "main", "nav", "aside", "figure", "caption",
    "details", "summary",
];

struct Writer {
    lines: Vec<String>,
    line: String,
    space_pending: bool,
    quote_depth: usize,
    line_quote_depth: usize,
}

impl Writer {
    fn text_char(&mut self, c: char, preformatted: bool) {
        if c == '\u{a0}' {
            self.push(' ');
        } else if c.is_whitespace() {
            if preformatted {
                if c == '\n' {
                    self.newline();
                } else {
                    self.push(' ');
                }
            } else if !self.line.is_empty() {
                self.space_pending = true;
            }
        } else if !c.is_control() {
            if self.space_pending {
                self.push(' ');
            }
            self.push(c);
        }
    }

    fn push(&mut self, c: char) {
        if self.line.is_empty() {
            self.line_quote_depth = self.quote_depth;
        }
        self.space_pending = false;
        self.line.push(c);
    }

    fn push_str(&mut self, text: &str) {
        for c in text.chars() {
            self.text_char(c, false);
        }
    }

    /// Ends the current line, even an empty one (`<br>`).
    fn newline(&mut self) {
        if self.line.is_empty() {
            self.line_quote_depth = self.quote_depth;
        }
        let depth = self.line_quote_depth;
        let text = self.line.trim_end();
        let mut out = String::with_capacity(depth * 2 + text.len());
        if depth > 0 {
            out.push_str(&">".repeat(depth));
            if !text.is_empty() {
                out.push(' ');
            }
        }
        out.push_str(text);
        self.lines.push(out);
        self.line.clear();
        self.space_pending = false;
    }

    /// Ends the current line if anything was written on it (a block's edge; `&nbsp;` alone
    /// counts, as in Outlook's blank paragraphs).
    fn break_line(&mut self) {
        if !self.line.is_empty() {
            self.newline();
        } else {
            self.line.clear();
            self.space_pending = false;
        }
    }

    /// A blank line, unless one is already there (a paragraph's margin).
    fn blank_line(&mut self) {
        self.break_line();
        if self
            .lines
            .last()
            .is_some_and(|l| !l.trim_start_matches('>').trim().is_empty())
        {
            self.newline();
        }
    }

    fn finish(mut self) -> String {
        self.break_line();
        // Margins and empty blocks leave runs of blank lines; one is enough.
        let mut out: Vec<String> = Vec::with_capacity(self.lines.len());
        for line in self.lines {
            let blank = line.trim().is_empty();
            if blank && out.last().is_none_or(|l| l.trim().is_empty()) {
                continue;
            }
            out.push(line);
        }
        while out.last().is_some_and(|l| l.trim().is_empty()) {
            out.pop();
        }
        out.join("\n")
    }
}

/// The text of an HTML body, one line per line the reader sees.
pub(crate) fn html_to_text(html: &str) -> String {
    // ASCII lower case keeps byte offsets, so searches in `lower` index `html`.
    let lower = html.to_ascii_lowercase();
    let mut writer = Writer {
        lines: Vec::new(),
        line: String::new(),
        space_pending: false,
        quote_depth: 0,
        line_quote_depth: 0,
    };
    let mut preformatted = 0usize;
    let mut position = 0usize;
    let mut tags_closed = true;
    let mut tight_paragraph = false;

    while let Some(rest) = html.get(position..) {
        let mut chars = rest.chars();
        let Some(c) = chars.next() else { break };
        if c == '<' && tags_closed {
            let Some(tag_end) = tag_end(&lower, position) else {
                // No `>` anywhere after: nothing later is a tag either.
                tags_closed = false;
                continue;
            };
            let tag = lower.get(position + 1..tag_end).unwrap_or_default();
            position = tag_end + 1;
            if tag.starts_with("!--") {
                // `tag_end` found the end of the comment already.
                continue;
            }
            let closing = tag.starts_with('/');
            let name: String = tag
                .trim_start_matches('/')
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == ':')
                .collect();
            if !closing && HIDDEN.contains(&name.as_str()) && !tag.ends_with('/') {
                position = skip_hidden(&lower, position, &name);
                continue;
            }
            match name.as_str() {
                "br" => writer.newline(),
                // Outlook writes each line as a margin-less <p class=MsoNormal>.
                "p" => {
                    if !closing {
                        tight_paragraph = tag.contains("msonormal");
                    }
                    if tight_paragraph {
                        writer.break_line();
                    } else {
                        writer.blank_line();
                    }
                }
                "blockquote" => {
                    writer.break_line();
                    writer.quote_depth = if closing {
                        writer.quote_depth.saturating_sub(1)
                    } else {
                        writer.quote_depth.saturating_add(1)
                    };
                }
                "pre" => {
                    writer.break_line();
                    preformatted = if closing {
                        preformatted.saturating_sub(1)
                    } else {
                        preformatted.saturating_add(1)
                    };
                }
                "td" | "th" if !closing && !writer.line.is_empty() => {
                    writer.space_pending = true;
                }
                "img" => {}
                other if BLOCKS.contains(&other) => writer.break_line(),
                _ => {}
            }
        } else if c == '&' {
            let entity_length = rest
                .bytes()
                .skip(1)
                .take(32)
                .position(|b| !(b.is_ascii_alphanumeric() || b == b'#'));
            match entity_length {
                Some(length) if length > 0 && rest.as_bytes().get(length + 1) == Some(&b';') => {
                    let token = rest.get(..length + 2).unwrap_or("&");
                    let mut decoded = String::new();
                    add_html_token(&mut decoded, token.as_bytes(), false);
                    writer.push_str(&decoded);
                    position += length + 2;
                }
                _ => {
                    writer.text_char('&', preformatted > 0);
                    position += 1;
                }
            }
        } else {
            writer.text_char(c, preformatted > 0);
            position += c.len_utf8();
        }
    }
    writer.finish()
}

/// Where the tag (or comment, or `<![if ...]>` section) starting at `start` ends: the index of
/// its last `>`.
fn tag_end(lower: &str, start: usize) -> Option<usize> {
    let rest = lower.get(start..)?;
    if rest.starts_with("<!--") {
        // A comment never closed hides the rest, as in a browser.
        let end = rest
            .get(4..)?
            .find("-->")
            .map_or(lower.len() - 1, |end| start + 4 + end + 2);
        return Some(end);
    }
    rest.find('>').map(|end| start + end)
}

/// The position after the closing tag of a hidden element, or the end of the input.
fn skip_hidden(lower: &str, position: usize, name: &str) -> usize {
    let closing = format!("</{name}");
    let Some(rest) = lower.get(position..) else {
        return lower.len();
    };
    match rest.find(&closing) {
        Some(found) => {
            let after = position + found;
            lower
                .get(after..)
                .and_then(|r| r.find('>'))
                .map_or(lower.len(), |end| after + end + 1)
        }
        None => lower.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::html_to_text;

    #[test]
    fn gmail_divs_become_lines_and_blockquotes_become_quotes() {
        let html = r#"<div dir="ltr"><div>F1 A-B</div><div>F2 C&amp;D &lt;x&gt; caf&eacute; &#233;&nbsp;x</div><div><br></div><div>PRESS hello<br>world</div></div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">On Mon, 3 Mar 2025 at 10:00, Admiralty &lt;orders@example.org&gt; wrote:<br></div><blockquote class="gmail_quote" style="margin:0px">Turn 3 report<br>F1 at A<br><blockquote>deeper</blockquote></blockquote></div>"#;
        assert_eq!(
            html_to_text(html),
            "F1 A-B\nF2 C&D <x> café é x\n\nPRESS hello\nworld\n\nOn Mon, 3 Mar 2025 at 10:00, Admiralty <orders@example.org> wrote:\n> Turn 3 report\n> F1 at A\n>> deeper"
        );
    }

    #[test]
    fn outlook_paragraphs_are_lines_and_head_is_hidden() {
        let html = "<html><head><style><!-- p.MsoNormal {margin:0cm} --></style><!--[if gte mso 9]><xml><o:shapedefaults /></xml><![endif]--></head><body><div class=WordSection1><p class=MsoNormal>F1 move to B<o:p></o:p></p><p class=MsoNormal>F2 hold<o:p></o:p></p><p class=MsoNormal><o:p>&nbsp;</o:p></p><p class=MsoNormal>Regards<o:p></o:p></p></div></body></html>";
        assert_eq!(html_to_text(html), "F1 move to B\nF2 hold\n\nRegards");
    }

    #[test]
    fn plain_paragraphs_have_margins() {
        assert_eq!(html_to_text("<p>one</p><p>two</p>"), "one\n\ntwo");
        assert_eq!(html_to_text("a<br/>b<br><br>c"), "a\nb\n\nc");
    }

    #[test]
    fn broken_html_is_read_as_text() {
        assert_eq!(html_to_text("a < b and c &amp d"), "a < b and c &amp d");
        assert_eq!(html_to_text("x <!-- never closed"), "x");
        assert_eq!(html_to_text("<style>never closed"), "");
        assert_eq!(html_to_text("<<<<<"), "<<<<<");
        assert_eq!(
            html_to_text("&#x1F6A2; &#99999999999; &bogus;"),
            "🚢 &#99999999999; &bogus;"
        );
    }

    #[test]
    fn pre_keeps_its_lines() {
        assert_eq!(
            html_to_text("<pre>F1  A-B\nF2 C-D</pre>"),
            "F1  A-B\nF2 C-D"
        );
    }
}
