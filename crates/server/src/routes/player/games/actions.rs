//! The forms on a player's game page: orders and press. A refused form comes back on the
//! page ([`refused`]) with what was typed and why.

use axum::extract::State;
use axum::response::{IntoResponse, Redirect, Response};
use serde::Deserialize;

use super::super::Player;
use super::super::issues::IssueView;
use super::page::{FormState, SetOutcome, SubmittedLine, judged, refused};
use super::{game_url, internal, own_game};
use crate::letters::verdict::{Entry, Verdict};
use crate::limits::PressVerdict;
use crate::turns::{self, LifecycleError};
use crate::web::Path;
use crate::web::csrf::CsrfForm;
use crate::{AppError, AppState};

/// Text from a browser's textarea, with its CRLF line ends made plain, as mail's are.
fn textarea(text: &str) -> String {
    text.replace("\r\n", "\n").replace('\r', "\n")
}

#[derive(Debug, Deserialize)]
pub(crate) struct OrdersForm {
    #[serde(default)]
    orders: String,
}

pub(crate) async fn post_orders(
    State(state): State<AppState>,
    Path(game): Path<String>,
    player: Player,
    CsrfForm(form): CsrfForm<OrdersForm>,
) -> Result<Response, AppError> {
    let holder = own_game(&state, &player, &game).await?;
    let text = textarea(&form.orders);
    let refuse = |why: String| FormState {
        orders: Some(text.clone()),
        orders_error: Some(why),
        ..FormState::default()
    };
    if text.trim().is_empty() {
        let why = "No orders were written, so nothing was changed.".to_owned();
        return refused(&state, &player, &holder, refuse(why)).await;
    }
    if let Err(why) = turns::may_play(&holder) {
        return refused(&state, &player, &holder, refuse(why)).await;
    }
    let outcome = turns::submit_web_orders(
        &state.pool,
        &state.states,
        state.clock.now(),
        &holder,
        &text,
        state.limits.press,
        &state.mail_domain,
    )
    .await;
    let taken = match outcome {
        Ok(taken) => taken,
        Err(
            error @ (LifecycleError::DeadlinePassed(_)
            | LifecycleError::NoOpenTurn(_)
            | LifecycleError::LaterOrdersStand),
        ) => {
            let why = format!("Your orders were NOT accepted: {error}.");
            return refused(&state, &player, &holder, refuse(why)).await;
        }
        Err(error) => return Err(internal(error)),
    };
    let verdict = Verdict::new(&taken.parsed, taken.stored);
    let entries = verdict.entries();
    if taken.stored && entries.is_empty() {
        let done = if !taken.press.iter().all(|p| p.verdict == PressVerdict::Kept) {
            "orders-press-cut"
        } else if taken.press_withdrawn > 0 {
            "orders-press-withdrawn"
        } else {
            "orders"
        };
        return Ok(
            Redirect::to(&format!("{}?done={done}", game_url(holder.game_id))).into_response(),
        );
    }
    // The same verdict as mail's, line by line: the page shows it beside the text as typed.
    let headline = format!(
        "{} {}",
        verdict.headline(&holder.game_name),
        verdict.closing()
    );
    let mut form = judged_set(&text, &entries, headline);
    form.orders_outcome = match (taken.stored, taken.parsed.errors.is_empty()) {
        (false, _) => SetOutcome::NotStored,
        (true, false) => SetOutcome::StoredWithRefusals,
        (true, true) => SetOutcome::Stored,
    };
    if taken.stored {
        judged(&state, &player, &holder, form).await
    } else {
        refused(&state, &player, &holder, form).await
    }
}

/// The form of a judged set: the text as typed, each line with what the verdict says of it,
/// and what it says of no line of it apart.
fn judged_set(text: &str, entries: &[Entry], headline: String) -> FormState {
    let issues: Vec<IssueView> = entries.iter().map(IssueView::from_entry).collect();
    let line_count = text.lines().count();
    let (on_lines, other_issues): (Vec<IssueView>, Vec<IssueView>) = issues
        .into_iter()
        .partition(|issue| (1..=line_count).contains(&issue.line));
    let mut lines: Vec<SubmittedLine> = text
        .lines()
        .enumerate()
        .map(|(index, line)| SubmittedLine {
            number: index + 1,
            text: line.to_owned(),
            issues: Vec::new(),
        })
        .collect();
    for issue in on_lines {
        if let Some(line) = lines.get_mut(issue.line - 1) {
            line.issues.push(issue);
        }
    }
    FormState {
        orders: Some(text.to_owned()),
        lines,
        other_issues,
        orders_error: Some(headline),
        ..FormState::default()
    }
}

#[derive(Debug, Deserialize)]
pub(crate) struct PressForm {
    #[serde(default)]
    press: String,
    /// `on`: the press replaces the player's earlier press for the turn.
    #[serde(default)]
    replace: String,
}

pub(crate) async fn post_press(
    State(state): State<AppState>,
    Path(game): Path<String>,
    player: Player,
    CsrfForm(form): CsrfForm<PressForm>,
) -> Result<Response, AppError> {
    let holder = own_game(&state, &player, &game).await?;
    let text = textarea(&form.press).trim().to_owned();
    let refuse = |why: String| FormState {
        press: text.clone(),
        press_error: Some(why),
        ..FormState::default()
    };
    if text.is_empty() {
        let why = "The press was empty, so nothing was sent.".to_owned();
        return refused(&state, &player, &holder, refuse(why)).await;
    }
    if let Err(why) = turns::may_play(&holder) {
        return refused(&state, &player, &holder, refuse(why)).await;
    }
    let limits = state.limits.press;
    let sent = if form.replace == "on" {
        turns::replace_press(
            &state.pool,
            &state.states,
            state.clock.now(),
            &holder,
            &text,
            limits,
        )
        .await
    } else {
        turns::send_press(
            &state.pool,
            &state.states,
            state.clock.now(),
            &holder,
            &text,
            limits,
        )
        .await
    };
    match sent {
        Ok(admitted) => {
            let done = match admitted.verdict {
                PressVerdict::Kept => "press",
                PressVerdict::Cut { .. } => "press-cut",
                PressVerdict::TooManyEntries => {
                    let why = format!(
                        "Your press was not accepted: you have sent the {} press entries a \
                         player may have printed with this turn's report.",
                        limits.entries_per_turn
                    );
                    return refused(&state, &player, &holder, refuse(why)).await;
                }
                PressVerdict::NoRoom { left } => {
                    let why = format!(
                        "Your press was not accepted: only {left} of the {} characters of press \
                         a player may have printed with this turn's report are left.",
                        limits.chars_per_turn
                    );
                    return refused(&state, &player, &holder, refuse(why)).await;
                }
            };
            Ok(Redirect::to(&format!("{}?done={done}", game_url(holder.game_id))).into_response())
        }
        Err(LifecycleError::PressAlreadySent) => {
            let why = "Your press was already sent: this very text is on file for this turn, \
                       so it was not stored again and is printed once."
                .to_owned();
            refused(&state, &player, &holder, refuse(why)).await
        }
        Err(error @ (LifecycleError::NoOpenTurn(_) | LifecycleError::DeadlinePassed(_))) => {
            let why = format!("Your press was not accepted: {error}.");
            refused(&state, &player, &holder, refuse(why)).await
        }
        Err(error) => Err(internal(error)),
    }
}
