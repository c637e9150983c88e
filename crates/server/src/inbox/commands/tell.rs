//! TELL: private messages between players of a game, relayed by Admiralty.

use store::audit::AuditAction;
use store::outbox::Headers;
use store::players::TokenHolder;
use store::status::PlayerStatus;

use super::Context;
use crate::inbox::audit;
use crate::inbox::budget::{self, Relay, Relayed};
use crate::letters::{self, replies};
use crate::limits::Budgeted;
use crate::outbox::post::Posting;
use crate::turns::LifecycleError;

/// TELL: relays a private message to another player of the same game, from Admiralty's
/// address, so that no one learns another's address. Returns the line for the confirmation.
pub(super) async fn tell(
    cx: &mut Context<'_, '_>,
    from: &TokenHolder,
    line: usize,
    to: &str,
    text: &str,
) -> Result<String, LifecycleError> {
    let wanted = to.trim();
    if let Some(refused) = too_long(cx, from, line, wanted, text).await? {
        return Ok(refused);
    }
    if let Some(over) = cx.tells_spent {
        budget::audit_tell_over(cx.tx, from, wanted, &over, cx.now).await?;
        return Ok(replies::tell_not_relayed(line, wanted, &over));
    }
    let players = store::players::player_rows_of_game(&mut *cx.tx, from.game_id).await?;
    let roster: Vec<(&str, i64, bool)> = players
        .iter()
        .map(|p| {
            let active = p.status == PlayerStatus::Active && p.player_id != from.player_id;
            (p.display_name.as_str(), p.engine_player_id, active)
        })
        .collect();
    let recipient = super::tell_names::named(&roster, wanted).and_then(|i| players.get(i));
    let Some(recipient) = recipient.filter(|p| p.status == PlayerStatus::Active) else {
        let names: Vec<String> = players
            .iter()
            .filter(|p| p.status == PlayerStatus::Active && p.player_id != from.player_id)
            .map(|p| format!("{} ({})", p.display_name, p.engine_player_id))
            .collect();
        return Ok(replies::tell_no_such_player(
            line,
            wanted,
            &from.game_name,
            &names,
        ));
    };
    if recipient.player_id == from.player_id {
        return Ok(replies::tell_to_yourself(line));
    }
    relay(cx, from, recipient, line, text).await
}

/// The refusal of a TELL longer than `ADMIRALTY_TELL_MAX_CHARS`, audited; `None` if it is not.
async fn too_long(
    cx: &mut Context<'_, '_>,
    from: &TokenHolder,
    line: usize,
    wanted: &str,
    text: &str,
) -> Result<Option<String>, LifecycleError> {
    let max = cx.settings.limits.tell_max_chars;
    let length = text.chars().count();
    if length <= usize::try_from(max).unwrap_or(usize::MAX) {
        return Ok(None);
    }
    let action = AuditAction::TellTooLong {
        from_player: from.player_id,
        to: wanted.to_owned(),
        limit: "ADMIRALTY_TELL_MAX_CHARS",
        allowed: max,
        characters: length,
    };
    audit(cx.tx, Some(from.game_id), action, cx.now).await?;
    Ok(Some(replies::tell_too_long(line, wanted, length, max)))
}

/// Queues the TELL to its recipient within the sender's budgets; returns the confirmation line.
async fn relay(
    cx: &mut Context<'_, '_>,
    from: &TokenHolder,
    recipient: &TokenHolder,
    line: usize,
    text: &str,
) -> Result<String, LifecycleError> {
    let inbound_id = cx.batch.message_key(cx.reading);
    let domain = cx.settings.domain.as_str();
    let letter = replies::relayed_tell(&from.display_name, &from.game_name, text);
    let relay = Relay {
        mail: Posting::once(
            "tell",
            &format!("{inbound_id}|tell|{line}"),
            domain,
            &recipient.email,
            letter,
        )
        .with_headers(Headers::reply_to(letters::reply_address(
            &recipient.reply_token,
            domain,
        ))),
        sender: from.subscriber_id,
        game: from.game_id,
        from_player: from.player_id,
        to_player: recipient.player_id,
    };
    Ok(
        match budget::relay_tell(cx.tx, &relay, cx.settings, cx.now).await? {
            Relayed::Queued => replies::tell_relayed(line, &recipient.display_name),
            Relayed::Over(over) => {
                if over.budget == Budgeted::TellsSent {
                    cx.tells_spent = Some(over);
                }
                replies::tell_not_relayed(line, &recipient.display_name, &over)
            }
            Relayed::Unanswerable => replies::tell_unanswerable(line, &recipient.display_name),
        },
    )
}
