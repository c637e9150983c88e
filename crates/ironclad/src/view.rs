//! What each viewer may see. Positions, headings, damage and criticals are in plain sight on
//! the table; the torpedoes a ship has left are known only to her own side's players and the
//! GM (IRON-ADM-05).

use engine::{Board as Picture, GridMark, GridPicture, GridPiece, Mark, View, Viewer};

use crate::grid::Heading;

use crate::report::own_status;
use crate::state::{Fate, STARTING_FP, State};

pub fn view(state: &State, viewer: Viewer) -> View {
    let viewer_side = match viewer {
        Viewer::Player(player) => state.commander(player).map(|c| c.side),
        Viewer::Public | Viewer::Gm => None,
    };
    let sees_stores = |side: usize| viewer == Viewer::Gm || viewer_side == Some(side);
    let mut lines = vec![format!(
        "Ironclad: turn {}{}",
        state.turn,
        if state.finished { " (battle over)" } else { "" }
    )];
    for (index, side) in state.sides.iter().enumerate() {
        lines.push(format!(
            "{} (home edge: {}):",
            side.name,
            side.home_edge.name()
        ));
        for ship in state.ships.iter().filter(|s| s.side == index) {
            let mut line = format!(
                "  {} ({}, {}): {}",
                ship.name,
                state.player_name(ship.player),
                ship.class,
                own_status(state, ship)
            );
            if sees_stores(index) && ship.afloat() {
                line.push_str(&format!(" · torpedoes {}", ship.torpedoes_left));
            }
            lines.push(line);
        }
    }
    let own_player = match viewer {
        Viewer::Player(player) => Some(player),
        _ => None,
    };
    let marks = state
        .ships
        .iter()
        .filter_map(|ship| {
            let mark = match ship.fate {
                Fate::Sunk { .. } => Mark::Sunk,
                Fate::Escaped { .. } => return None,
                // The shared picture has no mark for an enemy ship: enemies are in the lines.
                Fate::Afloat if Some(ship.player) != own_player => return None,
                Fate::Afloat if ship.fp < STARTING_FP => Mark::Hit,
                Fate::Afloat => Mark::OwnShip,
            };
            Some(GridMark {
                x: u16::from(ship.area.column()),
                y: u16::from(ship.area.row()),
                mark,
            })
        })
        .collect();
    // Where every ship afloat lies and which way she heads is on the open table (IRON-ADM-05:
    // only torpedo stocks are hidden), so the picture shows them to everyone.
    let pieces = state
        .ships
        .iter()
        .filter(|ship| ship.afloat())
        .map(|ship| GridPiece {
            x: u16::from(ship.area.column()),
            y: u16::from(ship.area.row()),
            label: ship.name.clone(),
            side: u8::try_from(ship.side).unwrap_or(u8::MAX),
            heading: Heading::ALL
                .iter()
                .position(|h| *h == ship.heading)
                .and_then(|index| u16::try_from(index * 45).ok()),
            damaged: ship.fp < STARTING_FP,
        })
        .collect();
    let board = state.rules.board;
    View {
        lines,
        board: Some(Picture::Grid(GridPicture {
            width: u16::from(board.columns),
            height: u16::from(board.rows),
            column_labels: (0..board.columns)
                .map(|c| char::from(b'A'.saturating_add(c)).to_string())
                .collect(),
            row_labels: (1..=u16::from(board.rows)).map(|r| r.to_string()).collect(),
            marks,
            pieces,
            sides: side_names(state),
        })),
    }
}

/// Each side's name with the players who command it, for the board's legend: "Royal Navy
/// (Ann and Bob)".
fn side_names(state: &State) -> Vec<String> {
    state
        .sides
        .iter()
        .enumerate()
        .map(|(index, side)| {
            let commanders: Vec<&str> = state
                .commanders
                .iter()
                .filter(|c| c.side == index)
                .map(|c| c.player.name.as_str())
                .collect();
            if commanders.is_empty() {
                side.name.clone()
            } else {
                format!("{} ({})", side.name, commanders.join(" and "))
            }
        })
        .collect()
}
