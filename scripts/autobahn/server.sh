#!/usr/bin/env bash
# Runs the Autobahn|Testsuite fuzzing client against switchboard's /echo WebSocket endpoint.
#
# usage: scripts/autobahn/server.sh [CASES]
#   CASES  comma-separated case patterns (default "1.*,2.*,3.*,4.*,5.*,6.*,7.*,9.*,10.*");
#          "all" means "*" (1.*-10.* plus the permessage-deflate cases 12.* and 13.*);
#          "compression-ci" the 60 permessage-deflate cases scripts/test runs: the five
#          smallest message sizes (16-4,096 bytes) of every 12.* data set and every 13.*
#          parameter set (wstest patterns know only "*", so they are listed one by one)
# env:
#   SWITCHBOARD_BIN  the server binary (default: the debug build, built first; scripts/lib.sh)
#   ABT_VENV         venv for wstest (default /tmp/abt-venv-sb); scripts/autobahn/setup.sh
#                    makes it (from PyPI) the first time and checks it afterwards
#   ABT_OUT          report directory (default: a fresh /tmp/sb-autobahn.XXXXXX)
#   ABT_EXCLUDE, ABT_TIMEOUT, ABT_AGENT, ABT_STRICT  passed through to
#                    scripts/autobahn/run-server-suite.sh (ABT_STRICT=1: NON-STRICT fails)
# Starts the server on a loopback port the kernel picks (`--http-port any`; line and
# datagram ports off), runs the suite,
# prints the summary, stops the server by its PID and exits with the suite's status.
# Everything it uses is in this repository (scripts/autobahn/; docs/TESTING.md).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT="$(pwd)"
. scripts/lib.sh

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

BIN=$(sb_binary debug) || { echo "autobahn/server: no server binary" >&2; exit 2; }

OUT="${ABT_OUT:-$(mktemp -d /tmp/sb-autobahn.XXXXXX)}"
export ABT_OUT="$OUT"
export ABT_AGENT="${ABT_AGENT:-switchboard}"
mkdir -p "$OUT"

trap stop_all EXIT
sb_serve "$OUT/server.log" "$BIN" serve --host 127.0.0.1 --tcp-port 0 --udp-port 0 --http-port any \
  --no-advertise --ephemeral --max-message-size 16777216 --log-level warning ||
  { echo "autobahn/server: could not start $BIN" >&2; exit 2; }
SERVER_PID=$SERVE_PID PORT=$SERVE_HTTP

echo "autobahn/server: switchboard pid $SERVER_PID on ws://127.0.0.1:$PORT/echo, reports in $OUT"
start=$(date +%s)
set +e
"$ABT/run-server-suite.sh" "ws://127.0.0.1:$PORT/echo" "$CASES"
rc=$?
set -e
end=$(date +%s)
if ! kill -0 "$SERVER_PID" 2>/dev/null; then
  echo "autobahn/server: the server exited during the run (log: $OUT/server.log)" >&2
  [ $rc -eq 0 ] && rc=1
fi
stop_all
echo "autobahn/server: cases [$CASES] took $((end - start)) s wall; exit $rc"
exit $rc
