//! A reply to a relayed TELL (issue 27): what the player wrote goes back to the TELL's sender
//! as a TELL, never into orders. The message came to the TELL's relay address, or named the
//! relayed mail in In-Reply-To (`inbox::identify`); either way its sender was proven as for
//! orders.

use std::collections::BTreeSet;

use mail::Reading;
use store::status::PlayerStatus;
use store::tells::Conversation;

use super::{Context, tell};
use crate::letters::{self, tells};
use crate::turns::{self, LifecycleError};

/// Relays the reply to the conversation's counterpart, within the TELL limits and budgets;
/// returns the paragraph of the confirmation, or none when the message holds only commands
/// (a `TELL Cora: …` line is carried out as the command it is).
pub(crate) async fn answer_tell(
    cx: &mut Context<'_, '_>,
    conversation: &Conversation,
) -> Result<Option<String>, LifecycleError> {
    let Some((line, text)) = reply_text(cx.reading) else {
        let only_commands = !cx.reading.commands.commands.is_empty();
        return Ok((!only_commands).then(tells::reply_empty));
    };
    if let Some(earlier) = cx.copy_of {
        return Ok(Some(letters::copies::not_again(line, earlier)));
    }
    let sender = cx.sender;
    let holder = sender
        .games
        .iter()
        .find(|g| g.player_id == conversation.holder.player);
    let Some(holder) = holder else {
        let why = "you no longer hold the seat it was sent to";
        return Ok(Some(tells::reply_not_relayed(line, None, &why, &text)));
    };
    if let Err(why) = turns::may_play(holder) {
        return Ok(Some(tells::reply_not_relayed(line, None, &why, &text)));
    }
    let players = store::players::player_rows_of_game(&mut *cx.tx, holder.game_id).await?;
    // The seat's holder when the TELL was sent: a standby who took the seat since is someone
    // else.
    let counterpart = players.iter().find(|p| {
        p.player_id == conversation.counterpart.player
            && p.subscriber_id == conversation.counterpart.subscriber
    });
    let counterpart = match counterpart {
        Some(p) if p.status == PlayerStatus::Active => p,
        Some(p) => {
            let why = format!("{} has left {} ({})", p.display_name, p.game_name, p.status);
            let name = Some(p.display_name.as_str());
            return Ok(Some(tells::reply_not_relayed(line, name, &why, &text)));
        }
        None => {
            let why = format!(
                "the player you are answering no longer plays in {}",
                holder.game_name
            );
            return Ok(Some(tells::reply_not_relayed(line, None, &why, &text)));
        }
    };
    let name = counterpart.display_name.as_str();
    let heading = tells::reply_heading(name, &holder.game_name);
    let outcome = match tell::refused_before_relay(cx, holder, line, name, &text).await? {
        Some(refused) => refused,
        None => tell::relay(cx, holder, counterpart, line, &text).await?,
    };
    Ok(Some(format!("{heading}\n{outcome}")))
}

/// What a reply passes on, and its first line's number: the lines the player wrote that are
/// neither commands nor under a GAME line (quotes, "On … wrote:", signatures and the pasted
/// original are already left out by `mail::quotes`), with one blank line between paragraphs.
fn reply_text(reading: &Reading) -> Option<(usize, String)> {
    let chat: BTreeSet<usize> = reading
        .commands
        .orders
        .iter()
        .filter(|order| order.game.is_none())
        .map(|order| order.line)
        .collect();
    let mut first = None;
    let mut kept: Vec<&str> = Vec::new();
    for line in &reading.text.lines {
        if chat.contains(&line.number) {
            first.get_or_insert(line.number);
            kept.push(line.text.trim_end());
        } else if line.text.trim().is_empty() && kept.last().is_some_and(|l| !l.is_empty()) {
            kept.push("");
        }
    }
    while kept.last().is_some_and(|l| l.is_empty()) {
        kept.pop();
    }
    Some((first?, kept.join("\n")))
}
