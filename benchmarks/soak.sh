#!/usr/bin/env bash
# The soak (not in CI): one release `switchboard serve --no-advertise` under mixed load for
# MINUTES (default 30) on loopback ports the kernel picks, with SQLite history in a temporary directory.
#
#   benchmarks/soak.sh 5                      # 5 minutes, figures on stdout
#   benchmarks/soak.sh 30 --plot soak.svg     # and descriptors + RSS over time as SVG
#
# Load: JSON WebSocket, TCP line, UDP and WebSocket text senders; resuming receivers
# (python JSON clients reconnecting with since+epoch, and `switchboard chat --pipe`);
# random clean and reset disconnects; bad clients replaying rows of docs/BAD-INPUT.md;
# SIGTERM and a restart on the same ports and data directory at half time. The driver
# is benchmarks/soak/driver.py (python 3 with `websockets` 13+; a venv with it is made
# under SOAK_WORK when the system python lacks it).
#
# Options: --plot FILE.svg, --rate R (messages/s per sender, default 4), --seed N,
# --listeners N (read-only WebSocket members, default 40), --heap (every 5 minutes gdb
# attaches for about a second and reads glibc's malloc_stats and SQLite's heap; needs gdb),
# --no-build. Environment: SOAK_WORK (default: a new directory under /tmp, kept: server
# log, chat.log, samples.csv, metrics.csv, heap.csv, trace.log), SWITCHBOARD_BIN (default: the
# release build, built first).
# Exit 0 when no acknowledged message was lost or duplicated, the server never died on
# its own and every bad client got its documented answer.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
MINUTES=30
PLOT=""
EXTRA=()
BUILD=1
while [ $# -gt 0 ]; do
  case "$1" in
    --plot) PLOT=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift ;;
    --rate|--seed|--listeners) EXTRA+=("$1" "$2"); shift ;;
    --heap) EXTRA+=("$1") ;;
    --no-build) BUILD=0 ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    [0-9]*) MINUTES=$1 ;;
    *) echo "soak.sh: unknown option $1" >&2; exit 64 ;;
  esac
  shift
done

WORK=${SOAK_WORK:-$(mktemp -d /tmp/switchboard-soak.XXXXXX)}
mkdir -p "$WORK"
. "$ROOT/benchmarks/common.sh"
no_build=(); [ "$BUILD" = 1 ] || no_build=(--no-build)
SWITCHBOARD_BIN=$(sb_binary release "${no_build[@]}") || exit 1

PY=python3
if ! python3 -c 'import websockets.asyncio.client' 2>/dev/null; then
  if [ ! -x "$WORK/venv/bin/python" ]; then
    python3 -m venv "$WORK/venv" && "$WORK/venv/bin/pip" install -q websockets >&2
  fi
  PY="$WORK/venv/bin/python"
fi

ulimit -n "$(ulimit -Hn)"
echo "== soak: $MINUTES min, work directory $WORK, binary $SWITCHBOARD_BIN" >&2
args=(--bin "$SWITCHBOARD_BIN" --minutes "$MINUTES" --work "$WORK")
[ -n "$PLOT" ] && args+=(--plot "$PLOT")
exec "$PY" "$ROOT/benchmarks/soak/driver.py" "${args[@]}" "${EXTRA[@]}"
