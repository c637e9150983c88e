//! The turn lifecycle, by capability: starting a game ([`create`]), taking orders and press
//! ([`orders`]), resolving due turns ([`resolve`]), reminders ([`reminders`]), the GM's actions
//! ([`gm`]) and replaying published turns ([`verify`]).
//!
//! Exactly once comes from the database, not from memory: a due turn is claimed with
//! `FOR UPDATE SKIP LOCKED`, and its resolution, report, revealed seed, next turn and queued mail
//! are written in that one transaction. A process killed before the commit leaves the turn as it
//! was; after the commit the turn is no longer open, so nobody claims it again.
//!
//! Every statement is in `store`; a game's state is read into a typed [`games::AnyState`] once
//! per resolution or request, and the open turns' states once per process ([`states`]).

pub mod absences;
pub mod create;
pub mod gm;
pub mod missed;
mod open_turns;
pub mod orders;
pub mod press;
pub mod record;
pub mod reminders;
pub mod resolve;
mod started;
pub mod states;
pub mod strike;
pub mod verify;

use engine::TurnInput;
use games::{AnyOrders, EngineKind, PressItem};
use store::turns::TurnId;

pub use crate::entropy::{Entropy, OsEntropy};
pub use crate::lifecycle::{LifecycleError, game_state, player_id};
use crate::lifecycle::{game_secret, turn_number};
pub use create::{
    Creation, GameSpec, Roster, RosterPick, create_game, create_game_as, create_game_with,
};
pub(crate) use gm::schedule_of_in;
pub use gm::{GmAction, delete_game, gm_action, schedule_of, set_schedule};
pub use open_turns::{OpenTurn, OpenTurns};
pub use orders::{
    PressTaken, Submission, Taken, may_play, press_for_open_turn, send_press, submit_orders,
    submit_orders_in, submit_web_orders,
};
pub use press::{audit_withdrawal, replace_press, withdraw_press, withdraw_press_in};
pub use reminders::{ReminderRound, send_due_reminders};
pub use resolve::{ResolvedTurn, resolve_due};
pub use schedule::{Schedule, ScheduleError, ScheduleSettings, Weekly};
pub use states::StateCache;
pub use verify::{TurnCheck, preview_turn, verify_game};

/// A turn's input as recorded: the orders that count, who had left and joined, and the press
/// in the order received. Resolution, the GM's preview and `gm verify` all read it here, so a
/// replay sees what the resolution saw.
async fn recorded_input(
    db: &mut sqlx::PgConnection,
    engine: EngineKind,
    turn: TurnId,
) -> Result<(TurnInput<AnyOrders>, Vec<PressItem>), LifecycleError> {
    let mut input = TurnInput::default();
    for (player, orders) in store::orders::current_orders(&mut *db, turn, engine).await? {
        input.orders.insert(player_id(player), orders);
    }
    input.leaving = store::turns::leaving(&mut *db, turn)
        .await?
        .into_iter()
        .map(player_id)
        .collect();
    input.joining = store::turns::joining(&mut *db, turn).await?;
    input.excused = store::absences::excused(&mut *db, turn)
        .await?
        .into_iter()
        .map(player_id)
        .collect();
    input.renames = store::turns::renaming(&mut *db, turn).await?;
    let press = store::orders::turn_press(&mut *db, turn)
        .await?
        .into_iter()
        .map(|(player, text)| PressItem {
            player: player_id(player),
            text,
        })
        .collect();
    Ok((input, press))
}
