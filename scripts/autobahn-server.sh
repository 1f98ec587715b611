#!/usr/bin/env bash
# Runs the Autobahn|Testsuite fuzzing client against switchboard's /echo WebSocket endpoint.
#
# usage: scripts/autobahn-server.sh [CASES]
#   CASES  comma-separated case patterns (default "1.*,2.*,3.*,4.*,5.*,6.*,7.*,9.*,10.*");
#          "all" means "*" (1.*-10.* plus the permessage-deflate cases 12.* and 13.*);
#          "compression-ci" the 60 permessage-deflate cases scripts/test runs: the five
#          smallest message sizes (16-4,096 bytes) of every 12.* data set and every 13.*
#          parameter set (wstest patterns know only "*", so they are listed one by one)
# env:
#   SWITCHBOARD_BIN  the server binary (default: `swift build --show-bin-path`/switchboard,
#                    built first if missing)
#   ABT_VENV         venv for wstest (default /tmp/abt-venv-sb); scripts/autobahn/setup.sh
#                    makes it (from PyPI) the first time and checks it afterwards
#   ABT_OUT          report directory (default: a fresh /tmp/sb-autobahn.XXXXXX)
#   ABT_EXCLUDE, ABT_TIMEOUT, ABT_AGENT, ABT_STRICT  passed through to
#                    scripts/autobahn/run-server-suite.sh (ABT_STRICT=1: NON-STRICT fails)
# Starts the server on free loopback ports (line and datagram ports off), runs the suite,
# prints the summary, stops the server by its PID and exits with the suite's status.
# Everything it uses is in this repository (scripts/autobahn/; docs/TESTING.md).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT="$(pwd)"

CASES="${1:-1.*,2.*,3.*,4.*,5.*,6.*,7.*,9.*,10.*}"
[ "$CASES" = all ] && CASES='*'
if [ "$CASES" = compression-ci ]; then
  CASES=""
  for group in 12.1 12.2 12.3 12.4 12.5 13.1 13.2 13.3 13.4 13.5 13.6 13.7; do
    for size in 1 2 3 4 5; do CASES="$CASES${CASES:+,}$group.$size"; done
  done
fi

ABT="$ROOT/scripts/autobahn"
# idempotent: a no-op (no network) once the venv is current
"$ABT/setup.sh"

BIN="${SWITCHBOARD_BIN:-}"
if [ -z "$BIN" ]; then
  BIN="$(swift build --show-bin-path)/switchboard"
  [ -x "$BIN" ] || swift build --product switchboard
fi
[ -x "$BIN" ] || { echo "autobahn-server: server binary $BIN missing" >&2; exit 2; }

OUT="${ABT_OUT:-$(mktemp -d /tmp/sb-autobahn.XXXXXX)}"
export ABT_OUT="$OUT"
export ABT_AGENT="${ABT_AGENT:-switchboard}"
mkdir -p "$OUT"

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

SERVER_PID=""
stop_server() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  SERVER_PID=""
}
trap stop_server EXIT

started=""
for attempt in 1 2 3 4 5; do
  PORT="$(free_port)"
  "$BIN" serve --host 127.0.0.1 --tcp-port 0 --udp-port 0 --http-port "$PORT" \
    --no-advertise --ephemeral --max-message-size 16777216 --log-level warning \
    > "$OUT/server.log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 100); do
    kill -0 "$SERVER_PID" 2>/dev/null || break
    if python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1",int(sys.argv[1])),0.2).close()' "$PORT" 2>/dev/null; then
      started=1
      break
    fi
    sleep 0.1
  done
  [ -n "$started" ] && break
  stop_server
  echo "autobahn-server: server did not start on port $PORT (attempt $attempt): $(tail -1 "$OUT/server.log")" >&2
done
[ -n "$started" ] || { echo "autobahn-server: could not start $BIN" >&2; exit 2; }

echo "autobahn-server: switchboard pid $SERVER_PID on ws://127.0.0.1:$PORT/echo, reports in $OUT"
start=$(date +%s)
set +e
"$ABT/run-server-suite.sh" "ws://127.0.0.1:$PORT/echo" "$CASES"
rc=$?
set -e
end=$(date +%s)
if ! kill -0 "$SERVER_PID" 2>/dev/null; then
  echo "autobahn-server: the server exited during the run (log: $OUT/server.log)" >&2
  SERVER_PID=""
  [ $rc -eq 0 ] && rc=1
fi
stop_server
echo "autobahn-server: cases [$CASES] took $((end - start)) s wall; exit $rc"
exit $rc
