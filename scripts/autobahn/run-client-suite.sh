#!/usr/bin/env bash
# Runs Autobahn|Testsuite's fuzzing server (`wstest -m fuzzingserver`) on
# 127.0.0.1:PORT to test a WebSocket CLIENT, then prints the summary.
#
# usage: scripts/autobahn/run-client-suite.sh PORT [-- CLIENT_CMD [ARGS...]]
#   With CLIENT_CMD: starts the fuzzing server, runs the client with ABT_URL
#   (ws://127.0.0.1:PORT) and ABT_AGENT in its environment, asks for the reports if
#   the client did not, stops the server (by its PID) and summarizes.
#   Without: runs the fuzzing server in the foreground until Ctrl-C; then run
#   scripts/autobahn/summarize.py REPORT_DIR yourself.
# The client under test (URL = ws://127.0.0.1:PORT):
#   1. opens URL/getCaseCount and receives one text message, the case count N
#   2. for n = 1..N opens URL/runCase?case=n&agent=AGENT and echoes every message
#      (text as text, binary as binary) until the server closes; one connection per case
#   3. opens URL/updateReports?agent=AGENT: the server writes the reports
# env:
#   ABT_CASES    comma-separated case patterns (default "*": 1.*-10.*, 12.*, 13.*)
#   ABT_VENV, ABT_OUT, ABT_AGENT, ABT_EXCLUDE, ABT_TIMEOUT, ABT_STRICT as in run-server-suite.sh
#   (ABT_OUT default: a new /tmp/abt-client.XXXXXX)
# The server binds 127.0.0.1 only and has no web port (-u 0); upstream it listens on
# every interface and serves its report pages on 8080.
# Exit status: the summary's (0 iff no case FAILED and none is MISSING); 2 for setup
# or usage errors.
set -euo pipefail
ABT_SELF=run-client-suite
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

if [ $# -lt 1 ] || ! [[ "$1" =~ ^[0-9]+$ ]] || [ "$1" -lt 1 ] || [ "$1" -gt 65535 ]; then
  sed -n '2,25p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
PORT="$1"
shift
if [ $# -gt 0 ]; then
  [ "$1" = "--" ] || abt_die "expected -- before the client command"
  shift
fi
AGENT="${ABT_AGENT:-testee}"
TIMEOUT="${ABT_TIMEOUT:-3600}"
CASES="${ABT_CASES:-*}"

abt_require_wstest
OUT="${ABT_OUT:-$(mktemp -d /tmp/abt-client.XXXXXX)}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
abt_clear_reports "$OUT"
URL="ws://127.0.0.1:$PORT"

WORK="$(mktemp -d /tmp/abt-spec.XXXXXX)"
SERVER_PID=""
stop_server() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  SERVER_PID=""
}
trap 'stop_server; rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM

abt_write_spec "$WORK/spec.json" outdir="$OUT" cases="$CASES" exclude="${ABT_EXCLUDE:-}" \
  url="$URL" interface=127.0.0.1

# -u 0: no embedded web server. `exec` so that $! is wstest itself.
(cd "$WORK" && exec "$ABT_VENV/bin/wstest" -m fuzzingserver -s "$WORK/spec.json" -u 0) \
  > "$OUT/wstest.log" 2>&1 &
SERVER_PID=$!
# Ready when it has printed its case count and accepts connections.
expect=""
for _ in $(seq 150); do
  kill -0 "$SERVER_PID" 2>/dev/null || { tail -20 "$OUT/wstest.log" >&2; abt_die "the fuzzing server exited (log: $OUT/wstest.log)"; }
  expect="$(abt_case_count "$OUT/wstest.log")"
  if [ -n "$expect" ] && "$ABT_VENV/bin/python" -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1).close()' "$PORT" 2>/dev/null; then
    break
  fi
  expect=""
  sleep 0.2
done
[ -n "$expect" ] || abt_die "the fuzzing server did not come up on $URL (log: $OUT/wstest.log)"
echo "$ABT_SELF: fuzzing server pid $SERVER_PID on $URL, $expect cases [$CASES], reports in $OUT"

if [ $# -eq 0 ]; then
  echo "$ABT_SELF: waiting for clients (Ctrl-C stops); then: $ABT_DIR/summarize.py $OUT"
  wait "$SERVER_PID" || true
  SERVER_PID=""
  exit 0
fi

start=$(date +%s)
set +e
ABT_URL="$URL" ABT_AGENT="$AGENT" timeout "$TIMEOUT" "$@"
crc=$?
set -e
echo "$ABT_SELF: client exit $crc after $(($(date +%s) - start)) s (server log: $OUT/wstest.log)"
[ $crc -eq 124 ] && echo "$ABT_SELF: the client was stopped after ABT_TIMEOUT=$TIMEOUT s" >&2
if [ ! -f "$OUT/index.json" ]; then
  # The client stopped before step 3: ask for the reports of what ran (the summary
  # then shows the rest as MISSING).
  echo "$ABT_SELF: no reports yet; requesting them" >&2
  "$ABT_VENV/bin/python" "$ABT_DIR/update-reports.py" "$PORT" "$AGENT" || true
fi
stop_server
if grep -q '^Traceback' "$OUT/wstest.log"; then
  echo "$ABT_SELF: WARNING: Python tracebacks in $OUT/wstest.log" >&2
fi
set +e
strict=()
[ "${ABT_STRICT:-0}" = 1 ] && strict=(--strict)
"$ABT_VENV/bin/python" "$ABT_DIR/summarize.py" "$OUT" --agent "$AGENT" --expect "$expect" "${strict[@]}"
rc=$?
# a client that failed (other than by failing cases) must not pass
[ $rc -eq 0 ] && [ $crc -ne 0 ] && { echo "$ABT_SELF: the client exited $crc" >&2; rc=1; }
exit $rc
