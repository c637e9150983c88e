//! Fixed-point geometry: lengths in hundredths of an inch, angles in half-degrees, and a sine
//! table built by integer arithmetic at compile time. No floating-point trigonometry reaches a
//! position or a report, because libm's `sin`/`cos` differ between platforms (shared rules
//! README, "Determinism"; SKY-GM-11: positions kept in 1/100", angles in multiples of 0.5°).
//!
//! Compass convention (catalogue preamble): x to the right (east), y up (north), bearings in
//! degrees clockwise from north, so heading 90° points along +x.

use std::fmt;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A length or a co-ordinate in hundredths of an inch (SKY-GM-11).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Length(pub i64);

impl Length {
    pub const ZERO: Length = Length(0);

    /// Whole inches.
    pub const fn inches(inches: i64) -> Self {
        Self(inches * 100)
    }

    /// Hundredths of an inch.
    pub const fn hundredths(self) -> i64 {
        self.0
    }

    pub fn max(self, other: Length) -> Length {
        Length(self.0.max(other.0))
    }

    pub fn min(self, other: Length) -> Length {
        Length(self.0.min(other.0))
    }

    /// Inches as a short decimal: `31.5`, `12`, `0.25`, `-3.1`.
    pub fn display(self) -> String {
        let negative = self.0 < 0;
        let magnitude = self.0.unsigned_abs();
        let (whole, cents) = (magnitude / 100, magnitude % 100);
        let mut out = String::new();
        if negative {
            out.push('-');
        }
        out.push_str(&whole.to_string());
        if cents != 0 {
            out.push('.');
            out.push(char::from(b'0' + (cents / 10) as u8));
            if cents % 10 != 0 {
                out.push(char::from(b'0' + (cents % 10) as u8));
            }
        }
        out
    }

    /// Inches always with one decimal, as the report's co-ordinates show them: `31.5`, `18.0`.
    pub fn display_tenths(self) -> String {
        // Round half away from zero to tenths.
        let tenths = div_round(i128::from(self.0), 10);
        let negative = tenths < 0;
        let magnitude = tenths.unsigned_abs();
        format!(
            "{}{}.{}",
            if negative { "-" } else { "" },
            magnitude / 10,
            magnitude % 10
        )
    }
}

impl std::ops::Add for Length {
    type Output = Length;
    fn add(self, other: Length) -> Length {
        Length(self.0.saturating_add(other.0))
    }
}

impl std::ops::Sub for Length {
    type Output = Length;
    fn sub(self, other: Length) -> Length {
        Length(self.0.saturating_sub(other.0))
    }
}

impl fmt::Display for Length {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.display())
    }
}

/// Inches in JSON: a plain number (`31.5`), so setups stay readable. Only the conversion at
/// this edge touches floating point, and IEEE multiplication and rounding are exact and the
/// same everywhere; no trigonometry is involved.
impl Serialize for Length {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.0 % 100 == 0 {
            serializer.serialize_i64(self.0 / 100)
        } else {
            serializer.serialize_f64(self.0 as f64 / 100.0)
        }
    }
}

impl<'de> Deserialize<'de> for Length {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Inches;
        impl Visitor<'_> for Inches {
            type Value = Length;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a length in inches, such as 12 or 31.5")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Length, E> {
                v.checked_mul(100)
                    .map(Length)
                    .ok_or_else(|| E::custom("length too large"))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Length, E> {
                i64::try_from(v)
                    .ok()
                    .and_then(|v| v.checked_mul(100))
                    .map(Length)
                    .ok_or_else(|| E::custom("length too large"))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Length, E> {
                let hundredths = (v * 100.0).round();
                if hundredths.is_finite() && hundredths.abs() < 1e15 {
                    Ok(Length(hundredths as i64))
                } else {
                    Err(E::custom("length out of range"))
                }
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Length, E> {
                parse_inches(v).ok_or_else(|| E::custom(format!("{v:?} is not a length")))
            }
        }
        deserializer.deserialize_any(Inches)
    }
}

