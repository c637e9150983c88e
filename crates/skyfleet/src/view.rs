//! What a viewer may see: every unit on the table and the terrain are public; a side's
//! standing orders and the wings still aboard its carriers are its own secrets. The map is a
//! list of shapes in inches, built from public facts only, for an SVG drawing.

use engine::{View, Viewer};
use serde::{Deserialize, Serialize};

use crate::geometry::{Angle, Length, Point};
use crate::report::own_status;
use crate::state::{Edge, PivotChoice, Place, State, Unit};
use crate::tables::Class;
use crate::terrain::{Band, Shape};

/// The public picture of the table, in inches (x right, y up).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MapPicture {
    pub width: Length,
    pub height: Length,
    pub max_elevation: u8,
    /// Each side's deployment strip.
    pub zones: Vec<MapZone>,
    pub islands: Vec<MapArea>,
    pub clouds: Vec<MapArea>,
    pub storms: Vec<MapArea>,
    /// Ships, flying wings and torpedoes on the table.
    pub units: Vec<MapUnit>,
}

/// A side's deployment strip along an edge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MapZone {
    pub side: u8,
    pub fleet: String,
    pub edge: Edge,
    pub depth: Length,
}

/// A piece of terrain: its footprint and the elevations it fills (`None`: all).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MapArea {
    pub name: String,
    pub shape: Shape,
    pub band: Option<Band>,
}

/// A unit's base on the map.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MapUnit {
    pub name: String,
    pub side: u8,
    pub player: String,
    pub class: Class,
    pub at: Point,
    pub radius: Length,
    pub heading: Angle,
    pub elevation: u8,
    pub hull: i32,
    pub max_hull: i32,
    /// Shaken, On Fire, …
    pub statuses: Vec<String>,
}

/// The map as anyone may see it. It is the same for every viewer: nothing on it is secret
/// (wings aboard are not on the table, standing orders are not drawn).
pub fn map(state: &State, _viewer: Viewer) -> MapPicture {
    let area = |name: &str, shape: &Shape, band: Option<Band>| MapArea {
        name: name.to_string(),
        shape: shape.clone(),
        band,
    };
    MapPicture {
        width: state.rules.board.width,
        height: state.rules.board.height,
        max_elevation: state.rules.max_elevation,
        zones: state
            .sides
            .iter()
            .enumerate()
            .map(|(index, side)| MapZone {
                side: index as u8,
                fleet: side.name.clone(),
                edge: side.edge,
                depth: state.rules.deployment_depth,
            })
            .collect(),
        islands: state
            .terrain
            .islands
            .iter()
            .map(|i| area(&i.name, &i.shape, Some(i.band)))
            .collect(),
        clouds: state
            .terrain
            .clouds
            .iter()
            .map(|c| area(&c.name, &c.shape, c.band))
            .collect(),
        storms: state
            .terrain
            .storms
            .iter()
            .map(|s| area(&s.name, &s.shape, s.band))
            .collect(),
        units: state
            .units
            .iter()
            .filter(|u| u.in_play())
            .map(|u| MapUnit {
                name: u.name.clone(),
                side: u.side,
                player: state
                    .side(u.side)
                    .map(|s| s.player.name.clone())
                    .unwrap_or_default(),
                class: u.class,
                at: u.at,
                radius: u.radius,
                heading: u.heading,
                elevation: u.elevation,
                hull: u.hull,
                max_hull: u.max_hull,
                statuses: u.status_words(state.turn),
            })
            .collect(),
    }
}

fn visible(unit: &Unit, viewer: Viewer, owner: Option<engine::PlayerId>) -> bool {
    match viewer {
        Viewer::Gm => true,
        Viewer::Player(player) if Some(player) == owner => true,
        // Wings still aboard are a side's secret (SKY-ADM-09).
        _ => unit.place != Place::Aboard,
    }
}

