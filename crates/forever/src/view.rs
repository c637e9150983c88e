//! What each viewer may see, and the battlefield as shapes in inches for an SVG. Everything
//! on the table is public (the game is played with open cut-outs); hidden are the standing
//! deflector orders and, while building, the fleets not yet on the table (FOREVER-GM-20/44).

use engine::{View, Viewer};
use serde::{Deserialize, Serialize};

use crate::design::Hull;
use crate::fixed::Inches;
use crate::geometry::{Point, Polygon};
use crate::report::ship_status;
use crate::state::{Phase, Protect, SeatStatus, Ship, State};

/// What a shape on the battlefield is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShapeKind {
    Core,
    Section,
    /// A section broken off and drifting (FOREVER-JET-1).
    Jettisoned,
    Demeter,
    Meteor,
    Rock,
    /// A point; `radius` is its 24" reach (FOREVER-TER-3).
    BlackHole,
    /// A segment from `points[0]` to `points[1]` (FOREVER-MOD-FLUX-3).
    FluxLine,
    /// A player's deployment strip while fleets are placed (FOREVER-PLAY-2).
    DeploymentArea,
    /// A ship not yet on the table, shown only to its owner and the GM.
    Planned,
}

/// One shape: corners (or a line's ends, or a point), in inches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MapShape {
    pub kind: ShapeKind,
    /// `Lancer.S1`, `meteor 12`, `rock Ayers`.
    pub label: String,
    /// The owning player's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    pub points: Vec<Point>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius: Option<Inches>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hp: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_hp: Option<i64>,
}

/// The battlefield for drawing: the table's size and every shape on it, in inches, x to the
/// right and y up (flip y for SVG).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BattleMap {
    pub width: Inches,
    pub height: Inches,
    pub shapes: Vec<MapShape>,
}

fn shape(kind: ShapeKind, label: String, owner: Option<String>, polygon: &Polygon) -> MapShape {
    MapShape {
        kind,
        label,
        owner,
        points: polygon.corners.clone(),
        radius: None,
        hp: None,
        max_hp: None,
    }
}

fn ship_shapes(
    ship: &Ship,
    hull: &Hull,
    owner: &str,
    kind_override: Option<ShapeKind>,
) -> Vec<MapShape> {
    ship.polygons(hull)
        .into_iter()
        .enumerate()
        .filter_map(|(index, polygon)| {
            let polygon = polygon?;
            let part = hull.parts.get(index)?;
            let kind = kind_override.unwrap_or(if index == 0 {
                ShapeKind::Core
            } else {
                ShapeKind::Section
            });
            let mut out = shape(
                kind,
                format!("{}.{}", ship.name, part.name),
                Some(owner.to_string()),
                &polygon,
            );
            out.hp = ship.parts.get(index).map(|p| p.hp);
            out.max_hp = Some(part.max_hp);
            Some(out)
        })
        .collect()
}

