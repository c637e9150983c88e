#!/usr/bin/env bash
# The published report page under load: `gm serve` (release) against nginx serving the same
# HTML as a static file, measured in the same run with the same load generator. gm's web and
# SMTP listeners and nginx take ports the kernel finds free, so this runs beside ./scripts/run.
#
#   bench/web.sh            wrk -t2 -c64 -d10s --latency against each, after a 3 s warm-up
#
# Needs: cargo, PostgreSQL (installed like ./scripts/run does), and Debian's `nginx` and `wrk`
# (installed with apt-get when missing; as root, or with sudo). Prints one small table, then
# `RESULT key=value` lines (for bench/run), with gm's resident memory (VmRSS) idle, its largest
# VmRSS sampled while wrk loads it, and its peak (VmHWM).
# With ADMIRALTY_TEST_DATABASE_URL set (bench/run), uses a database `admiralty_web_bench` made
# afresh on that server instead of a cluster of its own; ADMIRALTY_BENCH_PREBUILT=1 skips the
# build.
# Target (issue 6): >= 10,000 requests/s with p99 < 20 ms at 64 connections on 2 cores.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=../scripts/lib/postgres.sh
source "$ROOT/scripts/lib/postgres.sh"
# shellcheck source=../scripts/lib/bench_smoke.sh
source "$ROOT/scripts/lib/bench_smoke.sh"
# Smoke run (ADMIRALTY_BENCH_SMOKE=1, ./scripts/test): 1 s of wrk with 4 connections, debug gm.
if [[ "${ADMIRALTY_BENCH_SMOKE:-0}" == 1 ]]; then
  BENCH_DURATION=1s BENCH_CONNECTIONS=4 BENCH_THREADS=1
fi

CONNECTIONS="${BENCH_CONNECTIONS:-64}"
DURATION="${BENCH_DURATION:-10s}"
THREADS="${BENCH_THREADS:-2}"

WORK="$(mktemp -d /tmp/admiralty-bench-web.XXXXXX)"
chmod 755 "$WORK"
GM_PID=""
NGINX_PID=""
SAMPLER_PID=""
cleanup() {
  local status=$?
  for pid in "$SAMPLER_PID" "$GM_PID" "$NGINX_PID"; do
    if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
    fi
  done
  pg_stop || true
  rm -rf "$WORK"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

apt_install() {
  local command="$1" package="$2"
  command -v "$command" >/dev/null 2>&1 && return 0
  [[ -x "/usr/sbin/$command" ]] && return 0
  pg_say "installing $package (apt-get)"
  local sudo=()
  if (( EUID != 0 )); then sudo=(sudo); fi
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "$package" >/dev/null
}
apt_install wrk wrk
apt_install nginx nginx
NGINX="$(command -v nginx || echo /usr/sbin/nginx)"

if [[ "${ADMIRALTY_BENCH_PREBUILT:-0}" != 1 ]]; then
  pg_say "building gm ($(bench_profile))"
  bench_cargo_build -p server --bin gm
fi
GM="${CARGO_TARGET_DIR:-$ROOT/target}/$(bench_profile)/gm"

pg_ensure_installed
export DATABASE_URL
if [[ -n "${ADMIRALTY_TEST_DATABASE_URL:-}" ]]; then
  pg_psql "$ADMIRALTY_TEST_DATABASE_URL" -c 'DROP DATABASE IF EXISTS admiralty_web_bench WITH (FORCE)' \
    -c 'CREATE DATABASE admiralty_web_bench'
  DATABASE_URL="${ADMIRALTY_TEST_DATABASE_URL%/*}/admiralty_web_bench"
else
  pg_fresh_bench_cluster "$ROOT" "${ADMIRALTY_BENCH_PG_PORT:-55434}" -c fsync=off -c synchronous_commit=off
  pg_create_database admiralty
  DATABASE_URL="$(pg_url admiralty)"
fi
"$GM" migrate --seed-demo 9>&- >/dev/null

# Every listener of gm (web and SMTP) on a port the kernel finds free: gm's defaults (8080,
# 2525) may be taken by a ./scripts/run beside this.
PORTS="$(pg_kernel_free_ports 2)"
read -r GM_PORT GM_SMTP_PORT <<<"$PORTS"
ADMIRALTY_LOG=warn ADMIRALTY_BIND="127.0.0.1:$GM_PORT" ADMIRALTY_SMTP_LISTEN="127.0.0.1:$GM_SMTP_PORT" \
  "$GM" serve 9>&- &
GM_PID=$!
for _ in $(seq 100); do
  curl -fsS "http://127.0.0.1:$GM_PORT/healthz" >/dev/null 2>&1 && break
  kill -0 "$GM_PID" 2>/dev/null || { echo "gm serve exited (its error is above)" >&2; exit 1; }
  sleep 0.1
done

# The demo game's published turn 1, found the way a reader finds it.
REPORT_PATH="$(curl -fsS "http://127.0.0.1:$GM_PORT/zines/demo" | grep -o 'href="/zines/demo/games/[0-9]*/turns/1"' | head -n1 | sed 's/^href="//; s/"$//')"
[[ -n "$REPORT_PATH" ]] || { echo "no published report found on /zines/demo" >&2; exit 1; }
mkdir -p "$WORK/www"
curl -fsS "http://127.0.0.1:$GM_PORT$REPORT_PATH" -o "$WORK/www/report.html"
chmod 644 "$WORK/www/report.html"
BYTES="$(wc -c < "$WORK/www/report.html")"

NGINX_PORT="$(pg_kernel_free_ports 1)"
cat > "$WORK/nginx.conf" <<CONF
worker_processes auto;
daemon off;
pid $WORK/nginx.pid;
error_log $WORK/nginx-error.log warn;
$( (( EUID == 0 )) && echo "user nobody nogroup;" )
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $WORK/client_body;
  proxy_temp_path $WORK/proxy;
  fastcgi_temp_path $WORK/fastcgi;
  uwsgi_temp_path $WORK/uwsgi;
  scgi_temp_path $WORK/scgi;
  types { text/html html; }
  keepalive_requests 1000000;
  server {
    listen 127.0.0.1:$NGINX_PORT;
    root $WORK/www;
  }
}
CONF
"$NGINX" -p "$WORK" -c "$WORK/nginx.conf" -e "$WORK/nginx-error.log" &
NGINX_PID=$!
for _ in $(seq 100); do
  curl -fsS "http://127.0.0.1:$NGINX_PORT/report.html" >/dev/null 2>&1 && break
  sleep 0.1
