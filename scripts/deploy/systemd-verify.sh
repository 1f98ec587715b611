#!/usr/bin/env bash
# systemd-verify.sh [SWITCHBOARD_BINARY] — checks deploy/systemd/*.service with
# `systemd-analyze verify` (unknown keys, bad values, a missing binary), on copies whose
# ExecStart names the built binary. Any warning counts as a failure (verify itself exits 0
# on an unknown key). Loads nothing into a running systemd. Exit 0 passed, 1 failed,
# 2 cannot run here (no systemd-analyze).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
. scripts/lib.sh
command -v systemd-analyze >/dev/null 2>&1 || { echo "systemd-verify: no systemd-analyze" >&2; exit 2; }
SB=$(SWITCHBOARD_BIN=${1:-${SWITCHBOARD_BIN:-}} sb_binary debug) || exit 1
work="$(mktemp -d /tmp/sb-systemd.XXXXXX)"
trap 'rm -rf "$work"' EXIT
for unit in deploy/systemd/*.service; do
  sed "s#/usr/local/bin/switchboard#$SB#" "$unit" >"$work/$(basename "$unit")"
done
rc=0
for name in switchboard.service switchboard@1.service; do
  # An instance checks the template (switchboard@.service) with %i filled in.
  out="$(cd "$work" && systemd-analyze verify "./$name" 2>&1)" || rc=1
  if [ -n "$out" ]; then
    echo "$out" >&2
    rc=1
  fi
  [ "$rc" = 0 ] && echo "systemd-verify: $name ok"
done
[ "$rc" = 0 ] || echo "systemd-verify: FAILED" >&2
exit "$rc"