/// The battlefield as `viewer` may see it. Public and other players see only what is on the
/// table; a player also sees their own fleet still being planned.
pub fn map(state: &State, viewer: Viewer) -> BattleMap {
    let mut shapes = Vec::new();
    for rock in &state.setup.rocks {
        shapes.push(shape(
            ShapeKind::Rock,
            format!("rock {}", rock.name),
            None,
            &Polygon::new(rock.corners.clone()),
        ));
    }
    for hole in &state.setup.black_holes {
        shapes.push(MapShape {
            kind: ShapeKind::BlackHole,
            label: format!("black hole {}", hole.name),
            owner: None,
            points: vec![hole.at],
            radius: Some(Inches::whole(24)),
            hp: None,
            max_hp: None,
        });
    }
    if state.phase == Phase::Building {
        for seat in &state.seats {
            if let Some((low, high)) = state.deployment_strip(seat.player.id) {
                shapes.push(shape(
                    ShapeKind::DeploymentArea,
                    format!("{}'s deployment area", seat.player.name),
                    Some(seat.player.name.clone()),
                    &Polygon::rect(low, 0, high, state.setup.height()),
                ));
            }
            let sees = match viewer {
                Viewer::Gm => true,
                Viewer::Player(player) => player == seat.player.id,
                Viewer::Public => false,
            };
            if sees {
                for planned in &seat.pending {
                    if let Ok(hull) = Hull::check(&planned.design) {
                        let mut ship = Ship::new(
                            0,
                            &planned.design.name,
                            seat.player.id,
                            planned.design.clone(),
                            &hull,
                        );
                        ship.at = planned.at;
                        ship.facing = planned.facing;
                        shapes.extend(ship_shapes(
                            &ship,
                            &hull,
                            &seat.player.name,
                            Some(ShapeKind::Planned),
                        ));
                    }
                }
            }
        }
    }
    let hulls = state.hulls().unwrap_or_default();
    for (ship, hull) in state.ships.iter().zip(&hulls) {
        if ship.destroyed {
            continue;
        }
        shapes.extend(ship_shapes(
            ship,
            hull,
            &state.player_name(ship.owner),
            None,
        ));
    }
    for body in &state.bodies {
        for section in body.sections.iter().filter(|s| !s.destroyed) {
            let mut out = shape(
                ShapeKind::Jettisoned,
                format!("{}.{}", body.label(), section.name),
                Some(state.player_name(body.owner)),
                &section.shape,
            );
            out.hp = Some(section.hp);
            shapes.push(out);
        }
    }
    for demeter in &state.demeters {
        let mut out = shape(
            ShapeKind::Demeter,
            demeter.name.clone(),
            Some(state.player_name(demeter.owner)),
            &demeter.polygon(),
        );
        out.hp = Some(demeter.hp);
        shapes.push(out);
    }
    for group in &state.meteor_groups {
        for meteor in &group.meteors {
            shapes.push(MapShape {
                kind: ShapeKind::Meteor,
                label: format!("meteor {}", meteor.id),
                owner: None,
                points: vec![meteor.at],
                radius: Some(Inches(crate::state::METEOR_RADIUS)),
                hp: Some(meteor.hp),
                max_hp: Some(3),
            });
        }
    }
    for line in &state.flux_lines {
        let ship = state
            .ships
            .iter()
            .find(|s| s.id == line.ship)
            .map_or("?", |s| s.name.as_str());
        shapes.push(MapShape {
            kind: ShapeKind::FluxLine,
            label: format!("{ship} flux line"),
            owner: Some(state.player_name(line.owner)),
            points: vec![line.from, line.to],
            radius: None,
            hp: None,
            max_hp: None,
        });
    }
    BattleMap {
        width: state.setup.table[0],
        height: state.setup.table[1],
        shapes,
    }
}

