//! The integration tests, as one binary (one link instead of one per file).
//!
//! Tests that need PostgreSQL create a database of their own on the cluster named by
//! ADMIRALTY_TEST_DATABASE_URL, which ./scripts/test sets. Without it they fail, saying so.

// clippy's allow-*-in-tests covers `#[test]` functions but not the helpers of a test crate.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod absences;
mod adjudicate;
mod archive;
mod audit;
mod axe;
mod backup;
mod bounces;
mod browser;
mod browser_once;
mod browser_rosters;
mod cli;
mod cli_rosters;
mod console;
mod console_season;
mod crawl;
mod demo;
mod digest;
mod doors;
mod face;
mod faults;
mod feeds;
mod form_errors;
mod forms;
mod health;
mod helpers;
mod hostile;
mod inbox;
mod issues;
mod issues_first;
mod issues_paper;
mod issues_web;
mod kill;
mod lifecycle;
mod looks;
mod mail_auth;
mod mail_doors;
mod mail_weapon;
mod mailout;
mod migrations;
mod offers;
mod outbox;
mod personal;
mod pipe;
mod players;
mod postal;
mod postal_paper;
mod record;
mod replay;
mod resign;
mod rosters;
mod secrets;
mod setup_form;
mod signups;
mod smtp_tls;
mod standbys;
mod starts;
mod subscribers;
mod time_kept;
mod turns;
mod verdicts;
mod watch;
