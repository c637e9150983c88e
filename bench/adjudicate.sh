#!/usr/bin/env bash
# `gm adjudicate`'s path (games::adjudicate::resolve_json, JSON in and out, no database) for one
# Barmy turn of a 1,000-player and a 10,000-player game, every player sending two shots and a
# line of press:
#
#   1. the criterion benchmark crates/games/benches/adjudicate.rs, each call with cold caches
#      (as `gm adjudicate` starts, in a fresh process): each figure and the ratio 10,000 / 1,000
#      against the target of issue 16 (at most 12x: linear);
#   2. the instructions of one call of each size, counted by valgrind's callgrind
#      (examples/adjudicate_once.rs): the same count however busy the machine is, so the
#      ratio of the work itself, apart from what the memory hierarchy adds at ten times the
#      data. Skipped, saying so, when valgrind is missing and cannot be installed.
#
#   bench/adjudicate.sh
#   ADMIRALTY_BENCH_SMOKE=1 bench/adjudicate.sh   smoke run (./scripts/test): criterion's test
#                     mode (one 100-player turn, debug) and callgrind at 20 and 200 players
#
# Then `RESULT key=value` lines for bench/run. Needs cargo (no database, no ports).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=../scripts/lib/bench_smoke.sh
source "$ROOT/scripts/lib/bench_smoke.sh"
SIZES=(1000 10000)

# Criterion's progress goes to stderr, its figures and ours to stdout.
if [[ "${ADMIRALTY_BENCH_SMOKE:-0}" == 1 ]]; then
  SIZES=(20 200)
  cargo test --quiet -p games --bench adjudicate
else
  cargo bench --quiet -p games --bench adjudicate -- --noplot
fi

if ! command -v valgrind >/dev/null 2>&1 && [[ $(id -u) -eq 0 ]]; then
  echo "installing valgrind (Debian) to count instructions" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null || true
fi
if ! command -v valgrind >/dev/null 2>&1; then
  echo "  instructions: not counted (valgrind is not installed)"
  exit 0
fi
bench_cargo_build -p games --example adjudicate_once
ONCE="${CARGO_TARGET_DIR:-$ROOT/target}/$(bench_profile)/examples/adjudicate_once"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
declare -A COUNT
for players in "${SIZES[@]}"; do
  "$ONCE" make "$players" "$WORK/request-$players.json" 2>/dev/null
  valgrind --tool=callgrind --callgrind-out-file="$WORK/callgrind-$players.out" \
    --toggle-collect='games::adjudicate::resolve_json*' \
    "$ONCE" run "$WORK/request-$players.json" 2>"$WORK/valgrind-$players.log"
  COUNT[$players]="$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$WORK/valgrind-$players.log")"
  [[ -n "${COUNT[$players]}" ]] || { cat "$WORK/valgrind-$players.log" >&2; exit 1; }
  printf '  %6d players: %13d instructions in one call (callgrind)\n' "$players" "${COUNT[$players]}"
  echo "RESULT adjudicate_${players}_instructions=${COUNT[$players]}"
done
RATIO="$(awk -v a="${COUNT[${SIZES[0]}]}" -v b="${COUNT[${SIZES[1]}]}" 'BEGIN { printf "%.2f", b / a }')"
VERDICT="$(awk -v r="$RATIO" 'BEGIN { print (r <= 12 ? "met" : "NOT met") }')"
echo "  instructions ratio ${SIZES[1]} / ${SIZES[0]} players: ${RATIO}x (target <= 12x, linear: $VERDICT)"
echo "RESULT adjudicate_instructions_ratio=$RATIO"
