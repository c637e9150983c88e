//! Plane geometry in exact integers: points in hundredths of an inch, convex polygons, rays that
//! stop at the first thing they touch, distances, swept contacts and overlaps
//! (FOREVER-SHOOT-4/5, FOREVER-GM-03/12/14/30/32).
//!
//! Every intersection parameter is an exact fraction of `i128`s; only the final points are
//! rounded to hundredths, so the same inputs give the same answer on every machine. Touching
//! counts as contact: a ray grazing a corner hits it (FOREVER-EX-15).

use std::cmp::Ordering;
use std::ops::{Add, Neg, Sub};

use serde::{Deserialize, Serialize};

use crate::fixed::{Degrees, Inches, TRIG_SCALE, div_round, isqrt, narrow};

/// A point or vector on the table, in hundredths of an inch, x to the right and y up.
/// Written in JSON as `[x, y]` in inches.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(from = "[Inches; 2]", into = "[Inches; 2]")]
pub struct Point {
    pub x: i64,
    pub y: i64,
}

impl From<[Inches; 2]> for Point {
    fn from([x, y]: [Inches; 2]) -> Self {
        Point { x: x.0, y: y.0 }
    }
}

impl From<Point> for [Inches; 2] {
    fn from(point: Point) -> Self {
        [Inches(point.x), Inches(point.y)]
    }
}

impl Add for Point {
    type Output = Point;
    fn add(self, other: Point) -> Point {
        Point::new(
            self.x.saturating_add(other.x),
            self.y.saturating_add(other.y),
        )
    }
}

impl Sub for Point {
    type Output = Point;
    fn sub(self, other: Point) -> Point {
        Point::new(
            self.x.saturating_sub(other.x),
            self.y.saturating_sub(other.y),
        )
    }
}

impl Neg for Point {
    type Output = Point;
    fn neg(self) -> Point {
        Point::new(-self.x, -self.y)
    }
}

impl std::ops::Mul<i64> for Point {
    type Output = Point;
    fn mul(self, factor: i64) -> Point {
        Point::new(self.x.saturating_mul(factor), self.y.saturating_mul(factor))
    }
}

impl Point {
    pub const ORIGIN: Point = Point { x: 0, y: 0 };

    pub const fn new(x: i64, y: i64) -> Self {
        Self { x, y }
    }

    /// A point given in whole inches.
    pub const fn inches(x: i64, y: i64) -> Self {
        Self {
            x: x * 100,
            y: y * 100,
        }
    }

    pub fn cross(self, other: Point) -> i128 {
        i128::from(self.x) * i128::from(other.y) - i128::from(self.y) * i128::from(other.x)
    }

    pub fn dot(self, other: Point) -> i128 {
        i128::from(self.x) * i128::from(other.x) + i128::from(self.y) * i128::from(other.y)
    }

    pub fn norm2(self) -> i128 {
        self.dot(self)
    }

    /// Length in hundredths, rounded down.
    pub fn length(self) -> i64 {
        narrow(isqrt(self.norm2().unsigned_abs()) as i128)
    }

    /// Rotated anticlockwise about the origin by a whole-degree angle (sine table).
    pub fn rotated(self, angle: Degrees) -> Point {
        let (c, s) = (i128::from(angle.cos()), i128::from(angle.sin()));
        let (x, y) = (i128::from(self.x), i128::from(self.y));
        let scale = i128::from(TRIG_SCALE);
        Point::new(
            narrow(div_round(x * c - y * s, scale)),
            narrow(div_round(x * s + y * c, scale)),
        )
    }

    pub fn rotated_about(self, pivot: Point, angle: Degrees) -> Point {
        (self - pivot).rotated(angle) + pivot
    }

    /// The vector of `length` hundredths at `angle`.
    pub fn polar(length: i64, angle: Degrees) -> Point {
        Point::new(length, 0).rotated(angle)
    }

    /// This vector scaled to `length` hundredths (the zero vector stays zero).
    pub fn with_length(self, length: i64) -> Point {
        const EXTRA: i128 = 10_000;
        let norm = isqrt((self.norm2() as u128).saturating_mul((EXTRA * EXTRA) as u128)) as i128;
        if norm == 0 {
            return Point::ORIGIN;
        }
        let length = i128::from(length) * EXTRA;
        Point::new(
            narrow(div_round(i128::from(self.x) * length, norm)),
            narrow(div_round(i128::from(self.y) * length, norm)),
        )
    }

