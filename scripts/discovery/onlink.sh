#!/usr/bin/env bash
# onlink.sh [SWITCHBOARD_BINARY] — the built-in responder answers legacy unicast queries
# (RFC 6762 §6.7: source port other than 5353) only from sources on the link they came in on
# (§5.5, §11), and only so often per source. `switchboard serve` advertises in sbol-a; a
# querier on the same subnet (sbol-b) is answered, a querier one router hop away (sbol-c, a
# second subnet routed through sbol-b) is not, and /metrics counts both refusals. Prints
# PASS/FAIL per check; exits 1 if any failed (2 when it cannot run: not root, no `ip netns`).
#
# Binary: $1, else $SWITCHBOARD_BIN, else the debug build (sb_binary). Needs root and python3
# (standard library only); installs nothing.
#
#   sbol-a [sbol-va 10.231.30.1/24] <=veth=> [sbol-vb 10.231.30.2/24] sbol-b [sbol-vr 10.231.31.1/24] <=veth=> [sbol-vc 10.231.31.2/24] sbol-c
#   switchboard serve                          on-link querier, router      off-link querier
#
# No multicast touches the root namespace: every veth end is created inside our namespaces,
# serve runs only in sbol-a, and every process started here is stopped by its PID and the
# namespaces deleted on any exit. Logs stay in $SBOL_RUN (default /tmp/sbol-onlink).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
SB=${1:-${SWITCHBOARD_BIN:-}}
RUN=${SBOL_RUN:-/tmp/sbol-onlink}
NS_A=sbol-a NS_B=sbol-b NS_C=sbol-c VETH_A=sbol-va VETH_B=sbol-vb VETH_R=sbol-vr VETH_C=sbol-vc
MAC_A=02:5b:d3:00:01:01 MAC_B=02:5b:d3:00:01:02
ADDR_A=10.231.30.1 ADDR_B=10.231.30.2 ADDR_R=10.231.31.1 ADDR_C=10.231.31.2
TCP=7730 HTTP=7731

[ "$(id -u)" = 0 ] || { echo "onlink.sh needs root (network namespaces)" >&2; exit 2; }
. scripts/lib.sh
SB=$(SWITCHBOARD_BIN=$SB sb_binary debug) || exit 2
# The test launcher sets this so that a serve in the root namespace cannot advertise; the
# serve here runs inside our namespace.
unset SWITCHBOARD_FORBID_ADVERTISE

. scripts/discovery/lib.sh
ip netns list >/dev/null 2>&1 || { echo "onlink.sh: ip netns does not work here" >&2; exit 2; }
start_checks "$NS_A" "$NS_B" "$NS_C"

# --- namespaces: A -- B on 10.231.30.0/24, B -- C on 10.231.31.0/24, B forwards ------------
rm -rf "$RUN" && mkdir -p "$RUN"
make_link "$NS_A" "$VETH_A" "$MAC_A" "$ADDR_A" "$NS_B" "$VETH_B" "$MAC_B" "$ADDR_B"
ip netns add "$NS_C"
ip -n "$NS_C" link set lo up
ip link add "$VETH_R" netns "$NS_B" type veth peer name "$VETH_C" netns "$NS_C"
ip -n "$NS_B" addr add "$ADDR_R/24" dev "$VETH_R" && ip -n "$NS_B" link set "$VETH_R" up
ip -n "$NS_C" addr add "$ADDR_C/24" dev "$VETH_C" && ip -n "$NS_C" link set "$VETH_C" up
ip netns exec "$NS_B" sysctl -qw net.ipv4.ip_forward=1
ip -n "$NS_C" route add default via "$ADDR_R"
ip -n "$NS_A" route add 10.231.31.0/24 via "$ADDR_B"

# legacy NS SERVER NAME COUNT: COUNT legacy unicast A queries for NAME, each from a fresh
# port, to SERVER:5353; prints "answers N ADDRESS…" (replies with the query's id) after 2 s.
# reach NS SERVER PORT: prints "connected" when a TCP connection to SERVER:PORT opens.
cat >"$RUN/probe.py" <<'PY'
import random, select, socket, sys, time
mode = sys.argv[1]
if mode == "reach":
    s = socket.create_connection((sys.argv[2], int(sys.argv[3])), timeout=3)
    print("connected")
    sys.exit(0)