/// The text view.
pub fn view(state: &State, viewer: Viewer) -> View {
    let mut lines = vec![format!(
        "Turn {} of {}{}",
        state.turn.min(state.rules.turn_limit),
        state.rules.turn_limit,
        if state.finished {
            " (the battle is over)"
        } else {
            ""
        }
    )];
    lines.push(format!(
        "Table {}\" × {}\", elevations 1 to {}.",
        state.rules.board.width.display(),
        state.rules.board.height.display(),
        state.rules.max_elevation
    ));
    for island in &state.terrain.islands {
        lines.push(format!(
            "Island {} ({}–{}): {}",
            island.name,
            island.band.low,
            island.band.high,
            shape_text(&island.shape)
        ));
    }
    for cloud in &state.terrain.clouds {
        lines.push(format!(
            "Cloud bank {}: {}",
            cloud.name,
            shape_text(&cloud.shape)
        ));
    }
    for storm in &state.terrain.storms {
        lines.push(format!(
            "Storm {}: {}",
            storm.name,
            shape_text(&storm.shape)
        ));
    }
    for (index, side) in state.sides.iter().enumerate() {
        lines.push(format!(
            "{} ({}, {} edge): {} VP",
            side.name,
            side.player.name,
            side.edge.name(),
            side.vp.display()
        ));
        for unit in state
            .units
            .iter()
            .filter(|u| usize::from(u.side) == index)
            .filter(|u| u.class != Class::Torpedo || u.in_play())
            .filter(|u| visible(u, viewer, Some(side.player.id)))
        {
            lines.push(format!("  {}: {}", unit.label(), own_status(unit, state)));
        }
        let own = match viewer {
            Viewer::Gm => true,
            Viewer::Player(player) => player == side.player.id,
            Viewer::Public => false,
        };
        if own {
            let standing = &side.standing;
            let name = |id: &crate::state::UnitId| {
                state.unit(*id).map(|u| u.name.clone()).unwrap_or_default()
            };
            let mut orders = vec![format!(
                "initiative {}",
                match standing.initiative {
                    crate::state::InitiativeChoice::First => "FIRST",
                    crate::state::InitiativeChoice::Second => "SECOND",
                }
            )];
            orders.extend(
                standing
                    .brace
                    .iter()
                    .map(|id| format!("BRACE {}", name(id))),
            );
            orders.extend(
                standing
                    .chaff
                    .iter()
                    .map(|id| format!("CHAFF {}", name(id))),
            );
            orders.extend(standing.countermeasures.iter().map(|(id, choice)| {
                format!(
                    "COUNTERMEASURES {}{}",
                    name(id),
                    match choice {
                        PivotChoice::Away => "",
                        PivotChoice::Left => " LEFT",
                        PivotChoice::Right => " RIGHT",
                    }
                )
            }));
            let rerolls: Vec<String> = standing
                .reroll_crit
                .iter()
                .map(ToString::to_string)
                .collect();
            orders.push(format!("REROLL_CRIT {{{}}}", rerolls.join(", ")));
            lines.push(format!("  Standing orders: {}", orders.join("; ")));
        }
    }
    View {
        lines,
        board: Some(board(&map(state, viewer))),
    }
}

/// The map as the engine-neutral picture the web draws: the same public facts as [`map`].
pub fn board(map: &MapPicture) -> engine::Board {
    let point = |p: &Point| engine::MapPoint {
        x: p.x.hundredths(),
        y: p.y.hundredths(),
    };
    let outline = |shape: &Shape| match shape {
        Shape::Circle { centre, radius } => engine::Outline::Circle {
            centre: point(centre),
            radius: radius.hundredths(),
        },
        Shape::Polygon(points) => engine::Outline::Polygon {
            points: points.iter().map(point).collect(),
        },
    };
    let (width, height) = (map.width.hundredths(), map.height.hundredths());
    let mut shapes = Vec::new();
    for zone in &map.zones {
        let depth = zone.depth.hundredths();
        let (low_x, low_y, high_x, high_y) = match zone.edge {
            Edge::North => (0, height - depth, width, height),
            Edge::South => (0, 0, width, depth),
            Edge::East => (width - depth, 0, width, height),
            Edge::West => (0, 0, depth, height),
        };
        let corners = [
            (low_x, low_y),
            (high_x, low_y),
            (high_x, high_y),
            (low_x, high_y),
        ];
        shapes.push(engine::MapShape {
            kind: engine::MapKind::Zone,
            label: format!("{} deployment", zone.fleet),
            side: Some(zone.side),
            outline: engine::Outline::Polygon {
                points: corners
                    .iter()
                    .map(|&(x, y)| engine::MapPoint { x, y })
                    .collect(),
            },
            heading: None,
            note: String::new(),
        });
    }
    let areas = [
        (&map.islands, engine::MapKind::Terrain, "island"),
        (&map.clouds, engine::MapKind::Hazard, "cloud"),
        (&map.storms, engine::MapKind::Hazard, "storm"),
    ];
    for (list, kind, what) in areas {
        for area in list {
            shapes.push(engine::MapShape {
                kind,
                label: format!("{what} {}", area.name),
                side: None,
                outline: outline(&area.shape),
                heading: None,
                note: area
                    .band
                    .as_ref()
                    .map(|band| format!("elevation {}-{}", band.low, band.high))
                    .unwrap_or_default(),
            });
        }
    }
    for unit in &map.units {
        let mut note = format!(
            "elevation {}, hull {}/{}",
            unit.elevation, unit.hull, unit.max_hull
        );
        for status in &unit.statuses {
            note.push_str(", ");
            note.push_str(status);
        }
        shapes.push(engine::MapShape {
            kind: engine::MapKind::Unit,
            label: unit.name.clone(),
            side: Some(unit.side),
            outline: engine::Outline::Circle {
                centre: point(&unit.at),
                radius: unit.radius.hundredths(),
            },
            heading: u16::try_from(unit.heading.half_degrees() / 2).ok(),
            note,
        });
    }
    // The legend names each side by its fleet and its player (the zones list every side).
    let sides = map
        .zones
        .iter()
        .map(
            |zone| match map.units.iter().find(|u| u.side == zone.side) {
                Some(unit) => format!("{} ({})", zone.fleet, unit.player),
                None => zone.fleet.clone(),
            },
        )
        .collect();
    engine::Board::Map(engine::MapPicture {
        width,
        height,
        shapes,
        sides,
    })
}

fn shape_text(shape: &Shape) -> String {
    match shape {
        Shape::Circle { centre, radius } => {
            format!(
                "circle at {} radius {}\"",
                centre.display(),
                radius.display()
            )
        }
        Shape::Polygon(points) => {
            let corners: Vec<String> = points.iter().map(|p| p.display()).collect();
            format!("polygon {}", corners.join(" "))
        }
    }
}
