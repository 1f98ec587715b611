#!/usr/bin/env bash
# fuzz-dns.sh [SECONDS] [libFuzzer flags...] — the DNS decoder's fuzzer; the same as
# `scripts/fuzz dns SECONDS` (MERGE=1 and FUZZ_SCRATCH as there; docs/TESTING.md, "Fuzzing").
exec "$(dirname "${BASH_SOURCE[0]}")/../fuzz" dns "${1:-300}" "${@:2}"
