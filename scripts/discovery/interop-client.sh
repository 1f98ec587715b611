#!/usr/bin/env bash
# interop-client.sh [SWITCHBOARD_BINARY] — the client connecting by service name: in one
# namespace `switchboard serve` advertising itself, in another `switchboard send` and
# `switchboard chat` reaching it by name (line, UDP and WebSocket types); then the server
# restarts on other ports and the connected chats find it again by resolving anew and carry
# messages sent after the restart. Prints PASS/FAIL per check; exits 1 if any failed (2 when
# it cannot run: not root, no `ip netns`, no binary).
#
# Also, a service published by avahi (a responder nobody here wrote) is reached by name.
#
# Binary: $1, else $SWITCHBOARD_BIN, else the debug build (sb_binary). Needs root (network
# namespaces); installs what is missing like interop.sh (avahi-daemon, avahi-utils, dbus,
# iproute2). The clients use the built-in responder (`--mdns builtin` everywhere, so the
# avahi-daemon here never gets picked by `auto`).
#
#   sbcli-a [sbcli-va 10.231.12.1/24] <====veth====> [sbcli-vb 10.231.12.2/24] sbcli-b
#   switchboard serve --name "SB Target"              switchboard chat --service (watcher),
#   (_switchboard._tcp, _switchboard._udp,            chat dnssd://…_http._tcp (piper), send
#    _http._tcp; host name sbcli-a),
#   avahi-daemon (host sbcli-av, own dbus),
#   avahi-publish "Avahi Target" (serve's line port)
#
# No multicast touches the root namespace: both veth ends are created inside the namespaces
# and every mDNS speaker runs inside one; every process started here is stopped by its PID
# and both namespaces are deleted on any exit. The ports are fixed because the namespaces
# are the script's own (nothing else can hold them). Logs stay in $SBCLI_RUN (default
# /tmp/sbcli-interop).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
SB=${1:-${SWITCHBOARD_BIN:-}}
RUN=${SBCLI_RUN:-/tmp/sbcli-interop}
ZC_VERSION=${ZC_VERSION:-0.154.0}
VENV=${SBDNS_VENV:-/tmp/sbdns-venv}
NS_A=sbcli-a NS_B=sbcli-b VETH_A=sbcli-va VETH_B=sbcli-vb
MAC_A=02:5b:d1:00:0c:01 MAC_B=02:5b:d1:00:0c:02
ADDR_A=10.231.12.1 ADDR_B=10.231.12.2
NAME="SB Target"
URL_NAME="SB%20Target"

[ "$(id -u)" = 0 ] || { echo "interop-client.sh needs root (network namespaces)" >&2; exit 2; }
. scripts/lib.sh
SB=$(SWITCHBOARD_BIN=$SB sb_binary debug) || exit 2
ip netns list >/dev/null 2>&1 || { echo "interop-client.sh: ip netns does not work here" >&2; exit 2; }
# The test launcher sets this so that a serve in the root namespace cannot advertise; every
# serve here runs inside our namespaces.
unset SWITCHBOARD_FORBID_ADVERTISE
. scripts/discovery/lib.sh
install_peers "$VENV" "$ZC_VERSION"

# Our PIDs are stopped and our namespaces deleted on any exit (lib.sh).
start_checks "$NS_A" "$NS_B"
ms() { echo $(($(date +%s%N) / 1000000)); }

rm -rf "$RUN" && mkdir -p "$RUN"
make_link "$NS_A" "$VETH_A" "$MAC_A" "$ADDR_A" "$NS_B" "$VETH_B" "$MAC_B" "$ADDR_B"
wait_link_local "$NS_A" "$VETH_A" "$NS_B" "$VETH_B"
# avahi in sbcli-a under a host name of its own (serve's responder holds sbcli-a).
start_avahi "$NS_A" "$RUN/a" sbcli-av "$VETH_A" || exit 1

