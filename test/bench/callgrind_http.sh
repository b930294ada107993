#!/bin/sh
#
# test/bench/callgrind_http.sh BUILD_DIR OUT_DIR
#
# Instructions per request of benchmark W9's four ways (see http_wrk.sh), and
# a fifth, beast_untimed (Beast's stream with --no-timeout), so that each
# stream's timeouts can be told from the stream itself:
# each server runs under valgrind --tool=callgrind (--threads 1); wrk warms it
# up for 2 s over 100 keep-alive connections, the counters are zeroed
# (callgrind_control -z), wrk runs again for W9_CG_SECONDS (default 5 s) over
# 100 new connections, the counters are dumped (callgrind_control -d), and the
# dump's instruction total is divided by the requests wrk counted. On a
# shared machine these counts, unlike CPU times, do not depend on the load.
# Counted: the server's user-space instructions (the kernel's work in the
# system calls is not; under valgrind clock_gettime is a system call). The
# connections' set-up in the measured run is included (100 accepts).
# Writes OUT_DIR/callgrind.out.WAY.* and OUT_DIR/callgrind_http.txt (printed).
#
set -eu

if [ $# -ne 2 ]; then
  echo "usage: $0 BUILD_DIR OUT_DIR" >&2
  exit 2
fi
build_dir=$1
out_dir=$2
seconds=${W9_CG_SECONDS:-5}
for tool in valgrind callgrind_control callgrind_annotate wrk; do
  command -v $tool >/dev/null 2>&1 || { echo "$0: $tool not found (Debian: valgrind, wrk)" >&2; exit 1; }
done
cmake --build "$build_dir" --parallel 2 --target http_keepalive http_keepalive_beast http_keepalive_no_timeout
example_dir=$(cd "$build_dir/example/http_keepalive" && pwd)
mkdir -p "$out_dir"
out_dir=$(cd "$out_dir" && pwd)
tmp=$(mktemp -d)
server_pid=
cleanup() {
  [ -z "$server_pid" ] || kill -KILL "$server_pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
command_of() {
  case $1 in
    beast) echo "$example_dir/http_keepalive_beast" ;;
    beast_untimed) echo "$example_dir/http_keepalive_beast --no-timeout" ;;
    wheel) echo "$example_dir/http_keepalive" ;;
    untimed) echo "$example_dir/http_keepalive --no-timeout" ;;
    socket) echo "$example_dir/http_keepalive_no_timeout" ;;
  esac
}
summary=$out_dir/callgrind_http.txt
{
  echo "W9 under callgrind: server user-space instructions per request (wrk -t1 -c100 -d${seconds}s after a 2 s warm-up)"
  echo "revision $(git -C "$(dirname "$0")" describe --always --dirty 2>/dev/null || echo unknown)"
  printf '%-14s %10s %14s %14s\n' way requests instructions per_request
} > "$summary"
for way in beast beast_untimed wheel untimed socket; do
  rm -f "$tmp/server.out" "$out_dir"/callgrind.out.$way.*
  # shellcheck disable=SC2046
  valgrind --tool=callgrind --callgrind-out-file="$out_dir/callgrind.out.$way.%p" \
    $(command_of $way) --port 0 --threads 1 > "$tmp/server.out" 2> "$tmp/server.err" &
  server_pid=$!
  i=0
  until [ -s "$tmp/server.out" ]; do
    i=$((i + 1))
    if [ $i -gt 600 ]; then echo "$0: $way printed nothing in 60 s" >&2; cat "$tmp/server.err" >&2; exit 1; fi
    sleep 0.1
  done
  port=$(head -n 1 "$tmp/server.out" | sed 's/.*://')
  wrk -t1 -c100 -d2s "http://127.0.0.1:$port/" > /dev/null
  callgrind_control -z "$server_pid" > /dev/null
  wrk -t1 -c100 -d"${seconds}s" --timeout 30s "http://127.0.0.1:$port/" > "$tmp/wrk.out"
  callgrind_control -d "$server_pid" > /dev/null
  requests=$(awk '/requests in/ { print $1 }' "$tmp/wrk.out")
  kill -INT "$server_pid"
  wait "$server_pid" || { echo "$0: $way did not exit 0 on SIGINT" >&2; exit 1; }
  server_pid=
  # The dump made by callgrind_control -d is the one with ".1" after the pid.
  dump=$(ls "$out_dir"/callgrind.out.$way.*.1)
  total=$(sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$dump" | head -n 1)
  [ -n "$total" ] || total=$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$dump" | head -n 1)
  printf '%-14s %10s %14s %14.0f\n' "$way" "$requests" "$total" "$(awk -v t="$total" -v r="$requests" 'BEGIN { print t / r }')" >> "$summary"
done
cat "$summary"
