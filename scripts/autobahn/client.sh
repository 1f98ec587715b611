#!/usr/bin/env bash
# Runs the Autobahn|Testsuite fuzzing server against Switchboard's WebSocket client
# (SwitchboardClient.WebSocketClient) and prints the summary.
#
# usage: scripts/autobahn/client.sh
# env:
#   ABT_CASES   case patterns (default 1.*,2.*,3.*,4.*,5.*,6.*,7.*,9.*,10.*;
#               '12.*,13.*' are the permessage-deflate cases, ~10 min)
#   ABT_PORT    port for the fuzzing server on 127.0.0.1 (default: a free one)
#   ABT_OUT     report directory (default: a fresh /tmp/abt-client.XXXXXX)
#   ABT_AGENT   agent name in the reports (default switchboard-client)
#   ABT_VENV    the wstest venv (default /tmp/abt-venv-sb); scripts/autobahn/setup.sh
#               makes it (from PyPI) the first time and checks it afterwards
#   ABT_TIMEOUT limit for the client's run in seconds (default 3600)
#   ABT_COMPRESSION=0   the testee does not offer permessage-deflate
#   SWIFT_CONFIG        debug or release (default release)
# The testee is the package's `autobahn-client` executable (Sources/autobahn-client).
# Everything it uses is in this repository (scripts/autobahn/; docs/TESTING.md).
# Exit status: 0 iff no case FAILED or is MISSING (scripts/autobahn/run-client-suite.sh's).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
. "$ROOT/scripts/lib.sh"
ABT="$ROOT/scripts/autobahn"
export ABT_CASES="${ABT_CASES:-1.*,2.*,3.*,4.*,5.*,6.*,7.*,9.*,10.*}"
export ABT_AGENT="${ABT_AGENT:-switchboard-client}"
CONFIG="${SWIFT_CONFIG:-release}"

# 1. wstest (idempotent: a no-op, without network, once the venv is current)
"$ABT/setup.sh"

# 2. the testee
grep -q '"autobahn-client"' "$ROOT/Package.swift" ||
  { echo "autobahn-client: Package.swift has no autobahn-client product" >&2; exit 2; }
swift build --package-path "$ROOT" -c "$CONFIG" --product autobahn-client
BIN="$(swift build --package-path "$ROOT" -c "$CONFIG" --show-bin-path)/autobahn-client"
[ -x "$BIN" ] || { echo "autobahn-client: $BIN missing after the build" >&2; exit 2; }

# 3. the suite
# wstest's fuzzing server takes its port on the command line (it cannot report one it chose).
PORT="${ABT_PORT:-$(free_ports 1)}"
echo "autobahn-client: cases [$ABT_CASES] on port $PORT, testee $BIN"
exec "$ABT/run-client-suite.sh" "$PORT" -- "$BIN"
