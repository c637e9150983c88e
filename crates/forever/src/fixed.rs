//! Fixed-point numbers: lengths in hundredths of an inch, angles in whole degrees, and a sine
//! table, so that every platform computes the same positions (FOREVER-GM-03).
//!
//! No floating-point trigonometry is used anywhere: libm's `sin`/`cos` differ between platforms,
//! and one hundredth of difference in a ray can turn a hit into a miss. Floats appear only at the
//! JSON boundary, where an `i64` of hundredths is divided by 100 (IEEE division is exactly
//! rounded everywhere) and read back by rounding.

use std::fmt;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Hundredths in one inch.
pub const SCALE: i64 = 100;

/// The sine table's unit: `sin(d) = SINE[d] / TRIG_SCALE` for `d` in 0..=90.
pub const TRIG_SCALE: i64 = 1_000_000;

/// round(sin(d°) × 10⁶) for d = 0..=90, computed once offline (FOREVER-GM-03).
const SINE: [i64; 91] = [
    0, 17452, 34899, 52336, 69756, 87156, 104528, 121869, 139173, 156434, 173648, 190809, 207912,
    224951, 241922, 258819, 275637, 292372, 309017, 325568, 342020, 358368, 374607, 390731, 406737,
    422618, 438371, 453990, 469472, 484810, 500000, 515038, 529919, 544639, 559193, 573576, 587785,
    601815, 615661, 629320, 642788, 656059, 669131, 681998, 694658, 707107, 719340, 731354, 743145,
    754710, 766044, 777146, 788011, 798636, 809017, 819152, 829038, 838671, 848048, 857167, 866025,
    874620, 882948, 891007, 898794, 906308, 913545, 920505, 927184, 933580, 939693, 945519, 951057,
    956305, 961262, 965926, 970296, 974370, 978148, 981627, 984808, 987688, 990268, 992546, 994522,
    996195, 997564, 998630, 999391, 999848, 1000000,
];

/// A whole-degree angle in 0..360, anticlockwise from +x (the catalogue's convention).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Degrees(u16);

impl Degrees {
    pub const ZERO: Degrees = Degrees(0);

    /// Any whole number of degrees, brought into 0..360.
    pub fn new(degrees: i64) -> Self {
        // rem_euclid(360) is in 0..360, so the cast cannot truncate.
        Self(degrees.rem_euclid(360) as u16)
    }

    pub fn get(self) -> i64 {
        i64::from(self.0)
    }

    /// The same angle as a signed value in -179..=180, for swivel angles.
    pub fn signed(self) -> i64 {
        let value = self.get();
        if value > 180 { value - 360 } else { value }
    }

    /// sin × 10⁶ from the table (FOREVER-GM-03).
    pub fn sin(self) -> i64 {
        let value = usize::from(self.0);
        let (quadrant, within) = (value / 90, value % 90);
        let table = |index: usize| SINE.get(index).copied().unwrap_or(0);
        match quadrant {
            0 => table(within),
            1 => table(90 - within),
            2 => -table(within),
            _ => -table(90 - within),
        }
    }

    /// cos × 10⁶ from the table.
    pub fn cos(self) -> i64 {
        Degrees::new(self.get() + 90).sin()
    }
}

impl fmt::Display for Degrees {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}°", self.0)
    }
}

impl Serialize for Degrees {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u16(self.0)
    }
}

impl<'de> Deserialize<'de> for Degrees {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = i64::deserialize(deserializer)?;
        Ok(Degrees::new(value))
    }
}

/// Division rounded half away from zero. `den` must not be zero (every caller divides by a
/// positive constant or a checked length); zero gives zero rather than a panic.
pub fn div_round(num: i128, den: i128) -> i128 {
    if den == 0 {
        return 0;
    }
    let (num, den) = if den < 0 { (-num, -den) } else { (num, den) };
    if num >= 0 {
        (num + den / 2) / den
    } else {
        -((-num + den / 2) / den)
    }
}

/// Floor division (towards minus infinity). Zero denominators give zero.
pub fn div_floor(num: i128, den: i128) -> i128 {
    if den == 0 {
        return 0;
    }
    let quotient = num / den;
    if (num % den != 0) && ((num < 0) != (den < 0)) {
        quotient - 1
    } else {
        quotient
    }
}

