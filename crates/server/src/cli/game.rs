//! `gm game ID …`: the GM's actions on one game — its schedule, roster, offers of seats,
//! replacements, and the turn actions (resolve now, extend, pause, resume, end).

use anyhow::Context;
use chrono::{DateTime, Utc};
use store::PgPool;
use store::games::GameId;
use store::subscribers::SubscriberId;

use super::{GameArgs, GameCommand, clock, connect};
use crate::config::DatabaseArgs;
use crate::turns::GmAction;

pub(super) async fn run_game_action(database: &DatabaseArgs, args: GameArgs) -> anyhow::Result<()> {
    let GameArgs {
        game,
        action,
        mail_domain,
    } = args;
    let domain = mail_domain.as_str();
    let pool = connect(database).await?;
    let done = match action {
        GameCommand::Schedule {
            deadlines,
            remind,
            grace,
            early,
        } => {
            let deadlines: schedule::Schedule = deadlines.join(" ").parse()?;
            let settings = schedule::ScheduleSettings::new(deadlines, &remind, grace, early)?;
            set_schedule(&pool, game, settings).await
        }
        GameCommand::Roster => print_roster(&pool, game).await,
        GameCommand::Offer { player, subscriber } => {
            offer(&pool, game, &player, subscriber, domain).await
        }
        GameCommand::Reinstate { player } => {
            let said = super::standbys::reinstate(&pool, clock()?.now(), game, &player, domain)
                .await
                .with_context(|| format!("game {game}"))?;
            println!("game {game}: {said}");
            Ok(())
        }
        GameCommand::Withdraw { offer } => {
            crate::offers::withdraw(&pool, clock()?.now(), game, offer, "gm", domain)
                .await
                .with_context(|| format!("game {game}"))?;
            println!("game {game}: offer {offer} withdrawn; the subscriber is told");
            Ok(())
        }
        GameCommand::Missed {
            limit,
            offers,
            offer_days,
        } => {
            let policy = store::offers::MissedPolicy {
                limit,
                offers,
                offer_days,
            };
            set_missed_policy(&pool, game, policy).await
        }
        GameCommand::Replace { player, subscriber } => {
            replace(&pool, game, &player, subscriber, domain).await
        }
        GameCommand::ResolveNow => turn_action(&pool, game, GmAction::ResolveNow, domain).await,
        GameCommand::Extend { hours } => {
            let action = GmAction::Extend(chrono::Duration::hours(i64::from(hours)));
            turn_action(&pool, game, action, domain).await
        }
        GameCommand::Pause => turn_action(&pool, game, GmAction::Pause, domain).await,
        GameCommand::Resume => turn_action(&pool, game, GmAction::Resume, domain).await,
        GameCommand::End => turn_action(&pool, game, GmAction::End, domain).await,
        GameCommand::Export { out } => export(&pool, game, &out).await,
    };
    pool.close().await;
    done
}

/// `export`: the game's record (docs/record.md) to a file, or to stdout for `-`.
async fn export(pool: &PgPool, game: GameId, out: &std::path::Path) -> anyhow::Result<()> {
    let record = crate::turns::record::export_game(pool, game)
        .await
        .with_context(|| format!("exporting game {game}"))?
        .with_context(|| format!("no game {game}"))?;
    let json = record.to_json().context("writing the record as JSON")?;
    if out.as_os_str() == "-" {
        println!("{json}");
        return Ok(());
    }
    std::fs::write(out, json).with_context(|| format!("writing {}", out.display()))?;
    let what = if record.game.finished {
        "states, orders and seeds: replayable"
    } else {
        "public part only: the game still runs"
    };
    println!(
        "game {game}: {} turns written to {} ({what})",
        record.turns.len(),
        out.display()
    );
    Ok(())
}

