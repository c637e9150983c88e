//! A zine's subscribers as the GM keeps them: added one by one or imported from CSV, edited,
//! unsubscribed or subscribed again. Every change is audited with the GM's name, in the
//! change's transaction.

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use store::audit::{AuditAction, NewAuditEntry, SubscriptionChange};
use store::status::{OfferReason, PlayerStatus};
use store::subscribers::{NewSubscriber, Subscriber, SubscriberStatus};
use store::zines::Zine;
use store::{DisplayName, EmailAddress, PgPool, StoreError};

use crate::entropy::OsEntropy;
use crate::secrets;
use crate::turns::LifecycleError;

/// The most rows one CSV import takes.
pub const MAX_IMPORT_ROWS: usize = 5000;

/// The address and name as typed, checked; the errors in words for the form.
pub fn parse_subscriber(
    email: &str,
    name: &str,
) -> Result<(EmailAddress, DisplayName), Vec<String>> {
    let email = EmailAddress::parse(email).map_err(|e| format!("Address: {e}."));
    let name = DisplayName::parse(name).map_err(|e| format!("Name: {e}."));
    match (email, name) {
        (Ok(email), Ok(name)) => Ok((email, name)),
        (email, name) => Err([email.err(), name.err()].into_iter().flatten().collect()),
    }
}

/// Audits a change to subscriptions, which concerns no game.
async fn audit(
    db: &mut sqlx::PgConnection,
    actor: &str,
    action: AuditAction,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    let entry = NewAuditEntry {
        actor,
        game: None,
        action,
    };
    store::audit::append(db, &entry, now).await?;
    Ok(())
}

/// Adds a subscriber; `AlreadyExists` when the address subscribes already (any letter case).
pub async fn add(
    pool: &PgPool,
    now: DateTime<Utc>,
    zine: &Zine,
    email: EmailAddress,
    display_name: DisplayName,
    actor: &str,
) -> Result<Subscriber, StoreError> {
    let mut tx = pool.begin().await?;
    let new = NewSubscriber {
        zine_id: zine.id,
        email,
        display_name,
    };
    let added = store::subscribers::insert(&mut *tx, &new, now).await?;
    let action = AuditAction::SubscriberAdd {
        zine: zine.id,
        subscriber: added.id,
        email: added.email.clone(),
    };
    audit(&mut tx, actor, action, now).await?;
    tx.commit().await?;
    Ok(added)
}

/// Changes a subscriber's address and name; `AlreadyExists` when the address is another's.
pub async fn edit(
    pool: &PgPool,
    now: DateTime<Utc>,
    subscriber: &Subscriber,
    email: &EmailAddress,
    name: &DisplayName,
    actor: &str,
) -> Result<(), StoreError> {
    let mut tx = pool.begin().await?;
    store::subscribers::update(&mut *tx, subscriber.id, email, name).await?;
    // Sessions and login links were given to the old address.
    let moved = !subscriber
        .email
        .as_str()
        .eq_ignore_ascii_case(email.as_str());
    let revoked = if moved {
        secrets::end_logins(&mut tx, subscriber.id).await?
    } else {
        secrets::Revoked::default()
    };
    let action = AuditAction::SubscriberEdit {
        subscriber: subscriber.id,
        email_before: subscriber.email.clone(),
        email: email.clone(),
        name_before: subscriber.display_name.to_string(),
        name: name.to_string(),
        revoked,
    };
    audit(&mut tx, actor, action, now).await?;
    tx.commit().await?;
    Ok(())
}

