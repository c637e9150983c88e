#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "benchmark code: a failure should stop it loudly"
)]
//! `gm adjudicate`'s path, JSON text in and out (`games::adjudicate::resolve_json`), for one
//! Barmy turn of the zine's one big game, where every subscriber plays (BARMY-02): 1,000 and
//! 10,000 players, every one sending two shots and a line of press. Target (issue 16): the cost
//! grows linearly, 10,000 players at most 12x the 1,000 figure.
//!
//!   cargo bench -p games --bench adjudicate        (bench/adjudicate.sh runs it)
//!
//! Each call starts with cold caches, as `gm adjudicate` does in a fresh process (see
//! [`evict_caches`]); the eviction is not timed. Ten samples each (criterion's least), flat
//! sampling. A size whose single first call takes
//! longer than ADMIRALTY_BENCH_ONCE_SECONDS (default 3) is timed by that one call instead, so
//! that a slow engine path (O(players²) today: about a minute a call at 10,000 players) does not
//! make criterion run it eleven times. At the end it prints each size's figure (criterion's
//! median, or the single call) and the ratio, with `RESULT key=value` lines for bench/run.
//! Under `cargo test`/nextest (criterion's test mode, a debug build) a 100-player turn runs
//! once instead, to check the benchmark itself in seconds.

#[path = "common/request.rs"]
mod request;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion, SamplingMode, criterion_group, criterion_main};
use serde_json::Value;
use std::hint::black_box;

const GROUP: &str = "adjudicate";
const SIZES: [u64; 2] = [1_000, 10_000];
/// The one turn of criterion's test mode.
const TEST_SIZE: u64 = 100;
/// Issue 16: 10,000 players cost at most 12x 1,000 (linear, with some slack).
const TARGET_RATIO: f64 = 12.0;

fn id(players: u64) -> String {
    format!("barmy_{players}_players")
}

/// More than the machine's last-level cache (32 MiB on the 2-core development machine).
const EVICT_BYTES: usize = 128 << 20;

/// Writes over a buffer bigger than the caches, so that the next call starts as `gm
/// adjudicate` does, in a fresh process: nothing of the game in any cache. Measured warm, the
/// 1,000-player turn would sit in cache from one iteration to the next while the 10,000-player
/// one cannot: a ratio of caches, not of the work.
fn evict_caches(buffer: &mut [u8], round: &mut u8) {
    *round = round.wrapping_add(1);
    for line in buffer.chunks_mut(64) {
        if let Some(byte) = line.first_mut() {
            *byte = *round;
        }
    }
    black_box(&buffer);
}

/// Is criterion measuring (`cargo bench`), rather than testing (`cargo test --benches`, nextest)
/// or listing? The same reading of the arguments as criterion's own.
fn benchmarking() -> bool {
    let args: Vec<String> = std::env::args().collect();
    let has = |flag: &str| args.iter().any(|a| a == flag);
    has("--bench") && !has("--test") && !has("--list")
}

/// Where criterion writes its estimates: its own default (CRITERION_HOME, else the target
/// directory's `criterion`).
fn criterion_home() -> PathBuf {
    std::env::var_os("CRITERION_HOME")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("CARGO_TARGET_DIR").map(|d| PathBuf::from(d).join("criterion"))
        })
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
                .parent()
                .expect("the target directory")
                .join("criterion")
        })
}

/// Criterion's median of one benchmark of this run, in ms.
fn criterion_median_ms(players: u64) -> Option<f64> {
    let path = criterion_home()
        .join(GROUP)
        .join(id(players))
        .join("new/estimates.json");
    let estimates: Value = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    Some(estimates["median"]["point_estimate"].as_f64()? / 1e6)
}

fn bench(c: &mut Criterion) {
    if !benchmarking() {
        let input = request::request(TEST_SIZE);
        c.bench_function(&format!("{GROUP}/{}", id(TEST_SIZE)), |b| {
            b.iter(|| games::adjudicate::resolve_json(black_box(&input)).unwrap())
        });
        return;
    }
    let once_over = Duration::from_secs_f64(
        std::env::var("ADMIRALTY_BENCH_ONCE_SECONDS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(3.0),
    );
    let mut group = c.benchmark_group(GROUP);
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(5));
    // (players, single first call, measured by criterion)
    let mut runs = Vec::new();
    for players in SIZES {
        let input = request::request(players);
        eprintln!("{players} players: request {} MB", input.len() / 1_000_000);
        let started = Instant::now();
        black_box(games::adjudicate::resolve_json(&input).unwrap());
        let first = started.elapsed();
        let sampled = first <= once_over;
        if sampled {
            let (mut buffer, mut round) = (vec![0u8; EVICT_BYTES], 0u8);
            group.bench_function(id(players), |b| {
                b.iter_batched(
                    || evict_caches(&mut buffer, &mut round),
                    |()| games::adjudicate::resolve_json(black_box(&input)).unwrap(),
                    BatchSize::PerIteration,
                )
            });
        } else {
            eprintln!(
                "{players} players: one call took {:.1} s, over {:.1} s: timed by that call alone \
                 (criterion would run it at least 11 times)",
                first.as_secs_f64(),
                once_over.as_secs_f64()
            );
        }
        runs.push((players, first, sampled));
    }
    group.finish();

    println!();
    println!(
        "gm adjudicate's path (resolve_json), one Barmy turn, every player ordering, cold caches:"
    );
    let mut figures = Vec::new();
    for (players, first, sampled) in runs {
        let first_ms = first.as_secs_f64() * 1000.0;
        let (figure, how) = match (sampled, criterion_median_ms(players)) {
            (true, Some(median)) => (median, "criterion's median of 10 samples"),
            (true, None) => (first_ms, "one call (criterion's estimate not found)"),
            (false, _) => (first_ms, "one call"),
        };
        println!("  {players:>6} players: {figure:10.1} ms ({how}; first call {first_ms:.1} ms)");
        println!("RESULT adjudicate_{players}_ms={figure:.1}");
        println!("RESULT adjudicate_{players}_sampled={}", u8::from(sampled));
        figures.push(figure);
    }
    if let [small, large] = figures[..] {
        let ratio = large / small;
        println!(
            "  ratio {} / {} players: {ratio:.1}x (target <= {TARGET_RATIO}x, linear: {})",
            SIZES[1],
            SIZES[0],
            if ratio <= TARGET_RATIO {
                "met"
            } else {
                "NOT met"
            }
        );
        println!("RESULT adjudicate_ratio={ratio:.2}");
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
