//! The turn report's words: one row per player (catalogue section 5), each saying what they
//! fired, the dice, and what every square did, classic-style ("sank Battleship").

use engine::{PlayerId, ReportRow};

use crate::board::Square;
use crate::fleet::{ShipKind, ShipStatus};
use crate::orders::Attack;
use crate::rolls::ScubaRoll;
use crate::setup::{MissReport, Special};
use crate::state::{Admiral, AdmiralStatus, State, push_number};

/// What one square did when struck, judged against the start of the turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SquareResult {
    /// A ship's square, newly hit.
    Hit,
    /// A ship's square hit before this turn: nothing more happens (SALVO-GM-15).
    AlreadyHit,
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
        let mut out = Clauses(String::with_capacity(160));
        for lead in &self.lead {
            out.push(lead);
        }
        match &self.torpedo {
            Some(run) => torpedo_text(&mut out, run, &self.results),
            None => {
                let several = self.targets.len() > 1;
                for target in &self.targets {
                    let label = several
                        .then(|| state.admiral(*target).map(|a| a.name.as_str()))
                        .flatten();
                    push_squares(
                        &mut out,
                        &self.results,
                        Some(*target),
                        state.setup.misses,
                        label,
                    );
                }
            }
        }
        if let Some(bonus) = &self.bonus {
            out.push(bonus);
            if self.torpedo_kill.is_some() {
                let rest = self.results.get(1..).unwrap_or_default();
                push_squares(&mut out, rest, None, MissReport::Listed, None);
            }
        }
        for clause in &self.tail {
            out.push(clause);
        }
        out.0
    }
}

/// A Result cell built clause by clause, with "; " between clauses, in one buffer: reports
/// are written every turn, so this avoids a string per clause (see the bench).
struct Clauses(String);

impl Clauses {
    /// The buffer, ready for a new clause.
    fn start(&mut self) -> &mut String {
        if !self.0.is_empty() {
            self.0.push_str("; ");
        }
        &mut self.0
    }

    fn push(&mut self, clause: &str) {
        self.start().push_str(clause);
    }
}

fn torpedo_text(out: &mut Clauses, run: &TorpedoRun, results: &[(PlayerId, Square, SquareResult)]) {
    if run.stopped {
        if !run.passed.is_empty() {
            let text = out.start();
            text.push_str("passed ");
            push_names(text, run.passed.iter());
        }
        if let Some((_, square, result)) = results.first() {
            let text = out.start();
            text.push_str("hit ");
            square.push_name(text);
            if *result == SquareResult::AlreadyHit {
                text.push_str(" (already damaged)");
            }
        }
    } else {
        let text = out.start();
        text.push_str("reached ");
        if let Some(last) = run.passed.last() {
            last.push_name(text);
        }
        text.push_str(" with nothing in its path: miss");
    }
}

/// `hit C5, D5; hit already G3; miss B4, C3`, for the results aimed
/// at `target` (all of them for `None`), the first clause labelled with the target's name when
/// an attack had several.
fn push_squares(
    out: &mut Clauses,
    results: &[(PlayerId, Square, SquareResult)],
    target: Option<PlayerId>,
    misses: MissReport,
    label: Option<&str>,
) {
    let mut label = label;
    let groups = [
        (SquareResult::Hit, "hit "),
        (SquareResult::AlreadyHit, "hit already "),
        (SquareResult::Miss, "miss "),
    ];
    for (kind, words) in groups {
        let of_kind = || {
            results
                .iter()
                .filter(move |(t, _, r)| *r == kind && target.is_none_or(|w| *t == w))
                .map(|(_, square, _)| square)
        };
        let count = of_kind().count();
        if count == 0 {
            continue;
        }
        let text = out.start();
        if let Some(name) = label.take() {
            text.push_str(name);
            text.push_str(": ");
        }
        if kind == SquareResult::Miss && misses == MissReport::Counted {
            push_number(text, u32::try_from(count).unwrap_or(u32::MAX));
            text.push_str(if count == 1 { " miss" } else { " misses" });
        } else {
            text.push_str(words);
            push_names(text, of_kind());
        }
    }
}

fn push_names<'a>(text: &mut String, squares: impl Iterator<Item = &'a Square>) {
    for (position, square) in squares.enumerate() {
        if position > 0 {
            text.push_str(", ");
        }
        square.push_name(text);
    }
}

fn join_squares(squares: &[Square]) -> String {
    let mut text = String::with_capacity(squares.len() * 5);
    for (position, square) in squares.iter().enumerate() {
        if position > 0 {
            text.push_str(", ");
        }
        square.push_name(&mut text);
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
    let mut text = String::with_capacity(64);
    match admiral.status {
        AdmiralStatus::Left { turn } => {
            text.push_str("left the game (turn ");
            push_number(&mut text, turn);
            text.push(')');
            return text;
        }
        AdmiralStatus::Defeated { turn } => {
            text.push_str("fleet lost (turn ");
            push_number(&mut text, turn);
            text.push(')');
        }
        AdmiralStatus::Active => {
            push_number(
                &mut text,
                u32::try_from(admiral.fleet.afloat_count()).unwrap_or(0),
            );
            text.push_str(" afloat");
        }
    }
    let mut first_sunk = true;
    for ship in admiral.fleet.ships().iter().filter(|s| s.is_sunk()) {
        text.push_str(if first_sunk { "; sunk: " } else { ", " });
        text.push_str(ship.kind().name());
        first_sunk = false;
    }
    for ship in admiral.fleet.ships() {
        if let ShipStatus::Captured { by, .. } = ship.status() {
            text.push_str("; ");
            text.push_str(ship.kind().name());
            text.push_str(" held by ");
            text.push_str(state.admiral(by).map_or("?", |a| a.name.as_str()));
        }
    }
    for (owner, kind) in state.held_by(admiral.id) {
        text.push_str("; holds ");
        text.push_str(state.admiral(owner).map_or("?", |a| a.name.as_str()));
        text.push_str("'s ");
        text.push_str(kind.name());
    }
    let tally = admiral.tally(&state.setup);
    if !tally.is_empty() {
        text.push_str("; ");
        text.push_str(&tally);
    }
    text
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