    /// The unit normal to the right of this direction, scaled to `length`.
    pub fn right_normal(self, length: i64) -> Point {
        Point::new(self.y, -self.x).with_length(length)
    }

    pub fn distance(self, other: Point) -> i64 {
        (other - self).length()
    }

    /// `(x, y)` in inches for reports.
    pub fn show(self) -> String {
        format!("({}, {})", Inches(self.x), Inches(self.y))
    }
}

/// An exact fraction `num / den` with `den > 0`: a position along a segment.
#[derive(Debug, Clone, Copy)]
pub struct Frac {
    pub num: i128,
    pub den: i128,
}

impl Frac {
    pub const ZERO: Frac = Frac { num: 0, den: 1 };
    pub const ONE: Frac = Frac { num: 1, den: 1 };

    pub fn new(num: i128, den: i128) -> Self {
        if den < 0 {
            Frac {
                num: -num,
                den: -den,
            }
        } else if den == 0 {
            Frac::ZERO
        } else {
            Frac { num, den }
        }
    }

    fn in_unit(self) -> bool {
        self.num >= 0 && self.num <= self.den
    }

    /// `value × self`, rounded to nearest.
    pub fn of(self, value: i64) -> i64 {
        narrow(div_round(i128::from(value) * self.num, self.den))
    }

    /// `value × self`, rounded towards zero: a ship stopped at a contact never overlaps it.
    pub fn of_towards_zero(self, value: i64) -> i64 {
        narrow(i128::from(value) * self.num / self.den)
    }
}

impl PartialEq for Frac {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Frac {}

impl PartialOrd for Frac {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Frac {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.num * other.den).cmp(&(other.num * self.den))
    }
}

/// The point `a + t (b - a)`, rounded to the nearest hundredth.
pub fn point_along(a: Point, b: Point, t: Frac) -> Point {
    let d = b - a;
    a + Point::new(t.of(d.x), t.of(d.y))
}

/// An axis-aligned bounding box, for cheap rejection before exact tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    pub min: Point,
    pub max: Point,
}

impl Bounds {
    pub fn of_points(points: impl IntoIterator<Item = Point>) -> Self {
        let mut bounds = Bounds {
            min: Point::new(i64::MAX, i64::MAX),
            max: Point::new(i64::MIN, i64::MIN),
        };
        for p in points {
            bounds.min.x = bounds.min.x.min(p.x);
            bounds.min.y = bounds.min.y.min(p.y);
            bounds.max.x = bounds.max.x.max(p.x);
            bounds.max.y = bounds.max.y.max(p.y);
        }
        bounds
    }

    pub fn union(self, other: Bounds) -> Bounds {
        Bounds {
            min: Point::new(self.min.x.min(other.min.x), self.min.y.min(other.min.y)),
            max: Point::new(self.max.x.max(other.max.x), self.max.y.max(other.max.y)),
        }
    }

    pub fn translated(self, by: Point) -> Bounds {
        Bounds {
            min: self.min + by,
            max: self.max + by,
        }
    }

    /// Grown by `margin` on every side.
    pub fn grown(self, margin: i64) -> Bounds {
        Bounds {
            min: self.min - Point::new(margin, margin),
            max: self.max + Point::new(margin, margin),
        }
    }

    /// Do the boxes meet (touching counts)?
    pub fn meets(self, other: Bounds) -> bool {
        self.min.x <= other.max.x
            && other.min.x <= self.max.x
            && self.min.y <= other.max.y
            && other.min.y <= self.max.y
    }

    pub fn is_empty(self) -> bool {
        self.min.x > self.max.x
    }
}

/// A convex polygon, corners anticlockwise. Sections are rectangles (FOREVER-GM-04); rocks are
/// any convex polygon (FOREVER-GM-39); meteors are octagons (FOREVER-ADM-05).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Polygon {
    pub corners: Vec<Point>,
}

