#!/usr/bin/env bash
# User-space instructions per delivery, counted with callgrind on a fixed load: Switchboard
# and the C floor hub side by side, with a breakdown of where Switchboard's go.
#
#   benchmarks/callgrind.sh                        # text dialect, epoll, 10 s window
#   benchmarks/callgrind.sh --window 20 --servers "switchboard floor switchboard-json"
#
# The load: 10 WebSocket clients each sending 400 msg/s (64-byte texts), every
# message to all 10 (echo included): 4,000 msg/s in, 40,000 deliveries/s out. The server
# runs under `valgrind --tool=callgrind` (Switchboard with --loops 1 --backend epoll, a
# stripped copy of the release binary: valgrind 3.19 cannot read its DWARF). Once the
# generator has connected and warmed up, the counters are zeroed (`callgrind_control -z`);
# WINDOW seconds later they are dumped (`-d`). Switchboard's deliveries in that window are
# the calls of `ChatHub.publish(from:validatedUTF8:…)` that callgrind counted (one per message,
# exact) × the 10 members each message goes to: a member gets a batch of a room's messages
# in one call, so no function is called once per delivery. The floor's are
# counted by the kernel: the bytes its sockets sent (`ss -ti` bytes_sent, read at the zero
# and at the dump) ÷ 66, the size of one 64-byte text frame from a server; the same byte
# count for Switchboard is printed beside it as a check. Instruction counts are stable from run to run where times
# are not; a server that falls behind the offered rate batches more per read, so the
# generator's sent rate is printed beside each row and a row below the offered load is
# marked. A room's messages that arrive in one loop iteration share one
# delivery task per shard (docs/ARCHITECTURE.md), so the count per delivery also depends
# on how many messages an iteration holds, which varies from run to run (under valgrind
# ~6 to ~11 at this load): the row gives the messages per batch (publish calls ÷
# delivery tasks) beside the figure; compare figures at similar batches.
#
# Options: --window S (default 10), --servers "switchboard floor switchboard-json"
# (default "switchboard floor"), --rate R (msg/s per client, default 400), --no-build,
# --baseline BIN (another release binary of switchboard, an earlier commit's say: the
# servers switchboard-base and switchboard-base-json run it, in the same run). The
# Switchboard servers run the epoll backend; switchboard-dispatch and switchboard-uring
# (and switchboard-base-dispatch, switchboard-base-uring) run the Dispatch and io_uring
# backends instead, and the table then divides each by the epoll row of its binary. The
# Dispatch backend's threads (libdispatch's manager and the queue's worker) are counted
# with the loop's: callgrind sums every thread of the process.
# Environment: SWIFT_SCRATCH (build scratch path, default .build), SWITCHBOARD_BIN (a release
# binary to measure instead of building; --baseline's must know `serve … any`), BENCH_WORK (default
# /tmp/switchboard-bench). Output: a table on stdout; the callgrind files and
# `callgrind_annotate` reports in $BENCH_WORK/callgrind-DATE/.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/benchmarks/common.sh"
WORK=${BENCH_WORK:-/tmp/switchboard-bench}
WINDOW=10
SERVERS="switchboard floor"
RATE=400
CLIENTS=10
BUILD=1
BASELINE=""
while [ $# -gt 0 ]; do
  case "$1" in
    --window) WINDOW=$2; shift ;;
    --servers) SERVERS=$2; shift ;;
    --rate) RATE=$2; shift ;;
    --no-build) BUILD=0 ;;
    --baseline) BASELINE=$2; shift ;;
    -h|--help) sed -n '2,40p' "$0"; exit 0 ;;
    *) echo "callgrind.sh: unknown option $1" >&2; exit 64 ;;
  esac
  shift
done
for tool in valgrind callgrind_control callgrind_annotate objcopy cc; do
  command -v "$tool" >/dev/null || { echo "callgrind.sh: $tool is needed (apt-get install valgrind binutils gcc)" >&2; exit 69; }
done

