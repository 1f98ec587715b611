#!/usr/bin/env bash
# Switchboard against node `ws`, Go gorilla/websocket's chat hub and python `websockets`,
# side by side, with one load generator (`switchboard bench`, release build).
#
#   benchmarks/run.sh              # ~10 minutes: 10 s per scenario, one round
#   benchmarks/run.sh --quick      # ~5 minutes: 3 s per scenario, 5,000 idle connections
#   benchmarks/run.sh --rounds 3   # every scenario × server three times, interleaved;
#                                  # the table shows medians and the p99 range
#   benchmarks/run.sh --baseline OLD/switchboard --servers "switchboard switchboard-base"
#                                  # a change's before and after, interleaved in one table
#
# Options: --quick, --rounds N, --servers "switchboard switchboard-wss switchboard-epoll switchboard-dispatch floor floor-uring gohub node python"
# (switchboard is the platform's default backend, io_uring where the kernel allows it;
# switchboard-epoll, switchboard-dispatch and switchboard-uring the same binary with
# --backend epoll, dispatch or io_uring: the Dispatch backend is the one a Mac runs;
# switchboard-wss the default backend serving wss:// on its TLS listener, with a throwaway
# certificate made with openssl, driven by the same generator over TLS)
# (also: switchboard-json, Switchboard's JSON protocol in every scenario; node-json, the seed
# apps' JSON chat protocol on node `ws` — both driven with --protocol json; switchboard-jsonbytes,
# the text dialect with texts as long as the JSON rows' whole message frames, to tell the
# JSON format's bytes from its code; switchboard-base-json, --baseline's JSON protocol),
# --scenarios "fanout-100 …", --duration S, --no-build, --baseline BIN (an older switchboard
# binary, served as the rows switchboard-base, switchboard-base-epoll and
# switchboard-base-dispatch; the load generator
# is always the current build's, so both rows are measured by the same client). Environment: BENCH_WORK (peers,
# results; default /tmp/switchboard-bench), SWIFT_SCRATCH (swift build --scratch-path;
# default .build), SWITCHBOARD_BIN (the binary to measure and generate load with, instead of
# the release build). Switchboard binds kernel-chosen ports (`serve … any`), so a --baseline
# binary must know `any` and --ports-file (docs/OPERATIONS.md, "Ports").
#
# The server runs on CPU 0 and the generator on CPU 1 (taskset). Each scenario starts a
# fresh server, so peak RSS (VmHWM) belongs to that scenario. Server CPU time is read from
# /proc/PID/stat by the generator at the start and end of the measured window
# (--server-pid), and by this script before and after the whole run.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/benchmarks/common.sh"
WORK=${BENCH_WORK:-/tmp/switchboard-bench}
DURATION=10
WARMUP=2
IDLE_CONNS=10000
SERVERS="switchboard switchboard-wss switchboard-epoll switchboard-dispatch floor floor-uring gohub node python"
# (switchboard-json and node-json are not in the default set: name them with --servers.)
SCENARIOS="fanout-100 fanout-1k fanout-max chat saturation idle tcp-fanout-1k"
BUILD=1
ROUNDS=1
SB_BASE=""
JSON_FRAME_BYTES=186
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) DURATION=3; WARMUP=1; IDLE_CONNS=5000 ;;
    --duration) DURATION=$2; shift ;;
    --rounds) ROUNDS=$2; shift ;;
    --servers) SERVERS=$2; shift ;;
    --scenarios) SCENARIOS=$2; shift ;;
    --no-build) BUILD=0 ;;
    --baseline) SB_BASE=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift ;;
    -h|--help) sed -n '2,27p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown option $1" >&2; exit 64 ;;
  esac
  shift
done

RESULTS="$WORK/results-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$WORK" "$RESULTS"
ulimit -n "$(ulimit -Hn)"
log() { echo "== $*" >&2; }

