#!/usr/bin/env bash
# 50,000 WebSocket connections in ONE room over three `serve --redis` nodes on this machine,
# every message delivered to all 50,000. The descriptor limit here is 20,000 per process,
# so the nodes hold ~16,700 each and the load comes from several generator processes:
# generator 1 holds the sender (on node A) and its share of receivers, the others only
# receive (`switchboard bench --senders 0`); all of them are given one --start-at, so they
# measure the same window. Connections go to all three nodes from every generator.
#
#   benchmarks/scale-50k.sh                        # 50,000 connections, 1 msg/s for 20 s
#   benchmarks/scale-50k.sh 50000 2 30             # total, msg/s, seconds
#
# Addresses: the nodes listen on 127.0.0.1, .2 and .3 (all `lo`), each on a port the kernel
# picks (`serve --http-port any`). A client port
# is unique per (source, destination) pair, so three destinations give each ~28,000
# ephemeral ports (32768–60999) — room for 16,700 connections to each without binding
# source addresses. The nodes run with --max-connections-per-ip 0: every client is
# 127.0.0.1. Bounded: connects get CONNECT_BUDGET seconds (default 90), each generator
# stops 10 s after the window at the latest. Environment: SWIFT_SCRATCH, BENCH_WORK,
# GENERATORS (default 4), CONNECT_BUDGET.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TOTAL=${1:-50000}
RATE=${2:-1}
DURATION=${3:-20}
GENS=${GENERATORS:-4}
BUDGET=${CONNECT_BUDGET:-90}
NODES=3
. "$ROOT/benchmarks/common.sh"
bench_setup scale-50k
HARD=$(ulimit -Hn)
PER_GEN=$(( (TOTAL + GENS - 1) / GENS ))
PER_NODE=$(( (TOTAL + NODES - 1) / NODES ))
if [ $((PER_GEN + 64)) -gt "$HARD" ] || [ $((PER_NODE + 64)) -gt "$HARD" ]; then
  echo "scale-50k.sh: $PER_GEN per generator / $PER_NODE per node do not fit the descriptor limit $HARD" >&2
  exit 64
fi

trap stop_all EXIT
read -r RP < <(free_ports 1)
redis-server --bind 127.0.0.1 --port "$RP" --save '' --appendonly no >"$OUT/redis.log" 2>&1 &
REDIS=$!; PIDS+=($REDIS)
wait_port "$RP" 10 || exit 1
NODE_PIDS=() NODE_PORTS=()
for i in $(seq "$NODES"); do
  sb_serve "$OUT/node-$i.log" "$SB" serve --redis "redis://127.0.0.1:$RP" --host "127.0.0.$i" --http-port any \
    --tcp-port 0 --udp-port 0 --loops 1 --no-advertise --log-level warning --max-connections-per-ip 0 || exit 1
  NODE_PIDS+=("$SERVE_PID") NODE_PORTS+=("$SERVE_HTTP")
done
sleep 1
rss() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
RSS_BEFORE=(); for p in "${NODE_PIDS[@]}"; do RSS_BEFORE+=("$(rss "$p")"); done
CPU_BEFORE=(); for p in "${NODE_PIDS[@]}" "$REDIS"; do CPU_BEFORE+=("$(cpu_ticks "$p")"); done

START_AT=$(( $(date +%s) + BUDGET ))
WARMUP=3
GEN_PIDS=()
for g in $(seq "$GENS"); do
  n=$PER_GEN; [ "$g" -eq "$GENS" ] && n=$((TOTAL - PER_GEN * (GENS - 1)))
  urls=()
  # Generator 1's first URL is node A (its sender's); the others start at another node so
  # the receivers spread evenly.
  for k in $(seq 0 $((NODES - 1))); do
    node=$(( (g - 1 + k) % NODES ))
    urls+=("ws://127.0.0.$((node + 1)):${NODE_PORTS[$node]}/rooms/big")
  done
  senders=0; [ "$g" -eq 1 ] && senders=1
  "$SB" bench "${urls[@]}" --connections "$n" --senders "$senders" --rate "$RATE" --duration "$DURATION" \
    --warmup "$WARMUP" --start-at "$START_AT" --connect-concurrency 128 --json --quiet \
    >"$OUT/bench-$g.json" 2>"$OUT/bench-$g.txt" &
  GEN_PIDS+=($!); PIDS+=($!)
