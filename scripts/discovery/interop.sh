#!/usr/bin/env bash
# interop.sh [SWITCHBOARD_BINARY] — `switchboard advertise` (the built-in mDNS responder)
# against real peers: avahi-browse and python-zeroconf must see it with the right host, port
# and TXT; its goodbye must remove it from avahi's cache; two advertisers of one name on one
# link must end with distinct names, and one claiming avahi's host name must rename its host.
# Prints PASS/FAIL per check; exits 1 if any failed (2 when it cannot run: not root, no `ip netns`).
#
# Binary: $1, else $SWITCHBOARD_BIN, else the debug build (sb_binary). Needs root (network
# namespaces). Installs what is missing, like capture-fixtures.sh: avahi-daemon, avahi-utils,
# dbus, iproute2 (Debian, avahi kept from starting), python-zeroconf in a venv ($SBDNS_VENV).
#
#   sbmdns-a [sbmdns-va 10.231.8.1/24] <====veth====> [sbmdns-vb 10.231.8.2/24] sbmdns-b
#   switchboard advertise x4                          avahi-daemon (own dbus-daemon), avahi-browse,
#                                                     zeroconf (zc-browse.py), switchboard advertise
#
# No multicast touches the root namespace: both veth ends are created inside the namespaces,
# avahi runs only in sbmdns-b, and every process started here is stopped by its PID and both
# namespaces deleted on any exit. Logs stay in $SBMDNS_RUN (default /tmp/sbmdns-interop).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
SB=${1:-${SWITCHBOARD_BIN:-}}
ZC_VERSION=${ZC_VERSION:-0.154.0}
VENV=${SBDNS_VENV:-/tmp/sbdns-venv}
RUN=${SBMDNS_RUN:-/tmp/sbmdns-interop}
NS_A=sbmdns-a NS_B=sbmdns-b VETH_A=sbmdns-va VETH_B=sbmdns-vb
MAC_A=02:5b:d1:00:00:01 MAC_B=02:5b:d1:00:00:02
ADDR_A=10.231.8.1 ADDR_B=10.231.8.2

[ "$(id -u)" = 0 ] || { echo "interop.sh needs root (network namespaces)" >&2; exit 2; }
. scripts/lib.sh
SB=$(SWITCHBOARD_BIN=$SB sb_binary debug) || exit 2

. scripts/discovery/lib.sh
install_peers "$VENV" "$ZC_VERSION"
ip netns list >/dev/null 2>&1 || { echo "interop.sh: ip netns does not work here" >&2; exit 2; }

# --- cleanup: our PIDs, then our namespaces ---------------------------------------------
PIDS=()
cleanup() {
  stop_all
  delete_netns "$NS_A" "$NS_B"
}
trap cleanup EXIT
cleanup

FAILS=0
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1${2:+: $2}"; FAILS=$((FAILS + 1)); }
wait_for() { # FILE PATTERN TENTHS
  for _ in $(seq "${3:-100}"); do grep -qE -- "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  return 1
}

# --- namespaces, avahi in sbmdns-b with a private system bus ----------------------------
rm -rf "$RUN" && mkdir -p "$RUN"
make_link "$NS_A" "$VETH_A" "$MAC_A" "$ADDR_A" "$NS_B" "$VETH_B" "$MAC_B" "$ADDR_B"
wait_link_local "$NS_A" "$VETH_A" "$NS_B" "$VETH_B"
start_avahi "$NS_B" "$RUN/b" sbmdns-b "$VETH_B" || exit 1

# --- switchboard advertise in sbmdns-a ------------------------------------------------------
# ip netns exec execs the command, so $! is switchboard's own PID.
ip netns exec "$NS_A" "$SB" advertise --mdns builtin "SB Chat" _switchboard._tcp 7300 version=1 room=lobby --host sbmdns-a \
  >"$RUN/adv-chat.log" 2>&1 &
CHAT=$!
PIDS+=($CHAT)
ip netns exec "$NS_A" "$SB" advertise --mdns builtin "sb peer" _networkplayground._udp 7301 --host sbmdns-a \
  >"$RUN/adv-peer.log" 2>&1 &