/// Parses `12`, `12.5`, `12.25"`, `-3` into hundredths, without floating point. More than two
/// decimals are rounded half away from zero.
pub fn parse_inches(text: &str) -> Option<Length> {
    let text = text.trim().trim_end_matches(['"', '\'']).trim();
    let text = text.strip_suffix("in").unwrap_or(text).trim();
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let (whole, fraction) = match digits.split_once('.') {
        Some((w, f)) => (w, f),
        None => (digits, ""),
    };
    if (whole.is_empty() && fraction.is_empty())
        || !whole.chars().all(|c| c.is_ascii_digit())
        || !fraction.chars().all(|c| c.is_ascii_digit())
        || whole.len() > 9
    {
        return None;
    }
    let whole: i64 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    let mut cents: i64 = 0;
    let mut places = 0;
    let mut round_up = false;
    for (index, c) in fraction.chars().enumerate() {
        let digit = i64::from(c.to_digit(10)?);
        match index {
            0 | 1 => {
                cents = cents * 10 + digit;
                places += 1;
            }
            2 => round_up = digit >= 5,
            _ => {}
        }
    }
    while places < 2 {
        cents *= 10;
        places += 1;
    }
    let magnitude = whole * 100 + cents + i64::from(round_up);
    Some(Length(if negative { -magnitude } else { magnitude }))
}

/// A point on the table, in hundredths of an inch; JSON `[x, y]` in inches.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(from = "(Length, Length)", into = "(Length, Length)")]
pub struct Point {
    pub x: Length,
    pub y: Length,
}

impl From<(Length, Length)> for Point {
    fn from((x, y): (Length, Length)) -> Self {
        Point { x, y }
    }
}

impl From<Point> for (Length, Length) {
    fn from(point: Point) -> Self {
        (point.x, point.y)
    }
}

impl Point {
    pub const fn new(x: Length, y: Length) -> Self {
        Point { x, y }
    }

    /// A point at whole inches.
    pub const fn inches(x: i64, y: i64) -> Self {
        Point {
            x: Length::inches(x),
            y: Length::inches(y),
        }
    }

    /// `(31.5, 18.0)`, as reports write positions.
    pub fn display(self) -> String {
        format!("({}, {})", self.x.display_tenths(), self.y.display_tenths())
    }

    /// The point `distance` along `heading`.
    pub fn advance(self, heading: Angle, distance: Length) -> Point {
        let d = i128::from(distance.0);
        let dx = div_round(d * i128::from(sin(heading)), i128::from(SCALE));
        let dy = div_round(d * i128::from(cos(heading)), i128::from(SCALE));
        Point {
            x: Length(self.x.0.saturating_add(dx as i64)),
            y: Length(self.y.0.saturating_add(dy as i64)),
        }
    }

    fn minus(self, other: Point) -> (i128, i128) {
        (
            i128::from(self.x.0) - i128::from(other.x.0),
            i128::from(self.y.0) - i128::from(other.y.0),
        )
    }
}

/// Integer division rounding half away from zero.
pub fn div_round(numerator: i128, denominator: i128) -> i128 {
    if denominator == 0 {
        return 0;
    }
    let (n, d) = if denominator < 0 {
        (-numerator, -denominator)
    } else {
        (numerator, denominator)
    };
    if n >= 0 {
        (n + d / 2) / d
    } else {
        -((-n + d / 2) / d)
    }
}

/// An angle or bearing in half-degrees, 0..720 (SKY-GM-11: ships turn in 22.5° steps, wings in
/// 0.5° steps). JSON: degrees as a number (`22.5`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Angle(u16);

/// A signed turn in half-degrees: positive is clockwise, toward starboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Turn(pub i32);

/// Half-degrees in a full circle.
pub const FULL_TURN: i32 = 720;

impl Angle {
    pub const NORTH: Angle = Angle(0);
    pub const EAST: Angle = Angle(180);
    pub const SOUTH: Angle = Angle(360);
    pub const WEST: Angle = Angle(540);

    /// From half-degrees, any integer, taken round the circle.
    pub fn from_half_degrees(half_degrees: i64) -> Self {
        Angle(half_degrees.rem_euclid(i64::from(FULL_TURN)) as u16)
    }

    /// Whole degrees.
    pub fn degrees(degrees: i64) -> Self {
        Self::from_half_degrees(degrees * 2)
    }

    pub fn half_degrees(self) -> i32 {
        i32::from(self.0)
    }

    /// This angle turned by `turn`.
    pub fn turned(self, turn: Turn) -> Angle {
        Self::from_half_degrees(i64::from(self.0) + i64::from(turn.0))
    }

