#!/usr/bin/env bash
# interop-all.sh [SWITCHBOARD_BINARY] — every mDNS interop script of scripts/discovery, one
# after the other (each in network namespaces of its own, built and deleted by the script;
# nothing multicasts in the root namespace). Exit 0 when all passed, 1 when one failed, 2
# when they cannot run here (not root, no `ip netns`): scripts/test then reports them as
# skipped. INTEROP_ONLY="serve peer" runs just those (names without `interop-`).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
. scripts/lib.sh
SB=$(SWITCHBOARD_BIN=${1:-${SWITCHBOARD_BIN:-}} sb_binary debug) || exit 2
scripts=()
if [ -n "${INTEROP_ONLY:-}" ]; then
  for name in $INTEROP_ONLY; do
    [ "$name" = builtin ] && scripts+=(scripts/discovery/interop.sh) || scripts+=("scripts/discovery/interop-$name.sh")
  done
else
  scripts=(scripts/discovery/interop.sh scripts/discovery/interop-*.sh)
fi
failed=() skipped=()
for script in "${scripts[@]}"; do
  [ "$script" = scripts/discovery/interop-all.sh ] && continue
  echo "== $script"
  start=$SECONDS
  "$script" "$SB"
  rc=$?
  echo "== $script: exit $rc after $((SECONDS - start)) s"
  case $rc in
    0) ;;
    2) skipped+=("$script") ;;
    *) failed+=("$script") ;;
  esac
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "interop-all: FAILED: ${failed[*]}" >&2
  exit 1
fi
if [ ${#skipped[@]} -gt 0 ] && [ ${#skipped[@]} -eq ${#scripts[@]} ]; then
  echo "interop-all: cannot run here (${skipped[*]})" >&2
  exit 2
fi
[ ${#skipped[@]} -gt 0 ] && { echo "interop-all: could not run ${skipped[*]}" >&2; exit 1; }
echo "interop-all: all passed"
