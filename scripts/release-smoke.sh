#!/usr/bin/env bash
# release-smoke.sh [RELEASE_BINARY] — what only an optimized build can get wrong: a release
# `switchboard serve` starts, answers /healthz, carries a line from one TCP client to
# another, and exits 0 on SIGTERM (an optimized build once released its signal sources
# early and ignored SIGTERM; the test suites run the debug build and cannot see that).
# Loopback only, ports probed free, every process started here stopped by PID.
# Without an argument it builds the release binary first (swift build -c release).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ $# -ge 1 ]; then
  SB=$1
else
  swift build -c release --product switchboard 2>&1 | grep -E "error|warning: |Build complete" || true
  SB="$(swift build -c release --show-bin-path)/switchboard"
fi
[ -x "$SB" ] || { echo "release-smoke: no binary at $SB" >&2; exit 1; }

work=$(mktemp -d /tmp/sb-release-smoke.XXXXXX)
SERVE=""
cleanup() {
  [ -n "$SERVE" ] && kill -0 "$SERVE" 2>/dev/null && kill -9 "$SERVE" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "release-smoke: FAIL $1" >&2; [ -f "$work/serve.log" ] && sed 's/^/  serve: /' "$work/serve.log" >&2; exit 1; }

for attempt in 1 2 3; do
  read -r TCP UDP HTTP < <(python3 -c '
import socket
def free(kind):
    s = socket.socket(socket.AF_INET, kind); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p
print(free(socket.SOCK_STREAM), free(socket.SOCK_DGRAM), free(socket.SOCK_STREAM))')
  "$SB" serve --host 127.0.0.1 --tcp-port "$TCP" --udp-port "$UDP" --http-port "$HTTP" --ephemeral --no-advertise \
    >"$work/serve.log" 2>&1 &
  SERVE=$!
  for _ in $(seq 100); do
    python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 0.2).close()' "$HTTP" \
      2>/dev/null && break
    kill -0 "$SERVE" 2>/dev/null || break
    sleep 0.1
  done
  kill -0 "$SERVE" 2>/dev/null && break
  grep -q "in use" "$work/serve.log" || fail "serve did not start"
  SERVE=""  # a port another program took meanwhile: probe again
done
[ -n "$SERVE" ] || fail "serve did not start (ports in use three times)"

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
SERVE=""
[ "$rc" = 0 ] || fail "serve exited $rc on SIGTERM"
echo "release-smoke: PASS (healthz, a TCP line between two clients, SIGTERM exits 0)"
