//! The interface every Admiralty rule engine implements, and what they share: verifiable dice,
//! exact scores and the turn-report table.
//!
//! Engines are pure: no IO, no clock, no global RNG. The same state, orders and dice give the
//! same bytes out, which is what lets anyone re-verify a published turn.

use std::collections::BTreeMap;
use std::fmt::Debug;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

pub mod chat;
pub mod corrections;
pub mod dice;
pub mod order_text;
pub mod report;
pub mod score;
pub mod seats;
pub mod settings;

pub use dice::{Dice, GameSecret, Roll, Scatter, SeedError, TurnDice, TurnSeed};
pub use report::{Press, Report, ReportRow};
pub use score::Score;
pub use seats::{NamedSeat, SeatPlan, Seated};

/// A player as the service knows them: a stable id (unique within a game) and a display name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PlayerId(pub u64);

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    pub id: PlayerId,
    pub name: String,
}

/// Who is looking: what a view may contain depends on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "player")]
pub enum Viewer {
    /// Anyone at all: readers of the zine.
    Public,
    /// One player, who may also see their own hidden facts.
    Player(PlayerId),
    /// The game master, who sees everything.
    Gm,
}

/// A problem with one line of a player's orders, phrased for the confirmation mail and the web
/// form: where, what was wrong, and what would have been accepted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineIssue {
    /// 1-based line number within the text that was parsed.
    pub line: usize,
    /// The line as the player wrote it.
    pub text: String,
    /// What is wrong, in words true wherever the orders came from.
    pub problem: String,
    pub expected: String,
    /// What an error makes of its line when the set stands with it (by mail, a set with
    /// errors stands, and the confirmation says e.g. "if not corrected it counts as a miss");
    /// not said where a set with an error is refused whole (the web form).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub if_it_stands: Option<String>,
}

impl LineIssue {
    /// The problem as said where the set stands with it: [`Self::problem`], then
    /// [`Self::if_it_stands`].
    pub fn problem_if_it_stands(&self) -> String {
        match &self.if_it_stands {
            Some(consequence) => format!("{}; {consequence}", self.problem),
            None => self.problem.clone(),
        }
    }
}

/// One player's order text, as the engine understood it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParsedOrders<O> {
    /// What will be carried out if nothing else arrives before the deadline.
    pub orders: O,
    /// Each order as understood, in plain words, for the confirmation.
    pub understood: Vec<String>,
    /// Press written among the orders (the sample order line of BARMY-19 carries it).
    pub press: Vec<String>,
    /// Lines that were rejected.
    pub errors: Vec<LineIssue>,
    /// Lines that were accepted but may not do what the player hoped.
    pub warnings: Vec<LineIssue>,
    /// Lines set aside as not orders at all (closings, names, chat, mail commands: see
    /// [`chat`]), each with why: neither accepted nor refused.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chat: Vec<LineIssue>,
    /// How many lines were read as orders: neither refused nor set aside (counted by
    /// [`chat::set_aside`], which every engine's reading ends with).
    #[serde(default)]
    pub orders_read: usize,
}

impl<O> ParsedOrders<O> {
    /// Whether any line was read as an order: a reading of chat, press and refused lines
    /// alone holds none, and answers no turn ([`Engine::answers`]).
    pub fn has_orders(&self) -> bool {
        self.orders_read > 0
    }
}

/// Everything a turn's resolution needs besides the state and the dice.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(bound(deserialize = "O: DeserializeOwned", serialize = "O: Serialize"))]
pub struct TurnInput<O> {
    /// Each player's orders. A player missing here sent none: a no-moves-received (NMR).
    pub orders: BTreeMap<PlayerId, O>,
    /// Players who join the game with this turn (placed after it resolves, BARMY-GM-11).
    #[serde(default)]
    pub joining: Vec<Player>,
    /// Players who leave before this turn resolves (unsubscribed or excluded).
    #[serde(default)]
    pub leaving: Vec<PlayerId>,
    /// Players who sent no orders but are excused any penalty for missing the turn: declared
    /// absent, under the game's absence policy (issue 18). The engine's no-orders rule still
    /// applies to them; only a penalty for the miss (BARMY-17) is waived.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub excused: Vec<PlayerId>,
    /// Seats that changed hands with this turn (issue 18's replacements): each player id with
    /// the name its new holder plays under. The state takes the names before the turn
    /// resolves ([`Engine::rename`]), so the report and everything after use them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub renames: Vec<Player>,
}

