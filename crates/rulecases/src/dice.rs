//! Scripted dice, and the check that the engine drew exactly the dice a case scripts: no fewer
//! (a die the case expected was never thrown) and no more.
//!
//! Each stream is followed by a sentinel; after the turn the sentinel must come next. Counting
//! the roll log would not do: picks and bearings draw from the script without being logged.

use std::panic::{AssertUnwindSafe, catch_unwind};

use engine::{Dice, TurnDice};

/// Values put after each scripted stream, in an order no case would script.
pub const SENTINEL: [u32; 4] = [17, 19, 13, 11];

/// The turn's dice: `open` and `sealed` in order, each followed by the sentinel.
pub fn scripted(open: &[u32], sealed: &[u32]) -> TurnDice {
    TurnDice::scripted(
        open.iter().copied().chain(SENTINEL),
        sealed.iter().copied().chain(SENTINEL),
    )
}

/// One scripted stream followed by the sentinel, for code that takes a single `Dice`.
pub fn stream(values: &[u32]) -> Dice {
    Dice::scripted(values.iter().copied().chain(SENTINEL))
}

/// Did the engine draw exactly the scripted dice from both streams?
pub fn all_used(dice: &mut TurnDice) -> Result<(), String> {
    let open = drawn(&mut dice.open).map_err(|e| format!("open dice: {e}"));
    let sealed = drawn(&mut dice.sealed).map_err(|e| format!("sealed dice: {e}"));
    match (open, sealed) {
        (Ok(()), Ok(())) => Ok(()),
        (Err(e), Ok(())) | (Ok(()), Err(e)) => Err(e),
        (Err(a), Err(b)) => Err(format!("{a}; {b}")),
    }
}

/// Did the engine draw exactly the scripted values of a [`stream`]? Reads the stream until the
/// sentinel: what comes before it was scripted and never drawn.
pub fn drawn(dice: &mut Dice) -> Result<(), String> {
    let mut read: Vec<u32> = Vec::new();
    loop {
        if read.ends_with(&SENTINEL) {
            let unused = read.get(..read.len() - SENTINEL.len()).unwrap_or_default();
            return if unused.is_empty() {
                Ok(())
            } else {
                Err(format!(
                    "{} scripted but never drawn: {unused:?}",
                    unused.len()
                ))
            };
        }
        // Any value is a valid index for `pick(usize::MAX)`; running out panics.
        match catch_unwind(AssertUnwindSafe(|| dice.pick(usize::MAX))) {
            Ok(value) => read.push(u32::try_from(value).unwrap_or(u32::MAX)),
            Err(_) => {
                return Err(
                    "the engine drew more than the case scripts (it used the sentinel)".into(),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exactly_the_script_passes() {
        let mut dice = scripted(&[3, 4], &[1]);
        assert_eq!(dice.open.d6(), 3);
        assert_eq!(dice.open.pick(10), 4);
        assert_eq!(dice.sealed.pick(5), 1);
        assert_eq!(all_used(&mut dice), Ok(()));
    }

    #[test]
    fn too_few_names_the_unused_dice() {
        let mut dice = scripted(&[3, 4, 5], &[]);
        assert_eq!(dice.open.d6(), 3);
        assert_eq!(
            all_used(&mut dice),
            Err("open dice: 2 scripted but never drawn: [4, 5]".into())
        );
        let mut dice = scripted(&[], &[2]);
        assert!(all_used(&mut dice).unwrap_err().starts_with("sealed dice"));
    }

    #[test]
    fn a_single_stream_is_checked_the_same_way() {
        let mut dice = stream(&[5, 2]);
        assert_eq!(dice.d6(), 5);
        assert_eq!(
            drawn(&mut dice),
            Err("1 scripted but never drawn: [2]".into())
        );
    }

    #[test]
    fn too_many_is_caught() {
        let mut dice = scripted(&[3], &[]);
        assert_eq!(dice.open.d6(), 3);
        assert_eq!(dice.open.d20(), 17);
        assert!(all_used(&mut dice).unwrap_err().contains("drew more"));
    }
}
