//! Where a map's labels go: each name near its shape, never over another name. Ships a few
//! tenths of an inch apart would otherwise have their names written one over the other.
//! Deterministic: the same board always gets the same places (shapes are taken in order).

use engine::MapPoint;

/// How a label's text is measured, in hundredths of an inch (the map's font is 0.9 inch).
const CHAR_WIDTH: i64 = 50;
const ASCENT: i64 = 70;
const DESCENT: i64 = 22;
/// The gap between a shape and its label, and between stacked places.
const GAP: i64 = 25;
const LINE: i64 = ASCENT + DESCENT + 8;
/// How far up or down a label may move, in lines, before it takes the least crowded place.
const STEPS: i64 = 6;

/// What a label is written for: the point its shape is drawn around, how far the shape
/// reaches from it, and the text.
pub(super) struct Anchor<'a> {
    pub at: MapPoint,
    pub reach: i64,
    pub text: &'a str,
}

/// A box on the table, y up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Area {
    pub left: i64,
    pub right: i64,
    pub bottom: i64,
    pub top: i64,
}

impl Area {
    fn overlap(&self, other: &Area) -> i64 {
        let width = self.right.min(other.right) - self.left.max(other.left);
        let height = self.top.min(other.top) - self.bottom.max(other.bottom);
        if width > 0 && height > 0 {
            width * height
        } else {
            0
        }
    }
}

/// The box of a label written centred on `at`'s x with its baseline at `at`'s y.
pub(super) fn area(at: MapPoint, text: &str) -> Area {
    let half = i64::try_from(text.chars().count()).unwrap_or(i64::MAX / 4) * CHAR_WIDTH / 2;
    Area {
        left: at.x - half,
        right: at.x + half,
        bottom: at.y - DESCENT,
        top: at.y + ASCENT,
    }
}

/// The places tried for a label, best first: just above its shape, just below, right, left,
/// then further up and down a line at a time.
fn candidates(anchor: &Anchor<'_>) -> Vec<MapPoint> {
    let MapPoint { x, y } = anchor.at;
    let reach = anchor.reach.max(0);
    let half = i64::try_from(anchor.text.chars().count()).unwrap_or(0) * CHAR_WIDTH / 2;
    let above = y + reach + GAP + DESCENT;
    let below = y - reach - GAP - ASCENT;
    let mut places = vec![
        MapPoint { x, y: above },
        MapPoint { x, y: below },
        MapPoint {
            x: x + reach + GAP + half,
            y: y - ASCENT / 3,
        },
        MapPoint {
            x: x - reach - GAP - half,
            y: y - ASCENT / 3,
        },
    ];
    for step in 1..=STEPS {
        places.push(MapPoint {
            x,
            y: above + step * LINE,
        });
        places.push(MapPoint {
            x,
            y: below - step * LINE,
        });
    }
    places
}

/// Each label's baseline point (centred on it): the first place that crosses no label placed
/// before it, else the place that crosses least.
pub(super) fn place(anchors: &[Anchor<'_>]) -> Vec<MapPoint> {
    let mut placed: Vec<Area> = Vec::with_capacity(anchors.len());
    let mut points = Vec::with_capacity(anchors.len());
    for anchor in anchors {
        let crowding = |point: &MapPoint| -> i64 {
            let mine = area(*point, anchor.text);
            placed.iter().map(|other| mine.overlap(other)).sum()
        };
        let places = candidates(anchor);
        let best = places
            .iter()
            .find(|point| crowding(point) == 0)
            .or_else(|| places.iter().min_by_key(|point| crowding(point)))
            .copied()
            .unwrap_or(anchor.at);
        placed.push(area(best, anchor.text));
        points.push(best);
    }
    points
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ship(x: i64, y: i64, text: &str) -> Anchor<'_> {
        Anchor {
            at: MapPoint { x, y },
            reach: 50,
            text,
        }
    }

    #[test]
    fn ships_close_together_get_labels_that_do_not_overlap() {
        // Five ships within an inch and a half of each other, as after a close engagement.
        let ships = [
            ship(1000, 1000, "Valiant"),
            ship(1030, 1010, "Resolute"),
            ship(1060, 990, "Indomitable"),
            ship(1000, 1100, "Swift"),
            ship(1150, 1000, "Cora's carrier"),
        ];
        let points = place(&ships);
        let areas: Vec<Area> = points
            .iter()
            .zip(&ships)
            .map(|(point, ship)| area(*point, ship.text))
            .collect();
        for (i, a) in areas.iter().enumerate() {
            for b in areas.iter().skip(i + 1) {
                assert_eq!(a.overlap(b), 0, "{a:?} and {b:?} overlap: {points:?}");
            }
        }
        // The same board, the same places.
        assert_eq!(place(&ships), points);
    }

    #[test]
    fn a_lone_ship_has_its_name_just_above_it() {
        let points = place(&[ship(1000, 1000, "Valiant")]);
        assert_eq!(points, [MapPoint { x: 1000, y: 1097 }]);
    }
}