/// The integer square root, rounded down: exact on every platform.
pub fn isqrt(value: u128) -> u128 {
    if value < 2 {
        return value;
    }
    // Newton's iteration from an over-estimate decreases monotonically to the floor.
    let bits = 128 - value.leading_zeros();
    let mut x: u128 = 1u128 << bits.div_ceil(2);
    loop {
        let y = (x + value / x) / 2;
        if y >= x {
            return x;
        }
        x = y;
    }
}

/// Narrows an `i128` to `i64`, saturating: coordinates are bounded far below either limit.
pub fn narrow(value: i128) -> i64 {
    i64::try_from(value).unwrap_or(if value < 0 { i64::MIN } else { i64::MAX })
}

/// Parses a decimal such as `12`, `-3.5` or `.25` into units of 10^-places, rounding any
/// further digits half away from zero. `None` if it is not a number.
pub fn parse_decimal(text: &str, places: u32) -> Option<i64> {
    let text = text.trim();
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let (whole, fraction) = match digits.split_once('.') {
        Some((whole, fraction)) => (whole, fraction),
        None => (digits, ""),
    };
    if whole.is_empty() && fraction.is_empty() {
        return None;
    }
    if !whole.chars().all(|c| c.is_ascii_digit()) || !fraction.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    if whole.len() > 9 {
        return None;
    }
    let mut value: i64 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    let mut kept = 0;
    let mut round_up = false;
    for (index, c) in fraction.chars().enumerate() {
        let digit = i64::from(c.to_digit(10)?);
        if kept < places {
            value = value * 10 + digit;
            kept += 1;
        } else if index == places as usize {
            round_up = digit >= 5;
        }
    }
    while kept < places {
        value *= 10;
        kept += 1;
    }
    if round_up {
        value += 1;
    }
    Some(if negative { -value } else { value })
}

/// A length in hundredths of an inch (FOREVER-GM-03), shown and stored as inches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Inches(pub i64);

impl Inches {
    pub const ZERO: Inches = Inches(0);

    pub fn whole(inches: i64) -> Self {
        Self(inches * SCALE)
    }

    pub fn hundredths(self) -> i64 {
        self.0
    }

    /// `12`, `12.5`, `-0.35`: hundredths, further digits rounded.
    pub fn parse(text: &str) -> Option<Self> {
        parse_decimal(text, 2).map(Self)
    }
}

/// `1234` hundredths as `12.34`, `1250` as `12.5`, `1200` as `12`.
pub fn show_hundredths(value: i64) -> String {
    let sign = if value < 0 { "-" } else { "" };
    let magnitude = value.unsigned_abs();
    let (units, cents) = (magnitude / 100, magnitude % 100);
    if cents == 0 {
        format!("{sign}{units}")
    } else if cents % 10 == 0 {
        format!("{sign}{units}.{}", cents / 10)
    } else {
        format!("{sign}{units}.{cents:02}")
    }
}

impl fmt::Display for Inches {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&show_hundredths(self.0))
    }
}

impl Serialize for Inches {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.0 % SCALE == 0 {
            serializer.serialize_i64(self.0 / SCALE)
        } else {
            // The nearest double to a two-place decimal prints back as that decimal.
            #[allow(
                clippy::cast_precision_loss,
                reason = "hundredths of table inches are far below 2^53"
            )]
            let inches = self.0 as f64 / 100.0;
            serializer.serialize_f64(inches)
        }
    }
}

impl<'de> Deserialize<'de> for Inches {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct InchesVisitor;
        impl Visitor<'_> for InchesVisitor {
            type Value = Inches;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a length in inches, such as 12 or 3.25")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Inches, E> {
                v.checked_mul(SCALE)
                    .map(Inches)
                    .ok_or_else(|| E::custom("length out of range"))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Inches, E> {
                let v = i64::try_from(v).map_err(|_| E::custom("length out of range"))?;
                self.visit_i64(v)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Inches, E> {
                if !v.is_finite() || v.abs() > 1e9 {
                    return Err(E::custom("length out of range"));
                }
                #[allow(
                    clippy::cast_possible_truncation,
                    reason = "bounded above; rounding to hundredths is the point"
                )]
                let hundredths = (v * 100.0).round() as i64;
                Ok(Inches(hundredths))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Inches, E> {
                Inches::parse(v).ok_or_else(|| E::custom(format!("not a length: {v:?}")))
            }
        }
        deserializer.deserialize_any(InchesVisitor)
    }
}

