//! Orders as people write them in an email: one order per line, any case, stray words and
//! punctuation tolerated, and every refused line explained with an example that works.

use engine::order_text::{Line, OrderText};
use engine::{LineIssue, ParsedOrders, PlayerId};

use crate::board::{Heading, Square, SquareError, line_between};
use crate::fleet::{FleetPlan, Orientation, Placement, PlacementError, ShipKind};
use crate::legality::{
    OrderError, check_available, check_player, check_sacrifice, check_shots, check_target,
    opponent_names, recapture_target, torpedo_heading,
};
use crate::orders::{Attack, BlastList, FleetOrder, Orders, Shot};
use crate::setup::{ShotRule, Special};
use crate::state::State;

/// Longest line read, in characters; the rest of a longer line is ignored (a guard against
/// pasted garbage, not a limit anyone writing orders meets).
const LONGEST_LINE: usize = 500;

pub(crate) fn parse_orders(state: &State, me: PlayerId, text: &str) -> ParsedOrders<Orders> {
    let mut draft = Draft::new(state, me);
    let mut reader = OrderText::new(text);
    for line in reader.by_ref() {
        match line {
            Line::Order(order) => {
                let written = clip(order.raw);
                draft.read_line(order.number, written.trim(), &clip(order.text));
            }
            Line::Press(press) => {
                if !press.text.is_empty() {
                    draft.understood.push(format!("press: \"{}\"", press.text));
                }
            }
            Line::Blank { .. } => {}
        }
    }
    draft.press = reader.into_press();
    draft.finish()
}

/// The first [`LONGEST_LINE`] characters of a line.
fn clip(line: &str) -> String {
    line.chars().take(LONGEST_LINE).collect()
}

/// What one line is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Command {
    Place,
    Fire,
    Nuke,
    Scuba,
    Recapture,
    Torpedo,
    Experimental,
    Bomber,
    Pass,
}

impl Command {
    fn of_word(word: &str) -> Option<Command> {
        Some(match word {
            "place" | "placed" | "placing" | "position" | "deploy" | "put" | "placement"
            | "random" | "randomly" | "randomise" | "randomize" => Command::Place,
            "fire" | "firing" | "shoot" | "shot" | "shots" | "salvo" | "call" | "calling"
            | "target" => Command::Fire,
            "nuke" | "nuclear" | "tactical" | "tacnuke" | "atomic" => Command::Nuke,
            "scuba" | "commando" | "commandos" | "divers" | "diver" | "frogmen" => Command::Scuba,
            "recapture" | "retake" | "rescue" => Command::Recapture,
            "torpedo" | "torpedoes" | "torpedos" | "torp" | "torps" => Command::Torpedo,
            "experimental" | "exp" | "experiment" | "xp" => Command::Experimental,
            "bomber" | "bombers" | "bomb" | "bombs" | "bombing" | "airstrike" | "air" => {
                Command::Bomber
            }
            "pass" | "hold" | "skip" | "none" | "nothing" | "wait" => Command::Pass,
            _ => return None,
        })
    }

    fn what(self) -> &'static str {
        match self {
            Command::Place => "PLACE",
            Command::Fire => "FIRE",
            Command::Nuke => "NUKE",
            Command::Scuba => "SCUBA",
            Command::Recapture => "SCUBA RECAPTURE",
            Command::Torpedo => "TORPEDO",
            Command::Experimental => "EXPERIMENTAL",
            Command::Bomber => "BOMBER",
            Command::Pass => "PASS",
        }
    }
}

/// Words that carry no meaning in an order ("I'm making a SCUBA attack").
fn is_filler(word: &str) -> bool {
    matches!(
        word,
        "i" | "im"
            | "m"
            | "we"
            | "will"
            | "shall"
            | "to"
            | "please"
            | "pls"
            | "make"
            | "making"
            | "launch"
            | "launching"
            | "use"
            | "using"
            | "a"
            | "an"
            | "the"
            | "my"
            | "our"
            | "attack"
            | "attacks"
            | "weapon"
            | "weapons"
            | "flight"
            | "strike"
            | "starting"
            | "start"
            | "from"
            | "square"
            | "squares"
            | "and"
            | "with"
            | "go"
            | "going"
            | "heading"
            | "head"
            | "direction"
            | "toward"
            | "towards"
            | "then"
            | "run"
            | "running"
            | "pattern"
            | "blast"
            | "of"
            | "centre"
            | "center"
            | "centred"
            | "centered"
            | "middle"
            | "coordinate"
            | "coordinates"
            | "coord"
            | "point"
            | "send"
            | "sending"
            | "drop"
            | "dropping"
            | "order"
            | "orders"
            | "turn"
            | "this"
            | "fleet"
            | "ship"
            | "ships"
            | "team"
            | "diving"
            | "team's"
            | "backfire"
            | "own"
            | "is"
            | "it"
            | "for"
            | "in"
            | "mode"
            | "ocean"
            | "over"
            | "onto"
            | "into"
            | "aimed"
            | "aim"
            | "board"
            | "grid"
            // The text's own sentences: "This experimental weapon has a blast pattern of B2,
            // B3, and B4", "they could say that the blast pattern was ..." (SALVO-EXP-05).
            | "has"
            | "have"
            | "had"
            | "was"
            | "were"
            | "be"
            | "are"
            | "would"
            | "could"
            | "they"
            | "say"
            | "says"
            | "announce"
            | "announces"
            | "that"
    )
}

fn is_range_word(word: &str) -> bool {
    matches!(word, "to" | "through" | "thru" | "till" | "until")
}

/// A direction or orientation word: compass for torpedoes, H or V for placing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    Compass(Heading),
    Horizontal,
    Vertical,
}

