//! `gm game-new` and `gm signup …`: making a game with its roster, and sign-ups, from the
//! command line. Each calls the service function the console calls (`turns::create_game_with`,
//! `rosters::signups::{open_signup, start}`), so the checks, the refusals' words, the audit
//! log (actor `cli`) and the players' start mails are the same.

use std::path::PathBuf;

use anyhow::{Context, anyhow};
use clap::{Args, Subcommand};
use engine::SeatPlan;
use games::{AnySetup, EngineKind};
use serde_json::Value;
use store::StoreError;
use store::signups::OpeningId;
use store::status::Seating;
use store::subscribers::SubscriberId;

use super::{clock, connect};
use crate::config::{BaseUrl, DEFAULT_BASE_URL, DatabaseArgs};
use crate::letters::MailSite;
use crate::rosters::signups::{self, OpeningSpec};
use crate::turns::{self, Creation, GameSpec, LifecycleError, Roster, RosterPick};
use schedule::Schedule;

/// The actor these commands write in the audit log.
const ACTOR: &str = "cli";

/// Where the start mails of the games these commands make point.
#[derive(Debug, Clone, Args)]
pub struct MailSiteArgs {
    /// Domain of Admiralty's addresses, for the players' reply addresses in the start mails.
    #[arg(long, env = "ADMIRALTY_MAIL_DOMAIN", default_value = "localhost")]
    pub mail_domain: String,
    /// Public URL of the web UI, for the rules link in the start mails.
    #[arg(long, env = "ADMIRALTY_BASE_URL", default_value = DEFAULT_BASE_URL)]
    pub base_url: BaseUrl,
}

impl MailSiteArgs {
    fn site(&self) -> MailSite<'_> {
        MailSite {
            domain: &self.mail_domain,
            base_url: self.base_url.as_str(),
        }
    }
}

/// What a game is, as the new-game form has it.
#[derive(Debug, Clone, Args)]
pub struct GameFields {
    /// The zine's short name (as in /zines/SLUG).
    #[arg(long)]
    pub zine: String,
    /// The game's name.
    #[arg(long)]
    pub name: String,
    /// The rules: barmy, salvo, ironclad, skyfleet or forever.
    #[arg(long)]
    pub engine: EngineKind,
    /// The setup as a JSON file (the engine's standard setup when not given).
    #[arg(long)]
    pub setup: Option<PathBuf>,
    /// The game's time zone (an IANA name): its deadlines are shown and typed in it.
    #[arg(long, default_value = "UTC", value_parser = zone_arg)]
    pub zone: chrono_tz::Tz,
    /// The deadlines: `manual`, `every N days`, or `weekly DAY HH:MM ZONE`.
    #[arg(long, default_value = "every 7 days", value_parser = schedule_arg)]
    pub schedule: Schedule,
}

/// `gm game-new`: a game started now with the players given.
#[derive(Debug, Clone, Args)]
pub struct GameNewArgs {
    #[command(flatten)]
    pub game: GameFields,
    /// The first deadline, `YYYY-MM-DD HH:MM` in the game's zone (else the schedule's next).
    #[arg(long)]
    pub deadline: Option<String>,
    /// A player: `SUBSCRIBER=SEAT` (the subscriber's id, the seat's name: a side, a fleet),
    /// or `SUBSCRIBER` (or `SUBSCRIBER=plays`) where every player has a place of their own.
    /// Repeat for each player. Without any, every active subscriber plays (Barmy's only way).
    #[arg(long = "seat", value_parser = seat_arg)]
    pub seats: Vec<SeatArg>,
    #[command(flatten)]
    pub mail: MailSiteArgs,
}

#[derive(Debug, Clone, Subcommand)]
pub enum SignupCommand {
    /// Open a game for sign-up: subscribers JOIN by mail or on their player pages.
    Open(SignupOpenArgs),
    /// The zine's games opened for sign-up: id, name, rules, seats, signed up, status.
    List {
        /// The zine's short name.
        #[arg(long)]
        zine: String,
    },
    /// Start a game open for sign-up now, with whoever signed up.
    Start {
        /// The sign-up's id, as `gm signup list` shows it.
        opening: OpeningId,
        /// Where the GM seats the players: `SUBSCRIBER=SEAT` for each (repeat).
        #[arg(long = "seat", value_parser = seat_arg)]
        seats: Vec<SeatArg>,
        #[command(flatten)]
        mail: MailSiteArgs,
    },
}

/// `gm signup open`.
#[derive(Debug, Clone, Args)]
pub struct SignupOpenArgs {
    #[command(flatten)]
    pub game: GameFields,
    /// How many seats.
    #[arg(long)]
    pub seats: u32,
    /// How seats are given: `order` (of sign-up), `random` (with the committed dice) or `gm`
    /// (by you, with `gm signup start OPENING --seat ...`).
    #[arg(long, default_value = "order", value_parser = seating_arg)]
    pub seating: Seating,
}

