#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "tests"
)]
//! Who still has something to order (`Engine::expects_orders`, issue 18's missed turns): every
//! player of a new game, and no longer a player whose fleet is out of the battle, in each
//! engine; and each engine's default missed-turns limit (docs/rosters.md).

use engine::{GameSecret, Player, PlayerId};
use games::{AnyState, EngineKind};

fn players(n: u64) -> Vec<Player> {
    (1..=n)
        .map(|id| Player {
            id: PlayerId(id),
            name: format!("Player {id}"),
        })
        .collect()
}

fn new_game(engine: EngineKind, n: u64) -> AnyState {
    let secret = GameSecret::from_bytes([7; 32]);
    engine
        .default_setup()
        .new_game(&players(n), &mut secret.turn_dice(0))
        .unwrap()
}

/// Every engine: in a new game every player has something to order; once the state says
/// player 1 is out (`knock_out`), they do not, and player 2 still does.
fn check(engine: EngineKind, n: u64, knock_out: impl FnOnce(&mut AnyState)) {
    let mut state = new_game(engine, n);
    for id in 1..=n {
        assert!(state.expects_orders(PlayerId(id)), "{engine}: player {id}");
    }
    assert!(!state.expects_orders(PlayerId(99)), "{engine}: a stranger");
    knock_out(&mut state);
    assert!(
        !state.expects_orders(PlayerId(1)),
        "{engine}: player 1 is out"
    );
    assert!(
        state.expects_orders(PlayerId(2)),
        "{engine}: player 2 plays on"
    );
}

#[test]
fn a_barmy_captain_whose_ship_is_sunk_orders_nothing() {
    check(EngineKind::Barmy, 3, |state| {
        let AnyState::Barmy(state) = state else {
            panic!()
        };
        state.captains[0].fate = barmy::Fate::Sunk(1);
    });
}

#[test]
fn a_defeated_salvo_admiral_orders_nothing() {
    check(EngineKind::Salvo, 3, |state| {
        // The admiral's status is the engine's own: changed through the stored form.
        let mut json = state.to_json().unwrap();
        json["admirals"][0]["status"] = serde_json::json!({ "defeated": { "turn": 1 } });
        *state = EngineKind::Salvo.parse_state(&json).unwrap();
    });
}

#[test]
fn an_ironclad_captain_with_no_ship_in_action_orders_nothing() {
    check(EngineKind::Ironclad, 2, |state| {
        let AnyState::Ironclad(state) = state else {
            panic!()
        };
        for ship in state.ships.iter_mut().filter(|s| s.player == PlayerId(1)) {
            ship.broken_off = true;
        }
    });
}

#[test]
fn a_skyfleet_side_with_nothing_in_play_orders_nothing() {
    check(EngineKind::Skyfleet, 2, |state| {
        let AnyState::Skyfleet(state) = state else {
            panic!()
        };
        let side = state.side_of(PlayerId(1)).unwrap();
        for unit in state.units.iter_mut().filter(|u| u.side == side) {
            unit.place = skyfleet::state::Place::Destroyed;
        }
    });
}

#[test]
fn a_forever_player_wiped_out_orders_nothing() {
    check(EngineKind::Forever, 3, |state| {
        let AnyState::Forever(state) = state else {
            panic!()
        };
        state.seats[0].status = forever::state::SeatStatus::WipedOut;
    });
}

#[test]
fn seats_are_handed_over_after_the_engines_default_misses_except_in_barmy() {
    assert_eq!(EngineKind::Barmy.missed_turns_limit(), None);
    assert_eq!(EngineKind::Salvo.missed_turns_limit(), Some(2));
    assert_eq!(EngineKind::Ironclad.missed_turns_limit(), Some(2));
    assert_eq!(EngineKind::Skyfleet.missed_turns_limit(), Some(2));
    assert_eq!(EngineKind::Forever.missed_turns_limit(), Some(3));
}

/// Every engine whose seats are handed over: once a turn resolves with player 1 leaving, their
/// fleet is out of the battle (it left, IRON-GM-18, SKY-ADM-07), though their ships may still
/// be on the board; so their seat can no longer be taken back, handed on or offered.
#[test]
fn a_player_who_left_orders_nothing_once_the_turn_resolves_in_every_engine() {
    for (engine, n) in [
        (EngineKind::Salvo, 3),
        (EngineKind::Ironclad, 4),
        (EngineKind::Skyfleet, 2),
        (EngineKind::Forever, 3),
    ] {
        let state = new_game(engine, n);
        let input = engine::TurnInput {
            orders: std::collections::BTreeMap::new(),
            joining: Vec::new(),
            leaving: vec![PlayerId(1)],
            excused: Vec::new(),
            renames: Vec::new(),
        };
        let secret = GameSecret::from_bytes([7; 32]);
        let after = state
            .resolve(input, &[], &mut secret.turn_dice(state.turn()))
            .unwrap()
            .state;
        assert!(
            !after.expects_orders(PlayerId(1)),
            "{engine}: player 1 left"
        );
        assert!(
            after.expects_orders(PlayerId(2)),
            "{engine}: player 2 plays on"
        );
    }
}
