//! The editorial and the letters are written by people (the GM, any subscriber) and printed in
//! HTML: Markdown through pulldown-cmark with every piece of raw HTML escaped, so a letter can
//! never add markup, a script or a tracking image to the issue.

use pulldown_cmark::{Event, Options, Parser, html};

/// Markdown to an HTML fragment. Raw HTML (blocks and inline) is shown as text; images become
/// their alt text and a link, so nothing is fetched when the issue is read; links keep only
/// http, https and mailto targets.
pub fn to_html(markdown: &str) -> String {
    let events =
        Parser::new_ext(markdown, Options::ENABLE_STRIKETHROUGH).map(|event| match event {
            Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
            other => other,
        });
    let events = events.map(|event| match event {
        Event::Start(pulldown_cmark::Tag::Image {
            dest_url, title, ..
        }) => Event::Start(pulldown_cmark::Tag::Link {
            link_type: pulldown_cmark::LinkType::Inline,
            dest_url,
            title,
            id: "".into(),
        }),
        Event::End(pulldown_cmark::TagEnd::Image) => Event::End(pulldown_cmark::TagEnd::Link),
        Event::Start(pulldown_cmark::Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        }) if !safe_target(&dest_url) => Event::Start(pulldown_cmark::Tag::Link {
            link_type,
            dest_url: "#".into(),
            title,
            id,
        }),
        other => other,
    });
    let mut out = String::new();
    html::push_html(&mut out, events);
    out
}

fn safe_target(url: &str) -> bool {
    let lower = url.trim().to_ascii_lowercase();
    ["http://", "https://", "mailto:"]
        .iter()
        .any(|scheme| lower.starts_with(scheme))
        || !lower.contains(':')
}

/// Markdown as plain text for the 80-column issue: the source itself (Markdown reads as text),
/// each paragraph wrapped at `width` columns; lines of a list or a quote keep their marks.
pub fn to_text(markdown: &str, width: usize) -> String {
    let mut out = Vec::new();
    for line in markdown.replace("\r\n", "\n").lines() {
        let line = line.trim_end();
        if line.is_empty() {
            out.push(String::new());
            continue;
        }
        let indent: String = line.chars().take_while(|c| c.is_whitespace()).collect();
        let options = textwrap::Options::new(width)
            .initial_indent(&indent)
            .subsequent_indent(&indent)
            .break_words(true);
        out.extend(
            textwrap::wrap(line.trim_start(), options)
                .into_iter()
                .map(|l| l.into_owned()),
        );
    }
    out.join("\n").trim_matches('\n').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_html_is_escaped_never_passed_through() {
        let html = to_html("Hello <script>alert(1)</script>\n\n<img src=x onerror=alert(2)>");
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("<img"), "{html}");
        assert!(html.contains("&lt;script&gt;"), "{html}");
    }

    #[test]
    fn markdown_becomes_html_and_unsafe_links_are_disarmed() {
        let html = to_html(
            "*Steady* [fleet](https://example.org) [x](javascript:alert(1)) ![pic](http://t.example/p.gif)",
        );
        assert!(html.contains("<em>Steady</em>"), "{html}");
        assert!(html.contains("href=\"https://example.org\""), "{html}");
        assert!(!html.contains("javascript"), "{html}");
        assert!(!html.contains("<img"), "{html}");
    }

    #[test]
    fn text_is_wrapped_at_the_width() {
        let text = to_text(&"word ".repeat(40), 78);
        assert!(text.lines().all(|l| l.chars().count() <= 78), "{text}");
        assert!(text.lines().count() > 1);
    }
}