fn direction_of(word: &str) -> Option<Direction> {
    Some(match word {
        "n" | "north" | "up" | "northward" | "northwards" => Direction::Compass(Heading::North),
        "s" | "south" | "down" | "southward" | "southwards" => Direction::Compass(Heading::South),
        "e" | "east" | "right" | "eastward" | "eastwards" => Direction::Compass(Heading::East),
        "w" | "west" | "left" | "westward" | "westwards" => Direction::Compass(Heading::West),
        "h" | "horizontal" | "horizontally" | "across" | "horiz" | "hor" => Direction::Horizontal,
        "v" | "vertical" | "vertically" | "vert" | "ver" => Direction::Vertical,
        _ => return None,
    })
}

/// A ship named at `tokens[at]`, and how many words it took.
fn ship_at(tokens: &[Tok], at: usize) -> Option<(ShipKind, usize)> {
    let word = |i: usize| match tokens.get(i) {
        Some(Tok::Word(w)) => Some(w.as_str()),
        _ => None,
    };
    let first = word(at)?;
    let second = word(at + 1);
    match (first, second) {
        ("aircraft", Some("carrier")) => Some((ShipKind::Carrier, 2)),
        ("battle", Some("ship")) => Some((ShipKind::Battleship, 2)),
        ("patrol", Some("boat")) => Some((ShipKind::Destroyer, 2)),
        _ => {
            let kind = match first {
                "carrier" | "ac" | "cv" => ShipKind::Carrier,
                "battleship" | "bb" => ShipKind::Battleship,
                "cruiser" | "ca" | "cl" => ShipKind::Cruiser,
                "submarine" | "sub" | "ss" => ShipKind::Submarine,
                "destroyer" | "dd" | "patrol" | "pt" => ShipKind::Destroyer,
                _ => return None,
            };
            Some((kind, 1))
        }
    }
}

/// A piece of an order line.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Square(Square),
    BadSquare(SquareError),
    /// `-` between two squares: a range.
    Dash,
    Word(String),
}

/// Splits a line into squares, dashes and lower-case words.
fn tokenize(line: &str) -> Vec<Tok> {
    // "Bob's fleet" names Bob: drop the possessive before apostrophes split words.
    let padded = format!("{line} ");
    let normalized = padded
        .replace("'s ", " ")
        .replace("’s ", " ")
        .replace("'S ", " ")
        .replace("->", " at ")
        .replace('→', " at ")
        .replace(['–', '—', '−'], "-");
    let separators = |c: char| {
        c.is_whitespace()
            || matches!(
                c,
                ',' | ';'
                    | ':'
                    | '!'
                    | '?'
                    | '('
                    | ')'
                    | '['
                    | ']'
                    | '{'
                    | '}'
                    | '"'
                    | '`'
                    | '*'
                    | '/'
                    | '\\'
                    | '|'
                    | '<'
                    | '>'
                    | '='
                    | '\''
                    | '“'
                    | '”'
                    | '‘'
                    | '’'
                    | '_'
                    | '+'
                    | '&'
            )
    };
    let mut tokens = Vec::new();
    for piece in normalized.split(separators) {
        let piece = piece.trim_matches('.').to_lowercase();
        if piece.is_empty() {
            continue;
        }
        if piece.chars().all(|c| c == '-' || c == '.') {
            tokens.push(Tok::Dash);
            continue;
        }
        let piece = piece.trim_matches('-');
        if looks_like_square(piece) {
            tokens.push(square_token(piece));
            continue;
        }
        if let Some((digits, letter)) = number_first(piece) {
            tokens.push(Tok::BadSquare(SquareError::number_first(digits, letter)));
            continue;
        }
        // `b2-b4` is a range; `d-4` is D4.
        let parts: Vec<&str> = piece.split('-').filter(|p| !p.is_empty()).collect();
        if parts.len() > 1 {
            for (position, part) in parts.iter().enumerate() {
                if position > 0 {
                    tokens.push(Tok::Dash);
                }
                tokens.push(classify(part));
            }
        } else {
            tokens.push(classify(piece));
        }
    }
    merge_split_squares(tokens)
}

/// A letter, an optional dash, then 1 to 3 digits: `d4`, `k11`, `d-4`.
fn looks_like_square(piece: &str) -> bool {
    let mut chars = piece.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    let rest: String = chars.collect();
    let digits = rest.strip_prefix('-').unwrap_or(&rest);
    first.is_ascii_alphabetic()
        && !digits.is_empty()
        && digits.len() <= 3
        && digits.chars().all(|c| c.is_ascii_digit())
}

/// `10j` or `10-j`: 1 to 3 digits, then one letter (a square written number first).
fn number_first(piece: &str) -> Option<(&str, &str)> {
    let split = piece.find(|c: char| !c.is_ascii_digit())?;
    let (digits, rest) = piece.split_at(split);
    let letter = rest.strip_prefix('-').unwrap_or(rest);
    let single = letter.len() == 1 && letter.chars().all(|c| c.is_ascii_alphabetic());
    (!digits.is_empty() && digits.len() <= 3 && single).then_some((digits, letter))
}

fn square_token(piece: &str) -> Tok {
    match Square::parse(piece) {
        Ok(square) => Tok::Square(square),
        Err(error) => Tok::BadSquare(error),
    }
}

fn classify(piece: &str) -> Tok {
    if looks_like_square(piece) {
        square_token(piece)
    } else {
        Tok::Word(piece.to_string())
    }
}

/// `d 4` written with a space is D4; `10 j` is a square written number first.
fn merge_split_squares(tokens: Vec<Tok>) -> Vec<Tok> {
    let mut merged: Vec<Tok> = Vec::with_capacity(tokens.len());
    for token in tokens {
        if let Tok::Word(letter) = &token
            && letter.len() == 1
            && letter.chars().all(|c| c.is_ascii_alphabetic())
            && let Some(Tok::Word(digits)) = merged.last()
            && !digits.is_empty()
            && digits.len() <= 3
            && digits.chars().all(|c| c.is_ascii_digit())
        {
            let reversed = Tok::BadSquare(SquareError::number_first(digits, letter));
            merged.pop();
            merged.push(reversed);
            continue;
        }
        if let Tok::Word(digits) = &token
            && !digits.is_empty()
            && digits.len() <= 3
            && digits.chars().all(|c| c.is_ascii_digit())
            && let Some(Tok::Word(letter)) = merged.last()
            && letter.len() == 1
            && letter.chars().all(|c| c.is_ascii_alphabetic())
        {
            let square = square_token(&format!("{letter}{digits}"));
            merged.pop();
            merged.push(square);
            continue;
        }
        merged.push(token);
    }
    merged
}

