# shellcheck shell=bash
# Shared by scripts/run, scripts/test and bench/: a private PostgreSQL cluster for this
# checkout, and free ports for the services the scripts start.
#
# The cluster lives in a project-local data directory (.data/pg, .data/pg-test), listens on
# 127.0.0.1 only, on a private port (no unix socket), with password authentication. A system
# cluster, if any, is never touched. As root, initdb and the server run as the `postgres` user
# (they refuse to run as root).
#
# Callers set `set -euo pipefail` and source this file.

PG_BINDIR=""
PG_RUN_AS=()        # prefix for commands that must run as the cluster's owner
PG_DATA=""          # the cluster's data directory
PG_PORT=""          # the port it listens on
PG_PASSWORD=""      # the password of the `admiralty` superuser
PG_LOG=""           # the server's log file
PG_STARTED_BY_US=0  # 1 when this script started the server (and so must stop it)
PG_SUPERUSER="admiralty"

if [[ -t 2 ]]; then
  pg_say() { printf '\033[1m==>\033[0m %s\n' "$*" >&2; }
  pg_die() { printf '\033[1;31merror:\033[0m %s\n' "$*" >&2; exit 1; }
else
  pg_say() { printf '==> %s\n' "$*" >&2; }
  pg_die() { printf 'error: %s\n' "$*" >&2; exit 1; }
fi

# Finds the newest installed PostgreSQL server binaries; installs them when missing.
pg_ensure_installed() {
  PG_BINDIR="$(pg_find_bindir)"
  if [[ -z "$PG_BINDIR" ]]; then
    if [[ "$(id -u)" -ne 0 ]]; then
      pg_die "PostgreSQL server binaries not found (no /usr/lib/postgresql/*/bin/initdb). Install them with:
    sudo apt-get update && sudo apt-get install -y postgresql
and run this script again."
    fi
    pg_say "PostgreSQL is not installed: installing it with apt-get (about a minute)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq postgresql >/dev/null
    PG_BINDIR="$(pg_find_bindir)"
    [[ -n "$PG_BINDIR" ]] || pg_die "apt-get installed postgresql but no /usr/lib/postgresql/*/bin/initdb appeared"
  fi
  if [[ "$(id -u)" -eq 0 ]]; then
    id -u postgres >/dev/null 2>&1 || pg_die "running as root needs the 'postgres' user (created by Debian's postgresql package)"
    PG_RUN_AS=(runuser -u postgres --)
  else
    PG_RUN_AS=()
  fi
}

