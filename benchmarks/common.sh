# Sourced by the benchmark scripts (not run by itself).

# bench_setup NAME — sets SB to the release binary (built when missing; SWIFT_SCRATCH picks
# the scratch path) and OUT to a new results directory, $BENCH_WORK/NAME-DATE (BENCH_WORK
# defaults to /tmp/switchboard-bench), and raises the descriptor limit to the hard limit.
bench_setup() {
  local root scratch
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  scratch=${SWIFT_SCRATCH:-$root/.build}
  SB="$scratch/release/switchboard"
  [ -x "$SB" ] || (cd "$root" && swift build -c release --scratch-path "$scratch" --product switchboard >/dev/null)
  OUT="${BENCH_WORK:-/tmp/switchboard-bench}/$1-$(date +%Y%m%d-%H%M%S)"
  mkdir -p "$OUT"
  ulimit -n "$(ulimit -Hn)"
}

# free_ports N — prints N free loopback TCP ports (the kernel picks them; another process
# may take one before it is used, which shows up as a start failure).
free_ports() {
  python3 -c "
import socket
s = [socket.socket() for _ in range($1)]
for x in s: x.bind(('127.0.0.1', 0))
print(' '.join(str(x.getsockname()[1]) for x in s))"
}
