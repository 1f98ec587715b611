#!/usr/bin/env bash
# render.sh NAME=VALUE … — prints deploy/nginx/switchboard.conf with every {{NAME}}
# replaced. Fails (exit 64) when a placeholder is left without a value or a NAME is not in
# the template. Defaults: STREAM_MODULE=/usr/lib/nginx/modules/ngx_stream_module.so
# (Debian), STATE_DIR=/var/lib/nginx, LOG_DIR=/var/log/nginx, HTTP_LISTEN=80,
# TCP_LISTEN=8080.
set -euo pipefail
template="$(dirname "${BASH_SOURCE[0]}")/switchboard.conf"
declare -A value=(
  [STREAM_MODULE]=/usr/lib/nginx/modules/ngx_stream_module.so
  [STATE_DIR]=/var/lib/nginx
  [LOG_DIR]=/var/log/nginx
  [HTTP_LISTEN]=80
  [TCP_LISTEN]=8080
)
for pair in "$@"; do
  case "$pair" in
    *=*) value["${pair%%=*}"]="${pair#*=}" ;;
    *) echo "render.sh: '$pair' is not NAME=VALUE" >&2; exit 64 ;;
  esac
done
text="$(cat "$template")"
for name in "${!value[@]}"; do
  if [[ "$text" != *"{{$name}}"* ]]; then
    echo "render.sh: the template has no {{$name}}" >&2
    exit 64
  fi
  text="${text//"{{$name}}"/${value[$name]}}"
done
if left="$(grep -o '{{[A-Z0-9_]*}}' <<<"$text" | sort -u | tr '\n' ' ')" && [ -n "$left" ]; then
  echo "render.sh: no value for $left" >&2
  exit 64
fi
printf '%s\n' "$text"