# --- Peers -------------------------------------------------------------------------------
have() { command -v "$1" >/dev/null 2>&1; }
drop_servers() {  # names… → SERVERS without them (whole words)
  local out=() s n keep
  for s in $SERVERS; do
    keep=1; for n in "$@"; do [ "$s" = "$n" ] && keep=0; done
    [ "$keep" = 1 ] && out+=("$s")
  done
  echo "${out[*]}"
}
setup_peers() {
  if [[ " $SERVERS " == *" switchboard-wss "* ]]; then
    # A throwaway certificate for 127.0.0.1, removed when the run ends.
    TLS_DIR=$(mktemp -d)
    trap 'stop_all; rm -rf "$TLS_DIR"' EXIT
    if ! openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
      -subj /CN=localhost -addext subjectAltName=IP:127.0.0.1 \
      -keyout "$TLS_DIR/key.pem" -out "$TLS_DIR/cert.pem" >/dev/null 2>&1; then
      log "no openssl to make a certificate: skipping switchboard-wss"; SERVERS=$(drop_servers switchboard-wss)
    fi
  fi
  if [[ " $SERVERS " == *" gohub "* ]]; then
    if ! have go || [ ! -d /usr/share/gocode/src/github.com/gorilla/websocket ]; then
      log "installing golang-go and golang-github-gorilla-websocket-dev"
      apt-get install -y golang-go golang-github-gorilla-websocket-dev >/dev/null 2>&1 || true
    fi
    if have go && [ -d /usr/share/gocode/src/github.com/gorilla/websocket ]; then
      log "building the gorilla chat hub offline"
      (cd "$ROOT/benchmarks/peers/gohub" && GOPATH=/usr/share/gocode GO111MODULE=off \
        go build -o "$WORK/gohub" .) || SERVERS=${SERVERS//gohub/}
    else
      log "no Go or gorilla/websocket: skipping gohub"; SERVERS=${SERVERS//gohub/}
    fi
  fi
  if [[ " $SERVERS " == *" floor "* || " $SERVERS " == *" floor-uring "* ]]; then
    log "building the floor hub (cc + libcrypto; floor-uring also with Switchboard's send_ring.c)"
    cc -O2 -o "$WORK/floor_hub" "$ROOT/benchmarks/peers/floor_hub.c" -lcrypto || SERVERS=${SERVERS//floor /}
    cc -O2 -DFLOOR_URING -I"$ROOT/Sources/CSwitchboardShims/include" -o "$WORK/floor_hub_uring" \
      "$ROOT/benchmarks/peers/floor_hub.c" "$ROOT/Sources/CSwitchboardShims/send_ring.c" -lcrypto \
      || SERVERS=${SERVERS//floor-uring/}
  fi
  if [[ " $SERVERS " == *" node "* || " $SERVERS " == *" node-json "* ]]; then
    if [ ! -d "$WORK/node-ws/usr/share/nodejs/ws" ]; then
      log "fetching node-ws (apt-get download; node here is not Debian's, so no install)"
      (cd "$WORK" && apt-get download node-ws >/dev/null 2>&1 && dpkg-deb -x node-ws_*.deb node-ws) || true
    fi
    if ! have node || [ ! -d "$WORK/node-ws/usr/share/nodejs/ws" ]; then
      log "no node or node-ws: skipping node"; SERVERS=$(drop_servers node node-json)
    fi
  fi
  if [[ " $SERVERS " == *" python "* ]]; then
    if ! python3 -c 'import websockets.asyncio.server' 2>/dev/null; then
      log "no python websockets (>= 13): skipping python"; SERVERS=${SERVERS//python/}
    fi
  fi
}

# --- Servers -------------------------------------------------------------------------------
PORT=0
TCP_PORT=0
SERVER_PID=0
start_server() {  # name → sets SERVER_PID, PORT, TCP_PORT
  local name=$1 log="$RESULTS/server-$1.log"
  case "$name" in
    switchboard|switchboard-wss|switchboard-epoll|switchboard-dispatch|switchboard-uring|switchboard-json|switchboard-jsonbytes|switchboard-base|switchboard-base-epoll|switchboard-base-dispatch|switchboard-base-uring|switchboard-base-json)
      # One event loop: the server gets one core, like the single-threaded peers.
      # switchboard-epoll: the same binary with a send() per connection instead of the
      # io_uring batch (the default where the kernel allows it); switchboard-dispatch: the
      # DispatchSource backend (Darwin's default; here libdispatch's epoll under it);
      # switchboard-uring: io_uring named, whatever the default is. *-base: --baseline's binary.
      local backend=()
      case "$name" in
        *-epoll) backend=(--backend epoll) ;;
        *-dispatch) backend=(--backend dispatch) ;;
        *-uring) backend=(--backend io_uring) ;;
      esac
      local bin=$SB; [[ "$name" == switchboard-base* ]] && bin=$SB_BASE
      # switchboard-wss: PORT is the TLS listener's (wss://), and plaintext HTTP is off.
      local http=(--http-port any)
      [ "$name" = switchboard-wss ] && http=(--http-port 0 --https-port any --tls-port 0
        --tls-cert "$TLS_DIR/cert.pem" --tls-key "$TLS_DIR/key.pem")
      if ! sb_serve "$log" taskset -c 0 "$bin" serve --host 127.0.0.1 --tcp-port any --udp-port 0 \
        "${http[@]}" --no-advertise --ephemeral --loops 1 --log-level warning --max-connections-per-ip 0 "${backend[@]}"; then
        echo "run.sh: $name did not start" >&2
        stop_server
        return 1
      fi
      SERVER_PID=$SERVE_PID PORT=$SERVE_HTTP TCP_PORT=$SERVE_TCP
      [ "$name" = switchboard-wss ] && PORT=$SERVE_HTTPS
      return 0
      ;;
  esac
  # The peers take a port on their command line.
  read -r PORT < <(free_ports 1)
  case "$name" in
    floor) taskset -c 0 "$WORK/floor_hub" "$PORT" >"$log" 2>&1 & ;;
    floor-uring) taskset -c 0 "$WORK/floor_hub_uring" "$PORT" --uring >"$log" 2>&1 & ;;
    gohub) taskset -c 0 "$WORK/gohub" -addr "127.0.0.1:$PORT" >"$log" 2>&1 & ;;
    node)
      NODE_PATH="$WORK/node-ws/usr/share/nodejs" taskset -c 0 node "$ROOT/benchmarks/peers/node_ws_hub.js" \
        "$PORT" >"$log" 2>&1 &
      ;;
    node-json)
      NODE_PATH="$WORK/node-ws/usr/share/nodejs" taskset -c 0 node "$ROOT/benchmarks/peers/node_json_chat.js" \
        "$PORT" >"$log" 2>&1 &
      ;;
    python) taskset -c 0 python3 "$ROOT/benchmarks/peers/py_ws_hub.py" "$PORT" >"$log" 2>&1 & ;;
  esac
  SERVER_PID=$!
  PIDS+=("$SERVER_PID")
  wait_port "$PORT" 10 && return 0
  echo "run.sh: $name did not start listening on $PORT" >&2
  stop_server
  return 1
}
stop_server() { stop_all; }
trap stop_all EXIT

