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
# BENCH_METRICS=1 runs with the metrics' recorder installed; BENCH_METRICS=compare runs without
# and with it, BENCH_METRICS_ROUNDS times each (default 2, alternating), and prints the best
# rate and the least CPU per message of each and their ratios (the metrics' cost).
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
BENCH="${CARGO_TARGET_DIR:-$ROOT/target}/$(bench_profile)/examples/ingest_bench"
if [[ "${BENCH_METRICS:-0}" != compare ]]; then
  exec "$BENCH"
fi
# Side by side: off, on, off, on, … so that the machine's drift falls on both.
export BENCH_RAW_INSERT=0
results="$(mktemp)"
for _ in $(seq "${BENCH_METRICS_ROUNDS:-2}"); do
  for metrics in 0 1; do
    BENCH_METRICS=$metrics "$BENCH" | tee -a /dev/stderr \
      | sed -n "s/^RESULT \(ingest_per_s\|ingest_cpu_ms_per_message\)=/$metrics \1 /p" >>"$results"
  done
done
python3 - "$results" <<'PY'
import sys
rows = [line.split() for line in open(sys.argv[1])]
def pick(metrics, name, best):
    values = [float(v) for m, n, v in rows if m == metrics and n == name]
    return best(values)
off_rate, on_rate = pick("0", "ingest_per_s", max), pick("1", "ingest_per_s", max)
off_cpu, on_cpu = pick("0", "ingest_cpu_ms_per_message", min), pick("1", "ingest_cpu_ms_per_message", min)
print(f"| metrics recorder | best messages/s | least CPU ms/message |")
print(f"|---|---|---|")
print(f"| not installed | {off_rate:.0f} | {off_cpu:.2f} |")
print(f"| installed | {on_rate:.0f} | {on_cpu:.2f} |")
print(f"ratio with/without: rate {on_rate / off_rate:.3f}, CPU per message {on_cpu / off_cpu:.3f}")
print(f"RESULT ingest_metrics_rate_ratio={on_rate / off_rate:.3f}")
print(f"RESULT ingest_metrics_cpu_ratio={on_cpu / off_cpu:.3f}")
PY
rm -f "$results"
