#!/usr/bin/env bash
# Every heap allocation an idle WebSocket connection keeps, by allocation site. Two runs of
# the server (one loop, --no-advertise) under `valgrind --tool=dhat`: one holding WARM idle
# connections, one holding WARM + N; in each, once all are open, the server is killed
# with SIGUSR2 (no shutdown: DHAT writes the blocks live at that moment, "t-end"). The
# live blocks are grouped by the function that allocated them (the first frame that is
# not the allocator or a collection's growth), and the difference between the runs,
# divided by N, is what one more idle connection keeps: blocks, requested bytes, and the
# bytes glibc really takes (8 bytes of header plus the request, rounded up to 16, at
# least 32; a growing table's storage is one block, counted as requested).
#
#   benchmarks/idle-heap.sh                 # 1,000 text-dialect connections after 100
#   benchmarks/idle-heap.sh 2000 200 '/rooms/idle?format=text' debug
#
# Arguments: N, WARM, the request target, the build (release or debug; valgrind runs a
# copy stripped of its DWARF, which valgrind 3.19 cannot read, keeping the symbols).
# Environment: SWIFT_SCRATCH (build scratch path), BENCH_WORK. Output: the table on stdout,
# the DHAT file and the server's log in $BENCH_WORK/idle-heap-DATE/.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
N=${1:-1000}
WARM=${2:-100}
TARGET=${3:-/rooms/idle?format=text}
BUILD=${4:-release}
. "$ROOT/benchmarks/common.sh"
bench_setup idle-heap "$BUILD"
BIN="$OUT/switchboard"
objcopy --strip-debug "$SB" "$BIN"


# run COUNT FILE — a server under DHAT holding COUNT idle connections, killed with them open.
run() {
  local count=$1 file=$2 http server
  # GLIBC_TUNABLES as the server is run in production (the default allocator settings);
  # no Swift backtracer, so SIGUSR2 ends the process at once.
  GLIBC_TUNABLES= SWIFT_BACKTRACE=enable=no sb_serve "$file.log" valgrind --tool=dhat --dhat-out-file="$file" "$BIN" serve \
    --host 127.0.0.1 --http-port any --tcp-port 0 --udp-port 0 --loops 1 --no-advertise --ephemeral \
    --log-level warning --max-connections-per-ip 0 || exit 1
  server=$SERVE_PID http=$SERVE_HTTP
  # Each connection is upgraded before the next opens.
  PYTHONPATH="$ROOT/benchmarks" python3 - "$http" "$count" "$TARGET" "$server" <<'PY'
import os, signal, sys, time
from idle_clients import open_idle, wait_for_server
port, count, target, server = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
wait_for_server(port, server)
held = []
open_idle(port, target, count, held)
# The loop's cancelled timers leave its heap within a second; two seconds, then the kill.
time.sleep(2.5)
os.kill(server, signal.SIGUSR2)
PY
  wait "$server" || true
}

trap stop_all EXIT
run "$WARM" "$OUT/warm.json"
run $((WARM + N)) "$OUT/held.json"

python3 - "$OUT/warm.json" "$OUT/held.json" "$N" <<'PY'
import json, re, shutil, subprocess, sys
n = int(sys.argv[3])
allocator = re.compile(r"^(malloc|calloc|realloc|memalign|posix_memalign|aligned_alloc|operator new|swift_slowAlloc|"
                       r"swift_allocObject|swift_allocBox|swift_allocEmptyBox|\?\?\?)")
stdlib = re.compile(r"^\$s(s|S[aDhS])")  # the standard library's own functions (arrays, tables, strings)
def load(path):
    d = json.load(open(path))
    frames = [re.sub(r" \(in [^)]*\)$", "", f.split(": ", 1)[-1]) for f in d["ftbl"]]
    sites = {}
    for pp in d["pps"]:
        blocks = pp.get("ebk", 0)
        if blocks == 0: continue
        names = [frames[i] for i in pp["fs"] if not allocator.search(frames[i])]
        own = [i for i, x in enumerate(names) if not stdlib.search(x)]
        site = names[own[0]] if own else (names[0] if names else "?")
        via = names[own[0] - 1] if own and own[0] > 0 else ""
        size = pp["eb"] / blocks
        # A growing table's storage is one block of the whole table: counted as requested.
        chunk = pp["eb"] if blocks == 1 else max(32, (int(size) + 8 + 15) // 16 * 16) * blocks
        r = sites.setdefault((site, via), [0, 0, 0])
        r[0] += blocks; r[1] += pp["eb"]; r[2] += chunk
    return sites
warm, held = load(sys.argv[1]), load(sys.argv[2])
rows = []
for key in set(warm) | set(held):
    a, b = warm.get(key, [0, 0, 0]), held.get(key, [0, 0, 0])
    delta = [b[i] - a[i] for i in range(3)]
    if abs(delta[2]) >= n * 4: rows.append((key, delta))
names = sorted({x for (site, via), _ in rows for x in (site, via) if x})
demangler = shutil.which("swift-demangle")
readable = dict(zip(names, subprocess.run([demangler, "--simplified", "--compact"], input="\n".join(names),
                                          capture_output=True, text=True).stdout.splitlines())) if demangler else {}
show = lambda x: readable.get(x, x)[:110]
print(f"live heap kept by {n} more idle connections, by allocation site (sites with 4 B or more each)\n")
print("| allocated in | through | blocks each | requested B each | glibc B each |")
print("|---|---|---:|---:|---:|")
for (site, via), (blocks, req, chunk) in sorted(rows, key=lambda r: -r[1][2]):
    print(f"| `{show(site)}` | {'`' + show(via) + '`' if via else ''} | {blocks / n:.2f} | {req / n:.1f} | {chunk / n:.1f} |")
tot = lambda s, i: sum(v[i] for v in s.values())
print(f"| **whole heap** | | {(tot(held, 0) - tot(warm, 0)) / n:.2f} | {(tot(held, 1) - tot(warm, 1)) / n:.1f} | "
      f"**{(tot(held, 2) - tot(warm, 2)) / n:.1f}** |")
PY
echo "results: $OUT"