server, name, count = sys.argv[2], sys.argv[3], int(sys.argv[4])
sockets = {}
for _ in range(count):
    qid = random.randrange(1, 65536)
    qname = b"".join(bytes([len(l)]) + l.encode() for l in name.split(".")) + b"\0"
    packet = qid.to_bytes(2, "big") + b"\0\0\0\x01\0\0\0\0\0\0" + qname + b"\0\x01\0\x01"
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", 0))
    s.sendto(packet, (server, 5353))
    sockets[s] = qid
answers, found = 0, set()
end = time.time() + 2
while time.time() < end:
    ready, _, _ = select.select(list(sockets), [], [], max(0, end - time.time()))
    for s in ready:
        data = s.recv(9000)
        if len(data) >= 12 and int.from_bytes(data[:2], "big") == sockets[s] and data[2] & 0x80:
            answers += 1
            for i in range(12, len(data) - 3):
                if data[i:i + 4] == socket.inet_aton(server):
                    found.add(server)
print("answers", answers, *sorted(found))
PY
probe() { local ns=$1; shift; ip netns exec "$ns" python3 "$RUN/probe.py" "$@" 2>&1; }
metric() { # NAME: its value in serve's /metrics (read inside sbol-a)
  ip netns exec "$NS_A" python3 -c '
import sys, urllib.request
for line in urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=3).read().decode().splitlines():
    if line.startswith(sys.argv[2] + " "): print(line.split()[1])' "$HTTP" "$1"
}

# --- serve in sbol-a (host name sbol-a, a UTS namespace of its own) -------------------------
ip netns exec "$NS_A" unshare --uts sh -c 'hostname sbol-a && exec "$@"' sh \
  "$SB" serve --mdns builtin --ephemeral --log-level info --name "SB OnLink" \
  --tcp-port $TCP --udp-port 0 --http-port $HTTP >"$RUN/serve.log" 2>&1 &
PIDS+=($!)
wait_for "$RUN/serve.log" "^advertised SB OnLink\._switchboard\._tcp\.local on sbol-a\.local:$TCP$" 100 &&
  pass "serve advertises sbol-a.local" || fail "serve advertises" "$(cat "$RUN/serve.log")"

# --- 1. on-link: answered ---------------------------------------------------------------------
out=$(probe "$NS_B" legacy "$ADDR_A" sbol-a.local 1)
[ "$out" = "answers 1 $ADDR_A" ] && pass "on-link legacy query (from $ADDR_B) answered with $ADDR_A" ||
  fail "on-link legacy query answered" "$out"

# --- 2. off-link: routed, but not answered, and counted ---------------------------------------
reach=$(probe "$NS_C" reach "$ADDR_A" $TCP)
[ "$reach" = connected ] && pass "off-link querier ($ADDR_C) reaches serve over TCP through the router" ||
  fail "off-link querier reaches serve" "$reach"
out=$(probe "$NS_C" legacy "$ADDR_A" sbol-a.local 3)
[ "$out" = "answers 0" ] && pass "off-link legacy queries (from $ADDR_C) get no answer" ||
  fail "off-link legacy queries ignored" "$out"
ignored=$(metric switchboard_mdns_offlink_queries_ignored_total)
[ "${ignored:-0}" -ge 3 ] && pass "/metrics: switchboard_mdns_offlink_queries_ignored_total $ignored" ||
  fail "/metrics counts off-link queries" "got '${ignored}'"

# --- 3. rate limit per source -----------------------------------------------------------------
out=$(probe "$NS_B" legacy "$ADDR_A" sbol-a.local 30)
n=$(echo "$out" | awk '{print $2}')
limited=$(metric switchboard_mdns_legacy_queries_rate_limited_total)
if [ "${n:-0}" -ge 1 ] && [ "${n:-0}" -le 10 ] && [ "${limited:-0}" -ge 20 ]; then
  pass "30 legacy queries from one on-link source: $n answered, $limited rate-limited"
else
  fail "legacy rate limit" "answered '$out', rate-limited '$limited'"
fi

finish_checks onlink.sh "$RUN"
