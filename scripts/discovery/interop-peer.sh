#!/usr/bin/env bash
# interop-peer.sh [SWITCHBOARD_BINARY] — `switchboard peer` (seed 003's UDP peer mode) against
# real peers: two switchboard peers (built-in responder) in two namespaces find each other
# and exchange datagrams both ways, also over IPv6; a python-zeroconf stand-in for the seed
# 003 iPhone (zc-phone.py) finds a switchboard peer through Bonjour and is found by it,
# datagrams going both ways; `--to` sends to one peer only; two peers of one name end with
# distinct names; a peer on the system backend (avahi-daemon) and a built-in one exchange
# datagrams; avahi-browse -r sees the peers with the right host and port; the end of input
# exits 0 and its goodbye removes the peer at once. Prints PASS/FAIL per check; exits 1 if
# any failed (2 when it cannot run: not root, no `ip netns`).
#
# Binary: $1, else $SWITCHBOARD_BIN, else the debug build (sb_binary). Needs root (network
# namespaces). Installs what is missing, like interop.sh (lib.sh's install_peers).
#
#   sbpeer-a [sbpeer-va 10.231.10.1/24] <====veth====> [sbpeer-vb 10.231.10.2/24] sbpeer-b
#   switchboard peer alice, carol (--to iPhone),       switchboard peer bob, twin, dave (--mdns
#   twin                                               system), avahi-daemon (own dbus-daemon),
#                                                      avahi-browse, zc-phone.py
#
# No multicast touches the root namespace: both veth ends are created inside the namespaces,
# avahi runs only in sbpeer-b, and every process started here is stopped by its PID and both
# namespaces deleted on any exit. Logs stay in $SBPEER_RUN (default /tmp/sbpeer-interop).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
SB=${1:-${SWITCHBOARD_BIN:-}}
ZC_VERSION=${ZC_VERSION:-0.154.0}
VENV=${SBDNS_VENV:-/tmp/sbdns-venv}
RUN=${SBPEER_RUN:-/tmp/sbpeer-interop}
NS_A=sbpeer-a NS_B=sbpeer-b VETH_A=sbpeer-va VETH_B=sbpeer-vb
MAC_A=02:5b:d1:00:0a:01 MAC_B=02:5b:d1:00:0a:02
ADDR_A=10.231.10.1 ADDR_B=10.231.10.2
TYPE=_networkplayground._udp

[ "$(id -u)" = 0 ] || { echo "interop-peer.sh needs root (network namespaces)" >&2; exit 2; }
. scripts/lib.sh
SB=$(SWITCHBOARD_BIN=$SB sb_binary debug) || exit 2

. scripts/discovery/lib.sh
install_peers "$VENV" "$ZC_VERSION"
ip netns list >/dev/null 2>&1 || { echo "interop-peer.sh: ip netns does not work here" >&2; exit 2; }

start_checks "$NS_A" "$NS_B"
# The test launcher forbids advertising (tests run in the root namespace); here every peer
# runs inside a namespace of ours.
unset SWITCHBOARD_FORBID_ADVERTISE
# A line written to a peer that has died must be a failed check, not the script's end.
trap '' PIPE

# start_peer NS NAME FD [OPTIONS…]: `switchboard peer` in pipe mode, its stdin a FIFO held
# open on file descriptor FD (writing `echo … >&FD` sends a line, closing FD ends its input);
# stdout in $RUN/TAG.out, stderr in $RUN/TAG.err (TAG: $TAG, else NAME). Sets PEER_PID.
start_peer() {
  local ns=$1 name=$2 fd=$3 tag=${TAG:-$2}
  shift 3
  mkfifo "$RUN/$tag.in"
  # ip netns exec execs the command, so $! is switchboard's own PID. The other peers' FIFO
  # ends are closed for it: a writer left open in another process would hide their EOF.
  ip netns exec "$ns" "$SB" peer --name "$name" --log-level info "$@" \
    <"$RUN/$tag.in" >"$RUN/$tag.out" 2>"$RUN/$tag.err" 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- &
  PEER_PID=$!
  PIDS+=($PEER_PID)
  eval "exec $fd>\"\$RUN/\$tag.in\""
}
# exit_of PID: sets rc to its exit status once it has exited (up to 5 s), else to 124
# (still running). Not in $(…): only this shell can wait for its children.
exit_of() {
  for _ in $(seq 50); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$1" 2>/dev/null; then rc=124; else wait "$1"; rc=$?; fi
}
# port_of NAME HOST: the port the peer advertised (its status line on stderr).
port_of() { sed -n "s/^switchboard peer: advertised .* on $2\.local:\([0-9]*\)$/\1/p" "$RUN/$1.err" | head -1; }

