//! `salvo`: classic Battleship (10×10, five ships, hidden fleets) with the Carson family's
//! optional extras — the tactical nuke, SCUBA attack, torpedo attack, experimental weapon and
//! bomber flight (rules text seed 003, catalogue `shared/rules/salvo.md`). Turns are
//! simultaneous and written (SALVO-GM-01/02); any number of players from two up (SALVO-GM-16).
//!
//! Pure: no IO, no clock, no global RNG. Dice come from the turn's `TurnDice`: the open stream
//! for every roll a report shows, the sealed stream for fleet placement.

use engine::{
    Engine, Outcome, ParsedOrders, Player, PlayerId, Resolution, SetupError, Standing, TurnDice,
    TurnError, TurnInput, View, Viewer,
};

mod announce;
pub mod board;
pub mod fleet;
mod legality;
pub mod orders;
mod parse;
mod resolve;
pub mod rolls;
mod scenario;
pub mod setup;
pub mod state;
mod view;

pub use board::{Heading, Square};
pub use fleet::{Fleet, FleetPlan, Orientation, Placement, ShipKind, ShipStatus};
pub use legality::OrderError;
pub use orders::{Attack, BlastList, FleetOrder, Orders, Shot};
pub use rolls::DiceMode;
pub use setup::{CapturedWeapons, MissReport, Setup, ShotRule, Special, Uses};
pub use state::{Admiral, AdmiralStatus, GameEnd, PlacedBy, State};

/// The `salvo` rule engine.
#[derive(Debug, Clone, Copy, Default)]
pub struct Salvo;

impl Salvo {
    /// The title reports carry.
    pub const TITLE_SHORT: &'static str = "Salvo";
}

impl Engine for Salvo {
    const NAME: &'static str = "salvo";
    const TITLE: &'static str =
        "Battleship with the optional extras of Marc, Ben, Hugh and Lucy Carson (CC-BY-SA)";

    type Setup = Setup;
    type State = State;
    type Orders = Orders;

    /// Every fleet starts placed at random with turn 0's sealed dice (SALVO-GM-18); each
    /// player's first orders may place it themselves. Two or more players (SALVO-CL-01,
    /// SALVO-GM-16).
    fn new_game(
        setup: &Setup,
        players: &[Player],
        dice: &mut TurnDice,
    ) -> Result<State, SetupError> {
        let problems = setup.problems();
        if !problems.is_empty() {
            return Err(SetupError::Settings(problems));
        }
        if players.len() < 2 {
            return Err(SetupError::Players(
                "Battleship needs at least two players".into(),
            ));
        }
        let mut ids: Vec<PlayerId> = players.iter().map(|p| p.id).collect();
        ids.sort();
        ids.dedup();
        if ids.len() != players.len() {
            return Err(SetupError::Players("two players share an id".into()));
        }
        if players
            .iter()
            .any(|p| engine::report::one_line(&p.name).is_empty())
        {
            return Err(SetupError::Players("every player needs a name".into()));
        }
        // Placement in ascending id order, so the roster's order cannot change the fleets.
        let mut ordered: Vec<&Player> = players.iter().collect();
        ordered.sort_by_key(|p| p.id);
        let mut fleets: Vec<(PlayerId, Fleet)> = ordered
            .iter()
            .map(|p| (p.id, Fleet::random(&mut dice.sealed)))
            .collect();
        let admirals = players
            .iter()
            .map(|player| {
                let position = fleets.iter().position(|(id, _)| *id == player.id);
                let fleet = position
                    .map(|i| fleets.swap_remove(i).1)
                    .unwrap_or_else(|| Fleet::random(&mut dice.sealed));
                state::Admiral::new(player, fleet, setup.starting_uses())
            })
            .collect();
        Ok(State::new(setup.clone(), admirals))
    }

    fn parse_orders(state: &State, player: PlayerId, text: &str) -> ParsedOrders<Orders> {
        let mut parsed = parse::parse_orders(state, player, text);
        engine::chat::set_aside(text, &mut parsed);
        parsed
    }