    /// The signed turn, in (-180°, 180°], that takes `self` to `other`.
    pub fn turn_to(self, other: Angle) -> Turn {
        let mut delta = (other.half_degrees() - self.half_degrees()).rem_euclid(FULL_TURN);
        if delta > FULL_TURN / 2 {
            delta -= FULL_TURN;
        }
        Turn(delta)
    }

    /// `90`, `22.5`.
    pub fn display(self) -> String {
        half_degrees_text(i64::from(self.0))
    }
}

impl Turn {
    pub fn degrees(degrees: i32) -> Turn {
        Turn(degrees * 2)
    }

    pub fn magnitude(self) -> i32 {
        self.0.abs()
    }

    /// The smaller of two turns' sizes, as a turn to starboard.
    pub fn min_magnitude(self, other: Turn) -> Turn {
        Turn(self.magnitude().min(other.magnitude()))
    }

    /// `45`, `22.5`: the size of the turn.
    pub fn size_display(self) -> String {
        half_degrees_text(i64::from(self.0.abs()))
    }

    /// `+45`, `-22.5`.
    pub fn display(self) -> String {
        let sign = if self.0 < 0 { "-" } else { "+" };
        format!("{sign}{}", half_degrees_text(i64::from(self.0.abs())))
    }
}

fn half_degrees_text(half_degrees: i64) -> String {
    if half_degrees % 2 == 0 {
        (half_degrees / 2).to_string()
    } else {
        format!("{}.5", half_degrees / 2)
    }
}

/// Parses a number of degrees with at most a half: `45`, `22.5`, `+90`, `-0.5`.
pub fn parse_degrees(text: &str) -> Option<i32> {
    let text = text
        .trim()
        .trim_end_matches(['°', 'd'])
        .trim_end_matches("deg");
    let (negative, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let (whole, fraction) = body.split_once('.').unwrap_or((body, ""));
    if whole.is_empty() || whole.len() > 4 || !whole.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let whole: i32 = whole.parse().ok()?;
    let half = match fraction.trim_end_matches('0') {
        "" => 0,
        "5" => 1,
        _ => return None,
    };
    let value = whole * 2 + half;
    Some(if negative { -value } else { value })
}

impl Serialize for Angle {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.0.is_multiple_of(2) {
            serializer.serialize_u16(self.0 / 2)
        } else {
            serializer.serialize_f64(f64::from(self.0) / 2.0)
        }
    }
}

impl<'de> Deserialize<'de> for Angle {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Degrees;
        impl Visitor<'_> for Degrees {
            type Value = Angle;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a bearing in degrees, a multiple of 0.5, such as 90 or 22.5")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Angle, E> {
                Ok(Angle::degrees(v.rem_euclid(360)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Angle, E> {
                Ok(Angle::degrees((v % 360) as i64))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Angle, E> {
                let halves = (v * 2.0).round();
                if halves.is_finite() && halves.abs() < 1e12 && halves == v * 2.0 {
                    Ok(Angle::from_half_degrees(halves as i64))
                } else {
                    Err(E::custom("a bearing is a multiple of 0.5 degrees"))
                }
            }
        }
        deserializer.deserialize_any(Degrees)
    }
}

/// A turn in JSON: signed degrees (`-22.5`).
impl Serialize for Turn {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.0 & 1 == 0 {
            serializer.serialize_i32(self.0 / 2)
        } else {
            serializer.serialize_f64(f64::from(self.0) / 2.0)
        }
    }
}

impl<'de> Deserialize<'de> for Turn {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Degrees;
        impl Visitor<'_> for Degrees {
            type Value = Turn;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a turn in degrees, a multiple of 0.5, such as -45 or 22.5")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Turn, E> {
                i32::try_from(v.clamp(-360, 360) * 2)
                    .map(Turn)
                    .map_err(|_| E::custom("turn out of range"))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Turn, E> {
                Ok(Turn(i32::try_from(v.min(360) * 2).unwrap_or(720)))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Turn, E> {
                let halves = (v * 2.0).round();
                if halves.is_finite() && halves.abs() <= 720.0 && halves == v * 2.0 {
                    Ok(Turn(halves as i32))
                } else {
                    Err(E::custom(
                        "a turn is a multiple of 0.5 degrees, at most 360",
                    ))
                }
            }
        }
        deserializer.deserialize_any(Degrees)
    }
}

