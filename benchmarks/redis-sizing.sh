#!/usr/bin/env bash
# Redis memory for a Switchboard cluster's data: what a kept message costs (by body size),
# what a room, a member (presence entry) and a publish's ref key cost. One redis-server and
# one `serve --redis` node on loopback ports; a TCP line client makes the rooms,
# messages and members through the node, and `INFO memory`'s used_memory is read before
# and after each step. Prints a Markdown table (docs/SCALING.md, "Sizing Redis").
#
#   benchmarks/redis-sizing.sh                 # 1,000 rooms, 20,000 messages a size, 2,000 members
#   benchmarks/redis-sizing.sh 200 5000 500    # rooms, messages, members (quicker)
#
# Environment: SWITCHBOARD_BIN (default: the release build, built first), SWIFT_SCRATCH.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
ROOMS=${1:-1000}
MESSAGES=${2:-20000}
MEMBERS=${3:-2000}
. "$ROOT/benchmarks/common.sh"
command -v redis-server >/dev/null && command -v redis-cli >/dev/null || { echo "redis-sizing.sh: needs redis-server and redis-cli" >&2; exit 2; }
SB=$(sb_binary release) || exit 1
ulimit -n "$(ulimit -Hn)"
WORK=$(mktemp -d /tmp/sb-redis-sizing.XXXXXX)
cleanup() { stop_all; rm -rf "$WORK"; }
trap cleanup EXIT

read -r RP < <(free_ports 1)
redis-server --bind 127.0.0.1 --port "$RP" --save '' --appendonly no >"$WORK/redis.log" 2>&1 &
PIDS+=($!)
wait_port "$RP" 10 || exit 1
sb_serve "$WORK/node.log" "$SB" serve --redis "redis://127.0.0.1:$RP" --no-advertise --ephemeral --host 127.0.0.1 \
  --tcp-port any --udp-port 0 --http-port 0 --history 1000000 --max-connections-per-ip 0 --log-level warning || exit 1
TP=$SERVE_TCP

python3 - "$RP" "$TP" "$ROOMS" "$MESSAGES" "$MEMBERS" "$(redis-server --version | sed 's/ sha=.*//')" <<'PY'
import socket, subprocess, sys, time
rp, tp, rooms, messages, members, version = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]

def redis(*args):
    return subprocess.run(["redis-cli", "-p", rp, *map(str, args)], capture_output=True, text=True, check=True).stdout.strip()

def used():
    time.sleep(0.3)  # let the node's last writes land
    info = redis("info", "memory")
    return int(next(l.split(":")[1] for l in info.splitlines() if l.startswith("used_memory:")))

def drop_refs():
    """Deletes the ref keys (they expire after 60 s anyway) and returns how many there were."""
    keys = redis("--scan", "--pattern", "sb:*:ref:*").split()
    for i in range(0, len(keys), 500):
        redis("del", *keys[i:i + 500])
    return len(keys)

def wait(what, check, seconds=120):
    end = time.time() + seconds
    while not check():
        if time.time() > end:
            sys.exit(f"redis-sizing: timed out waiting for {what}")
        time.sleep(0.1)

class Line:
    def __init__(self, name):
        self.s = socket.create_connection(("127.0.0.1", tp), timeout=60)
        self.buf = b""
        self.s.sendall(f"iam:{name}\n".encode())
    def send(self, text):
        self.s.sendall(text.encode())
    def expect(self, prefix):
        while True:
            while b"\n" not in self.buf:
                chunk = self.s.recv(65536)
                if not chunk:
                    sys.exit("redis-sizing: the node closed the connection")
                self.buf += chunk
            line, self.buf = self.buf.split(b"\n", 1)
            if line.decode().startswith(prefix):
                return

rows = []
c = Line("sizer")
c.send("/join sizing-warmup\nmsg:warm\n"); c.expect("* you are now in")
time.sleep(0.5); drop_refs()

# Rooms: opened and left, no message (the meta hash: epoch and last id).
m0 = used()
for i in range(rooms):
    c.send(f"/join empty{i}\n"); c.expect("* you are now in")
m1 = used()
rows.append(("room, opened, no message (meta hash)", (m1 - m0) / rooms, f"{rooms} rooms"))

# Rooms with one 16-byte message: meta + a stream holding one entry, then the ref keys.
m0 = used()
for i in range(rooms):
    c.send(f"/join one{i}\nmsg:{'x' * 16}\n"); c.expect("* you are now in")
wait("the rooms' first messages", lambda: redis("exists", f"sb:{{one{rooms - 1}}}:log") == "1")
m1 = used(); refs = drop_refs(); m2 = used()
rows.append(("room with its first message (meta + stream of one entry)", (m2 - m0) / rooms, f"{rooms} rooms"))
rows.append(("ref key of a publish (kept 60 s)", (m1 - m2) / max(refs, 1), f"{refs} keys"))

# Kept messages, by text size, in one room each.
for size in (16, 64, 256, 1024):
    room = f"size{size}"
    c.send(f"/join {room}\n"); c.expect("* you are now in")
    c.send(f"msg:{'y' * size}\n"); wait("the first message", lambda: redis("xlen", f"sb:{{{room}}}:log") == "1")
    drop_refs(); m0 = used()
    line = f"msg:{'y' * size}\n"
    for start in range(0, messages, 1000):
        c.send(line * min(1000, messages - start))
    wait(f"{messages} messages of {size} bytes", lambda: int(redis("xlen", f"sb:{{{room}}}:log")) >= messages + 1)
    drop_refs(); m1 = used()
    rows.append((f"kept message, {size}-byte text (stream entry)", (m1 - m0) / messages, f"{messages} messages"))

# Members: presence entries in one room's sorted set, names like `member-0042`.
for n, label in ((100, "room of 100"), (members, f"room of {members}")):
    room = f"crowd{n}"
    m0 = used()
    conns = []
    for i in range(n):
        m = Line(f"member-{i:04d}")
        m.send(f"/join {room}\n"); m.expect("* you are now in")
        conns.append(m)
    wait(f"{n} presence entries", lambda: int(redis("zcard", f"sb:{{{room}}}:members")) >= n)
    m1 = used()
    rows.append((f"member, {label}", (m1 - m0) / n, f"{n} members, 11-character names"))
    for m in conns:
        m.s.close()

print(f"\nRedis {version.replace('Redis server ', '')}, used_memory before and after each step:\n")
print("| what | bytes each | measured over |")
print("|---|---:|---|")
for what, each, over in rows:
    print(f"| {what} | {each:.0f} | {over} |")
PY
