//! Splitting an order line into squares, dashes and lower-case words, forgiving squares
//! written with a space or a dash (`d 4`, `d-4`) and naming those written number first.

use crate::board::{Square, SquareError};

/// A piece of an order line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Tok {
    Square(Square),
    BadSquare(SquareError),
    /// `-` between two squares: a range.
    Dash,
    Word(String),
}

/// Splits a line into squares, dashes and lower-case words.
pub(super) fn tokenize(line: &str) -> Vec<Tok> {
    // "Bob's fleet" names Bob: drop the possessive before apostrophes split words.
    let padded = format!("{line} ");
    let normalized = padded
        .replace("'s ", " ")
        .replace("’s ", " ")
        .replace("'S ", " ")
        .replace("->", " at ")
        // `→ Bob`; `FIRE @ Bob J10`, `FIRE J10 @Bob`.
        .replace(['→', '@'], " at ")
        .replace(['–', '—', '−'], "-");
    let separators = |c: char| {
        c.is_whitespace()
            || matches!(
                c,
                ',' | ';'
                    | ':'
                    | '!'
                    | '?'
                    | '('
                    | ')'
                    | '['
                    | ']'
                    | '{'
                    | '}'
                    | '"'
                    | '`'
                    | '*'
                    | '/'
                    | '\\'
                    | '|'
                    | '<'
                    | '>'
                    | '='
                    | '\''
                    | '“'
                    | '”'
                    | '‘'
                    | '’'
                    | '_'
                    | '+'
                    | '&'
            )
    };
    let mut tokens = Vec::new();
    for piece in normalized.split(separators) {
        let piece = piece.trim_matches('.').to_lowercase();
        if piece.is_empty() {
            continue;
        }
        if piece.chars().all(|c| c == '-' || c == '.') {
            tokens.push(Tok::Dash);
            continue;
        }
        let piece = piece.trim_matches('-');
        if looks_like_square(piece) {
            tokens.push(square_token(piece));
            continue;
        }
        if let Some((digits, letter)) = number_first(piece) {
            tokens.push(Tok::BadSquare(SquareError::number_first(digits, letter)));
            continue;
        }
        // `b2-b4` is a range; `d-4` is D4.
        let parts: Vec<&str> = piece.split('-').filter(|p| !p.is_empty()).collect();
        if parts.len() > 1 {
            for (position, part) in parts.iter().enumerate() {
                if position > 0 {
                    tokens.push(Tok::Dash);
                }
                tokens.push(classify(part));
            }
        } else {
            tokens.push(classify(piece));
        }
    }
    merge_split_squares(tokens)
}

/// A letter, an optional dash, then 1 to 3 digits: `d4`, `k11`, `d-4`.
pub(super) fn looks_like_square(piece: &str) -> bool {
    let mut chars = piece.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    let rest: String = chars.collect();
    let digits = rest.strip_prefix('-').unwrap_or(&rest);
    first.is_ascii_alphabetic()
        && !digits.is_empty()
        && digits.len() <= 3
        && digits.chars().all(|c| c.is_ascii_digit())
}

/// `10j` or `10-j`: 1 to 3 digits, then one letter (a square written number first).
pub(super) fn number_first(piece: &str) -> Option<(&str, &str)> {
    let split = piece.find(|c: char| !c.is_ascii_digit())?;
    let (digits, rest) = piece.split_at(split);
    let letter = rest.strip_prefix('-').unwrap_or(rest);
    let single = letter.len() == 1 && letter.chars().all(|c| c.is_ascii_alphabetic());
    (!digits.is_empty() && digits.len() <= 3 && single).then_some((digits, letter))
}

pub(super) fn square_token(piece: &str) -> Tok {
    match Square::parse(piece) {
        Ok(square) => Tok::Square(square),
        Err(error) => Tok::BadSquare(error),
    }
}

pub(super) fn classify(piece: &str) -> Tok {
    if looks_like_square(piece) {
        square_token(piece)
    } else {
        Tok::Word(piece.to_string())
    }
}

/// `d 4` written with a space is D4; `10 j` is a square written number first.
pub(super) fn merge_split_squares(tokens: Vec<Tok>) -> Vec<Tok> {
    let mut merged: Vec<Tok> = Vec::with_capacity(tokens.len());
    for token in tokens {
        if let Tok::Word(letter) = &token
            && letter.len() == 1
            && letter.chars().all(|c| c.is_ascii_alphabetic())
            && let Some(Tok::Word(digits)) = merged.last()
            && !digits.is_empty()
            && digits.len() <= 3
            && digits.chars().all(|c| c.is_ascii_digit())
        {
            let reversed = Tok::BadSquare(SquareError::number_first(digits, letter));
            merged.pop();
            merged.push(reversed);
            continue;
        }
        if let Tok::Word(digits) = &token
            && !digits.is_empty()
            && digits.len() <= 3
            && digits.chars().all(|c| c.is_ascii_digit())
            && let Some(Tok::Word(letter)) = merged.last()
            && letter.len() == 1
            && letter.chars().all(|c| c.is_ascii_alphabetic())
        {
            let square = square_token(&format!("{letter}{digits}"));
            merged.pop();
            merged.push(square);
            continue;
        }
        merged.push(token);
    }
    merged
}