impl<O> Default for TurnInput<O> {
    fn default() -> Self {
        Self {
            orders: BTreeMap::new(),
            joining: Vec::new(),
            leaving: Vec::new(),
            excused: Vec::new(),
            renames: Vec::new(),
        }
    }
}

/// What resolving a turn produces: the next state and the public report (press is added by
/// the caller, who collects it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resolution<S> {
    pub state: S,
    pub report: Report,
}

/// A player's place in the final (or current) standings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Standing {
    pub player: PlayerId,
    pub name: String,
    pub score: Score,
    /// 1 for the leaders; tied players share a place.
    pub place: u32,
    pub status: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    pub finished: bool,
    /// Best first.
    pub standings: Vec<Standing>,
    /// The winners once finished: more than one means a shared win.
    pub winners: Vec<PlayerId>,
}

/// What one viewer may see of a game: lines of text and, for board games, a picture.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct View {
    pub lines: Vec<String>,
    pub board: Option<Board>,
}

/// A picture of the board, built from what the viewer may see only. The web draws it as SVG
/// without knowing which engine made it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Board {
    Grid(GridPicture),
    /// Several grids, each under its title (salvo: one ocean per admiral).
    Grids {
        grids: Vec<NamedGrid>,
    },
    /// A table measured in inches with shapes on it (skyfleet, forever).
    Map(MapPicture),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GridPicture {
    pub width: u16,
    pub height: u16,
    pub column_labels: Vec<String>,
    pub row_labels: Vec<String>,
    pub marks: Vec<GridMark>,
    /// Pieces standing on squares, drawn over the marks (ironclad's ships with their headings).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pieces: Vec<GridPiece>,
    /// Each side's name, by side number (`GridPiece::side`), for the legend: who commands
    /// the pieces drawn in that colour. Empty: the legend says "side 1", "side 2".
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sides: Vec<String>,
}

/// A grid with a title: whose ocean it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NamedGrid {
    pub title: String,
    pub grid: GridPicture,
}

/// A named piece on a square, facing a way; `x` and `y` are 0-based from the top left.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GridPiece {
    pub x: u16,
    pub y: u16,
    pub label: String,
    /// Which side it belongs to (0, 1, …): the drawing's colour.
    pub side: u8,
    /// Degrees clockwise from the top of the picture.
    pub heading: Option<u16>,
    pub damaged: bool,
}

/// A table in hundredths of an inch, x to the right and y up (as the map engines measure it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MapPicture {
    pub width: i64,
    pub height: i64,
    /// Drawn in order: terrain and zones first, units last.
    pub shapes: Vec<MapShape>,
    /// Each side's name, by side number (`MapShape::side`), for the legend. Empty: the
    /// legend says "side 1", "side 2".
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sides: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MapShape {
    pub kind: MapKind,
    pub label: String,
    /// Which side it belongs to (0, 1, …), if any: the drawing's colour.
    pub side: Option<u8>,
    pub outline: Outline,
    /// Degrees clockwise from north (up), for what faces a way.
    pub heading: Option<u16>,
    /// Short public status, e.g. `hull 3/5` or `HP 2/4`.
    pub note: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MapKind {
    /// A side's deployment area.
    Zone,
    /// Islands, rocks: in the way.
    Terrain,
    /// Clouds, storms, black holes: dangerous or concealing.
    Hazard,
    /// A ship, a section of one, a wing, a torpedo.
    Unit,
    /// Something broken off or drifting.
    Wreck,
    /// A line on the table (a flux line).
    Track,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum Outline {
    Polygon { points: Vec<MapPoint> },
    Circle { centre: MapPoint, radius: i64 },
    Line { from: MapPoint, to: MapPoint },
}

/// A point in hundredths of an inch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MapPoint {
    pub x: i64,
    pub y: i64,
}

/// One square's mark; `x` and `y` are 0-based from the top left.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GridMark {
    pub x: u16,
    pub y: u16,
    pub mark: Mark,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mark {
    /// A square of the viewer's own ship, not hit.
    OwnShip,
    /// A ship's square that has been hit.
    Hit,
    /// A square of a sunk ship.
    Sunk,
    /// A shot that found nothing.
    Miss,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    /// What is wrong with the settings: every problem found, in the setup's order.
    #[error("the game settings are not valid: {}", SetupProblem::joined(.0))]
    Settings(Vec<SetupProblem>),
    #[error("the game cannot start: {0}")]
    Players(String),
}

impl SetupError {
    /// One problem of the setting at `setting` (see [`SetupProblem::setting`]).
    pub fn setting(setting: &'static str, problem: impl Into<String>) -> SetupError {
        SetupError::Settings(vec![SetupProblem::of(setting, problem)])
    }

    /// One problem of the settings as a whole, or of several at once.
    pub fn settings(problem: impl Into<String>) -> SetupError {
        SetupError::Settings(vec![SetupProblem {
            setting: None,
            problem: problem.into(),
        }])
    }
}

/// One problem an engine found in a game's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetupProblem {
    /// The setting it is about: its path in the setup's JSON as [`settings::Setting::path`]
    /// names it (`board.width`), or the top-level key of a list or table the form keeps as
    /// JSON (`fleets`, `sides`). The GM's form shows the problem beside that setting.
    pub setting: Option<&'static str>,
    pub problem: String,
}

