#!/usr/bin/env bash
# 50,000 idle WebSocket connections on one machine whose per-process descriptor limit is
# below that: Switchboard in several processes, one per loopback address (127.0.0.1,
# 127.0.0.2, …, all routed to `lo` on Linux), each held by its own generator process.
#
#   benchmarks/idle-50k.sh                  # 50,000 connections over 3 server processes
#   benchmarks/idle-50k.sh 60000 4          # total, processes
#
# Every process needs one descriptor per connection, so PROCESSES × (its share + a few)
# must fit under `ulimit -Hn` per process. This is not one server holding 50,000: rooms do
# not span these processes (that is what a broker between servers is for). It shows what
# the machine holds and the memory each connection costs; on a machine that allows
# 50,000 descriptors per process, run `switchboard bench --idle --connections 50000`
# against one server instead. Environment: SWIFT_SCRATCH (build scratch path), BENCH_WORK.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TOTAL=${1:-50000}
PROCS=${2:-3}
. "$ROOT/benchmarks/common.sh"
bench_setup idle-50k
HARD=$(ulimit -Hn)
PER=$(( (TOTAL + PROCS - 1) / PROCS ))
if [ $((PER + 64)) -gt "$HARD" ]; then
  echo "idle-50k.sh: $PER connections per process do not fit the descriptor limit $HARD; use more processes" >&2
  exit 64
fi

trap stop_all EXIT

SERVERS=() PORTS=()
for i in $(seq "$PROCS"); do
  sb_serve "$OUT/server-$i.log" "$SB" serve --host "127.0.0.$i" --http-port any --tcp-port 0 --udp-port 0 --loops 1 \
    --no-advertise --ephemeral --log-level warning --max-connections-per-ip 0 || exit 1
  SERVERS+=("$SERVE_PID") PORTS+=("$SERVE_HTTP")
done

# Every generator holds its share until all are open, then reports.
GEN=()
for i in $(seq "$PROCS"); do
  n=$PER; [ "$i" -eq "$PROCS" ] && n=$((TOTAL - PER * (PROCS - 1)))
  "$SB" bench "ws://127.0.0.$i:${PORTS[$((i - 1))]}/" --idle --connections "$n" --duration 15 \
    --server-pid "${SERVERS[$((i - 1))]}" --json --quiet >"$OUT/bench-$i.json" 2>"$OUT/bench-$i.txt" &
  GEN+=($!) PIDS+=($!)
done
# Count what the servers hold while the generators hold it.
peak=0
for _ in $(seq 60); do
  held=0
  for i in $(seq "$PROCS"); do
    held=$((held + $(ss -Htn state established "( src 127.0.0.$i and sport = :${PORTS[$((i - 1))]} )" | wc -l)))
  done
  [ "$held" -gt "$peak" ] && peak=$held
  [ "$held" -ge "$TOTAL" ] && break
  sleep 0.5
done
for g in "${GEN[@]}"; do wait "$g" || true; done

python3 - "$OUT" "$PROCS" "$TOTAL" "$peak" <<'PY'
import json, sys
out, procs, total, peak = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
opened = rss = 0
# KiB per connection: the server's RSS growth over the run; anonymous: its RssAnon's (heap
# and stacks, without the binary's pages a fresh server faults in with its first
# connections, ~2.7 MiB in all).
print("| process | connections open | server RSS | KiB per connection | anonymous | connect p99 |")
print("|---|---:|---:|---:|---:|---:|")
for i in range(1, procs + 1):
    b = json.loads(open(f"{out}/bench-{i}.json").read().strip().splitlines()[-1])
    opened += b["opened"]
    rss += b.get("server_rss_kib") or 0
    per, anon = b.get("server_kib_per_connection"), b.get("server_anon_kib_per_connection")
    print(f"| 127.0.0.{i} | {b['opened']}/{b['connections']} | {(b.get('server_rss_kib') or 0) / 1024:.1f} MiB | "
          f"{'–' if per is None else f'{per:.2f}'} | {'–' if anon is None else f'{anon:.2f}'} | "
          f"{b['connect_ms']['p99']:.0f} ms |")
print(f"\ntotal: {opened}/{total} connections open in {procs} server processes "
      f"(server side established at once, counted with ss: {peak}); servers' RSS together {rss / 1024:.1f} MiB")
PY
echo "results: $OUT"