    fn resolve(
        state: &State,
        input: &TurnInput<Orders>,
        dice: &mut TurnDice,
    ) -> Result<Resolution<State>, TurnError> {
        resolve::resolve(state, input, dice)
    }

    fn view(state: &State, viewer: Viewer) -> View {
        view::view(state, viewer)
    }

    /// Winners are the last fleet afloat (SALVO-CL-05, SALVO-SCUBA-06), or those that went
    /// down together (SALVO-GM-02). Standings: winners, then players still afloat by ships
    /// afloat, then the defeated by how long they lasted; Score breaks ties.
    fn outcome(state: &State) -> Outcome {
        let winners = state
            .end
            .as_ref()
            .map(|e| e.winners.clone())
            .unwrap_or_default();
        let key = |admiral: &Admiral| -> (u8, u32, u32) {
            let (tier, lasting) = if winners.contains(&admiral.id()) {
                (3, 0)
            } else {
                match admiral.status() {
                    AdmiralStatus::Active => (
                        2,
                        u32::try_from(admiral.fleet().afloat_count()).unwrap_or(0),
                    ),
                    AdmiralStatus::Defeated { turn } | AdmiralStatus::Left { turn } => (1, turn),
                }
            };
            (tier, lasting, state.score(admiral.id()))
        };
        let mut ranked: Vec<&Admiral> = state.admirals().iter().collect();
        ranked.sort_by(|a, b| key(b).cmp(&key(a)).then(a.id().cmp(&b.id())));
        let mut standings: Vec<Standing> = Vec::with_capacity(ranked.len());
        for (index, admiral) in ranked.iter().enumerate() {
            let place = match standings.last() {
                Some(previous)
                    if ranked
                        .get(index.wrapping_sub(1))
                        .is_some_and(|p| key(p) == key(admiral)) =>
                {
                    previous.place
                }
                _ => u32::try_from(index + 1).unwrap_or(u32::MAX),
            };
            let status = if winners.contains(&admiral.id()) {
                "winner".to_string()
            } else {
                match admiral.status() {
                    AdmiralStatus::Active => {
                        format!("{} afloat", admiral.fleet().afloat_count())
                    }
                    AdmiralStatus::Defeated { turn } => format!("fleet lost on turn {turn}"),
                    AdmiralStatus::Left { turn } => format!("left on turn {turn}"),
                }
            };
            standings.push(Standing {
                player: admiral.id(),
                name: admiral.name().to_string(),
                score: engine::Score::whole(i64::from(state.score(admiral.id()))),
                place,
                status,
            });
        }
        Outcome {
            finished: state.end.is_some(),
            standings,
            winners,
        }
    }

    fn turn(state: &State) -> u32 {
        state.turn()
    }

    fn expects_orders(state: &State, player: PlayerId) -> bool {
        state
            .admiral(player)
            .is_some_and(|admiral| admiral.is_active())
    }

    fn missed_turns_limit() -> Option<u32> {
        Some(2)
    }

    fn roster(state: &State) -> Vec<Player> {
        state.roster()
    }

    fn rename(state: &mut State, player: &Player) {
        if let Some(admiral) = state.admirals.iter_mut().find(|a| a.id == player.id) {
            admiral.name.clone_from(&player.name);
        }
    }

    fn order_help(state: &State) -> String {
        help(state)
    }