OUT="$WORK/callgrind-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$OUT"
log() { echo "== $*" >&2; }
no_build=(); [ "$BUILD" = 1 ] || no_build=(--no-build)
SB=$(sb_binary release "${no_build[@]}") || exit 1
objcopy --strip-debug "$SB" "$OUT/switchboard-nodebug"
if [ -n "$BASELINE" ]; then
  [ -x "$BASELINE" ] || { echo "callgrind.sh: --baseline $BASELINE is not an executable" >&2; exit 66; }
  objcopy --strip-debug "$BASELINE" "$OUT/switchboard-base-nodebug"
fi
cc -O2 -g -o "$OUT/floor_hub" "$ROOT/benchmarks/peers/floor_hub.c" -lcrypto

SERVER_PID=0
GEN_PID=0
trap stop_all EXIT

# Maps a function name (callgrind_annotate's, demangled) to a part of the delivery path.
# First match wins; the order matters (runtime calls are their own group: callgrind's
# self cost puts a retain where it runs, not where it was asked for).
group_of() {
  awk '
    function g(f) {
      if (f ~ /^_?dispatch_|^_?os_unfair|DispatchSelector|DispatchSource|DispatchSemaphore|DispatchQueue|DispatchTime|CancelCounter|^_?_?futex|^pthread_cond|^__pthread_cond|^poll$|^__poll/) return "Dispatch backend: libdispatch, its threads, the selector"
      if (f ~ /^swift_(retain|release|bridgeObject|beginAccess|endAccess|allocObject|dealloc|isUniquely|arrayInit|arrayDestroy|slowAlloc|slowDealloc)|AccessSet|swift::|^(_int_)?(malloc|free)$|^cfree|^calloc|^realloc|tcache|^malloc_|^unlink_chunk|^posix_memalign|^_swift_release_dealloc|^swift_(unowned|dynamicCast|isClassType|getGenericMetadata)|^outlined (copy|destroy|retain|release)|value witness/) return "runtime: retain/release, malloc/free, exclusivity"
      if (f ~ /Hasher|hash\(into|_rawHashValue|_NativeDictionary|_NativeSet|Dictionary|Set</) return "hashing (dictionary and set look-ups)"
      if (f ~ /Array|ArrayBuffer|ArrayStorage/) return "arrays: growth, copies, deinit"
      if (f ~ /String/) return "strings"
      if (f ~ /UTF8Validator|WebSocketFrameDecoder|WebSocketConnection\.(receive|handle|deliverWhole|continueMessage)|WebSocketFrameEncoder\.mask|^frames$/) return "frame parse + UTF-8"
      if (f ~ /ChatHub|HubRoom|RoomBroker|LocalBroker|MessageRing|InMemoryHistoryStore|ShardExecutor|runTasks|EventLoop\.enqueue|Mutex|ChatMessage|MessageDraft|publish|Shard|ChatEvent/) return "hub hop"
      if (f ~ /WebSocketFrameEncoder|encodeServerFrame|EncodingCache|ChatWire|JSON|[Ee]ncode/) return "encode"
      if (f ~ /PendingWrites|SharedBytes|TCPConnection\.write|queueSend|flushList|Flushable|scheduleFlush|^append$/) return "queue"
      if (f ~ /sb_send|sendmsg|^send$|__libc_send|sendTo|[Ff]lush|broadcast|writev|io_uring|sendCompleted/) return "send"
      if (f ~ /readAvailable|Glibc_read|^read$|__libc_read|recv|epoll|Selector|ReadyEvents|EventLoop\.run|didRead|TCPConnection\.handle|handle\(|^main$/) return "read path (and the loop)"
      if (f ~ /WebSocketSession/) return "session (per-member delivery step)"
      if (f ~ /^(__)?mem(cpy|move|set|cmp)/) return "memcpy/memmove"
      return "other"
    }
    { print g($0) }'
}

# Bytes sent by the server's established sockets (local port $1).
sent_bytes() {
  { ss -tinH state established "( sport = :$1 )" | grep -o 'bytes_sent:[0-9]*' || true; } | cut -d: -f2 |
    awk '{ s += $1 } END { print s + 0 }'
}

# Switchboard's deliveries in a callgrind file: its publish calls × the members ($2); with
# a third argument, its messages per delivery task instead (publish calls ÷ the calls of
# HubShardRoom.deliverInbox, one per batch of a room's messages on the shard).
receive_calls() {
  python3 - "$1" "$2" "${3:-}" <<'PY'
import re, sys
names, total, text_total, batches, current = {}, 0, 0, 0, None
for line in open(sys.argv[1], errors="replace"):
    if line.startswith("cfn="):
        m = re.match(r"cfn=\((\d+)\)(?: (.*))?", line.strip())
        if m:
            if m.group(2): names[m.group(1)] = m.group(2)
            current = names.get(m.group(1), "")
    elif line.startswith("fn=("):
        m = re.match(r"fn=\((\d+)\)(?: (.*))?", line.strip())
        if m and m.group(2): names[m.group(1)] = m.group(2)
    elif line.startswith("calls=") and current is not None:
        # ChatHub.publish(from:validatedUTF8:…:isAction:ref:subject:completion:) itself,
        # mangled: not its closures nor thunks, which share the prefix. One call per
        # message: the text dialect calls it, and publish(from:text:…) calls it for the rest.
        # (An older baseline binary has only publish(from:text:…), counted then.)
        n = int(line.split("=")[1].split()[0])
        # (A textNeedsNoJSONEscape argument may stand between validatedUTF8 and isAction, and
        # an address between subject and completion; every form is counted.)
        def after_subject(name):
            return "isAction3ref7subject10completion" in name or "isAction3ref7subject7address10completion" in name
        if "0B3HubC7publish4from13validatedUTF8" in current and after_subject(current) and current.endswith("SgtF"):
            total += n
        if "0B3HubC7publish4from4text8isAction3ref7subject" in current and after_subject(current) \
                and current.endswith("SgtF"):
            text_total += n
        if "12HubShardRoomC12deliverInbox" in current and current.endswith("LLyyF"):
            batches += int(line.split("=")[1].split()[0])

total = total or text_total
if sys.argv[3]:
    print(f"{total / batches:.1f}" if batches else "–")
else:
    print(total * int(sys.argv[2]))
PY
}

# Runs one server under callgrind with the load; prints
# "ir deliveries seconds sent-per-second".
measure() {
  local name=$1 port proto=() url
  # measure runs in a subshell (its output is read): what it starts is stopped when it ends.
  trap stop_all EXIT
  local cg="$OUT/callgrind.out.$name"
  local binary="$OUT/switchboard-nodebug"
  case "$name" in
    switchboard-base|switchboard-base-json|switchboard-base-dispatch|switchboard-base-uring)
      [ -n "$BASELINE" ] || { echo "callgrind.sh: $name needs --baseline BIN" >&2; return 1; }
      binary="$OUT/switchboard-base-nodebug"
      ;;
  esac
  local backend=epoll
  case "$name" in
    *-dispatch) backend=dispatch ;;
    *-uring) backend=io_uring ;;
  esac
  case "$name" in
    switchboard|switchboard-json|switchboard-dispatch|switchboard-uring|switchboard-base|switchboard-base-json|switchboard-base-dispatch|switchboard-base-uring)
      sb_serve "$OUT/server-$name.log" valgrind --tool=callgrind --callgrind-out-file="$cg" --dump-line=no \
        "$binary" serve --host 127.0.0.1 --http-port any --tcp-port 0 --udp-port 0 \
        --no-advertise --ephemeral --loops 1 --backend "$backend" --log-level warning \
        --max-connections-per-ip 0 || return 1
      SERVER_PID=$SERVE_PID port=$SERVE_HTTP
      url="ws://127.0.0.1:$port/rooms/bench"
      ;;
    floor)
      read -r port < <(free_ports 1)
      valgrind --tool=callgrind --callgrind-out-file="$cg" --dump-line=no \
        "$OUT/floor_hub" "$port" >"$OUT/server-$name.log" 2>&1 &
      SERVER_PID=$!
      PIDS+=("$SERVER_PID")
      wait_port "$port" 60 || return 1
      url="ws://127.0.0.1:$port/"
      ;;
    *) echo "callgrind.sh: unknown server $name" >&2; return 1 ;;
  esac
  [[ "$name" == *-json ]] && proto=(--protocol json)
  # The generator's measured window covers the callgrind window, with time to spare for
  # a slow dump (callgrind_control waits for it).
  "$SB" bench "$url" --connections "$CLIENTS" --senders "$CLIENTS" --rate $((RATE * CLIENTS)) \
    --size 64 --warmup 3 --duration $((WINDOW + 15)) "${proto[@]}" --json \
    >"$OUT/bench-$name.json" 2>"$OUT/bench-$name.txt" &
  GEN_PID=$!
  PIDS+=("$GEN_PID")
  for _ in $(seq 1200); do
    grep -q 'measure' "$OUT/bench-$name.txt" 2>/dev/null && break
    kill -0 "$GEN_PID" 2>/dev/null || break
    sleep 0.1
  done
  sleep 1
  local t0 t1 b0 b1
  b0=$(sent_bytes "$port")
  t0=$(date +%s.%N)
  callgrind_control -z "$SERVER_PID" >/dev/null
  sleep "$WINDOW"
  callgrind_control -d "$SERVER_PID" >/dev/null
  t1=$(date +%s.%N)
  b1=$(sent_bytes "$port")
  wait "$GEN_PID" || true
  GEN_PID=0
  # valgrind writes the last part at the exit: time for it before SIGKILL.
  stop_pid "$SERVER_PID" 60
  stop_all
  SERVER_PID=0
  # The window is the first dump (zeroing does not dump; the exit writes the next part).
  local part="$cg.1"
  [ -f "$part" ] || { echo "callgrind.sh: no dump for $name" >&2; return 1; }
  cp "$part" "$OUT/window.$name"
  callgrind_annotate --inclusive=no --auto=no --threshold=100 "$OUT/window.$name" |
    swift demangle --simplified >"$OUT/annotate-$name.txt" 2>/dev/null
  local ir deliveries
  ir=$(awk '/^summary:|^totals:/ { print $2; exit }' "$OUT/window.$name")
  if [[ "$name" == switchboard* ]]; then
    deliveries=$(receive_calls "$OUT/window.$name" "$CLIENTS")
  else
    deliveries=$(( (b1 - b0) / 66 ))
  fi
  [[ "$name" == switchboard* ]] && echo "$name: $(receive_calls "$OUT/window.$name" "$CLIENTS") deliveries (ChatHub.publish calls × $CLIENTS members), $(( (b1 - b0) / 66 )) frames by bytes" >&2
  local sent batch="–"
  [[ "$name" == switchboard* ]] && batch=$(receive_calls "$OUT/window.$name" "$CLIENTS" batch)
  sent=$(python3 -c 'import json,sys
try:
    b = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
    print(round(b["sent"] / b["duration"]))
except Exception: print(0)' "$OUT/bench-$name.json")
  echo "$ir $deliveries $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') $sent $batch"
}

