#!/usr/bin/env bash
# Maintainer check after changing py3port.py or py3runtime.py: runs every case class
# of the pristine suite under Python 2.7 and of the ported suite under Python 3, each
# against a fake protocol (trace-cases.py), and compares what they send and expect.
# Not part of scripts/test: it needs a python2.7, which few machines still have.
#
# usage: scripts/autobahn/crosscheck-py2.sh
# env:
#   ABT_PYTHON2  the Python 2.7 interpreter (default python2.7)
#   ABT_VENV     the ported venv (default /tmp/abt-venv-sb; setup.sh runs first)
# Downloads the two sdists from PyPI (pip download) for the pristine sources.
# Exit status 0 iff all 517 cases behave the same.
set -euo pipefail
ABT_SELF=crosscheck-py2
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

PY2="${ABT_PYTHON2:-python2.7}"
"$PY2" -c 'import sys; sys.exit(sys.version_info[:2] != (2, 7))' 2>/dev/null ||
  abt_die "no Python 2.7 as '$PY2' (set ABT_PYTHON2)"
"$ABT_DIR/setup.sh"

tmp="$(mktemp -d /tmp/abt-crosscheck.XXXXXX)"
trap 'rm -rf "$tmp"' EXIT
pins=($(grep -E '^(autobahntestsuite|autobahn)==' "$ABT_DIR/requirements.txt"))
"$ABT_VENV/bin/python" -m pip download --disable-pip-version-check -q --no-deps --no-binary :all: \
  -d "$tmp/dl" "${pins[@]}"
for sdist in "$tmp"/dl/*.tar.gz; do tar -xzf "$sdist" -C "$tmp"; done
ab="$(echo "$tmp"/autobahn-[0-9]*/)"
suite="$(echo "$tmp"/autobahntestsuite-[0-9]*/)"

"$ABT_VENV/bin/python" "$ABT_DIR/trace-cases.py" stubs "$tmp/stubs" "$ab"
# python2: the pristine case package, imported as the top-level package `case`
(cd "$tmp" && PYTHONPATH="$tmp/stubs:$suite/autobahntestsuite" "$PY2" "$ABT_DIR/trace-cases.py" trace "$tmp/py2.json")
(cd "$tmp" && "$ABT_VENV/bin/python" "$ABT_DIR/trace-cases.py" trace "$tmp/py3.json")
"$ABT_VENV/bin/python" "$ABT_DIR/trace-cases.py" compare "$tmp/py2.json" "$tmp/py3.json"
