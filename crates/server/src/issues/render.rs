//! An issue's contents, and the two forms it is printed in: plain text of at most 80 columns
//! (the mail's text part, the `.txt` page, the golden file) and an HTML fragment (the mail's
//! HTML part, the web page, the printable page). Pure: the caller gathers the contents.

use askama::Template;
use chrono::{DateTime, Utc};

use super::markdown;

/// The text's width: every line of the plain-text issue fits in it.
pub const COLUMNS: usize = 80;

/// Everything an issue prints, gathered from what is public (see `issues::contents`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IssueContents {
    pub zine_name: String,
    pub number: i32,
    /// When it came out (a draft: when it is previewed).
    pub date: DateTime<Utc>,
    /// The GM's editorial, Markdown.
    pub editorial: String,
    pub games: Vec<GameSection>,
    pub sign_ups: Vec<SignUp>,
    pub letters: Vec<PrintedLetter>,
}

/// One game in the issue: its reports since the last issue and its next deadline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameSection {
    pub name: String,
    pub rules: String,
    /// The game's public page (a path).
    pub url: String,
    pub reports: Vec<ReportSection>,
    /// "Friday 27 November 2026, 18:00 GMT", "not set yet", "the game is over".
    pub next_deadline: String,
}

impl GameSection {
    /// A game with nothing new, in one line: its name, rules and next deadline.
    pub fn quiet_line(&self) -> String {
        format!(
            "{} ({}): next deadline {}.",
            self.name, self.rules, self.next_deadline
        )
    }
}

/// A published report, as its public page shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportSection {
    pub turn: i32,
    /// The turn's public page (a path), and its board's (SVG).
    pub url: String,
    pub board_url: String,
    pub text: String,
    /// The report's HTML as published (askama-escaped by the engine's renderer).
    pub html: String,
    pub seed: Option<String>,
}

/// A game a reader may still join, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignUp {
    pub name: String,
    pub rules: String,
    pub how: String,
}

/// A letter the GM approved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrintedLetter {
    pub writer: String,
    pub text: String,
}

impl IssueContents {
    pub fn title(&self) -> String {
        format!("{}, issue {}", self.zine_name, self.number)
    }

    /// The games with a report in this issue: each gets a section of its own.
    pub fn games_with_news(&self) -> impl Iterator<Item = &GameSection> {
        self.games.iter().filter(|g| !g.reports.is_empty())
    }

    /// The games with nothing new: a line each, not a section.
    pub fn quiet_games(&self) -> Vec<&GameSection> {
        self.games.iter().filter(|g| g.reports.is_empty()).collect()
    }

    pub fn date_line(&self) -> String {
        self.date.format("%A %-d %B %Y").to_string()
    }

    /// The plain-text issue, every line at most [`COLUMNS`] wide but for report lines the
    /// engine itself made wider (a table cell it does not break).
    pub fn to_text(&self) -> String {
        let rule = "=".repeat(COLUMNS);
        let thin = "-".repeat(COLUMNS);
        let mut out = Vec::new();
        out.push(rule.clone());
        let name = self.zine_name.to_uppercase();
        let number = format!("ISSUE {}", self.number);
        let gap = COLUMNS.saturating_sub(name.chars().count() + number.chars().count());
        if gap >= 2 {
            out.push(format!("{name}{}{number}", " ".repeat(gap)));
        } else {
            out.push(wrap(&name));
            out.push(number);
        }
        out.push(self.date_line());
        out.push(rule.clone());
        if !self.editorial.trim().is_empty() {
            out.push(String::new());
            out.push("FROM THE EDITOR".into());
            out.push(String::new());
            out.push(markdown::to_text(&self.editorial, COLUMNS - 2));
        }
        for game in self.games_with_news() {
            out.push(String::new());
            out.push(rule.clone());
            out.push(wrap(&format!(
                "{} ({})",
                game.name.to_uppercase(),
                game.rules
            )));
            out.push(wrap(&format!("Next deadline: {}", game.next_deadline)));
            out.push(thin.clone());
            for report in &game.reports {
                out.push(String::new());
                out.push(report.text.trim_end().to_owned());
                if let Some(seed) = &report.seed {
                    out.push(String::new());
                    out.push(format!("Turn {} dice seed:", report.turn));
                    out.push(wrap(seed));
                }
            }
        }
        self.quiet_text(&mut out, &rule, &thin);
        out.push(String::new());
        out.push(rule.clone());
        out.push("GAMES OPEN FOR SIGN-UP".into());
        out.push(thin.clone());
        if self.sign_ups.is_empty() {
            out.push("None at the moment: ask the editor.".into());
        }
        for sign_up in &self.sign_ups {
            out.push(wrap(&format!(
                "{} ({}): {}",
                sign_up.name, sign_up.rules, sign_up.how
            )));
        }
        out.push(String::new());
        out.push(rule.clone());
        out.push("LETTERS".into());
        out.push(thin);
        if self.letters.is_empty() {
            out.push("No letters this time. Write one: LETTER in a mail to the zine.".into());
        }
        for letter in &self.letters {
            out.push(String::new());
            out.push(markdown::to_text(&letter.text, COLUMNS - 2));
            out.push(format!("    -- {}", letter.writer));
        }
        out.push(String::new());
        out.push(rule);
        let mut text = out.join("\n");
        text.push('\n');
        text
    }

    /// The games with nothing new, a line each under one heading (nothing if there are none).
    fn quiet_text(&self, out: &mut Vec<String>, rule: &str, thin: &str) {
        let quiet = self.quiet_games();
        if quiet.is_empty() {
            return;
        }
        out.push(String::new());
        out.push(rule.to_owned());
        out.push("NO TURN RESOLVED SINCE THE LAST ISSUE".into());
        out.push(thin.to_owned());
        for game in quiet {
            out.push(wrap(&game.quiet_line()));
        }
    }

    /// The issue as an HTML fragment (an `<article>`); every text in it is escaped, and the
    /// editorial and letters go through [`markdown::to_html`].
    pub fn to_html(&self) -> String {
        IssueHtml {
            issue: self,
            editorial: markdown::to_html(&self.editorial),
            letters: self
                .letters
                .iter()
                .map(|l| (l.writer.as_str(), markdown::to_html(&l.text)))
                .collect(),
        }
        .render()
        .unwrap_or_default()
    }
}

fn wrap(text: &str) -> String {
    textwrap::wrap(text, textwrap::Options::new(COLUMNS).break_words(true)).join("\n")
}

#[derive(Template)]
#[template(path = "public/issue_body.html")]
struct IssueHtml<'a> {
    issue: &'a IssueContents,
    editorial: String,
    letters: Vec<(&'a str, String)>,
}
