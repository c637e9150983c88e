//! Terrain on the map: floating islands, cloud banks and storms, each a circle or a polygon in
//! inches with an elevation band (SKY-ISL-01..04, SKY-CLOUD-01..02, SKY-STORM-01, SKY-GM-13).

use serde::{Deserialize, Serialize};

use crate::geometry::{
    Length, Point, disc_meets_polygon, polygon_contains, segment_near_polygon, segment_within,
    within,
};

/// A footprint on the table (SKY-GM-13: terrain pieces are shapes in the scenario file).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Shape {
    Circle {
        centre: Point,
        radius: Length,
    },
    /// Corners in order, at least three.
    Polygon(Vec<Point>),
}

impl Shape {
    /// Is the point inside (SKY-GM-13: "inside" means the base centre is inside)?
    pub fn contains(&self, point: Point) -> bool {
        match self {
            Shape::Circle { centre, radius } => within(*centre, point, *radius),
            Shape::Polygon(points) => polygon_contains(points, point),
        }
    }

    /// Does the segment `a`–`b` come within `reach` of the shape (0: cross or touch it)?
    pub fn near_segment(&self, a: Point, b: Point, reach: Length) -> bool {
        match self {
            Shape::Circle { centre, radius } => segment_within(a, b, *centre, *radius + reach),
            Shape::Polygon(points) => segment_near_polygon(points, a, b, reach),
        }
    }

    /// Does a base of `radius` at `centre` overlap the shape?
    pub fn meets_disc(&self, centre: Point, radius: Length) -> bool {
        match self {
            Shape::Circle {
                centre: middle,
                radius: r,
            } => within(*middle, centre, *r + radius),
            Shape::Polygon(points) => disc_meets_polygon(points, centre, radius),
        }
    }

    /// A problem with the shape as written, if any.
    pub fn problem(&self) -> Option<String> {
        match self {
            Shape::Circle { radius, .. } if radius.hundredths() <= 0 => {
                Some("a circle needs a positive radius".into())
            }
            Shape::Polygon(points) if points.len() < 3 => {
                Some("a polygon needs at least three corners".into())
            }
            _ => None,
        }
    }
}

/// An inclusive range of elevations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Band {
    pub low: u8,
    pub high: u8,
}

impl Band {
    /// Islands fill elevations 6, 7 and 8 (SKY-ISL-02).
    pub const ISLAND: Band = Band { low: 6, high: 8 };

    pub fn contains(self, elevation: u8) -> bool {
        (self.low..=self.high).contains(&elevation)
    }

    /// Does the span `a..=b` (either order) share an elevation with the band (SKY-GM-07)?
    pub fn overlaps_span(self, a: u8, b: u8) -> bool {
        let (low, high) = (a.min(b), a.max(b));
        low <= self.high && high >= self.low
    }
}

fn island_band() -> Band {
    Band::ISLAND
}

/// A floating island: solid, blocking sight and movement inside its band (SKY-ISL-01..03).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Island {
    pub name: String,
    pub shape: Shape,
    #[serde(default = "island_band")]
    pub band: Band,
}

/// A cloud bank (SKY-CLOUD-01) or a storm (SKY-STORM-01): an area with an optional band
/// (SKY-GM-12: clouds reach every elevation unless the GM sets one).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Area {
    pub name: String,
    pub shape: Shape,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub band: Option<Band>,
}

impl Area {
    /// Is a unit at `point` and `elevation` inside (SKY-GM-13)?
    pub fn holds(&self, point: Point, elevation: u8) -> bool {
        self.band.is_none_or(|band| band.contains(elevation)) && self.shape.contains(point)
    }
}

/// Everything on the map besides the units.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Terrain {
    pub islands: Vec<Island>,
    pub clouds: Vec<Area>,
    pub storms: Vec<Area>,
}

/// How an island bears on one line of fire (SKY-GM-07, SKY-ISL-03, SKY-ISL-04).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IslandEffect {
    Clear,
    /// The line passes within 2" of this island: −1 unless Sonar.
    NearMiss(String),
    /// The line crosses this island within its band.
    Blocked(String),
}

/// The near-miss distance (SKY-ISL-04).
pub const NEAR_MISS: Length = Length::inches(2);

