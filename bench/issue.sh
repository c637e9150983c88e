#!/usr/bin/env bash
# The issue benchmark: five Barmy games in a 10,000-subscriber zine, their reports delivered
# per game, then the same reports as one issue queued and delivered (examples/issue_bench.rs).
# Everything as bench/fanout.sh (its PostgreSQL, smtp-sink and settings).
exec env ADMIRALTY_BENCH_EXAMPLE=issue_bench "$(dirname "${BASH_SOURCE[0]}")/fanout.sh" "$@"