/// Unsubscribes (or excludes) a subscriber, or subscribes them again. Either way what they held
/// is revoked ([`secrets::revoke_subscriber`]): web sessions, login links, and their reply
/// tokens, replaced by new ones (so a subscriber subscribed again gets new tokens, and the
/// addresses in mails sent before the change name no one).
pub async fn set_status(
    pool: &PgPool,
    now: DateTime<Utc>,
    subscriber: &Subscriber,
    status: SubscriberStatus,
    actor: &str,
    domain: &str,
) -> Result<(), LifecycleError> {
    let mut tx = pool.begin().await?;
    let change = apply_status(&mut tx, now, subscriber, status, domain).await?;
    audit(
        &mut tx,
        actor,
        AuditAction::subscription(status, change),
        now,
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

/// The audit log's actor of a one-click unsubscribe (RFC 8058): the reader, through the link in
/// a `List-Unsubscribe` header.
pub const ONE_CLICK_ACTOR: &str = "list-unsubscribe";

/// What a one-click unsubscribe did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OneClick {
    /// The subscriber left now.
    Unsubscribed,
    /// They had left already (or the GM excluded them): nothing changed.
    AlreadyGone,
    /// No subscriber has this token: a forged or altered link.
    Unknown,
}

/// A one-click unsubscribe (RFC 8058): the token in the `List-Unsubscribe` https address is the
/// whole proof. The subscription ends as the GM's unsubscribe ends it (seats given up, logins
/// and reply tokens revoked), audited with [`ONE_CLICK_ACTOR`].
pub async fn one_click(
    pool: &PgPool,
    now: DateTime<Utc>,
    token: &str,
    domain: &str,
) -> Result<OneClick, LifecycleError> {
    // Only the form tokens are made in: anything else is not looked up.
    if token.len() != 64 || !token.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Ok(OneClick::Unknown);
    }
    let mut tx = pool.begin().await?;
    let Some(subscriber) = store::subscribers::lock_by_unsubscribe_token(&mut tx, token).await?
    else {
        return Ok(OneClick::Unknown);
    };
    if subscriber.status != SubscriberStatus::Active {
        return Ok(OneClick::AlreadyGone);
    }
    let status = SubscriberStatus::Unsubscribed;
    let change = apply_status(&mut tx, now, &subscriber, status, domain).await?;
    let action = AuditAction::subscription(status, change);
    audit(&mut tx, ONE_CLICK_ACTOR, action, now).await?;
    tx.commit().await?;
    Ok(OneClick::Unsubscribed)
}

/// The change of a subscription to `status`, within `tx`, unaudited: what the GM's change and
/// a one-click unsubscribe share.
async fn apply_status(
    tx: &mut sqlx::PgConnection,
    now: DateTime<Utc>,
    subscriber: &Subscriber,
    status: SubscriberStatus,
    domain: &str,
) -> Result<SubscriptionChange, LifecycleError> {
    let (seat_status, reason) = match status {
        SubscriberStatus::Active => (None, OfferReason::Resigned),
        SubscriberStatus::Unsubscribed => (Some(PlayerStatus::Resigned), OfferReason::Resigned),
        SubscriberStatus::Excluded => (Some(PlayerStatus::Excluded), OfferReason::Gm),
    };
    store::subscribers::set_status(&mut *tx, subscriber.id, status).await?;
    let revoked = secrets::revoke_subscriber(tx, subscriber.id, &mut OsEntropy).await?;
    // A subscription that ends gives up its seats now, as UNSUBSCRIBE by mail does: each fleet
    // leaves at its game's next resolution, and the seat is offered where Admiralty makes the
    // offers (docs/rosters.md).
    let mut left = Vec::new();
    if let Some(seat_status) = seat_status {
        for (player, game) in store::players::held_seats(&mut *tx, subscriber.id).await? {
            store::players::set_status(&mut *tx, player, seat_status).await?;
            crate::offers::seat_left(tx, game, player, reason, now, domain).await?;
            left.push(game);
        }
    }
    let change = SubscriptionChange {
        subscriber: subscriber.id,
        email: subscriber.email.clone(),
        status_before: subscriber.status,
        revoked,
        left_games: left,
    };
    Ok(change)
}

/// [`set_status`] in the caller's transaction (an ARF complaint unsubscribes within the inbox's).
pub(crate) async fn set_status_in(
    tx: &mut sqlx::PgConnection,
    now: DateTime<Utc>,
    subscriber: &Subscriber,
    status: SubscriberStatus,
    actor: &str,
    domain: &str,
) -> Result<(), LifecycleError> {
    let change = apply_status(tx, now, subscriber, status, domain).await?;
    audit(tx, actor, AuditAction::subscription(status, change), now).await?;
    Ok(())
}

/// What a CSV import did, row by row.
pub struct ImportReport {
    pub added: usize,
    pub problems: Vec<RowProblem>,
}

pub struct RowProblem {
    /// The line in the file (1-based).
    pub line: u64,
    pub row: String,
    pub problem: String,
}

/// Spreadsheets run cells that start with these as formulas: exported cells get a leading `'`,
/// which an import takes off again.
const FORMULA_STARTS: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// A cell as exported: one a spreadsheet would run as a formula gets a leading `'`.
pub fn csv_cell_out(text: &str) -> String {
    if text.starts_with(FORMULA_STARTS) {
        format!("'{text}")
    } else {
        text.to_owned()
    }
}

