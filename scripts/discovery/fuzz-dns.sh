#!/usr/bin/env bash
# fuzz-dns.sh [SECONDS] [libFuzzer flags...] — build the DNS decoder's libFuzzer target and run it.
#
#   scripts/discovery/fuzz-dns.sh 300            # five minutes
#   MERGE=1 scripts/discovery/fuzz-dns.sh 300    # then fold new coverage into the committed corpus
#
# Seeds: Tests/Fuzz/dns/corpus (committed, minimized) and the captured packets in
# Tests/SwitchboardDNSTests/Fixtures. New inputs go to $FUZZ_SCRATCH/corpus, crashes to
# $FUZZ_SCRATCH/crashes/ (each one belongs in a regression test). The build needs its own
# scratch path: sanitizer flags apply to every module, so it cannot share .build.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
RUN_SECONDS=${1:-300}
shift || true
SCRATCH=${FUZZ_SCRATCH:-/tmp/dns-fuzz}

# -DFUZZ_DNS turns the target into a libFuzzer target (Sources/fuzz-dns/FuzzDNS.swift).
swift build -c release --sanitize=fuzzer --sanitize=address --product fuzz-dns --scratch-path "$SCRATCH" \
  -Xswiftc -DFUZZ_DNS 2>&1 | grep -vE "^\[|Cannot export local symbol" || true
BIN="$SCRATCH/release/fuzz-dns"
[ -x "$BIN" ] || { echo "fuzz-dns did not build" >&2; exit 1; }
mkdir -p "$SCRATCH/corpus" "$SCRATCH/crashes"

# The Swift backtracer can hold the output for minutes after a crash; libFuzzer reports it.
export SWIFT_BACKTRACE=enable=no
"$BIN" -max_total_time="$RUN_SECONDS" -max_len=9000 -timeout=5 -print_final_stats=1 \
  -artifact_prefix="$SCRATCH/crashes/" "$@" \
  "$SCRATCH/corpus" Tests/Fuzz/dns/corpus Tests/SwitchboardDNSTests/Fixtures

if [ "${MERGE:-0}" = 1 ]; then
  "$BIN" -merge=1 -max_len=9000 Tests/Fuzz/dns/corpus "$SCRATCH/corpus" Tests/SwitchboardDNSTests/Fixtures
fi
