#!/usr/bin/env bash
# A member's latency while the webhook receiver hangs, against no webhooks at all and
# against a receiver that answers: the POSTs must cost the chat loops nothing
# (docs/BENCHMARKS.md, "Webhooks"). One `switchboard serve` per case, each with
# `--webhook-events` of every kind (message.published too: one event per message), the
# receiver Tests/peers/backend.py (aiohttp) in mode `hang` or `ok`; one `switchboard bench`
# (WebSocket, text dialect) per case. Prints p50/p99/p99.9 send-to-receipt latency and the
# webhook counters side by side. Timing is measured here, never asserted in a test.
#
#   benchmarks/webhooks.sh                       # 10 s per case
#   benchmarks/webhooks.sh --duration 5 --rate 2000 --connections 100
#
# Options: --duration S (default 10), --connections C (default 50), --rate R (total msg/s,
# default 1000), --rounds K (cases interleaved K times; default 1). Environment:
# SWITCHBOARD_BIN (default the release build, built first), SWIFT_SCRATCH, BENCH_WORK.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DURATION=10 CONNS=50 RATE=1000 ROUNDS=1
while [ $# -gt 0 ]; do
  case "$1" in
    --duration) DURATION=$2; shift ;;
    --connections) CONNS=$2; shift ;;
    --rate) RATE=$2; shift ;;
    --rounds) ROUNDS=$2; shift ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "webhooks.sh: unknown option $1" >&2; exit 64 ;;
  esac
  shift
done
. "$ROOT/benchmarks/common.sh"
bench_setup webhooks
python3 -c 'import aiohttp' 2>/dev/null || { echo "webhooks.sh: needs python3 with aiohttp (scripts/install-test-peers.sh)" >&2; exit 1; }
SECRET=benchmark-webhook-secret-of-32-bytes-or-more
trap stop_all EXIT

run_case() {  # run_case CASE ROUND: none, hang or ok
  local case=$1 round=$2 hook=() backend_pid="" fifo="$OUT/backend-$1-$2.in"
  if [ "$case" != none ]; then
    mkfifo "$fifo"
    python3 -u "$ROOT/Tests/peers/backend.py" --secret "$SECRET" <"$fifo" >"$OUT/backend-$case-$round.log" 2>&1 &
    backend_pid=$! PIDS+=($!)
    exec 7>"$fifo"
    echo "mode $case" >&7
    for _ in $(seq 1 100); do grep -q "^mode $case" "$OUT/backend-$case-$round.log" 2>/dev/null && break; sleep 0.1; done
    local port
    port=$(sed -n 's/^port //p' "$OUT/backend-$case-$round.log")
    hook=(--webhook "http://127.0.0.1:$port/hooks" --webhook-secret "$SECRET"
      --webhook-events room.occupied,room.vacated,member.joined,member.left,message.published)
  fi
  sb_serve "$OUT/serve-$case-$round.log" "$SB" serve --ephemeral --no-advertise --host 127.0.0.1 --http-port any \
    --tcp-port 0 --udp-port 0 --max-connections-per-ip 0 --log-level warning "${hook[@]}" || exit 1
  "$SB" bench "ws://127.0.0.1:$SERVE_HTTP/rooms/bench" --connections "$CONNS" --senders 1 --rate "$RATE" \
    --duration "$DURATION" --warmup 2 --server-pid "$SERVE_PID" --json --quiet \
    >"$OUT/bench-$case-$round.json" 2>"$OUT/bench-$case-$round.txt" || true
  curl -s "http://127.0.0.1:$SERVE_HTTP/metrics" | grep '^switchboard_webhook_.*target="0"' \
    >"$OUT/metrics-$case-$round.txt" || true
  stop_pid "$SERVE_PID"
  if [ -n "$backend_pid" ]; then
    exec 7>&-
    stop_pid "$backend_pid"
  fi
}

for round in $(seq 1 "$ROUNDS"); do
  for case in none hang ok; do run_case "$case" "$round"; done
done

python3 - "$OUT" "$ROUNDS" <<'PY'
import json, os, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def metric(case, rnd, name):
    path = os.path.join(out, f"metrics-{case}-{rnd}.txt")
    for line in open(path) if os.path.exists(path) else []:
        if line.startswith(name + "{"):
            return int(float(line.split()[-1]))
    return "-"
print(f"{'webhooks':<22}{'delivered/s':>12}{'p50 µs':>9}{'p99 µs':>9}{'p99.9 µs':>10}{'sent':>9}{'dropped':>9}{'queued':>8}")
for case, label in (("none", "none"), ("hang", "receiver hangs"), ("ok", "receiver answers")):
    for rnd in range(1, rounds + 1):
        try:
            row = json.loads(open(os.path.join(out, f"bench-{case}-{rnd}.json")).read().strip().splitlines()[-1])
        except Exception:
            print(f"{label:<22} (no result: see {out})")
            continue
        lat = row.get("latency_us", {})
        print(f"{label:<22}{row.get('delivered_per_sec', 0):>12.0f}{lat.get('p50', 0):>9.0f}{lat.get('p99', 0):>9.0f}"
              f"{lat.get('p999', 0):>10.0f}{metric(case, rnd, 'switchboard_webhook_events_sent_total'):>9}"
              f"{metric(case, rnd, 'switchboard_webhook_events_dropped_total'):>9}"
              f"{metric(case, rnd, 'switchboard_webhook_queue_depth'):>8}")
print(f"(results: {out})")
PY
