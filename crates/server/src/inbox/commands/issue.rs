//! The zine's issue by mail: letters to the editor, and whether the issue or the reports come.

use store::status::{MailChoice, Source};

use super::Context;
use crate::issues;
use crate::letters::replies;
use crate::turns::LifecycleError;

/// LETTER: a letter to the editor of the sender's zine, waiting for the GM's approval.
pub(super) async fn letter(
    cx: &mut Context<'_, '_>,
    line: usize,
    text: &str,
) -> Result<String, LifecycleError> {
    match issues::submit_letter(
        cx.tx,
        cx.sender.subscriber,
        text,
        Source::Email,
        cx.received,
    )
    .await
    {
        Ok(_) => Ok(replies::letter_received(line)),
        Err(why @ (issues::IssueError::EmptyLetter | issues::IssueError::LetterTooLong(_))) => {
            Ok(replies::letter_refused(line, &why))
        }
        Err(issues::IssueError::Store(error)) => Err(error.into()),
        Err(issues::IssueError::Database(error)) => Err(error.into()),
        Err(other) => Ok(replies::letter_refused(line, &other)),
    }
}
/// RECEIVE ISSUE / RECEIVE REPORTS: what the subscriber gets by mail from now on.
pub(super) async fn receive(
    cx: &mut Context<'_, '_>,
    issue: bool,
) -> Result<String, LifecycleError> {
    let choice = if issue {
        MailChoice::Issue
    } else {
        MailChoice::Reports
    };
    match issues::choose_mail(cx.tx, cx.sender.subscriber, choice, cx.now).await {
        Ok(()) => Ok(replies::receiving(issue)),
        Err(issues::IssueError::Database(error)) => Err(error.into()),
        Err(issues::IssueError::Store(error)) => Err(error.into()),
        Err(other) => Err(LifecycleError::Store(store::StoreError::InvalidRow {
            column: "subscribers.mail_choice",
            reason: other.to_string(),
        })),
    }
}
