//! Everything besides the case table, in one test binary: the text's worked examples, the
//! property tests, the parser, the views, and the catalogue's coverage.

// clippy's in-test allowances cover `#[test]` functions, not this crate's helpers.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod catalogue;
mod common;
mod examples;
mod parser;
mod properties;
mod rulings;
mod views;
