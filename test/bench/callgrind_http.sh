#!/bin/sh
#
# test/bench/callgrind_http.sh BUILD_DIR OUT_DIR
#
# Instructions per request of benchmark W9's five ways (see http_wrk.sh), and
# beast_untimed and routed_untimed (Beast's stream and the routed one with
# --no-timeout), so that each stream's timeouts can be told from the stream
# itself:
# each server runs under valgrind --tool=callgrind (--threads 1); wrk warms it
# up for 2 s over 100 keep-alive connections, the counters are zeroed
# (callgrind_control -z), wrk runs again for W9_CG_SECONDS (default 5 s) over
# 100 new connections, the counters are dumped (callgrind_control -d), and the
# dump's instruction total is divided by the requests wrk counted. On a
# shared machine these counts, unlike CPU times, do not depend on the load.
# Counted: the server's user-space instructions (the kernel's work in the
# system calls is not; under valgrind clock_gettime is a system call). The
# connections' set-up in the measured run is included (100 accepts).
# Writes OUT_DIR/callgrind.out.WAY.* and OUT_DIR/callgrind_http.txt (printed), with
# W9's budgets (doc/benchmarks.md#budgets: the wheel stream's server within 5 % of
# the untimed one, the routed Beast stream's no more than Beast's tcp_stream, by
# instructions per request) as a JSON report, OUT_DIR/callgrind_http.json. The
# routed way's dump must count functions of asio_wheel (its timers are the wheel's),
# else the script stops.
#
# shellcheck source=bench_support.sh
. "$(dirname "$0")/bench_support.sh"

[ $# -eq 2 ] || usage "BUILD_DIR OUT_DIR"
build_dir=$1
out_dir=$2
seconds=${W9_CG_SECONDS:-5}
for tool in valgrind callgrind_control callgrind_annotate; do require_tool $tool valgrind; done
require_tool wrk wrk
cmake --build "$build_dir" --parallel 2 --target http_keepalive http_keepalive_beast http_keepalive_no_timeout \
  http_keepalive_routed
example_dir=$(cd "$build_dir/example/http_keepalive" && pwd)
mkdir -p "$out_dir"
out_dir=$(cd "$out_dir" && pwd)
make_tmp
summary=$out_dir/callgrind_http.txt
{
  echo "W9 under callgrind: server user-space instructions per request (wrk -t1 -c100 -d${seconds}s after a 2 s warm-up)"
  echo "revision $(revision)"
  printf '%-14s %10s %14s %14s\n' way requests instructions per_request
} > "$summary"
for way in beast beast_untimed routed routed_untimed wheel untimed socket; do
  rm -f "$tmp/server.out" "$out_dir"/callgrind.out.$way.*
  # shellcheck disable=SC2046
  valgrind --tool=callgrind --callgrind-out-file="$out_dir/callgrind.out.$way.%p" \
    $(http_command $way) --port 0 --threads 1 > "$tmp/server.out" 2> "$tmp/server.err" &
  server_pid=$!
  wait_for_port "$tmp/server.out" "$tmp/server.err" 60 "$way"
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
  total=$(callgrind_total "$dump")
  if [ $way = routed ] && ! callgrind_annotate --threshold=100 "$dump" 2>/dev/null | grep -q 'asio_wheel::'; then
    echo "$0: the routed server's dump counts no function of asio_wheel: its timers are not the wheel's" >&2
    exit 1
  fi
  printf '%-14s %10s %14s %14.0f\n' "$way" "$requests" "$total" "$(awk -v t="$total" -v r="$requests" 'BEGIN { print t / r }')" >> "$summary"
done

# W9's budget held by instructions (doc/benchmarks.md#budgets): the wheel stream's
# server within 5 % of the same server without timeouts (untimed), as
# OUT_DIR/callgrind_http.json.
per_request() { awk -v w="$1" '$1 == w { print $4 }' "$summary"; }
records=$out_dir/callgrind_http.records
: > "$records"
for way in beast beast_untimed routed routed_untimed wheel untimed socket; do
  v=$(per_request $way)
  [ -z "$v" ] || printf '{"kind":"measurement","program":"callgrind_http","workload":"W9","impl":"%s","n":100,"metric":"instructions_per_request","value":%s,"smoke":false}\n' \
    "$way" "$v" >> "$records"
done
{
  echo
  echo "| verdict | budget | measured | limit |"
  echo "|---|---|---:|---:|"
  budget_record "$records" callgrind_http W9 \
    "W9 server instructions per request wheel : untimed (within 5 %)" \
    "$(awk -v a="$(per_request wheel)" -v b="$(per_request untimed)" 'BEGIN { if (a == "" || b == "" || b == 0) print "-"; else printf "%.4f", a / b }')" 1.05
  budget_record "$records" callgrind_http W9 \
    "W9 server instructions per request routed Beast stream : beast" \
    "$(awk -v a="$(per_request routed)" -v b="$(per_request beast)" 'BEGIN { if (a == "" || b == "" || b == 0) print "-"; else printf "%.4f", a / b }')" 1
} >> "$summary"
write_report "$records" callgrind_http "$out_dir/callgrind_http.json"
rm -f "$records"
cat "$summary"