/// Squares as written: single, or a range along a row or column.
#[derive(Debug, Clone, Copy)]
enum SquareItem {
    One(Square),
    Range(Square, Square),
}

/// Everything a line said after its command word.
#[derive(Debug, Default)]
struct Args {
    squares: Vec<SquareItem>,
    directions: Vec<Direction>,
    ships: Vec<ShipKind>,
    sacrifice: Option<ShipKind>,
    random: bool,
    target: Option<PlayerId>,
}

impl Args {
    fn expand(&self) -> Result<Vec<Square>, OrderError> {
        let mut squares = Vec::new();
        for item in &self.squares {
            match item {
                SquareItem::One(square) => squares.push(*square),
                SquareItem::Range(from, to) => {
                    let line = line_between(*from, *to).ok_or_else(|| {
                        OrderError::Missing(format!(
                            "{from}-{to} is not a straight line: a range runs along one row or one column"
                        ))
                    })?;
                    squares.extend(line);
                }
            }
        }
        Ok(squares)
    }

    fn one_square(&self, what: &str) -> Result<Square, OrderError> {
        match self.squares.as_slice() {
            [SquareItem::One(square)] => Ok(*square),
            [] => Err(OrderError::Missing(format!("{what} needs a square"))),
            _ => Err(OrderError::Missing(format!("{what} takes one square"))),
        }
    }

    fn no_squares(&self, what: &str) -> Result<(), OrderError> {
        match self.squares.first() {
            None => Ok(()),
            Some(SquareItem::One(square) | SquareItem::Range(square, _)) => Err(
                OrderError::Missing(format!("{what} takes no square (found {square})")),
            ),
        }
    }

    fn no_extras(&self, what: &str, directions: bool, ships: bool) -> Result<(), OrderError> {
        if !directions && !self.directions.is_empty() {
            return Err(OrderError::Missing(format!("{what} takes no direction")));
        }
        if !ships && (!self.ships.is_empty() || self.sacrifice.is_some()) {
            return Err(OrderError::Missing(format!("{what} names no ship")));
        }
        if self.random {
            return Err(OrderError::Unexpected("random".into()));
        }
        Ok(())
    }
}

/// The orders being built from a text, line by line.
struct Draft<'a> {
    state: &'a State,
    me: PlayerId,
    names: Vec<(PlayerId, Vec<String>)>,
    placements: Vec<(usize, Placement)>,
    /// The first placement line as written: a fleet that cannot be placed is reported on it.
    first_placement_text: String,
    random_line: Option<usize>,
    attack: Option<(usize, Attack)>,
    shots: Vec<Shot>,
    first_shot_line: Option<usize>,
    /// The line being read, as written, for warnings.
    line_text: String,
    /// The command a line turned out to be ("fire a torpedo" is a torpedo), for its example.
    upgraded: Option<Command>,
    /// A correction made for the line being read, better than the command's example.
    suggestion: Option<String>,
    /// The line that chose the turn's attack (or its first shots), as written.
    first_attack_text: String,
    understood: Vec<String>,
    press: Vec<String>,
    errors: Vec<LineIssue>,
    warnings: Vec<LineIssue>,
}

impl<'a> Draft<'a> {
    fn new(state: &'a State, me: PlayerId) -> Self {
        let names = state
            .admirals()
            .iter()
            .map(|a| (a.id(), name_words(a.name())))
            .filter(|(_, words)| !words.is_empty())
            .collect();
        Self {
            state,
            me,
            names,
            placements: Vec::new(),
            first_placement_text: String::new(),
            random_line: None,
            attack: None,
            shots: Vec::new(),
            first_shot_line: None,
            upgraded: None,
            suggestion: None,
            first_attack_text: String::new(),
            line_text: String::new(),
            understood: Vec::new(),
            press: Vec::new(),
            errors: Vec::new(),
            warnings: Vec::new(),
        }
    }

    fn several_opponents(&self) -> bool {
        self.state.opponents_of(self.me).len() > 1
    }

    /// ` AT Bob` when a target must be named, for examples.
    fn at_hint(&self) -> String {
        if self.several_opponents() {
            let name = self
                .state
                .opponents_of(self.me)
                .first()
                .map(|a| a.name().to_string())
                .unwrap_or_default();
            format!(" AT {name}")
        } else {
            String::new()
        }
    }

    fn example(&self, command: Option<Command>) -> String {
        let at = self.at_hint();
        match command {
            Some(Command::Place) => {
                "PLACE Carrier A1 H (the top or left end, then H or V), or PLACE RANDOM".into()
            }
            Some(Command::Fire) => match self.state.setup().shots {
                ShotRule::One => format!("FIRE B7{at}"),
                ShotRule::Salvo => format!("FIRE B7 C3 E5{at} (one square per ship afloat)"),
            },
            Some(Command::Nuke) => format!("NUKE D4{at}"),
            Some(Command::Scuba) => format!("SCUBA{at}"),
            Some(Command::Recapture) => "SCUBA RECAPTURE Destroyer".into(),
            Some(Command::Torpedo) => {
                format!("TORPEDO F10{at} (from a corner add N, S, E or W: TORPEDO A1 S{at})")
            }
            Some(Command::Experimental) => format!(
                "EXPERIMENTAL B2 B3 B4{at} (each square touching an earlier one; SACRIFICE Cruiser optional)"
            ),
            Some(Command::Bomber) => format!("BOMBER G6{at}"),
            Some(Command::Pass) => "PASS".into(),
            None => format!(
                "one order a line, such as FIRE B7{at}, NUKE D4{at}, SCUBA{at}, TORPEDO F10{at}, EXPERIMENTAL B2 B3 B4{at}, BOMBER G6{at}, PLACE Carrier A1 H, PASS or PRESS <text>"
            ),
        }
    }

