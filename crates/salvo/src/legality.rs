//! Whether an order may be carried out, judged against the start-of-turn state
//! (SALVO-GM-02). Parsing and resolution share these checks, so an order the confirmation
//! accepted is the order that resolves, and one that slipped through is voided the same way.

use engine::PlayerId;

use crate::board::{Heading, Square, SquareError};
use crate::fleet::{PlacementError, ShipKind, ShipStatus};
use crate::orders::{Attack, BlastError, Shot};
use crate::setup::{CapturedWeapons, Special};
use crate::state::{AdmiralStatus, State};

/// Why an order line or an order was refused. The one error type of order handling: each
/// becomes a `LineIssue` when parsing and a voided attack when resolving.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OrderError {
    #[error("the game is over: no more orders")]
    GameOver,
    #[error("you are not a player in this game")]
    NotPlaying,
    #[error("your fleet is out of the game, so you have no more attacks")]
    OutOfGame,
    #[error("you have more than one opponent: say whom you aim at ({opponents})")]
    TargetNeeded { opponents: String },
    #[error("there is no opponent called '{name}' (opponents: {opponents})")]
    UnknownTarget { name: String, opponents: String },
    #[error("you cannot attack your own fleet")]
    SelfTarget,
    #[error("{name} is out of the game and cannot be attacked")]
    TargetOut { name: String },
    #[error("one target per line: put shots at another player on a line of their own")]
    TwoTargets,
    #[error("the {0} is not in play in this game")]
    Disabled(Special),
    #[error("you have no {special} left: {limit} per game, and failures count (SALVO-GM-14)")]
    NoUses { special: Special, limit: u8 },
    #[error("a torpedo attack needs your own Submarine, and {why} (SALVO-TORP-01)")]
    NeedsSubmarine { why: String },
    #[error("a bomber flight needs your own Carrier, and {why} (SALVO-BOMB-01)")]
    NeedsCarrier { why: String },
    #[error("none of your ships is captured, so there is nothing to recapture")]
    NothingCaptured,
    #[error("more than one of your ships is captured ({ships}): name the one to recapture")]
    WhichRecapture { ships: String },
    #[error("your {0} is not captured")]
    NotCaptured(ShipKind),
    #[error(
        "you have {allowed} shot{plural} this turn ({why}), and this line would make it {total}"
    )]
    TooManyShots {
        allowed: usize,
        plural: &'static str,
        why: String,
        total: usize,
    },
    #[error("you already fire at {0} this turn")]
    DuplicateShot(Square),
    #[error(
        "{0} is not on the edge of the board: a torpedo starts from an edge square such as A3, B1, F10 or J4"
    )]
    NotOnEdge(Square),
    #[error("{square} is a corner: say which way the torpedo runs ({choices})")]
    CornerNeedsHeading { square: Square, choices: String },
    #[error("a torpedo from {square} can only run {choices}")]
    WrongHeading { square: Square, choices: String },
    #[error(transparent)]
    Blast(#[from] BlastError),
    #[error("a backfire can only take your {choices}")]
    BadSacrifice { choices: String },
    #[error("your fleet is already at sea: ships are placed only with your first orders")]
    PlacementClosed,
    #[error(transparent)]
    Placement(#[from] PlacementError),
    #[error(
        "you already chose this turn's attack on line {line} ({what}): one attack a turn, and an extra replaces the turn's shots (SALVO-GM-01)"
    )]
    SecondAttack { line: usize, what: String },
    #[error("I don't know the order '{0}'")]
    UnknownOrder(String),
    #[error(transparent)]
    Square(#[from] SquareError),
    #[error("I don't understand '{0}' here")]
    Unexpected(String),
    #[error("{0}")]
    Missing(String),
}