/// One `--seat` as typed: the subscriber's id and the seat's name, if given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatArg {
    pub subscriber: SubscriberId,
    pub seat: Option<String>,
}

fn seat_arg(text: &str) -> Result<SeatArg, String> {
    let (subscriber, seat) = match text.split_once('=') {
        Some((subscriber, seat)) => (subscriber, Some(seat.trim().to_owned())),
        None => (text, None),
    };
    let subscriber = subscriber.trim().parse::<SubscriberId>().map_err(|_| {
        format!("{text:?}: write SUBSCRIBER=SEAT, the subscriber's id and the seat's name")
    })?;
    Ok(SeatArg { subscriber, seat })
}

fn zone_arg(text: &str) -> Result<chrono_tz::Tz, String> {
    text.trim().parse().map_err(|_| {
        format!("Time zone: {text:?} is not a time zone: use a name such as Europe/London.")
    })
}

fn schedule_arg(text: &str) -> Result<Schedule, String> {
    text.parse()
        .map_err(|e: schedule::ScheduleError| e.to_string())
}

fn seating_arg(text: &str) -> Result<Seating, String> {
    text.parse().map_err(|_| {
        format!(
            "{text:?}: the seats are given in order, at random or by the GM (order, random, gm)"
        )
    })
}

/// The seats typed, as the service takes them: each seat's name looked up in the engine's
/// plan for the setup.
fn picks(plan: &SeatPlan, seats: &[SeatArg]) -> anyhow::Result<Vec<RosterPick>> {
    seats
        .iter()
        .map(|arg| {
            let seat = match (plan, arg.seat.as_deref()) {
                (SeatPlan::OnePerPlayer { .. }, None) => 0,
                (SeatPlan::OnePerPlayer { .. }, Some(seat)) if seat.eq_ignore_ascii_case("plays") => 0,
                (SeatPlan::OnePerPlayer { .. }, Some(seat)) => {
                    return Err(anyhow!(
                        "subscriber {}: {seat:?} is not a seat: every player has a place of their own, write {0} or {0}=plays",
                        arg.subscriber
                    ));
                }
                (SeatPlan::Named { seats }, wanted) => {
                    let names: Vec<&str> = seats.iter().map(|s| s.name.as_str()).collect();
                    let Some(wanted) = wanted else {
                        return Err(anyhow!(
                            "subscriber {}: which seat? write {}=SEAT, the seats being {}",
                            arg.subscriber,
                            arg.subscriber,
                            names.join(", ")
                        ));
                    };
                    let index = names
                        .iter()
                        .position(|name| name.eq_ignore_ascii_case(wanted))
                        .ok_or_else(|| {
                            anyhow!(
                                "subscriber {}: {wanted:?} is not a seat of this game: its seats are {}",
                                arg.subscriber,
                                names.join(", ")
                            )
                        })?;
                    u32::try_from(index)?
                }
            };
            Ok(RosterPick {
                subscriber: arg.subscriber,
                seat,
            })
        })
        .collect()
}

/// The game's settings: the file's, else the engine's standard ones.
fn read_setup(engine: EngineKind, file: Option<&PathBuf>) -> anyhow::Result<AnySetup> {
    let Some(file) = file else {
        return Ok(engine.default_setup());
    };
    let text = std::fs::read_to_string(file)
        .with_context(|| format!("reading the setup {}", file.display()))?;
    let json: Value = serde_json::from_str(&text)
        .with_context(|| format!("the setup {} is not JSON", file.display()))?;
    engine
        .parse_setup(&json)
        .map_err(|e| refusal("The game could not be created", e.into()))
}

fn game_name(name: &str) -> anyhow::Result<&str> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > 200 || name.chars().any(char::is_control) {
        return Err(anyhow!(
            "Game name: it must be 1 to 200 characters, without control characters."
        ));
    }
    Ok(name)
}

/// The console's words for a refusal (`what` failed: why), or the error as it is.
fn refusal(what: &str, error: LifecycleError) -> anyhow::Error {
    match error {
        LifecycleError::Store(StoreError::AlreadyExists { what }) => {
            anyhow!("There is already {what}.")
        }
        error @ (LifecycleError::Game(_)
        | LifecycleError::NoPlayers
        | LifecycleError::Roster(_)) => {
            anyhow!("{what}: {error}.")
        }
        error => anyhow::Error::from(error),
    }
}