impl Polygon {
    /// The polygon through `corners`, turned anticlockwise if given clockwise.
    pub fn new(mut corners: Vec<Point>) -> Self {
        if signed_area2(&corners) < 0 {
            corners.reverse();
        }
        Polygon { corners }
    }

    /// The rectangle `[x0, x1] × [y0, y1]`.
    pub fn rect(x0: i64, y0: i64, x1: i64, y1: i64) -> Self {
        Polygon {
            corners: vec![
                Point::new(x0, y0),
                Point::new(x1, y0),
                Point::new(x1, y1),
                Point::new(x0, y1),
            ],
        }
    }

    /// A regular octagon of the given inradius-ish radius (corners at `radius` from `centre`).
    pub fn octagon(centre: Point, radius: i64) -> Self {
        Polygon {
            corners: (0..8)
                .map(|k| centre + Point::polar(radius, Degrees::new(22 + 45 * k)))
                .collect(),
        }
    }

    pub fn edges(&self) -> impl Iterator<Item = (Point, Point)> + '_ {
        let n = self.corners.len();
        (0..n).filter_map(move |i| {
            let a = *self.corners.get(i)?;
            let b = *self.corners.get((i + 1) % n)?;
            Some((a, b))
        })
    }

    pub fn bounds(&self) -> Bounds {
        Bounds::of_points(self.corners.iter().copied())
    }

    /// Twice the area, in square hundredths.
    pub fn area2(&self) -> i128 {
        signed_area2(&self.corners).abs()
    }

    /// The mean of the corners (the centre, for rectangles).
    pub fn centre(&self) -> Point {
        let n = i128::try_from(self.corners.len()).unwrap_or(1).max(1);
        let (sx, sy) = self.corners.iter().fold((0i128, 0i128), |(sx, sy), p| {
            (sx + i128::from(p.x), sy + i128::from(p.y))
        });
        Point::new(narrow(div_round(sx, n)), narrow(div_round(sy, n)))
    }

    pub fn translated(&self, by: Point) -> Polygon {
        Polygon {
            corners: self.corners.iter().map(|p| *p + by).collect(),
        }
    }

    pub fn rotated_about(&self, pivot: Point, angle: Degrees) -> Polygon {
        Polygon {
            corners: self
                .corners
                .iter()
                .map(|p| p.rotated_about(pivot, angle))
                .collect(),
        }
    }

    /// Is `p` inside or on the boundary?
    pub fn contains(&self, p: Point) -> bool {
        self.corners.len() >= 3 && self.edges().all(|(a, b)| (b - a).cross(p - a) >= 0)
    }

    /// The first fraction of the segment `a → b` that touches this polygon (FOREVER-SHOOT-5).
    pub fn first_touch(&self, a: Point, b: Point) -> Option<Frac> {
        if self.contains(a) {
            return Some(Frac::ZERO);
        }
        self.edges()
            .filter_map(|(p, q)| segment_meets_segment(a, b, p, q))
            .min()
    }

    /// Distance in hundredths (rounded down) from `p`; zero inside.
    pub fn distance_to_point(&self, p: Point) -> i64 {
        if self.contains(p) {
            return 0;
        }
        let best = self
            .edges()
            .map(|(a, b)| point_segment_dist2(p, a, b))
            .min()
            .unwrap_or(Frac::ZERO);
        frac_sqrt(best)
    }

    /// Distance from the segment `a → b`; zero if they meet.
    pub fn distance_to_segment(&self, a: Point, b: Point) -> i64 {
        if self.first_touch(a, b).is_some() {
            return 0;
        }
        let best = self
            .edges()
            .flat_map(|(p, q)| [point_segment_dist2(a, p, q), point_segment_dist2(b, p, q)])
            .chain(self.corners.iter().map(|c| point_segment_dist2(*c, a, b)))
            .min()
            .unwrap_or(Frac::ZERO);
        frac_sqrt(best)
    }

    /// Do the two polygons touch or overlap?
    pub fn meets(&self, other: &Polygon) -> bool {
        if !self.bounds().meets(other.bounds()) {
            return false;
        }
        self.corners.iter().any(|p| other.contains(*p))
            || other.corners.iter().any(|p| self.contains(*p))
            || self.edges().any(|(a, b)| {
                other
                    .edges()
                    .any(|(p, q)| segment_meets_segment(a, b, p, q).is_some())
            })
    }

    /// Distance between the nearest points of two polygons; zero if they meet.
    pub fn distance_to_polygon(&self, other: &Polygon) -> i64 {
        if self.meets(other) {
            return 0;
        }
        let mut best: Option<Frac> = None;
        for (first, second) in [(self, other), (other, self)] {
            for corner in &first.corners {
                for (a, b) in second.edges() {
                    let d = point_segment_dist2(*corner, a, b);
                    best = Some(best.map_or(d, |current| current.min(d)));
                }
            }
        }
        best.map_or(0, frac_sqrt)
    }

    /// Do the interiors overlap? Touching along an edge or at a corner does not count
    /// (separating-axis test; both polygons convex).
    pub fn overlaps(&self, other: &Polygon) -> bool {
        if !self.bounds().meets(other.bounds()) {
            return false;
        }
        for polygon in [self, other] {
            for (a, b) in polygon.edges() {
                let axis = Point::new(a.y - b.y, b.x - a.x);
                let (min1, max1) = project(&self.corners, axis);
                let (min2, max2) = project(&other.corners, axis);
                if max1 <= min2 || max2 <= min1 {
                    return false;
                }
            }
        }
        true
    }

    /// Twice the area of the overlap of two convex polygons, in square hundredths
    /// (Sutherland–Hodgman clipping; intersection corners rounded to hundredths).
    pub fn overlap_area2(&self, other: &Polygon) -> i128 {
        if !self.overlaps(other) {
            return 0;
        }
        let mut subject = self.corners.clone();
        for (a, b) in other.edges() {
            let edge = b - a;
            let inside = |p: Point| edge.cross(p - a) >= 0;
            let mut clipped = Vec::with_capacity(subject.len() + 2);
            let n = subject.len();
            for i in 0..n {
                let (Some(&current), Some(&next)) = (subject.get(i), subject.get((i + 1) % n))
                else {
                    continue;
                };
                let (in_current, in_next) = (inside(current), inside(next));
                if in_current {
                    clipped.push(current);
                }
                if in_current != in_next {
                    let d = next - current;
                    let den = edge.cross(d);
                    if den != 0 {
                        let t = Frac::new(-edge.cross(current - a), den);
                        clipped.push(point_along(current, next, t));
                    }
                }
            }
            subject = clipped;
            if subject.is_empty() {
                return 0;
            }
        }
        signed_area2(&subject).abs()
    }

    /// The first fraction of the translation `by` at which this polygon, moving, touches
    /// `obstacle` and goes on into it (FOREVER-GM-30/33): the separating-axis test over time.
    /// Sliding along an edge, or moving away from something already touched, is not a
    /// contact; arriving exactly at the end of the move is.
    pub fn sweep_contact(&self, by: Point, obstacle: &Polygon) -> Option<Frac> {
        if by == Point::ORIGIN {
            return None;
        }
        let reach = self.bounds().union(self.bounds().translated(by));
        if !reach.meets(obstacle.bounds()) {
            return None;
        }
        let mut entry = Frac::new(-1, 1);
        let mut exit = Frac::new(2, 1);
        for polygon in [self, obstacle] {
            for (a, b) in polygon.edges() {
                let axis = Point::new(a.y - b.y, b.x - a.x);
                let (min_a, max_a) = project(&self.corners, axis);
                let (min_b, max_b) = project(&obstacle.corners, axis);
                let speed = by.dot(axis);
                if speed == 0 {
                    if max_a <= min_b || max_b <= min_a {
                        return None;
                    }
                    continue;
                }
                // Interiors overlap on this axis while max_a + t·speed > min_b and
                // min_a + t·speed < max_b.
                let (enter, leave) = if speed > 0 {
                    (
                        Frac::new(min_b - max_a, speed),
                        Frac::new(max_b - min_a, speed),
                    )
                } else {
                    (
                        Frac::new(max_b - min_a, speed),
                        Frac::new(min_b - max_a, speed),
                    )
                };
                entry = entry.max(enter);
                exit = exit.min(leave);
                if entry >= exit {
                    return None;
                }
            }
        }
        if exit <= Frac::ZERO || entry > Frac::ONE {
            return None;
        }
        Some(entry.max(Frac::ZERO))
    }
}

