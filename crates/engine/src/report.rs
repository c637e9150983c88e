//! The turn report every engine fills: the table `Name | Co-ord | Result | Score | Own Status`
//! (BARMY-20), then the players' press (BARMY-21), rendered as plain text, Markdown and HTML.

use askama::Template;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// The column headings, in order (BARMY-20).
pub const HEADINGS: [&str; 5] = ["Name", "Co-ord", "Result", "Score", "Own Status"];

/// The width of a zine page or a plain-text email.
pub const TEXT_WIDTH: usize = 80;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    pub title: String,
    pub rows: Vec<ReportRow>,
    /// Press under the table, in the order given (BARMY-21).
    pub press: Vec<Press>,
    /// Lines after the press: the end of the game, standings, the revealed seed.
    pub notes: Vec<String>,
}

/// One row: a player (barmy, salvo) or a unit (ironclad, skyfleet, forever).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReportRow {
    pub name: String,
    /// What the row's player or unit targeted this turn.
    pub coord: String,
    /// The outcome of each of those actions.
    pub result: String,
    /// The running score.
    pub score: String,
    /// The row's own end-of-turn state.
    pub own_status: String,
}

impl ReportRow {
    fn cells(&self) -> [&str; 5] {
        [
            &self.name,
            &self.coord,
            &self.result,
            &self.score,
            &self.own_status,
        ]
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Press {
    pub name: String,
    pub text: String,
}

/// Text as it may appear in a report: one line, no control characters. Player-supplied text
/// (names, press) passes through here, so nothing they write can break a report's layout.
pub fn one_line(text: &str) -> String {
    single_line(text).into_owned()
}

/// [`one_line`], borrowing the text when it is one line already (a report of a big game has
/// tens of thousands of cells, nearly all of them so).
fn single_line(text: &str) -> Cow<'_, str> {
    let plain = !text.starts_with(' ')
        && !text.ends_with(' ')
        && !text.contains("  ")
        && !text
            .chars()
            .any(|c| c != ' ' && (c.is_whitespace() || c.is_control()));
    if plain {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for word in text
        .split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|word| !word.is_empty())
    {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    Cow::Owned(out)
}

impl Report {
    /// Notes that the players asking to join cannot, in a battle whose fleets are fixed at its
    /// start (`why`: the rule and its ID), one line each.
    pub fn refuse_joiners(&mut self, joining: &[crate::Player], why: &str) {
        for player in joining {
            self.notes.push(format!(
                "{} cannot join a battle in progress: {why}.",
                one_line(&player.name)
            ));
        }
    }

    /// Aligned plain text that fits `TEXT_WIDTH` columns; long cells wrap within their column.
    pub fn to_text(&self) -> String {
        self.to_text_width(TEXT_WIDTH)
    }

    pub fn to_text_width(&self, width: usize) -> String {
        let mut out = String::new();
        let title = one_line(&self.title);
        if !title.is_empty() {
            out.push_str(&title);
            out.push('\n');
            out.push_str(&"=".repeat(textwrap::core::display_width(&title).min(width)));
            out.push_str("\n\n");
        }
        let header = HEADINGS.map(Cow::Borrowed);
        let rows: Vec<[Cow<'_, str>; 5]> = self
            .rows
            .iter()
            .map(|row| row.cells().map(single_line))
            .collect();
        let widths = column_widths(&header, &rows, width);
        push_text_row(&mut out, &header, &widths);
        let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
        out.push_str(rule.join("-+-").trim_end());
        out.push('\n');
        for row in &rows {
            push_text_row(&mut out, row, &widths);
        }
        if !self.press.is_empty() {
            out.push('\n');
            let options = textwrap::Options::new(width).subsequent_indent("    ");
            for press in &self.press {
                let line = format!("{}: \"{}\"", one_line(&press.name), one_line(&press.text));
                for wrapped in textwrap::wrap(&line, &options) {
                    out.push_str(&wrapped);
                    out.push('\n');
                }
            }
        }
        if !self.notes.is_empty() {
            out.push('\n');
            for note in &self.notes {
                for wrapped in textwrap::wrap(&one_line(note), width) {
                    out.push_str(&wrapped);
                    out.push('\n');
                }
            }
        }
        out
    }

    /// A Markdown pipe table, then the press as a list.
    pub fn to_markdown(&self) -> String {
        let mut out = String::new();
        let title = one_line(&self.title);
        if !title.is_empty() {
            out.push_str(&format!("## {}\n\n", markdown_escape(&title)));
        }
        out.push_str(&format!("| {} |\n", HEADINGS.join(" | ")));
        out.push_str("|---|---|---|---:|---|\n");
        for row in &self.rows {
            out.push('|');
            for cell in row.cells() {
                out.push(' ');
                push_markdown_escaped(&mut out, &single_line(cell));
                out.push_str(" |");
            }
            out.push('\n');
        }
        if !self.press.is_empty() {
            out.push('\n');
            for press in &self.press {
                out.push_str(&format!(
                    "- **{}:** \"{}\"\n",
                    markdown_escape(&one_line(&press.name)),
                    markdown_escape(&one_line(&press.text))
                ));
            }
        }
        if !self.notes.is_empty() {
            out.push('\n');
            for note in &self.notes {
                out.push_str(&format!("{}\n\n", markdown_escape(&one_line(note))));
            }
        }
        out
    }

    /// An HTML fragment (a `<section>`), every text escaped.
    pub fn to_html(&self) -> String {
        // Rendering a template over plain strings cannot fail; fall back to an empty fragment.
        HtmlReport { report: self }.render().unwrap_or_default()
    }
}

#[derive(Template)]
#[template(
    ext = "html",
    source = r#"<section class="turn-report">
{%- if !report.title.is_empty() %}
<h2>{{ report.title }}</h2>
{%- endif %}
<table class="report-table">
<thead><tr><th scope="col">Name</th><th scope="col">Co-ord</th><th scope="col">Result</th><th scope="col">Score</th><th scope="col">Own Status</th></tr></thead>
<tbody>
{%- for row in report.rows %}
<tr><th scope="row">{{ row.name }}</th><td>{{ row.coord }}</td><td>{{ row.result }}</td><td class="score">{{ row.score }}</td><td>{{ row.own_status }}</td></tr>
{%- endfor %}
</tbody>
</table>
{%- if !report.press.is_empty() %}
<div class="press">
{%- for press in report.press %}
<p><strong>{{ press.name }}:</strong> &ldquo;{{ press.text }}&rdquo;</p>
{%- endfor %}
</div>
{%- endif %}
{%- for note in report.notes %}
<p class="note">{{ note }}</p>
{%- endfor %}
</section>
"#
)]
struct HtmlReport<'a> {
    report: &'a Report,
}