/// Checks one attack for `me` against the start-of-turn state.
pub(crate) fn check_attack(state: &State, me: PlayerId, attack: &Attack) -> Result<(), OrderError> {
    check_player(state, me)?;
    for target in attack.targets() {
        check_target(state, me, target)?;
    }
    if let Some(special) = attack.special() {
        check_available(state, me, special)?;
    }
    match attack {
        Attack::Pass | Attack::Nuke { .. } | Attack::Scuba { .. } | Attack::Bomber { .. } => Ok(()),
        Attack::Fire { shots } => check_shots(state, me, &[], shots),
        Attack::Torpedo { start, heading, .. } => {
            let headings = torpedo_headings(*start)?;
            if headings.contains(heading) {
                Ok(())
            } else {
                Err(OrderError::WrongHeading {
                    square: *start,
                    choices: list_headings(&headings),
                })
            }
        }
        Attack::Experimental { sacrifice, .. } => match sacrifice {
            Some(ship) => check_sacrifice(state, me, *ship),
            None => Ok(()),
        },
        Attack::Recapture { ship } => recapture_target(state, me, Some(*ship)).map(|_| ()),
    }
}

/// The game is on and `me` is in it.
pub(crate) fn check_player(state: &State, me: PlayerId) -> Result<(), OrderError> {
    if state.end.is_some() {
        return Err(OrderError::GameOver);
    }
    match state.admiral(me).map(|a| a.status) {
        None => Err(OrderError::NotPlaying),
        Some(AdmiralStatus::Active) => Ok(()),
        Some(_) => Err(OrderError::OutOfGame),
    }
}

/// `target` is someone else still in the game (SALVO-GM-16).
pub(crate) fn check_target(
    state: &State,
    me: PlayerId,
    target: PlayerId,
) -> Result<(), OrderError> {
    if target == me {
        return Err(OrderError::SelfTarget);
    }
    match state.admiral(target) {
        None => Err(OrderError::UnknownTarget {
            name: format!("player {}", target.0),
            opponents: opponent_names(state, me),
        }),
        Some(admiral) if !admiral.is_active() => Err(OrderError::TargetOut {
            name: admiral.name.clone(),
        }),
        Some(_) => Ok(()),
    }
}

/// The extra is enabled, has a use left and its ship is not sunk, nor captured when the GM's
/// switch says a captured one is lost (SALVO-TORP-01, SALVO-BOMB-01, SALVO-GM-06, SALVO-GM-14).
pub(crate) fn check_available(
    state: &State,
    me: PlayerId,
    special: Special,
) -> Result<(), OrderError> {
    if !state.setup.specials_enabled.contains(&special) {
        return Err(OrderError::Disabled(special));
    }
    let admiral = state.admiral(me).ok_or(OrderError::NotPlaying)?;
    if admiral.uses_left.of(special) == 0 {
        return Err(OrderError::NoUses {
            special,
            limit: state.setup.uses.of(special),
        });
    }
    // SALVO-TORP-01, SALVO-BOMB-01: the ship must not be sunk; a captured one stops them only
    // under the GM's switch (SALVO-GM-06a).
    let blocked = |kind: ShipKind| -> Option<String> {
        match admiral.fleet.ship(kind).map(|s| s.status()) {
            Some(ShipStatus::Afloat) => None,
            Some(ShipStatus::Sunk { .. }) | None => Some(format!("your {kind} has been sunk")),
            Some(ShipStatus::Captured { by, .. }) => match state.setup.captured_weapons {
                CapturedWeapons::Usable => None,
                CapturedWeapons::Lost => Some(format!(
                    "your {kind} is held by {}'s commandos: in this game a captured {kind} cannot be used until you recapture it (SCUBA RECAPTURE {kind})",
                    state.name_of(by)
                )),
            },
        }
    };
    match special {
        Special::Torpedo => match blocked(ShipKind::Submarine) {
            Some(why) => Err(OrderError::NeedsSubmarine { why }),
            None => Ok(()),
        },
        Special::Bomber => match blocked(ShipKind::Carrier) {
            Some(why) => Err(OrderError::NeedsCarrier { why }),
            None => Ok(()),
        },
        _ => Ok(()),
    }
}

