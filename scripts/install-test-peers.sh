#!/usr/bin/env bash
# Installs the test peers the suite drives (real programs nobody here wrote), when they
# are missing and this is Debian with root. Safe to run repeatedly; never downloads
# anything but Debian packages and PyPI wheels.
set -euo pipefail

need_apt=()
command -v nc >/dev/null 2>&1 || need_apt+=(netcat-openbsd)
command -v python3 >/dev/null 2>&1 || need_apt+=(python3)
command -v curl >/dev/null 2>&1 || need_apt+=(curl)
command -v tmux >/dev/null 2>&1 || need_apt+=(tmux)
command -v openssl >/dev/null 2>&1 || need_apt+=(openssl)
command -v redis-server >/dev/null 2>&1 || need_apt+=(redis-server)

if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "install-test-peers: apt-get install ${need_apt[*]}"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
  else
    echo "install-test-peers: missing ${need_apt[*]} (tests that need them are skipped)" >&2
  fi
fi

# --- WebSocket peers (Tests/peers/) -----------------------------------------------
# chromium (browser_chat.py) comes from apt.
need_apt=()
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "install-test-peers: apt-get install ${need_apt[*]}"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null \
      || echo "install-test-peers: could not install ${need_apt[*]} (tests that need them are skipped)" >&2
  else
    echo "install-test-peers: missing ${need_apt[*]} (tests that need them are skipped)" >&2
  fi
fi

# python3 `websockets` (ws_chat_client.py, browser_chat.py) from PyPI, for the python3
# on PATH; --break-system-packages only if pip refuses an externally managed install.
if command -v python3 >/dev/null 2>&1 && ! python3 -c 'import websockets' >/dev/null 2>&1; then
  echo "install-test-peers: pip install websockets"
  python3 -m pip install -q --disable-pip-version-check websockets >/dev/null 2>&1 \
    || python3 -m pip install -q --disable-pip-version-check --break-system-packages websockets >/dev/null 2>&1 \
    || echo "install-test-peers: could not install python websockets (tests that need it are skipped)" >&2
fi

# python3 `aiohttp` (Tests/peers/backend.py: the app backend the outbound HTTP client, the
# webhooks and the auth hook talk to), from PyPI, the same way.
if command -v python3 >/dev/null 2>&1 && ! python3 -c 'import aiohttp' >/dev/null 2>&1; then
  echo "install-test-peers: pip install aiohttp"
  python3 -m pip install -q --disable-pip-version-check aiohttp >/dev/null 2>&1 \
    || python3 -m pip install -q --disable-pip-version-check --break-system-packages aiohttp >/dev/null 2>&1 \
    || echo "install-test-peers: could not install python aiohttp (tests that need it are skipped)" >&2
fi

# python3 `PyJWT` with `cryptography` (scripts/security/pyjwt-peer.py: the token interop
# suites), from PyPI, the same way.
if command -v python3 >/dev/null 2>&1 && ! python3 -c 'import jwt, cryptography' >/dev/null 2>&1; then
  echo "install-test-peers: pip install PyJWT cryptography"
  python3 -m pip install -q --disable-pip-version-check PyJWT cryptography >/dev/null 2>&1 \
    || python3 -m pip install -q --disable-pip-version-check --break-system-packages PyJWT cryptography >/dev/null 2>&1 \
    || echo "install-test-peers: could not install python PyJWT (tests that need it are skipped)" >&2
fi

# node `ws` (node_ws_client.js): this node is not Debian's, so the Debian package is
# unpacked rather than installed; use NODE_PATH=$SWITCHBOARD_PEERS_CACHE/node-ws/usr/share/nodejs.
PEERS_CACHE="${SWITCHBOARD_PEERS_CACHE:-/var/cache/switchboard-peers}"
if command -v node >/dev/null 2>&1 && [ ! -f "$PEERS_CACHE/node-ws/usr/share/nodejs/ws/package.json" ]; then
  if command -v apt-get >/dev/null 2>&1 && mkdir -p "$PEERS_CACHE" 2>/dev/null && [ -w "$PEERS_CACHE" ]; then
    echo "install-test-peers: apt-get download node-ws -> $PEERS_CACHE/node-ws"
    tmp="$(mktemp -d)"
    chmod 755 "$tmp"
    if (cd "$tmp" && apt-get download -qq node-ws >/dev/null 2>&1 \
          || { [ "$(id -u)" = 0 ] && apt-get update -qq >/dev/null && apt-get download -qq node-ws >/dev/null 2>&1; }) \
       && ls "$tmp"/node-ws_*.deb >/dev/null 2>&1; then
      rm -rf "$PEERS_CACHE/node-ws.new"
      dpkg-deb -x "$tmp"/node-ws_*.deb "$PEERS_CACHE/node-ws.new"
      rm -rf "$PEERS_CACHE/node-ws"
      mv "$PEERS_CACHE/node-ws.new" "$PEERS_CACHE/node-ws"
    else
      echo "install-test-peers: could not download node-ws (tests that need it are skipped)" >&2
    fi
    rm -rf "$tmp"
  else
    echo "install-test-peers: node-ws missing and $PEERS_CACHE not writable (tests that need it are skipped)" >&2
  fi
fi

# nginx with its stream module (scripts/deploy/nginx-three-nodes.sh), unpacked rather than
# installed, like node-ws: installing Debian's nginx would start a system nginx on port 80.
# The test runs $PEERS_CACHE/nginx/usr/sbin/nginx with a prefix, pid and logs of its own.
if ! command -v nginx >/dev/null 2>&1 && [ ! -x "$PEERS_CACHE/nginx/usr/sbin/nginx" ]; then
  if command -v apt-get >/dev/null 2>&1 && mkdir -p "$PEERS_CACHE" 2>/dev/null && [ -w "$PEERS_CACHE" ]; then
    echo "install-test-peers: apt-get download nginx libnginx-mod-stream -> $PEERS_CACHE/nginx"
    tmp="$(mktemp -d)"
    chmod 755 "$tmp"
    if (cd "$tmp" && apt-get download -qq nginx libnginx-mod-stream >/dev/null 2>&1 \
          || { [ "$(id -u)" = 0 ] && apt-get update -qq >/dev/null && apt-get download -qq nginx libnginx-mod-stream >/dev/null 2>&1; }) \
       && ls "$tmp"/nginx_*.deb "$tmp"/libnginx-mod-stream_*.deb >/dev/null 2>&1; then
      rm -rf "$PEERS_CACHE/nginx.new"
      for deb in "$tmp"/*.deb; do dpkg-deb -x "$deb" "$PEERS_CACHE/nginx.new"; done
      rm -rf "$PEERS_CACHE/nginx"
      mv "$PEERS_CACHE/nginx.new" "$PEERS_CACHE/nginx"
    else
      echo "install-test-peers: could not download nginx (the nginx test is skipped)" >&2
    fi
    rm -rf "$tmp"
  else
    echo "install-test-peers: nginx missing and $PEERS_CACHE not writable (the nginx test is skipped)" >&2
  fi
fi