breakdown() {  # name total → "group share" lines, largest first
  local name=$1 total=$2
  # callgrind_annotate lines: "  1,234,567 ( 1.23%)  file:function [binary]"
  # Lines near the program's total are the frames on the stack when the counters were
  # zeroed (thread entries, main), which callgrind charges with everything below them.
  # With more than one busy thread (the Dispatch backend's libdispatch threads beside the
  # loop) each thread's entry frames carry that thread's total: they go to threads-NAME.tsv.
  awk -v total="$total" -v threads="$OUT/threads-$name.tsv" '/^ *[0-9,]+ +\( *[0-9.]+%\) +/ { n=$1; gsub(",", "", n); if (n + 0 >= 0.9 * total) next;
    $1=""; $2=""; sub(/^ +/, ""); sub(/ \[[^]]*\]$/, ""); sub(/^[^:]*:/, "");
    if ($0 ~ /SystemThread\.start|closure #1 in EventLoop\.init|^_dispatch_worker_thread$|^_dispatch_mgr_thread$|^start_thread$|^clone3?$/) { if (n + 0 >= 0.01 * total) print n "\t" $0 >threads; next }
    print n "\t" $0 }' \
    "$OUT/annotate-$name.txt" >"$OUT/functions-$name.tsv"
  cut -f2 "$OUT/functions-$name.tsv" | group_of >"$OUT/groups-$name.txt"
  paste <(cut -f1 "$OUT/functions-$name.tsv") "$OUT/groups-$name.txt" |
    awk -F'\t' -v total="$total" '{ s[$2] += $1 } END { for (g in s) printf "%s\t%d\n", g, s[g] }' | sort -t$'\t' -k2 -nr
}