    fn refuse(&mut self, line: usize, text: &str, command: Option<Command>, error: &OrderError) {
        let expected = match error {
            OrderError::GameOver => "no orders: the game has ended".to_string(),
            OrderError::NotPlaying | OrderError::OutOfGame => {
                "no orders (PRESS lines are still welcome)".to_string()
            }
            OrderError::NoUses { .. }
            | OrderError::Disabled(_)
            | OrderError::NeedsSubmarine { .. }
            | OrderError::NeedsCarrier { .. } => self.example(Some(Command::Fire)),
            // The line itself, each square written letter first, unless that repeats a square
            // the line already has (`FIRE J10 10J`): then an example, never a refused line.
            OrderError::Square(SquareError::NumberFirst { on_board: true, .. })
                if !repeats_a_square(&letters_first(text)) =>
            {
                letters_first(text)
            }
            // Never the refused line itself: say which of the two lines to keep.
            OrderError::SecondAttack {
                line: earlier,
                what,
            } => {
                if what.trim().eq_ignore_ascii_case(text.trim()) {
                    format!("leave this line out: line {earlier} already orders the same attack")
                } else {
                    format!(
                        "one attack a turn: keep line {earlier} ({what}) or this line ({}), and leave the other out",
                        text.trim()
                    )
                }
            }
            _ => self
                .suggestion
                .take()
                .unwrap_or_else(|| self.example(command)),
        };
        self.suggestion = None;
        self.errors.push(LineIssue {
            line,
            text: text.to_string(),
            problem: error.to_string(),
            expected,
            if_it_stands: None,
        });
    }

    /// Reads one order: `text` without its list marker, `written` as the player wrote it.
    fn read_line(&mut self, line: usize, written: &str, text: &str) {
        self.line_text = written.to_string();
        let tokens = tokenize(text);
        let (command, args_from) = match find_command(&tokens) {
            Ok(found) => found,
            Err(error) => {
                self.refuse(line, written, None, &error);
                return;
            }
        };
        if let Err(error) = check_player(self.state, self.me) {
            self.refuse(line, written, Some(command), &error);
            return;
        }
        let outcome = if command == Command::Place {
            self.read_place(line, &tokens, args_from)
        } else {
            self.read_attack(line, command, &tokens, args_from)
        };
        let shown = self.upgraded.take().unwrap_or(command);
        if let Err(error) = outcome {
            self.refuse(line, written, Some(shown), &error);
        }
    }

