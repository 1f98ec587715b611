# Sourced by the benchmark scripts (not run by itself): scripts/lib.sh's helpers (the
# shellcheck shell=bash
# binary, serve on kernel-chosen ports, wait_port, free_ports, stop_all, cpu_ticks) and
# what only benchmarks need.
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"

# bench_setup NAME [debug|release] [--no-build] — sets SB to the binary (sb_binary; release
# unless debug is named: SWITCHBOARD_BIN when set, else that build under SWIFT_SCRATCH,
# built first) and OUT to a new results directory, $BENCH_WORK/NAME-DATE (BENCH_WORK
# defaults to /tmp/switchboard-bench), and raises the descriptor limit to the hard limit.
# shellcheck disable=SC2034  # SB and OUT are the callers'
bench_setup() {
  SB=$(sb_binary release "${@:2}") || exit 1
  OUT="${BENCH_WORK:-/tmp/switchboard-bench}/$1-$(date +%Y%m%d-%H%M%S)"
  mkdir -p "$OUT"
  ulimit -n "$(ulimit -Hn)"
}