/// The text view, with the battlefield as a picture ([`map`] as [`board`]).
pub fn view(state: &State, viewer: Viewer) -> View {
    let mut lines = Vec::new();
    let first = state
        .seating
        .first()
        .map_or_else(String::new, |p| state.player_name(*p));
    lines.push(format!(
        "Table {}\" × {}\"; {} moves first. {}",
        state.setup.table[0],
        state.setup.table[1],
        first,
        match state.phase {
            Phase::Building => "Fleets are being built and deployed.".to_string(),
            Phase::Battle => format!("Round {} is next.", state.round + 1),
            Phase::Over => "The battle is over.".to_string(),
        }
    ));
    for seat in &state.seats {
        let status = match seat.status {
            SeatStatus::Playing => "playing",
            SeatStatus::Resigned => "resigned",
            SeatStatus::WipedOut => "wiped out",
        };
        let ships = state
            .ships
            .iter()
            .filter(|s| s.owner == seat.player.id && !s.destroyed)
            .count();
        let mut line = format!(
            "{}: score {}, {status}, {ships} ships",
            seat.player.name, seat.score
        );
        if state.phase == Phase::Building {
            line.push_str(if seat.ready {
                ", fleet accepted"
            } else {
                ", building"
            });
        }
        lines.push(line);
        let sees_own = match viewer {
            Viewer::Gm => true,
            Viewer::Player(player) => player == seat.player.id,
            Viewer::Public => false,
        };
        if sees_own {
            for planned in &seat.pending {
                lines.push(format!(
                    "  planned: {} at {} facing {}",
                    planned.design.name,
                    planned.at.show(),
                    planned.facing
                ));
            }
            for (key, protect) in &seat.standing {
                let what = match protect {
                    Protect::Any => "any section".to_string(),
                    Protect::Sections(names) => names.join(", "),
                };
                lines.push(format!("  standing order: deflector {key} protects {what}"));
            }
        }
    }
    let hulls = state.hulls().unwrap_or_default();
    for (ship, hull) in state.ships.iter().zip(&hulls) {
        if ship.destroyed {
            continue;
        }
        lines.push(format!(
            "{}: {} {}",
            state.player_name(ship.owner),
            ship.name,
            ship_status(ship, hull, state)
        ));
    }
    for body in &state.bodies {
        lines.push(format!(
            "{}: {} jettisoned near {}",
            state.player_name(body.owner),
            body.label(),
            body.centre().show()
        ));
    }
    for demeter in &state.demeters {
        lines.push(format!(
            "{}: {} at {}, HP {}",
            state.player_name(demeter.owner),
            demeter.name,
            demeter.at.show(),
            demeter.hp
        ));
    }
    for group in &state.meteor_groups {
        for meteor in &group.meteors {
            lines.push(format!(
                "meteor {} at {}, HP {}",
                meteor.id,
                meteor.at.show(),
                meteor.hp
            ));
        }
    }
    for rock in &state.setup.rocks {
        lines.push(format!("rock {}", rock.name));
    }
    for hole in &state.setup.black_holes {
        lines.push(format!("black hole {} at {}", hole.name, hole.at.show()));
    }
    if let Some(finish) = &state.finish {
        lines.push(format!("Over: {}.", finish.reason));
    }
    View {
        lines,
        board: Some(board(state, &map(state, viewer))),
    }
}

/// The battlefield as the engine-neutral picture the web draws: the same facts as [`map`].
pub fn board(state: &State, map: &BattleMap) -> engine::Board {
    let side = |owner: &Option<String>| {
        owner.as_ref().and_then(|name| {
            state
                .seats
                .iter()
                .position(|seat| &seat.player.name == name)
                .and_then(|index| u8::try_from(index).ok())
        })
    };
    let point = |p: &Point| engine::MapPoint { x: p.x, y: p.y };
    let shapes = map
        .shapes
        .iter()
        .filter_map(|shape| {
            let kind = match shape.kind {
                ShapeKind::Core | ShapeKind::Section | ShapeKind::Demeter | ShapeKind::Planned => {
                    engine::MapKind::Unit
                }
                ShapeKind::Jettisoned => engine::MapKind::Wreck,
                ShapeKind::Meteor | ShapeKind::BlackHole => engine::MapKind::Hazard,
                ShapeKind::Rock => engine::MapKind::Terrain,
                ShapeKind::FluxLine => engine::MapKind::Track,
                ShapeKind::DeploymentArea => engine::MapKind::Zone,
            };
            let outline = match (shape.kind, shape.points.as_slice(), shape.radius) {
                (ShapeKind::FluxLine, [from, to, ..], _) => engine::Outline::Line {
                    from: point(from),
                    to: point(to),
                },
                (_, [centre], Some(radius)) => engine::Outline::Circle {
                    centre: point(centre),
                    radius: radius.0,
                },
                (_, points, _) if points.len() >= 2 => engine::Outline::Polygon {
                    points: points.iter().map(point).collect(),
                },
                _ => return None,
            };
            let mut note = match (shape.hp, shape.max_hp) {
                (Some(hp), Some(max)) => format!("HP {hp}/{max}"),
                (Some(hp), None) => format!("HP {hp}"),
                _ => String::new(),
            };
            if shape.kind == ShapeKind::Planned {
                note = "planned".to_string();
            }
            Some(engine::MapShape {
                kind,
                label: shape.label.clone(),
                side: side(&shape.owner),
                outline,
                heading: None,
                note,
            })
        })
        .collect();
    engine::Board::Map(engine::MapPicture {
        width: map.width.0,
        height: map.height.0,
        shapes,
        // A side is a seat: the legend names its player.
        sides: state
            .seats
            .iter()
            .map(|seat| seat.player.name.clone())
            .collect(),
    })
}
