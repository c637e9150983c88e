#!/usr/bin/env bash
# `gm adjudicate`'s path (games::adjudicate::resolve_json, JSON in and out, no database) for one
# Barmy turn of a 1,000-player and a 10,000-player game, every player sending two shots and a
# line of press: the criterion benchmark crates/games/benches/adjudicate.rs. Prints each
# figure and the ratio 10,000 / 1,000 against the target of issue 16 (at most 12x: linear), then
# `RESULT key=value` lines for bench/run.
#
#   bench/adjudicate.sh
#
# Ten samples a size; a size whose first call takes over ADMIRALTY_BENCH_ONCE_SECONDS (default 3)
# is timed by that call alone. Needs only cargo (no database, no ports).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# Criterion's progress goes to stderr, its figures and ours to stdout.
cargo bench --quiet -p games --bench adjudicate -- --noplot