/// The fixed-point scale of the sine table: sin 90° = 2^30.
pub const SCALE: i64 = 1 << 30;

/// π in Q60 fixed point (π × 2^60, rounded).
const PI_Q60: i128 = 3_622_009_729_038_561_421;
const Q60: i128 = 1 << 60;

/// sin of 0°, 0.5°, …, 90° times `SCALE`, by a Taylor series in 128-bit integers: the same
/// table on every platform.
const SINE: [i64; 181] = sine_table();

#[allow(
    clippy::indexing_slicing,
    reason = "evaluated at compile time: an index out of bounds fails the build"
)]
const fn sine_table() -> [i64; 181] {
    let mut table = [0i64; 181];
    let mut index = 0;
    while index <= 180 {
        // x = index × π / 360 radians, in Q60.
        let x = PI_Q60 * index as i128 / 360;
        let x2 = x * x / Q60;
        let mut term = x;
        let mut sum = x;
        let mut n: i128 = 1;
        while n <= 14 {
            term = -(term * x2 / Q60) / ((2 * n) * (2 * n + 1));
            sum += term;
            n += 1;
        }
        // Q60 to Q30, rounded; sin is non-negative on [0°, 90°].
        table[index] = ((sum + (1 << 29)) >> 30) as i64;
        index += 1;
    }
    table[0] = 0;
    table[180] = SCALE;
    table
}

/// sin(angle) × `SCALE`.
pub fn sin(angle: Angle) -> i64 {
    let h = angle.0 as usize % 720;
    let (index, negative) = match h {
        0..=180 => (h, false),
        181..=360 => (360 - h, false),
        361..=540 => (h - 360, true),
        _ => (720 - h, true),
    };
    let value = SINE.get(index).copied().unwrap_or(0);
    if negative { -value } else { value }
}

/// cos(angle) × `SCALE`.
pub fn cos(angle: Angle) -> i64 {
    sin(angle.turned(Turn(180)))
}

/// The compass bearing from `from` to `to`, to the nearest half-degree; `None` if they
/// coincide. Found by hill-climbing the dot product over the table, so it is exact integer
/// work and the same everywhere.
pub fn bearing(from: Point, to: Point) -> Option<Angle> {
    let (dx, dy) = to.minus(from);
    if dx == 0 && dy == 0 {
        return None;
    }
    let dot = |a: i64| -> i128 {
        let angle = Angle::from_half_degrees(a);
        dx * i128::from(sin(angle)) + dy * i128::from(cos(angle))
    };
    // The best of the sixteen 22.5° points is within 11.25° of the answer, where the dot
    // product is unimodal, so climbing from it cannot get stuck.
    let mut best: i64 = 0;
    let mut best_dot = dot(0);
    let mut candidate = 45;
    while candidate < 720 {
        let value = dot(candidate);
        if value > best_dot {
            best = candidate;
            best_dot = value;
        }
        candidate += 45;
    }
    let mut step = 16;
    while step >= 1 {
        loop {
            let up = dot(best + step);
            let down = dot(best - step);
            if up > best_dot && up >= down {
                best += step;
                best_dot = up;
            } else if down > best_dot {
                best -= step;
                best_dot = down;
            } else {
                break;
            }
        }
        step /= 2;
    }
    Some(Angle::from_half_degrees(best))
}

/// Squared distance between two points, in square hundredths.
pub fn distance_squared(a: Point, b: Point) -> i128 {
    let (dx, dy) = a.minus(b);
    dx * dx + dy * dy
}

/// The distance between two points, rounded down to the hundredth.
pub fn distance(a: Point, b: Point) -> Length {
    let squared = distance_squared(a, b).unsigned_abs();
    Length(i64::try_from(squared.isqrt()).unwrap_or(i64::MAX))
}

/// Is `b` within `reach` of `a`? Exact.
pub fn within(a: Point, b: Point, reach: Length) -> bool {
    let r = i128::from(reach.0.max(0));
    distance_squared(a, b) <= r * r
}

