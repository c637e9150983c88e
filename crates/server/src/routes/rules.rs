//! The rules pages, `/rules/{engine}`: each engine's own description of its rules, settings
//! and switches (`docs/rules/<engine>.md`, built into the binary), as a page in the layout. The
//! GM's setup form links each setting here.

use askama::Template;
use axum::response::Html;
use games::EngineKind;
use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd};

use crate::AppError;
use crate::web::Path;

#[derive(Template)]
#[template(path = "public/rules.html")]
struct RulesPage {
    title: &'static str,
    /// Markup from the repository's own rules documents, with any HTML in them escaped.
    html: String,
}

fn document(engine: EngineKind) -> &'static str {
    match engine {
        EngineKind::Barmy => include_str!("../../../../docs/rules/barmy.md"),
        EngineKind::Salvo => include_str!("../../../../docs/rules/salvo.md"),
        EngineKind::Ironclad => include_str!("../../../../docs/rules/ironclad.md"),
        EngineKind::Skyfleet => include_str!("../../../../docs/rules/skyfleet.md"),
        EngineKind::Forever => include_str!("../../../../docs/rules/forever.md"),
    }
}

/// What a table is put in: a box that scrolls sideways on a phone, which the keyboard can
/// reach (focusable, named) so that its hidden columns can be scrolled to (WCAG 2.1.1).
const TABLE_BOX: &str =
    r#"<div class="table-wrap" tabindex="0" role="region" aria-label="Table (scrolls sideways)">"#;

/// Markdown as HTML; HTML written in the markdown is shown as text, not obeyed.
fn markdown(text: &str) -> String {
    let events = Parser::new_ext(text, Options::ENABLE_TABLES).flat_map(|event| match event {
        Event::Html(raw) | Event::InlineHtml(raw) => vec![Event::Text(raw)],
        Event::Start(Tag::Table(alignments)) => vec![
            Event::Html(CowStr::Borrowed(TABLE_BOX)),
            Event::Start(Tag::Table(alignments)),
        ],
        Event::End(TagEnd::Table) => vec![
            Event::End(TagEnd::Table),
            Event::Html(CowStr::Borrowed("</div>\n")),
        ],
        other => vec![other],
    });
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, events);
    html
}

pub(crate) async fn get_rules(Path(engine): Path<String>) -> Result<Html<String>, AppError> {
    let engine: EngineKind = engine.parse().map_err(|_| AppError::NotFound)?;
    let page = RulesPage {
        title: engine.title(),
        html: markdown(document(engine)),
    };
    Ok(Html(page.render()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_in_a_document_is_shown_as_text() {
        let html = markdown(
            "# Title\n\n<script>x</script>\n\nSome `code` and <b>bold</b>.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
        );
        assert!(html.contains("<h1>Title</h1>"), "{html}");
        assert!(
            html.contains("&lt;script&gt;") && html.contains("&lt;b&gt;"),
            "{html}"
        );
        assert!(
            html.contains("<code>code</code>") && html.contains("<table>"),
            "{html}"
        );
        // A table scrolls in a box the keyboard reaches.
        assert!(html.contains(&format!("{TABLE_BOX}<table>")), "{html}");
    }
}
