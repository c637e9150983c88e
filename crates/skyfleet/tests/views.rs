#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! What each viewer may see: the table and every unit on it are public; a side's standing
//! orders and the wings still in its hangars are its own (SKY-ADM-09). The map for an SVG
//! drawing is built from public facts only.

use engine::{Engine, GameSecret, Player, PlayerId, TurnDice, TurnInput, Viewer};
use skyfleet::state::Place;
use skyfleet::{MapPicture, Setup, Skyfleet, State, map};

fn standard() -> State {
    let players = [1, 2].map(|id| Player {
        id: PlayerId(id),
        name: ["Alice", "Bob"][id as usize - 1].into(),
    });
    Skyfleet::new_game(&Setup::default(), &players, &mut TurnDice::scripted([], [])).unwrap()
}

/// A state where both sides have secrets: standing orders, and a wing still aboard.
fn with_secrets() -> State {
    with_secrets_and_report().0
}

fn with_secrets_and_report() -> (State, engine::Report) {
    let mut state = standard();
    let mut input = TurnInput::default();
    for (id, text) in [
        (
            1,
            "STANDING BRACE Valiant\nSTANDING CHAFF Resolute\nSTANDING REROLL_CRIT 7, 8\nINITIATIVE SECOND",
        ),
        (
            2,
            "STANDING COUNTERMEASURES Dominion LEFT\nSTANDING BRACE Tempest",
        ),
    ] {
        let parsed = Skyfleet::parse_orders(&state, PlayerId(id), text);
        assert!(parsed.errors.is_empty(), "{:#?}", parsed.errors);
        input.orders.insert(PlayerId(id), parsed.orders);
    }
    let secret = GameSecret::from_bytes([5; 32]);
    let resolution = Skyfleet::resolve(&state, &input, &mut secret.turn_dice(1)).unwrap();
    state = resolution.state;
    (state, resolution.report)
}

#[test]
fn sky_adm_09_the_public_report_tells_no_secrets() {
    let (state, report) = with_secrets_and_report();
    assert_eq!(state.units[1].place, Place::Aboard);
    let text = report.to_text();
    for secret in [
        "aboard",
        "Hawk",
        "Falcon",
        "CHAFF",
        "COUNTERMEASURES",
        "REROLL",
        "SECOND",
    ] {
        assert!(
            !text.contains(secret),
            "SKY-ADM-09: the report shows {secret:?}:\n{text}"
        );
    }
}

#[test]
fn sky_adm_09_the_public_sees_no_standing_orders_and_no_wings_aboard() {
    let state = with_secrets();
    assert_eq!(state.units[1].place, Place::Aboard, "Hawk is still aboard");
    let public = Skyfleet::view(&state, Viewer::Public).lines.join("\n");
    for secret in [
        "Standing orders",
        "BRACE",
        "CHAFF",
        "COUNTERMEASURES",
        "REROLL",
        "Hawk",
        "Falcon",
        "aboard",
        "SECOND",
    ] {
        assert!(
            !public.contains(secret),
            "SKY-ADM-09: the public view shows {secret:?}:\n{public}"
        );
    }
    for visible in [
        "Resolute (Command Ship)",
        "Dominion (Command Ship)",
        "Island Anvil Rock",
        "Cloud bank Grey Veil",
        "Storm Maelstrom",
    ] {
        assert!(
            public.contains(visible),
            "public view lacks {visible:?}:\n{public}"
        );
    }
}

#[test]
fn a_player_sees_their_own_secrets_and_not_the_enemys() {
    let state = with_secrets();
    let alice = Skyfleet::view(&state, Viewer::Player(PlayerId(1)))
        .lines
        .join("\n");
    assert!(alice.contains("Hawk (Wing): aboard Resolute"), "{alice}");
    assert!(
        alice.contains(
            "Standing orders: initiative SECOND; BRACE Valiant; CHAFF Resolute; REROLL_CRIT {7, 8}"
        ),
        "{alice}"
    );
    assert!(!alice.contains("Falcon"), "{alice}");
    assert!(!alice.contains("COUNTERMEASURES"), "{alice}");
    assert!(!alice.contains("BRACE Tempest"), "{alice}");
    let bob = Skyfleet::view(&state, Viewer::Player(PlayerId(2)))
        .lines
        .join("\n");
    assert!(bob.contains("COUNTERMEASURES Dominion LEFT"), "{bob}");
    assert!(!bob.contains("Hawk"), "{bob}");
    assert!(!bob.contains("CHAFF"), "{bob}");
    let gm = Skyfleet::view(&state, Viewer::Gm).lines.join("\n");
    for all in [
        "Hawk",
        "Falcon",
        "CHAFF Resolute",
        "COUNTERMEASURES Dominion",
    ] {
        assert!(gm.contains(all), "GM view lacks {all:?}");
    }
}

