#!/usr/bin/env bash
# End-to-end mail ingest benchmark: SMTP in (lettre, over loopback) -> stored -> parsed ->
# orders saved -> confirmation queued, beside the raw single-row INSERT rate of the same
# PostgreSQL, measured in the same run. Starts its own private cluster (bench data dir) unless
# ADMIRALTY_TEST_DATABASE_URL is set. Settings: BENCH_MESSAGES, BENCH_CONNECTIONS, BENCH_WORKERS,
# BENCH_GAMES, BENCH_PLAYERS, BENCH_RAW_INSERT (see crates/server/examples/ingest_bench.rs). By
# default 13 games of 40 players; the zine's one big game of every subscriber (BARMY-02):
#
#   BENCH_GAMES=1 BENCH_PLAYERS=10000 bench/ingest.sh
#
# Builds in release mode unless ADMIRALTY_BENCH_PREBUILT=1 (bench/run builds once for all).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=../scripts/lib/postgres.sh
source "$ROOT/scripts/lib/postgres.sh"
# shellcheck source=../scripts/lib/bench_smoke.sh
source "$ROOT/scripts/lib/bench_smoke.sh"
# Smoke run (ADMIRALTY_BENCH_SMOKE=1, ./scripts/test): 40 messages into 2 games of 5, debug.
if [[ "${ADMIRALTY_BENCH_SMOKE:-0}" == 1 ]]; then
  export BENCH_MESSAGES=40 BENCH_GAMES=2 BENCH_PLAYERS=5 BENCH_CONNECTIONS=2 BENCH_WORKERS=2
fi

if [[ -z "${ADMIRALTY_TEST_DATABASE_URL:-}" ]]; then
  trap 'pg_stop || true' EXIT
  # The same durability settings as a production cluster: the rate is the real one.
  pg_fresh_bench_cluster "$ROOT" "${ADMIRALTY_BENCH_PG_PORT:-55470}" -c max_connections=200
  export ADMIRALTY_TEST_DATABASE_URL
  ADMIRALTY_TEST_DATABASE_URL="$(pg_url postgres)"
fi

if [[ "${ADMIRALTY_BENCH_PREBUILT:-0}" != 1 ]]; then
  bench_cargo_build -p server --example ingest_bench
fi
"${CARGO_TARGET_DIR:-$ROOT/target}/$(bench_profile)/examples/ingest_bench"