# --- One run ---------------------------------------------------------------------------------
run_one() {  # scenario server label bench-args…
  local scenario=$1 server=$2 label=$3; shift 3
  local label_file=$label; [ "$ROUNDS" -gt 1 ] && label_file="$label.r$ROUND"
  start_server "$server" || return 0
  local url="ws://127.0.0.1:$PORT/"
  [[ "$server" == switchboard* ]] && url="ws://127.0.0.1:$PORT/rooms/bench"
  [ "$server" = switchboard-wss ] && url="wss://127.0.0.1:$PORT/rooms/bench"
  local args=("$@")
  # The JSON rows: Switchboard's JSON protocol and the seed apps' (node-json).
  [[ "$server" == *-json ]] && args+=(--protocol json)
  # switchboard-jsonbytes: the text dialect carrying as many bytes per frame as the JSON
  # rows' `message` frames (a 64-byte text, a 6-7 digit id, a 13-digit time, room "bench",
  # author "Client NNN", a colour: ~186 bytes), so JSON's cost can be split into its bytes
  # (the kernel copies every one) and its code.
  if [ "$server" = switchboard-jsonbytes ]; then
    local i; for i in "${!args[@]}"; do [ "${args[$i]}" = --size ] && args[$((i + 1))]=$JSON_FRAME_BYTES; done
  fi
  if [ "${args[0]}" = tcp ]; then url="tcp://127.0.0.1:$TCP_PORT"; args=("${args[@]:1}"); fi
  local before; before=$(cpu_ticks "$SERVER_PID")
  log "$scenario / $label: switchboard bench $url ${args[*]}"
  local out="$RESULTS/$scenario--$label_file"
  taskset -c 1 "$SB" bench "$url" "${args[@]}" --duration "$DURATION" --warmup "$WARMUP" \
    --server-pid "$SERVER_PID" --json --quiet --plot "$out.svg" >"$out.json" 2>"$out.txt" || true
  local after; after=$(cpu_ticks "$SERVER_PID" 2>/dev/null || echo "$before")
  local hwm; hwm=$(awk '/VmHWM/ { print $2 }' "/proc/$SERVER_PID/status" 2>/dev/null || echo 0)
  stop_server
  echo "{\"scenario\":\"$scenario\",\"server\":\"$label\",\"round\":$ROUND,\"run_cpu_ticks\":$((after - before)),\"hwm_kib\":${hwm:-0},\"bench\":$(tail -1 "$out.json" 2>/dev/null || echo null)}" \
    >>"$RESULTS/all.jsonl"
  grep -E '^(delivered|latency|server|connect|closed)' "$out.txt" | sed 's/^/   /' >&2 || true
}