# --- the server in sbcli-a, advertising itself ----------------------------------------------
# server_up GEN TCP UDP HTTP: `serve --name "SB Target"` on those ports with the host name
# sbcli-a (a UTS namespace of its own; unshare and ip netns exec exec, so $! is serve's PID),
# until it says all three names are won. Sets SERVE. Its fds 3 and 4 are closed (below).
server_up() {
  local gen=$1 tcp=$2 udp=$3 http=$4 type
  ip netns exec "$NS_A" unshare --uts sh -c 'hostname sbcli-a && exec "$@"' sh \
    "$SB" serve --name "$NAME" --mdns builtin --ephemeral --log-level info \
    --tcp-port "$tcp" --udp-port "$udp" --http-port "$http" >"$RUN/serve-$gen.log" 2>&1 3>&- 4>&- &
  SERVE=$!
  PIDS+=($SERVE)
  for type in _switchboard._tcp:$tcp _switchboard._udp:$udp _http._tcp:$http; do
    wait_for "$RUN/serve-$gen.log" "^advertised $NAME\\.${type%%:*}\\.local on sbcli-a\\.local:${type#*:}\$" 100 || return 1
  done
}
# server_down: SIGTERM (goodbyes, then members are told it is going away), exit 0.
server_down() {
  kill -TERM "$SERVE"
  for _ in $(seq 50); do kill -0 "$SERVE" 2>/dev/null || break; sleep 0.1; done
  wait "$SERVE"
}

T0=$(ms)
if server_up 1 7710 7711 7712; then
  pass "serve --name 'SB Target' on 7710/7711/7712 advertised _switchboard._tcp, _switchboard._udp, _http._tcp"
else
  fail "server up" "$(cat "$RUN"/serve-1.log)"
  exit 1
fi

# --- by name from sbcli-b ------------------------------------------------------------------
# Two pipe-mode chats whose stdin are FIFOs this script holds open (fd 3 and 4, opened once
# both have started and closed in every later child, so closing them is each chat's end of
# input): the watcher by --service on the line type, the piper by a dnssd:// URL of the web
# type (WebSocket).
mkfifo "$RUN/watcher.in" "$RUN/piper.in"
ip netns exec "$NS_B" "$SB" chat --service "$NAME" --mdns builtin --name watcher --pipe --wait 30 --log-level info \
  <"$RUN/watcher.in" >"$RUN/watcher.out" 2>"$RUN/watcher.err" &
WATCHER=$!
PIDS+=($WATCHER)
ip netns exec "$NS_B" "$SB" chat "dnssd://$URL_NAME._http._tcp.local/" --mdns builtin --name piper --pipe --wait 30 --log-level info \
  <"$RUN/piper.in" >"$RUN/piper.out" 2>"$RUN/piper.err" &
PIPER=$!
PIDS+=($PIPER)
exec 3>"$RUN/watcher.in" 4>"$RUN/piper.in"
if wait_for "$RUN/watcher.err" "connected.*reconnects=0" 150; then
  pass "chat --service 'SB Target': resolved and connected over the line type"
else
  fail "chat --service: connect" "$(cat "$RUN/watcher.err")"
fi
grep -qE "resolved.*port=7710" "$RUN/watcher.err" && pass "chat --service: resolved to port 7710 (SRV)" ||
  fail "chat --service: resolved port" "$(cat "$RUN/watcher.err")"
if wait_for "$RUN/piper.err" "connected.*reconnects=0" 150 && grep -qE "resolved.*port=7712" "$RUN/piper.err"; then
  pass "chat dnssd://SB%20Target._http._tcp.local/: resolved and connected over WebSocket (TXT ws port)"
else
  fail "chat dnssd:// _http._tcp: connect" "$(cat "$RUN/piper.err")"
fi

ip netns exec "$NS_B" "$SB" send --service "$NAME" --mdns builtin --name sender "hello by name" >"$RUN/send-tcp.log" 2>&1
rc=$?
if [ "$rc" = 0 ] && wait_for "$RUN/watcher.out" "^sender: hello by name$" 100; then
  pass "send --service 'SB Target': delivered over the line type"
else
  fail "send --service" "exit $rc; $(cat "$RUN/send-tcp.log" "$RUN/watcher.out")"
fi
ip netns exec "$NS_B" "$SB" send "dnssd://$URL_NAME._switchboard._udp.local" --mdns builtin --name udpsender "hello over udp" \
  >"$RUN/send-udp.log" 2>&1
rc=$?
if [ "$rc" = 0 ] && wait_for "$RUN/watcher.out" "^udpsender: hello over udp$" 100; then
  pass "send dnssd://SB%20Target._switchboard._udp.local: delivered as a datagram"