/// Is `p` within `reach` of the segment `a`–`b`? Exact integer arithmetic.
pub fn segment_within(a: Point, b: Point, p: Point, reach: Length) -> bool {
    let r = i128::from(reach.0.max(0));
    let (abx, aby) = b.minus(a);
    let (apx, apy) = p.minus(a);
    let length_squared = abx * abx + aby * aby;
    if length_squared == 0 {
        return apx * apx + apy * apy <= r * r;
    }
    let along = apx * abx + apy * aby;
    if along <= 0 {
        return apx * apx + apy * apy <= r * r;
    }
    if along >= length_squared {
        return distance_squared(b, p) <= r * r;
    }
    let cross = abx * apy - aby * apx;
    // cross² / |ab|² is the squared distance to the line.
    cross * cross <= r * r * length_squared
}

/// Which side of `a`→`b` the point `c` lies on: +1 left, -1 right, 0 on the line.
fn orientation(a: Point, b: Point, c: Point) -> i32 {
    let (abx, aby) = b.minus(a);
    let (acx, acy) = c.minus(a);
    let cross = abx * acy - aby * acx;
    cross.signum() as i32
}

fn on_segment(a: Point, b: Point, p: Point) -> bool {
    p.x >= a.x.min(b.x) && p.x <= a.x.max(b.x) && p.y >= a.y.min(b.y) && p.y <= a.y.max(b.y)
}

/// Do the segments `a`–`b` and `c`–`d` touch or cross?
pub fn segments_intersect(a: Point, b: Point, c: Point, d: Point) -> bool {
    let o1 = orientation(a, b, c);
    let o2 = orientation(a, b, d);
    let o3 = orientation(c, d, a);
    let o4 = orientation(c, d, b);
    if o1 != o2 && o3 != o4 && o1 * o2 <= 0 && o3 * o4 <= 0 {
        return true;
    }
    (o1 == 0 && on_segment(a, b, c))
        || (o2 == 0 && on_segment(a, b, d))
        || (o3 == 0 && on_segment(c, d, a))
        || (o4 == 0 && on_segment(c, d, b))
}

/// Is `p` inside the polygon (crossing number; points on the boundary may fall either way)?
pub fn polygon_contains(polygon: &[Point], p: Point) -> bool {
    let mut inside = false;
    let count = polygon.len();
    for index in 0..count {
        let (Some(a), Some(b)) = (polygon.get(index), polygon.get((index + 1) % count)) else {
            continue;
        };
        if (a.y > p.y) != (b.y > p.y) {
            // p.x < a.x + (p.y - a.y) (b.x - a.x) / (b.y - a.y), without dividing.
            let (dy, dx) = (
                i128::from(b.y.0) - i128::from(a.y.0),
                i128::from(b.x.0) - i128::from(a.x.0),
            );
            let lhs = (i128::from(p.x.0) - i128::from(a.x.0)) * dy;
            let rhs = dx * (i128::from(p.y.0) - i128::from(a.y.0));
            let crosses = if dy > 0 { lhs < rhs } else { lhs > rhs };
            if crosses {
                inside = !inside;
            }
        }
    }
    inside
}

/// The polygon's edges as point pairs.
pub fn polygon_edges(polygon: &[Point]) -> impl Iterator<Item = (Point, Point)> + '_ {
    let count = polygon.len();
    (0..count)
        .filter_map(move |index| Some((*polygon.get(index)?, *polygon.get((index + 1) % count)?)))
}

/// Does the segment `a`–`b` come within `reach` of the polygon (0: touch or cross it)?
pub fn segment_near_polygon(polygon: &[Point], a: Point, b: Point, reach: Length) -> bool {
    if polygon_contains(polygon, a) || polygon_contains(polygon, b) {
        return true;
    }
    polygon_edges(polygon).any(|(c, d)| {
        segments_intersect(a, b, c, d)
            || segment_within(c, d, a, reach)
            || segment_within(c, d, b, reach)
            || segment_within(a, b, c, reach)
            || segment_within(a, b, d, reach)
    })
}

