//! Absences (issue 18 item 4, docs/rosters.md "Absences"): a player declares the days they are
//! away; on a turn whose deadline falls on one of those days and for which they sent no
//! orders, the game's policy applies: the deadline waits (up to the GM's limit), their last
//! orders stand, or the engine's no-orders rule applies without a missed-turn penalty. What the
//! policy did is recorded with the turn (standing orders as orders, excused players as part of
//! the turn's input), so `gm verify` replays it.

use chrono::{DateTime, Duration, NaiveDate, Utc};
use chrono_tz::Tz;
use games::EngineKind;
use store::absences::{Absence, GamePolicy};
use store::orders::NewOrders;
use store::players::TokenHolder;
use store::status::{AbsencePolicy, GameStatus, PlayerStatus, Source};
use store::subscribers::SubscriberId;
use store::turns::DueTurn;

use super::LifecycleError;
use crate::letters;
use crate::outbox::post::{Posting, post_each};
use schedule::ScheduleSettings;

/// The day an absence is judged on: the turn's deadline (or, without one, now) in the game's
/// time zone.
pub fn day_of(deadline: Option<DateTime<Utc>>, now: DateTime<Utc>, zone: Tz) -> NaiveDate {
    deadline.unwrap_or(now).with_timezone(&zone).date_naive()
}

/// The policy in words, as the confirmation and the console say it.
pub fn policy_words(policy: GamePolicy) -> String {
    match policy.policy {
        AbsencePolicy::Wait => format!(
            "the deadline waits for a player who is away, at most {} day{} past the turn's own deadline",
            policy.wait_days,
            if policy.wait_days == 1 { "" } else { "s" }
        ),
        AbsencePolicy::Standing => {
            "an absent player's last orders stand for each turn they send none".to_owned()
        }
        AbsencePolicy::NoPenalty => "a turn resolves without an absent player's orders, as the \
             rules treat any missed turn, but with no penalty for missing it"
            .to_owned(),
    }
}

/// The longest the GM may let a deadline wait for an absent player (the column's check).
pub const MAX_WAIT_DAYS: u32 = 28;

