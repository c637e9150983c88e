//! The rule tests every engine crate shares, written once ("one harness, many variants", as
//! shakmaty runs one perft harness for every variant):
//!
//! - [`table`]: the case table. It walks `tests/cases/`, reads every case, checks that each
//!   names catalogue IDs the project knows, runs each through the engine's own runner and
//!   reports every failing case by file, name and rule IDs instead of stopping at the first.
//! - [`dice`]: scripted dice with the "all scripted dice used" check.
//! - [`expect`]: the expectations the engines' cases have in common (report rows, notes, order
//!   issues).
//! - [`json`]: state patches and partial matches, for cases that write state as JSON.
//! - [`coverage`]: every rule ID the project lists (`docs/rules/ids/<engine>.txt`) is cited by a
//!   test or written down as not applicable; and the list equals the catalogue when the
//!   catalogue is beside the checkout.
//!
//! Test-only: it reads files, so it is a dev-dependency of the engine crates and never a normal
//! one (the engines stay pure).

#![allow(
    clippy::panic,
    reason = "a test harness: failing a test loudly is what it is for"
)]

pub mod coverage;
pub mod dice;
pub mod expect;
pub mod json;
pub mod table;

use std::path::{Path, PathBuf};

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

    /// The engine's rulings document; a test fails when it is missing.
    pub fn docs(&self) -> String {
        let path = self.docs_path();
        std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
    }
}
