#!/usr/bin/env bash
# interop-system.sh [SWITCHBOARD_BINARY] — the system DNS-SD backend (`--mdns system`:
# dns_sd.h through avahi's compatibility library, talking to avahi-daemon over D-Bus)
# against a real avahi on the other end of a link: what `switchboard advertise --mdns system`
# asks sbsys-a's avahi-daemon to publish is seen from sbsys-b with the right host, port and
# TXT, and withdrawn (goodbye) on SIGTERM; `switchboard browse --mdns system` resolves what
# sbsys-b publishes (host, port, addresses, TXT) and sees it go; `--mdns auto` picks the
# system backend when the daemon answers and the built-in responder when the bus points
# nowhere; `--mdns system` without a daemon exits 1 with a clear message. Prints PASS/FAIL
# per check; exits 1 if any failed (2 when it cannot run: not root, no `ip netns`).
#
# Binary: $1, else $SWITCHBOARD_BIN, else the debug build (sb_binary). Needs root (network
# namespaces). Installs what is missing (scripts/discovery/lib.sh): avahi-daemon,
# avahi-utils, dbus, iproute2, libavahi-compat-libdnssd1 (Debian, avahi kept from starting).
#
#   sbsys-a [sbsys-va 10.231.11.1/24] <====veth====> [sbsys-vb 10.231.11.2/24] sbsys-b
#   avahi-daemon + its own dbus-daemon,              avahi-daemon + its own dbus-daemon,
#   switchboard advertise/browse --mdns system|auto  avahi-browse, avahi-publish
#
# No multicast touches the root namespace: both veth ends are created inside the namespaces,
# each avahi runs inside its namespace on a private bus (DBUS_SYSTEM_BUS_ADDRESS points each
# client at its own), and every process started here is stopped by its PID and both
# namespaces deleted on any exit. Logs stay in $SBSYS_RUN (default /tmp/sbsys-interop).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
SB=${1:-${SWITCHBOARD_BIN:-}}
ZC_VERSION=${ZC_VERSION:-0.154.0}
VENV=${SBDNS_VENV:-/tmp/sbdns-venv}
RUN=${SBSYS_RUN:-/tmp/sbsys-interop}
NS_A=sbsys-a NS_B=sbsys-b VETH_A=sbsys-va VETH_B=sbsys-vb
MAC_A=02:5b:d1:00:11:01 MAC_B=02:5b:d1:00:11:02
ADDR_A=10.231.11.1 ADDR_B=10.231.11.2

[ "$(id -u)" = 0 ] || { echo "interop-system.sh needs root (network namespaces)" >&2; exit 2; }
. scripts/lib.sh
SB=$(SWITCHBOARD_BIN=$SB sb_binary debug) || exit 2

. scripts/discovery/lib.sh
install_peers "$VENV" "$ZC_VERSION"
ip netns list >/dev/null 2>&1 || { echo "interop-system.sh: ip netns does not work here" >&2; exit 2; }

# Our PIDs are stopped and our namespaces deleted on any exit (lib.sh).
start_checks "$NS_A" "$NS_B"
rm -rf "$RUN" && mkdir -p "$RUN"

# --- namespaces, one avahi-daemon with a private system bus in each ----------------------
make_link "$NS_A" "$VETH_A" "$MAC_A" "$ADDR_A" "$NS_B" "$VETH_B" "$MAC_B" "$ADDR_B"
wait_link_local "$NS_A" "$VETH_A" "$NS_B" "$VETH_B"
mkdir -p "$RUN/a" "$RUN/b"
start_avahi "$NS_A" "$RUN/a/avahi" sbsys-a "$VETH_A" || exit 1
BUS_A=$DBUS_SYSTEM_BUS_ADDRESS
start_avahi "$NS_B" "$RUN/b/avahi" sbsys-b "$VETH_B" || exit 1
BUS_B=$DBUS_SYSTEM_BUS_ADDRESS
unset DBUS_SYSTEM_BUS_ADDRESS
NOWHERE="unix:path=$RUN/no-bus-here.sock"
# Command prefixes, not functions: a function run with & is a subshell, and $! its PID.
IN_A=(ip netns exec "$NS_A" env "DBUS_SYSTEM_BUS_ADDRESS=$BUS_A")
IN_B=(ip netns exec "$NS_B" env "DBUS_SYSTEM_BUS_ADDRESS=$BUS_B")

# --- advertise --mdns system in sbsys-a, seen from sbsys-b --------------------------------
# A watching avahi-browse in sbsys-b: a "-" line appears only when a goodbye arrives.
"${IN_B[@]}" avahi-browse -p _switchboard._tcp >"$RUN/watch.log" 2>&1 &
PIDS+=($!)
# ip netns exec and env exec the command, so $! is switchboard's own PID.
"${IN_A[@]}" "$SB" advertise --mdns system "SB Sys" _switchboard._tcp 7310 version=1 room=lobby >"$RUN/adv.log" 2>&1 &
ADV=$!
PIDS+=($ADV)
"${IN_A[@]}" "$SB" advertise --mdns system "sys peer" _networkplayground._udp 7311 >"$RUN/adv-peer.log" 2>&1 &
PIDS+=($!)
if wait_for "$RUN/adv.log" "^advertised SB Sys\._switchboard\._tcp\.local on sbsys-a\.local:7310$" 100 &&
  wait_for "$RUN/adv-peer.log" "^advertised sys peer\._networkplayground\._udp\.local on sbsys-a\.local:7311$" 100; then
  pass "advertise --mdns system: both names live on avahi-daemon's host sbsys-a.local"