/// Serde for an `i64` of hundredths written as inches (`#[serde(with = "as_inches")]`).
pub mod as_inches {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::Inches;

    pub fn serialize<S: Serializer>(value: &i64, serializer: S) -> Result<S::Ok, S::Error> {
        Inches(*value).serialize(serializer)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<i64, D::Error> {
        Inches::deserialize(deserializer).map(|inches| inches.0)
    }
}

/// Serde for an `Option<i64>` of hundredths written as inches.
pub mod option_inches {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::Inches;

    pub fn serialize<S: Serializer>(value: &Option<i64>, serializer: S) -> Result<S::Ok, S::Error> {
        value.map(Inches).serialize(serializer)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<i64>, D::Error> {
        Option::<Inches>::deserialize(deserializer).map(|inches| inches.map(|i| i.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forever_gm_03_sine_table_is_exact_at_the_axes_and_symmetric() {
        assert_eq!(Degrees::new(0).sin(), 0);
        assert_eq!(Degrees::new(90).sin(), TRIG_SCALE);
        assert_eq!(Degrees::new(180).sin(), 0);
        assert_eq!(Degrees::new(270).sin(), -TRIG_SCALE);
        assert_eq!(Degrees::new(0).cos(), TRIG_SCALE);
        assert_eq!(Degrees::new(90).cos(), 0);
        assert_eq!(Degrees::new(180).cos(), -TRIG_SCALE);
        assert_eq!(Degrees::new(30).sin(), 500_000);
        assert_eq!(Degrees::new(150).sin(), 500_000);
        assert_eq!(Degrees::new(210).sin(), -500_000);
        assert_eq!(Degrees::new(-30).sin(), -500_000);
        assert_eq!(Degrees::new(60).cos(), 500_000);
        for d in 0..360 {
            let (s, c) = (Degrees::new(d).sin(), Degrees::new(d).cos());
            let norm = s * s + c * c;
            assert!(
                (norm - TRIG_SCALE * TRIG_SCALE).abs() < 3 * TRIG_SCALE,
                "{d}"
            );
        }
    }

    #[test]
    fn integer_helpers() {
        assert_eq!(isqrt(0), 0);
        assert_eq!(isqrt(15), 3);
        assert_eq!(isqrt(16), 4);
        assert_eq!(isqrt(u128::from(u64::MAX)), 4_294_967_295);
        assert_eq!(div_round(5, 2), 3);
        assert_eq!(div_round(-5, 2), -3);
        assert_eq!(div_round(4, 3), 1);
        assert_eq!(div_floor(-1, 2), -1);
        assert_eq!(div_floor(7, 2), 3);
        assert_eq!(parse_decimal("12.345", 2), Some(1235));
        assert_eq!(parse_decimal("-.5", 2), Some(-50));
        assert_eq!(parse_decimal("3", 3), Some(3000));
        assert_eq!(parse_decimal("x", 2), None);
        assert_eq!(parse_decimal(".", 2), None);
        assert_eq!(show_hundredths(1234), "12.34");
        assert_eq!(show_hundredths(-35), "-0.35");
        assert_eq!(show_hundredths(1250), "12.5");
        assert_eq!(show_hundredths(1200), "12");
    }

    #[test]
    fn inches_round_trip_through_json() {
        for hundredths in [-3501, -35, 0, 1, 29, 1234, 7200] {
            let json = serde_json::to_string(&Inches(hundredths)).unwrap();
            let back: Inches = serde_json::from_str(&json).unwrap();
            assert_eq!(back, Inches(hundredths), "{json}");
        }
        assert_eq!(serde_json::to_string(&Inches(1250)).unwrap(), "12.5");
        assert_eq!(serde_json::to_string(&Inches(1200)).unwrap(), "12");
        let parsed: Inches = serde_json::from_str("\"0.29\"").unwrap();
        assert_eq!(parsed, Inches(29));
    }
}