    fn settings() -> Vec<engine::settings::Setting> {
        use engine::settings::{Setting, SettingKind};
        const SPECIALS: &[(&str, &str)] = &[
            ("nuke", "tactical nuke"),
            ("scuba", "SCUBA attack"),
            ("torpedo", "torpedo attack"),
            ("experimental", "experimental weapon"),
            ("bomber", "bomber flight"),
        ];
        let uses = |path, label, default, rule| {
            Setting::number(
                path,
                label,
                (0, 99, default),
                "Uses of this extra per game.",
            )
            .rule(rule)
        };
        vec![
            Setting::choice(
                "dice_mode",
                "Dice",
                &[("d20", "one D20"), ("3d6", "three D6, added")],
                "d20",
                "The dice of every roll, for the whole game.",
            )
            .rule("SALVO-GM-03"),
            Setting::choice(
                "shots",
                "Shots a turn",
                &[
                    ("one", "one shot a turn (classic)"),
                    ("salvo", "one shot per own ship afloat (salvo)"),
                ],
                "one",
                "How many squares a player calls each turn.",
            )
            .rule("SALVO-CL-04"),
            Setting::switch(
                "torpedo_bonus",
                "Torpedo bonus roll",
                true,
                "Torpedoes roll for the bonus that destroys the ship they hit.",
            )
            .rule("SALVO-TORP-06"),
            Setting {
                path: "specials_enabled",
                label: "Extras in play",
                help: "The table may leave some of the five extras out.",
                rule: Some("SALVO-GEN-03"),
                kind: SettingKind::Several {
                    choices: SPECIALS,
                    default: &["nuke", "scuba", "torpedo", "experimental", "bomber"],
                },
            },
            uses("uses.nuke", "Tactical nuke uses", 1, "SALVO-NUKE-01"),
            uses("uses.scuba", "SCUBA attack uses", 2, "SALVO-SCUBA-01"),
            uses("uses.torpedo", "Torpedo attack uses", 2, "SALVO-TORP-01"),
            uses("uses.experimental", "Experimental weapon uses", 2, "SALVO-EXP-01"),
            uses("uses.bomber", "Bomber flight uses", 2, "SALVO-BOMB-01"),
            Setting::switch(
                "nmr_autoshot",
                "A missing order fires a random shot",
                false,
                "A player without orders fires one classic shot at a random uncalled square.",
            )
            .rule("SALVO-GM-17"),
            Setting::switch(
                "score_breaks_ties",
                "Score breaks a last-turn tie",
                false,
                "When the last fleets sink together, the higher Score wins instead of a shared win.",
            )
            .rule("SALVO-GM-02"),
            Setting::choice(
                "misses",
                "Missed squares in the report",
                &[("listed", "each named"), ("counted", "only counted")],
                "listed",
                "Whether area attacks list each missed square or only count them.",
            ),
            Setting::choice(
                "captured_weapons",
                "A captured Submarine or Carrier",
                &[
                    ("usable", "still lets its owner torpedo and bomb"),
                    ("lost", "stops its owner's torpedoes and bombers until recaptured"),
                ],
                "usable",
                "What commandos holding the ship do to its owner's attacks.",
            )
            .rule("SALVO-TORP-01"),
        ]
    }

    fn rulings(setup: &Setup) -> Vec<engine::Ruling> {
        setup.rulings()
    }
}

