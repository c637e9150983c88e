//! The rule tests every engine crate shares, written once ("one harness, many variants", as
//! shakmaty runs one perft harness for every variant). Each engine's `tests/rules.rs` (a test
//! target with `harness = false`) implements [`CaseTable`] for its engine and runs [`main`]:
//!
//! ```text
//! fn main() -> std::process::ExitCode {
//!     rulecases::main::<Table>()
//! }
//! ```
//!
//! - [`case`]: the case every engine shares (name, rules, players, turns of orders and
//!   scripted dice, the shared expectations) and how it is played; [`CaseTable`] is what an
//!   engine adds: how it sets up the position, its own expectations.
//! - [`table`]: the case table `tests/cases/`: one test per case, named after its file, that
//!   checks that the case names rule IDs the project knows and plays it; a failure names the
//!   file, the case and its rule IDs.
//! - [`dice`]: scripted dice with the "all scripted dice used" check.
//! - [`expect`]: the shared expectations' checks (report rows, notes, order issues).
//! - [`json`]: state patches and partial matches, for cases that write state as JSON.
//! - [`coverage`]: every rule ID the project lists (`docs/rules/ids/<engine>.txt`) is cited by a
//!   case or a test (not by a comment) or written down as not applicable; and the list equals
//!   the catalogue when the catalogue is beside the checkout. [`main`] runs these checks as the
//!   tests `catalogue::…`.
//!
//! Test-only: it reads files, so it is a dev-dependency of the engine crates and never a normal
//! one (the engines stay pure).

#![allow(
    clippy::panic,
    reason = "a test harness: failing a test loudly is what it is for"
)]

pub mod case;
pub mod coverage;
pub mod dice;
pub mod expect;
pub mod json;
pub mod table;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use libtest_mimic::{Arguments, Failed, Trial};

pub use case::CaseTable;

/// Runs an engine's rule tests, as `cargo test` and `cargo nextest` ask (the arguments are
/// libtest's): one test per case of the table, and the catalogue's checks.
pub fn main<T: CaseTable>() -> ExitCode {
    let arguments = Arguments::from_args();
    let mut trials = table::trials::<T>();
    trials.extend(catalogue_trials::<T>());
    libtest_mimic::run(&arguments, trials).exit_code()
}

/// The catalogue's checks of [`coverage`], and that the setup example of the rulings document
/// starts a game.
pub fn catalogue_trials<T: CaseTable>() -> Vec<Trial> {
    let rules = T::RULES;
    let mut trials = vec![
        check(
            "catalogue::every_listed_id_is_cited_by_a_test_or_a_written_ruling",
            move || coverage::check_every_listed_id_is_cited(&rules),
        ),
        check("catalogue::the_id_list_matches_the_catalogue", move || {
            coverage::check_list_matches_catalogue(&rules)
        }),
        check(
            "catalogue::every_engine_ruling_is_documented_and_tested",
            move || coverage::check_every_engine_ruling_is_cited(&rules),
        ),
        check(
            "catalogue::the_setup_example_in_the_docs_starts_a_game",
            case::check_docs_setup::<T>,
        ),
    ];
    if let Some(count) = T::GM_RULINGS_ANSWERED {
        trials.push(check(
            "catalogue::every_gm_ruling_is_answered_in_the_docs",
            move || coverage::check_every_gm_ruling_is_answered(&rules, count),
        ));
    }
    trials
}

/// A test of a check: its error, or its panic, fails it.
fn check(name: &str, run: impl FnOnce() -> Result<(), String> + Send + 'static) -> Trial {
    Trial::test(name, move || match catch_unwind(AssertUnwindSafe(run)) {
        Ok(result) => result.map_err(Failed::from),
        Err(panic) => Err(format!("panicked: {}", table::panic_text(panic.as_ref())).into()),
    })
}

/// One engine's rules as its tests see them. Each engine's tests build one with
/// `env!("CARGO_MANIFEST_DIR")`.
#[derive(Debug, Clone, Copy)]
pub struct Rules {
    /// The crate's name, which names its files: `docs/rules/<engine>.md`,
    /// `docs/rules/ids/<engine>.txt` and the catalogue's `<engine>.md`.
    pub engine: &'static str,
    /// The prefix of its rule IDs, without the dash: `FOREVER` for `FOREVER-EX-03`.
    pub prefix: &'static str,
    /// The crate's directory.
    pub crate_dir: &'static str,
}

impl Rules {
    /// The workspace root: engine crates live in `crates/<engine>`.
    pub fn workspace(&self) -> PathBuf {
        let crate_dir = Path::new(self.crate_dir);
        crate_dir
            .parent()
            .and_then(Path::parent)
            .unwrap_or(crate_dir)
            .to_path_buf()
    }

    /// `docs/rules/<engine>.md`: the engine's rulings, with rule IDs.
    pub fn docs_path(&self) -> PathBuf {
        self.workspace()
            .join("docs/rules")
            .join(format!("{}.md", self.engine))
    }

    /// `docs/rules/ids/<engine>.txt`: the catalogue's rule IDs, one a line.
    pub fn ids_path(&self) -> PathBuf {
        self.workspace()
            .join("docs/rules/ids")
            .join(format!("{}.txt", self.engine))
    }

    /// `tests/cases/` of the crate.
    pub fn cases_dir(&self) -> PathBuf {
        Path::new(self.crate_dir).join("tests/cases")
    }
}