/// Does a disc of `radius` at `centre` overlap the polygon?
pub fn disc_meets_polygon(polygon: &[Point], centre: Point, radius: Length) -> bool {
    polygon_contains(polygon, centre)
        || polygon_edges(polygon).any(|(c, d)| segment_within(c, d, centre, radius))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sine_table_is_exact_at_the_cardinal_points_and_close_elsewhere() {
        assert_eq!(sin(Angle::NORTH), 0);
        assert_eq!(sin(Angle::EAST), SCALE);
        assert_eq!(sin(Angle::SOUTH), 0);
        assert_eq!(sin(Angle::WEST), -SCALE);
        assert_eq!(cos(Angle::NORTH), SCALE);
        assert_eq!(cos(Angle::SOUTH), -SCALE);
        // sin 45° and sin 22.5° in Q30, as computed to many places elsewhere.
        assert_eq!(sin(Angle::degrees(45)), 759_250_125);
        assert_eq!(sin(Angle::degrees(45)), cos(Angle::degrees(45)));
        assert_eq!(sin(Angle::from_half_degrees(45)), 410_903_207);
    }

    #[test]
    fn moving_along_a_heading_uses_the_compass() {
        let start = Point::inches(10, 10);
        assert_eq!(
            start.advance(Angle::EAST, Length::inches(5)),
            Point::inches(15, 10)
        );
        assert_eq!(
            start.advance(Angle::NORTH, Length::inches(5)),
            Point::inches(10, 15)
        );
        assert_eq!(
            start.advance(Angle::degrees(225), Length::inches(10)),
            Point::new(Length(1000 - 707), Length(1000 - 707))
        );
    }

    #[test]
    fn bearings_round_to_the_half_degree() {
        let o = Point::inches(0, 0);
        assert_eq!(bearing(o, Point::inches(0, 5)), Some(Angle::NORTH));
        assert_eq!(bearing(o, Point::inches(5, 0)), Some(Angle::EAST));
        assert_eq!(bearing(o, Point::inches(-5, 0)), Some(Angle::WEST));
        assert_eq!(bearing(o, Point::inches(5, 5)), Some(Angle::degrees(45)));
        assert_eq!(bearing(o, Point::inches(-3, -3)), Some(Angle::degrees(225)));
        assert_eq!(bearing(o, o), None);
        // atan(1/2) = 26.565°, nearest half-degree 26.5.
        assert_eq!(
            bearing(o, Point::inches(1, 2)),
            Some(Angle::from_half_degrees(53))
        );
    }

    #[test]
    fn lengths_parse_and_print_without_floats() {
        assert_eq!(parse_inches("12"), Some(Length(1200)));
        assert_eq!(parse_inches("12.5\""), Some(Length(1250)));
        assert_eq!(parse_inches(".25"), Some(Length(25)));
        assert_eq!(parse_inches("-3.125"), Some(Length(-313)));
        assert_eq!(parse_inches("x"), None);
        assert_eq!(parse_inches(""), None);
        assert_eq!(Length(3150).display(), "31.5");
        assert_eq!(Length(1800).display_tenths(), "18.0");
        assert_eq!(Length(-25).display(), "-0.25");
        assert_eq!(parse_degrees("22.5"), Some(45));
        assert_eq!(parse_degrees("-45"), Some(-90));
        assert_eq!(parse_degrees("22.25"), None);
    }

    #[test]
    fn segments_discs_and_polygons() {
        let square = [
            Point::inches(0, 0),
            Point::inches(4, 0),
            Point::inches(4, 4),
            Point::inches(0, 4),
        ];
        assert!(polygon_contains(&square, Point::inches(2, 2)));
        assert!(!polygon_contains(&square, Point::inches(5, 2)));
        let (a, b) = (Point::inches(-2, 2), Point::inches(8, 2));
        assert!(segment_near_polygon(&square, a, b, Length::ZERO));
        let (c, d) = (Point::inches(-2, 5), Point::inches(8, 5));
        assert!(!segment_near_polygon(&square, c, d, Length::ZERO));
        assert!(segment_near_polygon(&square, c, d, Length::inches(1)));
        assert!(!segment_near_polygon(&square, c, d, Length(99)));
        assert!(segment_within(a, b, Point::inches(3, 3), Length::inches(1)));
        assert!(!segment_within(a, b, Point::inches(3, 3), Length(99)));
        assert!(disc_meets_polygon(
            &square,
            Point::inches(5, 2),
            Length::inches(1)
        ));
        assert!(!disc_meets_polygon(
            &square,
            Point::inches(6, 2),
            Length::inches(1)
        ));
    }
}