fn project(corners: &[Point], axis: Point) -> (i128, i128) {
    corners
        .iter()
        .map(|p| p.dot(axis))
        .fold((i128::MAX, i128::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)))
}

fn signed_area2(corners: &[Point]) -> i128 {
    let n = corners.len();
    (0..n)
        .filter_map(|i| Some(corners.get(i)?.cross(*corners.get((i + 1) % n)?)))
        .sum()
}

/// `floor(sqrt(value))` for a non-negative fraction, in hundredths.
fn frac_sqrt(value: Frac) -> i64 {
    if value.num <= 0 {
        return 0;
    }
    narrow(isqrt((value.num / value.den).unsigned_abs()) as i128)
}

/// The squared distance from `p` to the segment `a → b`, exactly.
pub fn point_segment_dist2(p: Point, a: Point, b: Point) -> Frac {
    let ab = b - a;
    let ap = p - a;
    let dot = ap.dot(ab);
    let len2 = ab.norm2();
    if dot <= 0 || len2 == 0 {
        return Frac::new(ap.norm2(), 1);
    }
    if dot >= len2 {
        return Frac::new((p - b).norm2(), 1);
    }
    let cross = ab.cross(ap);
    Frac::new(cross * cross, len2)
}

/// Where along `a → b` (as a fraction) it first meets the segment `p → q`, ends included.
pub fn segment_meets_segment(a: Point, b: Point, p: Point, q: Point) -> Option<Frac> {
    let r = b - a;
    let s = q - p;
    let ap = p - a;
    let denominator = r.cross(s);
    if denominator != 0 {
        let t = Frac::new(ap.cross(s), denominator);
        let u = Frac::new(ap.cross(r), denominator);
        return (t.in_unit() && u.in_unit()).then_some(t);
    }
    if ap.cross(r) != 0 {
        return None;
    }
    // Collinear: the overlap of the two intervals along a → b, if any.
    let rr = r.norm2();
    if rr == 0 {
        // A zero-length shot only touches what it starts on.
        return (point_segment_dist2(a, p, q).num == 0).then_some(Frac::ZERO);
    }
    let tp = ap.dot(r);
    let tq = (q - a).dot(r);
    let (low, high) = (tp.min(tq), tp.max(tq));
    if high < 0 || low > rr {
        return None;
    }
    Some(Frac::new(low.max(0), rr))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inch(x: f64) -> i64 {
        (x * 100.0).round() as i64
    }

    fn rect(x0: f64, y0: f64, x1: f64, y1: f64) -> Polygon {
        Polygon::rect(inch(x0), inch(y0), inch(x1), inch(y1))
    }

    #[test]
    fn rotation_by_table_is_exact_at_right_angles() {
        let p = Point::new(300, 100);
        assert_eq!(p.rotated(Degrees::new(90)), Point::new(-100, 300));
        assert_eq!(p.rotated(Degrees::new(180)), Point::new(-300, -100));
        assert_eq!(p.rotated(Degrees::new(270)), Point::new(100, -300));
        assert_eq!(Point::polar(200, Degrees::new(60)), Point::new(100, 173));
    }

    #[test]
    fn a_line_hits_the_first_of_two_rectangles() {
        // Two sections in line along +x; the shot from the origin touches the nearer one first.
        let near = rect(5.0, -0.5, 6.0, 0.5);
        let far = rect(10.0, -0.5, 12.0, 0.5);
        let (a, b) = (Point::ORIGIN, Point::inches(24, 0));
        let t_near = near.first_touch(a, b).unwrap();
        let t_far = far.first_touch(a, b).unwrap();
        assert!(t_near < t_far);
        assert_eq!(point_along(a, b, t_near), Point::inches(5, 0));
        assert_eq!(point_along(a, b, t_far), Point::inches(10, 0));
        // A line that passes above both misses both.
        assert!(near.first_touch(a, Point::new(2400, 300)).is_none());
    }

    #[test]
    fn grazing_a_corner_is_a_hit() {
        // FOREVER-EX-15: the ray y = x/20 touches (10, 0.5).
        let target = rect(10.0, -0.5, 12.0, 0.5);
        let t = target
            .first_touch(Point::ORIGIN, Point::new(2400, 120))
            .unwrap();
        assert_eq!(
            point_along(Point::ORIGIN, Point::new(2400, 120), t),
            Point::new(1000, 50)
        );
        assert!(
            target
                .first_touch(Point::ORIGIN, Point::new(2400, 240))
                .is_none()
        );
    }

    #[test]
    fn a_rotated_rectangle_is_hit_where_expected() {
        // A 2 x 1 section at (10, 0) turned 90°: it now spans x 9.5..10.5, y -1..1.
        let section = rect(-1.0, -0.5, 1.0, 0.5)
            .rotated_about(Point::ORIGIN, Degrees::new(90))
            .translated(Point::inches(10, 0));
        assert_eq!(section.bounds().min, Point::new(950, -100));
        assert_eq!(section.bounds().max, Point::new(1050, 100));
        // A shot along y = 0.9 hits it; y = 1.1 misses.
        let a = Point::new(0, 90);
        let t = section.first_touch(a, Point::new(2000, 90)).unwrap();
        assert_eq!(point_along(a, Point::new(2000, 90), t), Point::new(950, 90));
        assert!(
            section
                .first_touch(Point::new(0, 110), Point::new(2000, 110))
                .is_none()
        );
        // Turned 45° its long side faces the gun: y = 0 crosses it at 10 - 0.707 = 9.29.
        let diamond = rect(-1.0, -0.5, 1.0, 0.5)
            .rotated_about(Point::ORIGIN, Degrees::new(45))
            .translated(Point::inches(10, 0));
        let t = diamond
            .first_touch(Point::ORIGIN, Point::inches(20, 0))
            .unwrap();
        let hit = point_along(Point::ORIGIN, Point::inches(20, 0), t);
        assert!((hit.x - 929).abs() <= 1, "{hit:?}");
    }

    #[test]
    fn distances_to_rectangles() {
        let r = rect(0.0, 0.0, 2.0, 1.0);
        assert_eq!(r.distance_to_point(Point::new(100, 50)), 0);
        assert_eq!(r.distance_to_point(Point::new(500, 50)), 300);
        assert_eq!(r.distance_to_point(Point::new(500, 500)), 500);
        let other = rect(4.0, 0.0, 5.0, 1.0);
        assert_eq!(r.distance_to_polygon(&other), 200);
        let crossing = rect(0.5, -1.0, 1.0, 2.0);
        assert_eq!(r.distance_to_polygon(&crossing), 0);
        assert_eq!(
            r.distance_to_segment(Point::new(-100, 300), Point::new(300, 300)),
            200
        );
    }

    #[test]
    fn overlaps_and_touching() {
        let a = rect(0.0, 0.0, 2.0, 1.0);
        let touching = rect(2.0, 0.0, 3.0, 1.0);
        let overlapping = rect(1.5, 0.0, 2.5, 1.0);
        assert!(!a.overlaps(&touching));
        assert!(a.meets(&touching));
        assert!(a.overlaps(&overlapping));
        assert_eq!(a.overlap_area2(&overlapping), 2 * 50 * 100);
        assert_eq!(a.overlap_area2(&touching), 0);
    }

    #[test]
    fn sweeping_into_and_away() {
        let mover = rect(0.0, 0.0, 1.0, 1.0);
        let wall = rect(5.0, -2.0, 6.0, 2.0);
        let t = mover.sweep_contact(Point::inches(8, 0), &wall).unwrap();
        assert_eq!(t, Frac::new(4, 8));
        assert!(mover.sweep_contact(Point::inches(-8, 0), &wall).is_none());
        // Already touching and moving away: no contact; moving in: contact at once.
        let touching = rect(4.0, 0.0, 5.0, 1.0);
        assert!(
            touching
                .sweep_contact(Point::inches(-3, 0), &wall)
                .is_none()
        );
        assert_eq!(
            touching.sweep_contact(Point::inches(3, 0), &wall),
            Some(Frac::ZERO)
        );
        // Sliding along the wall's face is no contact.
        assert!(touching.sweep_contact(Point::inches(0, 3), &wall).is_none());
    }
}
