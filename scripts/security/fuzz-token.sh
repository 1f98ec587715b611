#!/usr/bin/env bash
# fuzz-token.sh [SECONDS] [libFuzzer flags...] — build the token decoder's libFuzzer target and run it.
#
#   scripts/security/fuzz-token.sh 300            # five minutes
#   MERGE=1 scripts/security/fuzz-token.sh 300    # then fold new coverage into the committed corpus
#
# Seeds: Tests/Fuzz/token/corpus (committed; scripts/security/make-token-corpus.py wrote the
# first ones). New inputs go to $FUZZ_SCRATCH/corpus, crashes to $FUZZ_SCRATCH/crashes/ (each
# one belongs in a regression test). The build needs its own scratch path: sanitizer flags
# apply to every module, so it cannot share .build.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
RUN_SECONDS=${1:-300}
shift || true
SCRATCH=${FUZZ_SCRATCH:-/tmp/token-fuzz}

# -DFUZZ_TOKEN turns the target into a libFuzzer target (Sources/fuzz-token/FuzzToken.swift).
BIN="$SCRATCH/release/fuzz-token"
build() {
  swift build -c release --sanitize=fuzzer --sanitize=address --product fuzz-token --scratch-path "$SCRATCH" \
    -Xswiftc -DFUZZ_TOKEN 2>&1 | grep -vE "^\[|Cannot export local symbol|build-commit|^ *[0-9]* \||^ *\|" || true
}
# (grep -c, not -q: under pipefail an early exit of grep fails nm with SIGPIPE.)
instrumented() { [ -x "$BIN" ] && [ "$(nm "$BIN" | grep -c __start___sancov_cntrs)" -gt 0 ]; }
# Seen once here: an incremental build that linked a binary without coverage counters,
# which libFuzzer runs blind ("no interesting inputs"). Build again, and never run without.
build
instrumented || build
instrumented || { echo "fuzz-token did not build with coverage: remove $SCRATCH and run again" >&2; exit 1; }
mkdir -p "$SCRATCH/corpus" "$SCRATCH/crashes"

# The Swift backtracer can hold the output for minutes after a crash; libFuzzer reports it.
# Tokens over the 8 KiB limit are refused before any work, so longer inputs teach nothing.
export SWIFT_BACKTRACE=enable=no
"$BIN" -max_total_time="$RUN_SECONDS" -max_len=9000 -timeout=5 -print_final_stats=1 \
  -dict=Tests/Fuzz/token/token.dict -artifact_prefix="$SCRATCH/crashes/" "$@" \
  "$SCRATCH/corpus" Tests/Fuzz/token/corpus

if [ "${MERGE:-0}" = 1 ]; then
  "$BIN" -merge=1 -max_len=9000 Tests/Fuzz/token/corpus "$SCRATCH/corpus"
fi
