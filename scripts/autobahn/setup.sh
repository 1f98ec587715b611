#!/usr/bin/env bash
# Makes the venv with Autobahn|Testsuite's `wstest`, ported to Python 3.
#
# usage: scripts/autobahn/setup.sh
# env:
#   ABT_VENV    where the venv goes (default /tmp/abt-venv-sb)
#   ABT_PYTHON  the interpreter to make it with (default python3; 3.8-3.12, since
#               the port uses lib2to3, which Python 3.13 removed; tested with 3.11)
# What it does: python -m venv; pip install --no-deps of requirements.txt (every
# package pinned; needs PyPI); pip check; then py3port.py rewrites the installed
# autobahntestsuite (Python 2 code) for Python 3; last, a smoke test.
# Idempotent: when the venv was made from the current requirements.txt, py3port.py
# and py3runtime.py it only checks that and returns, without network. After a change
# to any of them it installs again and ports pristine copies of the two packages.
set -euo pipefail
ABT_SELF=setup
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

PY="${ABT_PYTHON:-python3}"
REQ="$ABT_DIR/requirements.txt"
STAMP="$ABT_VENV/.switchboard-setup"
want="$(cat "$REQ" "$ABT_DIR/py3port.py" "$ABT_DIR/py3runtime.py" | sha256sum | cut -d' ' -f1)"

if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ] && [ -x "$ABT_VENV/bin/wstest" ] \
  && "$ABT_VENV/bin/python" "$ABT_DIR/py3port.py" --check 2>/dev/null; then
  echo "setup: $ABT_VENV is up to date"
  exit 0
fi

command -v "$PY" >/dev/null || abt_die "no $PY (set ABT_PYTHON)"
"$PY" - <<'PY' || abt_die "$PY is Python $("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])'); the port needs 3.8-3.12 (lib2to3)"
import sys
sys.exit(0 if (3, 8) <= sys.version_info[:2] <= (3, 12) else 1)
PY
"$PY" -c 'import venv, ensurepip' 2>/dev/null || abt_die "$PY has no venv/ensurepip module (Debian: apt-get install python3-venv)"

if [ ! -x "$ABT_VENV/bin/python" ]; then
  echo "setup: creating $ABT_VENV"
  "$PY" -m venv "$ABT_VENV"
fi
rm -f "$STAMP"
PIP=("$ABT_VENV/bin/python" -m pip --disable-pip-version-check --no-input -q)

echo "setup: installing requirements.txt from PyPI"
"${PIP[@]}" install --no-deps -r "$REQ"
# --no-deps keeps the environment to exactly the pinned list; pip check proves that
# list is complete and consistent.
"${PIP[@]}" check

# py3port.py ports the PyPI files byte for byte (it checks pip's RECORD), so unless
# this version of the port is already in place, start again from pristine copies.
if ! "$ABT_VENV/bin/python" "$ABT_DIR/py3port.py" --check 2>/dev/null; then
  pins=($(grep -E '^(autobahntestsuite|autobahn)==' "$REQ"))
  [ ${#pins[@]} -eq 2 ] || abt_die "requirements.txt must pin autobahntestsuite and autobahn"
  "${PIP[@]}" install --no-deps --force-reinstall "${pins[@]}"
  "$ABT_VENV/bin/python" "$ABT_DIR/py3port.py"
fi

# Smoke test: the package imports, all 517 cases are there, wstest's entry point runs.
"$ABT_VENV/bin/python" - <<'PY' || abt_die "the ported suite does not import (see above)"
import autobahn, autobahntestsuite
from autobahntestsuite.case import Cases
assert len(Cases) == 517, "expected 517 cases, found %d" % len(Cases)
print("setup: autobahntestsuite %s on autobahn %s, %d cases" % (autobahntestsuite.version, autobahn.version, len(Cases)))
PY
"$ABT_VENV/bin/wstest" --autobahnversion >/dev/null || abt_die "wstest does not run"

echo "$want" > "$STAMP"
echo "setup: ready: $ABT_VENV/bin/wstest"
