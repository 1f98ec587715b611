#!/usr/bin/env bash
# Rooms that do not contend: N event loops × N rooms, for N = 1 … MAX.
# One `switchboard serve --no-advertise --loops N` per N; N generator processes (`switchboard bench`),
# one per room, each with its own clients, all measuring the same window (--start-at).
# Prints, per N, the deliveries per second in total and per loop, their ratio to N = 1,
# the server's CPU µs per delivery and the load average at the end of the run
# (docs/BENCHMARKS.md, "Today's figures"; the rounds: docs/BENCHMARKS-HISTORY.md, "Issue
# 16.1"). Flat "per loop" as N grows means the rooms do not slow each other down; on a
# machine shared with other work the figures are noisy.
#
#   benchmarks/rooms.sh               # N = 1 … core count
#   benchmarks/rooms.sh 2             # N = 1, 2
#   benchmarks/rooms.sh 4 --duration 5 --connections 20 --senders 4
#
# Options: MAX (first argument, default: the core count), --duration S (default 10),
# --connections C per room (default 10), --senders S per room (default 2), --rate R per
# room (total msg/s, 0 = as fast as a window of 64 per sender allows; default 0),
# --rounds K (every N K times, interleaved; default 1). Environment: SWITCHBOARD_BIN (the
# binary to measure; default the release build, built first), SWIFT_SCRATCH, BENCH_WORK.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
MAX=$(nproc) DURATION=10 CONNS=10 SENDERS=2 RATE=0 ROUNDS=1
if [ $# -gt 0 ] && [[ $1 =~ ^[0-9]+$ ]]; then MAX=$1; shift; fi
while [ $# -gt 0 ]; do
  case "$1" in
    --duration) DURATION=$2; shift ;;
    --connections) CONNS=$2; shift ;;
    --senders) SENDERS=$2; shift ;;
    --rate) RATE=$2; shift ;;
    --rounds) ROUNDS=$2; shift ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "rooms.sh: unknown option $1" >&2; exit 64 ;;
  esac
  shift
done
. "$ROOT/benchmarks/common.sh"
# SB, the older name of the binary to measure, still works (a given binary: nothing to build).
[ -n "${SB:-}" ] && export SWITCHBOARD_BIN=$SB
bench_setup rooms

trap stop_all EXIT

run_one() {  # run_one N ROUND
  local n=$1 round=$2 port server gens=() i
  sb_serve "$OUT/serve-$n-$round.log" "$SB" serve --ephemeral --no-advertise --host 127.0.0.1 --http-port any \
    --tcp-port 0 --udp-port 0 --loops "$n" --max-connections-per-ip 0 --log-level warning || exit 1
  server=$SERVE_PID port=$SERVE_HTTP
  local warmup=2 settle=$((2 + n))
  local start=$(($(date +%s) + settle))
  for i in $(seq 1 "$n"); do
    "$SB" bench "ws://127.0.0.1:$port/rooms/r$i" --connections "$CONNS" --senders "$SENDERS" --rate "$RATE" \
      --duration "$DURATION" --warmup "$warmup" --start-at "$start" --json --quiet \
      >"$OUT/bench-$n-$round-r$i.json" 2>"$OUT/bench-$n-$round-r$i.txt" &
    gens+=($!) PIDS+=($!)
  done
  # The server's CPU over the measured window (from the end of the warmup).
  sleep $((start + warmup - $(date +%s))) 2>/dev/null || true
  local before after
  before=$(cpu_ticks "$server")
  for g in "${gens[@]}"; do wait "$g" || true; done
  after=$(cpu_ticks "$server")
  local load
  load=$(cut -d' ' -f1 /proc/loadavg)
  local files=()
  for i in $(seq 1 "$n"); do files+=("$OUT/bench-$n-$round-r$i.json"); done
  python3 - "$n" "$round" "$((after - before))" "$(getconf CLK_TCK)" "$load" "${files[@]}" >>"$OUT/all.jsonl" <<'PY'
import json, sys
n, rnd, ticks, hz, load = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
rows = []
for f in sys.argv[6:]:
    try:
        rows.append(json.loads(open(f).read().strip().splitlines()[-1]))
    except Exception:
        rows.append({})
per_sec = sum(float(r.get("delivered_per_sec", 0)) for r in rows)
delivered = sum(int(r.get("delivered", 0)) for r in rows)
ratio = min((float(r.get("delivery_ratio", 0)) for r in rows), default=0)
print(json.dumps({"n": n, "round": rnd, "per_sec": per_sec, "delivered": delivered,
                  "cpu_s": ticks / hz, "min_ratio": ratio, "load": load}))
PY
  stop_all
}

for round in $(seq "$ROUNDS"); do
  for n in $(seq 1 "$MAX"); do
    echo "round $round: $n loops × $n rooms" >&2
    run_one "$n" "$round"
  done
done

python3 - "$OUT/all.jsonl" "$CONNS" "$SENDERS" "$RATE" "$DURATION" <<'PY'
import json, sys
from collections import defaultdict
runs = [json.loads(l) for l in open(sys.argv[1])]
conns, senders, rate, duration = sys.argv[2:6]
by_n = defaultdict(list)
for r in runs: by_n[r["n"]].append(r)
def median(xs):
    xs = sorted(xs); return xs[len(xs) // 2] if xs else 0
print(f"{conns} clients and {senders} senders per room, rate {rate or 'max'}, {duration} s windows"
      f" ({len(runs)} runs; medians over rounds)")
print()
print("| loops × rooms | deliveries/s | per loop | per loop ÷ N=1 | server µs/delivery | lowest delivery ratio | load avg |")
print("|---|---|---|---|---|---|---|")
base = None
for n in sorted(by_n):
    rs = by_n[n]
    total = median([r["per_sec"] for r in rs])
    per_loop = total / n
    if base is None: base = per_loop
    cpu = median([r["cpu_s"] * 1e6 / r["delivered"] if r["delivered"] else 0 for r in rs])
    loads = "/".join(r["load"] for r in rs)
    print(f"| {n} × {n} | {total:,.0f} | {per_loop:,.0f} | {per_loop / base if base else 0:.2f} | {cpu:.2f} |"
          f" {min(r['min_ratio'] for r in rs):.4f} | {loads} |")
PY
echo "results: $OUT" >&2