/// A cell as imported: the `'` an export put before a formula-like cell is taken off.
fn csv_cell_in(text: &str) -> &str {
    match text.strip_prefix('\'') {
        Some(rest) if rest.starts_with(FORMULA_STARTS) => rest,
        _ => text,
    }
}

/// Reads `email,name` rows (a first row `email,name` is a header), adds the good ones and
/// reports every other row with its line and why. All in one transaction with its audit entry.
pub async fn import(
    pool: &PgPool,
    now: DateTime<Utc>,
    zine: &Zine,
    data: &[u8],
    actor: &str,
) -> Result<ImportReport, StoreError> {
    let mut report = ImportReport {
        added: 0,
        problems: Vec::new(),
    };
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(data);
    let mut tx = pool.begin().await?;
    let mut seen = BTreeSet::new();
    for (index, record) in reader.records().enumerate() {
        let (email, display_name, at) = match read_row(index, record, &mut seen) {
            ImportRow::Skip => continue,
            ImportRow::Refused(problem) => {
                report.problems.push(problem);
                continue;
            }
            ImportRow::Beyond(problem) => {
                report.problems.push(problem);
                break;
            }
            ImportRow::Subscriber(email, display_name, at) => (email, display_name, at),
        };
        if store::subscribers::find_by_email(&mut *tx, zine.id, &email)
            .await?
            .is_some()
        {
            report
                .problems
                .push(at.problem("already a subscriber of this zine".into()));
            continue;
        }
        let new = NewSubscriber {
            zine_id: zine.id,
            email,
            display_name,
        };
        store::subscribers::insert(&mut *tx, &new, now).await?;
        report.added += 1;
    }
    let action = AuditAction::SubscriberImport {
        zine: zine.id,
        added: report.added,
        rejected_rows: report.problems.len(),
    };
    audit(&mut tx, actor, action, now).await?;
    tx.commit().await?;
    Ok(report)
}

/// Where a row of an import file is, for its problem.
struct RowAt {
    line: u64,
    row: String,
}

impl RowAt {
    fn problem(&self, problem: String) -> RowProblem {
        RowProblem {
            line: self.line,
            row: self.row.clone(),
            problem,
        }
    }
}

/// One row of an import file as read, before the zine's subscribers are looked at.
enum ImportRow {
    /// The header, or an empty row.
    Skip,
    Refused(RowProblem),
    /// Past the rows an import takes: this row and the rest are not read.
    Beyond(RowProblem),
    Subscriber(EmailAddress, DisplayName, RowAt),
}

/// Reads the `index`th row; `seen` holds the addresses of the file's earlier rows.
fn read_row(
    index: usize,
    record: Result<csv::StringRecord, csv::Error>,
    seen: &mut BTreeSet<String>,
) -> ImportRow {
    let record = match record {
        Ok(record) => record,
        Err(error) => {
            let line = error.position().map_or(0, csv::Position::line);
            return ImportRow::Refused(RowProblem {
                line,
                row: String::new(),
                problem: format!("not readable as CSV: {error}"),
            });
        }
    };
    let at = RowAt {
        line: record.position().map_or(0, csv::Position::line),
        row: record.iter().collect::<Vec<_>>().join(","),
    };
    let header = index == 0
        && record
            .get(0)
            .is_some_and(|cell| cell.eq_ignore_ascii_case("email"));
    if header || record.iter().all(str::is_empty) {
        return ImportRow::Skip;
    }
    if index >= MAX_IMPORT_ROWS {
        return ImportRow::Beyond(at.problem(format!(
            "not read: an import takes at most {MAX_IMPORT_ROWS} rows"
        )));
    }
    let (Some(email), Some(name), None) = (record.get(0), record.get(1), record.get(2)) else {
        return ImportRow::Refused(at.problem(format!(
            "expected 2 columns (email,name), found {}",
            record.len()
        )));
    };
    let (email, display_name) = match parse_subscriber(csv_cell_in(email), csv_cell_in(name)) {
        Ok(parsed) => parsed,
        Err(errors) => return ImportRow::Refused(at.problem(errors.join(" "))),
    };
    if !seen.insert(email.as_str().to_lowercase()) {
        return ImportRow::Refused(
            at.problem("this address is on an earlier row of the file".into()),
        );
    }
    ImportRow::Subscriber(email, display_name, at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formula_cells_round_trip() {
        for text in ["=1+1", "+x", "-3", "@SUM", "plain", "'quoted"] {
            assert_eq!(csv_cell_in(&csv_cell_out(text)), text);
        }
        assert_eq!(csv_cell_out("=HYPERLINK()"), "'=HYPERLINK()");
    }
}