/// `schedule`: the game's deadlines, reminders, grace and early resolution. The game keeps its
/// time zone (a weekly rule brings its own).
async fn set_schedule(
    pool: &PgPool,
    game: GameId,
    settings: schedule::ScheduleSettings,
) -> anyhow::Result<()> {
    let zone = crate::turns::schedule_of(pool, game)
        .await
        .map_or(chrono_tz::Tz::UTC, |current| current.zone());
    let settings = settings.with_zone(zone);
    crate::turns::set_schedule(pool, clock()?.now(), game, &settings, "gm")
        .await
        .with_context(|| format!("game {game}"))?;
    println!("game {game}: schedule set: {settings}");
    Ok(())
}

/// `roster`: who holds each seat, and the seats that want a player with their offers.
async fn print_roster(pool: &PgPool, game: GameId) -> anyhow::Result<()> {
    let roster = crate::rosters::roster(pool, game)
        .await?
        .with_context(|| format!("there is no game {game}"))?;
    for entry in &roster {
        println!(
            "{}\t{}\tfrom turn {}\t{}",
            entry.name,
            entry.seat.as_deref().unwrap_or("own fleet"),
            entry.joined_turn,
            entry.status
        );
    }
    println!("game {game}: {} player(s)", roster.len());
    for seat in crate::offers::wanted_seats(pool, game).await? {
        println!("wants a player: {}", super::standbys::wanted_line(&seat));
        for offer in &seat.offers {
            println!(
                "  offer {}: to {} since {}",
                offer.id,
                offer.subscriber_name,
                offer.offered_at.format("%Y-%m-%d %H:%M UTC")
            );
        }
    }
    Ok(())
}

/// `offer`: offers a player's seat to a subscriber.
async fn offer(
    pool: &PgPool,
    game: GameId,
    player: &str,
    subscriber: SubscriberId,
    domain: &str,
) -> anyhow::Result<()> {
    let said = super::standbys::offer(pool, clock()?.now(), game, player, subscriber, domain)
        .await
        .with_context(|| format!("game {game}"))?;
    println!("game {game}: {said}");
    Ok(())
}

/// `missed`: how many missed turns in a row make a seat wanted, and how offers are made.
async fn set_missed_policy(
    pool: &PgPool,
    game: GameId,
    policy: store::offers::MissedPolicy,
) -> anyhow::Result<()> {
    let (limit, offers, offer_days) = (policy.limit, policy.offers, policy.offer_days);
    crate::offers::set_policy(pool, clock()?.now(), game, policy, "gm")
        .await
        .with_context(|| format!("game {game}"))?;
    let limit = limit.map_or_else(|| "the engine's default".to_owned(), |n| n.to_string());
    println!(
        "game {game}: missed-turns limit {limit}; offers made by {offers}, standing {offer_days} days"
    );
    Ok(())
}

/// `replace`: a subscriber takes a player's seat from the next turn.
async fn replace(
    pool: &PgPool,
    game: GameId,
    player: &str,
    subscriber: SubscriberId,
    domain: &str,
) -> anyhow::Result<()> {
    let replacement = crate::rosters::replace::Replacement {
        game,
        player,
        subscriber,
    };
    let now: DateTime<Utc> = clock()?.now();
    let replaced = crate::rosters::replace::replace_player(
        pool,
        now,
        &replacement,
        "gm",
        domain,
        &mut crate::entropy::OsEntropy,
    )
    .await
    .with_context(|| format!("game {game}"))?;
    println!(
        "game {game}: {} replaces {} from turn {}",
        replaced.new_name, replaced.old_name, replaced.from_turn
    );
    Ok(())
}

/// The turn actions: resolve now, extend, pause, resume, end.
async fn turn_action(
    pool: &PgPool,
    game: GameId,
    action: GmAction,
    domain: &str,
) -> anyhow::Result<()> {
    crate::turns::gm_action(pool, clock()?.now(), game, action, "gm", domain)
        .await
        .with_context(|| format!("game {game}"))?;
    println!("game {game}: done ({action:?})");
    Ok(())
}