impl Terrain {
    /// The island effect on a line of fire from `a` at elevation `from` to `b` at `to`:
    /// blocked if the line crosses a footprint and the elevation span overlaps its band;
    /// otherwise a near miss if it passes within 2" of one, at any elevation (SKY-GM-07,
    /// SKY-ISL-03, -04: "any attack"). A line that crosses the footprint wholly above or below
    /// the band (9 to 9 over an island at 6-8) is clear of that island, or a near miss under
    /// the GM's switch `over` (SKY-EX-10).
    pub fn island_effect(
        &self,
        a: Point,
        from: u8,
        b: Point,
        to: u8,
        over: OverIsland,
    ) -> IslandEffect {
        let mut effect = IslandEffect::Clear;
        for island in &self.islands {
            let crosses = island.shape.near_segment(a, b, Length::ZERO);
            let in_band = island.band.overlaps_span(from, to);
            if over == OverIsland::Clear && crosses && !in_band {
                continue;
            }
            if crosses && in_band {
                return IslandEffect::Blocked(island.name.clone());
            }
            if effect == IslandEffect::Clear && island.shape.near_segment(a, b, NEAR_MISS) {
                effect = IslandEffect::NearMiss(island.name.clone());
            }
        }
        effect
    }

    /// The island a base at this place and elevation would be inside, if any (SKY-ISL-01,
    /// SKY-GM-11(g)).
    pub fn island_in_the_way(&self, centre: Point, radius: Length, elevation: u8) -> Option<&str> {
        self.islands
            .iter()
            .find(|i| i.band.contains(elevation) && i.shape.meets_disc(centre, radius))
            .map(|i| i.name.as_str())
    }

    /// The island a base changing elevation in place from `from` to `to` would pass into, at
    /// any level on the way, not only where it ends (SKY-ISL-01, SKY-ISL-02): a climb from 5
    /// to 9 over an island's footprint goes through it.
    pub fn island_on_the_way_up_or_down(
        &self,
        centre: Point,
        radius: Length,
        from: u8,
        to: u8,
    ) -> Option<&str> {
        let levels: Vec<u8> = if to >= from {
            (from.saturating_add(1)..=to).collect()
        } else {
            (to..from).rev().collect()
        };
        levels
            .into_iter()
            .find_map(|level| self.island_in_the_way(centre, radius, level))
    }

    /// The cloud bank a unit is inside, if any (SKY-CLOUD-01).
    pub fn cloud_at(&self, point: Point, elevation: u8) -> Option<usize> {
        self.clouds.iter().position(|c| c.holds(point, elevation))
    }

    /// The storm a unit is inside, if any (SKY-STORM-01).
    pub fn storm_at(&self, point: Point, elevation: u8) -> Option<&str> {
        self.storms
            .iter()
            .find(|s| s.holds(point, elevation))
            .map(|s| s.name.as_str())
    }

    /// Problems with the terrain as written.
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        let shapes = self
            .islands
            .iter()
            .map(|i| (&i.name, &i.shape, Some(i.band)))
            .chain(self.clouds.iter().map(|c| (&c.name, &c.shape, c.band)))
            .chain(self.storms.iter().map(|s| (&s.name, &s.shape, s.band)));
        for (name, shape, band) in shapes {
            if let Some(problem) = shape.problem() {
                out.push(format!("terrain {name:?}: {problem}"));
            }
            if let Some(band) = band
                && band.low > band.high
            {
                out.push(format!(
                    "terrain {name:?}: its band runs from {} down to {}",
                    band.low, band.high
                ));
            }
        }
        out
    }
}