pg_find_bindir() {
  local candidate best="" best_version=0 version
  for candidate in /usr/lib/postgresql/*/bin; do
    [[ -x "$candidate/initdb" && -x "$candidate/pg_ctl" ]] || continue
    version="$(basename "$(dirname "$candidate")")"
    version="${version%%.*}"
    [[ "$version" =~ ^[0-9]+$ ]] || continue
    if (( version > best_version )); then best="$candidate"; best_version="$version"; fi
  done
  printf '%s' "$best"
}

# pg_choose_data_dir ROOT NAME: sets PG_DATA to ROOT/.data/NAME, or, when the cluster's owner
# cannot reach the checkout (e.g. a clone under /root, mode 700), to a directory under /var/tmp
# named after the checkout.
pg_choose_data_dir() {
  local root="$1" name="$2"
  mkdir -p "$root/.data"
  PG_DATA="$root/.data/$name"
  if (( ${#PG_RUN_AS[@]} )) && ! pg_as_owner test -x "$root/.data"; then
    local key
    key="$(printf '%s' "$root" | sha256sum | cut -c1-12)"
    PG_DATA="/var/tmp/admiralty-$key/$name"
    pg_say "the postgres user cannot enter $root/.data; keeping the cluster in $PG_DATA instead"
    mkdir -p "$(dirname "$PG_DATA")"
    chmod 755 "$(dirname "$PG_DATA")"
  fi
  PG_LOG="$PG_DATA.log"
}

# The password lives beside the data directory, readable only by the invoking user.
pg_password_file() { printf '%s' "$PG_DATA.password"; }

# pg_init [fast]: creates the cluster when the data directory holds none.
pg_init() {
  local password_file
  password_file="$(pg_password_file)"
  if [[ -f "$PG_DATA/PG_VERSION" ]]; then
    [[ -s "$password_file" ]] || pg_die "$PG_DATA exists but $password_file is missing: remove $PG_DATA to start afresh"
    PG_PASSWORD="$(cat "$password_file")"
    local data_version bin_version
    data_version="$(cat "$PG_DATA/PG_VERSION")"
    bin_version="$(basename "$(dirname "$PG_BINDIR")")"
    if [[ "$data_version" != "${bin_version%%.*}" ]]; then
      pg_die "$PG_DATA was made by PostgreSQL $data_version but the binaries found are $bin_version ($PG_BINDIR): remove $PG_DATA (its data is lost) or install postgresql-$data_version"
    fi
    return 0
  fi

  pg_say "creating a private PostgreSQL cluster in $PG_DATA"
  rm -rf "$PG_DATA"
  mkdir -p "$PG_DATA"
  chmod 700 "$PG_DATA"
  PG_PASSWORD="$(od -An -tx1 -N18 /dev/urandom | tr -d ' \n')"
  (umask 077 && printf '%s' "$PG_PASSWORD" >"$password_file")
  # initdb reads the password from a file that its user must be able to read.
  local scratch
  scratch="$(mktemp -d)"
  (umask 077 && printf '%s\n' "$PG_PASSWORD" >"$scratch/password")
  if (( ${#PG_RUN_AS[@]} )); then
    chown -R postgres: "$PG_DATA" "$scratch"
  fi
  if ! pg_as_owner "$PG_BINDIR/initdb" --pgdata="$PG_DATA" --username="$PG_SUPERUSER" \
      --pwfile="$scratch/password" --auth=scram-sha-256 --encoding=UTF8 --no-locale \
      ${1:+--no-sync} >"$PG_LOG" 2>&1; then
    rm -rf "$scratch"
    cat "$PG_LOG" >&2
    rm -rf "$PG_DATA" "$password_file"
    pg_die "initdb failed (output above)"
  fi
  rm -rf "$scratch"
}

# A new, empty cluster in ROOT/.data/pg-bench for a benchmark, started on the preferred PORT
# with the PostgreSQL settings that follow (e.g. -c max_connections=200). A cluster an earlier
# run left running there is stopped and wiped first. `--no-sync` only speeds up initdb: the
# settings given decide the durability the benchmark measures.
pg_fresh_bench_cluster() {
  local root="$1" port="$2"
  shift 2
  pg_ensure_installed
  pg_choose_data_dir "$root" pg-bench
  pg_lock "$PG_DATA.lock"
  if [[ -n "$(pg_running_pid)" ]]; then PG_STARTED_BY_US=1; pg_stop; fi
  rm -rf "$PG_DATA" "$(pg_password_file)"
  pg_init fast
  pg_start "$port" "$@"
}

# Runs a command as the cluster's owner, from a directory that user can enter, without the
# lock's file descriptor (a server that inherited it would hold the lock after we exit).
pg_as_owner() { (cd / && exec 9>&- && "${PG_RUN_AS[@]}" "$@"); }

# Is something listening on 127.0.0.1:PORT?
pg_port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Ports for every service a script starts, so that scripts run beside each other (./scripts/run,
# ./scripts/test, bench/run, another checkout's): none listens on a fixed port.
# pg_next_free_port PREFERRED: prints PREFERRED, or the first port after it on which nothing
# listens on 127.0.0.1 (for a service people reach at a documented address: 8080, 2525, 5543x).
pg_next_free_port() {
  local preferred="$1" port="$1"
  while pg_port_in_use "$port"; do
    port=$((port + 1))
    (( port < preferred + 100 )) || pg_die "no free port found in $preferred..$((preferred + 99)) on 127.0.0.1"
  done
  printf '%s' "$port"
}

# pg_kernel_free_ports [N]: prints N (default 1) distinct ports the kernel finds free on
# 127.0.0.1, separated by spaces (for services only the script itself talks to).
pg_kernel_free_ports() {
  python3 - "${1:-1}" <<'PY'
import socket, sys
sockets = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in sockets:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in sockets))
PY
}

# The pid recorded in postmaster.pid, when that process is alive and is a postgres server
# on this data directory; else removes a stale postmaster.pid and prints nothing.
pg_running_pid() {
  local pidfile="$PG_DATA/postmaster.pid" pid
  [[ -f "$pidfile" ]] || return 0
  pid="$(head -n1 "$pidfile" 2>/dev/null || true)"
  if [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null \
      && [[ "$(cat "/proc/$pid/comm" 2>/dev/null)" == postgres* ]]; then
    printf '%s' "$pid"
    return 0
  fi
  pg_say "removing a stale postmaster.pid (pid ${pid:-?} is not running; the last run probably crashed)"
  rm -f "$pidfile"
}

# pg_start PREFERRED_PORT [extra server options...]: starts the cluster, or adopts it when it
# is already running (left over from an earlier run that was killed). Sets PG_PORT.
pg_start() {
  local preferred="$1"; shift
  local pid
  pid="$(pg_running_pid)"
  if [[ -n "$pid" ]]; then
    PG_PORT="$(sed -n 4p "$PG_DATA/postmaster.pid")"
    pg_say "PostgreSQL is already running on this data directory (pid $pid, port $PG_PORT): using it"
    PG_STARTED_BY_US=1
    pg_wait_ready
    return 0
  fi

  PG_PORT="$(pg_next_free_port "$preferred")" || exit 1
  [[ "$PG_PORT" == "$preferred" ]] || pg_say "port $preferred is taken: using $PG_PORT"

  local options="-c listen_addresses=127.0.0.1 -c port=$PG_PORT -c unix_socket_directories= $*"
  pg_say "starting PostgreSQL ($(basename "$(dirname "$PG_BINDIR")")) on 127.0.0.1:$PG_PORT, log in $PG_LOG"
  touch "$PG_LOG"
  if (( ${#PG_RUN_AS[@]} )); then chown postgres: "$PG_LOG"; fi
  PG_STARTED_BY_US=1
  if ! pg_as_owner "$PG_BINDIR/pg_ctl" --pgdata="$PG_DATA" --log="$PG_LOG" \
      --options="$options" --wait --timeout=60 --silent start; then
    tail -n 30 "$PG_LOG" >&2 || true
    pg_die "PostgreSQL did not start (log above, full log in $PG_LOG)"
  fi
  pg_wait_ready
}

pg_wait_ready() {
  for _ in $(seq 1 60); do
    if "$PG_BINDIR/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT"; then return 0; fi
    sleep 0.5
  done
  tail -n 30 "$PG_LOG" >&2 || true
  pg_die "PostgreSQL on 127.0.0.1:$PG_PORT is not ready after 30 s (log above)"
}

# Stops the cluster if this script started or adopted it. Safe to call more than once.
pg_stop() {
  (( PG_STARTED_BY_US )) || return 0
  PG_STARTED_BY_US=0
  [[ -n "$(pg_running_pid)" ]] || return 0
  pg_say "stopping PostgreSQL ($PG_DATA)"
  pg_as_owner "$PG_BINDIR/pg_ctl" --pgdata="$PG_DATA" --mode=fast --wait --timeout=60 --silent stop \
    || pg_say "warning: pg_ctl stop failed; see $PG_LOG"
}

# pg_url DATABASE: URL of DATABASE on the private cluster, as the superuser.
pg_url() { printf 'postgres://%s:%s@127.0.0.1:%s/%s' "$PG_SUPERUSER" "$PG_PASSWORD" "$PG_PORT" "$1"; }

pg_psql() { PGCONNECT_TIMEOUT=10 "$PG_BINDIR/psql" -X -q -v ON_ERROR_STOP=1 "$@"; }

# pg_create_database NAME: creates NAME unless it exists.
pg_create_database() {
  local name="$1" exists
  exists="$(pg_psql "$(pg_url postgres)" -tAc "SELECT 1 FROM pg_database WHERE datname = '$name'")"
  if [[ "$exists" != 1 ]]; then
    pg_say "creating database $name"
    pg_psql "$(pg_url postgres)" -c "CREATE DATABASE \"$name\""
  fi
}

# pg_lock NAME: one script at a time per cluster (fd 9 stays open until the script exits).
pg_lock() {
  local lockfile="$1"
  exec 9>"$lockfile"
  flock -n 9 || pg_die "another script is using this cluster ($lockfile is locked): stop it first"
}
