# lib.sh — shared by capture-fixtures.sh and the interop scripts (sourced, not run): test peers,
# a veth pair between two network namespaces of our own, avahi-daemon with a private bus.
# Nothing here touches the root namespace's interfaces, and no mDNS stack runs there.
# scripts/lib.sh (sourced here) has what every script shares: stop_pid, stop_all, sb_binary.
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

# install_peers VENV ZC_VERSION: avahi-daemon, avahi-utils, dbus, tcpdump, iproute2,
# libavahi-compat-libdnssd1 (the DNS-SD library the system backend loads at run time)
# (Debian, without recommends; a policy-rc.d keeps apt from starting avahi-daemon) and
# python-zeroconf ZC_VERSION in the venv VENV, when missing.
install_peers() {
  local venv=$1 version=$2 missing="" p made_policy=0
  for p in avahi-daemon avahi-utils dbus tcpdump iproute2 libavahi-compat-libdnssd1; do
    dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
  done
  if [ -n "$missing" ]; then
    if [ ! -e /usr/sbin/policy-rc.d ]; then
      printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && made_policy=1
    fi
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
    [ "$made_policy" = 1 ] && rm -f /usr/sbin/policy-rc.d
  fi
  if ! "$venv/bin/python" -c "import zeroconf" 2>/dev/null; then
    python3 -m venv "$venv" || {
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null && /usr/bin/python3 -m venv "$venv"; }
    "$venv/bin/pip" install -q "zeroconf==$version"
  fi
}

# delete_netns NS…: kills what is left inside each of our namespaces, then deletes it.
delete_netns() {
  local ns pid
  for ns in "$@"; do
    if ip netns list | awk '{print $1}' | grep -qx "$ns"; then
      for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
      ip netns del "$ns"
    fi
  done
}

# make_link NS_A VETH_A MAC_A ADDR_A NS_B VETH_B MAC_B ADDR_B: two namespaces joined by a
# veth pair whose ends are created inside them (/24 addresses, multicast on, a 224.0.0.0/4
# route only there, no duplicate address detection), and waits for the IPv6 link-local
# addresses. Fixed MACs give fixed link-local addresses.
make_link() {
  local ns
  for ns in "$1" "$5"; do
    ip netns add "$ns"
    ip -n "$ns" link set lo up
    ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.accept_dad=0
  done
  ip link add "$2" address "$3" netns "$1" type veth peer name "$6" address "$7" netns "$5"
  local end
  for end in "$1 $2 $4" "$5 $6 $8"; do
    set -- $end
    ip netns exec "$1" sysctl -qw "net.ipv6.conf.$2.accept_dad=0"
    ip -n "$1" addr add "$3/24" dev "$2"
    ip -n "$1" link set "$2" multicast on up
    ip -n "$1" route add 224.0.0.0/4 dev "$2"
  done
}

# wait_link_local NS_A VETH_A NS_B VETH_B: up to 5 s for both ends' IPv6 link-local addresses.
wait_link_local() {
  for _ in $(seq 50); do
    ip -n "$1" -6 addr show dev "$2" scope link | grep -q inet6 &&
      ip -n "$3" -6 addr show dev "$4" scope link | grep -q inet6 && return 0
    sleep 0.1
  done
  return 1
}

# start_avahi NS DIR HOSTNAME IFACE: a private system bus and avahi-daemon in NS, state in
# DIR (dbus.sock, avahi.log beside it in DIR/..). Appends both PIDs to the caller's PIDS
# array and exports DBUS_SYSTEM_BUS_ADDRESS for avahi-browse/-publish. `ip netns exec` runs
# its command in a mount namespace of its own, so the bind mounts (avahi's pid/socket
# directory, an empty services directory so nothing from /etc is published) exist only for
# this avahi-daemon; sh execs it, so $! is its PID.
start_avahi() {
  local ns=$1 dir=$2 host=$3 iface=$4
  mkdir -p "$dir/run" "$dir/services"
  cat >"$dir/dbus.conf" <<XML
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$dir/dbus.sock</listen>
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
  ip netns exec "$ns" dbus-daemon --config-file="$dir/dbus.conf" --nofork --nopidfile 2>"$dir/../dbus.log" &
  PIDS+=($!)
  for _ in $(seq 50); do [ -S "$dir/dbus.sock" ] && break; sleep 0.1; done
  export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$dir/dbus.sock"
  cat >"$dir/avahi-daemon.conf" <<CONF
[server]
host-name=$host
use-ipv4=yes
use-ipv6=yes
allow-interfaces=$iface
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
  mkdir -p /run/avahi-daemon
  ip netns exec "$ns" sh -c '
    mount --bind "$1/run" /run/avahi-daemon && mount --bind "$1/services" /etc/avahi/services &&
    exec avahi-daemon -f "$1/avahi-daemon.conf" --no-drop-root --no-chroot --no-rlimits --debug
  ' sh "$dir" >"$dir/../avahi.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 100); do grep -q "Server startup complete" "$dir/../avahi.log" && return 0; sleep 0.1; done
  cat "$dir/../avahi.log" >&2
  return 1
}

# --- the frame of a PASS/FAIL script (interop-serve.sh, interop-system.sh; interop.sh still has its own copy) ---
# start_checks NS…: PIDS and FAILS start empty; on any exit, every PID in PIDS is stopped
# (last first) and the namespaces NS… are deleted; leftovers of an earlier run are removed now.
start_checks() {
  CHECK_NETNS=("$@")
  PIDS=()
  FAILS=0
  trap cleanup_checks EXIT
  cleanup_checks
}
cleanup_checks() {
  stop_all
  delete_netns "${CHECK_NETNS[@]}"
}
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1${2:+: $2}"; FAILS=$((FAILS + 1)); }
# wait_for FILE PATTERN [TENTHS]: until an extended regex matches a line of FILE (default 10 s).
wait_for() {
  for _ in $(seq "${3:-100}"); do grep -qE -- "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  return 1
}
# finish_checks SCRIPT RUN: the closing lines; exits 1 when a check failed, else 0.
finish_checks() {
  echo "(logs in $2)"
  if [ "$FAILS" -gt 0 ]; then
    echo "$1: $FAILS check(s) failed"
    exit 1
  fi
  echo "$1: all checks passed"
  exit 0
}