done

# Hold count and RSS in the middle of the window.
MID=$(( START_AT + WARMUP + DURATION / 2 ))
while [ "$(date +%s)" -lt "$MID" ]; do sleep 1; done
HELD=(); RSS_HELD=()
for i in $(seq "$NODES"); do
  HELD+=("$(ss -Htn state established "( src 127.0.0.$i and sport = :${NODE_PORTS[$((i - 1))]} )" | wc -l)")
  RSS_HELD+=("$(rss "${NODE_PIDS[$((i - 1))]}")")
done
for p in "${GEN_PIDS[@]}"; do wait "$p" || true; done
CPU_AFTER=(); for p in "${NODE_PIDS[@]}" "$REDIS"; do CPU_AFTER+=("$(cpu_ticks "$p")"); done
REDIS_MEM=$(redis-cli -p "$RP" info memory | awk -F: '/^used_memory:/ {print $2}' | tr -d '\r')

python3 - "$OUT" "$GENS" "$TOTAL" "$(getconf CLK_TCK)" "$REDIS_MEM" \
  "${HELD[*]}" "${RSS_BEFORE[*]}" "${RSS_HELD[*]}" "${CPU_BEFORE[*]}" "${CPU_AFTER[*]}" <<'PY'
import json, sys
out, gens, total, hz, redis_mem = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
held, rss0, rss1, cpu0, cpu1 = ([int(x) for x in a.split()] for a in sys.argv[6:11])
runs = [json.loads(open(f"{out}/bench-{g}.json").read().strip().splitlines()[-1]) for g in range(1, gens + 1)]
sent = runs[0]["sent"]
delivered = sum(r["delivered"] for r in runs)
opened = sum(r["opened"] for r in runs)
def ms(us): return f"{us / 1000:.1f} ms" if us >= 1000 else f"{us:.0f} µs"
print("| generator | connections open | delivered | p50 | p99 | max | connect p99 |")
print("|---|---:|---:|---:|---:|---:|---:|")
for g, r in enumerate(runs, 1):
    l = r["latency_us"]
    print(f"| {g}{' (sender)' if g == 1 else ''} | {r['opened']}/{r['connections']} | {r['delivered']} | {ms(l['p50'])} | "
          f"{ms(l['p99'])} | {ms(l['max'])} | {r['connect_ms']['p99']:.0f} ms |")
print()
print("| node | connections held | RSS before | RSS held | KiB per connection | CPU s over the run |")
print("|---|---:|---:|---:|---:|---:|")
for i in range(len(held)):
    per = (rss1[i] - rss0[i]) / held[i] if held[i] else 0
    print(f"| 127.0.0.{i + 1} | {held[i]} | {rss0[i] / 1024:.1f} MiB | {rss1[i] / 1024:.1f} MiB | {per:.2f} | {(cpu1[i] - cpu0[i]) / hz:.1f} |")
print(f"\nRedis: CPU {(cpu1[-1] - cpu0[-1]) / hz:.1f} s over the run, used_memory {redis_mem / 1048576:.1f} MiB at the end")
ratio = delivered / (sent * total) if sent else 0
print(f"total: {opened}/{total} connections open, {sum(held)} held by the nodes; {sent} messages sent in the window, "
      f"{delivered} deliveries of {sent * total} expected (ratio {ratio:.4f}); worst p99 {ms(max(r['latency_us']['p99'] for r in runs))}")
PY
echo "results: $OUT"