# --- Main -------------------------------------------------------------------------------------
no_build=(); [ "$BUILD" = 1 ] || no_build=(--no-build)
SB=$(sb_binary release "${no_build[@]}") || exit 1
if [[ " $SERVERS " == *" switchboard-base"* ]] && [ ! -x "$SB_BASE" ]; then
  echo "run.sh: the switchboard-base rows need --baseline BIN (an executable switchboard)" >&2
  exit 64
fi
setup_peers
SERVERS=$(echo $SERVERS)
log "servers: $SERVERS; scenarios: $SCENARIOS; $DURATION s each; results in $RESULTS"
{
  echo "date: $(date -u +%FT%TZ)"
  echo "nproc: $(nproc)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
  echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "duration: $DURATION s, warmup $WARMUP s, rounds: $ROUNDS"
} >"$RESULTS/machine.txt"

for ROUND in $(seq "$ROUNDS"); do
[ "$ROUNDS" -gt 1 ] && log "round $ROUND of $ROUNDS"
for scenario in $SCENARIOS; do
  for server in $SERVERS; do
    case "$scenario" in
      fanout-100|fanout-1k)
        rate=100; [ "$scenario" = fanout-1k ] && rate=1000
        run_one "$scenario" "$server" "$server" --connections 1000 --senders 1 --rate "$rate" --size 64
        if [ "$server" = switchboard ] && [[ " $SERVERS " != *" switchboard-json "* ]]; then
          run_one "$scenario" switchboard switchboard-json --connections 1000 --senders 1 --rate "$rate" \
            --size 64 --protocol json
        fi
        ;;
      fanout-max)
        # The fan-out ceiling: one sender as fast as a window of 256 in-flight messages
        # allows (1M/s at fanout-1k keeps every server here busy but not behind).
        run_one fanout-max "$server" "$server" --connections 1000 --senders 1 --rate 0 --window 256 --size 64
        ;;
      chat) run_one chat "$server" "$server" --connections 100 --senders 100 --rate 2000 --size 64 ;;
      saturation) run_one saturation "$server" "$server" --connections 10 --senders 10 --rate 0 --window 16 --size 64 ;;
      idle) run_one idle "$server" "$server" --connections "$IDLE_CONNS" --idle ;;
      tcp-fanout-1k)
        # The line dialect's fan-out; with --baseline also the older binary's (switchboard-base-line).
        case "$server" in
          switchboard | switchboard-base)
            run_one tcp-fanout-1k "$server" "$server-line" tcp --connections 1000 --senders 1 --rate 1000 --size 64
            ;;
        esac
        ;;
    esac
  done
done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$RESULTS/machine.txt"

cat "$RESULTS/machine.txt"
python3 "$ROOT/benchmarks/table.py" "$RESULTS/all.jsonl" | tee "$RESULTS/table.md"
echo "results: $RESULTS"
