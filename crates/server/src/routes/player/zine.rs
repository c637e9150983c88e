//! `/me/zine`: what the subscriber gets by mail (the zine's issue or each game's report) and a
//! letter to the editor, printed in the next issue once the GM approves it.

use askama::Template;
use axum::extract::{Query, State};
use axum::response::{Html, IntoResponse, Redirect, Response};
use serde::Deserialize;
use store::status::MailChoice;

use super::Player;
use crate::issues::{self, IssueError, MAX_LETTER_CHARS};
use crate::web::csrf::CsrfForm;
use crate::{AppError, AppState};

#[derive(Debug, Deserialize)]
pub(crate) struct DoneQuery {
    done: Option<String>,
}

fn notice(code: Option<&str>) -> Option<&'static str> {
    Some(match code? {
        "letter" => {
            "Your letter was received. The GM reads every letter before it is printed; if approved, it appears in the zine's next issue."
        }
        "issue" => {
            "From now on you get the zine's issue by mail, and no longer each game's report."
        }
        "reports" => {
            "From now on you get each game's report by mail, and no longer the zine's issue."
        }
        _ => return None,
    })
}

#[derive(Template)]
#[template(path = "player/zine.html")]
struct ZinePage {
    csrf: String,
    notice: Option<&'static str>,
    error: Option<String>,
    issue: bool,
    letter: String,
    max_letter: usize,
}

async fn page(
    state: &AppState,
    player: &Player,
    notice: Option<&'static str>,
    error: Option<String>,
    letter: String,
) -> Result<Response, AppError> {
    let choice = issues::mail_choice_on_web(&state.pool, player.subscriber)
        .await
        .map_err(internal)?;
    // A letter sent back is a form to mend, not a page that worked.
    let status = if error.is_some() {
        axum::http::StatusCode::UNPROCESSABLE_ENTITY
    } else {
        axum::http::StatusCode::OK
    };
    Ok((
        status,
        Html(
            ZinePage {
                csrf: player.csrf.clone(),
                notice,
                error,
                issue: choice == MailChoice::Issue,
                letter,
                max_letter: MAX_LETTER_CHARS,
            }
            .render()?,
        ),
    )
        .into_response())
}

fn internal(error: IssueError) -> AppError {
    match error {
        IssueError::Store(error) => AppError::Store(error),
        IssueError::Database(error) => AppError::Store(error.into()),
        other => AppError::BadRequest(other.to_string()),
    }
}

pub(crate) async fn get_zine(
    State(state): State<AppState>,
    player: Player,
    Query(query): Query<DoneQuery>,
) -> Result<Response, AppError> {
    page(
        &state,
        &player,
        notice(query.done.as_deref()),
        None,
        String::new(),
    )
    .await
}

#[derive(Debug, Deserialize)]
pub(crate) struct LetterForm {
    #[serde(default)]
    letter: String,
}

pub(crate) async fn post_letter(
    State(state): State<AppState>,
    player: Player,
    CsrfForm(form): CsrfForm<LetterForm>,
) -> Result<Response, AppError> {
    match issues::submit_letter_on_web(
        &state.pool,
        player.subscriber,
        &form.letter,
        state.clock.now(),
    )
    .await
    {
        Ok(_) => Ok(Redirect::to("/me/zine?done=letter").into_response()),
        Err(why @ (IssueError::EmptyLetter | IssueError::LetterTooLong(_))) => {
            // Nothing is lost: the letter comes back in the form with the reason.
            let why = format!("Your letter was not sent: {why}.");
            page(&state, &player, None, Some(why), form.letter).await
        }
        Err(other) => Err(internal(other)),
    }
}

#[derive(Debug, Deserialize)]
pub(crate) struct MailForm {
    #[serde(default)]
    receive: String,
}

pub(crate) async fn post_mail(
    State(state): State<AppState>,
    player: Player,
    CsrfForm(form): CsrfForm<MailForm>,
) -> Result<Response, AppError> {
    let choice: MailChoice = form
        .receive
        .parse()
        .map_err(|_| AppError::BadRequest("choose the issue or the reports".into()))?;
    issues::choose_mail_on_web(&state.pool, player.subscriber, choice, state.clock.now())
        .await
        .map_err(internal)?;
    Ok(Redirect::to(&format!("/me/zine?done={}", choice.as_str())).into_response())
}
