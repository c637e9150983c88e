#!/usr/bin/env bash
# The DSN reader's rate (issue 29: 1,000 bounces/s): mail::bounce::read over the bounce corpus
# (crates/mail/examples/bounce_rate.rs), in release mode, one core. BENCH_BOUNCES sets how many.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
if [[ "${ADMIRALTY_BENCH_PREBUILT:-0}" != 1 ]]; then
  cargo build --release --quiet -p mail --example bounce_rate
fi
"${CARGO_TARGET_DIR:-$ROOT/target}/release/examples/bounce_rate"