PIDS+=($!)
# avahi-browse without -t keeps watching: a "-" line appears only when a goodbye arrives.
ip netns exec "$NS_B" avahi-browse -p _switchboard._tcp >"$RUN/watch.log" 2>&1 &
PIDS+=($!)
if wait_for "$RUN/adv-chat.log" "^advertised SB Chat\._switchboard\._tcp\.local on sbmdns-a\.local:7300" 100 &&
  wait_for "$RUN/adv-peer.log" "^advertised sb peer\._networkplayground\._udp\.local" 100; then
  pass "advertise: both names won (probing, announcing)"
else
  fail "advertise: both names won" "$(cat "$RUN/adv-chat.log" "$RUN/adv-peer.log")"
fi
grep -q "over 15 characters" "$RUN/adv-peer.log" && pass "advertise: _networkplayground accepted with a warning" ||
  fail "advertise: _networkplayground accepted with a warning"

# --- avahi and zeroconf see it -----------------------------------------------------------------
ip netns exec "$NS_B" timeout 10 avahi-browse -rtp _switchboard._tcp >"$RUN/avahi-tcp.log" 2>&1
line=$(grep -E "^=;$VETH_B;IPv4;SB\\\\032Chat;_switchboard\._tcp;local;sbmdns-a\.local;$ADDR_A;7300;" "$RUN/avahi-tcp.log" | head -1)
if [ -n "$line" ] && [[ $line == *'"version=1"'* ]] && [[ $line == *'"room=lobby"'* ]]; then
  pass "avahi-browse -r: SB Chat._switchboard._tcp on sbmdns-a.local $ADDR_A:7300 with TXT version=1 room=lobby"
else
  fail "avahi-browse -r _switchboard._tcp" "$(cat "$RUN/avahi-tcp.log")"
fi
# Over IPv6 avahi shows whichever address it resolved first (A or AAAA): check the row, then
# the AAAA on its own.
grep -qE "^=;$VETH_B;IPv6;SB\\\\032Chat;_switchboard\._tcp;local;sbmdns-a\.local;" "$RUN/avahi-tcp.log" &&
  pass "avahi-browse -r: also seen over IPv6 (ff02::fb)" || fail "avahi-browse -r over IPv6" "$(cat "$RUN/avahi-tcp.log")"
ip netns exec "$NS_B" timeout 10 avahi-resolve -6 -n sbmdns-a.local >"$RUN/avahi-aaaa.log" 2>&1
grep -qE "^sbmdns-a\.local[[:space:]]+fe80::" "$RUN/avahi-aaaa.log" &&
  pass "avahi-resolve -6: sbmdns-a.local has its link-local AAAA" || fail "avahi-resolve -6" "$(cat "$RUN/avahi-aaaa.log")"
ip netns exec "$NS_B" timeout 10 avahi-browse -rtp _networkplayground._udp >"$RUN/avahi-udp.log" 2>&1
grep -qE "^=;$VETH_B;IPv4;sb\\\\032peer;_networkplayground\._udp;local;sbmdns-a\.local;$ADDR_A;7301;" "$RUN/avahi-udp.log" &&
  pass "avahi-browse -r: sb peer._networkplayground._udp on sbmdns-a.local $ADDR_A:7301" ||
  fail "avahi-browse -r _networkplayground._udp" "$(cat "$RUN/avahi-udp.log")"

ip netns exec "$NS_B" "$VENV/bin/python" scripts/discovery/zc-browse.py _switchboard._tcp 3 >"$RUN/zc-tcp.log" 2>&1
line=$(grep -P "^FOUND\tSB Chat\._switchboard\._tcp\.local\.\tsbmdns-a\.local\.\t7300\t$ADDR_A\t" "$RUN/zc-tcp.log" | head -1)
if [ -n "$line" ] && [[ $line == *version=1* ]] && [[ $line == *room=lobby* ]]; then
  pass "zeroconf: SB Chat._switchboard._tcp on sbmdns-a.local. $ADDR_A:7300 with TXT version=1 room=lobby"
else
  fail "zeroconf _switchboard._tcp" "$(cat "$RUN/zc-tcp.log")"
