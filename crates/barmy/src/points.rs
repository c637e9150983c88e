//! Scores kept exactly however many players share squares (BARMY-09, BARMY-GM-12).
//!
//! A score is a sum of shares 1/k, one per scoring shot, where k is the number of players who
//! hit that square that turn. Its denominator divides the least common multiple of every k it
//! has met: the sum of the shares 1/2 up to 1/47 already needs a denominator beyond 2^63, and a
//! zine's game of hundreds of players reaches that. A 64-bit fraction then overflowed (in a release build it
//! wrapped round and a score of 0.2874 read 0.22). So a score is a 64-bit fraction while it fits,
//! which is every score of every ordinary game and costs nothing, and a big-integer fraction
//! only from the addition that would overflow. Either way it is written `n/d` in the state, as
//! `engine::Score` writes it, so stored games read as before.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;
use std::iter::Sum;
use std::ops::AddAssign;
use std::str::FromStr;

use engine::Score;
use num_bigint::BigInt;
use num_integer::Integer;
use num_rational::{BigRational, Ratio};
use num_traits::{CheckedAdd, Signed, ToPrimitive, Zero};
use serde::{Deserialize, Serialize};

/// An exact score or share of a point, of any size (BARMY-09, BARMY-GM-12).
#[derive(Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Points(Repr);

/// Canonical: `Big` only for a value that does not fit `Small`, so that equal values have equal
/// representations and the derived equality and hash are right.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Repr {
    Small(Ratio<i64>),
    Big(Box<BigRational>),
}

/// The denominator a score too big for `engine::Score` is floored to for the standings: a
/// multiple of 200, so the value shown (rounded half up to hundredths) is unchanged.
const STANDINGS_DENOMINATOR: i64 = 1_000_000_000_000;

impl Points {
    pub const ZERO: Points = Points(Repr::Small(Ratio::new_raw(0, 1)));

    pub fn whole(points: i64) -> Self {
        Self::from_big(BigRational::from_integer(BigInt::from(points)))
    }

    /// One point shared equally by `sharers` players (BARMY-09); zero sharers give nothing.
    pub fn share_of_one(sharers: usize) -> Self {
        match i64::try_from(sharers) {
            Ok(0) => Self::ZERO,
            Ok(k) => Self(Repr::Small(Ratio::new(1, k))),
            Err(_) => Self::from_big(BigRational::new(BigInt::from(1), BigInt::from(sharers))),
        }
    }

    /// The value as a big fraction, borrowed when it is one.
    fn big(&self) -> Cow<'_, BigRational> {
        match &self.0 {
            Repr::Small(ratio) => Cow::Owned(BigRational::new_raw(
                BigInt::from(*ratio.numer()),
                BigInt::from(*ratio.denom()),
            )),
            Repr::Big(big) => Cow::Borrowed(big),
        }
    }

    /// From a reduced big fraction, small again whenever it fits.
    fn from_big(big: BigRational) -> Self {
        match (big.numer().to_i64(), big.denom().to_i64()) {
            // i64::MIN is left out: `Ratio<i64>` arithmetic could not negate it.
            (Some(numer), Some(denom)) if numer != i64::MIN && denom != i64::MIN => {
                Self(Repr::Small(Ratio::new_raw(numer, denom)))
            }
            _ => Self(Repr::Big(Box::new(big))),
        }
    }

    pub fn is_negative(&self) -> bool {
        match &self.0 {
            Repr::Small(ratio) => *ratio.numer() < 0,
            Repr::Big(big) => big.is_negative(),
        }
    }

    /// The figure a report shows: rounded half away from zero to two decimals, trailing zeros
    /// dropped (4/3 -> `1.33`, 7/2 -> `3.5`), exactly as `engine::Score::display` (BARMY-GM-12).
    pub fn display(&self) -> String {
        match &self.0 {
            Repr::Small(ratio) => Score::ratio(*ratio.numer(), *ratio.denom()).display(),
            Repr::Big(big) => {
                let (numer, denom) = (big.numer(), big.denom());
                let two_denom: BigInt = denom * BigInt::from(2);
                let hundredths: BigInt =
                    (numer.abs() * BigInt::from(200) + denom).div_floor(&two_denom);
                let (units, cents) = hundredths.div_rem(&BigInt::from(100));
                let cents = cents.to_u8().unwrap_or(0);
                let mut out = String::new();
                if numer.is_negative() && !hundredths.is_zero() {
                    out.push('-');
                }
                out.push_str(&units.to_string());
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
    }

    /// The score as the engine interface's standings hold it: exact whenever it fits a 64-bit
    /// fraction (every ordinary game); otherwise floored to a trillionth, which shows the same
    /// two decimals. Places and winners are decided on `Points` themselves, never on this.
    pub fn to_score(&self) -> Score {
        match &self.0 {
            Repr::Small(ratio) => Score::ratio(*ratio.numer(), *ratio.denom()),
            Repr::Big(big) => {
                let scaled: BigInt =
                    (big.numer() * BigInt::from(STANDINGS_DENOMINATOR)).div_floor(big.denom());
                Score::ratio(scaled.to_i64().unwrap_or(i64::MAX), STANDINGS_DENOMINATOR)
            }
        }
    }
}

impl Default for Points {
    fn default() -> Self {
        Self::ZERO
    }
}

impl Ord for Points {
    fn cmp(&self, other: &Self) -> Ordering {
        match (&self.0, &other.0) {
            // `Ratio`'s comparison does not overflow.
            (Repr::Small(a), Repr::Small(b)) => a.cmp(b),
            _ => self.big().cmp(&other.big()),
        }
    }
}

impl PartialOrd for Points {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl AddAssign<&Points> for Points {
    fn add_assign(&mut self, other: &Points) {
        if let (Repr::Small(a), Repr::Small(b)) = (&self.0, &other.0)
            && let Some(sum) = a.checked_add(b)
        {
            self.0 = Repr::Small(sum);
            return;
        }
        let sum = self.big().into_owned() + other.big().as_ref();
        *self = Self::from_big(sum);
    }
}

impl AddAssign for Points {
    fn add_assign(&mut self, other: Points) {
        *self += &other;
    }
}

impl<'a> Sum<&'a Points> for Points {
    fn sum<I: Iterator<Item = &'a Points>>(iter: I) -> Points {
        iter.fold(Points::ZERO, |mut total, points| {
            total += points;
            total
        })
    }
}

impl fmt::Display for Points {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.display())
    }
}

