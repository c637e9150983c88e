//! The roster part of the new-game form: which subscribers play, and in which seat. Barmy has
//! none (every subscriber plays, BARMY-02); the other engines' seats come from their setup.

use engine::SeatPlan;
use games::{AnySetup, EngineKind};
use store::status::{Seating, SubscriberStatus};
use store::subscribers::{Subscriber, SubscriberId};

use super::field;
use crate::turns::{Roster, RosterPick};

/// The form's value for "does not play".
const NOT_PLAYING: &str = "";

/// One choice in a subscriber's seat list.
pub(super) struct SeatOption {
    pub value: String,
    pub label: String,
}

/// One active subscriber's line in the roster form.
pub(super) struct RosterLine {
    pub subscriber: SubscriberId,
    pub name: String,
    /// The option chosen: [`NOT_PLAYING`] or a seat's index.
    pub chosen: String,
}

/// The roster part of the form, for an engine whose games have their own players.
pub(super) struct RosterForm {
    pub options: Vec<SeatOption>,
    pub lines: Vec<RosterLine>,
    /// The seats in words, for the form's explanation.
    pub plan: String,
    /// The sign-up's seat count as typed, or the most the engine seats.
    pub signup_seats: String,
    pub seating: String,
}

/// The roster form for `engine` with `setup`'s seats; the GM's entries when the form comes
/// back with errors, else a first suggestion ([`SeatPlan::deal`]).
pub(super) fn roster_form(
    setup: &AnySetup,
    subscribers: &[Subscriber],
    entered: Option<&[(String, String)]>,
) -> Option<RosterForm> {
    if setup.kind() == EngineKind::Barmy {
        return None;
    }
    let plan = setup.seat_plan();
    let options: Vec<SeatOption> = match &plan {
        SeatPlan::OnePerPlayer { .. } => vec![SeatOption {
            value: "0".into(),
            label: "plays".into(),
        }],
        SeatPlan::Named { seats } => seats
            .iter()
            .enumerate()
            .map(|(index, seat)| SeatOption {
                value: index.to_string(),
                label: seat.name.clone(),
            })
            .collect(),
    };
    let active: Vec<&Subscriber> = subscribers
        .iter()
        .filter(|s| s.status == SubscriberStatus::Active)
        .collect();
    // The first suggestion: seats dealt in turn while they have room.
    let dealt = plan.deal(active.len());
    let lines = active
        .iter()
        .zip(dealt)
        .map(|(s, dealt)| RosterLine {
            subscriber: s.id,
            name: s.display_name.as_str().to_owned(),
            chosen: match entered {
                Some(pairs) => field(pairs, &format!("roster.{}", s.id)).to_owned(),
                None => dealt.map_or_else(|| NOT_PLAYING.to_owned(), |seat| seat.to_string()),
            },
        })
        .collect();
    let typed = |name: &str| entered.map(|pairs| field(pairs, name).to_owned());
    Some(RosterForm {
        signup_seats: typed("signup_seats").unwrap_or_else(|| {
            plan.most_players()
                .unwrap_or_else(|| plan.fewest_players())
                .to_string()
        }),
        seating: typed("seating").unwrap_or_else(|| "order".into()),
        plan: plan_in_words(&plan),
        options,
        lines,
    })
}

fn plan_in_words(plan: &SeatPlan) -> String {
    match plan {
        SeatPlan::OnePerPlayer { min, max: None } => {
            format!("Every player commands their own fleet; at least {min} players.")
        }
        SeatPlan::OnePerPlayer {
            min,
            max: Some(max),
        } => {
            format!("Every player commands their own fleet; {min} to {max} players.")
        }
        SeatPlan::Named { seats } => {
            let seats: Vec<String> = seats
                .iter()
                .map(|s| match s.captains {
                    1 => format!("{} (1 player)", s.name),
                    n => format!("{} (1 to {n} captains)", s.name),
                })
                .collect();
            format!("Seats: {}. Every seat needs a player.", seats.join(", "))
        }
    }
}

/// The sign-up the form asks for, when its "Open for sign-up" button was pressed: the seat
/// count and how seats are given.
pub(super) fn signup_from_form(
    pairs: &[(String, String)],
) -> Option<Result<(u32, Seating), String>> {
    if field(pairs, "start") != "signup" {
        return None;
    }
    let seats = field(pairs, "signup_seats").trim();
    let Ok(seats) = seats.parse::<u32>() else {
        return Some(Err(format!("Seats: a number is needed, not {seats:?}.")));
    };
    let Ok(seating) = field(pairs, "seating").parse::<Seating>() else {
        return Some(Err("Seats given: choose how the seats are given.".into()));
    };
    Some(Ok((seats, seating)))
}

/// The roster the form chose: the GM's picks when the form has a roster part (a hidden
/// `roster` field says so), every active subscriber otherwise (a form without one, as Barmy's).
pub(super) fn roster_from_form(pairs: &[(String, String)]) -> Result<Roster, String> {
    if field(pairs, "roster") != "chosen" {
        return Ok(Roster::EveryActiveSubscriber);
    }
    let mut picks = Vec::new();
    for (name, value) in pairs {
        let Some(id) = name.strip_prefix("roster.") else {
            continue;
        };
        if value == NOT_PLAYING {
            continue;
        }
        let subscriber = id
            .parse::<SubscriberId>()
            .map_err(|_| format!("Players: {id:?} is not a subscriber."))?;
        let seat = value
            .parse::<u32>()
            .map_err(|_| format!("Players: {value:?} is not a seat."))?;
        picks.push(RosterPick { subscriber, seat });
    }
    if picks.is_empty() {
        return Err("Players: choose who plays (at least one seat each).".into());
    }
    Ok(Roster::Chosen(picks))
}