fn help(state: &State) -> String {
    let setup = state.setup();
    let several = state.admirals().len() > 2;
    let at = if several { " AT <player>" } else { "" };
    let enabled = |s: Special| setup.specials_enabled.contains(&s);
    let limit = |s: Special| setup.uses.of(s);
    // SALVO-TORP-01, SALVO-BOMB-01 and the GM's switch on captured ships.
    let keeps = |kind: ShipKind| match setup.captured_weapons {
        CapturedWeapons::Usable => "is not sunk (captured is fine)".to_string(),
        CapturedWeapons::Lost => {
            format!("is afloat and not captured (recapture a captured {kind} first)")
        }
    };
    let mut placing: Vec<(String, String)> = vec![
        (
            "PLACE Carrier A1 H".into(),
            "the top or left end, then H (across) or V (down); or both ends: PLACE Carrier A1-A5".into(),
        ),
        (
            "...".into(),
            "one line for each of Carrier 5, Battleship 4, Cruiser 3, Submarine 3, Destroyer 2; no overlaps, nothing off the board".into(),
        ),
        ("PLACE RANDOM".into(), "let the server place the fleet at random".into()),
    ];
    let mut attacks: Vec<(String, String)> = vec![match setup.shots {
        ShotRule::One => (format!("FIRE B7{at}"), "one shot a turn".into()),
        ShotRule::Salvo => (
            format!("FIRE B7 C3 E5{at}"),
            "one shot per ship of yours afloat (ranges like B2-B4 too)".into(),
        ),
    }];
    if enabled(Special::Nuke) {
        attacks.push((
            format!("NUKE D4{at}"),
            format!(
                "tactical nuke, {} a game: the 13-square diamond; top roll: the whole 5x5; lowest roll: fizzles",
                limit(Special::Nuke)
            ),
        ));
    }
    if enabled(Special::Scuba) {
        attacks.push((
            format!("SCUBA{at}"),
            format!(
                "{} a game: destroys or captures the smallest enemy ship afloat",
                limit(Special::Scuba)
            ),
        ));
        attacks.push((
            "SCUBA RECAPTURE [ship]".into(),
            "uses a SCUBA attack to take back your own captured ship".into(),
        ));
    }
    if enabled(Special::Torpedo) {
        attacks.push((
            format!("TORPEDO F10{at}"),
            format!(
                "{} a game while your Submarine {}: from an edge square straight across until it hits; from a corner add N, S, E or W (TORPEDO A1 S)",
                limit(Special::Torpedo),
                keeps(ShipKind::Submarine)
            ),
        ));
    }
    if enabled(Special::Experimental) {
        attacks.push((
            format!("EXPERIMENTAL B2 B3 B4{at}"),
            format!(
                "{} a game: a d6 decides how many of your squares blast (each must touch an earlier one; short lists grow automatically); a 1 also destroys your own Submarine or next-largest ship (add SACRIFICE <ship> to choose); sixes roll again",
                limit(Special::Experimental)
            ),
        ));
    }
    if enabled(Special::Bomber) {
        attacks.push((
            format!("BOMBER G6{at}"),
            format!(
                "{} a game while your Carrier {}: the 3x3 block around the square",
                limit(Special::Bomber),
                keeps(ShipKind::Carrier)
            ),
        ));
    }
    attacks.push(("PASS".into(), "no attack".into()));
    attacks.push(("PRESS <text>".into(), "a message for the report".into()));
    let width = placing
        .iter()
        .chain(attacks.iter())
        .map(|(order, _)| order.chars().count())
        .max()
        .unwrap_or(0);
    let table = |rows: &mut Vec<(String, String)>| -> Vec<String> {
        rows.drain(..)
            .map(|(order, what)| format!("  {order:<width$}  {what}"))
            .collect()
    };
    let mut lines = vec![
        "Orders for Salvo (Battleship with extras). One order a line; case, extra spaces and punctuation do not matter.".to_string(),
        "Squares: a row letter A-J (A at the top) then a column number 1-10 (1 on the left): D4, F10.".to_string(),
        String::new(),
        "Your first orders may place your fleet (otherwise it stays where the server placed it at random):".to_string(),
    ];
    lines.extend(table(&mut placing));
    lines.push(String::new());
    lines
        .push("Each turn, ONE attack: the turn's shots, or one extra instead of them:".to_string());
    lines.extend(table(&mut attacks));
    lines.push(String::new());
    lines.push(format!(
        "Dice: {} for the whole game{}. Every extra's use counts, even when it fails.",
        setup.dice_mode,
        if setup.torpedo_bonus {
            "; torpedoes roll for a bonus that destroys the ship hit"
        } else {
            ""
        }
    ));
    if several {
        let names: Vec<&str> = state.admirals().iter().map(|a| a.name()).collect();
        lines.push(format!(
            "With more than one opponent every attack names its target: FIRE B7 AT {}. Players: {}.",
            names.get(1).copied().unwrap_or("Bob"),
            names.join(", ")
        ));
    }
    lines.join("\n")
}