fi
ip netns exec "$NS_B" "$VENV/bin/python" scripts/discovery/zc-browse.py _networkplayground._udp 3 >"$RUN/zc-udp.log" 2>&1
grep -qP "^FOUND\tsb peer\._networkplayground\._udp\.local\.\tsbmdns-a\.local\.\t7301\t$ADDR_A\t" "$RUN/zc-udp.log" &&
  pass "zeroconf: sb peer._networkplayground._udp on sbmdns-a.local. $ADDR_A:7301" ||
  fail "zeroconf _networkplayground._udp" "$(cat "$RUN/zc-udp.log")"

# --- goodbye ----------------------------------------------------------------------------------
kill -TERM "$CHAT"
rc=0
for _ in $(seq 50); do kill -0 "$CHAT" 2>/dev/null || break; sleep 0.1; done
wait "$CHAT"; rc=$?
[ "$rc" = 0 ] && pass "advertise: SIGTERM exits 0" || fail "advertise: SIGTERM exits 0" "exit $rc"
if wait_for "$RUN/watch.log" "^-;$VETH_B;IPv4;SB\\\\032Chat;_switchboard\._tcp;local" 30; then
  ip netns exec "$NS_B" timeout 10 avahi-browse -tp _switchboard._tcp >"$RUN/avahi-after.log" 2>&1
  if grep -q "SB\\\\032Chat" "$RUN/avahi-after.log"; then
    fail "goodbye: SB Chat still in avahi's cache" "$(cat "$RUN/avahi-after.log")"
  else
    pass "goodbye: avahi removed SB Chat at once (TTL 0) and its cache no longer has it"
  fi
else
  fail "goodbye: avahi never reported SB Chat removed" "$(cat "$RUN/watch.log")"
fi

# --- conflict: the same name twice on one link ------------------------------------------------
ip netns exec "$NS_A" "$SB" advertise --mdns builtin Twin _switchboard._tcp 7400 --host sbmdns-a >"$RUN/twin-a.log" 2>&1 &
PIDS+=($!)
wait_for "$RUN/twin-a.log" "^advertised Twin\." 100
ip netns exec "$NS_B" "$SB" advertise --mdns builtin Twin _switchboard._tcp 7401 --host sbmdns-c >"$RUN/twin-b.log" 2>&1 &
PIDS+=($!)
wait_for "$RUN/twin-b.log" "^advertised " 100
if grep -q "^advertised Twin\._switchboard" "$RUN/twin-a.log" &&
  grep -q "^advertised Twin (2)\._switchboard._tcp.local on sbmdns-c.local:7401" "$RUN/twin-b.log"; then
  pass "conflict: the second Twin renamed itself Twin (2)"
else
  fail "conflict: distinct names" "$(cat "$RUN/twin-a.log" "$RUN/twin-b.log")"
fi
ip netns exec "$NS_B" timeout 10 avahi-browse -rtp _switchboard._tcp >"$RUN/avahi-twins.log" 2>&1
grep -qE "^=;$VETH_B;IPv4;Twin;_switchboard\._tcp;local;sbmdns-a\.local;$ADDR_A;7400;" "$RUN/avahi-twins.log" &&
  grep -qE "^=;$VETH_B;IPv4;Twin\\\\032\\\\0402\\\\041;_switchboard\._tcp;local;sbmdns-c\.local;$ADDR_B;7401;" "$RUN/avahi-twins.log" &&
  pass "conflict: avahi sees Twin on sbmdns-a:7400 and Twin (2) on sbmdns-c:7401" ||
  fail "conflict: avahi sees both" "$(cat "$RUN/avahi-twins.log")"

# --- conflict: a host name avahi holds --------------------------------------------------------
# avahi-daemon in sbmdns-b owns sbmdns-b.local: an advertiser in sbmdns-a claiming that host name
# hears avahi defend it while probing, renames its host and publishes the service under the new one.
ip netns exec "$NS_A" "$SB" advertise --mdns builtin "Host Twin" _switchboard._tcp 7700 --host "$NS_B" >"$RUN/host-twin.log" 2>&1 &
PIDS+=($!)
wait_for "$RUN/host-twin.log" "^advertised Host Twin\." 100
renamed=$(sed -nE 's/^host name sbmdns-b\.local is taken; now (sbmdns-b-[0-9]+)\.local$/\1/p' "$RUN/host-twin.log" | tail -1)
if [ -n "$renamed" ] && grep -q "^advertised Host Twin\._switchboard\._tcp\.local on $renamed\.local:7700" "$RUN/host-twin.log"; then
  pass "host conflict: sbmdns-b.local is avahi's, so advertise took $renamed.local"
