# shellcheck shell=bash
# The benchmarks' smoke mode (issue 31): with ADMIRALTY_BENCH_SMOKE=1 every bench/*.sh runs at its
# smallest size on debug builds, to check that it still runs, not to measure. Sourced by the
# bench scripts (bench_profile, bench_cargo_build) and by ./scripts/test (bench_smoke).

# `release` for a measurement, `debug` for a smoke run (the debug programs are already built by
# the test step, so the smoke run compiles next to nothing).
bench_profile() {
  if [[ "${ADMIRALTY_BENCH_SMOKE:-0}" == 1 ]]; then echo debug; else echo release; fi
}

# cargo build ARGS..., in release mode unless this is a smoke run.
bench_cargo_build() {
  if [[ "${ADMIRALTY_BENCH_SMOKE:-0}" == 1 ]]; then
    cargo build --quiet "$@"
  else
    cargo build --quiet --release "$@"
  fi
}

# Runs every bench/*.sh once in smoke mode against ADMIRALTY_TEST_DATABASE_URL's server; fails
# when one fails, naming it. Each script installs what it needs (nginx, wrk, postfix, valgrind)
# as it does for a measurement.
bench_smoke() {
  local root script status=0 started
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
  mkdir -p "$root/.data"
  for script in "$root"/bench/*.sh; do
    started=$SECONDS
    if ADMIRALTY_BENCH_SMOKE=1 "$script" >"$root/.data/bench-smoke-$(basename "$script" .sh).log" 2>&1; then
      printf 'bench smoke: %s ok (%d s)\n' "$(basename "$script")" $((SECONDS - started)) >&2
    else
      printf 'bench smoke: %s FAILED (%d s); its output:\n' "$(basename "$script")" $((SECONDS - started)) >&2
      tail -n 40 "$root/.data/bench-smoke-$(basename "$script" .sh).log" >&2
      status=1
    fi
  done
  return "$status"
}