# --- namespaces, avahi in sbpeer-b with a private system bus ----------------------------
rm -rf "$RUN" && mkdir -p "$RUN"
make_link "$NS_A" "$VETH_A" "$MAC_A" "$ADDR_A" "$NS_B" "$VETH_B" "$MAC_B" "$ADDR_B"
wait_link_local "$NS_A" "$VETH_A" "$NS_B" "$VETH_B"
start_avahi "$NS_B" "$RUN/b" sbpeer-b "$VETH_B" || exit 1

# --- (a) two switchboard peers find each other and exchange datagrams -------------------
start_peer "$NS_A" alice 3 --host sbpeer-a --mdns builtin
ALICE=$PEER_PID
start_peer "$NS_B" bob 4 --host sbpeer-b2 --mdns builtin
BOB=$PEER_PID
echo "hello from alice" >&3
echo "hello from bob ☕" >&4
if wait_for "$RUN/alice.err" "advertised alice\.$TYPE\.local on sbpeer-a\.local:[0-9]+$" 100 &&
  wait_for "$RUN/bob.err" "advertised bob\.$TYPE\.local on sbpeer-b2\.local:[0-9]+$" 100; then
  pass "peer: alice and bob advertised on ports the kernel picked (--port 0)"
else
  fail "peer: both advertised" "$(cat "$RUN/alice.err" "$RUN/bob.err")"
fi
grep -q "over 15 characters" "$RUN/alice.err" && pass "peer: _networkplayground (17 characters) accepted with a warning" ||
  fail "peer: _networkplayground accepted with a warning" "$(cat "$RUN/alice.err")"
PORT_A=$(port_of alice sbpeer-a)
PORT_B=$(port_of bob sbpeer-b2)
wait_for "$RUN/alice.out" "^[+~] bob \($ADDR_B:$PORT_B\)$" 150 && pass "peer: alice sees + bob ($ADDR_B:$PORT_B)" ||
  fail "peer: alice sees bob" "$(cat "$RUN/alice.out" "$RUN/alice.err")"
wait_for "$RUN/bob.out" "^[+~] alice \($ADDR_A:$PORT_A\)$" 150 && pass "peer: bob sees + alice ($ADDR_A:$PORT_A)" ||
  fail "peer: bob sees alice" "$(cat "$RUN/bob.out" "$RUN/bob.err")"
wait_for "$RUN/bob.out" "^alice: hello from alice$" 50 && pass "peer: bob got 'alice: hello from alice'" ||
  fail "peer: alice -> bob" "$(cat "$RUN/bob.out")"
wait_for "$RUN/alice.out" "^bob: hello from bob ☕$" 50 && pass "peer: alice got 'bob: hello from bob ☕' (UTF-8)" ||
  fail "peer: bob -> alice" "$(cat "$RUN/alice.out")"

# A plain IPv6 datagram to alice's link-local address: her IPv6 socket shares the port.
LL_A=$(ip -n "$NS_A" -6 addr show dev "$VETH_A" scope link | sed -n 's/.*inet6 \(fe80::[0-9a-f:]*\)\/.*/\1/p' | head -1)
ip netns exec "$NS_B" "$VENV/bin/python" -c '
import socket, sys
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s.sendto(b"over IPv6", (sys.argv[1], int(sys.argv[2]), 0, socket.if_nametoindex(sys.argv[3])))' "$LL_A" "$PORT_A" "$VETH_B"
wait_for "$RUN/alice.out" "^\[fe80::[0-9a-f:]+%$VETH_A\]:[0-9]+: over IPv6$" 50 &&
  pass "peer: alice's IPv6 socket on the same port got a datagram to [$LL_A%$VETH_A]:$PORT_A" ||
  fail "peer: IPv6 datagram" "$(cat "$RUN/alice.out")"

# --- (b) the seed 003 iPhone stand-in, next to bob and avahi in sbpeer-b ------------------
PHONE_PORT=7611
ip netns exec "$NS_B" "$VENV/bin/python" scripts/discovery/zc-phone.py iPhone "$PHONE_PORT" "$ADDR_B" "hello from the phone" \
  >"$RUN/phone.log" 2>&1 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- &
PHONE=$!
PIDS+=($PHONE)
wait_for "$RUN/phone.log" "^REGISTERED" 100 || fail "phone: registered" "$(cat "$RUN/phone.log")"
wait_for "$RUN/phone.log" "^FOUND	alice	$ADDR_A	$PORT_A$" 150 &&
  pass "phone: zeroconf browse + resolve finds alice at $ADDR_A:$PORT_A" || fail "phone: finds alice" "$(cat "$RUN/phone.log")"
# The phone sends from an ephemeral port (like an NWConnection), not its advertised one, so
# alice names it by address.
wait_for "$RUN/alice.out" "^$ADDR_B:[0-9]+: hello from the phone$" 50 &&
  pass "phone -> alice: alice printed '$ADDR_B:PORT: hello from the phone'" || fail "phone -> alice" "$(cat "$RUN/alice.out")"