impl fmt::Debug for Points {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Points({})", String::from(self.clone()))
    }
}

impl From<Points> for String {
    fn from(points: Points) -> Self {
        match points.0 {
            Repr::Small(ratio) => String::from(Score::ratio(*ratio.numer(), *ratio.denom())),
            Repr::Big(big) if big.is_integer() => big.numer().to_string(),
            Repr::Big(big) => format!("{}/{}", big.numer(), big.denom()),
        }
    }
}

/// Text that is not a score.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotPoints(String);

impl fmt::Display for NotPoints {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a score is written as a whole number or a fraction such as 7/2, not {:?}",
            self.0
        )
    }
}

impl FromStr for Points {
    type Err = NotPoints;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = || NotPoints(text.to_owned());
        let (numer, denom) = match text.split_once('/') {
            Some((n, d)) => (n.trim(), d.trim()),
            None => (text.trim(), "1"),
        };
        // Every ordinary score: no big integers at all.
        if let (Ok(n), Ok(d)) = (numer.parse::<i64>(), denom.parse::<i64>())
            && n != i64::MIN
            && d != i64::MIN
        {
            if d == 0 {
                return Err(bad());
            }
            return Ok(Self(Repr::Small(Ratio::new(n, d))));
        }
        let n: BigInt = numer.parse().map_err(|_| bad())?;
        let d: BigInt = denom.parse().map_err(|_| bad())?;
        if d.is_zero() {
            return Err(bad());
        }
        Ok(Self::from_big(BigRational::new(n, d)))
    }
}

impl TryFrom<String> for Points {
    type Error = NotPoints;
    fn try_from(text: String) -> Result<Self, Self::Error> {
        text.parse()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 1/2 + 1/3 + ... + 1/n, exactly.
    fn harmonic(n: usize) -> Points {
        (2..=n)
            .map(Points::share_of_one)
            .fold(Points::ZERO, |mut total, share| {
                total += share;
                total
            })
    }

    #[test]
    fn shares_past_a_64_bit_denominator_stay_exact() {
        // BARMY-09, BARMY-GM-12: from 1/47 on the sum's denominator passes 2^63. With `Ratio<i64>` this addition
        // overflowed (a panic in a debug build, a wrong score in a release one).
        let sum = harmonic(60);
        let exact = (2..=60u32).fold(BigRational::zero(), |total, k| {
            total + BigRational::new(BigInt::from(1), BigInt::from(k))
        });
        assert_eq!(sum.big().as_ref(), &exact);
        assert!(matches!(sum.0, Repr::Big(_)));
        // H(60) - 1 = 3.6798...
        assert_eq!(sum.display(), "3.68");
        // The text form round-trips, and the standings' figure shows the same.
        let text = String::from(sum.clone());
        assert_eq!(text.parse::<Points>().unwrap(), sum);
        assert_eq!(sum.to_score().display(), "3.68");
        assert!(sum > harmonic(59) && harmonic(59) > harmonic(42));
    }

    #[test]
    fn small_scores_read_and_show_as_engine_scores_do() {
        // BARMY-GM-12's examples, and the stored text form of engine::Score.
        for (n, d, shown, text) in [
            (7, 2, "3.5", "7/2"),
            (4, 3, "1.33", "4/3"),
            (9, 4, "2.25", "9/4"),
            (5, 6, "0.83", "5/6"),
            (7, 12, "0.58", "7/12"),
            (6, 2, "3", "3"),
            (0, 1, "0", "0"),
        ] {
            let points: Points = format!("{n}/{d}").parse().unwrap();
            assert_eq!(points.display(), shown);
            assert_eq!(String::from(points.clone()), text);
            assert_eq!(points.to_score(), Score::ratio(n, d));
        }
        assert!("1/0".parse::<Points>().is_err());
        assert!("1.5".parse::<Points>().is_err());
    }

    #[test]
    fn a_big_score_shows_its_hundredths_exactly() {
        // Rounded half up, at the boundary: x.xx5 exactly with a huge denominator.
        let denom = BigInt::from(10).pow(30);
        let half = Points::from_big(BigRational::new(
            BigInt::from(1005) * &denom / 1000,
            denom.clone(),
        ));
        assert_eq!(half.display(), "1.01");
        let below = Points::from_big(BigRational::new(
            BigInt::from(1005) * &denom / 1000 - 1,
            denom,
        ));
        assert!(matches!(below.0, Repr::Big(_)));
        assert_eq!(below.display(), "1");
        assert_eq!(below.to_score().display(), "1");
    }
}