else
  fail "send dnssd:// _udp" "exit $rc; $(cat "$RUN/send-udp.log" "$RUN/watcher.out")"
fi
echo "first message" >&4
wait_for "$RUN/watcher.out" "^piper: first message$" 100 &&
  pass "chat by name: piper (WebSocket) to watcher (lines)" || fail "chat by name: first message" "$(cat "$RUN/watcher.out")"

# avahi publishes a second name for serve's line port, on avahi's host sbcli-av.local.
ip netns exec "$NS_A" avahi-publish -s "Avahi Target" _switchboard._tcp 7710 version=1 \
  >"$RUN/avahi-publish.log" 2>&1 3>&- 4>&- &
PIDS+=($!)
wait_for "$RUN/avahi-publish.log" "Established" 100
ip netns exec "$NS_B" "$SB" send --service "Avahi Target" --mdns builtin --name avahi-sender "via avahi" \
  >"$RUN/send-avahi.log" 2>&1
rc=$?
if [ "$rc" = 0 ] && wait_for "$RUN/watcher.out" "^avahi-sender: via avahi$" 100; then
  pass "send --service 'Avahi Target': a service avahi published (SRV sbcli-av.local) is reached by name"
else
  fail "send --service 'Avahi Target'" "exit $rc; $(cat "$RUN/send-avahi.log" "$RUN/avahi-publish.log")"
fi

start=$(ms)
ip netns exec "$NS_B" "$SB" send --service Nobody --mdns builtin x >"$RUN/send-none.log" 2>&1
rc=$?
took=$(($(ms) - start))
if [ "$rc" = 1 ] && grep -q "no answer from Nobody._switchboard._tcp.local" "$RUN/send-none.log"; then
  pass "send --service Nobody: exit 1 after $took ms, 'no answer from Nobody._switchboard._tcp.local'"
else
  fail "send --service Nobody" "exit $rc; $(cat "$RUN/send-none.log")"
fi

# --- the server restarts on other ports ------------------------------------------------------
server_down
rc=$?
[ "$rc" = 0 ] && pass "restart: serve stops on SIGTERM (exit 0)" || fail "restart: serve stops" "exit $rc"
if server_up 2 7720 7721 7722; then
  pass "restart: serve on 7720/7721/7722, SB Target advertised again"
else
  fail "restart" "$(cat "$RUN"/serve-2.log)"
fi
if wait_for "$RUN/watcher.err" "connected.*reconnects=1" 300 && grep -qE "resolved.*port=7720" "$RUN/watcher.err"; then
  pass "restart: the line chat re-resolved SB Target (port 7720) and reconnected"
else
  fail "restart: line chat reconnect" "$(cat "$RUN/watcher.err")"
fi
if wait_for "$RUN/piper.err" "connected.*reconnects=1" 300 && grep -qE "resolved.*port=7722" "$RUN/piper.err"; then
  pass "restart: the WebSocket chat re-resolved SB Target (ws=7722) and reconnected"
else
  fail "restart: WebSocket chat reconnect" "$(cat "$RUN/piper.err")"
fi
echo "after restart" >&4
wait_for "$RUN/watcher.out" "^piper: after restart$" 100 &&
  pass "restart: a message sent after the restart goes through (piper to watcher)" ||
  fail "restart: message after restart" "$(cat "$RUN/watcher.out")"
echo "welcome back" >&3
wait_for "$RUN/piper.out" "^watcher: welcome back$" 100 &&
  pass "restart: and back (watcher to piper)" || fail "restart: message back" "$(cat "$RUN/piper.out")"

# --- end of input: both chats exit 0 -----------------------------------------------------------
exec 3>&- 4>&-
for who in watcher:$WATCHER piper:$PIPER; do
  pid=${who#*:} who=${who%%:*}
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then
    fail "chat ($who) exits at the end of its input" "still running after 10 s"
    continue
  fi
  wait "$pid"
  rc=$?
  [ "$rc" = 0 ] && pass "chat ($who) exits 0 at the end of its input" || fail "chat ($who) exit" "exit $rc"
done
server_down
echo "(took $((($(ms) - T0) / 1000)) s)"
finish_checks interop-client.sh "$RUN"
