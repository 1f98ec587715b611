#!/usr/bin/env bash
# release-smoke.sh [RELEASE_BINARY] — what only an optimized build can get wrong: a release
# `switchboard serve` starts, answers /healthz, carries a line from one TCP client to
# another, and exits 0 on SIGTERM (an optimized build once released its signal sources
# early and ignored SIGTERM; the test suites run the debug build and cannot see that).
# Loopback only, ports the kernel picks (`serve … any`), every process started here stopped
# by PID. Without an argument it builds the release binary first (scripts/lib.sh's sb_binary;
# SWITCHBOARD_BIN is not consulted: scripts/test exports the debug build's there).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/lib.sh
if [ $# -ge 1 ]; then
  SB=$1
else
  SB=$(SWITCHBOARD_BIN='' sb_binary release) || exit 1
fi
[ -x "$SB" ] || { echo "release-smoke: no binary at $SB" >&2; exit 1; }

work=$(mktemp -d /tmp/sb-release-smoke.XXXXXX)
SERVE=""
cleanup() {
  stop_all
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "release-smoke: FAIL $1" >&2; [ -f "$work/serve.log" ] && sed 's/^/  serve: /' "$work/serve.log" >&2; exit 1; }

sb_serve "$work/serve.log" "$SB" serve --host 127.0.0.1 --tcp-port any --udp-port any --http-port any \
  --ephemeral --no-advertise || fail "serve did not start"
SERVE=$SERVE_PID TCP=$SERVE_TCP HTTP=$SERVE_HTTP

python3 - "$HTTP" "$TCP" <<'PY' || fail "healthz or a line between two TCP clients"
import socket, sys, time
http, tcp = int(sys.argv[1]), int(sys.argv[2])
s = socket.create_connection(("127.0.0.1", http), 5)
s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
reply = b""
while True:
    chunk = s.recv(4096)
    if not chunk: break
    reply += chunk
assert reply.startswith(b"HTTP/1.1 200"), reply
a = socket.create_connection(("127.0.0.1", tcp), 5)
b = socket.create_connection(("127.0.0.1", tcp), 5)
def wait_for(sock, text, seconds=5):
    deadline, seen = time.time() + seconds, b""
    sock.settimeout(0.5)
    while text not in seen and time.time() < deadline:
        try: seen += sock.recv(4096)
        except socket.timeout: pass
    assert text in seen, (text, seen)
# /who answers after the name is set, on the same connection: both are in the room then.
a.sendall(b"iam:alice\n/who\n")
wait_for(a, b"* in lobby (")
b.sendall(b"iam:bob\n/who\n")
wait_for(b, b"* in lobby (2)")
a.sendall(b"msg:hello from a release build\n")
wait_for(b, b"hello from a release build")
PY

kill -TERM "$SERVE"
for _ in $(seq 100); do kill -0 "$SERVE" 2>/dev/null || break; sleep 0.1; done
kill -0 "$SERVE" 2>/dev/null && fail "serve ignored SIGTERM for 10 s"
wait "$SERVE"; rc=$?
SERVE="" PIDS=()
[ "$rc" = 0 ] || fail "serve exited $rc on SIGTERM"
echo "release-smoke: PASS (healthz, a TCP line between two clients, SIGTERM exits 0)"
