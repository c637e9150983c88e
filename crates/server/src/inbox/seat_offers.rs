//! ACCEPT and DECLINE: a standby's answer to the offer of a seat (docs/rosters.md).

use chrono::{DateTime, Utc};

use super::identify::Sender;
use crate::letters::offers as words;
use crate::offers::{self, Answer};
use crate::turns::LifecycleError;

/// Where an answer is given: the message's transaction, its proven sender, the time, and the
/// domain of Admiralty's addresses.
pub(super) struct Answering<'a, 'c> {
    pub tx: &'c mut sqlx::PgConnection,
    pub sender: &'a Sender,
    pub now: DateTime<Utc>,
    pub domain: &'a str,
}

/// Answers the offer the message is about: the one whose reply address it came to, else the
/// sender's only open offer (of the GAME line's game, when there is one).
pub(super) async fn answer(
    cx: Answering<'_, '_>,
    line: usize,
    game: Option<&str>,
    answer: Answer,
) -> Result<String, LifecycleError> {
    let word = match answer {
        Answer::Accept => "ACCEPT",
        Answer::Decline => "DECLINE",
    };
    let open = store::offers::open_to_subscriber(&mut *cx.tx, cx.sender.subscriber).await?;
    let named = |name: &str, offer: &store::offers::Offer| {
        offer.game_name.trim().eq_ignore_ascii_case(name.trim())
    };
    let offer = match (cx.sender.offer, game) {
        (Some(offer), None) => offer,
        (_, game) => {
            let candidates: Vec<_> = open
                .iter()
                .filter(|offer| game.is_none_or(|name| named(name, offer)))
                .collect();
            match candidates.as_slice() {
                [only] => only.id,
                [] => return Ok(words::none_offered(line, word, game)),
                several => {
                    let mut names: Vec<&str> =
                        several.iter().map(|o| o.game_name.as_str()).collect();
                    names.dedup();
                    return Ok(words::which_offer(line, word, several.len(), &names));
                }
            }
        }
    };
    Ok(offers::answer_in(
        &mut *cx.tx,
        cx.now,
        offer,
        cx.sender.subscriber,
        answer,
        store::audit::Via::Mail,
        cx.domain,
    )
    .await?
    .words()
    .to_owned())
}
