#!/usr/bin/env bash
# Installs the test peers the suite drives (real programs nobody here wrote), when they
# are missing and this is Debian with root. Safe to run repeatedly; never downloads
# anything but Debian packages and PyPI wheels.
set -euo pipefail

need_apt=()
command -v nc >/dev/null 2>&1 || need_apt+=(netcat-openbsd)
command -v python3 >/dev/null 2>&1 || need_apt+=(python3)
command -v curl >/dev/null 2>&1 || need_apt+=(curl)

if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "install-test-peers: apt-get install ${need_apt[*]}"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
  else
    echo "install-test-peers: missing ${need_apt[*]} (tests that need them are skipped)" >&2
  fi
fi
