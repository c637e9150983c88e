//! An order's words, read one at a time: names, numbers, inches and points as people write
//! them.

use crate::fixed::Inches;
use crate::geometry::Point;

/// Words of an order, brackets and stray commas turned into spaces where they only decorate.
fn words(text: &str) -> Vec<String> {
    // `@` is how many people write AT.
    text.replace(['(', ')', '[', ']', '{', '}'], " ")
        .replace('@', " AT ")
        .split_whitespace()
        .map(|w| w.trim_end_matches(['.', ':']).to_string())
        .filter(|w| !w.is_empty())
        .collect()
}

pub(super) struct Cursor {
    words: Vec<String>,
    at: usize,
}

impl Cursor {
    pub(super) fn new(text: &str) -> Self {
        Cursor {
            words: words(text),
            at: 0,
        }
    }

    pub(super) fn next(&mut self) -> Option<String> {
        let word = self.words.get(self.at).cloned();
        if word.is_some() {
            self.at += 1;
        }
        word
    }

    pub(super) fn peek(&self) -> Option<&str> {
        self.words.get(self.at).map(String::as_str)
    }

    pub(super) fn peek_is(&self, keywords: &[&str]) -> bool {
        self.peek()
            .is_some_and(|w| keywords.iter().any(|k| w.eq_ignore_ascii_case(k)))
    }

    pub(super) fn done(&self) -> bool {
        self.at >= self.words.len()
    }

    /// `30,20`, `30, 20`, `30 , 20`, `30 20`.
    pub(super) fn point(&mut self) -> Option<Point> {
        let first = self.next()?;
        let (x, mut y) = match first.split_once(',') {
            Some((x, y)) => (x.to_string(), y.to_string()),
            None => (first.clone(), String::new()),
        };
        if y.is_empty() {
            let mut next = self.next()?;
            if next == "," {
                next = self.next()?;
            }
            y = next.trim_start_matches(',').to_string();
        }
        let x = Inches::parse(x.trim_end_matches(','))?;
        let y = Inches::parse(y.trim_end_matches(','))?;
        Some(Point::new(x.0, y.0))
    }

    pub(super) fn number(&mut self) -> Option<i64> {
        let word = self.next()?;
        let word = word.trim_end_matches(['°', '"', ',']).to_ascii_lowercase();
        let word = word.trim_end_matches("deg").trim_end_matches("in");
        word.parse::<i64>().ok()
    }

    pub(super) fn inches(&mut self) -> Option<i64> {
        let word = self.next()?;
        Inches::parse(word.trim_end_matches(['"', ','])).map(|i| i.0)
    }
}

pub(super) fn looks_numeric(word: &str) -> bool {
    word.chars()
        .next()
        .is_some_and(|c| c.is_ascii_digit() || c == '-' || c == '+' || c == '.')
}