declare -A IR DEL SECS SENT BATCH
for name in $SERVERS; do
  log "$name under callgrind: $CLIENTS clients × $RATE msg/s, ${WINDOW} s window"
  read -r IR[$name] DEL[$name] SECS[$name] SENT[$name] BATCH[$name] < <(measure "$name")
  [ "${DEL[$name]:-0}" -gt 0 ] || { echo "callgrind.sh: no deliveries counted for $name" >&2; exit 1; }
done

target=$((RATE * CLIENTS))
echo
echo "| server | instructions in window | window | deliveries | instructions / delivery | vs floor | vs epoll | messages per batch | generator sent/s |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---|"
floor_ipd=""
[ -n "${IR[floor]:-}" ] && floor_ipd=$(( IR[floor] / DEL[floor] ))
for name in $SERVERS; do
  ipd=$(( IR[$name] / DEL[$name] ))
  vs="–"; [ -n "$floor_ipd" ] && [ "$floor_ipd" -gt 0 ] && vs=$(awk -v a="$ipd" -v b="$floor_ipd" 'BEGIN { printf "%.1f×", a / b }')
  # A backend row beside the epoll row of the same binary (switchboard or switchboard-base).
  vs_epoll="–"; epoll_row=""
  case "$name" in
    switchboard-base-dispatch|switchboard-base-uring) epoll_row=switchboard-base ;;
    switchboard-dispatch|switchboard-uring) epoll_row=switchboard ;;
  esac
  if [ -n "$epoll_row" ] && [ -n "${IR[$epoll_row]:-}" ]; then
    vs_epoll=$(awk -v a="$ipd" -v b="$(( IR[$epoll_row] / DEL[$epoll_row] ))" 'BEGIN { printf "%.2f×", a / b }')
  fi
  note=$(awk -v s="${SENT[$name]}" -v t="$target" \
    'BEGIN { printf "%.0f%s", s, (s < 0.98 * t) ? " (below the offered load: more batching, figure too low)" : "" }')
  echo "| $name | ${IR[$name]} | ${SECS[$name]} s | ${DEL[$name]} | **$ipd** | $vs | $vs_epoll | ${BATCH[$name]} | $note |"
