# scripts/lib.sh — the helpers every script and benchmark shares (bash; sourced, not run):
# shellcheck shell=bash
#
#   . "$(dirname "${BASH_SOURCE[0]}")/lib.sh"        # from scripts/ (../lib.sh one level down,
#                                                   # ../scripts/lib.sh from benchmarks/)
#
#   sb_binary [debug|release] [--no-build]  the switchboard binary's path
#   sb_serve LOG CMD…                       start `serve` on kernel-chosen ports, read them back
#   wait_port PORT [SECONDS] [ADDRESS]      until something listens on a TCP port
#   free_ports N                            free ports for peers that cannot bind port 0 themselves
#   stop_pid PID [SECONDS] / stop_all       stop what this script started, by PID
#   cpu_ticks PID…                          user + system CPU ticks (/proc/PID/stat)
#
# Nothing here exits the caller: each helper returns non-zero (with a message on stderr)
# and the caller decides. Every process these helpers start is a child of the caller and is
# recorded in the caller's PIDS array; nothing is ever stopped by name.

SB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PIDS=(${PIDS[@]+"${PIDS[@]}"})

# sb_binary [debug|release] [--no-build] — prints the path of the switchboard binary.
# SWITCHBOARD_BIN, when set, is the binary (made absolute; a release caller given a path
# under a debug build directory is warned). Otherwise the build of the configuration asked
# for (default debug) under SWIFT_SCRATCH (default the repository's .build): `swift build`
# runs first (a no-op when nothing changed, so a figure never comes from a stale binary),
# its output on stderr; --no-build only checks that the binary exists.
sb_binary() {
  local config=debug build=1 arg bin
  for arg in "$@"; do
    case "$arg" in
      debug | release) config=$arg ;;
      --no-build) build=0 ;;
      *) echo "sb_binary: unknown argument $arg" >&2; return 64 ;;
    esac
  done
  if [ -n "${SWITCHBOARD_BIN:-}" ]; then
    [ -x "$SWITCHBOARD_BIN" ] || { echo "sb_binary: SWITCHBOARD_BIN=$SWITCHBOARD_BIN is not an executable" >&2; return 1; }
    bin=$(cd "$(dirname "$SWITCHBOARD_BIN")" && pwd)/$(basename "$SWITCHBOARD_BIN")
    if [ "$config" = release ] && [[ "$bin" == */debug/* ]]; then
      echo "sb_binary: warning: SWITCHBOARD_BIN=$bin looks like a debug build; figures from it are not release figures" >&2
    fi
    echo "$bin"
    return 0
  fi
  local scratch=${SWIFT_SCRATCH:-$SB_ROOT/.build}
  if [ "$build" = 1 ]; then
    echo "== building switchboard ($config)" >&2
    (cd "$SB_ROOT" && swift build -c "$config" --scratch-path "$scratch" --product switchboard 2>&1 |
      grep -E "error|warning: |complete!" >&2) || true
  fi
  bin="$(cd "$SB_ROOT" && swift build -c "$config" --scratch-path "$scratch" --show-bin-path)/switchboard"
  [ -x "$bin" ] || { echo "sb_binary: no switchboard binary at $bin" >&2; return 1; }
  echo "$bin"
}

# sb_serve LOG CMD… — starts CMD… in the background: a `switchboard serve` command line
# (perhaps behind taskset or valgrind) whose port flags say `any` (or 0 for off), with
# `--ports-file LOG.ports.json` appended; stdout and stderr go to LOG. Waits up to
# SB_SERVE_TIMEOUT seconds (default 60: valgrind starts slowly) for the ports file, which
# serve writes once every listener is bound (docs/OPERATIONS.md, "Ports"). Sets SERVE_PID
# (also appended to PIDS) and SERVE_TCP, SERVE_UDP, SERVE_HTTP, SERVE_TLS, SERVE_HTTPS
# (empty for a listener that is off). Returns 1, with the log's tail on stderr, when the
# process exits first or the deadline passes (the process is then stopped).
sb_serve() {
  local log=$1; shift
  local ports="$log.ports.json"
  rm -f "$ports"
  "$@" --ports-file "$ports" >"$log" 2>&1 &
  SERVE_PID=$!
  PIDS+=("$SERVE_PID")
  local deadline=$((SECONDS + ${SB_SERVE_TIMEOUT:-60}))
  until [ -s "$ports" ]; do
    if ! kill -0 "$SERVE_PID" 2>/dev/null; then
      echo "sb_serve: serve exited before binding its ports ($*):" >&2
      tail -5 "$log" | sed 's/^/  /' >&2
      return 1
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "sb_serve: no ports from serve within ${SB_SERVE_TIMEOUT:-60} s ($*):" >&2
      tail -5 "$log" | sed 's/^/  /' >&2
      stop_pid "$SERVE_PID"
      return 1
    fi
    sleep 0.05
  done
  local json name
  json=$(cat "$ports")
  for name in tcp udp http tls https; do
    local value
    value=$(sed -n "s/.*\"$name\":\([0-9]*\).*/\1/p" <<<"$json")
    printf -v "SERVE_${name^^}" '%s' "$value"
  done
  return 0
}

# wait_port PORT [SECONDS] [ADDRESS] — returns once something listens on TCP PORT (on
# ADDRESS when given, any address otherwise), or 1 with a message after SECONDS (default 10).
wait_port() {
  local port=$1 seconds=${2:-10} filter="sport = :$1"
  [ -n "${3:-}" ] && filter="src $3 and sport = :$port"
  local deadline=$((SECONDS + seconds))
  until ss -Hltn "$filter" | grep -q LISTEN; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "wait_port: nothing listens on ${3:-*}:$port after $seconds s" >&2
      return 1
    fi
    sleep 0.05
  done
}

# free_ports N — prints N distinct free loopback TCP ports, for peers that cannot bind port 0
# and say what they bound (redis-server, nginx, wstest); `serve` binds `any` instead
# (sb_serve). The ports lie outside the kernel's ephemeral range, which every port-0 bind
# (`serve --tcp-port any`) and every outgoing connection's local port come from, so none of
# those can take one before the peer binds it; ports a Swift test holds (its ReservedPort
# lock files) and ports something is bound to are skipped.
free_ports() {
  python3 - "${1:-1}" <<'PY'
import fcntl, os, socket, sys, tempfile
try:
    lo, hi = map(int, open("/proc/sys/net/ipv4/ip_local_port_range").read().split())
except (OSError, ValueError):
    lo, hi = 32768, 60999
first, last = (10000, lo - 1) if lo > 12000 else (hi + 1, 65535)
size = last - first + 1
start = os.getpid() * 7919 % 1000003
locks = os.path.join(tempfile.gettempdir(), "switchboard-ports-%d" % os.getuid())
os.makedirs(locks, exist_ok=True)
found = []
for i in range(size):
    if len(found) == int(sys.argv[1]):
        break
    port = first + (start + i) % size
    fd = os.open(os.path.join(locks, "%d.lock" % port), os.O_CREAT | os.O_RDWR, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        continue
    finally:
        os.close(fd)
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
        found.append(port)
    except OSError:
        pass
    finally:
        s.close()
print(" ".join(map(str, found)))
PY
}

# stop_pid PID [SECONDS] — SIGTERM (servers flush, say goodbye and exit 0), SIGKILL after
# SECONDS (default 5), then reaps it when it is our child. Quiet when it is already gone.
stop_pid() {
  local pid=$1 tenths=$(( ${2:-5} * 10 ))
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq "$tenths"); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || true
}

# stop_all — stops every PID in PIDS, the last started first, and empties PIDS.
stop_all() {
  local i
  for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do stop_pid "${PIDS[i]}"; done
  PIDS=()
}

# cpu_ticks PID… — the user + system CPU time of the processes together, in clock ticks
# (getconf CLK_TCK per second), from /proc/PID/stat (fields 14 and 15; read after the
# command name, which may hold spaces).
cpu_ticks() {
  local pid total=0 t
  for pid in "$@"; do
    t=$(awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$pid/stat") || return 1
    total=$((total + t))
  done
  echo "$total"
}
