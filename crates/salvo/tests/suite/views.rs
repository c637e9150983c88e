//! Views and reports never leak hidden facts: where un-hit ships lie is seen only by their
//! owner and the GM.

use engine::{Engine, TurnDice, Viewer};
use salvo::{Fleet, FleetPlan, Orientation, Placement, Salvo, Setup, ShipKind, Square, State};

use crate::common::*;

fn views_of(state: &State) -> (String, String, String, String) {
    let json = |viewer| serde_json::to_string(&Salvo::view(state, viewer)).unwrap();
    (
        json(Viewer::Public),
        json(Viewer::Player(ANN)),
        json(Viewer::Player(BOB)),
        json(Viewer::Gm),
    )
}

#[test]
fn another_players_placement_changes_nothing_anyone_else_sees() {
    let setup = Setup::default();
    let mut first = new_game(&setup, 3, 20);
    let mut second = first.clone();
    place(&mut first, BOB, ROWS_FLEET);
    place(
        &mut second,
        BOB,
        "PLACE Carrier F6 V\nPLACE Battleship A7 H\nPLACE Cruiser J1 H\nPLACE Submarine C2 V\nPLACE Destroyer H9 V",
    );
    let (public_a, ann_a, bob_a, gm_a) = views_of(&first);
    let (public_b, ann_b, bob_b, gm_b) = views_of(&second);
    assert_eq!(public_a, public_b);
    assert_eq!(ann_a, ann_b);
    assert_ne!(bob_a, bob_b, "the owner sees their own fleet");
    assert_ne!(gm_a, gm_b, "the GM sees everything");
    let bob_view = Salvo::view(&first, Viewer::Player(BOB));
    assert!(
        bob_view
            .lines
            .iter()
            .any(|l| l.contains("Carrier A1-A5: afloat"))
    );
    assert!(bob_view.board.is_some());
    // The public picture is every ocean, with nothing but what reports said: before any shot,
    // no mark at all.
    let Some(engine::Board::Grids { grids }) = Salvo::view(&first, Viewer::Public).board else {
        panic!("the public view has a picture of every ocean");
    };
    assert_eq!(grids.len(), 3);
    assert!(grids.iter().all(|g| g.grid.marks.is_empty()), "{grids:#?}");
}

#[test]
fn the_public_picture_shows_hits_sunk_ships_and_misses_only() {
    let mut state = new_game(&Setup::default(), 2, 23);
    place(&mut state, BOB, ROWS_FLEET);
    state.sink_ship(BOB, ShipKind::Destroyer);
    state.hit_squares(BOB, &squares("A1"));
    let marks_of = |viewer| {
        let Some(engine::Board::Grids { grids }) = Salvo::view(&state, viewer).board else {
            panic!("no picture");
        };
        let bob = grids
            .into_iter()
            .find(|g| g.title.starts_with("Bob"))
            .unwrap();
        bob.grid.marks
    };
    let public = marks_of(Viewer::Public);
    assert!(public.iter().all(|m| m.mark != engine::Mark::OwnShip));
    // A1 is hit (row A = 0, column 1 = 0); the Destroyer lies in row I, sunk.
    assert!(
        public
            .iter()
            .any(|m| (m.x, m.y, m.mark) == (0, 0, engine::Mark::Hit))
    );
    assert!(
        public
            .iter()
            .any(|m| m.y == 8 && m.mark == engine::Mark::Sunk)
    );
    // The GM sees Bob's untouched ships too.
    assert!(
        marks_of(Viewer::Gm)
            .iter()
            .any(|m| m.mark == engine::Mark::OwnShip)
    );
}

#[test]
fn reports_do_not_reveal_where_a_fleet_was_placed() {
    let state = new_game(&Setup::default(), 2, 21);
    let report_for = |placement: &str| {
        let mut text = String::from(placement);
        text.push_str("\nFIRE J10");
        let turn = input(vec![
            (ANN, orders(&state, ANN, "FIRE E5")),
            (BOB, orders(&state, BOB, &text)),
        ]);
        let resolution = Salvo::resolve(&state, &turn, &mut TurnDice::scripted([], [])).unwrap();
        serde_json::to_string(&resolution.report).unwrap()
    };
    let first = report_for(ROWS_FLEET);
    let second = report_for(
        "PLACE Carrier F6 V\nPLACE Battleship A7 H\nPLACE Cruiser J1 H\nPLACE Submarine C2 V\nPLACE Destroyer H9 V",
    );
    assert_eq!(first, second);
}

/// Moves one of `owner`'s untouched ships to another free spot nobody has fired at, through
/// the stored JSON (which re-validates the fleet).
fn move_untouched_ship(state: &State, owner: engine::PlayerId) -> Option<State> {
    let admiral = state.admiral(owner)?;
    let attacked: Vec<Square> = state
        .admirals()
        .iter()
        .filter_map(|a| a.calls_on(owner))
        .flat_map(|c| c.iter().copied())
        .collect();
    let fleet = admiral.fleet();
    for ship in fleet.ships() {
        if !ship.is_afloat() || !ship.damage().is_empty() {
            continue;
        }
        let others: Vec<Square> = fleet
            .ships()
            .iter()
            .filter(|s| s.kind() != ship.kind())
            .flat_map(|s| s.squares().collect::<Vec<_>>())
            .collect();
        for orientation in [Orientation::Horizontal, Orientation::Vertical] {
            for bow in Square::all() {
                let placement = Placement {
                    ship: ship.kind(),
                    bow,
                    orientation,
                };
                let Ok(squares) = placement.squares() else {
                    continue;
                };
                let free = squares
                    .iter()
                    .all(|s| !others.contains(s) && !attacked.contains(s) && !ship.occupies(*s));
                if !free {
                    continue;
                }
                let mut json = serde_json::to_value(state).unwrap();
                let admirals = json["admirals"].as_array_mut().unwrap();
                let entry = admirals
                    .iter_mut()
                    .find(|a| a["id"] == serde_json::json!(owner.0))
                    .unwrap();
                let ships = entry["fleet"].as_array_mut().unwrap();
                let target = ships
                    .iter_mut()
                    .find(|s| s["placement"]["ship"] == serde_json::to_value(ship.kind()).unwrap())
                    .unwrap();
                target["placement"] = serde_json::to_value(placement).unwrap();
                return serde_json::from_value(json).ok();
            }
        }
    }
    None
}

