#!/usr/bin/env bash
# interop-serve.sh [SWITCHBOARD_BINARY] — `switchboard serve` advertising itself (the built-in
# mDNS responder) against real peers: avahi-browse, python-zeroconf and `switchboard browse`
# must see _switchboard._tcp, _switchboard._udp and _http._tcp with the right host, ports and
# TXT; SIGTERM must send goodbyes for all three; `--no-advertise` must publish nothing; a
# listener turned off must not be advertised. Prints PASS/FAIL per check; exits 1 if any
# failed (2 when it cannot run: not root, no `ip netns`).
#
# Binary: $1, else $SWITCHBOARD_BIN, else the debug build (sb_binary). Needs root (network
# namespaces). Installs what is missing, like interop.sh: avahi-daemon, avahi-utils, dbus,
# tcpdump, iproute2 (Debian, avahi kept from starting), python-zeroconf in a venv ($SBDNS_VENV).
#
#   sbsrv-a [sbsrv-va 10.231.9.1/24] <====veth====> [sbsrv-vb 10.231.9.2/24] sbsrv-b
#   switchboard serve (host name sbsrv-a)           avahi-daemon (own dbus-daemon), avahi-browse,
#                                                   zeroconf (zc-browse.py), switchboard browse,
#                                                   tcpdump
#
# No multicast touches the root namespace: both veth ends are created inside the namespaces,
# avahi runs only in sbsrv-b, and every process started here is stopped by its PID and both
# namespaces deleted on any exit. Logs stay in $SBSRV_RUN (default /tmp/sbsrv-interop).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
SB=${1:-${SWITCHBOARD_BIN:-}}
ZC_VERSION=${ZC_VERSION:-0.154.0}
VENV=${SBDNS_VENV:-/tmp/sbdns-venv}
RUN=${SBSRV_RUN:-/tmp/sbsrv-interop}
NS_A=sbsrv-a NS_B=sbsrv-b VETH_A=sbsrv-va VETH_B=sbsrv-vb
MAC_A=02:5b:d3:00:00:01 MAC_B=02:5b:d3:00:00:02
ADDR_A=10.231.9.1 ADDR_B=10.231.9.2
TCP=7710 UDP=7711 HTTP=7712

[ "$(id -u)" = 0 ] || { echo "interop-serve.sh needs root (network namespaces)" >&2; exit 2; }
. scripts/lib.sh
SB=$(SWITCHBOARD_BIN=$SB sb_binary debug) || exit 2
# The test launcher sets this so that a serve in the root namespace cannot advertise; every
# serve here runs inside our namespaces.
unset SWITCHBOARD_FORBID_ADVERTISE

. scripts/discovery/lib.sh
install_peers "$VENV" "$ZC_VERSION"
ip netns list >/dev/null 2>&1 || { echo "interop-serve.sh: ip netns does not work here" >&2; exit 2; }

# Our PIDs are stopped and our namespaces deleted on any exit (lib.sh).
start_checks "$NS_A" "$NS_B"

# zc-browse.py TYPE SECONDS, with its namespace guard asking for ours (sbsrv-*) instead of
# interop.sh's: it still refuses to run anywhere else.
zc_browse() {
  ip netns exec "$NS_B" "$VENV/bin/python" - "$@" <<'PY'
import sys
from importlib import import_module
sys.path.insert(0, "scripts/discovery")
zc = import_module("zc-browse")
guard = zc.in_our_netns
zc.in_our_netns = lambda: guard("sbsrv-")
sys.argv = ["zc-browse.py"] + sys.argv[1:]
zc.main()
PY
}
# start_serve LOG ARGS…: switchboard serve in sbsrv-a with the host name sbsrv-a (a UTS
# namespace of its own; unshare and ip netns exec exec, so $! is serve's PID).
start_serve() {
  local log=$1
  shift
  ip netns exec "$NS_A" unshare --uts sh -c 'hostname sbsrv-a && exec "$@"' sh \
    "$SB" serve --mdns builtin --data-dir "$RUN/data" --log-level info "$@" >"$log" 2>&1 &
  SERVE=$!
  PIDS+=($SERVE)
}
# stop_serve NAME: SIGTERM, then its exit status must be 0.
stop_serve() {
  kill -TERM "$SERVE"
  for _ in $(seq 50); do kill -0 "$SERVE" 2>/dev/null || break; sleep 0.1; done
  wait "$SERVE"
  local rc=$?
  [ "$rc" = 0 ] && pass "$1: SIGTERM exits 0" || fail "$1: SIGTERM exits 0" "exit $rc"
}
# avahi_row FILE NAME TYPE PORT: avahi-browse -p's resolved IPv4 row for NAME (avahi-escaped).
avahi_row() {
  grep -E "^=;$VETH_B;IPv4;$2;$3;local;sbsrv-a\.local;$ADDR_A;$4;" "$1" | head -1
}
TXT_ALL=(version=1 room=lobby "ws=$HTTP" path=/)
has_txt() { # LINE ENTRY… (avahi quotes each string)
  local line=$1 entry
  shift
  for entry in "$@"; do [[ $line == *"\"$entry\""* ]] || return 1; done
}