fn markdown_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    push_markdown_escaped(&mut out, text);
    out
}

fn push_markdown_escaped(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\\' | '|' | '*' | '_' | '`' | '[' | ']' | '#' | '~' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
}

const SEPARATOR: &str = " | ";

/// Each column's natural width, then the widest columns narrowed until the table fits.
fn column_widths(
    header: &[Cow<'_, str>; 5],
    rows: &[[Cow<'_, str>; 5]],
    limit: usize,
) -> [usize; 5] {
    let width_of = |text: &str| textwrap::core::display_width(text);
    let mut widths = [0usize; 5];
    for (column, width) in widths.iter_mut().enumerate() {
        *width = std::iter::once(header)
            .chain(rows)
            .filter_map(|row| row.get(column))
            .map(|cell| width_of(cell))
            .max()
            .unwrap_or(0);
    }
    // A column never narrows below its heading or 6 characters, whichever is less wide.
    let floors = header.clone().map(|h| width_of(&h).clamp(1, 6));
    let available = limit.saturating_sub(SEPARATOR.len() * 4);
    while widths.iter().sum::<usize>() > available {
        let widest = widths
            .iter()
            .zip(floors.iter())
            .enumerate()
            .filter(|(_, (w, floor))| w > floor)
            .max_by_key(|(column, (w, _))| (**w, std::cmp::Reverse(*column)))
            .map(|(column, _)| column);
        match widest.and_then(|column| widths.get_mut(column)) {
            Some(width) => *width -= 1,
            None => break,
        }
    }
    widths
}

fn push_text_row(out: &mut String, cells: &[Cow<'_, str>; 5], widths: &[usize; 5]) {
    let width_of = |text: &str| textwrap::core::display_width(text);
    if cells
        .iter()
        .zip(widths)
        .all(|(cell, width)| width_of(cell) <= *width)
    {
        // The usual row: every cell fits on one line, so nothing to wrap.
        let start = out.len();
        for (column, (cell, width)) in cells.iter().zip(widths).enumerate() {
            if column > 0 {
                out.push_str(SEPARATOR);
            }
            out.push_str(cell);
            out.extend(std::iter::repeat_n(
                ' ',
                width.saturating_sub(width_of(cell)),
            ));
        }
        let kept = out.get(start..).map_or(0, |row| row.trim_end().len());
        out.truncate(start + kept);
        out.push('\n');
        return;
    }
    // Only the cells too wide for their column are wrapped; the others keep their one line.
    let wrapped: Vec<Vec<Cow<'_, str>>> = cells
        .iter()
        .zip(widths)
        .map(|(cell, width)| {
            if width_of(cell) <= *width {
                vec![Cow::Borrowed(cell.as_ref())]
            } else {
                textwrap::wrap(
                    cell,
                    textwrap::Options::new((*width).max(1)).break_words(true),
                )
            }
        })
        .collect();
    let height = wrapped.iter().map(Vec::len).max().unwrap_or(1).max(1);
    for line in 0..height {
        let start = out.len();
        for (column, (lines, width)) in wrapped.iter().zip(widths).enumerate() {
            if column > 0 {
                out.push_str(SEPARATOR);
            }
            let piece = lines.get(line).map_or("", |piece| piece.as_ref());
            out.push_str(piece);
            out.extend(std::iter::repeat_n(
                ' ',
                width.saturating_sub(width_of(piece)),
            ));
        }
        let kept = out.get(start..).map_or(0, |row| row.trim_end().len());
        out.truncate(start + kept);
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    /// `one_line` as it was first written: control characters to spaces, then runs of
    /// whitespace to one space.
    fn one_line_reference(text: &str) -> String {
        let spaced: String = text
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        spaced.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    proptest! {
        #[test]
        fn one_line_collapses_as_it_always_did(text in "(\\PC|[ \\t\\r\\n\\u{85}\\u{a0}\\u{2028}\\u{1}\\u{7f}]){0,40}") {
            prop_assert_eq!(one_line(&text), one_line_reference(&text));
        }
    }

    use super::*;

    fn row(name: &str, coord: &str, result: &str, score: &str, own: &str) -> ReportRow {
        ReportRow {
            name: name.into(),
            coord: coord.into(),
            result: result.into(),
            score: score.into(),
            own_status: own.into(),
        }
    }

    fn sample() -> Report {
        Report {
            title: "Turn 4".into(),
            rows: vec![
                row(
                    "Fred Bloggs",
                    "G13, K19",
                    "hit John Smith, miss",
                    "3.5",
                    "1 hit",
                ),
                row("Donny Trump", "T12, T13", "miss, miss", "0.5", "sunk!"),
            ],
            press: vec![Press {
                name: "Donny Trump".into(),
                text: "Blast!".into(),
            }],
            notes: vec![],
        }
    }

    #[test]
    fn plain_text_is_an_aligned_table_then_press() {
        let text = sample().to_text();
        let expected = "\
Turn 4
======

Name        | Co-ord   | Result               | Score | Own Status
------------+----------+----------------------+-------+-----------
Fred Bloggs | G13, K19 | hit John Smith, miss | 3.5   | 1 hit
Donny Trump | T12, T13 | miss, miss           | 0.5   | sunk!

Donny Trump: \"Blast!\"
";
        assert_eq!(text, expected);
    }

    #[test]
    fn long_cells_wrap_inside_80_columns() {
        let mut report = sample();
        report.rows.push(row(
            "Admiral Sir Reginald Fortescue-Smythe of the Home Fleet",
            "G13, K19",
            "hit/sunk Annette Curtain, hit/sunk Lord Horatio Hornblower-Pellew the Third",
            "12.33",
            "3 hits",
        ));
        report.press.push(Press {
            name: "Fred".into(),
            text: "word ".repeat(60),
        });
        let text = report.to_text();
        for line in text.lines() {
            assert!(line.chars().count() <= TEXT_WIDTH, "too wide: {line:?}");
        }
        assert!(text.contains("Hornblower-"));
        assert!(text.contains("Fortescue-"));
        // Every row line has the same column boundaries as the header.
        let header = text.lines().find(|l| l.starts_with("Name")).unwrap();
        let bar = header.find(" | ").unwrap();
        for line in text.lines().filter(|l| l.contains(" | ")) {
            assert_eq!(line.find(" | "), Some(bar), "misaligned: {line:?}");
        }
    }

    #[test]
    fn hostile_text_cannot_break_the_layout_or_the_html() {
        let report = Report {
            title: "T".into(),
            rows: vec![row(
                "<script>alert(1)</script>",
                "A1\r\nB2",
                "miss | x",
                "0",
                "no hits",
            )],
            press: vec![Press {
                name: "Eve\n".into(),
                text: "<b>hi</b> & \"bye\"".into(),
            }],
            notes: vec![],
        };
        let html = report.to_html();
        assert!(!html.contains("<script"));
        assert!(html.contains("script&#62;") || html.contains("script&gt;"));
        assert!(!html.contains("<b>hi"));
        let markdown = report.to_markdown();
        assert!(markdown.contains("miss \\| x"));
        assert!(!markdown.contains("<script>"));
        let text = report.to_text();
        assert!(text.contains("A1 B2"));
        assert!(!text.contains('\r'));
    }

    #[test]
    fn markdown_and_html_carry_every_cell() {
        let report = sample();
        let markdown = report.to_markdown();
        assert!(markdown.contains("| Name | Co-ord | Result | Score | Own Status |"));
        assert!(
            markdown.contains("| Fred Bloggs | G13, K19 | hit John Smith, miss | 3.5 | 1 hit |")
        );
        assert!(markdown.contains("- **Donny Trump:** \"Blast!\""));
        let html = report.to_html();
        assert!(html.contains(
            "<th scope=\"row\">Fred Bloggs</th><td>G13, K19</td><td>hit John Smith, miss</td>"
        ));
        assert!(html.contains("<strong>Donny Trump:</strong> &ldquo;Blast!&rdquo;"));
    }
}
