#!/usr/bin/env bash
# Runs Autobahn|Testsuite's fuzzing client (`wstest -m fuzzingclient`) against a
# WebSocket SERVER that is already listening, then prints the summary.
#
# usage: scripts/autobahn/run-server-suite.sh URL [CASES]
#   URL    ws://HOST:PORT/PATH of the server under test; HOST must be loopback
#          (127.0.0.0/8, ::1 or localhost): the fuzzer sends malformed traffic.
#   CASES  comma-separated case patterns, default "*" (1.*-10.* and the
#          permessage-deflate cases 12.*, 13.*), e.g. "1.*,2.*" or "6.4.1"
# env:
#   ABT_VENV     the venv made by setup.sh (default /tmp/abt-venv-sb)
#   ABT_OUT      report directory (default: a new /tmp/abt-server.XXXXXX); earlier
#                reports in it are removed first
#   ABT_AGENT    the testee's name in the reports (default testee)
#   ABT_EXCLUDE  comma-separated case patterns to leave out
#   ABT_TIMEOUT  limit for the whole run in seconds (default 3600)
#   ABT_STRICT   1: a NON-STRICT case fails the run too (summarize.py --strict)
# Exit status: the summary's (0 iff no case FAILED and none is MISSING); 2 for
# setup or usage errors.
set -euo pipefail
ABT_SELF=run-server-suite
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  sed -n '2,18p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
URL="$1"
CASES="${2:-*}"
AGENT="${ABT_AGENT:-testee}"
TIMEOUT="${ABT_TIMEOUT:-3600}"

abt_require_wstest
# Loopback only, checked on the parsed host (a prefix match on "ws://127." would
# let ws://127.example.com through).
"$ABT_VENV/bin/python" - "$URL" <<'PY' || abt_die "refusing '$URL': only ws:// URLs on a loopback address are allowed"
import ipaddress, sys, urllib.parse
u = urllib.parse.urlsplit(sys.argv[1])
host = u.hostname or ""
try:
    ok = host == "localhost" or ipaddress.ip_address(host).is_loopback
except ValueError:
    ok = False
sys.exit(0 if u.scheme == "ws" and ok else 1)
PY

OUT="${ABT_OUT:-$(mktemp -d /tmp/abt-server.XXXXXX)}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
abt_clear_reports "$OUT"

# wstest runs in a scratch directory: it may write files into its working directory.
WORK="$(mktemp -d /tmp/abt-spec.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
abt_write_spec "$WORK/spec.json" outdir="$OUT" cases="$CASES" exclude="${ABT_EXCLUDE:-}" \
  server_url="$URL" agent="$AGENT"

echo "$ABT_SELF: $URL agent=$AGENT cases=[$CASES] exclude=[${ABT_EXCLUDE:-}] reports in $OUT"
start=$(date +%s)
set +e
(cd "$WORK" && timeout "$TIMEOUT" "$ABT_VENV/bin/wstest" -m fuzzingclient -s "$WORK/spec.json") \
  > "$OUT/wstest.log" 2>&1
wrc=$?
set -e
echo "$ABT_SELF: wstest exit $wrc after $(($(date +%s) - start)) s (log: $OUT/wstest.log)"
[ $wrc -eq 124 ] && echo "$ABT_SELF: wstest was stopped after ABT_TIMEOUT=$TIMEOUT s" >&2
# A traceback means the port (or autobahn) hit something unexpected; the results may
# still be complete, so warn rather than fail (the summary decides).
if grep -q '^Traceback' "$OUT/wstest.log"; then
  echo "$ABT_SELF: WARNING: Python tracebacks in $OUT/wstest.log" >&2
fi
grep -m1 '^Connection to .* failed' "$OUT/wstest.log" >&2 || true

expect="$(abt_case_count "$OUT/wstest.log")"
[ -n "$expect" ] || { tail -20 "$OUT/wstest.log" >&2; abt_die "wstest did not start (see $OUT/wstest.log)"; }
set +e
strict=()
[ "${ABT_STRICT:-0}" = 1 ] && strict=(--strict)
"$ABT_VENV/bin/python" "$ABT_DIR/summarize.py" "$OUT" --agent "$AGENT" --expect "$expect" "${strict[@]}"
exit $?
