#!/usr/bin/env bash
# The fan-out benchmark: one Barmy turn in a zine of 10,000 subscribers resolved, published and
# its mail queued (target: under 5 s), then the outbound worker delivering the queue to a local
# SMTP sink (target: 500 messages/s or more), then the same mail delivered again DKIM-signed,
# with an RSA-2048 key and with an Ed25519 key (issue 29's target: 2,000 messages/s or more with
# 100 recipients a transaction), each beside the unsigned figure with the ratio. Prints the figures.
#
#   bench/fanout.sh                     10,000 subscribers, half of them ordering
#   ADMIRALTY_BENCH_SUBSCRIBERS=2000 bench/fanout.sh
#
# Starts its own PostgreSQL cluster (.data/pg-bench, preferred port 55434, default durability
# settings) unless ADMIRALTY_TEST_DATABASE_URL names one (bench/run does), and Postfix's smtp-sink
# (installs Debian's postfix package when it is missing, which starts no mail server); builds
# the benchmark in release mode (skipped with ADMIRALTY_BENCH_PREBUILT=1). Stops both at the end.
# ADMIRALTY_BENCH_DELIVER_MESSAGES=N delivers an even sample of N of the queued mails.
# ADMIRALTY_BENCH_EXAMPLE=issue_bench runs the issue benchmark instead (bench/issue.sh).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=../scripts/lib/postgres.sh
source "$ROOT/scripts/lib/postgres.sh"
# shellcheck source=../scripts/lib/bench_smoke.sh
source "$ROOT/scripts/lib/bench_smoke.sh"
# Smoke run (ADMIRALTY_BENCH_SMOKE=1, ./scripts/test): 50 subscribers, 10 mails delivered, debug.
if [[ "${ADMIRALTY_BENCH_SMOKE:-0}" == 1 ]]; then
  export ADMIRALTY_BENCH_SUBSCRIBERS=50 ADMIRALTY_BENCH_DELIVER_MESSAGES=10 ADMIRALTY_BENCH_ISSUE_GAMES=2
fi

SINK_PID=""
finish() {
  local status=$?
  if [[ -n "$SINK_PID" ]]; then kill "$SINK_PID" 2>/dev/null || true; wait "$SINK_PID" 2>/dev/null || true; fi
  pg_stop || true
  exit "$status"
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

SMTP_SINK="$(command -v smtp-sink || true)"
[[ -n "$SMTP_SINK" || ! -x /usr/sbin/smtp-sink ]] || SMTP_SINK=/usr/sbin/smtp-sink
if [[ -z "$SMTP_SINK" ]]; then
  if [[ "$(id -u)" == 0 ]]; then
    pg_say "installing Debian's postfix package for smtp-sink"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q postfix >/dev/null
    SMTP_SINK=/usr/sbin/smtp-sink
  else
    pg_die "smtp-sink is missing: run sudo apt-get install postfix"
  fi
fi

if [[ -z "${ADMIRALTY_TEST_DATABASE_URL:-}" ]]; then
  pg_fresh_bench_cluster "$ROOT" "${ADMIRALTY_BENCH_PG_PORT:-55434}" -c max_connections=100
  export ADMIRALTY_TEST_DATABASE_URL
  ADMIRALTY_TEST_DATABASE_URL="$(pg_url postgres)"
fi

if [[ "${ADMIRALTY_BENCH_PREBUILT:-0}" != 1 ]]; then
  pg_say "building the benchmark ($(bench_profile))"
  bench_cargo_build -p server --example "${ADMIRALTY_BENCH_EXAMPLE:-fanout_bench}"
fi

PORT="$(pg_kernel_free_ports 1)"
SINK_ARGS=()
if [[ "$(id -u)" == 0 ]]; then SINK_ARGS=(-u postfix); fi
"$SMTP_SINK" "${SINK_ARGS[@]}" "127.0.0.1:$PORT" 1024 &
SINK_PID=$!
for _ in $(seq 1 50); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then break; fi
  sleep 0.1
done
export ADMIRALTY_BENCH_SMTP="127.0.0.1:$PORT"
pg_say "smtp-sink on $ADMIRALTY_BENCH_SMTP"
"${CARGO_TARGET_DIR:-$ROOT/target}/$(bench_profile)/examples/${ADMIRALTY_BENCH_EXAMPLE:-fanout_bench}"
