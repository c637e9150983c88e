//! "Your game has started": when a game is made, each player it seats is mailed, in the same
//! transaction, the game and its rules, their seat and the public roster, the open turn and its
//! deadline, their own position (the engine's view for their seat only) and how to order, from
//! their personal reply address (docs/rosters.md).

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use engine::{SeatPlan, Viewer};
use games::{AnyState, EngineKind};
use store::games::GameId;
use store::players::PlayerRowId;
use store::subscribers::ListReader;

use super::{LifecycleError, player_id};
use crate::letters::started::GameStarted;
use crate::letters::{self, MailSite};
use crate::outbox::post::{Posting, post_each};

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

/// Games of more players than this count the others in each start mail instead of naming them.
const MOST_NAMED: usize = 24;

/// Queues one start mail per player of the game, once (keyed by game and player).
pub(crate) async fn queue_start_mails(
    tx: &mut sqlx::PgConnection,
    now: DateTime<Utc>,
    started: &Started<'_>,
    site: MailSite<'_>,
) -> Result<u64, LifecycleError> {
    let players = store::players::of_game(&mut *tx, started.game).await?;
    let seats: HashMap<i64, usize> = store::players::roster(&mut *tx, started.game)
        .await?
        .into_iter()
        .filter_map(|row| Some((row.engine_player_id, usize::try_from(row.seat?).ok()?)))
        .collect();
    let seat_of = |engine_player_id: i64| -> Option<&str> {
        started.plan.seat_name(*seats.get(&engine_player_id)?)
    };
    let order_help = started.state.order_help();
    let rules_url = format!("{}/rules/{}", site.base_url, started.engine.name());
    // A big Barmy game seats the whole zine: its mails count the others instead of naming
    // thousands of them in each.
    let name_others = players.len() <= MOST_NAMED;
    let readers = list_readers(&mut *tx, started.game).await?;
    let mut mails = Vec::with_capacity(players.len());
    for player in &players {
        let seat = seat_of(player.engine_player_id);
        let others: Vec<(&str, Option<&str>)> = if name_others {
            players
                .iter()
                .filter(|other| other.id != player.id)
                .map(|other| (other.display_name.as_str(), seat_of(other.engine_player_id)))
                .collect()
        } else {
            Vec::new()
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
            fellows: others
                .iter()
                .filter(|(_, other_seat)| seat.is_some() && *other_seat == seat)
                .map(|(name, _)| *name)
                .collect(),
            others: others
                .iter()
                .filter(|(_, other_seat)| seat.is_none() || *other_seat != seat)
                .copied()
                .collect(),
            others_count: players.len().saturating_sub(1),
            turn: started.turn,
            deadline: started.deadline.clone(),
            position: &position,
            order_help: &order_help,
        });
        mails.push(Posting {
            to: player.email.clone(),
            letter,
            html: None,
            headers: letters::lists::to_many(site, readers.get(&player.id), &player.reply_token),
            key: format!("started:{}:{}", started.game, player.id),
            message_id: format!("<started.{}.{}@{}>", started.game, player.id, site.domain),
        });
    }
    Ok(post_each(tx, &mails, now).await?)
}

/// The `List-*` headers' facts for each player of a game (reminders and start mail go to many).
pub(crate) async fn list_readers(
    db: &mut sqlx::PgConnection,
    game: GameId,
) -> Result<HashMap<PlayerRowId, ListReader>, LifecycleError> {
    Ok(store::subscribers::list_readers_of_game(db, game)
        .await?
        .into_iter()
        .map(|reader| (reader.player, reader))
        .collect())
}
