#!/usr/bin/env bash
# The admin console's cost to the server: CPU per delivery with no console open against one
# console open (docs/BENCHMARKS.md, "The admin console"). One server (started with
# `--admin-password`) per case and round; the same load in each (`switchboard bench`,
# WebSocket, text dialect, a fixed rate and duration); in the `console` case a
# `switchboard top --plain` (logged in, reading /admin/events and drawing every snapshot)
# runs for the whole case. Cases are interleaved round by round. Prints, per case, the
# server's CPU per delivery from the bench's window (--server-pid) and from scripts/lib.sh's
# cpu_ticks over the whole case, and the ratio console/none (the design goal: ≤ 1.02).
# Timing is measured here, never asserted in a test.
#
#   benchmarks/admin.sh                          # 10 s per case, 3 rounds
#   benchmarks/admin.sh --duration 5 --rate 2000 --connections 100 --rounds 2
#
# Options: --duration S (default 10), --connections C (default 50), --rate R (total msg/s,
# default 1000), --rounds K (default 3), --room-follow (the console follows the bench's
# room: its members and messages too). Environment: SWITCHBOARD_BIN (default the release
# build, built first), SWIFT_SCRATCH, BENCH_WORK.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DURATION=10 CONNS=50 RATE=1000 ROUNDS=3 FOLLOW=()
while [ $# -gt 0 ]; do
  case "$1" in
    --duration) DURATION=$2; shift ;;
    --connections) CONNS=$2; shift ;;
    --rate) RATE=$2; shift ;;
    --rounds) ROUNDS=$2; shift ;;
    --room-follow) FOLLOW=(--room bench) ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "admin.sh: unknown option $1" >&2; exit 64 ;;
  esac
  shift
done
. "$ROOT/benchmarks/common.sh"
bench_setup admin
PASSWORD=benchmark-admin-password
trap stop_all EXIT

run_case() {  # run_case CASE ROUND: none or console
  local case=$1 round=$2 top_pid="" before after
  sb_serve "$OUT/serve-$case-$round.log" "$SB" serve --ephemeral --no-advertise --host 127.0.0.1 --http-port any \
    --tcp-port 0 --udp-port 0 --max-connections-per-ip 0 --log-level warning --admin-password "$PASSWORD" || exit 1
  if [ "$case" = console ]; then
    SWITCHBOARD_ADMIN_PASSWORD=$PASSWORD "$SB" top --plain "${FOLLOW[@]}" "127.0.0.1:$SERVE_HTTP" \
      >"$OUT/top-$case-$round.txt" 2>&1 &
    top_pid=$! PIDS+=($!)
    # The console is open once its first snapshot is drawn.
    for _ in $(seq 1 100); do grep -q '^node ' "$OUT/top-$case-$round.txt" 2>/dev/null && break; sleep 0.1; done
    grep -q '^node ' "$OUT/top-$case-$round.txt" || { echo "admin.sh: top drew nothing (see $OUT)" >&2; exit 1; }
  fi
  before=$(cpu_ticks "$SERVE_PID")
  "$SB" bench "ws://127.0.0.1:$SERVE_HTTP/rooms/bench" --connections "$CONNS" --senders 1 --rate "$RATE" \
    --duration "$DURATION" --warmup 2 --server-pid "$SERVE_PID" --json --quiet \
    >"$OUT/bench-$case-$round.json" 2>"$OUT/bench-$case-$round.txt" || true
  after=$(cpu_ticks "$SERVE_PID")
  echo "$((after - before))" >"$OUT/ticks-$case-$round.txt"
  if [ -n "$top_pid" ]; then
    kill -0 "$top_pid" 2>/dev/null || { echo "admin.sh: top ended early (see $OUT)" >&2; exit 1; }
    stop_pid "$top_pid"
  fi
  stop_pid "$SERVE_PID"
}

for round in $(seq 1 "$ROUNDS"); do
  for case in none console; do run_case "$case" "$round"; done
done

python3 - "$OUT" "$ROUNDS" "$(getconf CLK_TCK)" <<'PY'
import json, os, statistics, sys
out, rounds, hz = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rows = {}
print(f"{'console':<10}{'round':>6}{'delivered/s':>13}{'p99 µs':>9}{'CPU µs/delivery':>17}{'ticks':>7}{'ticks µs/delivery':>19}")
for case in ("none", "console"):
    for rnd in range(1, rounds + 1):
        try:
            row = json.loads(open(os.path.join(out, f"bench-{case}-{rnd}.json")).read().strip().splitlines()[-1])
            ticks = int(open(os.path.join(out, f"ticks-{case}-{rnd}.txt")).read())
        except Exception:
            print(f"{case:<10}{rnd:>6} (no result: see {out})")
            continue
        per = row.get("server_cpu_us_per_msg") or 0
        # The ticks span the bench's warm-up too: per delivery over the delivered count, an
        # upper bound on the same cost, read the same way in both cases.
        tick_per = ticks / hz * 1e6 / row["delivered"] if row.get("delivered") else 0
        rows.setdefault(case, []).append((per, tick_per))
        print(f"{case:<10}{rnd:>6}{row.get('delivered_per_sec', 0):>13.0f}{row.get('latency_us', {}).get('p99', 0):>9.0f}"
              f"{per:>17.3f}{ticks:>7}{tick_per:>19.3f}")
if rows.get("none") and rows.get("console"):
    for i, what in ((0, "bench window"), (1, "cpu_ticks")):
        none = statistics.median(r[i] for r in rows["none"])
        console = statistics.median(r[i] for r in rows["console"])
        if none > 0:
            print(f"median CPU per delivery ({what}): none {none:.3f} µs, one console {console:.3f} µs, "
                  f"ratio {console / none:.3f} (goal ≤ 1.02)")
print(f"load average: {open('/proc/loadavg').read().split()[0:3]}" if os.path.exists("/proc/loadavg") else "")
print(f"(results: {out})")
PY
