//! Whom a TELL names: a player's name as written on the roster, or as it reads (a name stored
//! with markup, `<i>Felix</i> Fell`, is also `Felix Fell`), or its first word when only one
//! active player's name starts with it (`TELL Felix:`), or the player's number.

/// A name as it reads: markup tags dropped, spaces collapsed, lower case.
fn as_read(name: &str) -> String {
    let mut text = String::with_capacity(name.len());
    let mut in_tag = false;
    for c in name.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            c if !in_tag => text.push(c),
            _ => {}
        }
    }
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Which of `names` (each with its player number and whether it is active) `wanted` names:
/// the first that matches it whole, else the only active one whose first word it is.
pub(super) fn named(names: &[(&str, i64, bool)], wanted: &str) -> Option<usize> {
    let wanted = wanted.trim();
    let whole = wanted.to_lowercase();
    let read = as_read(wanted);
    let number = wanted.parse::<i64>().ok();
    let exact = names.iter().position(|(name, player, _)| {
        name.trim().to_lowercase() == whole
            || (!read.is_empty() && as_read(name) == read)
            || number == Some(*player)
    });
    if exact.is_some() || read.is_empty() || read.contains(' ') {
        return exact;
    }
    let mut by_first_word = names.iter().enumerate().filter(|(_, (name, _, active))| {
        *active && as_read(name).split(' ').next() == Some(read.as_str())
    });
    match (by_first_word.next(), by_first_word.next()) {
        (Some((index, _)), None) => Some(index),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::named;

    const ROSTER: [(&str, i64, bool); 4] = [
        ("Cora Vance", 1, true),
        ("<i>Felix</i> Fell", 2, true),
        ("Dmitri", 3, true),
        ("Felicity Old", 4, false),
    ];

    #[test]
    fn a_name_with_markup_is_reached_as_written_as_read_and_by_its_first_word() {
        for wanted in ["<i>Felix</i> Fell", "Felix Fell", "felix", " Felix ", "2"] {
            assert_eq!(named(&ROSTER, wanted), Some(1), "{wanted}");
        }
        assert_eq!(named(&ROSTER, "cora"), Some(0));
        assert_eq!(named(&ROSTER, "DMITRI"), Some(2));
    }

    #[test]
    fn a_first_word_two_active_players_share_reaches_no_one() {
        let roster = [("Ann Lee", 1, true), ("Ann Bell", 2, true), ("Bo", 3, true)];
        assert_eq!(named(&roster, "Ann"), None);
        assert_eq!(named(&roster, "Ann Bell"), Some(1));
        assert_eq!(named(&roster, "Felix"), None);
        assert_eq!(named(&roster, "<b>"), None);
    }
}
