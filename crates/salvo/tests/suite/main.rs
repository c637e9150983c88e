//! Everything besides the rule tests (`tests/rules.rs`: the case table and the catalogue's
//! coverage), in one test binary: the text's worked examples, the property tests, the parser, the phrasings
//! and the views.

// clippy's in-test allowances cover `#[test]` functions, not this crate's helpers.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;
mod confirmed;
mod examples;
mod parser;
mod phrasings;
mod properties;
mod rulings;
mod views;