    fn read_attack(
        &mut self,
        line: usize,
        command: Command,
        tokens: &[Tok],
        from: usize,
    ) -> Result<(), OrderError> {
        let (command, args) = self.read_args(command, tokens, from)?;
        self.upgraded = Some(command);
        let what = command.what();
        let state = self.state;
        let me = self.me;
        if let Some((earlier, _)) = &self.attack {
            return Err(OrderError::SecondAttack {
                line: *earlier,
                what: self.first_attack_text.clone(),
            });
        }
        if command != Command::Fire
            && let Some(earlier) = self.first_shot_line
        {
            return Err(OrderError::SecondAttack {
                line: earlier,
                what: self.first_attack_text.clone(),
            });
        }
        let attack = match command {
            Command::Fire => {
                args.no_extras(what, false, false)?;
                let squares = args.expand()?;
                if squares.is_empty() {
                    return Err(OrderError::Missing("FIRE needs a square".into()));
                }
                let at = self.target(args.target)?;
                let shots: Vec<Shot> = squares
                    .iter()
                    .map(|square| Shot {
                        at,
                        square: *square,
                    })
                    .collect();
                if let Err(error) = check_shots(state, me, &self.shots, &shots) {
                    self.suggestion = self.shots_suggestion(&error, &shots);
                    return Err(error);
                }
                for shot in &shots {
                    let called = state
                        .admiral(me)
                        .and_then(|a| a.calls_on(shot.at))
                        .is_some_and(|calls| calls.contains(&shot.square));
                    if called {
                        self.warnings.push(LineIssue {
                            line,
                            text: self.line_text.clone(),
                            problem: format!(
                                "you have already fired at {}{}: the shot will be wasted",
                                shot.square,
                                self.on_whom(shot.at)
                            ),
                            expected: "a square you have not called yet".into(),
                            if_it_stands: None,
                        });
                    }
                }
                self.understood.push(format!(
                    "fire at {}{}",
                    squares
                        .iter()
                        .map(Square::to_string)
                        .collect::<Vec<_>>()
                        .join(", "),
                    self.on_whom(at)
                ));
                self.shots.extend(shots);
                if self.first_shot_line.is_none() {
                    self.first_shot_line = Some(line);
                    self.first_attack_text = self.line_text.clone();
                }
                return Ok(());
            }
            Command::Pass => {
                args.no_squares(what)?;
                args.no_extras(what, false, false)?;
                if args.target.is_some() {
                    return Err(OrderError::Missing("PASS aims at no one".into()));
                }
                self.understood.push("pass: no attack this turn".into());
                Attack::Pass
            }
            Command::Nuke => {
                args.no_extras(what, false, false)?;
                let centre = args.one_square(what)?;
                check_available(state, me, Special::Nuke)?;
                let at = self.target(args.target)?;
                self.understood.push(format!(
                    "tactical nuke centred on {centre}{}{}",
                    self.on_whom(at),
                    self.uses_note(Special::Nuke)
                ));
                Attack::Nuke { at, centre }
            }
            Command::Scuba => {
                args.no_squares(what)?;
                args.no_extras(what, false, false)?;
                check_available(state, me, Special::Scuba)?;
                let at = self.target(args.target)?;
                self.understood.push(format!(
                    "SCUBA attack on the smallest ship afloat{}{}",
                    self.on_whom(at),
                    self.uses_note(Special::Scuba)
                ));
                Attack::Scuba { at }
            }
            Command::Recapture => {
                args.no_squares(what)?;
                args.no_extras(what, false, true)?;
                if args.target.is_some() {
                    return Err(OrderError::Missing(
                        "a recapture names your own ship, not a player".into(),
                    ));
                }
                if args.ships.len() > 1 {
                    return Err(OrderError::Missing("recapture one ship at a time".into()));
                }
                check_available(state, me, Special::Scuba)?;
                let ship = recapture_target(state, me, args.ships.first().copied())?;
                self.understood.push(format!(
                    "SCUBA recapture of your {ship}{}",
                    self.uses_note(Special::Scuba)
                ));
                Attack::Recapture { ship }
            }
            Command::Torpedo => {
                args.no_extras(what, true, false)?;
                let start = args.one_square(what)?;
                let written = match args.directions.as_slice() {
                    [] => None,
                    [Direction::Compass(heading)] => Some(*heading),
                    [_] => {
                        return Err(OrderError::Missing(
                            "a torpedo's direction is N, S, E or W".into(),
                        ));
                    }
                    _ => return Err(OrderError::Missing("give one direction".into())),
                };
                let heading = torpedo_heading(start, written)?;
                check_available(state, me, Special::Torpedo)?;
                let at = self.target(args.target)?;
                self.understood.push(format!(
                    "torpedo from {start} running {heading}{}{}",
                    self.on_whom(at),
                    self.uses_note(Special::Torpedo)
                ));
                Attack::Torpedo { at, start, heading }
            }
            Command::Experimental => {
                if !args.ships.is_empty() {
                    return Err(OrderError::Missing(
                        "name a ship only after SACRIFICE, e.g. SACRIFICE Cruiser".into(),
                    ));
                }
                args.no_extras(what, false, true)?;
                let squares = args.expand()?;
                let pattern = BlastList::try_from(squares)?;
                if let Some(ship) = args.sacrifice {
                    check_sacrifice(state, me, ship)?;
                }
                check_available(state, me, Special::Experimental)?;
                let at = self.target(args.target)?;
                let listed = pattern.squares().len();
                let growth = if listed < 6 {
                    format!(
                        " (a roll above {listed} grows the blast around your squares automatically)"
                    )
                } else {
                    String::new()
                };
                let sacrifice = args
                    .sacrifice
                    .map(|s| format!(", sacrificing the {s} on a backfire"))
                    .unwrap_or_default();
                self.understood.push(format!(
                    "experimental weapon, blast {}{}{growth}{sacrifice}{}",
                    pattern
                        .squares()
                        .iter()
                        .map(Square::to_string)
                        .collect::<Vec<_>>()
                        .join(", "),
                    self.on_whom(at),
                    self.uses_note(Special::Experimental)
                ));
                Attack::Experimental {
                    at,
                    pattern,
                    sacrifice: args.sacrifice,
                }
            }
            Command::Bomber => {
                args.no_extras(what, false, false)?;
                let centre = args.one_square(what)?;
                check_available(state, me, Special::Bomber)?;
                let at = self.target(args.target)?;
                self.understood.push(format!(
                    "bomber flight over {centre}{}{}",
                    self.on_whom(at),
                    self.uses_note(Special::Bomber)
                ));
                Attack::Bomber { at, centre }
            }
            Command::Place => return Err(OrderError::UnknownOrder("place".into())),
        };
        self.attack = Some((line, attack));
        self.first_attack_text = self.line_text.clone();
        Ok(())
    }

    /// What to write instead of a FIRE line refused for its number of shots or a repeated
    /// square: the shots that fit, or leaving the line out (SALVO-CL-04, SALVO-GM-01).
    fn shots_suggestion(&self, error: &OrderError, shots: &[Shot]) -> Option<String> {
        let fire = |kept: &[Shot]| {
            let at = kept
                .first()
                .filter(|_| self.several_opponents())
                .map(|s| format!(" AT {}", self.state.name_of(s.at)))
                .unwrap_or_default();
            let squares: Vec<String> = kept.iter().map(|s| s.square.to_string()).collect();
            format!("FIRE {}{at}", squares.join(" "))
        };
        let earlier = self.first_shot_line;
        match error {
            OrderError::TooManyShots { allowed, .. } => {
                let room = allowed.saturating_sub(self.shots.len());
                match (room, earlier) {
                    (0, Some(line)) => Some(format!(
                        "leave this line out: line {line} already fires every shot you have this turn"
                    )),
                    (0, None) => None,
                    (room, _) => Some(fire(shots.get(..room).unwrap_or(shots))),
                }
            }
            OrderError::DuplicateShot(_) => {
                let mut kept: Vec<Shot> = Vec::new();
                for shot in shots {
                    if !self.shots.contains(shot) && !kept.contains(shot) {
                        kept.push(*shot);
                    }
                }
                if kept.is_empty() {
                    Some(match earlier {
                        Some(line) => format!(
                            "leave this line out: line {line} already fires at these squares"
                        ),
                        None => "each square once".to_string(),
                    })
                } else {
                    Some(fire(&kept))
                }
            }
            _ => None,
        }
    }

    /// ` at Bob` when there is more than one opponent.
    fn on_whom(&self, at: PlayerId) -> String {
        if self.several_opponents() {
            format!(" at {}", self.state.name_of(at))
        } else {
            String::new()
        }
    }

    fn uses_note(&self, special: Special) -> String {
        let left = self
            .state
            .admiral(self.me)
            .map_or(0, |a| a.uses_left().of(special));
        format!(
            " ({} use{} left before this one)",
            left,
            if left == 1 { "" } else { "s" }
        )
    }

