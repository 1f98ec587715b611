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
missing=""
for p in avahi-daemon avahi-utils dbus tcpdump iproute2; do
  dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
  # Keep the package scripts from starting avahi-daemon in the root namespace.
  made_policy=0
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && made_policy=1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
  [ "$made_policy" = 1 ] && rm -f /usr/sbin/policy-rc.d
fi
if ! "$VENV/bin/python" -c "import zeroconf" 2>/dev/null; then
  python3 -m venv "$VENV" || {
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null && /usr/bin/python3 -m venv "$VENV"; }
  "$VENV/bin/pip" install -q "zeroconf==$ZC_VERSION"
fi

# --- cleanup: our PIDs, then our namespaces ---------------------------------------------
PIDS=()    # stopped last to first
TCPDUMP="" # stopped after them, once their goodbyes had time to arrive
stop() { # PID: SIGTERM (avahi and zeroconf send goodbyes), SIGKILL after 3 s
  kill -0 "$1" 2>/dev/null || return 0
  kill "$1" 2>/dev/null || true
  for _ in $(seq 30); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
  kill -9 "$1" 2>/dev/null || true
}
cleanup() {
  local pid
  for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do stop "${PIDS[i]}"; done
  PIDS=()
  if [ -n "$TCPDUMP" ]; then
    sleep 0.5
    stop "$TCPDUMP"
    TCPDUMP=""
  fi
  for ns in "$NS_A" "$NS_B"; do
    if ip netns list | awk '{print $1}' | grep -qx "$ns"; then
      # A process left in our namespace (from this run) would keep it alive.
      for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
      ip netns del "$ns"
    fi
  done
}
trap cleanup EXIT
cleanup # leftovers of an interrupted run (same names, so ours)

# --- namespaces -----------------------------------------------------------------------
rm -rf "$RUN" && mkdir -p "$RUN/a/run" "$RUN/a/services"
for ns in "$NS_A" "$NS_B"; do
  ip netns add "$ns"
  ip -n "$ns" link set lo up
  ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.accept_dad=0
done
ip link add "$VETH_A" address "$MAC_A" netns "$NS_A" type veth peer name "$VETH_B" address "$MAC_B" netns "$NS_B"
for end in "$NS_A $VETH_A $ADDR_A" "$NS_B $VETH_B $ADDR_B"; do
  set -- $end
  ip netns exec "$1" sysctl -qw "net.ipv6.conf.$2.accept_dad=0"
  ip -n "$1" addr add "$3/24" dev "$2"
  ip -n "$1" link set "$2" multicast on up
  ip -n "$1" route add 224.0.0.0/4 dev "$2"
done
for _ in $(seq 50); do # carrier and IPv6 link-local addresses on both ends
  ip -n "$NS_A" -6 addr show dev "$VETH_A" scope link | grep -q inet6 &&
    ip -n "$NS_B" -6 addr show dev "$VETH_B" scope link | grep -q inet6 && break
  sleep 0.1
done

# --- capture first, so probes and announcements are in it --------------------------------
ip netns exec "$NS_B" tcpdump -i "$VETH_B" -n -U -Z root -w "$RUN/mdns.pcap" udp port 5353 2>"$RUN/tcpdump.log" &
TCPDUMP=$!
for _ in $(seq 50); do grep -q "listening on" "$RUN/tcpdump.log" && break; sleep 0.1; done

# --- avahi in sbdns-a, with a private system bus ----------------------------------------
cat >"$RUN/a/dbus.conf" <<XML
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$RUN/a/dbus.sock</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/> <allow own="*"/>
    <allow send_type="method_call"/> <allow receive_type="method_call"/>
    <allow send_type="method_return"/> <allow receive_type="method_return"/>
    <allow send_type="signal"/> <allow receive_type="signal"/>
    <allow send_type="error"/> <allow receive_type="error"/>
  </policy>
</busconfig>
XML
ip netns exec "$NS_A" dbus-daemon --config-file="$RUN/a/dbus.conf" --nofork --nopidfile 2>"$RUN/dbus.log" &
PIDS+=($!)
for _ in $(seq 50); do [ -S "$RUN/a/dbus.sock" ] && break; sleep 0.1; done
export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$RUN/a/dbus.sock"

cat >"$RUN/a/avahi-daemon.conf" <<CONF
[server]
host-name=sbdns-a
use-ipv4=yes
use-ipv6=yes
allow-interfaces=$VETH_A
enable-dbus=yes
ratelimit-interval-usec=1000000
ratelimit-burst=1000
[wide-area]
enable-wide-area=no
[publish]
publish-hinfo=no
publish-workstation=no
[reflector]
enable-reflector=no
CONF
# `ip netns exec` runs its command in a mount namespace of its own, so these bind mounts
# (avahi's pid/socket directory, and an empty services directory so nothing from /etc is
# published) exist only for this avahi-daemon. sh execs avahi-daemon: $! is its PID.
mkdir -p /run/avahi-daemon
ip netns exec "$NS_A" sh -c '
  mount --bind "$1/run" /run/avahi-daemon && mount --bind "$1/services" /etc/avahi/services &&
  exec avahi-daemon -f "$1/avahi-daemon.conf" --no-drop-root --no-chroot --no-rlimits --debug
' sh "$RUN/a" >"$RUN/avahi.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do grep -q "Server startup complete" "$RUN/avahi.log" && break; sleep 0.1; done
grep -q "Server startup complete" "$RUN/avahi.log" || { cat "$RUN/avahi.log" >&2; exit 1; }

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
stop "$PUBLISH_1"
stop "$PUBLISH_2"
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
