#!/usr/bin/env bash
# What one more idle WebSocket connection costs the server, four ways: its resident memory
# (VmRSS), anonymous memory (RssAnon: heap and stacks), the binary's resident pages
# (RssFile) and the heap in use (`switchboard_heap_bytes_in_use` in /metrics, glibc's
# mallinfo2). One server with one loop and glibc's default allocator settings; the figures
# are read when it is fresh, after WARM connections and after N, each connection upgraded
# (text dialect, one room) before the next opens, and printed per connection from fresh
# and from the warm-up (which leaves out what the first connections fault in once: ~2.7
# MiB of the binary's code, the loop's buffers).
#
#   benchmarks/idle-bytes.sh                 # 10,000 connections after 100
#   benchmarks/idle-bytes.sh 19000 100       # N (below the descriptor hard limit), WARM
#
# Environment: SWIFT_SCRATCH (build scratch path), BENCH_WORK. Output: a table on stdout.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
N=${1:-10000}
WARM=${2:-100}
. "$ROOT/benchmarks/common.sh"
bench_setup idle-bytes
trap stop_all EXIT
GLIBC_TUNABLES= sb_serve "$OUT/server.log" "$SB" serve --host 127.0.0.1 --http-port any --tcp-port 0 --udp-port 0 \
  --loops 1 --no-advertise --ephemeral --log-level warning --max-connections-per-ip 0 || exit 1
SERVER=$SERVE_PID HTTP=$SERVE_HTTP

PYTHONPATH="$ROOT/benchmarks" python3 - "$HTTP" "$WARM" "$N" "$SERVER" <<'PY'
import re, socket, sys, time
from idle_clients import open_idle, wait_for_server
port, warm, n, pid = (int(x) for x in sys.argv[1:5])
def sample():
    rows = {l.split(":")[0]: int(l.split()[1]) * 1024 for l in open(f"/proc/{pid}/status")
            if l.startswith(("VmRSS:", "RssAnon:", "RssFile:"))}
    c = socket.create_connection(("127.0.0.1", port), timeout=10)
    c.sendall(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    text = b""
    while chunk := c.recv(65536): text += chunk
    m = re.search(rb"\nswitchboard_heap_bytes_in_use (\d+)", text)
    rows["heap in use"] = int(m.group(1)) if m else None
    return rows
wait_for_server(port, pid, timeout=30)
held = []
target = "/rooms/idle?format=text"
fresh = sample()
open_idle(port, target, warm, held)
time.sleep(1.5)  # cancelled timers leave the loop's heap within a second
warmed = sample()
open_idle(port, target, n - warm, held)
time.sleep(1.5)
end = sample()
print(f"{n} idle WebSocket connections, one server loop\n")
print(f"| figure | fresh | after {warm} | after {n} | B per connection from fresh | from {warm} |")
print("|---|---:|---:|---:|---:|---:|")
for k in ("VmRSS", "RssAnon", "RssFile", "heap in use"):
    if end[k] is None: print(f"| {k} | – | – | – | – | – |"); continue
    print(f"| {k} | {fresh[k] >> 10} KiB | {warmed[k] >> 10} KiB | {end[k] >> 10} KiB | "
          f"{(end[k] - fresh[k]) / n:.0f} | {(end[k] - warmed[k]) / (n - warm):.0f} |")
PY