    /// The player aimed at: the one named, or the only opponent (SALVO-GM-16).
    fn target(&self, named: Option<PlayerId>) -> Result<PlayerId, OrderError> {
        match named {
            Some(target) => {
                check_target(self.state, self.me, target)?;
                Ok(target)
            }
            None => match self.state.opponents_of(self.me).as_slice() {
                [only] => Ok(only.id()),
                [] => Err(OrderError::Missing(
                    "there is no opponent left to attack".into(),
                )),
                _ => Err(OrderError::TargetNeeded {
                    opponents: opponent_names(self.state, self.me),
                }),
            },
        }
    }

    /// Reads squares, directions, ships and a target from the words after the command.
    fn read_args(
        &self,
        mut command: Command,
        tokens: &[Tok],
        from: usize,
    ) -> Result<(Command, Args), OrderError> {
        let mut args = Args::default();
        let mut i = from;
        let mut range_pending = false;
        let mut sacrifice_pending = false;
        while let Some(token) = tokens.get(i) {
            match token {
                Tok::Square(square) => {
                    match (range_pending, args.squares.pop()) {
                        (true, Some(SquareItem::One(from))) => {
                            args.squares.push(SquareItem::Range(from, *square));
                        }
                        (_, previous) => {
                            args.squares.extend(previous);
                            args.squares.push(SquareItem::One(*square));
                        }
                    }
                    range_pending = false;
                    i += 1;
                }
                Tok::BadSquare(error) => return Err(OrderError::Square(error.clone())),
                Tok::Dash => {
                    range_pending = !args.squares.is_empty();
                    i += 1;
                }
                Tok::Word(word) => {
                    if is_range_word(word)
                        && matches!(args.squares.last(), Some(SquareItem::One(_)))
                        && matches!(tokens.get(i + 1), Some(Tok::Square(_)))
                    {
                        range_pending = true;
                        i += 1;
                        continue;
                    }
                    if let Some((kind, used)) = ship_at(tokens, i) {
                        if sacrifice_pending {
                            args.sacrifice = Some(kind);
                            sacrifice_pending = false;
                        } else {
                            args.ships.push(kind);
                        }
                        i += used;
                        continue;
                    }
                    if matches!(word.as_str(), "sacrifice" | "sacrificing" | "sac" | "lose") {
                        sacrifice_pending = true;
                        i += 1;
                        continue;
                    }
                    if matches!(
                        word.as_str(),
                        "random" | "randomly" | "randomise" | "randomize"
                    ) {
                        args.random = true;
                        i += 1;
                        continue;
                    }
                    if let Some(next) = Command::of_word(word) {
                        // "fire a torpedo", "SCUBA attack to recapture": the later word says
                        // which order it is, if nothing else has been read yet.
                        let upgrade = match (command, next) {
                            (Command::Fire, n) if args.squares.is_empty() => Some(n),
                            (Command::Scuba, Command::Recapture) => Some(Command::Recapture),
                            (Command::Recapture, Command::Scuba) => Some(Command::Recapture),
                            (c, n) if c == n => Some(c),
                            _ => None,
                        };
                        match upgrade {
                            Some(found) => {
                                command = found;
                                i += 1;
                                continue;
                            }
                            None => {
                                return Err(OrderError::Missing(format!(
                                    "one order a line: '{word}' starts another order"
                                )));
                            }
                        }
                    }
                    if let Some(direction) = direction_of(word) {
                        args.directions.push(direction);
                        i += 1;
                        continue;
                    }
                    let marker = matches!(word.as_str(), "at" | "on" | "vs" | "versus" | "against");
                    if marker {
                        match tokens.get(i + 1) {
                            Some(Tok::Word(next)) if !is_keyword(next) => {
                                let (target, used) = self.player_at(tokens, i + 1)?;
                                if args.target.is_some_and(|t| t != target) {
                                    return Err(OrderError::TwoTargets);
                                }
                                args.target = Some(target);
                                i += 1 + used;
                            }
                            _ => i += 1,
                        }
                        continue;
                    }
                    if is_filler(word) {
                        i += 1;
                        continue;
                    }
                    match self.player_at(tokens, i) {
                        Ok((target, used)) => {
                            if args.target.is_some_and(|t| t != target) {
                                return Err(OrderError::TwoTargets);
                            }
                            args.target = Some(target);
                            i += used;
                        }
                        Err(_) => return Err(OrderError::Unexpected(word.clone())),
                    }
                }
            }
        }
        if sacrifice_pending {
            return Err(OrderError::Missing(
                "SACRIFICE needs a ship, e.g. SACRIFICE Cruiser".into(),
            ));
        }
        Ok((command, args))
    }

    /// The player whose name starts at `tokens[at]`: a full name, or a first name only one
    /// player has. Returns the words used.
    fn player_at(&self, tokens: &[Tok], at: usize) -> Result<(PlayerId, usize), OrderError> {
        let word = |i: usize| match tokens.get(i) {
            Some(Tok::Word(w)) => Some(w.clone()),
            Some(Tok::Square(s)) => Some(s.to_string().to_lowercase()),
            _ => None,
        };
        let mut best: Option<(PlayerId, usize)> = None;
        for (id, words) in &self.names {
            let full = words
                .iter()
                .enumerate()
                .all(|(k, w)| word(at + k).as_deref() == Some(w.as_str()));
            if full && best.is_none_or(|(_, used)| words.len() > used) {
                best = Some((*id, words.len()));
            }
        }
        if let Some(found) = best {
            return Ok(found);
        }
        let first = word(at).unwrap_or_default();
        let by_first: Vec<PlayerId> = self
            .names
            .iter()
            .filter(|(_, words)| words.first() == Some(&first))
            .map(|(id, _)| *id)
            .collect();
        match by_first.as_slice() {
            [only] => Ok((*only, 1)),
            _ => Err(OrderError::UnknownTarget {
                name: first,
                opponents: opponent_names(self.state, self.me),
            }),
        }
    }