done
cmp -s <(curl -fsS "http://127.0.0.1:$NGINX_PORT/report.html") "$WORK/www/report.html" \
  || { echo "nginx does not serve the page" >&2; exit 1; }

# Requests/s and p99 (in ms) of one wrk run.
measure() {
  local url="$1" out
  wrk -t"$THREADS" -c"$CONNECTIONS" -d3s "$url" >/dev/null
  out="$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency "$url")"
  if grep -q 'Non-2xx' <<<"$out"; then
    echo "$out" >&2
    echo "errors while measuring $url" >&2
    exit 1
  fi
  local rps p99
  rps="$(awk '/^Requests\/sec:/ {print $2}' <<<"$out")"
  p99="$(awk '$1 == "99%" {v=$2; if (v ~ /us$/) {sub(/us$/,"",v); v=v/1000} else if (v ~ /ms$/) {sub(/ms$/,"",v)} else if (v ~ /s$/) {sub(/s$/,"",v); v=v*1000}; print v}' <<<"$out")"
  echo "$rps $p99"
}

# A field of /proc/PID/status, in kB.
memory_kb() { awk -v f="$2:" '$1 == f {print $2}' "/proc/$1/status"; }
RSS_IDLE_KB="$(memory_kb "$GM_PID" VmRSS)"
# The largest VmRSS seen while wrk runs, sampled every 0.2 s.
(
  max=0
  while kill -0 "$GM_PID" 2>/dev/null; do
    now="$(memory_kb "$GM_PID" VmRSS)"
    if (( now > max )); then max=$now; echo "$max" >"$WORK/rss-max"; fi
    sleep 0.2
  done
) &
SAMPLER_PID=$!

LOAD_BEFORE="$(cut -d' ' -f1-3 /proc/loadavg)"
pg_say "measuring gm: http://127.0.0.1:$GM_PORT$REPORT_PATH ($BYTES bytes)"
read -r GM_RPS GM_P99 < <(measure "http://127.0.0.1:$GM_PORT$REPORT_PATH")
kill "$SAMPLER_PID" 2>/dev/null || true
wait "$SAMPLER_PID" 2>/dev/null || true
SAMPLER_PID=""
RSS_LOADED_KB="$(cat "$WORK/rss-max")"
HWM_KB="$(memory_kb "$GM_PID" VmHWM)"
pg_say "measuring nginx: the same page as a static file"
read -r NGINX_RPS NGINX_P99 < <(measure "http://127.0.0.1:$NGINX_PORT/report.html")

echo
echo "Published report page ($BYTES bytes), wrk -t$THREADS -c$CONNECTIONS -d$DURATION, $(nproc) cores"
echo "load average before/after: $LOAD_BEFORE / $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine shares the cores)"
printf '%-8s %14s %10s\n' "server" "requests/s" "p99 (ms)"
printf '%-8s %14.0f %10.2f\n' "gm" "$GM_RPS" "$GM_P99"
printf '%-8s %14.0f %10.2f\n' "nginx" "$NGINX_RPS" "$NGINX_P99"
awk -v g="$GM_RPS" -v n="$NGINX_RPS" 'BEGIN { printf "gm / nginx: %.2f of nginx'"'"'s throughput\n", g / n }'
awk -v g="$GM_RPS" -v p="$GM_P99" 'BEGIN { ok = (g >= 10000 && p < 20); printf "target (>= 10000 req/s, p99 < 20 ms): %s\n", ok ? "met" : "NOT met" }'
echo "gm memory: VmRSS idle $RSS_IDLE_KB kB, largest VmRSS under load $RSS_LOADED_KB kB, VmHWM $HWM_KB kB"
cat <<RESULTS
RESULT web_page_bytes=$BYTES
RESULT web_connections=$CONNECTIONS
RESULT web_gm_rps=$GM_RPS
RESULT web_gm_p99_ms=$GM_P99
RESULT web_nginx_rps=$NGINX_RPS
RESULT web_nginx_p99_ms=$NGINX_P99
RESULT gm_rss_idle_kb=$RSS_IDLE_KB
RESULT gm_rss_loaded_kb=$RSS_LOADED_KB
RESULT gm_hwm_kb=$HWM_KB
RESULTS