wait_for "$RUN/alice.out" "^[+~] iPhone \($ADDR_B:$PHONE_PORT\)$" 150 && pass "peer: alice sees + iPhone ($ADDR_B:$PHONE_PORT)" ||
  fail "peer: alice sees the phone" "$(cat "$RUN/alice.out")"
echo "hello, phone" >&3
wait_for "$RUN/phone.log" "^RECEIVED	$ADDR_A:$PORT_A	hello, phone$" 50 &&
  pass "alice -> phone: the phone got 'hello, phone' from alice's advertised port" ||
  fail "alice -> phone" "$(cat "$RUN/phone.log")"
wait_for "$RUN/bob.out" "^alice: hello, phone$" 50 && pass "peer: the line went to every peer (bob got it too)" ||
  fail "peer: line to every peer" "$(cat "$RUN/bob.out")"

# --- --to: carol in sbpeer-a sends only to the phone -------------------------------------
start_peer "$NS_A" carol 5 --host sbpeer-c --mdns builtin --to iPhone
CAROL=$PEER_PID
echo "only for the phone" >&5
wait_for "$RUN/phone.log" "^RECEIVED	$ADDR_A:[0-9]+	only for the phone$" 150 &&
  pass "--to iPhone: the phone got carol's line" || fail "--to: phone" "$(cat "$RUN/phone.log" "$RUN/carol.out" "$RUN/carol.err")"
wait_for "$RUN/carol.out" "^\+ bob " 50
exec 5>&-
exit_of "$CAROL"
grep -q "only for the phone" "$RUN/bob.out" "$RUN/alice.out" &&
  fail "--to iPhone: bob or alice got carol's line too" "$(cat "$RUN/bob.out" "$RUN/alice.out")" ||
  pass "--to iPhone: bob and alice did not get it"
[ "$rc" = 0 ] && pass "peer: end of input exits 0 (carol)" || fail "peer: carol's exit" "exit $rc $(cat "$RUN/carol.err")"

# --- (c) avahi-browse -r sees both peers with host and port -------------------------------
ip netns exec "$NS_B" timeout 10 avahi-browse -rtp "$TYPE" >"$RUN/avahi.log" 2>&1
grep -qE "^=;$VETH_B;IPv4;alice;$TYPE;local;sbpeer-a\.local;$ADDR_A;$PORT_A;" "$RUN/avahi.log" &&
  pass "avahi-browse -r: alice on sbpeer-a.local $ADDR_A:$PORT_A" || fail "avahi-browse: alice" "$(cat "$RUN/avahi.log")"
grep -qE "^=;$VETH_B;IPv4;bob;$TYPE;local;sbpeer-b2\.local;$ADDR_B;$PORT_B;" "$RUN/avahi.log" &&
  pass "avahi-browse -r: bob on sbpeer-b2.local $ADDR_B:$PORT_B (same namespace, multicast loop)" ||
  fail "avahi-browse: bob" "$(cat "$RUN/avahi.log")"
grep -qE "^=;$VETH_B;IPv6;alice;$TYPE;local;sbpeer-a\.local;" "$RUN/avahi.log" &&
  pass "avahi-browse -r: alice also over IPv6" || fail "avahi-browse: alice over IPv6" "$(cat "$RUN/avahi.log")"

# --- the same name twice: one peer becomes "twin (2)", and each sees only the other -------
TAG=twin-a start_peer "$NS_A" twin 7 --host sbpeer-ta --mdns builtin
TWIN_A=$PEER_PID
wait_for "$RUN/twin-a.err" "advertised twin\.$TYPE" 100
TAG=twin-b start_peer "$NS_B" twin 8 --host sbpeer-tb --mdns builtin
TWIN_B=$PEER_PID
if wait_for "$RUN/twin-b.err" "advertised twin \(2\)\.$TYPE\.local on sbpeer-tb\.local:[0-9]+$" 100 &&
  grep -q "name 'twin' is taken; trying 'twin (2)'" "$RUN/twin-b.err"; then
  pass "conflict: the second twin renamed itself 'twin (2)'"
else
  fail "conflict: twin (2)" "$(cat "$RUN/twin-a.err" "$RUN/twin-b.err")"
fi
PORT_TA=$(port_of twin-a sbpeer-ta)
PORT_TB=$(sed -n "s/^switchboard peer: advertised .* on sbpeer-tb\.local:\([0-9]*\)$/\1/p" "$RUN/twin-b.err" | head -1)
wait_for "$RUN/twin-a.out" "^[+~] twin \(2\) \($ADDR_B:$PORT_TB\)$" 150 &&
  wait_for "$RUN/twin-b.out" "^[+~] twin \($ADDR_A:$PORT_TA\)$" 150 &&
  pass "conflict: twin sees + twin (2) and twin (2) sees + twin (the name it lost)" ||
  fail "conflict: the twins see each other" "$(cat "$RUN/twin-a.out" "$RUN/twin-b.out")"
{ grep -qE "^[+~] twin \((\[|[0-9.]+:)" "$RUN/twin-a.out" || grep -qE "^[+~] twin \(2\) " "$RUN/twin-b.out"; } &&
  fail "conflict: a twin listed itself" "$(cat "$RUN/twin-a.out" "$RUN/twin-b.out")" ||
  pass "conflict: neither twin lists itself"
