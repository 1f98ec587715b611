#!/usr/bin/env bash
# nginx-three-nodes.sh [SWITCHBOARD_BINARY] — deploy/nginx/switchboard.conf, run for real: a
# redis-server, three `serve --redis` nodes and nginx on loopback ports (the nodes' chosen
# by the kernel, `serve … any`; redis-server's and nginx's probed free), nginx with its prefix, pid, temp files and logs in a temporary directory (never
# /etc/nginx, never a system nginx's). nginx_clients.py then drives WebSocket and TCP line
# clients through it, kills node 1, and checks that new clients still get through.
# Exit 0 passed, 1 failed, 2 cannot run here (no nginx, redis-server or python websockets;
# scripts/install-test-peers.sh provides them). KEEP=1 keeps the directory with the logs.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
. scripts/lib.sh
PEERS_CACHE="${SWITCHBOARD_PEERS_CACHE:-/var/cache/switchboard-peers}"

if [ -x "$PEERS_CACHE/nginx/usr/sbin/nginx" ]; then
  NGINX="$PEERS_CACHE/nginx/usr/sbin/nginx"
  MODULE="$PEERS_CACHE/nginx/usr/lib/nginx/modules/ngx_stream_module.so"
elif command -v nginx >/dev/null 2>&1; then
  NGINX="$(command -v nginx)"
  MODULE=/usr/lib/nginx/modules/ngx_stream_module.so
else
  echo "nginx-three-nodes: no nginx (scripts/install-test-peers.sh unpacks Debian's)" >&2
  exit 2
fi
command -v redis-server >/dev/null 2>&1 || { echo "nginx-three-nodes: no redis-server" >&2; exit 2; }
python3 -c 'import websockets' 2>/dev/null || { echo "nginx-three-nodes: no python websockets" >&2; exit 2; }
if [ $# -ge 1 ]; then SB=$1; else SB=$(sb_binary debug) || exit 1; fi
[ -x "$SB" ] || { echo "nginx-three-nodes: no switchboard binary at $SB" >&2; exit 1; }

work="$(mktemp -d /tmp/sb-nginx.XXXXXX)"
chmod 755 "$work"   # nginx's workers run as another user when the master is root
cleanup() {
  # Last started first: nginx gets TERM (its master takes its workers with it), then the nodes.
  stop_all
  if [ "${KEEP:-0}" = 1 ]; then echo "nginx-three-nodes: logs in $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
fail() {
  echo "nginx-three-nodes: FAILED: $*" >&2
  for f in "$work"/*.log; do [ -s "$f" ] && { echo "--- $f" >&2; tail -20 "$f" >&2; }; done
  exit 1
}

# redis-server and nginx take their ports on the command line: three free loopback ports
# (the kernel picks them; a race with another test is possible but brief, and shows up as
# wait_port failing below). The nodes bind `any` and report theirs.
read -r RP NH NT < <(free_ports 3)

redis-server --bind 127.0.0.1 --port "$RP" --save '' --appendonly no >"$work/redis.log" 2>&1 &
PIDS+=($!)
wait_port "$RP" 10 || fail "redis-server is not listening on port $RP"

http=() tcp=() node_pids=()
for i in 0 1 2; do
  sb_serve "$work/node$((i + 1)).log" "$SB" serve --redis "redis://127.0.0.1:$RP" --no-advertise --ephemeral \
    --host 127.0.0.1 --http-port any --tcp-port any --udp-port 0 --max-connections-per-ip 0 \
    --log-level warning || fail "node $((i + 1)) did not start"
  http+=("$SERVE_HTTP") tcp+=("$SERVE_TCP") node_pids+=("$SERVE_PID")
  disown "$SERVE_PID"   # node 1 is killed on purpose: no "Killed" line from bash
done
H1=${http[0]} H2=${http[1]} H3=${http[2]} T1=${tcp[0]} T2=${tcp[1]} T3=${tcp[2]}

deploy/nginx/render.sh STREAM_MODULE="$MODULE" STATE_DIR="$work" LOG_DIR="$work" \
  HTTP_LISTEN="127.0.0.1:$NH" TCP_LISTEN="127.0.0.1:$NT" \
  NODE1_HTTP="127.0.0.1:$H1" NODE2_HTTP="127.0.0.1:$H2" NODE3_HTTP="127.0.0.1:$H3" \
  NODE1_TCP="127.0.0.1:$T1" NODE2_TCP="127.0.0.1:$T2" NODE3_TCP="127.0.0.1:$T3" \
  >"$work/nginx.conf" || fail "render.sh"
"$NGINX" -t -p "$work" -e "$work/nginx-start.log" -c "$work/nginx.conf" >"$work/nginx-t.log" 2>&1 \
  || fail "nginx -t refused the rendered config: $(cat "$work/nginx-t.log")"
"$NGINX" -p "$work" -e "$work/nginx-start.log" -c "$work/nginx.conf" -g 'daemon off;' \
  >"$work/nginx-out.log" 2>&1 &
PIDS+=($!)
wait_port "$NH" 10 || fail "nginx is not listening on port $NH"
wait_port "$NT" 10 || fail "nginx is not listening on port $NT"

python3 scripts/deploy/nginx_clients.py --nginx-http "$NH" --nginx-tcp "$NT" \
  --node-http "$H1,$H2,$H3" --node-tcp "$T1,$T2,$T3" --kill-pid "${node_pids[0]}" \
  || fail "the clients through nginx (above)"
echo "nginx-three-nodes: passed"
