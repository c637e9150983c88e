//! The command line's side of missed turns and offers (`crate::offers`).

use store::PgPool;
use store::games::GameId;
use store::subscribers::SubscriberId;

use crate::offers::{self, Want, WantedSeat};

/// A seat that wants a player, in a line.
pub(super) fn wanted_line(seat: &WantedSeat) -> String {
    match seat.want {
        Want::Resigned => format!("{} (resigned)", seat.name),
        Want::OfferedByGm => format!("{} (still playing; offered by the GM)", seat.name),
        Want::Missed { turns, limit } => {
            format!(
                "{} (missed {turns} in a row; the limit is {limit})",
                seat.name
            )
        }
    }
}

/// Offers the seat of `player` (a name, or the engine's player id) to `subscriber`.
/// The player row named by `player` (their name or the engine's id), or the players listed.
async fn seat_named(
    pool: &PgPool,
    game: GameId,
    player: &str,
) -> anyhow::Result<store::players::PlayerRowId> {
    let wanted = player.trim();
    let players = store::players::of_game(pool, game).await?;
    let Some(row) = players.iter().find(|p| {
        p.display_name.trim().eq_ignore_ascii_case(wanted)
            || p.engine_player_id.to_string() == wanted
    }) else {
        let known: Vec<String> = players
            .iter()
            .map(|p| format!("{} ({})", p.display_name, p.engine_player_id))
            .collect();
        anyhow::bail!("no player \"{wanted}\" (its players: {})", known.join(", "));
    };
    Ok(row.id)
}

pub(super) async fn offer(
    pool: &PgPool,
    now: chrono::DateTime<chrono::Utc>,
    game: GameId,
    player: &str,
    subscriber: SubscriberId,
    domain: &str,
) -> anyhow::Result<String> {
    let row = seat_named(pool, game, player).await?;
    Ok(offers::offer_seat(pool, now, game, row, subscriber, "gm", domain).await?)
}

/// `gm game GAME reinstate PLAYER`: takes back a resignation while the fleet is in the battle.
pub(super) async fn reinstate(
    pool: &PgPool,
    now: chrono::DateTime<chrono::Utc>,
    game: GameId,
    player: &str,
    domain: &str,
) -> anyhow::Result<String> {
    let row = seat_named(pool, game, player).await?;
    Ok(crate::rosters::resign::reinstate(pool, now, game, row, "gm", domain).await?)
}