impl SetupProblem {
    pub fn of(setting: &'static str, problem: impl Into<String>) -> SetupProblem {
        SetupProblem {
            setting: Some(setting),
            problem: problem.into(),
        }
    }

    fn joined(problems: &[SetupProblem]) -> String {
        let texts: Vec<&str> = problems.iter().map(|p| p.problem.as_str()).collect();
        texts.join("; ")
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TurnError {
    #[error("the game is over; no further turns resolve")]
    GameOver,
    #[error("the game state is not consistent: {0}")]
    BadState(String),
}

/// A GM's switch as set for one game: where the rules text is silent or a ruling could go either
/// way, the game's setup chooses, and the game's public page says what was chosen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ruling {
    /// The rule's stable ID in the rules catalogue (`SALVO-TORP-01`, `FOREVER-GM-43`, ...).
    pub rule: String,
    /// What this game does, in words.
    pub text: String,
}

/// The one interface of all five rule engines. Associated types are stored by the service as
/// JSON, which is all it knows of them.
pub trait Engine {
    /// The engine's name in settings and the database: `barmy`, `salvo`, ...
    const NAME: &'static str;
    /// The rules text's title, for reports.
    const TITLE: &'static str;

    /// The GM's settings for one game.
    type Setup: Serialize + DeserializeOwned + Default + Clone + Debug;
    type State: Serialize + DeserializeOwned + Clone + Debug;
    /// One player's orders for one turn.
    type Orders: Serialize + DeserializeOwned + Clone + Debug;

    /// Starts a game from the GM's settings and the player list (turn 0's dice).
    fn new_game(
        setup: &Self::Setup,
        players: &[Player],
        dice: &mut TurnDice,
    ) -> Result<Self::State, SetupError>;

    /// The seats a game of this setup offers (by default one per player, two at least).
    fn seats(setup: &Self::Setup) -> SeatPlan {
        let _ = setup;
        SeatPlan::OnePerPlayer { min: 2, max: None }
    }

    /// Starts a game with the players of each seat as the GM gave them (`seats` is what
    /// [`SeatPlan::seat`] returned for [`Engine::seats`]). By default the players in seat order
    /// are the roster of [`Engine::new_game`]: one player a seat, or as many as the engine's
    /// own dealing puts in each.
    fn new_game_seated(
        setup: &Self::Setup,
        seats: &[Vec<Player>],
        dice: &mut TurnDice,
    ) -> Result<Self::State, SetupError> {
        let players: Vec<Player> = seats.iter().flatten().cloned().collect();
        Self::new_game(setup, &players, dice)
    }

    /// Parses one player's order text. Never fails: errors are reported per line.
    fn parse_orders(
        state: &Self::State,
        player: PlayerId,
        text: &str,
    ) -> ParsedOrders<Self::Orders>;

    /// Resolves the turn `turn(state)` from every player's orders and the turn's dice.
    fn resolve(
        state: &Self::State,
        input: &TurnInput<Self::Orders>,
        dice: &mut TurnDice,
    ) -> Result<Resolution<Self::State>, TurnError>;

    /// What `viewer` may see now.
    fn view(state: &Self::State, viewer: Viewer) -> View;

