//! The bounce reader's rate: every report of the bounce corpus (`tests/bounces/*.eml`: DSNs,
//! qmail, Exim, Postfix, Exchange, ARF) read over and over by `mail::bounce::read`, one core.
//! Run by `bench/bounces.sh`; `BENCH_BOUNCES` (default 200000) reports in all.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark program"
)]

use std::time::Instant;

fn main() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bounces");
    let mut corpus: Vec<Vec<u8>> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "eml"))
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    corpus.sort();
    let total: usize = std::env::var("BENCH_BOUNCES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200_000);
    let started = Instant::now();
    let mut reports = 0usize;
    for raw in corpus.iter().cycle().take(total) {
        if std::hint::black_box(mail::bounce::read(raw)).is_some() {
            reports += 1;
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "bounce reader: {total} messages ({reports} reports) in {seconds:.2} s = {:.0} messages/s on one core (target: 1,000/s)",
        total as f64 / seconds
    );
}
