//! What each postal player has had on paper (`players.paper_through_turn`): the reports of
//! every turn up to that number. Their next sheet prints every published report after it.

use std::collections::BTreeMap;

use sqlx::PgExecutor;

use crate::StoreError;
use crate::games::GameId;
use crate::players::PlayerRowId;

/// For each player row of the game: the last turn whose report they have had on paper (0:
/// none yet).
pub async fn through_turns<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
) -> Result<BTreeMap<PlayerRowId, i32>, StoreError> {
    let rows = sqlx::query!(
        r#"SELECT id AS "id: PlayerRowId", paper_through_turn FROM players WHERE game_id = $1"#,
        game as GameId,
    )
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(|row| (row.id, row.paper_through_turn))
        .collect())
}

/// Records that the players of `game` among `players` have had every report up to turn
/// `through` on paper; a player already past it is left as is. Returns the players moved on.
pub async fn mark_posted<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
    players: &[PlayerRowId],
    through: i32,
) -> Result<Vec<PlayerRowId>, StoreError> {
    Ok(sqlx::query_scalar!(
        r#"UPDATE players SET paper_through_turn = $3
           WHERE game_id = $1 AND id = ANY($2) AND paper_through_turn < $3
           RETURNING id AS "id: PlayerRowId""#,
        game as GameId,
        players as &[PlayerRowId],
        through,
    )
    .fetch_all(db)
    .await?)
}