/// Shots in `new`, added to the `earlier` shots of the same turn, stay within the turn's
/// allowance and never repeat a square.
pub(crate) fn check_shots(
    state: &State,
    me: PlayerId,
    earlier: &[Shot],
    new: &[Shot],
) -> Result<(), OrderError> {
    let allowed = state.shots_allowed(me);
    let total = earlier.len() + new.len();
    if total > allowed {
        let why = match state.setup.shots {
            crate::setup::ShotRule::One => "one shot a turn in this game".to_string(),
            crate::setup::ShotRule::Salvo => "salvo: one per ship of yours afloat".to_string(),
        };
        return Err(OrderError::TooManyShots {
            allowed,
            plural: if allowed == 1 { "" } else { "s" },
            why,
            total,
        });
    }
    for (position, shot) in new.iter().enumerate() {
        let repeated = earlier.contains(shot) || new.iter().take(position).any(|s| s == shot);
        if repeated {
            return Err(OrderError::DuplicateShot(shot.square));
        }
    }
    Ok(())
}

/// The directions a torpedo may run from `start`: into the board (SALVO-TORP-03,
/// SALVO-GM-07).
pub(crate) fn torpedo_headings(start: Square) -> Result<Vec<Heading>, OrderError> {
    let headings = start.inward_headings();
    if headings.is_empty() {
        Err(OrderError::NotOnEdge(start))
    } else {
        Ok(headings)
    }
}

/// The torpedo's heading: the one written, or the only one an edge square allows; a corner
/// needs it written (SALVO-GM-07).
pub(crate) fn torpedo_heading(
    start: Square,
    written: Option<Heading>,
) -> Result<Heading, OrderError> {
    let headings = torpedo_headings(start)?;
    match (written, headings.as_slice()) {
        (Some(heading), _) if headings.contains(&heading) => Ok(heading),
        (Some(_), _) => Err(OrderError::WrongHeading {
            square: start,
            choices: list_headings(&headings),
        }),
        (None, [only]) => Ok(*only),
        (None, _) => Err(OrderError::CornerNeedsHeading {
            square: start,
            choices: list_headings(&headings),
        }),
    }
}

fn list_headings(headings: &[Heading]) -> String {
    headings
        .iter()
        .map(|h| format!("{} ({})", h.letter(), h))
        .collect::<Vec<_>>()
        .join(" or ")
}

/// A named backfire ship is one the rule allows (SALVO-GM-12).
pub(crate) fn check_sacrifice(
    state: &State,
    me: PlayerId,
    ship: ShipKind,
) -> Result<(), OrderError> {
    let admiral = state.admiral(me).ok_or(OrderError::NotPlaying)?;
    let choices = admiral.fleet.backfire_choices();
    if choices.contains(&ship) {
        Ok(())
    } else {
        Err(OrderError::BadSacrifice {
            choices: choices
                .iter()
                .map(|k| k.name())
                .collect::<Vec<_>>()
                .join(" or "),
        })
    }
}

/// The own ship a recapture aims at: the named one, or the only one captured (SALVO-GM-06).
pub(crate) fn recapture_target(
    state: &State,
    me: PlayerId,
    named: Option<ShipKind>,
) -> Result<ShipKind, OrderError> {
    let admiral = state.admiral(me).ok_or(OrderError::NotPlaying)?;
    let captured = admiral.captured_ships();
    match (named, captured.as_slice()) {
        (_, []) => Err(OrderError::NothingCaptured),
        (Some(ship), _) if captured.contains(&ship) => Ok(ship),
        (Some(ship), _) => Err(OrderError::NotCaptured(ship)),
        (None, [only]) => Ok(*only),
        (None, _) => Err(OrderError::WhichRecapture {
            ships: captured
                .iter()
                .map(|k| k.name())
                .collect::<Vec<_>>()
                .join(", "),
        }),
    }
}

/// Names of `me`'s opponents, for messages.
pub(crate) fn opponent_names(state: &State, me: PlayerId) -> String {
    state
        .opponents_of(me)
        .iter()
        .map(|a| a.name.clone())
        .collect::<Vec<_>>()
        .join(", ")
}
