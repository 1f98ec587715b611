# Sourced by the scripts in scripts/autobahn/: shared defaults and helpers.
# (Not executable on its own.)

ABT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# The venv with the ported wstest. Outside the repository (it is ~100 MB and made
# from PyPI), under /tmp so a fresh clone needs no setup of its own beyond setup.sh.
# The name differs from other checkouts' /tmp/abt-venv on purpose: a venv ported
# by another recipe must not be mistaken for ours (py3port.py checks its marker).
ABT_VENV="${ABT_VENV:-/tmp/abt-venv-sb}"

abt_die() {
  echo "${ABT_SELF:-autobahn}: $*" >&2
  exit 2
}

# wstest must exist and carry the current port (else: run setup.sh).
abt_require_wstest() {
  if [ ! -x "$ABT_VENV/bin/wstest" ] || ! "$ABT_VENV/bin/python" "$ABT_DIR/py3port.py" --check; then
    abt_die "no current ported wstest in $ABT_VENV - run $ABT_DIR/setup.sh first"
  fi
}

# Writes a wstest spec file: abt_write_spec FILE KEY=VALUE...
#   string values as given; cases/exclude are comma-separated lists; servers_url/agent
#   make the one-entry "servers" list of fuzzingclient.
abt_write_spec() {
  "$ABT_VENV/bin/python" - "$@" <<'PY'
import json, sys
path, pairs = sys.argv[1], dict(a.split("=", 1) for a in sys.argv[2:])
split = lambda s: [x.strip() for x in s.split(",") if x.strip()]
spec = {"outdir": pairs["outdir"],
        "cases": split(pairs["cases"]),
        "exclude-cases": split(pairs.get("exclude", "")),
        "exclude-agent-cases": {}}
if "server_url" in pairs:   # fuzzingclient: the server under test
    spec["servers"] = [{"agent": pairs["agent"], "url": pairs["server_url"]}]
if "url" in pairs:          # fuzzingserver: where it listens
    spec["url"] = pairs["url"]
if "interface" in pairs:    # fuzzingserver: bind address (py3port.py adds this key)
    spec["interface"] = pairs["interface"]
with open(path, "w") as f:
    json.dump(spec, f, indent=2)
PY
}

# "Ok, will run N test cases ..." from a wstest log, or nothing.
abt_case_count() {
  sed -n 's/^Ok, will run \([0-9]*\) test cases.*/\1/p' "$1" | head -1
}

# Remove the reports of an earlier run from a report directory (only wstest's files).
abt_clear_reports() {
  rm -f "$1"/index.json "$1"/index.html "$1"/*_case_*.json "$1"/*_case_*.html
}
