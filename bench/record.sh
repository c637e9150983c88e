#!/usr/bin/env bash
# The export of a finished game's portable record (docs/record.md): a Barmy game of 1,000
# players played for 50 turns through the service, then `gm game ID export`'s path timed
# (target, issue 30: under 2 s), and the record verified (crates/server/examples/record_bench.rs).
#
#   bench/record.sh
#   ADMIRALTY_BENCH_RECORD_PLAYERS=200 ADMIRALTY_BENCH_RECORD_TURNS=10 bench/record.sh
#   ADMIRALTY_BENCH_SMOKE=1 bench/record.sh     smoke run (./scripts/test): 3 turns of 10, debug
#
# Starts its own private cluster unless ADMIRALTY_TEST_DATABASE_URL is set. Builds in release mode
# unless ADMIRALTY_BENCH_PREBUILT=1 (bench/run builds once for all). Prints `RESULT key=value`.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=../scripts/lib/postgres.sh
source "$ROOT/scripts/lib/postgres.sh"
# shellcheck source=../scripts/lib/bench_smoke.sh
source "$ROOT/scripts/lib/bench_smoke.sh"
if [[ "${ADMIRALTY_BENCH_SMOKE:-0}" == 1 ]]; then
  export ADMIRALTY_BENCH_RECORD_PLAYERS=10 ADMIRALTY_BENCH_RECORD_TURNS=3
fi

if [[ -z "${ADMIRALTY_TEST_DATABASE_URL:-}" ]]; then
  trap 'pg_stop || true' EXIT
  pg_fresh_bench_cluster "$ROOT" "${ADMIRALTY_BENCH_PG_PORT:-55471}" -c fsync=off -c synchronous_commit=off
  export ADMIRALTY_TEST_DATABASE_URL
  ADMIRALTY_TEST_DATABASE_URL="$(pg_url postgres)"
fi

if [[ "${ADMIRALTY_BENCH_PREBUILT:-0}" != 1 ]]; then
  bench_cargo_build -p server --example record_bench
fi
"${CARGO_TARGET_DIR:-$ROOT/target}/$(bench_profile)/examples/record_bench"