done
for name in $SERVERS; do
  echo
  echo "$name: instructions per delivery by part (callgrind self cost, grouped by function name)"
  echo
  echo "| part | instructions / delivery | share |"
  echo "|---|---:|---:|"
  breakdown "$name" "${IR[$name]}" | while IFS=$'\t' read -r group n; do
    awk -v g="$group" -v n="$n" -v d="${DEL[$name]}" -v t="${IR[$name]}" \
      'BEGIN { printf "| %s | %.0f | %.1f %% |\n", g, n / d, 100 * n / t }'
  done
  if [ -s "$OUT/threads-$name.tsv" ]; then
    # One line per thread (its entry frames share one figure, the thread's whole cost).
    echo
    echo "$name: instructions per delivery by thread (the entry frames' figures)"
    echo
    echo "| thread | instructions / delivery | share |"
    echo "|---|---:|---:|"
    sort -t$'\t' -k1,1nr -u "$OUT/threads-$name.tsv" | while IFS=$'\t' read -r n fn; do
      case "$fn" in
        *_dispatch_worker_thread*) t="libdispatch worker (the sources' handlers)" ;;
        *_dispatch_mgr_thread*) t="libdispatch manager (its epoll, re-arming)" ;;
        *) t="event loop ($fn)" ;;
      esac
      awk -v g="$t" -v n="$n" -v d="${DEL[$name]}" -v tot="${IR[$name]}" \
        'BEGIN { printf "| %s | %.0f | %.1f %% |\n", g, n / d, 100 * n / tot }'
    done
  fi
done
echo
echo "files: $OUT (annotate-NAME.txt: every function; groups are in group_of in this script)"
