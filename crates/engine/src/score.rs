//! Exact scores: shared points are rationals, never floats (BARMY-09, BARMY-GM-12).

use std::fmt;
use std::iter::Sum;
use std::ops::{Add, AddAssign, Neg, Sub};
use std::str::FromStr;

use num_rational::Ratio;
use serde::{Deserialize, Serialize};

/// A score or a share of a point, kept exactly. Serialised as `"7/2"` (or `"3"`), so stored
/// state is exact and readable.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Score(Ratio<i64>);

impl Score {
    pub const ZERO: Score = Score(Ratio::new_raw(0, 1));

    pub fn whole(points: i64) -> Self {
        Self(Ratio::from_integer(points))
    }

    /// `numerator / denominator`; a zero denominator is a bug in the caller and gives zero.
    pub fn ratio(numerator: i64, denominator: i64) -> Self {
        if denominator == 0 {
            return Self::ZERO;
        }
        Self(Ratio::new(numerator, denominator))
    }

    /// One point shared equally by `sharers` players (BARMY-09).
    pub fn share_of_one(sharers: usize) -> Self {
        Self::ratio(1, i64::try_from(sharers).unwrap_or(i64::MAX))
    }

    pub fn numerator(&self) -> i64 {
        *self.0.numer()
    }

    pub fn denominator(&self) -> i64 {
        *self.0.denom()
    }

    pub fn is_integer(&self) -> bool {
        self.0.is_integer()
    }

    /// The figure a report shows: rounded half away from zero to two decimals, trailing zeros
    /// dropped (4/3 -> `1.33`, 7/2 -> `3.5`, 5/6 -> `0.83`) (BARMY-GM-12).
    pub fn display(&self) -> String {
        let (numer, denom) = (i128::from(self.numerator()), i128::from(self.denominator()));
        let negative = numer < 0;
        // |numer| < 2^63 and denom < 2^63, so this cannot overflow i128, and the quotient
        // (at most 100 * |numer|) fits u128.
        let hundredths = ((numer.abs() * 200 + denom) / (2 * denom)).unsigned_abs();
        let (units, cents) = (hundredths / 100, (hundredths % 100) as u8);
        let mut out = String::with_capacity(8);
        if negative && hundredths != 0 {
            out.push('-');
        }
        // Reports show thousands of scores: write digits without the formatting machinery.
        match u64::try_from(units) {
            Ok(units) => push_digits(&mut out, units),
            Err(_) => out.push_str(&units.to_string()),
        }
        if cents != 0 {
            out.push('.');
            out.push(char::from(b'0' + cents / 10));
            if cents % 10 != 0 {
                out.push(char::from(b'0' + cents % 10));
            }
        }
        out
    }
}

fn push_digits(out: &mut String, mut value: u64) {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    loop {
        start -= 1;
        if let Some(digit) = digits.get_mut(start) {
            // value % 10 < 10, so the cast cannot truncate.
            *digit = b'0' + (value % 10) as u8;
        }
        value /= 10;
        if value == 0 || start == 0 {
            break;
        }
    }
    for digit in digits.iter().skip(start) {
        out.push(char::from(*digit));
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.display())
    }
}

impl fmt::Debug for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Score({})", String::from(*self))
    }
}

impl Add for Score {
    type Output = Score;
    fn add(self, other: Score) -> Score {
        Score(self.0 + other.0)
    }
}

impl AddAssign for Score {
    fn add_assign(&mut self, other: Score) {
        self.0 += other.0;
    }
}

impl Sub for Score {
    type Output = Score;
    fn sub(self, other: Score) -> Score {
        Score(self.0 - other.0)
    }
}

impl Neg for Score {
    type Output = Score;
    fn neg(self) -> Score {
        Score(-self.0)
    }
}

impl Sum for Score {
    fn sum<I: Iterator<Item = Score>>(iter: I) -> Score {
        iter.fold(Score::ZERO, Add::add)
    }
}

impl From<Score> for String {
    fn from(score: Score) -> Self {
        if score.is_integer() {
            score.numerator().to_string()
        } else {
            format!("{}/{}", score.numerator(), score.denominator())
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a score is written as a whole number or a fraction such as 7/2, not {0:?}")]
pub struct ScoreError(String);

impl FromStr for Score {
    type Err = ScoreError;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = || ScoreError(text.to_owned());
        let (numer, denom) = match text.split_once('/') {
            Some((n, d)) => (
                n.trim().parse().map_err(|_| bad())?,
                d.trim().parse().map_err(|_| bad())?,
            ),
            None => (text.trim().parse().map_err(|_| bad())?, 1),
        };
        if denom == 0 {
            return Err(bad());
        }
        Ok(Score(Ratio::new(numer, denom)))
    }
}

impl TryFrom<String> for Score {
    type Error = ScoreError;
    fn try_from(text: String) -> Result<Self, Self::Error> {
        text.parse()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn displays_like_the_sample_report() {
        // BARMY-20 sample scores and BARMY-GM-12's rounding examples.
        assert_eq!(Score::ratio(7, 2).display(), "3.5");
        assert_eq!(Score::ratio(4, 3).display(), "1.33");
        assert_eq!(Score::ratio(9, 4).display(), "2.25");
        assert_eq!(Score::ratio(1, 2).display(), "0.5");
        assert_eq!(Score::ratio(5, 6).display(), "0.83");
        assert_eq!(Score::ratio(7, 12).display(), "0.58");
        assert_eq!(Score::ratio(1, 3).display(), "0.33");
        assert_eq!(Score::ratio(2, 3).display(), "0.67");
        assert_eq!(Score::whole(3).display(), "3");
        assert_eq!(Score::ZERO.display(), "0");
        assert_eq!(Score::ratio(1, 200).display(), "0.01");
        assert_eq!(Score::ratio(-7, 2).display(), "-3.5");
        assert_eq!(Score::ratio(-1, 1000).display(), "0");
    }

    #[test]
    fn shares_add_up_exactly() {
        let thirds: Score = (0..3).map(|_| Score::share_of_one(3)).sum();
        assert_eq!(thirds, Score::whole(1));
        assert_eq!(Score::ratio(1, 4) + Score::ratio(1, 4), Score::ratio(1, 2));
        assert_eq!(Score::ratio(6, 4), Score::ratio(3, 2));
    }

    #[test]
    fn serialises_as_an_exact_fraction() {
        assert_eq!(
            serde_json::to_string(&Score::ratio(7, 2)).unwrap(),
            "\"7/2\""
        );
        assert_eq!(serde_json::to_string(&Score::whole(4)).unwrap(), "\"4\"");
        let back: Score = serde_json::from_str("\"13/12\"").unwrap();
        assert_eq!(back, Score::ratio(13, 12));
        assert!(serde_json::from_str::<Score>("\"1/0\"").is_err());
        assert!(serde_json::from_str::<Score>("\"1.5\"").is_err());
    }

    proptest! {
        #[test]
        fn text_form_round_trips(n in -10_000i64..10_000, d in 1i64..1000) {
            let score = Score::ratio(n, d);
            let text = String::from(score);
            prop_assert_eq!(text.parse::<Score>().unwrap(), score);
        }

        #[test]
        fn display_is_within_half_a_hundredth(n in 0i64..100_000, d in 1i64..500) {
            let shown: f64 = Score::ratio(n, d).display().parse().unwrap();
            let exact = n as f64 / d as f64;
            prop_assert!((shown - exact).abs() <= 0.005 + 1e-9);
        }
    }
}
