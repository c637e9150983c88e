//! What each viewer may see (BARMY-14, BARMY-GM-13), and the standings (BARMY-12, BARMY-GM-10).

use engine::{Board, GridMark, GridPicture, Mark, Outcome, Standing, View, Viewer};

use crate::board::Square;
use crate::{Captain, Damage, Fate, State};

pub(crate) fn view(state: &State, viewer: Viewer) -> View {
    let grid = state.setup.grid();
    let mut marks: std::collections::BTreeMap<Square, Mark> = std::collections::BTreeMap::new();
    // Public: every shot, as hit or miss; sunk ships whole. A penalty square stays hidden
    // until its ship sinks, because no shot revealed it.
    for square in &state.shots {
        marks.insert(*square, Mark::Miss);
    }
    for captain in state
        .captains
        .iter()
        .filter(|c| !matches!(c.fate, Fate::Left(_)))
    {
        let sunk = matches!(captain.fate, Fate::Sunk(_));
        for (square, damage) in captain.ship.iter().zip(captain.damage) {
            let entitled = viewer == Viewer::Gm || viewer == Viewer::Player(captain.id);
            let mark = match damage {
                _ if sunk => Some(Mark::Sunk),
                Some(Damage::Shot(_)) => Some(Mark::Hit),
                Some(Damage::Penalty(_)) if entitled => Some(Mark::Hit),
                None if entitled => Some(Mark::OwnShip),
                _ => None,
            };
            if let Some(mark) = mark {
                marks.insert(*square, mark);
            }
        }
    }
    let mut lines = Vec::new();
    match viewer {
        Viewer::Player(id) => match state.captain(id) {
            Some(captain) => lines.push(position_line(captain)),
            None => lines.push("You have no ship in this game.".into()),
        },
        Viewer::Gm => lines.extend(
            state
                .captains
                .iter()
                .map(|c| format!("{}: {}", c.name, position_line(c))),
        ),
        Viewer::Public => {}
    }
    lines.extend(
        state
            .captains
            .iter()
            .filter(|c| c.first_turn <= state.turn)
            .map(|c| {
                format!(
                    "{}: {} points, {}",
                    c.name,
                    c.score.display(),
                    c.own_status()
                )
            }),
    );
    View {
        lines,
        board: Some(Board::Grid(GridPicture {
            width: grid.width,
            height: grid.height,
            column_labels: (0..grid.width).map(Square::column_label).collect(),
            row_labels: (1..=grid.height).map(|y| y.to_string()).collect(),
            marks: marks
                .into_iter()
                .map(|(square, mark)| GridMark {
                    x: square.x,
                    y: square.y,
                    mark,
                })
                .collect(),
            pieces: Vec::new(),
            sides: Vec::new(),
        })),
    }
}

/// The private answer to "where is my ship" (BARMY-14, BARMY-GM-13).
pub(crate) fn private_lines(state: &State, player: engine::PlayerId) -> Vec<String> {
    match state.captain(player) {
        Some(captain) => vec![
            position_line(captain),
            format!("Your score: {} points.", captain.score.display()),
        ],
        None => vec!["You have no ship in this game.".into()],
    }
}

fn position_line(captain: &Captain) -> String {
    let squares: Vec<String> = captain.ship.iter().map(Square::to_string).collect();
    let hit: Vec<String> = captain
        .ship
        .iter()
        .zip(captain.damage)
        .filter(|(_, damage)| damage.is_some())
        .map(|(square, _)| square.to_string())
        .collect();
    let hit = if hit.is_empty() {
        "none hit".to_owned()
    } else {
        format!("hit: {}", hit.join(", "))
    };
    format!(
        "Your battleship lies on {} ({hit}); {}.",
        squares.join(", "),
        captain.own_status()
    )
}

pub(crate) fn outcome(state: &State) -> Outcome {
    // Ranked on the exact scores, of any size (BARMY-GM-12): `engine::rank` compares 64-bit
    // fractions, which a big game's scores outgrow. Best first, then by player id; equal
    // scores share a place (standard competition ranking, as `engine::rank`).
    let mut order: Vec<&Captain> = state.captains.iter().collect();
    order.sort_by(|a, b| b.score.cmp(&a.score).then(a.id.cmp(&b.id)));
    let mut standings: Vec<Standing> = Vec::with_capacity(order.len());
    let mut previous: Option<&Captain> = None;
    for (index, captain) in order.iter().enumerate() {
        let place = match (previous, standings.last()) {
            (Some(before), Some(last)) if before.score == captain.score => last.place,
            _ => u32::try_from(index + 1).unwrap_or(u32::MAX),
        };
        let status = match captain.fate {
            Fate::Afloat => "afloat".to_owned(),
            Fate::Sunk(turn) => format!("sunk in turn {turn}"),
            Fate::Left(turn) => format!("left before turn {turn}"),
        };
        standings.push(Standing {
            player: captain.id,
            name: captain.name.clone(),
            score: captain.score.to_score(),
            place,
            status,
        });
        previous = Some(captain);
    }
    // Highest exact score wins; equal scores share the win (BARMY-12, BARMY-GM-10). Players who
    // left the game cannot win it.
    let best = state
        .captains
        .iter()
        .filter(|c| !matches!(c.fate, Fate::Left(_)))
        .map(|c| &c.score)
        .max();
    let winners = match (state.finished, best) {
        (true, Some(best)) => state
            .captains
            .iter()
            .filter(|c| !matches!(c.fate, Fate::Left(_)) && &c.score == best)
            .map(|c| c.id)
            .collect(),
        _ => Vec::new(),
    };
    Outcome {
        finished: state.finished,
        standings,
        winners,
    }
}

/// The line that closes the last report.
pub(crate) fn closing_line(state: &State) -> String {
    let outcome = outcome(state);
    let names: Vec<String> = outcome
        .winners
        .iter()
        .filter_map(|id| state.captain(*id))
        .map(|c| format!("{} ({})", c.name, c.score.display()))
        .collect();
    match names.len() {
        0 => "Game over.".into(),
        1 => format!("Game over. The winner: {}.", names.join("")),
        _ => format!("Game over. A shared win: {}.", names.join(", ")),
    }
}