# --- namespaces, avahi in sbsrv-b with a private system bus ----------------------------
rm -rf "$RUN" && mkdir -p "$RUN/data"
make_link "$NS_A" "$VETH_A" "$MAC_A" "$ADDR_A" "$NS_B" "$VETH_B" "$MAC_B" "$ADDR_B"
wait_link_local "$NS_A" "$VETH_A" "$NS_B" "$VETH_B"
start_avahi "$NS_B" "$RUN/b" sbsrv-b "$VETH_B" || exit 1

# avahi-browse without -t keeps watching every type: "-" lines appear when goodbyes arrive.
ip netns exec "$NS_B" avahi-browse -apk >"$RUN/watch.log" 2>&1 &
PIDS+=($!)

# --- 1. serve advertises all three -------------------------------------------------------
start_serve "$RUN/serve.log" --name "SB Serve" --tcp-port $TCP --udp-port $UDP --http-port $HTTP
ok=1
for pair in "_switchboard._tcp $TCP" "_switchboard._udp $UDP" "_http._tcp $HTTP"; do
  set -- $pair
  wait_for "$RUN/serve.log" "^advertised SB Serve\.${1//./\\.}\.local on sbsrv-a\.local:$2$" 100 || ok=0
done
[ "$ok" = 1 ] && pass "serve: the three names won (advertised SB Serve.TYPE.local on sbsrv-a.local:PORT)" ||
  fail "serve: the three names won" "$(cat "$RUN/serve.log")"
grep -q "^Advertising over mDNS as 'SB Serve' on sbsrv-a.local: _switchboard._tcp $TCP, _switchboard._udp $UDP, _http._tcp $HTTP$" \
  "$RUN/serve.log" && pass "serve: the banner says under which name and types it is advertised" ||
  fail "serve: banner" "$(cat "$RUN/serve.log")"

for pair in "_switchboard._tcp $TCP" "_switchboard._udp $UDP" "_http._tcp $HTTP"; do
  set -- $pair
  ip netns exec "$NS_B" timeout 10 avahi-browse -rtpk "$1" >"$RUN/avahi$1.log" 2>&1
  line=$(avahi_row "$RUN/avahi$1.log" 'SB\\032Serve' "${1//./\\.}" "$2")
  if [ -n "$line" ] && has_txt "$line" "${TXT_ALL[@]}"; then
    pass "avahi-browse -r: SB Serve.$1 on sbsrv-a.local $ADDR_A:$2 with TXT ${TXT_ALL[*]}"
  else
    fail "avahi-browse -r $1" "$(cat "$RUN/avahi$1.log")"
  fi
done
grep -qE "^=;$VETH_B;IPv6;SB\\\\032Serve;_switchboard\._tcp;local;sbsrv-a\.local;" "$RUN/avahi_switchboard._tcp.log" &&
  pass "avahi-browse -r: also seen over IPv6 (ff02::fb)" || fail "avahi-browse -r over IPv6" "$(cat "$RUN/avahi_switchboard._tcp.log")"