else
  fail "advertise --mdns system: names live" "$(cat "$RUN/adv.log" "$RUN/adv-peer.log")"
fi
grep -q "over 15 characters" "$RUN/adv-peer.log" && pass "advertise --mdns system: _networkplayground accepted with a warning" ||
  fail "advertise --mdns system: _networkplayground warning" "$(cat "$RUN/adv-peer.log")"
grep -q "WARNING" "$RUN/adv.log" && fail "advertise --mdns system: avahi's compatibility warning printed" "$(cat "$RUN/adv.log")" ||
  pass "advertise --mdns system: no compatibility-layer warning from avahi's library"

"${IN_B[@]}" timeout 10 avahi-browse -rtp _switchboard._tcp >"$RUN/avahi-tcp.log" 2>&1
line=$(grep -E "^=;$VETH_B;IPv4;SB\\\\032Sys;_switchboard\._tcp;local;sbsys-a\.local;$ADDR_A;7310;" "$RUN/avahi-tcp.log" | head -1)
if [ -n "$line" ] && [[ $line == *'"version=1"'* ]] && [[ $line == *'"room=lobby"'* ]]; then
  pass "avahi in sbsys-b: SB Sys._switchboard._tcp on sbsys-a.local $ADDR_A:7310 with TXT version=1 room=lobby"
else
  fail "avahi in sbsys-b: SB Sys._switchboard._tcp" "$(cat "$RUN/avahi-tcp.log")"
fi
"${IN_B[@]}" timeout 10 avahi-browse -rtp _networkplayground._udp >"$RUN/avahi-udp.log" 2>&1
grep -qE "^=;$VETH_B;IPv4;sys\\\\032peer;_networkplayground\._udp;local;sbsys-a\.local;$ADDR_A;7311;" "$RUN/avahi-udp.log" &&
  pass "avahi in sbsys-b: sys peer._networkplayground._udp on sbsys-a.local $ADDR_A:7311" ||
  fail "avahi in sbsys-b: sys peer._networkplayground._udp" "$(cat "$RUN/avahi-udp.log")"

kill -TERM "$ADV"
for _ in $(seq 50); do kill -0 "$ADV" 2>/dev/null || break; sleep 0.1; done
wait "$ADV"; rc=$?
[ "$rc" = 0 ] && pass "advertise --mdns system: SIGTERM exits 0" || fail "advertise --mdns system: SIGTERM exits 0" "exit $rc"
if wait_for "$RUN/watch.log" "^-;$VETH_B;IPv4;SB\\\\032Sys;_switchboard\._tcp;local" 30; then
  pass "goodbye: avahi in sbsys-b removed SB Sys at once"
else
  fail "goodbye: avahi in sbsys-b never reported SB Sys removed" "$(cat "$RUN/watch.log")"
fi

# --- a name conflict: avahi-daemon renames, advertise says so -----------------------------
"${IN_B[@]}" avahi-publish -s "Taken" _switchboard._tcp 7312 >"$RUN/publish-taken.log" 2>&1 &
PIDS+=($!)
wait_for "$RUN/publish-taken.log" "Established" 100
"${IN_A[@]}" "$SB" advertise --mdns system "Taken" _switchboard._tcp 7313 >"$RUN/adv-taken.log" 2>&1 &
PIDS+=($!)
if wait_for "$RUN/adv-taken.log" "^advertised Taken #2\._switchboard\._tcp\.local on sbsys-a\.local:7313$" 100 &&
  grep -q "^name 'Taken' is taken; trying 'Taken #2'" "$RUN/adv-taken.log"; then
  pass "conflict: avahi-daemon renamed Taken to 'Taken #2' and advertise reported it"
else
  fail "conflict: renamed" "$(cat "$RUN/adv-taken.log")"
fi

# --- browse --mdns system in sbsys-a sees what sbsys-b publishes ---------------------------
"${IN_B[@]}" avahi-publish -s "avahi sys" _switchboard._tcp 7320 k=v "flag" >"$RUN/publish.log" 2>&1 &
PUB=$!
PIDS+=($PUB)
wait_for "$RUN/publish.log" "Established" 100
"${IN_A[@]}" "$SB" browse --mdns system _switchboard._tcp --timeout 15 >"$RUN/browse.log" 2>&1 &
BROWSE=$!
PIDS+=($BROWSE)
v4="^=;$VETH_A;IPv4;avahi\\\\032sys;_switchboard\._tcp;local;sbsys-b\.local;$ADDR_B;7320;"
if wait_for "$RUN/browse.log" "$v4" 80; then
  line=$(grep -E "$v4" "$RUN/browse.log" | head -1)
  [[ $line == *'"k=v"'* ]] && [[ $line == *'"flag"'* ]] &&
    pass "browse --mdns system: avahi sys on sbsys-b.local $ADDR_B:7320 with TXT k=v flag" ||
    fail "browse --mdns system: TXT" "$line"
