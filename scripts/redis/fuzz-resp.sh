#!/usr/bin/env bash
# fuzz-resp.sh [SECONDS] [libFuzzer flags...] — build the RESP decoder's libFuzzer target and run it.
#
#   scripts/redis/fuzz-resp.sh 300            # five minutes
#   MERGE=1 scripts/redis/fuzz-resp.sh 300    # then fold new coverage into the committed corpus
#
# Seeds: Tests/Fuzz/resp/corpus (committed, minimized). New inputs go to $FUZZ_SCRATCH/corpus,
# crashes to $FUZZ_SCRATCH/crashes/ (each one belongs in a regression test in
# Tests/SwitchboardRESPTests). The build needs its own scratch path: sanitizer flags apply to
# every module, so it cannot share .build.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
RUN_SECONDS=${1:-300}
shift || true
SCRATCH=${FUZZ_SCRATCH:-/tmp/resp-fuzz}

# -DFUZZ_RESP turns the target into a libFuzzer target (Sources/fuzz-resp/FuzzRESP.swift).
swift build -c release --sanitize=fuzzer --sanitize=address --product fuzz-resp --scratch-path "$SCRATCH" \
  -Xswiftc -DFUZZ_RESP 2>&1 | grep -vE "^\[|Cannot export local symbol" || true
BIN="$SCRATCH/release/fuzz-resp"
[ -x "$BIN" ] || { echo "fuzz-resp did not build" >&2; exit 1; }
# Seen here: the first build in a fresh scratch path can leave the codec's objects without the
# coverage instrumentation (libFuzzer then reports "no interesting inputs"); build them again.
if command -v objdump >/dev/null 2>&1 && ! objdump -h "$BIN" | grep -q __sancov_pcs; then
  echo "fuzz-resp: no coverage instrumentation in the binary; rebuilding the codec" >&2
  rm -rf "$SCRATCH/release/SwitchboardRESP.build" "$SCRATCH/release/fuzz_resp.build"
  swift build -c release --sanitize=fuzzer --sanitize=address --product fuzz-resp --scratch-path "$SCRATCH" \
    -Xswiftc -DFUZZ_RESP 2>&1 | grep -vE "^\[|Cannot export local symbol" || true
  objdump -h "$BIN" | grep -q __sancov_pcs || { echo "fuzz-resp: still not instrumented" >&2; exit 1; }
fi
mkdir -p "$SCRATCH/corpus" "$SCRATCH/crashes"

# The Swift backtracer can hold the output for minutes after a crash; libFuzzer reports it.
export SWIFT_BACKTRACE=enable=no
"$BIN" -max_total_time="$RUN_SECONDS" -max_len=8192 -timeout=5 -rss_limit_mb=2048 -print_final_stats=1 \
  -dict=Tests/Fuzz/resp/resp.dict -artifact_prefix="$SCRATCH/crashes/" "$@" \
  "$SCRATCH/corpus" Tests/Fuzz/resp/corpus

if [ "${MERGE:-0}" = 1 ]; then
  "$BIN" -merge=1 -max_len=8192 -dict=Tests/Fuzz/resp/resp.dict Tests/Fuzz/resp/corpus "$SCRATCH/corpus"
fi