for pair in "_switchboard._tcp $TCP" "_switchboard._udp $UDP" "_http._tcp $HTTP"; do
  set -- $pair
  zc_browse "$1" 3 >"$RUN/zc$1.log" 2>&1
  line=$(grep -P "^FOUND\tSB Serve\.${1//./\\.}\.local\.\tsbsrv-a\.local\.\t$2\t$ADDR_A\t" "$RUN/zc$1.log" | head -1)
  txt=${line##*$'\t'}
  if [ -n "$line" ] && [ "$txt" = "${TXT_ALL[*]}" ]; then
    pass "zeroconf: SB Serve.$1.local. on sbsrv-a.local. $ADDR_A:$2 with TXT $txt"
  else
    fail "zeroconf $1" "$(cat "$RUN/zc$1.log")"
  fi
done

ip netns exec "$NS_B" "$SB" browse _switchboard._tcp _switchboard._udp _http._tcp --mdns builtin --timeout 4 \
  >"$RUN/browse.log" 2>&1
ok=1
for pair in "_switchboard._tcp $TCP" "_switchboard._udp $UDP" "_http._tcp $HTTP"; do
  set -- $pair
  grep -qE "^=;$VETH_B;IPv4;SB\\\\032Serve;${1//./\\.};local;sbsrv-a\.local;$ADDR_A;$2;\"version=1\" \"room=lobby\" \"ws=$HTTP\" \"path=/\"$" \
    "$RUN/browse.log" || ok=0
done
[ "$ok" = 1 ] && pass "switchboard browse: all three on sbsrv-a.local $ADDR_A with their ports and TXT" ||
  fail "switchboard browse" "$(cat "$RUN/browse.log")"

# --- 2. SIGTERM: goodbyes for all three ---------------------------------------------------
stop_serve "serve"
ok=1
for type in _switchboard._tcp _switchboard._udp _http._tcp; do
  wait_for "$RUN/watch.log" "^-;$VETH_B;IPv4;SB\\\\032Serve;${type//./\\.};local" 30 || ok=0
done
if [ "$ok" = 1 ]; then
  ip netns exec "$NS_B" timeout 10 avahi-browse -atpk >"$RUN/avahi-after.log" 2>&1
  if grep -q "SB\\\\032Serve" "$RUN/avahi-after.log"; then
    fail "goodbye: SB Serve still in avahi's cache" "$(cat "$RUN/avahi-after.log")"
  else
    pass "goodbye: avahi removed all three at once (TTL 0) and its cache no longer has them"
  fi
else
  fail "goodbye: avahi did not report all three removed" "$(cat "$RUN/watch.log")"
fi

# --- 3. --no-advertise publishes nothing; then a listener turned off ----------------------
# tcpdump in sbsrv-b counts mDNS packets from sbsrv-a's end of the link (its MAC).
ip netns exec "$NS_B" tcpdump -i "$VETH_B" -l -n "udp port 5353 and ether src $MAC_A" \
  >"$RUN/tcpdump.log" 2>"$RUN/tcpdump.err" &
PIDS+=($!)
wait_for "$RUN/tcpdump.err" "listening on" 50
start_serve "$RUN/quiet.log" --no-advertise --tcp-port $TCP --udp-port $UDP --http-port $HTTP
wait_for "$RUN/quiet.log" "^Switchboard is running" 100
# Probing would start within 250 ms and announcing within 1 s: a 3-second window sees it.
sleep 3
quiet=$(wc -l <"$RUN/tcpdump.log")
if [ "$quiet" = 0 ] && grep -q "^Not advertised over mDNS (--no-advertise)\.$" "$RUN/quiet.log" &&
  ! grep -q "^advertised " "$RUN/quiet.log"; then
  pass "--no-advertise: no mDNS packet from sbsrv-a in 3 s, and the banner says so"
else
  fail "--no-advertise" "$quiet packets; $(cat "$RUN/tcpdump.log" "$RUN/quiet.log")"
fi
stop_serve "serve --no-advertise"

# No --name: the default instance name. No UDP listener: no _switchboard._udp.
start_serve "$RUN/no-udp.log" --tcp-port $TCP --udp-port 0 --http-port $HTTP
wait_for "$RUN/no-udp.log" "^advertised Switchboard on sbsrv-a\._http\._tcp\.local" 100
wait_for "$RUN/no-udp.log" "^advertised Switchboard on sbsrv-a\._switchboard\._tcp\.local" 100
sleep 1
ip netns exec "$NS_B" timeout 10 avahi-browse -artpk >"$RUN/avahi-no-udp.log" 2>&1
tcp_line=$(avahi_row "$RUN/avahi-no-udp.log" 'Switchboard\\032on\\032sbsrv-a' '_switchboard\._tcp' $TCP)
http_line=$(avahi_row "$RUN/avahi-no-udp.log" 'Switchboard\\032on\\032sbsrv-a' '_http\._tcp' $HTTP)
if [ -n "$tcp_line" ] && [ -n "$http_line" ] && has_txt "$tcp_line" "${TXT_ALL[@]}" &&
  ! grep -q "_switchboard\._udp" "$RUN/avahi-no-udp.log" && ! grep -q "^advertised .*_udp" "$RUN/no-udp.log"; then
  pass "--udp-port 0: 'Switchboard on sbsrv-a' (the default name) has _switchboard._tcp and _http._tcp, no _switchboard._udp"
else
  fail "--udp-port 0" "$(cat "$RUN/avahi-no-udp.log" "$RUN/no-udp.log")"
fi
[ "$(wc -l <"$RUN/tcpdump.log")" -gt 0 ] && pass "tcpdump: saw this serve's mDNS packets (the quiet window was not blind)" ||
  fail "tcpdump saw nothing even from an advertising serve" "$(cat "$RUN/tcpdump.err")"
stop_serve "serve --udp-port 0"

# --- 4. a name taken on the link: serve renames and says so ---------------------------------
ip netns exec "$NS_B" "$SB" advertise "SB Twin" _switchboard._tcp 7800 --host sbsrv-c --mdns builtin \
  >"$RUN/twin-b.log" 2>&1 &
PIDS+=($!)
wait_for "$RUN/twin-b.log" "^advertised SB Twin\._switchboard\._tcp\.local" 100
start_serve "$RUN/twin-a.log" --name "SB Twin" --tcp-port $TCP --udp-port 0 --http-port 0
if wait_for "$RUN/twin-a.log" "^advertised SB Twin \(2\)\._switchboard\._tcp\.local on sbsrv-a\.local:$TCP$" 100 &&
  grep -q "^name 'SB Twin' is taken for _switchboard._tcp; trying 'SB Twin (2)'$" "$RUN/twin-a.log" &&
  grep -q "notice switchboard.mdns: mDNS name renamed after a conflict" "$RUN/twin-a.log"; then
  pass "conflict: serve's _switchboard._tcp became 'SB Twin (2)', with a banner line and a log line"
else
  fail "conflict: serve renames" "$(cat "$RUN/twin-a.log" "$RUN/twin-b.log")"
fi
stop_serve "serve (renamed)"

finish_checks interop-serve.sh "$RUN"
