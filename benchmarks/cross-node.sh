#!/usr/bin/env bash
# Cross-node fan-out: one room, the sender on node A, the receivers spread over three
# `serve --redis` nodes, next to the same load on one node (the local broker, and the Redis
# broker alone). One generator process (`switchboard bench` with three URLs: the sender
# connects to the first, the other connections to all three in turn). Prints a Markdown
# table (docs/BENCHMARKS.md, "Today's figures"; the runs: docs/BENCHMARKS-HISTORY.md, "Across nodes").
#
#   benchmarks/cross-node.sh                   # 10 s per run, rates 100 and 1000 and max
#   benchmarks/cross-node.sh --quick           # 3 s per run
#   benchmarks/cross-node.sh --rounds 3        # everything three times, interleaved
#
# Options: --duration S, --rounds N, --connections N (default 1000), --rates "100 1000 0"
# (0 = as fast as a window of 256 allows), --setups "local redis-1 redis-3".
# Not pinned to cores: five processes (three nodes, Redis, the generator) share what the
# machine has. Environment: SWIFT_SCRATCH, BENCH_WORK.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DURATION=10 ROUNDS=1 CONNS=1000 RATES="100 1000 0" SETUPS="local redis-1 redis-3"
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) DURATION=3 ;;
    --duration) DURATION=$2; shift ;;
    --rounds) ROUNDS=$2; shift ;;
    --connections) CONNS=$2; shift ;;
    --rates) RATES=$2; shift ;;
    --setups) SETUPS=$2; shift ;;
    *) echo "cross-node.sh: unknown option $1" >&2; exit 64 ;;
  esac
  shift
done
. "$ROOT/benchmarks/common.sh"
bench_setup cross-node

trap stop_all EXIT

run_one() {  # run_one SETUP RATE ROUND
  local setup=$1 rate=$2 round=$3 nodes=1 redis_pid= urls=() node_pids=()
  local broker=(--ephemeral)
  if [ "$setup" != local ]; then
    read -r RP < <(free_ports 1)
    redis-server --bind 127.0.0.1 --port "$RP" --save '' --appendonly no >"$OUT/redis-$setup-$rate-$round.log" 2>&1 &
    redis_pid=$!; PIDS+=("$redis_pid"); wait_port "$RP"
    broker=(--redis "redis://127.0.0.1:$RP")
  fi
  [ "$setup" = redis-3 ] && nodes=3
  for i in $(seq 0 $((nodes - 1))); do
    sb_serve "$OUT/node$i-$setup-$rate-$round.log" "$SB" serve "${broker[@]}" --no-advertise --host 127.0.0.1 \
      --http-port any --tcp-port 0 --udp-port 0 --loops 1 --max-connections-per-ip 0 --log-level warning || exit 1
    node_pids+=("$SERVE_PID")
    urls+=("ws://127.0.0.1:$SERVE_HTTP/rooms/bench")
  done
  local window=()
  [ "$rate" = 0 ] && window=(--window 256)
  local before_nodes before_redis=0
  before_nodes=$(cpu_ticks "${node_pids[@]}")
  [ -n "$redis_pid" ] && before_redis=$(cpu_ticks "$redis_pid")
  "$SB" bench "${urls[@]}" --connections "$CONNS" --senders 1 --rate "$rate" "${window[@]}" \
    --duration "$DURATION" --warmup 2 --server-pid "${node_pids[0]}" --json --quiet \
    >"$OUT/bench-$setup-$rate-$round.json" 2>"$OUT/bench-$setup-$rate-$round.txt" || true
  local after_nodes after_redis=0
  after_nodes=$(cpu_ticks "${node_pids[@]}")
  [ -n "$redis_pid" ] && after_redis=$(cpu_ticks "$redis_pid")
  echo "{\"setup\":\"$setup\",\"rate\":$rate,\"round\":$round,\"node_ticks\":$((after_nodes - before_nodes)),\"redis_ticks\":$((after_redis - before_redis)),\"bench\":$(tail -1 "$OUT/bench-$setup-$rate-$round.json")}" >>"$OUT/all.jsonl"
  stop_all
}

for round in $(seq "$ROUNDS"); do
  for rate in $RATES; do
    for setup in $SETUPS; do
      echo "round $round: $setup at rate $rate" >&2
      run_one "$setup" "$rate" "$round"
    done
  done
done

python3 - "$OUT/all.jsonl" "$(getconf CLK_TCK)" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
hz = int(sys.argv[2])
names = {"local": "1 node, local broker", "redis-1": "1 node, Redis broker", "redis-3": "3 nodes, Redis broker"}
print("| rate | setup | sent msg/s | delivered msg/s | ratio | p50 | p99 | nodes' CPU s | Redis CPU s | notes |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
def ms(us): return f"{us / 1000:.1f} ms" if us >= 1000 else f"{us:.0f} µs"
keys = []
for r in rows:
    k = (r["rate"], r["setup"])
    if k not in keys: keys.append(k)
for rate, setup in keys:
    rs = [r for r in rows if r["rate"] == rate and r["setup"] == setup]
    med = lambda f: statistics.median(f(r) for r in rs)
    b = lambda r: r["bench"]
    p99s = [b(r)["latency_us"]["p99"] for r in rs]
    note = f"{len(rs)} rounds, p99 {ms(min(p99s))}–{ms(max(p99s))}" if len(rs) > 1 else ""
    closed = max(b(r)["closed_during_run"] for r in rs)
    if closed: note += f"; {closed} closed by a server"
    print(f"| {'max' if rate == 0 else rate} | {names.get(setup, setup)} | {med(lambda r: b(r)['sent'] / b(r)['duration']):.0f} | "
          f"{med(lambda r: b(r)['delivered_per_sec']) / 1000:.1f}k | {med(lambda r: b(r)['delivery_ratio']):.3f} | "
          f"{ms(med(lambda r: b(r)['latency_us']['p50']))} | {ms(med(lambda r: b(r)['latency_us']['p99']))} | "
          f"{med(lambda r: r['node_ticks']) / hz:.1f} | {med(lambda r: r['redis_ticks']) / hz:.1f} | {note} |")
PY
echo "results: $OUT" >&2
