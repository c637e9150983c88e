//! Who wrote a message: the personal reply token, else the subscribed From address with a
//! matching PASSWORD line. A From: header alone proves nothing.

use mail::Reading;
use store::players::TokenHolder;
use store::subscribers::SubscriberId;

use super::Batch;
use crate::turns::LifecycleError;

/// Who a message is from, once proven: a subscriber, with the games they play.
pub(super) struct Sender {
    pub subscriber: SubscriberId,
    pub email: String,
    /// The subscriber's player rows, one per game.
    pub games: Vec<TokenHolder>,
    /// The game lines without a GAME line are for: the reply address's game, or the player's
    /// only running game.
    pub default: Option<TokenHolder>,
    pub proof: Proof,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Proof {
    /// The personal reply address: a PASSWORD line in it sets the password.
    ReplyToken,
    /// A PASSWORD line, from the subscribed address.
    Password,
}

/// Proves who wrote: the reply token, else the From address with a matching PASSWORD.
/// `Err` says why not, for the reply.
pub(super) async fn identify(
    tx: &mut sqlx::PgConnection,
    batch: &Batch,
    reading: &Reading,
    from: &str,
) -> Result<Result<Sender, String>, LifecycleError> {
    if let Some(token) = &reading.token {
        let games = match batch.holders_by_token.get(token.as_str()) {
            Some(games) => games.clone(),
            None => store::players::player_rows_of_token(&mut *tx, token.as_str()).await?,
        };
        let Some(holder) = games
            .iter()
            .find(|g| g.reply_token == token.as_str())
            .cloned()
        else {
            return Ok(Err(
                "the reply address you wrote to is not one Admiralty gave out (or no longer is)."
                    .into(),
            ));
        };
        return Ok(Ok(Sender {
            subscriber: holder.subscriber_id,
            email: holder.email.clone(),
            games,
            default: Some(holder),
            proof: Proof::ReplyToken,
        }));
    }
    let Some(password) = reading.commands.password() else {
        return Ok(Err(
            "Admiralty could not tell which game and player your message is for.".into(),
        ));
    };
    let candidates = store::subscribers::with_password_by_email(&mut *tx, from).await?;
    let password = password.expose_secret().to_owned();
    // Argon2 takes tens of milliseconds of CPU: not on the async threads.
    let matching = tokio::task::spawn_blocking(move || {
        candidates
            .into_iter()
            .find(|(_, hash)| crate::web::password::verify(hash, &password))
            .map(|(id, _)| id)
    })
    .await
    .map_err(|e| LifecycleError::Inconsistent {
        game: 0,
        reason: format!("the password check stopped: {e}"),
    })?;
    let Some(subscriber) = matching else {
        return Ok(Err(
            "the password does not match the one set for this address (or none is set).".into(),
        ));
    };
    let games = store::players::player_rows_of_subscriber(&mut *tx, subscriber).await?;
    let mut playing = games.iter().filter(|g| crate::turns::may_play(g).is_ok());
    let default = match (playing.next(), playing.next()) {
        (Some(only), None) => Some(only.clone()),
        _ => None,
    };
    let email = games
        .first()
        .map_or_else(|| from.to_owned(), |g| g.email.clone());
    Ok(Ok(Sender {
        subscriber,
        email,
        games,
        default,
        proof: Proof::Password,
    }))
}

impl Sender {
    /// The player row that lines under `game` (a GAME line's name, or none) are for.
    pub fn game(&self, game: Option<&str>) -> Result<&TokenHolder, String> {
        let found = match game {
            None => self.default.as_ref(),
            Some(name) => self
                .games
                .iter()
                .find(|g| g.game_name.trim().eq_ignore_ascii_case(name.trim())),
        };
        found.ok_or_else(|| {
            let names: Vec<&str> = self.games.iter().map(|g| g.game_name.as_str()).collect();
            let yours = if names.is_empty() {
                "you play in no game yet".to_owned()
            } else {
                format!("your games: {}", names.join(", "))
            };
            match game {
                None => {
                    format!("which game is this for? Put a line GAME <name> before it ({yours}).")
                }
                Some(name) => format!("you play in no game called \"{name}\" ({yours})."),
            }
        })
    }
}