else
  fail "host conflict: renamed host" "$(cat "$RUN/host-twin.log")"
fi
ip netns exec "$NS_B" timeout 10 avahi-browse -rtp _switchboard._tcp >"$RUN/avahi-host-twin.log" 2>&1
[ -n "$renamed" ] &&
  grep -qE "^=;$VETH_B;IPv4;Host\\\\032Twin;_switchboard\._tcp;local;$renamed\.local;$ADDR_A;7700;" "$RUN/avahi-host-twin.log" &&
  pass "host conflict: avahi resolves Host Twin to ${renamed:-?}.local $ADDR_A:7700" ||
  fail "host conflict: avahi resolves the renamed host" "$(cat "$RUN/avahi-host-twin.log")"

# --- switchboard browse sees avahi-publish and zeroconf ---------------------------------------
ip netns exec "$NS_B" avahi-publish -s "avahi svc" _switchboard._tcp 7500 k=v >"$RUN/avahi-publish.log" 2>&1 &
PIDS+=($!)
ip netns exec "$NS_B" "$VENV/bin/python" scripts/discovery/zc-advertise.py "zc svc" _switchboard._tcp 7600 "$ADDR_B" k=z \
  >"$RUN/zc-advertise.log" 2>&1 &
ZCADV=$!
PIDS+=($ZCADV)
wait_for "$RUN/avahi-publish.log" "Established" 100
wait_for "$RUN/zc-advertise.log" "REGISTERED" 100
ip netns exec "$NS_A" "$SB" browse --mdns builtin _switchboard._tcp --timeout 4 >"$RUN/browse.log" 2>&1
rc=$?
grep -qE "^=;$VETH_A;IPv4;avahi\\\\032svc;_switchboard\._tcp;local;sbmdns-b\.local;$ADDR_B;7500;\"k=v\"$" "$RUN/browse.log" &&
  pass "browse: avahi-publish's avahi svc on sbmdns-b.local $ADDR_B:7500 TXT k=v" || fail "browse: avahi-publish" "$(cat "$RUN/browse.log")"
grep -qE "^=;$VETH_A;IPv4;zc\\\\032svc;_switchboard\._tcp;local;zc-zc-svc\.local;$ADDR_B;7600;\"k=z\"$" "$RUN/browse.log" &&
  pass "browse: zeroconf's zc svc on zc-zc-svc.local $ADDR_B:7600 TXT k=z" || fail "browse: zeroconf" "$(cat "$RUN/browse.log")"
grep -qE "^=;$VETH_A;IPv4;Twin;_switchboard\._tcp;local;sbmdns-a\.local;$ADDR_A;7400;" "$RUN/browse.log" &&
  pass "browse: our own advertise in the same namespace (multicast loop)" || fail "browse: own advertise" "$(cat "$RUN/browse.log")"
[ "$rc" = 0 ] && pass "browse --timeout: exit 0 when something was found" || fail "browse exit code" "exit $rc"
ip netns exec "$NS_A" "$SB" browse --mdns builtin _nothing._tcp --timeout 2 >"$RUN/browse-none.log" 2>&1
rc=$?
[ "$rc" = 1 ] && pass "browse --timeout: exit 1 when nothing was found" || fail "browse: nothing" "exit $rc"
# A goodbye from zeroconf: browse reports the removal.
ip netns exec "$NS_A" "$SB" browse --mdns builtin _switchboard._tcp --timeout 12 >"$RUN/browse-bye.log" 2>&1 &
BROWSE=$!
PIDS+=($BROWSE)
wait_for "$RUN/browse-bye.log" "^=;.*zc\\\\032svc" 40
kill -TERM "$ZCADV"
wait_for "$RUN/browse-bye.log" "^-;$VETH_A;IPv4;zc\\\\032svc;_switchboard\._tcp;local" 60 &&
  pass "browse: zeroconf's goodbye removes zc svc" || fail "browse: goodbye" "$(cat "$RUN/browse-bye.log")"

echo "(logs in $RUN)"
if [ "$FAILS" -gt 0 ]; then
  echo "interop.sh: $FAILS check(s) failed"
  exit 1
fi
echo "interop.sh: all checks passed"
