//! The turn report's words: one row per player (catalogue section 5), each saying what they
//! fired, the dice, and what every square did, classic-style ("sank Battleship").

use engine::{PlayerId, ReportRow};

use crate::board::Square;
use crate::fleet::{ShipKind, ShipStatus};
use crate::orders::Attack;
use crate::rolls::ScubaRoll;
use crate::setup::{MissReport, Special};
use crate::state::{Admiral, AdmiralStatus, State};

/// What one square did when struck, judged against the start of the turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SquareResult {
    /// A ship's square, newly hit.
    Hit,
    /// A ship's square hit before this turn: nothing more happens (SALVO-GM-15).
    AlreadyHit,
    /// A captured ship's square: no effect (SALVO-GM-06c).
    Hulk,
    /// Open water.
    Miss,
}

/// A torpedo's run, for its report line.
#[derive(Debug, Clone)]
pub(crate) struct TorpedoRun {
    pub passed: Vec<Square>,
    pub stopped: bool,
}

/// One player's attack this turn: what the dice said, what it struck, and what came of it.
#[derive(Debug, Clone)]
pub(crate) struct Volley {
    pub attacker: PlayerId,
    pub coord: String,
    pub targets: Vec<PlayerId>,
    /// The dice and their verdict, in order.
    pub lead: Vec<String>,
    /// The extra whose use this attack spends (SALVO-GM-14).
    pub spent: Option<Special>,
    /// Squares struck, in the order the attack names them.
    pub strikes: Vec<(PlayerId, Square)>,
    /// Squares a torpedo ran over (reported, not struck).
    pub passed: Vec<(PlayerId, Square)>,
    pub torpedo: Option<TorpedoRun>,
    pub bonus: Option<String>,
    pub torpedo_kill: Option<(PlayerId, ShipKind)>,
    pub scuba: Option<(PlayerId, ShipKind, ScubaRoll)>,
    pub recapture: Option<ShipKind>,
    pub backfire: Option<ShipKind>,
    /// Each square's result, filled when effects apply.
    pub results: Vec<(PlayerId, Square, SquareResult)>,
    /// Captures, sinkings and the like, filled when effects apply.
    pub tail: Vec<String>,
}

impl Volley {
    pub fn new(attacker: PlayerId, coord: String) -> Self {
        Self {
            attacker,
            coord,
            targets: Vec::new(),
            lead: Vec::new(),
            spent: None,
            strikes: Vec::new(),
            passed: Vec::new(),
            torpedo: None,
            bonus: None,
            torpedo_kill: None,
            scuba: None,
            recapture: None,
            backfire: None,
            results: Vec::new(),
            tail: Vec::new(),
        }
    }

    pub fn strike_all(&mut self, target: PlayerId, squares: Vec<Square>) {
        self.strikes
            .extend(squares.into_iter().map(|square| (target, square)));
    }

    fn result_text(&self, state: &State) -> String {
        let mut parts: Vec<String> = self.lead.clone();
        let several = self.targets.len() > 1;
        match &self.torpedo {
            Some(run) => parts.extend(torpedo_text(run, &self.results)),
            None => {
                for target in &self.targets {
                    let results: Vec<(Square, SquareResult)> = self
                        .results
                        .iter()
                        .filter(|(t, _, _)| t == target)
                        .map(|(_, s, r)| (*s, *r))
                        .collect();
                    if results.is_empty() {
                        continue;
                    }
                    let text = squares_text(&results, state.setup.misses);
                    if several {
                        parts.push(format!("{}: {text}", state.name_of(*target)));
                    } else {
                        parts.push(text);
                    }
                }
            }
        }
        if let Some(bonus) = &self.bonus {
            parts.push(bonus.clone());
            if self.torpedo_kill.is_some() {
                let rest: Vec<(Square, SquareResult)> = self
                    .results
                    .iter()
                    .skip(1)
                    .map(|(_, s, r)| (*s, *r))
                    .collect();
                if !rest.is_empty() {
                    parts.push(squares_text(&rest, MissReport::Listed));
                }
            }
        }
        parts.extend(self.tail.iter().cloned());
        parts.join("; ")
    }
}

fn torpedo_text(run: &TorpedoRun, results: &[(PlayerId, Square, SquareResult)]) -> Vec<String> {
    let mut parts = Vec::new();
    if run.stopped {
        if !run.passed.is_empty() {
            parts.push(format!("passed {}", join_squares(&run.passed)));
        }
        if let Some((_, square, result)) = results.first() {
            parts.push(match result {
                SquareResult::AlreadyHit => format!("hit {square} (already damaged)"),
                _ => format!("hit {square}"),
            });
        }
    } else {
        let last = run.passed.last().map(Square::to_string).unwrap_or_default();
        parts.push(format!("reached {last} with nothing in its path: miss"));
    }
    parts
}

/// `hit C5, D5; hit already G3; miss (captured hulk) D2; miss B4, C3`.
fn squares_text(results: &[(Square, SquareResult)], misses: MissReport) -> String {
    let of = |wanted: SquareResult| -> Vec<Square> {
        results
            .iter()
            .filter(|(_, r)| *r == wanted)
            .map(|(s, _)| *s)
            .collect()
    };
    let mut parts = Vec::new();
    let hits = of(SquareResult::Hit);
    if !hits.is_empty() {
        parts.push(format!("hit {}", join_squares(&hits)));
    }
    let already = of(SquareResult::AlreadyHit);
    if !already.is_empty() {
        parts.push(format!("hit already {}", join_squares(&already)));
    }
    let hulks = of(SquareResult::Hulk);
    if !hulks.is_empty() {
        parts.push(format!("miss (captured hulk) {}", join_squares(&hulks)));
    }
    let missed = of(SquareResult::Miss);
    match (missed.len(), misses) {
        (0, _) => {}
        (_, MissReport::Listed) => parts.push(format!("miss {}", join_squares(&missed))),
        (1, MissReport::Counted) => parts.push("1 miss".into()),
        (n, MissReport::Counted) => parts.push(format!("{n} misses")),
    }
    parts.join("; ")
}