    fn read_place(&mut self, line: usize, tokens: &[Tok], from: usize) -> Result<(), OrderError> {
        let admiral = self.state.admiral(self.me).ok_or(OrderError::NotPlaying)?;
        let mut pending: Vec<PendingShip> = Vec::new();
        let mut random = false;
        let mut i = from;
        while let Some(token) = tokens.get(i) {
            match token {
                Tok::Square(square) => {
                    let ship = pending.last_mut().ok_or_else(|| {
                        OrderError::Missing(format!("name the ship before its square {square}"))
                    })?;
                    ship.squares.push(*square);
                    i += 1;
                }
                Tok::BadSquare(error) => return Err(OrderError::Square(error.clone())),
                Tok::Dash => i += 1,
                Tok::Word(word) => {
                    if let Some((kind, used)) = ship_at(tokens, i) {
                        pending.push(PendingShip {
                            kind,
                            squares: Vec::new(),
                            direction: None,
                        });
                        i += used;
                    } else if matches!(
                        word.as_str(),
                        "random" | "randomly" | "randomise" | "randomize"
                    ) {
                        random = true;
                        i += 1;
                    } else if let Some(direction) = direction_of(word) {
                        let ship = pending.last_mut().ok_or_else(|| {
                            OrderError::Missing("name the ship before its direction".into())
                        })?;
                        ship.direction = Some(direction);
                        i += 1;
                    } else if is_filler(word)
                        || is_range_word(word)
                        || Command::of_word(word) == Some(Command::Place)
                        || matches!(word.as_str(), "at" | "on")
                    {
                        i += 1;
                    } else {
                        return Err(OrderError::Unexpected(word.clone()));
                    }
                }
            }
        }
        if !admiral.may_place() {
            return Err(OrderError::PlacementClosed);
        }
        if random {
            if !pending.is_empty() {
                return Err(OrderError::Missing(
                    "either place ships yourself or ask for RANDOM, not both".into(),
                ));
            }
            if let Some(first) = self.placements.first() {
                return Err(OrderError::Missing(format!(
                    "you placed ships yourself from line {}: leave them, or ask for RANDOM alone",
                    first.0
                )));
            }
            self.random_line = Some(line);
            self.understood
                .push("fleet: placed at random by the server".into());
            return Ok(());
        }
        if pending.is_empty() {
            return Err(OrderError::Missing(
                "PLACE needs a ship, its top or left end and H or V".into(),
            ));
        }
        if let Some(random_line) = self.random_line {
            return Err(OrderError::Missing(format!(
                "you asked for a random fleet on line {random_line}"
            )));
        }
        let mut placements = Vec::with_capacity(pending.len());
        for ship in &pending {
            placements.push(ship.placement()?);
        }
        let mut all: Vec<Placement> = self.placements.iter().map(|(_, p)| *p).collect();
        all.extend(placements.iter().copied());
        FleetPlan::check_partial(&all)?;
        if self.placements.is_empty() {
            self.first_placement_text = self.line_text.clone();
        }
        for placement in placements {
            self.understood
                .push(format!("place {}", placement.describe()));
            self.placements.push((line, placement));
        }
        Ok(())
    }

    fn finish(mut self) -> ParsedOrders<Orders> {
        let mut orders = Orders::default();
        if let Some((_, attack)) = self.attack.take() {
            orders.attack = attack;
        } else if !self.shots.is_empty() {
            orders.attack = Attack::Fire {
                shots: std::mem::take(&mut self.shots),
            };
        } else if check_player(self.state, self.me).is_ok() {
            self.understood
                .push("no attack ordered: you will pass this turn".into());
        }
        if self.random_line.is_some() {
            orders.fleet = Some(FleetOrder::Random);
        } else if let Some((first_line, _)) = self.placements.first().copied() {
            let plan: Vec<Placement> = self.placements.iter().map(|(_, p)| *p).collect();
            match FleetPlan::try_from(plan) {
                Ok(plan) => orders.fleet = Some(FleetOrder::Placed(plan)),
                Err(error) => {
                    let text = match &error {
                        PlacementError::Incomplete { .. } => format!(
                            "{error}; until all five ships are placed legally, the server places your whole fleet at random (SALVO-GM-18)"
                        ),
                        _ => error.to_string(),
                    };
                    self.errors.push(LineIssue {
                        line: first_line,
                        text: std::mem::take(&mut self.first_placement_text),
                        problem: text,
                        expected: "five PLACE lines, one per ship: Carrier 5, Battleship 4, Cruiser 3, Submarine 3, Destroyer 2, e.g. PLACE Carrier A1 H".into(),
                        if_it_stands: None,
                    });
                }
            }
        } else if self.state.admiral(self.me).is_some_and(|a| a.may_place())
            && check_player(self.state, self.me).is_ok()
        {
            self.understood.push(
                "fleet: stays where the server placed it at random (see your view); send PLACE lines to place it yourself".into(),
            );
        }
        ParsedOrders {
            orders,
            understood: self.understood,
            press: self.press,
            errors: self.errors,
            warnings: self.warnings,
        }
    }
}

struct PendingShip {
    kind: ShipKind,
    squares: Vec<Square>,
    direction: Option<Direction>,
}

