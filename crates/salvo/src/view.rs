//! What each viewer may see. Hidden: where un-hit ships lie and who placed a fleet. Public:
//! everything the reports have said (hits, misses, sunk ships and their squares, captures,
//! backfire revelations, tallies).

use std::collections::BTreeSet;

use engine::{Board, GridMark, GridPicture, Mark, NamedGrid, PlayerId, View, Viewer};

use crate::announce::own_status;
use crate::board::{SIDE, Square, row_letter};
use crate::state::{Admiral, PlacedBy, State};

pub(crate) fn view(state: &State, viewer: Viewer) -> View {
    let mut lines = vec![format!(
        "{} — before turn {}",
        crate::Salvo::TITLE_SHORT,
        state.turn
    )];
    if let Some(end) = &state.end {
        let winners: Vec<String> = end.winners.iter().map(|w| state.name_of(*w)).collect();
        lines.push(format!(
            "Game over on turn {}: {} ({}).",
            end.turn,
            if winners.is_empty() {
                "no winner".to_string()
            } else {
                format!("won by {}", winners.join(", "))
            },
            end.reason
        ));
    }
    lines.push(settings_line(state));
    for admiral in &state.admirals {
        lines.push(format!(
            "{}: {}; score {}",
            admiral.name,
            own_status(state, admiral),
            state.score(admiral.id)
        ));
    }
    let me = match viewer {
        Viewer::Player(id) => state.admiral(id),
        Viewer::Public | Viewer::Gm => None,
    };
    let board;
    if let Some(me) = me {
        lines.push(String::new());
        lines.push(match (me.placed_by, me.may_place) {
            (PlacedBy::Server, true) => "Your fleet, placed at random by the server (your first orders may place it yourself with PLACE lines):".to_string(),
            (PlacedBy::Server, false) => "Your fleet (placed at random by the server):".to_string(),
            (PlacedBy::Player, _) => "Your fleet (placed by you):".to_string(),
        });
        for ship in me.fleet.ships() {
            let hits: Vec<String> = ship.damage().keys().map(Square::to_string).collect();
            let fate = match ship.status() {
                crate::fleet::ShipStatus::Afloat => "afloat".to_string(),
                crate::fleet::ShipStatus::Sunk { turn } => format!("sunk on turn {turn}"),
                crate::fleet::ShipStatus::Captured { by, .. } => {
                    format!("held by {}", state.name_of(by))
                }
            };
            let damage = if hits.is_empty() {
                String::new()
            } else {
                format!(", hit at {}", hits.join(" "))
            };
            lines.push(format!("  {}: {fate}{damage}", ship.placement().describe()));
        }
        lines.extend(grid_lines(state, me, true));
        board = Some(Board::Grid(picture(state, me, true)));
    } else {
        // Every admiral's ocean: to the public only what reports have said (hits, misses, sunk
        // ships); to the GM everything.
        board = Some(Board::Grids {
            grids: state
                .admirals
                .iter()
                .map(|admiral| NamedGrid {
                    title: format!("{}'s ocean", admiral.name),
                    grid: picture(state, admiral, viewer == Viewer::Gm),
                })
                .collect(),
        });
    }
    for admiral in &state.admirals {
        if me.is_some_and(|m| m.id == admiral.id) {
            continue;
        }
        lines.push(String::new());
        lines.push(format!("{}'s ocean:", admiral.name));
        lines.extend(grid_lines(state, admiral, viewer == Viewer::Gm));
    }
    lines.push(String::new());
    lines.push(
        "Key: X hit, # sunk, o miss, . not yet known; your ships: A Carrier, B Battleship, C Cruiser, S Submarine, D Destroyer (lower case: held by the enemy)."
            .to_string(),
    );
    View { lines, board }
}

fn settings_line(state: &State) -> String {
    let setup = &state.setup;
    let shots = match setup.shots {
        crate::setup::ShotRule::One => "one shot a turn",
        crate::setup::ShotRule::Salvo => "salvo: one shot per ship afloat",
    };
    format!(
        "Dice: {}; {shots}; torpedo bonus {}.",
        setup.dice_mode,
        if setup.torpedo_bonus { "on" } else { "off" }
    )
}

/// Every square of `owner`'s ocean any attack has reported on.
fn attacked(state: &State, owner: PlayerId) -> BTreeSet<Square> {
    state
        .admirals
        .iter()
        .filter_map(|a| a.calls.get(&owner))
        .flat_map(|calls| calls.iter().copied())
        .collect()
}

fn grid_lines(state: &State, owner: &Admiral, reveal: bool) -> Vec<String> {
    let attacked = attacked(state, owner.id);
    let mut lines = vec![format!(
        "    {}",
        (1..=SIDE)
            .map(|c| format!("{c:<2}"))
            .collect::<String>()
            .trim_end()
    )];
    for row in 0..SIDE {
        let mut line = format!(" {}  ", row_letter(row));
        for col in 0..SIDE {
            let Some(square) = Square::new(row, col) else {
                continue;
            };
            let c = cell(owner, square, &attacked, reveal);
            line.push(c);
            line.push(' ');
        }
        lines.push(line.trim_end().to_string());
    }
    lines
}

/// The character a square shows: everything to its owner and the GM; to anyone else only
/// what reports have made public.
fn cell(owner: &Admiral, square: Square, attacked: &BTreeSet<Square>, reveal: bool) -> char {
    match owner.fleet.ship_at(square) {
        Some(ship) if ship.is_sunk() => '#',
        Some(ship) if ship.is_hit(square) => 'X',
        Some(ship) if reveal => {
            let letter = ship.kind().letter();
            if ship.captor().is_some() {
                letter.to_ascii_lowercase()
            } else {
                letter
            }
        }
        Some(_) | None if attacked.contains(&square) => 'o',
        _ => '.',
    }
}

/// `owner`'s ocean as a picture: with `reveal` (the owner, the GM) every ship; without it the
/// same squares as the public text grid ([`cell`]): hits, sunk ships and attacked squares.
fn picture(state: &State, owner: &Admiral, reveal: bool) -> GridPicture {
    let attacked = attacked(state, owner.id);
    let mut marks = Vec::new();
    for square in Square::all() {
        let mark = match owner.fleet.ship_at(square) {
            Some(ship) if ship.is_sunk() => Some(Mark::Sunk),
            Some(ship) if ship.is_hit(square) => Some(Mark::Hit),
            Some(_) if reveal => Some(Mark::OwnShip),
            Some(_) | None if attacked.contains(&square) => Some(Mark::Miss),
            Some(_) | None => None,
        };
        if let Some(mark) = mark {
            marks.push(GridMark {
                x: u16::from(square.col()),
                y: u16::from(square.row()),
                mark,
            });
        }
    }
    GridPicture {
        width: u16::from(SIDE),
        height: u16::from(SIDE),
        column_labels: (1..=SIDE).map(|c| c.to_string()).collect(),
        row_labels: (0..SIDE).map(|r| row_letter(r).to_string()).collect(),
        marks,
        pieces: Vec::new(),
        sides: Vec::new(),
    }
}