pub(super) async fn run_game_new(database: &DatabaseArgs, args: GameNewArgs) -> anyhow::Result<()> {
    let fields = &args.game;
    let name = game_name(&fields.name)?;
    let setup = read_setup(fields.engine, fields.setup.as_ref())?;
    let deadline = args
        .deadline
        .as_deref()
        .map(|text| schedule::local_deadline(text, fields.zone))
        .transpose()
        .map_err(|e| anyhow!(e.replace("Deadline:", "First deadline:")))?;
    let now = clock()?.now();
    if deadline.is_some_and(|at| at <= now) {
        return Err(anyhow!("First deadline: it must be in the future."));
    }
    let roster = if args.seats.is_empty() {
        Roster::EveryActiveSubscriber
    } else {
        Roster::Chosen(picks(&setup.seat_plan(), &args.seats)?)
    };
    let pool = connect(database).await?;
    let zine = crate::issues::find_zine(&pool, &fields.zine).await?;
    let game = turns::create_game_with(
        &pool,
        now,
        &GameSpec {
            zine: zine.id,
            name,
            setup: &setup,
            first_deadline: deadline,
            schedule: fields.schedule,
        },
        &roster,
        &mut turns::OsEntropy,
        &Creation {
            actor: ACTOR,
            zone: fields.zone,
            mail: Some(args.mail.site()),
        },
    )
    .await
    .map_err(|e| refusal("The game could not be created", e))?;
    pool.close().await;
    println!("{}", game);
    Ok(())
}

pub(super) async fn run_signup(
    database: &DatabaseArgs,
    command: SignupCommand,
) -> anyhow::Result<()> {
    let pool = connect(database).await?;
    match command {
        SignupCommand::Open(args) => open_signup(&pool, &args).await?,
        SignupCommand::List { zine } => list_signups(&pool, &zine).await?,
        SignupCommand::Start {
            opening,
            seats,
            mail,
        } => start_signup(&pool, opening, &seats, &mail).await?,
    }
    pool.close().await;
    Ok(())
}

/// `signup open`: a game open for sign-up; prints its id.
async fn open_signup(pool: &store::PgPool, args: &SignupOpenArgs) -> anyhow::Result<()> {
    let fields = &args.game;
    let name = game_name(&fields.name)?;
    let setup = read_setup(fields.engine, fields.setup.as_ref())?;
    let zine = crate::issues::find_zine(pool, &fields.zine).await?;
    let opening = signups::open_signup(
        pool,
        clock()?.now(),
        &OpeningSpec {
            zine: zine.id,
            name,
            setup: &setup,
            schedule: fields.schedule,
            seats: args.seats,
            seating: args.seating,
            zone: fields.zone,
            first_deadline: None,
        },
        &mut turns::OsEntropy,
        ACTOR,
    )
    .await
    .map_err(|e| refusal("The game could not be opened for sign-up", e))?;
    println!("{}", opening);
    Ok(())
}

/// `signup list ZINE`: the zine's sign-ups, one a line.
async fn list_signups(pool: &store::PgPool, zine: &str) -> anyhow::Result<()> {
    let zine = crate::issues::find_zine(pool, zine).await?;
    let openings = store::signups::of_zine(pool, zine.id).await?;
    for opening in &openings {
        println!(
            "{}\t{}\t{}\t{} seats\t{} signed up\t{}{}",
            opening.id,
            opening.name,
            opening.engine,
            opening.seats,
            opening.signed,
            opening.status,
            opening
                .game_id
                .map(|game| format!(" (game {})", game))
                .unwrap_or_default()
        );
    }
    println!("{}: {} sign-up(s)", zine.slug.as_str(), openings.len());
    Ok(())
}

/// `signup start ID`: the game starts now with those signed up; prints the game's id.
async fn start_signup(
    pool: &store::PgPool,
    opening: OpeningId,
    seats: &[SeatArg],
    mail: &MailSiteArgs,
) -> anyhow::Result<()> {
    let found = store::signups::find(pool, opening)
        .await?
        .with_context(|| format!("Not started: there is no sign-up {opening}."))?;
    // As on the console: seats are the GM's to give only where the GM gives them; a draw in
    // order or at random (committed in advance) is never overridden.
    let gm_seats = match (found.seating, seats.is_empty()) {
        (_, true) => None,
        (Seating::Gm, false) => Some(picks(&found.setup.seat_plan(), seats)?),
        (seating, false) => {
            return Err(anyhow!(
                "Not started: the seats of {} are given {}, not by the GM: start it without --seat.",
                found.name,
                match seating {
                    Seating::Random => "at random, with the committed dice",
                    _ => "in order of sign-up",
                }
            ));
        }
    };
    let game = signups::start(
        pool,
        clock()?.now(),
        opening,
        gm_seats.as_deref(),
        ACTOR,
        mail.site(),
    )
    .await
    .map_err(|e| match e {
        LifecycleError::Store(StoreError::AlreadyExists { what }) => {
            anyhow!("Not started: there is already {what}.")
        }
        e => refusal("Not started", e),
    })?;
    println!("{}", game);
    Ok(())
}
