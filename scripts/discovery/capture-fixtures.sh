#!/usr/bin/env bash
# capture-fixtures.sh [OUTDIR] — record real mDNS traffic from avahi and python-zeroconf and
# turn it into the DNS codec's test fixtures (default OUTDIR: Tests/SwitchboardDNSTests/Fixtures).
#
# Needs root (network namespaces). Installs what is missing: avahi-daemon, avahi-utils, dbus,
# tcpdump, iproute2 (Debian), python-zeroconf $ZC_VERSION in a venv ($SBDNS_VENV).
#
# Everything runs in two network namespaces of our own, joined by a veth pair:
#
#   sbdns-a [sbdns-va 10.231.7.1/24] <====veth====> [sbdns-vb 10.231.7.2/24] sbdns-b
#   avahi-daemon (own dbus-daemon),                 python-zeroconf (zc-peer.py),
#   avahi-publish x2, avahi-browse                  tcpdump on sbdns-vb
#
# Nothing is attached to the root namespace, and no mDNS stack ever runs there: avahi on
# the host would multicast on the real network. Both veth ends are created directly inside
# the namespaces, the multicast route exists only there, and apt is kept from starting
# avahi-daemon (policy-rc.d). Fixed MAC addresses give fixed IPv6 link-local addresses, so
# a rerun produces the same kind of packets. Every process started here is stopped by its
# PID, and both namespaces are deleted, on any exit.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
OUT=${1:-Tests/SwitchboardDNSTests/Fixtures}
ZC_VERSION=${ZC_VERSION:-0.154.0}
VENV=${SBDNS_VENV:-/tmp/sbdns-venv}
RUN=${SBDNS_RUN:-/tmp/sbdns-capture}
NS_A=sbdns-a NS_B=sbdns-b VETH_A=sbdns-va VETH_B=sbdns-vb
MAC_A=02:5b:d0:00:00:01 MAC_B=02:5b:d0:00:00:02
ADDR_A=10.231.7.1 ADDR_B=10.231.7.2

[ "$(id -u)" = 0 ] || { echo "capture-fixtures.sh needs root (network namespaces)" >&2; exit 1; }

# --- peers ------------------------------------------------------------------------------
. scripts/discovery/lib.sh
install_peers "$VENV" "$ZC_VERSION"

# --- cleanup: our PIDs, then our namespaces ---------------------------------------------
PIDS=()    # stopped last to first
TCPDUMP="" # stopped after them, once their goodbyes had time to arrive
cleanup() {
  stop_all
  if [ -n "$TCPDUMP" ]; then
    sleep 0.5
    stop_pid "$TCPDUMP"
    TCPDUMP=""
  fi
  # A process left in our namespaces (from this run) would keep them alive: delete_netns
  # kills it first.
  delete_netns "$NS_A" "$NS_B"
}
trap cleanup EXIT
cleanup # leftovers of an interrupted run (same names, so ours)

# --- namespaces -----------------------------------------------------------------------
rm -rf "$RUN" && mkdir -p "$RUN"
make_link "$NS_A" "$VETH_A" "$MAC_A" "$ADDR_A" "$NS_B" "$VETH_B" "$MAC_B" "$ADDR_B"
wait_link_local "$NS_A" "$VETH_A" "$NS_B" "$VETH_B" || true

# --- capture first, so probes and announcements are in it --------------------------------
ip netns exec "$NS_B" tcpdump -i "$VETH_B" -n -U -Z root -w "$RUN/mdns.pcap" udp port 5353 2>"$RUN/tcpdump.log" &
TCPDUMP=$!
for _ in $(seq 50); do grep -q "listening on" "$RUN/tcpdump.log" && break; sleep 0.1; done

# --- avahi in sbdns-a, with a private system bus ----------------------------------------
start_avahi "$NS_A" "$RUN/a" sbdns-a "$VETH_A" || exit 1

# Two services: one with TXT key / key= / key=value and a name with a space, a dot and
# UTF-8; one under the 17-character type with an empty TXT.
ip netns exec "$NS_A" avahi-publish -s "Avahi Chat.v2 ☕" _switchboard._tcp 7100 version=1 flag note= \
  >"$RUN/publish-1.log" 2>&1 &
PUBLISH_1=$!
PIDS+=($PUBLISH_1)
ip netns exec "$NS_A" avahi-publish -s "avahi peer" _networkplayground._udp 7101 >"$RUN/publish-2.log" 2>&1 &
PUBLISH_2=$!
PIDS+=($PUBLISH_2)
for _ in $(seq 100); do
  grep -q "Established" "$RUN/publish-1.log" && grep -q "Established" "$RUN/publish-2.log" && break
  sleep 0.1
done

# --- zeroconf in sbdns-b: advertises two services, browses and resolves both types -------
ZC_ADDRESS=$ADDR_B ip netns exec "$NS_B" "$VENV/bin/python" scripts/discovery/zc-peer.py 6 >"$RUN/zc.log" 2>&1 &
ZC=$!
PIDS+=($ZC)
for _ in $(seq 100); do grep -q REGISTERED "$RUN/zc.log" && break; sleep 0.1; done

# avahi browses and resolves the same types (its queries carry known answers).
for type in _switchboard._tcp _networkplayground._udp; do
  ip netns exec "$NS_A" timeout 10 avahi-browse -rtp "$type" >>"$RUN/browse.log" 2>&1 || true
done

wait "$ZC" || { cat "$RUN/zc.log" >&2; exit 1; } # zeroconf unregisters: goodbyes

# Withdraw avahi's services (avahi-daemon sends their goodbyes), then stop avahi itself
# (goodbyes for its host name) and the rest; cleanup stops tcpdump last.
stop_pid "$PUBLISH_1"
stop_pid "$PUBLISH_2"
sleep 1
trap - EXIT
cleanup

rm -f "$OUT"/*.bin "$OUT/manifest.tsv"
"$VENV/bin/python" scripts/discovery/pcap-to-fixtures.py "$RUN/mdns.pcap" "$OUT" "$MAC_A=avahi" "$MAC_B=zeroconf"
echo "--- zeroconf found:"
grep -E "^(FOUND|UNRESOLVED)" "$RUN/zc.log" || true
echo "--- avahi-browse found:"
grep "^=" "$RUN/browse.log" || true
echo "(logs and the pcap are in $RUN)"