fn join_squares(squares: &[Square]) -> String {
    use std::fmt::Write;
    let mut text = String::with_capacity(squares.len() * 5);
    for (position, square) in squares.iter().enumerate() {
        if position > 0 {
            text.push_str(", ");
        }
        // Writing to a String cannot fail.
        let _ = write!(text, "{square}");
    }
    text
}

/// The Co-ord cell: the attack as ordered (catalogue section 5).
pub(crate) fn coord(state: &State, attack: &Attack) -> String {
    match attack {
        Attack::Pass => "PASS".into(),
        Attack::Fire { shots } => {
            let targets = attack.targets();
            if targets.len() > 1 {
                targets
                    .iter()
                    .map(|t| {
                        let squares: Vec<Square> = shots
                            .iter()
                            .filter(|s| s.at == *t)
                            .map(|s| s.square)
                            .collect();
                        format!("{}: {}", state.name_of(*t), join_squares(&squares))
                    })
                    .collect::<Vec<_>>()
                    .join("; ")
            } else {
                join_squares(&shots.iter().map(|s| s.square).collect::<Vec<_>>())
            }
        }
        Attack::Nuke { centre, .. } => format!("NUKE {centre}"),
        Attack::Scuba { .. } => "SCUBA".into(),
        Attack::Recapture { ship } => format!("SCUBA RECAPTURE {ship}"),
        Attack::Torpedo { start, heading, .. } => format!("TORP {start}→{}", heading.letter()),
        Attack::Experimental { pattern, .. } => format!(
            "EXP {}",
            pattern
                .squares()
                .iter()
                .map(Square::to_string)
                .collect::<Vec<_>>()
                .join(",")
        ),
        Attack::Bomber { centre, .. } => format!("BOMB {centre}"),
    }
}

/// One row per player in roster order.
pub(crate) fn rows(state: &State, volleys: &[Volley], many_players: bool) -> Vec<ReportRow> {
    state
        .admirals
        .iter()
        .map(|admiral| {
            let volley = volleys.iter().find(|v| v.attacker == admiral.id);
            let (name, coord, result) = match volley {
                Some(volley) => {
                    let name = match volley.targets.as_slice() {
                        [target] if many_players => {
                            format!("{} → {}", admiral.name, state.name_of(*target))
                        }
                        _ => admiral.name.clone(),
                    };
                    (name, volley.coord.clone(), volley.result_text(state))
                }
                None => {
                    let result = match admiral.status {
                        AdmiralStatus::Defeated { turn } => {
                            format!("out: fleet lost on turn {turn}")
                        }
                        AdmiralStatus::Left { .. } => "left the game".into(),
                        AdmiralStatus::Active => "joins the game".into(),
                    };
                    (admiral.name.clone(), "—".into(), result)
                }
            };
            ReportRow {
                name,
                coord,
                result,
                score: state.score(admiral.id).to_string(),
                own_status: own_status(state, admiral),
            }
        })
        .collect()
}

/// The Own Status cell: ships afloat, losses, ships held either way, and the tally of extras
/// left (catalogue section 5, SALVO-GEN-02). Public facts only.
pub(crate) fn own_status(state: &State, admiral: &Admiral) -> String {
    let mut parts = Vec::new();
    match admiral.status {
        AdmiralStatus::Left { turn } => return format!("left the game (turn {turn})"),
        AdmiralStatus::Defeated { turn } => parts.push(format!("fleet lost (turn {turn})")),
        AdmiralStatus::Active => parts.push(format!("{} afloat", admiral.fleet.afloat_count())),
    }
    let sunk: Vec<&str> = admiral
        .fleet
        .ships()
        .iter()
        .filter(|s| s.is_sunk())
        .map(|s| s.kind().name())
        .collect();
    if !sunk.is_empty() {
        parts.push(format!("sunk: {}", sunk.join(", ")));
    }
    for ship in admiral.fleet.ships() {
        if let ShipStatus::Captured { by, .. } = ship.status() {
            parts.push(format!("{} held by {}", ship.kind(), state.name_of(by)));
        }
    }
    for (owner, kind) in state.held_by(admiral.id) {
        parts.push(format!("holds {}'s {kind}", state.name_of(owner)));
    }
    let tally = admiral.tally(&state.setup);
    if !tally.is_empty() {
        parts.push(tally);
    }
    parts.join("; ")
}

/// Notes under the table: what happened outside the rows, then the key to Own Status.
pub(crate) fn closing_notes(state: &State, mut notes: Vec<String>) -> Vec<String> {
    let keys: Vec<String> = Special::ALL
        .iter()
        .filter(|s| state.setup.specials_enabled.contains(s))
        .map(|s| format!("{} {}", s.key(), s.name()))
        .collect();
    if !keys.is_empty() {
        notes.push(format!(
            "Own Status counts the extras left: {}.",
            keys.join(", ")
        ));
    }
    notes
}
