#!/usr/bin/env bash
# fuzz-resp.sh [SECONDS] [libFuzzer flags...] — the RESP decoder's fuzzer; the same as
# `scripts/fuzz resp SECONDS` (MERGE=1 and FUZZ_SCRATCH as there; docs/TESTING.md, "Fuzzing").
exec "$(dirname "${BASH_SOURCE[0]}")/../fuzz" resp "${1:-300}" "${@:2}"