#[test]
fn hidden_ships_can_move_without_changing_any_other_view_mid_game() {
    let mut checked = 0;
    for seed in 0..24u8 {
        let mut state = new_game(&Setup::default(), 2 + usize::from(seed % 3), seed);
        let secret = engine::GameSecret::from_bytes([seed; 32]);
        let mut mix = Mix(u64::from(seed) + 99);
        for _ in 0..(3 + seed % 6) {
            let turn = Salvo::turn(&state);
            let input = mix.turn_input(&state);
            match Salvo::resolve(&state, &input, &mut secret.turn_dice(turn)) {
                Ok(resolution) => state = resolution.state,
                Err(_) => break,
            }
        }
        let Some(moved) = move_untouched_ship(&state, BOB) else {
            continue;
        };
        assert_ne!(moved, state);
        let (public_a, ann_a, _, gm_a) = views_of(&state);
        let (public_b, ann_b, _, gm_b) = views_of(&moved);
        assert_eq!(public_a, public_b, "public view leaks (seed {seed})");
        assert_eq!(ann_a, ann_b, "another player's view leaks (seed {seed})");
        assert_ne!(gm_a, gm_b);
        checked += 1;
    }
    assert!(checked > 10, "only {checked} positions checked");
}

#[test]
fn sunk_ships_and_hits_are_public() {
    let mut state = new_game(&Setup::default(), 2, 22);
    place(&mut state, BOB, ROWS_FLEET);
    state.sink_ship(BOB, ShipKind::Destroyer);
    state.hit_squares(BOB, &squares("A1"));
    let public = Salvo::view(&state, Viewer::Public);
    let grid: Vec<&String> = public
        .lines
        .iter()
        .skip_while(|l| !l.starts_with("Bob's ocean"))
        .collect();
    assert!(
        grid.iter().any(|l| l.starts_with(" A  X . . . .")),
        "{grid:#?}"
    );
    assert!(
        grid.iter().any(|l| l.starts_with(" I  # # . .")),
        "{grid:#?}"
    );
    // Unused: keeps the imports honest if the fleet API changes.
    let _ =
        Fleet::from_plan(&FleetPlan::try_from(state.admiral(BOB).unwrap().fleet().plan()).unwrap());
}

#[test]
fn no_public_text_finds_a_captured_hulk() {
    // SALVO-ADM-15 (revising SALVO-GM-06c), issue 28: shots and area attacks on a captured
    // hulk read as misses to everyone but its owner and captor. Two games the same but for
    // where Bob's captured Destroyer lies (I1-I2, or I8-I9 with I1, I2 open water): every
    // public text, and the view of Ann (neither owner nor captor), must be the same in both,
    // turn after turn of attacks over I2.
    const CY: engine::PlayerId = engine::PlayerId(3);
    let game = |destroyer: &str| {
        let mut state = new_game(&Setup::default(), 3, 31);
        let fleet = ROWS_FLEET.replace("PLACE Destroyer I1 H", destroyer);
        place(&mut state, BOB, &fleet);
        state.capture_ship(BOB, ShipKind::Destroyer, CY);
        state
    };
    let attacks = [
        "FIRE I2 AT Bob",
        "NUKE H2 AT Bob",
        "BOMBER I3 AT Bob",
        "TORPEDO I10 W AT Bob",
        "EXPERIMENTAL I2 J2 J3 AT Bob",
    ];
    let mut hulk = game("PLACE Destroyer I1 H");
    let mut water = game("PLACE Destroyer I8 H");
    for (turn, attack) in (1..).zip(attacks) {
        let mut public = Vec::new();
        for state in [&mut hulk, &mut water] {
            let input = input(vec![(ANN, orders(state, ANN, attack))]);
            let mut dice = engine::GameSecret::from_bytes([7; 32]).turn_dice(turn);
            let resolution = Salvo::resolve(state, &input, &mut dice).unwrap();
            *state = resolution.state;
            let report = resolution.report;
            public.push((
                report.to_text(),
                serde_json::to_string(&report).unwrap(),
                serde_json::to_string(&Salvo::view(state, Viewer::Public)).unwrap(),
                serde_json::to_string(&Salvo::view(state, Viewer::Player(ANN))).unwrap(),
            ));
        }
        let (with_hulk, with_water) = (&public[0], &public[1]);
        assert!(
            !with_hulk.0.contains("hulk"),
            "turn {turn} ({attack}): {}",
            with_hulk.0
        );
        assert_eq!(
            with_hulk.0, with_water.0,
            "turn {turn} ({attack}): the report tells where the hulk lies (SALVO-ADM-15)"
        );
        assert_eq!(with_hulk.1, with_water.1, "turn {turn} ({attack})");
        assert_eq!(
            with_hulk.2, with_water.2,
            "turn {turn} ({attack}): the public view"
        );
        assert_eq!(
            with_hulk.3, with_water.3,
            "turn {turn} ({attack}): Ann's view"
        );
    }
}
