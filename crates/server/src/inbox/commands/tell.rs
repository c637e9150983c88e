//! TELL: private messages between players of a game, relayed by Admiralty.

use store::audit::AuditAction;
use store::outbox::Headers;
use store::players::TokenHolder;
use store::status::PlayerStatus;
use store::tells::Side;

use super::Context;
use crate::entropy::{OsEntropy, new_reply_token};
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
    if let Some(refused) = refused_before_relay(cx, from, line, wanted, text).await? {
        return Ok(refused);
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

/// The refusal of a TELL too long, or past the budget this message already spent (audited);
/// `None` when it may be relayed.
pub(super) async fn refused_before_relay(
    cx: &mut Context<'_, '_>,
    from: &TokenHolder,
    line: usize,
    wanted: &str,
    text: &str,
) -> Result<Option<String>, LifecycleError> {
    if let Some(refused) = too_long(cx, from, line, wanted, text).await? {
        return Ok(Some(refused));
    }
    if let Some(over) = cx.tells_spent {
        budget::audit_tell_over(cx.tx, from, wanted, &over, cx.now).await?;
        return Ok(Some(replies::tell_not_relayed(line, wanted, &over)));
    }
    Ok(None)
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
/// Its Reply-To is the recipient's relay address for answering the sender (`store::tells`),
/// and its Message-ID is recorded, so that a reply to it is relayed back, never read as orders.
pub(super) async fn relay(
    cx: &mut Context<'_, '_>,
    from: &TokenHolder,
    recipient: &TokenHolder,
    line: usize,
    text: &str,
) -> Result<String, LifecycleError> {
    let inbound_id = cx.batch.message_key(cx.reading);
    let domain = cx.settings.domain.as_str();
    let conversation = store::tells::conversation(
        &mut *cx.tx,
        Side {
            player: recipient.player_id,
            subscriber: recipient.subscriber_id,
        },
        Side {
            player: from.player_id,
            subscriber: from.subscriber_id,
        },
        &new_reply_token(&mut OsEntropy),
        cx.now,
    )
    .await?;
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
            &conversation.reply_token,
            domain,
        ))),
        sender: from.subscriber_id,
        game: from.game_id,
        from_player: from.player_id,
        to_player: recipient.player_id,
    };
    Ok(
        match budget::relay_tell(cx.tx, &relay, cx.settings, cx.now).await? {
            Relayed::Queued => {
                let message_id = relay.mail.message_id.trim_matches(['<', '>']);
                store::tells::record_relayed(&mut *cx.tx, message_id, conversation.id, cx.now)
                    .await?;
                replies::tell_relayed(line, &recipient.display_name)
            }
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