/// A line of fire that crosses an island's footprint with its elevation span wholly above or
/// below the island's band, such as 9 to 9 over an island at 6-8 (SKY-ISL-04, SKY-EX-10,
/// SKY-GM-07): the GM's switch. A line passing beside an island within 2" is a near miss at
/// any elevation under either setting (SKY-ISL-04: "any attack").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OverIsland {
    /// Clear: that island does not bear on it (the catalogue's SKY-EX-10: 9 to 9 is clear).
    #[default]
    Clear,
    /// A near miss, −1 unless Sonar: it passes within 2" of the island, seen from above.
    NearMiss,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rock() -> Terrain {
        Terrain {
            islands: vec![Island {
                name: "Rock".into(),
                shape: Shape::Circle {
                    centre: Point::inches(20, 20),
                    radius: Length::inches(3),
                },
                band: Band::ISLAND,
            }],
            clouds: vec![Area {
                name: "Murk".into(),
                shape: Shape::Polygon(vec![
                    Point::inches(0, 0),
                    Point::inches(10, 0),
                    Point::inches(10, 10),
                    Point::inches(0, 10),
                ]),
                band: None,
            }],
            storms: vec![Area {
                name: "Squall".into(),
                shape: Shape::Circle {
                    centre: Point::inches(50, 10),
                    radius: Length::inches(5),
                },
                band: Some(Band { low: 1, high: 4 }),
            }],
        }
    }

    #[test]
    fn sky_ex_10_island_blocks_by_elevation_span() {
        let terrain = rock();
        let (a, b) = (Point::inches(10, 20), Point::inches(30, 20));
        // SKY-ISL-02/03, SKY-GM-07: 9 down to 5 spans 6–8: blocked; 9 to 9 passes over.
        for over in [OverIsland::Clear, OverIsland::NearMiss] {
            assert_eq!(
                terrain.island_effect(a, 9, b, 5, over),
                IslandEffect::Blocked("Rock".into())
            );
        }
        // Across the footprint under (or over) the band: clear by default, a near miss under
        // the switch; beside it within 2" a near miss at any elevation (SKY-ISL-04).
        assert_eq!(
            terrain.island_effect(a, 4, b, 4, OverIsland::Clear),
            IslandEffect::Clear
        );
        let (g, h) = (Point::new(a.x, Length(2450)), Point::new(b.x, Length(2450)));
        assert_eq!(
            terrain.island_effect(g, 9, h, 9, OverIsland::Clear),
            IslandEffect::NearMiss("Rock".into())
        );
        assert_eq!(
            terrain.island_effect(a, 9, b, 9, OverIsland::NearMiss),
            IslandEffect::NearMiss("Rock".into())
        );
        // A line 1.5" clear of the island's edge is a near miss (SKY-ISL-04).
        let (c, d) = (Point::inches(10, 24), Point::inches(30, 24));
        let c = Point::new(c.x, Length(2450));
        let d = Point::new(d.x, Length(2450));
        assert_eq!(
            terrain.island_effect(c, 7, d, 7, OverIsland::Clear),
            IslandEffect::NearMiss("Rock".into())
        );
        let (e, f) = (Point::inches(10, 26), Point::inches(30, 26));
        assert_eq!(
            terrain.island_effect(e, 7, f, 7, OverIsland::NearMiss),
            IslandEffect::Clear
        );
    }

    #[test]
    fn sky_isl_01_islands_are_solid_in_their_band_only() {
        let terrain = rock();
        assert_eq!(
            terrain.island_in_the_way(Point::inches(23, 20), Length(50), 7),
            Some("Rock")
        );
        assert_eq!(
            terrain.island_in_the_way(Point::inches(23, 20), Length(50), 9),
            None
        );
        assert_eq!(
            terrain.island_in_the_way(Point::inches(24, 20), Length(50), 6),
            None
        );
    }

    #[test]
    fn sky_gm_13_inside_means_the_base_centre_and_the_band() {
        let terrain = rock();
        assert_eq!(terrain.cloud_at(Point::inches(5, 5), 11), Some(0));
        assert_eq!(terrain.cloud_at(Point::inches(11, 5), 4), None);
        assert_eq!(terrain.storm_at(Point::inches(50, 12), 3), Some("Squall"));
        assert_eq!(terrain.storm_at(Point::inches(50, 12), 5), None);
    }

    #[test]
    fn bad_shapes_are_reported() {
        let mut terrain = rock();
        terrain.clouds.push(Area {
            name: "Wisp".into(),
            shape: Shape::Polygon(vec![Point::inches(0, 0), Point::inches(1, 1)]),
            band: Some(Band { low: 5, high: 2 }),
        });
        let problems = terrain.problems();
        assert_eq!(problems.len(), 2, "{problems:?}");
    }
}
