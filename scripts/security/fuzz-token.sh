#!/usr/bin/env bash
# fuzz-token.sh [SECONDS] [libFuzzer flags...] — the token decoder's fuzzer; the same as
# `scripts/fuzz token SECONDS` (MERGE=1 and FUZZ_SCRATCH as there; docs/TESTING.md, "Fuzzing").
# Seeds: Tests/Fuzz/token/corpus (scripts/security/make-token-corpus.py wrote the first ones).
exec "$(dirname "${BASH_SOURCE[0]}")/../fuzz" token "${1:-300}" "${@:2}"
