//! "Your game has started": when a game is made, each player it seats is mailed, in the same
//! transaction, the game and its rules, their seat and the public roster, the open turn and its
//! deadline, their own position (the engine's view for their seat only) and how to order, from
//! their personal reply address (docs/rosters.md).

use chrono::{DateTime, Utc};
use engine::{SeatPlan, Viewer};
use games::{AnyState, EngineKind};
use store::games::GameId;
use store::outbox::{Headers, NewOutbound};

use super::{LifecycleError, player_id};
use crate::letters::started::GameStarted;
use crate::letters::{self, MailSite};

/// A game just made, as its start mails need it.
pub(crate) struct Started<'a> {
    pub game: GameId,
    pub name: &'a str,
    pub engine: EngineKind,
    pub plan: &'a SeatPlan,
    pub state: &'a AnyState,
    pub turn: u32,
    /// The open turn's deadline, written in the game's time zone.
    pub deadline: Option<String>,
}

/// Queues one start mail per player of the game, once (keyed by game and player).
pub(crate) async fn queue_start_mails(
    tx: &mut sqlx::PgConnection,
    now: DateTime<Utc>,
    started: &Started<'_>,
    site: MailSite<'_>,
) -> Result<u64, LifecycleError> {
    let players = store::players::of_game(&mut *tx, started.game).await?;
    let roster = store::players::roster(&mut *tx, started.game).await?;
    let seat_of = |engine_player_id: i64| -> Option<&str> {
        let seat = roster
            .iter()
            .find(|row| row.engine_player_id == engine_player_id)?
            .seat?;
        started.plan.seat_name(usize::try_from(seat).ok()?)
    };
    let order_help = started.state.order_help();
    let rules_url = format!("{}/rules/{}", site.base_url, started.engine.name());
    let mut queued = 0;
    for player in &players {
        let seat = seat_of(player.engine_player_id);
        let others = || {
            players
                .iter()
                .filter(|other| other.id != player.id)
                .map(|other| (other, seat_of(other.engine_player_id)))
        };
        let position = started
            .state
            .view(Viewer::Player(player_id(player.engine_player_id)))
            .lines;
        let letter = letters::started::game_started(&GameStarted {
            game: started.name,
            player: &player.display_name,
            rules_title: started.engine.title(),
            rules_url: rules_url.clone(),
            seat,
            fellows: others()
                .filter(|(_, other_seat)| seat.is_some() && *other_seat == seat)
                .map(|(other, _)| other.display_name.as_str())
                .collect(),
            others: others()
                .filter(|(_, other_seat)| seat.is_none() || *other_seat != seat)
                .map(|(other, other_seat)| (other.display_name.as_str(), other_seat))
                .collect(),
            turn: started.turn,
            deadline: started.deadline.clone(),
            position: &position,
            order_help: &order_help,
        });
        let key = format!("started:{}:{}", started.game.0, player.id.0);
        let message_id = format!(
            "<started.{}.{}@{}>",
            started.game.0, player.id.0, site.domain
        );
        let headers = Headers::reply_to(letters::reply_address(&player.reply_token, site.domain));
        queued += u64::from(
            store::outbox::enqueue(
                &mut *tx,
                &NewOutbound {
                    message_id: &message_id,
                    idempotency_key: &key,
                    to_address: &player.email,
                    subject: &letter.subject,
                    body_text: &letter.body,
                    body_html: None,
                    headers: &headers,
                },
                now,
            )
            .await?,
        );
    }
    Ok(queued)
}