/// Sets the game's absence policy, audited as done by `actor`.
pub async fn set_policy(
    pool: &store::PgPool,
    game: store::games::GameId,
    policy: GamePolicy,
    actor: &str,
    now: DateTime<Utc>,
) -> Result<(), LifecycleError> {
    let mut tx = pool.begin().await?;
    store::absences::set_policy(&mut *tx, game, policy).await?;
    store::audit::append(
        &mut *tx,
        &store::audit::NewAuditEntry {
            actor,
            game: Some(game),
            action: store::audit::AuditAction::AbsencePolicy {
                policy: policy.policy,
                wait_days: policy.wait_days,
            },
        },
        now,
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

/// What a player declares on their page: an absence, or that those to come are cancelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Declared {
    Absence(Absence),
    Cancel,
}

/// Records what a player declared on their page, in a transaction of its own, and answers as
/// [`declare`] and [`cancel`] do.
pub async fn declare_absence(
    pool: &store::PgPool,
    now: DateTime<Utc>,
    subscriber: SubscriberId,
    declared: Declared,
) -> Result<String, LifecycleError> {
    let mut tx = pool.begin().await?;
    let text = match declared {
        Declared::Absence(absence) => declare(&mut tx, subscriber, absence, now).await?,
        Declared::Cancel => cancel(&mut tx, subscriber, now).await?,
    };
    tx.commit().await?;
    Ok(text)
}

/// Records an absence and answers with the player's absences and, per game, the policy and
/// the turns it touches.
pub async fn declare(
    tx: &mut sqlx::PgConnection,
    subscriber: SubscriberId,
    absence: Absence,
    now: DateTime<Utc>,
) -> Result<String, LifecycleError> {
    if absence.last_day < now.date_naive() {
        return Ok(format!(
            "ABSENT: {} to {} is over already; nothing was recorded.",
            absence.first_day, absence.last_day
        ));
    }
    store::absences::add(&mut *tx, subscriber, absence, now).await?;
    let mut text = format!(
        "Absence recorded: {} to {} (both days included).",
        absence.first_day, absence.last_day
    );
    text.push_str(&summary(tx, subscriber, now).await?);
    Ok(text)
}

/// Cancels the absences to come and says so.
pub async fn cancel(
    tx: &mut sqlx::PgConnection,
    subscriber: SubscriberId,
    now: DateTime<Utc>,
) -> Result<String, LifecycleError> {
    let cancelled = store::absences::cancel_to_come(&mut *tx, subscriber, now.date_naive()).await?;
    let mut text = match cancelled {
        0 => "You had no absence to come: nothing to cancel.".to_owned(),
        n => format!(
            "Cancelled {n} absence{}: you are present.",
            if n == 1 { "" } else { "s" }
        ),
    };
    text.push_str(&summary(tx, subscriber, now).await?);
    Ok(text)
}

/// The player's absences to come, and for each running game they play, the policy and the
/// turns (by deadline) that fall in an absence.
pub async fn summary(
    tx: &mut sqlx::PgConnection,
    subscriber: SubscriberId,
    now: DateTime<Utc>,
) -> Result<String, LifecycleError> {
    let absences = store::absences::to_come(&mut *tx, subscriber, now.date_naive()).await?;
    let mut text = String::from("\n\nYour absences: ");
    if absences.is_empty() {
        text.push_str("none.");
        return Ok(text);
    }
    let days: Vec<String> = absences
        .iter()
        .map(|a| format!("{} to {}", a.first_day, a.last_day))
        .collect();
    text.push_str(&days.join("; "));
    text.push('.');
    let rows = store::players::player_rows_of_subscriber(&mut *tx, subscriber).await?;
    for row in rows.iter().filter(|r| playing(r)) {
        let policy = store::absences::policy(&mut *tx, row.game_id).await?;
        let schedule = super::schedule_of_in(&mut *tx, row.game_id).await?;
        text.push_str(&format!(
            "\n{}: {}.{}",
            row.game_name,
            sentence_case(&policy_words(policy)),
            turns_away(row, &schedule, &absences, now)
        ));
    }
    Ok(text)
}

fn playing(row: &TokenHolder) -> bool {
    row.status == PlayerStatus::Active
        && matches!(row.game_status, GameStatus::Running | GameStatus::Paused)
}

fn sentence_case(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// The game's turns, from the open one on, whose deadline falls in an absence (at most the
/// next twelve deadlines are looked at).
fn turns_away(
    row: &TokenHolder,
    schedule: &ScheduleSettings,
    absences: &[Absence],
    now: DateTime<Utc>,
) -> String {
    let (Some(mut number), Some(mut deadline)) = (row.turn_number, row.deadline) else {
        return " (The game has no set deadlines: the policy applies to a turn whose deadline the \
                GM sets on a day you are away.)"
            .to_owned();
    };
    let zone = schedule.zone();
    let mut touched = Vec::new();
    for _ in 0..12 {
        let day = day_of(Some(deadline), now, zone);
        if absences
            .iter()
            .any(|a| a.first_day <= day && day <= a.last_day)
        {
            touched.push(format!(
                "turn {number} (deadline {})",
                letters::deadline(deadline, zone)
            ));
        }
        match schedule.next_deadline(Some(deadline), deadline) {
            Some(next) => deadline = next,
            None => break,
        }
        number += 1;
    }
    if touched.is_empty() {
        " No turn of it has its deadline while you are away.".to_owned()
    } else {
        format!(" It applies to {}.", touched.join(", "))
    }
}

/// Under the wait policy: when an absent player has sent no orders for a due turn, moves its
/// deadline to the day after their absence, capped at the limit past the turn's first deadline.
/// Returns the new deadline if the turn waits (the caller then does not resolve it).
pub async fn wait_if_absent(
    tx: &mut sqlx::PgConnection,
    due: &DueTurn,
    now: DateTime<Utc>,
    domain: &str,
) -> Result<Option<DateTime<Utc>>, LifecycleError> {
    let policy = store::absences::policy(&mut *tx, due.game_id).await?;
    let Some(deadline) = due.deadline else {
        return Ok(None);
    };
    if policy.policy != AbsencePolicy::Wait {
        return Ok(None);
    }
    let schedule = super::schedule_of_in(&mut *tx, due.game_id).await?;
    let zone = schedule.zone();
    let first = store::absences::deadline_before_absence(&mut *tx, due.id)
        .await?
        .unwrap_or(deadline);
    let cap = first + Duration::days(i64::from(policy.wait_days));
    // Absence is judged on the turn's first deadline and on each day it has waited to.
    let absent =
        store::absences::absent_players(&mut *tx, due.game_id, day_of(Some(deadline), now, zone))
            .await?;
    let without = without_orders(tx, due, &absent).await?;
    let Some(back) = without.iter().map(|p| p.last_day).max() else {
        return Ok(None);
    };
    // The deadline's time of day, on the day after the absence ends.
    let local = deadline.with_timezone(&zone);
    let days = (back - local.date_naive()).num_days() + 1;
    let wanted = deadline + Duration::days(days.max(1));
    let new_deadline = wanted.min(cap);
    if new_deadline <= deadline || new_deadline <= now {
        return Ok(None);
    }
    store::absences::wait_for_absent(&mut *tx, due.id, first, new_deadline).await?;
    store::audit::append(
        &mut *tx,
        &store::audit::NewAuditEntry {
            actor: "system",
            game: Some(due.game_id),
            action: store::audit::AuditAction::WaitsForAbsent {
                turn_id: due.id,
                deadline,
                new_deadline,
                first_deadline: first,
                players: without
                    .iter()
                    .map(|p| p.engine_player_id)
                    .collect::<Vec<_>>(),
            },
        },
        now,
    )
    .await?;
    tell_players_the_deadline_waits(tx, due, deadline, new_deadline, zone, now, domain).await?;
    Ok(Some(new_deadline))
}

/// Mails every active player the turn's new deadline, once per move.
async fn tell_players_the_deadline_waits(
    tx: &mut sqlx::PgConnection,
    due: &DueTurn,
    before: DateTime<Utc>,
    after: DateTime<Utc>,
    zone: chrono_tz::Tz,
    now: DateTime<Utc>,
    domain: &str,
) -> Result<(), LifecycleError> {
    let Some(game) = store::games::name(&mut *tx, due.game_id).await? else {
        return Ok(());
    };
    let turn = u32::try_from(due.number).unwrap_or(0);
    let letter = crate::letters::turns::deadline_waits(
        &game,
        turn,
        &crate::letters::deadline(before, zone),
        &crate::letters::deadline(after, zone),
    );
    let told: Vec<Posting> = store::players::of_game(&mut *tx, due.game_id)
        .await?
        .into_iter()
        .filter(|p| p.status == store::status::PlayerStatus::Active)
        .map(|player| {
            Posting::once(
                "deadline-waits",
                &format!("{}|{}|{}", due.id, after.to_rfc3339(), player.id),
                domain,
                &player.email,
                letter.clone(),
            )
            .with_headers(store::outbox::Headers::reply_to(
                crate::letters::reply_address(&player.reply_token, domain),
            ))
        })
        .collect();
    post_each(tx, &told, now).await?;
    Ok(())
}

async fn without_orders(
    tx: &mut sqlx::PgConnection,
    due: &DueTurn,
    absent: &[store::absences::AbsentPlayer],
) -> Result<Vec<store::absences::AbsentPlayer>, LifecycleError> {
    let ordered = store::orders::players_with_orders(&mut *tx, due.id).await?;
    Ok(absent
        .iter()
        .filter(|p| !ordered.contains(&p.engine_player_id))
        .copied()
        .collect())
}

/// At resolution, before the turn's input is read: under the standing-orders policy, an absent
/// player without orders gets their last orders for this turn (stored with source `standing`);
/// under the no-penalty policy, they are recorded as excused. Either way the turn's stored
/// input says what happened, so a replay does the same.
pub async fn apply_at_resolution(
    tx: &mut sqlx::PgConnection,
    due: &DueTurn,
    engine: EngineKind,
    zone: Tz,
    now: DateTime<Utc>,
) -> Result<(), LifecycleError> {
    let policy = store::absences::policy(&mut *tx, due.game_id).await?;
    let day = day_of(due.deadline, now, zone);
    let absent = store::absences::absent_players(&mut *tx, due.game_id, day).await?;
    let without = without_orders(tx, due, &absent).await?;
    match policy.policy {
        AbsencePolicy::Wait => Ok(()),
        AbsencePolicy::NoPenalty => {
            let excused: Vec<i64> = without.iter().map(|p| p.engine_player_id).collect();
            store::absences::set_excused(&mut *tx, due.id, &excused).await?;
            Ok(())
        }
        AbsencePolicy::Standing => {
            for player in &without {
                let Some((raw, parsed, answers_turn)) =
                    store::absences::last_orders(&mut *tx, player.player_id, due.number, engine)
                        .await?
                else {
                    continue;
                };
                store::orders::save_orders(
                    &mut *tx,
                    &NewOrders {
                        game_id: due.game_id,
                        turn_id: due.id,
                        player_id: player.player_id,
                        raw_text: &raw,
                        parsed: &parsed,
                        source: Source::Standing,
                        answers_turn,
                    },
                    &[],
                    now,
                )
                .await?;
                store::audit::append(
                    &mut *tx,
                    &store::audit::NewAuditEntry {
                        actor: "system",
                        game: Some(due.game_id),
                        action: store::audit::AuditAction::OrdersStanding {
                            turn_id: due.id,
                            player: player.engine_player_id,
                        },
                    },
                    now,
                )
                .await?;
            }
            Ok(())
        }
    }
}