#[test]
fn the_map_is_public_shapes_in_inches_the_same_for_everyone() {
    let state = with_secrets();
    let public = map(&state, Viewer::Public);
    assert_eq!(public, map(&state, Viewer::Player(PlayerId(1))));
    assert_eq!(public, map(&state, Viewer::Gm));
    assert_eq!(public.width, skyfleet::Length::inches(72));
    assert_eq!(public.islands.len(), 2);
    assert_eq!(public.clouds.len(), 1);
    assert_eq!(public.storms.len(), 1);
    assert_eq!(public.zones.len(), 2);
    // Six ships on the table; the two wings are aboard and not drawn.
    assert_eq!(public.units.len(), 6);
    assert!(
        !public
            .units
            .iter()
            .any(|u| u.name == "Hawk" || u.name == "Falcon")
    );
    let json = serde_json::to_value(&public).unwrap();
    assert_eq!(json["islands"][0]["shape"]["circle"]["radius"], 4);
    assert_eq!(json["units"][0]["at"], serde_json::json!([6, 12]));
    let back: MapPicture = serde_json::from_value(json).unwrap();
    assert_eq!(back, public);
    // Nothing secret in the serialised map either.
    let text = serde_json::to_string(&public).unwrap();
    for secret in [
        "brace",
        "chaff",
        "countermeasures",
        "reroll",
        "Hawk",
        "Falcon",
    ] {
        assert!(!text.contains(secret), "map shows {secret:?}");
    }
}

#[test]
fn the_report_and_outcome_speak_of_the_roster() {
    let state = standard();
    assert_eq!(Skyfleet::roster(&state).len(), 2);
    assert_eq!(Skyfleet::turn(&state), 1);
    let outcome = Skyfleet::outcome(&state);
    assert!(!outcome.finished);
    assert!(outcome.winners.is_empty());
    assert_eq!(outcome.standings.len(), 2);
}

#[test]
fn sky_adm_09_the_public_picture_holds_the_table_and_no_wing_aboard() {
    let state = with_secrets();
    let Some(engine::Board::Map(picture)) = Skyfleet::view(&state, Viewer::Public).board else {
        panic!("the public view has a map");
    };
    let json = serde_json::to_string(&picture).unwrap();
    for secret in ["Hawk", "Falcon", "BRACE", "CHAFF", "aboard"] {
        assert!(
            !json.contains(secret),
            "SKY-ADM-09: the picture shows {secret:?}"
        );
    }
    let units: Vec<&engine::MapShape> = picture
        .shapes
        .iter()
        .filter(|s| s.kind == engine::MapKind::Unit)
        .collect();
    assert_eq!(
        units.len(),
        state.units.iter().filter(|u| u.in_play()).count()
    );
    let resolute = units.iter().find(|s| s.label == "Resolute").unwrap();
    let unit = state.units.iter().find(|u| u.name == "Resolute").unwrap();
    assert_eq!(
        resolute.outline,
        engine::Outline::Circle {
            centre: engine::MapPoint {
                x: unit.at.x.hundredths(),
                y: unit.at.y.hundredths()
            },
            radius: unit.radius.hundredths()
        }
    );
    assert_eq!(
        resolute.heading,
        u16::try_from(unit.heading.half_degrees() / 2).ok()
    );
    assert_eq!(
        picture
            .shapes
            .iter()
            .filter(|s| s.kind == engine::MapKind::Zone)
            .count(),
        2
    );
    // The same picture for everyone: nothing on the table is secret.
    for viewer in [Viewer::Player(PlayerId(1)), Viewer::Gm] {
        assert_eq!(
            Skyfleet::view(&state, viewer).board,
            Some(engine::Board::Map(picture.clone()))
        );
    }
}