else
  fail "browse --mdns system: avahi sys over IPv4" "$(cat "$RUN/browse.log")"
fi
wait_for "$RUN/browse.log" "^=;$VETH_A;IPv6;avahi\\\\032sys;_switchboard\._tcp;local;sbsys-b\.local;fe80::[0-9a-f:]+%$VETH_A;7320;" 50 &&
  pass "browse --mdns system: and its link-local IPv6 address, scoped to $VETH_A" ||
  fail "browse --mdns system: IPv6 address" "$(cat "$RUN/browse.log")"
grep -qE "Taken;_switchboard\._tcp;local;sbsys-b\.local;$ADDR_B;7312;" "$RUN/browse.log" &&
  pass "browse --mdns system: also the other side's Taken" || fail "browse --mdns system: Taken" "$(cat "$RUN/browse.log")"
stop_pid "$PUB"
wait_for "$RUN/browse.log" "^-;$VETH_A;IPv4;avahi\\\\032sys;_switchboard\._tcp;local$" 50 &&
  pass "browse --mdns system: avahi-publish's goodbye removes avahi sys" ||
  fail "browse --mdns system: goodbye" "$(cat "$RUN/browse.log")"
stop_pid "$BROWSE"
"${IN_A[@]}" "$SB" browse --mdns system _nothing._tcp --timeout 2 >"$RUN/browse-none.log" 2>&1
rc=$?
[ "$rc" = 1 ] && pass "browse --mdns system --timeout: exit 1 when nothing was found" || fail "browse --mdns system: nothing" "exit $rc"

# --- auto: system when the daemon answers, builtin when the bus points nowhere -------------
"${IN_A[@]}" "$SB" advertise --mdns auto "SB Auto" _switchboard._tcp 7330 --host sbsys-auto --log-level info \
  >"$RUN/auto-system.log" 2>&1 &
AUTO=$!
PIDS+=($AUTO)
if wait_for "$RUN/auto-system.log" "^advertised SB Auto\._switchboard\._tcp\.local on sbsys-a\.local:7330$" 100 &&
  grep -q "mDNS backend system" "$RUN/auto-system.log"; then
  pass "--mdns auto: the system backend when avahi-daemon answers (published on sbsys-a.local)"
else
  fail "--mdns auto with a daemon" "$(cat "$RUN/auto-system.log")"
fi
stop_pid "$AUTO"
ip netns exec "$NS_A" env DBUS_SYSTEM_BUS_ADDRESS="$NOWHERE" "$SB" advertise --mdns auto "SB Builtin" _switchboard._tcp 7331 \
  --host sbsys-auto --log-level info >"$RUN/auto-builtin.log" 2>&1 &
AUTO=$!
PIDS+=($AUTO)
if wait_for "$RUN/auto-builtin.log" "^advertised SB Builtin\._switchboard\._tcp\.local on sbsys-auto\.local:7331$" 100 &&
  grep -q "mDNS backend builtin" "$RUN/auto-builtin.log"; then
  pass "--mdns auto: the built-in responder when the bus points nowhere (published on sbsys-auto.local)"
else
  fail "--mdns auto without a daemon" "$(cat "$RUN/auto-builtin.log")"
fi
"${IN_B[@]}" timeout 10 avahi-browse -rtp _switchboard._tcp >"$RUN/avahi-auto.log" 2>&1
grep -qE "^=;$VETH_B;IPv4;SB\\\\032Builtin;_switchboard\._tcp;local;sbsys-auto\.local;$ADDR_A;7331;" "$RUN/avahi-auto.log" &&
  pass "--mdns auto (builtin): avahi in sbsys-b sees SB Builtin on sbsys-auto.local:7331" ||
  fail "--mdns auto (builtin): seen by avahi" "$(cat "$RUN/avahi-auto.log")"
stop_pid "$AUTO"

# --- system without a daemon: exit 1, a clear message --------------------------------------
for command in "advertise Nobody _switchboard._tcp 7340" "browse _switchboard._tcp --timeout 2"; do
  # shellcheck disable=SC2086 # the words of $command are the arguments
  ip netns exec "$NS_A" env DBUS_SYSTEM_BUS_ADDRESS="$NOWHERE" "$SB" $command --mdns system >"$RUN/no-daemon.log" 2>&1
  rc=$?
  if [ "$rc" = 1 ] && grep -q "avahi-daemon does not answer on the system D-Bus ($NOWHERE)" "$RUN/no-daemon.log"; then
    pass "--mdns system, no daemon: ${command%% *} exits 1 saying avahi-daemon does not answer"
  else
    fail "--mdns system, no daemon: ${command%% *}" "exit $rc: $(cat "$RUN/no-daemon.log")"
  fi
done

finish_checks interop-system.sh "$RUN"