exec 7>&- 8>&-
exit_of "$TWIN_A"
rc_a=$rc
exit_of "$TWIN_B"
[ "$rc_a" = 0 ] && [ "$rc" = 0 ] && pass "conflict: both twins exit 0 at the end of input" ||
  fail "conflict: the twins' exits" "exit $rc_a and $rc"

# --- the system backend: dave registers and browses through avahi-daemon in sbpeer-b ------
# (start_avahi exported DBUS_SYSTEM_BUS_ADDRESS, so dave talks to that avahi, which publishes
# him on its own host name, sbpeer-b.local.)
start_peer "$NS_B" dave 6 --mdns system
DAVE=$PEER_PID
wait_for "$RUN/dave.err" "advertised dave\.$TYPE\.local on sbpeer-b\.local:[0-9]+$" 100 &&
  pass "system backend: dave advertised through avahi-daemon, on its host sbpeer-b.local" ||
  fail "system backend: dave advertised" "$(cat "$RUN/dave.err")"
PORT_D=$(sed -n "s/^switchboard peer: advertised dave\..* on .*:\([0-9]*\)$/\1/p" "$RUN/dave.err" | head -1)
wait_for "$RUN/alice.out" "^[+~] dave \($ADDR_B:$PORT_D\)$" 150 && pass "system backend: alice (built-in) sees + dave" ||
  fail "system backend: alice sees dave" "$(cat "$RUN/alice.out")"
# avahi reports alice's addresses as they resolve: a link-local AAAA may come first
# (`+ alice ([fe80::…])`), then the A (`~ alice (10.231.10.1:…)`); either line carries it.
wait_for "$RUN/dave.out" "^[+~] alice \($ADDR_A:$PORT_A\)$" 150 && pass "system backend: dave sees alice (IPv4) through avahi" ||
  fail "system backend: dave sees alice" "$(cat "$RUN/dave.out" "$RUN/dave.err")"
# Only now: a line written earlier would go to whichever peer dave found first.
echo "hello from dave" >&6
wait_for "$RUN/alice.out" "^dave: hello from dave$" 50 && pass "system backend: alice got 'dave: hello from dave'" ||
  fail "system backend: dave -> alice" "$(cat "$RUN/alice.out")"
echo "hello, dave" >&3
wait_for "$RUN/dave.out" "^alice: hello, dave$" 50 && pass "system backend: dave got 'alice: hello, dave'" ||
  fail "system backend: alice -> dave" "$(cat "$RUN/dave.out")"
grep -q "^+ dave " "$RUN/dave.out" && fail "system backend: dave listed itself" "$(cat "$RUN/dave.out")" ||
  pass "system backend: dave never lists itself"
exec 6>&-
exit_of "$DAVE"
[ "$rc" = 0 ] && pass "system backend: end of input exits 0 (dave)" || fail "system backend: dave's exit" "exit $rc $(cat "$RUN/dave.err")"

# --- a peer never lists itself; end of input: exit 0 and a goodbye ---------------------
grep -q "^+ alice " "$RUN/alice.out" && fail "alice listed itself" "$(cat "$RUN/alice.out")" ||
  pass "peer: alice never lists itself (its own advertisement loops back)"
grep -q "^+ bob " "$RUN/bob.out" && fail "bob listed itself" "$(cat "$RUN/bob.out")" || pass "peer: bob never lists itself"
exec 3>&-
exit_of "$ALICE"
[ "$rc" = 0 ] && pass "peer: end of input exits 0 (alice)" || fail "peer: alice's exit" "exit $rc $(cat "$RUN/alice.err")"
wait_for "$RUN/bob.out" "^- alice$" 30 && pass "goodbye: bob printed '- alice' at once" || fail "goodbye: bob" "$(cat "$RUN/bob.out")"
wait_for "$RUN/phone.log" "^REMOVED	alice$" 30 && pass "goodbye: zeroconf removed alice" || fail "goodbye: phone" "$(cat "$RUN/phone.log")"
kill -TERM "$BOB"
exit_of "$BOB"
[ "$rc" = 0 ] && pass "peer: SIGTERM exits 0 (bob)" || fail "peer: bob's exit" "exit $rc $(cat "$RUN/bob.err")"

finish_checks interop-peer.sh "$RUN"
