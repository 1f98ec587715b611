#!/usr/bin/env bash
# Classic PUBLISH versus sharded SPUBLISH (Redis 7), on one redis-server and on a
# three-master Redis Cluster on loopback: what the broker's choice costs the servers.
#
#   benchmarks/redis-pubsub.sh            # 200,000 publishes per case, ~1 minute
#   benchmarks/redis-pubsub.sh -n 50000   # fewer
#
# Each case has three subscribers of one room channel (`sb:{bench}:ch`, the broker's
# name): on one server all three on it; on the cluster classic has one subscriber on each
# master (a broker node's subscriber sits on whichever node it reached), sharded has all
# three on the master of the channel's slot (where SSUBSCRIBE must be). redis-benchmark
# sends the publishes (20 connections, pipelines of 16) to that master. Reported: the
# publishes per second, the messages the subscribers received, and the CPU seconds each
# redis-server spent (utime+stime from /proc/PID/stat) per 100,000 publishes.
# Servers bind 127.0.0.1 on free ports (scripts/lib.sh's free_ports); everything started is
# stopped by PID and the temporary directory removed on exit.
set -euo pipefail

N=200000
[[ ${1:-} == -n ]] && N=$2
. "$(dirname "$0")/common.sh"
WORK=$(mktemp -d /tmp/switchboard-redis-pubsub.XXXXXX)
cleanup() {
  stop_all
  rm -rf "$WORK"
}
trap cleanup EXIT

start_redis() { # port [cluster bus port]
  local args=(--port "$1" --bind 127.0.0.1 --save "" --appendonly no --dir "$WORK" --daemonize no)
  [[ -n ${2:-} ]] && args+=(--cluster-enabled yes --cluster-port "$2" --cluster-config-file "$WORK/nodes-$1.conf")
  redis-server "${args[@]}" >"$WORK/redis-$1.log" 2>&1 &
  PIDS+=($!)
  wait_port "$1" 10 || exit 1
}
CHANNEL='sb:{bench}:ch'

# case name, publish command, publish port, subscribe command, subscriber ports…, server pids…
run_case() {
  local name=$1 pub=$2 port=$3 sub=$4 subports=$5 servers=$6
  local files=() subs=()
  for p in $subports; do
    local f="$WORK/sub-$name-$p-${#files[@]}"
    redis-cli -p "$p" "$sub" "$CHANNEL" >"$f" &
    subs+=($!)
    PIDS+=($!)
    files+=("$f")
  done
  for f in "${files[@]}"; do until [[ -s $f ]]; do :; done; done
  local before=() pid
  for pid in $servers; do before+=("$(cpu_ticks "$pid")"); done
  local start end
  start=$(date +%s.%N)
  redis-benchmark -p "$port" -n "$N" -c 20 -P 16 -q "$pub" "$CHANNEL" "payload-of-about-sixty-bytes-like-a-short-chat-message-0123" >/dev/null
  end=$(date +%s.%N)
  local expected=$(( N * ${#files[@]} )) received=0 deadline=$((SECONDS + 30))
  while :; do
    received=0
    for f in "${files[@]}"; do received=$(( received + $(grep -c '^payload' "$f" || true) )); done
    (( received >= expected || SECONDS > deadline )) && break
  done
  local costs="" i=0 tick
  tick=$(getconf CLK_TCK)
  for pid in $servers; do
    costs+=$(awk -v a="${before[$i]}" -v b="$(cpu_ticks "$pid")" -v t="$tick" -v n="$N" 'BEGIN { printf " %.2f", (b - a) / t * 100000 / n }')
    i=$((i + 1))
  done
  for s in "${subs[@]}"; do stop_pid "$s" 1; done
  awk -v name="$name" -v n="$N" -v s="$start" -v e="$end" -v r="$received" -v x="$expected" -v c="$costs" \
    'BEGIN { printf "| %s | %.0f | %d / %d |%s |\n", name, n / (e - s), r, x, c }'
}

echo "| case | publishes/s | received / expected | CPU s per 100k publishes, per redis-server |"
echo "|---|---|---|---|"
read -r P < <(free_ports 1)
start_redis "$P"
single=${PIDS[-1]}
run_case "one server, PUBLISH" publish "$P" subscribe "$P $P $P" "$single"
run_case "one server, SPUBLISH" spublish "$P" ssubscribe "$P $P $P" "$single"

ports=() buses=() servers=""
read -r -a free < <(free_ports 6)
ports=("${free[@]:0:3}") buses=("${free[@]:3:3}")
for i in 0 1 2; do start_redis "${ports[$i]}" "${buses[$i]}"; servers+=" ${PIDS[-1]}"; done
redis-cli --cluster create "127.0.0.1:${ports[0]}" "127.0.0.1:${ports[1]}" "127.0.0.1:${ports[2]}" \
  --cluster-replicas 0 --cluster-yes >"$WORK/create.log" 2>&1
for p in "${ports[@]}"; do until redis-cli -p "$p" cluster info | grep -q cluster_state:ok; do :; done; done
owner=""
# The master of the channel's slot is the one that takes a key with its hash tag.
for p in "${ports[@]}"; do
  if redis-cli -p "$p" set "{bench}probe" 1 2>&1 | grep -q OK; then owner=$p; fi
done
run_case "cluster, PUBLISH (a subscriber on each master)" publish "$owner" subscribe "${ports[*]}" "$servers"
run_case "cluster, SPUBLISH (subscribers on the slot's master)" spublish "$owner" ssubscribe "$owner $owner $owner" "$servers"