    /// What only `player` may see (their own fleet), for the private mail each player gets
    /// after a turn; what everyone may see is in the report. By default the player's whole
    /// view; an engine whose views grow with the number of players (every player's standing,
    /// the whole board) returns less, so that mailing every player stays linear in their number.
    fn private_lines(state: &Self::State, player: PlayerId) -> Vec<String> {
        Self::view(state, Viewer::Player(player)).lines
    }

    /// Whether a reading answers the turn, so that it becomes the player's current set: at
    /// least one line read as an order ([`ParsedOrders::has_orders`]), and
    /// [`Engine::answers_turn`]. A reading that does not (only chat, press or refused lines)
    /// replaces no set on file and counts as no answer: the rule Barmy has (BARMY-17), for
    /// every engine.
    fn answers(state: &Self::State, parsed: &ParsedOrders<Self::Orders>) -> bool {
        parsed.has_orders() && Self::answers_turn(state, &parsed.orders)
    }

    /// Whether the game is over, and the standings.
    fn outcome(state: &Self::State) -> Outcome;

    /// The number of the turn that resolves next (1 for a new game).
    fn turn(state: &Self::State) -> u32;

    /// The players in the GM's roster order, which is the report's row order.
    fn roster(state: &Self::State) -> Vec<Player>;

    /// Gives `player.id`'s seat the name `player.name` (its new holder's, after a
    /// replacement); nothing else changes. A stranger's id changes nothing.
    fn rename(state: &mut Self::State, player: &Player);

    /// How to write orders for this game, for HELP and the order form.
    fn order_help(state: &Self::State) -> String;

    /// Whether a player's stored set answers the turn. A set that does not (Barmy's set that
    /// fires no shot, BARMY-17) is still the player's current set, but the player is treated
    /// as not having ordered: reminded, and not counted for early resolution.
    fn answers_turn(state: &Self::State, orders: &Self::Orders) -> bool {
        let _ = (state, orders);
        true
    }

    /// Whether `player` still has something to order: false once everything they command is
    /// out of the battle (sunk, destroyed, eliminated). A player who cannot order misses no
    /// turn, so the service counts missed turns only while this holds (issue 18).
    fn expects_orders(state: &Self::State, player: PlayerId) -> bool;

    /// How many turns in a row a player may miss before the GM is told their seat wants a
    /// standby, unless the GM sets the game's own limit; `None` where seats are never handed
    /// over. Not a rule of any text: the service's default, per engine (docs/rosters.md).
    fn missed_turns_limit() -> Option<u32>;

    /// The GM's switches this setup chose, each in words with its rule ID, for the game's
    /// public page (every switch, whether or not it differs from its default).
    fn rulings(setup: &Self::Setup) -> Vec<Ruling> {
        let _ = setup;
        Vec::new()
    }

    /// The settings of [`Engine::Setup`] the GM chooses on a form, each with its limits,
    /// default, help and rule (issue 20): the GM's switches of [`Engine::rulings`] among them.
    /// Lists and tables (fleets, terrain) are left out: the form keeps them as JSON.
    fn settings() -> Vec<settings::Setting>;
}

/// Places by score, best first; equal scores share a place (standard competition ranking).
pub fn rank(mut entries: Vec<(PlayerId, String, Score, String)>) -> Vec<Standing> {
    entries.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(&b.0)));
    let mut standings: Vec<Standing> = Vec::with_capacity(entries.len());
    for (index, (player, name, score, status)) in entries.into_iter().enumerate() {
        let place = match standings.last() {
            Some(previous) if previous.score == score => previous.place,
            _ => u32::try_from(index + 1).unwrap_or(u32::MAX),
        };
        standings.push(Standing {
            player,
            name,
            score,
            place,
            status,
        });
    }
    standings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_share_a_place() {
        let standings = rank(vec![
            (PlayerId(1), "A".into(), Score::ratio(1, 2), String::new()),
            (PlayerId(2), "B".into(), Score::whole(2), String::new()),
            (PlayerId(3), "C".into(), Score::whole(2), String::new()),
        ]);
        let places: Vec<(u64, u32)> = standings.iter().map(|s| (s.player.0, s.place)).collect();
        assert_eq!(places, vec![(2, 1), (3, 1), (1, 3)]);
    }
}
