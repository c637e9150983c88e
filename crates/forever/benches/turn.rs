//! Placeholder until the turn exists.
fn main() {}