impl PendingShip {
    /// `Carrier A1 H`, `Carrier A1-A5` or `Carrier A5 A1` (SALVO-GM-18).
    fn placement(&self) -> Result<Placement, OrderError> {
        let ship = self.kind;
        match (self.squares.as_slice(), self.direction) {
            ([bow], Some(direction)) => {
                let orientation = match direction {
                    Direction::Horizontal | Direction::Compass(Heading::East) => {
                        Orientation::Horizontal
                    }
                    Direction::Vertical | Direction::Compass(Heading::South) => {
                        Orientation::Vertical
                    }
                    Direction::Compass(_) => {
                        return Err(OrderError::Missing(format!(
                            "give the {ship}'s top or left end and H (across) or V (down)"
                        )));
                    }
                };
                let placement = Placement {
                    ship,
                    bow: *bow,
                    orientation,
                };
                placement.squares()?;
                Ok(placement)
            }
            ([_], None) => Err(OrderError::Missing(format!(
                "say which way the {ship} lies: H (across) or V (down)"
            ))),
            ([a, b], _) => {
                let (bow, stern) = if a <= b { (*a, *b) } else { (*b, *a) };
                let orientation = if bow.row() == stern.row() {
                    Orientation::Horizontal
                } else if bow.col() == stern.col() {
                    Orientation::Vertical
                } else {
                    return Err(OrderError::Missing(format!(
                        "{a}-{b} is diagonal: ships lie along a row or a column (SALVO-CL-03)"
                    )));
                };
                let covers = bow.row().abs_diff(stern.row()) + bow.col().abs_diff(stern.col()) + 1;
                if covers != ship.length() {
                    return Err(OrderError::Missing(format!(
                        "the {ship} is {} squares long, but {a}-{b} covers {covers}",
                        ship.length()
                    )));
                }
                Ok(Placement {
                    ship,
                    bow,
                    orientation,
                })
            }
            ([], _) => Err(OrderError::Missing(format!(
                "give the {ship}'s top or left end, e.g. {ship} A1 H"
            ))),
            _ => Err(OrderError::Missing(format!(
                "give the {ship} one end and H or V, or both ends"
            ))),
        }
    }
}

/// `line` with every square written number first (`10J`, `10 j`) turned round (`J10`), where
/// the turned square is on the board.
fn letters_first(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        let starts_word = i == 0 || chars.get(i - 1).is_none_or(|p| !p.is_alphanumeric());
        if c.is_ascii_digit() && starts_word {
            let digits_end = (i..)
                .find(|&k| chars.get(k).is_none_or(|d| !d.is_ascii_digit()))
                .unwrap_or(i);
            let mut k = digits_end;
            while chars.get(k).is_some_and(|d| *d == ' ' || *d == '-') {
                k += 1;
            }
            let letter = chars.get(k).copied().filter(char::is_ascii_alphabetic);
            let ends_word = chars.get(k + 1).is_none_or(|n| !n.is_alphanumeric());
            let digits: String = chars.get(i..digits_end).unwrap_or(&[]).iter().collect();
            if let Some(letter) = letter
                && ends_word
                && digits.len() <= 3
            {
                let fixed = format!("{}{digits}", letter.to_ascii_uppercase());
                if Square::parse(&fixed).is_ok() {
                    out.push_str(&fixed);
                    i = k + 1;
                    continue;
                }
            }
        }
        out.push(c);
        i += 1;
    }
    out
}

/// Whether some square is written twice on `line`.
fn repeats_a_square(line: &str) -> bool {
    let mut seen = std::collections::BTreeSet::new();
    line.split(|c: char| !c.is_alphanumeric())
        .filter_map(|word| Square::parse(word).ok())
        .any(|square| !seen.insert(square))
}

/// The command word of a line, and where its arguments begin. A line starting with a square
/// is a shot; one starting with a ship's name is a placement.
fn find_command(tokens: &[Tok]) -> Result<(Command, usize), OrderError> {
    let mut i = 0;
    while let Some(token) = tokens.get(i) {
        match token {
            Tok::Square(_) | Tok::BadSquare(_) => return Ok((Command::Fire, i)),
            Tok::Dash => i += 1,
            Tok::Word(word) => {
                if let Some(command) = Command::of_word(word) {
                    // "random" is an argument of PLACE: keep it.
                    let args = if command == Command::Place && word.starts_with("random") {
                        i
                    } else {
                        i + 1
                    };
                    return Ok((command, args));
                }
                if ship_at(tokens, i).is_some() {
                    return Ok((Command::Place, i));
                }
                // "the blast pattern was G2, H3, ..." names the experimental weapon (SALVO-EXP-05).
                if word == "blast"
                    && matches!(tokens.get(i + 1), Some(Tok::Word(next)) if next == "pattern")
                {
                    return Ok((Command::Experimental, i + 1));
                }
                if is_filler(word) {
                    i += 1;
                    continue;
                }
                return Err(OrderError::UnknownOrder(word.clone()));
            }
        }
    }
    Err(OrderError::UnknownOrder(String::new()))
}

/// Words with a meaning of their own, which "at" or "on" before them does not make a name.
fn is_keyword(word: &str) -> bool {
    is_filler(word)
        || is_range_word(word)
        || direction_of(word).is_some()
        || Command::of_word(word).is_some()
        || matches!(word, "sacrifice" | "sac" | "lose")
}

/// A player's name as the words the tokenizer would make of it.
fn name_words(name: &str) -> Vec<String> {
    tokenize(name)
        .into_iter()
        .map(|t| match t {
            Tok::Word(w) => w,
            Tok::Square(s) => s.to_string().to_lowercase(),
            Tok::BadSquare(_) | Tok::Dash => String::new(),
        })
        .filter(|w| !w.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        tokenize(line)
            .into_iter()
            .map(|t| match t {
                Tok::Square(s) => s.to_string(),
                Tok::BadSquare(e) => format!("!{e}"),
                Tok::Dash => "-".into(),
                Tok::Word(w) => w,
            })
            .collect()
    }

    #[test]
    fn tokens_tolerate_case_spaces_and_punctuation() {
        assert_eq!(words("Fire at b7."), vec!["fire", "at", "B7"]);
        assert_eq!(words("fire: d 4, c-3"), vec!["fire", "D4", "C3"]);
        assert_eq!(words("EXP B2-B4"), vec!["exp", "B2", "-", "B4"]);
        assert_eq!(words("EXP B2 - B4"), vec!["exp", "B2", "-", "B4"]);
        assert_eq!(words("nuke D4 -> Bob"), vec!["nuke", "D4", "at", "bob"]);
        assert_eq!(words("nuke D4 → Bob"), vec!["nuke", "D4", "at", "bob"]);
        assert_eq!(words("torpedo  K3")[1].chars().next(), Some('!'));
    }
}
