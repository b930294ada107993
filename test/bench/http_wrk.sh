#!/bin/sh
#
# test/bench/http_wrk.sh BUILD_DIR OUT_DIR
#
# Benchmark W9 (doc/benchmarks.md): example/http_keepalive, Beast's
# keep-alive HTTP server with stream.expires_after(30s) before every read,
# loaded by wrk, built four times with only the stream type changed, run
# five ways:
#   beast    http_keepalive_beast       boost::beast::tcp_stream (the baseline)
#   wheel    http_keepalive             asio_wheel::beast::tcp_stream
#   routed   http_keepalive_routed      Beast's own basic_stream<tcp,
#                                       wheel_executor<>>: its timers routed to
#                                       the wheel (doc/timeouts.md#timers-
#                                       inside-other-libraries-wheel_executor)
#   untimed  http_keepalive --no-timeout  the wheel's stream, no expires_after:
#                                       the same server without timeouts,
#                                       W9's floor
#   socket   http_keepalive_no_timeout  a plain tcp::socket, no stream, no timeout
#
# 1. Load: for N in W9_CONNECTIONS (default 1000 and 10000), W9_PAIRS rounds
#    (default 3) of one run of each way in turn (beast, wheel, routed, untimed,
#    socket, beast, ...: on a shared machine the ways of one round see the same
#    load). Each run starts a fresh server (--threads 1, io_context(1))
#    and runs `wrk -t1 -cN -dW9_SECONDS` (default 10 s) against it. Server CPU
#    per request = (utime + stime of the server from /proc/PID/stat, after wrk
#    minus before) / the requests wrk counted; requests per second are wrk's.
# 2. Idle memory: W9_IDLE_REPS rounds (default 3) of each way in turn: a
#    fresh server, one warm-up connection (so lazily made state, such as the
#    wheel's slot array, is in the baseline), VmRSS; then bench_http_idle_clients
#    opens W9_IDLE connections (default 10000) that send one request each and
#    stay idle; after 1 s VmRSS again. Bytes per idle connection = the RSS
#    delta / connections. The clients check that no connection was closed.
#
# Prints every run, then the medians, the x/beast and x/untimed ratios and the
# verdicts; writes OUT_DIR/http_wrk.txt (the same), OUT_DIR/http_wrk.json (the
# records one per line, in bench_support.hpp's format, which run_all.sh merges)
# and OUT_DIR/http_wrk_summary.md.
# BUILD_DIR is configured like run_all.sh's (Release, -O2 -DNDEBUG) if it has
# no CMakeCache.txt; only the five programs are built. Needs wrk (Debian
# package wrk; scripts/install-deps --bench). About 8 minutes with defaults.
#
# shellcheck source=bench_support.sh
. "$(dirname "$0")/bench_support.sh"

[ $# -eq 2 ] || usage "BUILD_DIR OUT_DIR"
build_dir=$1
out_dir=$2
connections=${W9_CONNECTIONS:-1000 10000}
pairs=${W9_PAIRS:-3}
seconds=${W9_SECONDS:-10}
idle_connections=${W9_IDLE:-10000}
idle_reps=${W9_IDLE_REPS:-3}
smoke=${W9_SMOKE:-false}   # true: tiny sizes (CTest), verdicts n/a

require_tool wrk "apt-get install wrk, or scripts/install-deps --bench"
configure_if_new "$build_dir"
build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[^=]*=//p' "$build_dir/CMakeCache.txt")
if [ "$smoke" != true ] && [ "$build_type" != Release ] && [ "$build_type" != RelWithDebInfo ]; then
  echo "$0: $build_dir is a $build_type build; W9 measures an optimised one (Release, -O2 -DNDEBUG)" >&2
  exit 1
fi
# W9_BUILD=0: use the programs as built (CTest's smoke run: the build is not
# the test's to run, and ctest -j may run other tests meanwhile).
if [ "${W9_BUILD:-1}" != 0 ]; then
  cmake --build "$build_dir" --parallel 2 --target http_keepalive http_keepalive_beast \
    http_keepalive_no_timeout http_keepalive_routed bench_http_idle_clients
fi

example_dir=$build_dir/example/http_keepalive
idle_clients=$build_dir/test/bench/bench_http_idle_clients
for program in "$example_dir/http_keepalive" "$example_dir/http_keepalive_beast" \
    "$example_dir/http_keepalive_no_timeout" "$example_dir/http_keepalive_routed" "$idle_clients"; do
  [ -x "$program" ] || { echo "$0: $program is not built" >&2; exit 1; }
done
mkdir -p "$out_dir"
make_tmp
# wrk and the server each hold N sockets.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
if [ "$(ulimit -n)" -lt $((idle_connections + 64)) ]; then
  echo "$0: the open-file limit $(ulimit -n) is below W9_IDLE + 64" >&2
  exit 1
fi
clock_ticks=$(getconf CLK_TCK)
json=$out_dir/http_wrk.json
records=$tmp/records.json   # wrapped into $json at the end, as bench_support.hpp writes
text=$out_dir/http_wrk.txt
rm -f "$json"
: > "$records"
: > "$text"
say() { printf '%s\n' "$*" | tee -a "$text"; }
record() { # impl n metric value [run]
  printf '{"kind":"measurement","program":"http_wrk","workload":"W9","impl":"%s","n":%s,"metric":"%s","value":%s,%s"smoke":%s}\n' \
    "$1" "$2" "$3" "$4" "${5:+\"run\":$5,}" "$smoke" >> "$records"
}
ways="beast wheel routed untimed socket"

# start_server IMPL: starts it on a free port; sets server_pid and port.
start_server() {
  rm -f "$tmp/server.out"
  # shellcheck disable=SC2046
  $(http_command "$1") --port 0 --threads 1 --idle-timeout 30s > "$tmp/server.out" 2> "$tmp/server.err" &
  server_pid=$!
  wait_for_port "$tmp/server.out" "$tmp/server.err" 5 "$1 server"
}
stop_server() {
  kill -INT "$server_pid"
  if ! wait "$server_pid"; then echo "$0: the server did not exit 0 on SIGINT" >&2; exit 1; fi
  server_pid=
}
cpu_ticks() { # utime + stime; the command name has no spaces
  awk '{ print $14 + $15 }' "/proc/$server_pid/stat"
}
rss_kib() {
  awk '/^VmRSS:/ { print $2 }' "/proc/$server_pid/status"
}

say "W9 HTTP keep-alive server under wrk: $(nproc) cores, load average before $(cut -d' ' -f1-3 /proc/loadavg)"
say "revision $(revision), build $build_type, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
say ""
say "load: wrk -t1 -cN -d${seconds}s, server --threads 1; one line per run"
say "N     round impl     requests  req/s      cpu_s   cpu_us/req  socket_errors"
for n in $connections; do
  round=1
  while [ $round -le "$pairs" ]; do
    for impl in $ways; do
      start_server $impl
      before=$(cpu_ticks)
      wrk -t1 -c"$n" -d"${seconds}s" --timeout 30s "http://127.0.0.1:$port/" > "$tmp/wrk.out" 2>&1 || {
        cat "$tmp/wrk.out" >&2; exit 1; }
      after=$(cpu_ticks)
      stop_server
      requests=$(awk '/requests in/ { print $1 }' "$tmp/wrk.out")
      rps=$(awk '/^Requests\/sec:/ { print $2 }' "$tmp/wrk.out")
      errors=$(sed -n 's/^ *Socket errors: //p' "$tmp/wrk.out" | tr -d ',' )
      non2xx=$(awk '/Non-2xx/ { print $NF }' "$tmp/wrk.out")
      if [ -z "$requests" ] || [ "$requests" -eq 0 ]; then cat "$tmp/wrk.out" >&2; echo "$0: wrk made no request" >&2; exit 1; fi
      if [ -n "$non2xx" ]; then echo "$0: $impl answered $non2xx non-2xx responses" >&2; exit 1; fi
      cpu_s=$(awk -v t=$((after - before)) -v hz="$clock_ticks" 'BEGIN { printf "%.2f", t / hz }')
      us=$(awk -v t=$((after - before)) -v hz="$clock_ticks" -v r="$requests" 'BEGIN { printf "%.3f", t / hz * 1e6 / r }')
      say "$(printf '%-5s %-5s %-8s %-9s %-10s %-7s %-11s %s' "$n" "$round" "$impl" "$requests" "$rps" "$cpu_s" "$us" "${errors:-none}")"
      record "$impl" "$n" cpu_us_per_request "$us" "$round"
      record "$impl" "$n" requests_per_second "$rps" "$round"
      printf '%s %s %s %s\n' "$n" "$round" "$impl" "$us" >> "$tmp/cpu.runs"
      printf '%s %s %s %s\n' "$n" "$round" "$impl" "$rps" >> "$tmp/rps.runs"
    done
    round=$((round + 1))
  done
done

say ""
say "idle memory: $idle_connections connections, one request each, then idle; one line per run"
say "round impl     baseline_KiB  loaded_KiB  bytes_per_connection  closed_by_server"
round=1
while [ $round -le "$idle_reps" ]; do
  for impl in $ways; do
    start_server $impl
    # Warm-up: one connection, one request, gone.
    echo | "$idle_clients" --port "$port" --connections 1 > /dev/null
    sleep 0.5
    baseline=$(rss_kib)
    mkfifo "$tmp/hold"
    "$idle_clients" --port "$port" --connections "$idle_connections" < "$tmp/hold" > "$tmp/idle.out" &
    clients_pid=$!
    exec 3> "$tmp/hold"   # the clients stay until this closes
    i=0
    until grep -q '^ready' "$tmp/idle.out" 2>/dev/null; do
      i=$((i + 1))
      if [ $i -gt 1200 ] || ! kill -0 "$clients_pid" 2>/dev/null; then echo "$0: the idle clients did not get ready" >&2; exit 1; fi
      sleep 0.05
    done
    sleep 1
    loaded=$(rss_kib)
    exec 3>&-
    wait "$clients_pid"
    rm -f "$tmp/hold"
    closed=$(sed -n 's/^closed_by_server //p' "$tmp/idle.out")
    stop_server
    bytes=$(awk -v b="$baseline" -v l="$loaded" -v c="$idle_connections" 'BEGIN { printf "%.0f", (l - b) * 1024 / c }')
    say "$(printf '%-5s %-8s %-13s %-11s %-21s %s' "$round" "$impl" "$baseline" "$loaded" "$bytes" "$closed")"
    if [ "$closed" != 0 ]; then echo "$0: the $impl server closed $closed idle connections within seconds of a 30 s timeout" >&2; exit 1; fi
    record "$impl" "$idle_connections" bytes_per_idle_connection "$bytes" "$round"
    printf '%s %s %s\n' "$round" "$impl" "$bytes" >> "$tmp/rss.runs"
  done
  round=$((round + 1))
done

# --- medians, ratios, verdicts ------------------------------------------------
med() { # file n impl -> median of the runs' values (n "-" for the idle file)
  if [ "$2" = - ]; then awk -v i="$3" '$2 == i { print $3 }' "$1" | median
  else awk -v n="$2" -v i="$3" '$1 == n && $3 == i { print $4 }' "$1" | median; fi
}
verdict() { # measured limit
  if [ "$smoke" = true ]; then echo n/a; else awk -v m="$1" -v l="$2" 'BEGIN { print (m <= l ? "PASS" : "MISS") }'; fi
}
budget() { # what measured limit
  v=$(verdict "$2" "$3")
  printf '{"kind":"budget","program":"http_wrk","workload":"W9","budget":"%s","measured":%s,"limit":%s,"verdict":"%s","detail":"","smoke":%s}\n' \
    "$1" "$2" "$3" "$v" "$smoke" >> "$records"
  printf '| %s | %s | %.4g | %.4g |\n' "$v" "$1" "$2" "$3" >> "$tmp/budgets.md"
}
: > "$tmp/budgets.md"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { print a / b }'; }
{
  echo "#### W9 HTTP keep-alive server under wrk (medians of $pairs rounds of ${seconds} s; server --threads 1)"
  echo
  echo "| N | way | server CPU us per request | requests/s | CPU : beast, median of the rounds (range) | CPU : untimed, median (range) |"
  echo "|---:|---|---:|---:|---|---|"
  for n in $connections; do
    for impl in $ways; do
      cpu=$(med "$tmp/cpu.runs" "$n" $impl)
      rps=$(med "$tmp/rps.runs" "$n" $impl)
      record $impl "$n" cpu_us_per_request_median "$cpu"
      record $impl "$n" requests_per_second_median "$rps"
      printf '| %s | %s | %.3f | %.0f | %.3f (%s) | %.3f (%s) |\n' "$n" "$impl" "$cpu" "$rps" \
        "$(round_ratios "$tmp/cpu.runs" "$n" $impl beast | median)" "$(round_ratios "$tmp/cpu.runs" "$n" $impl beast | range)" \
        "$(round_ratios "$tmp/cpu.runs" "$n" $impl untimed | median)" "$(round_ratios "$tmp/cpu.runs" "$n" $impl untimed | range)"
    done
    wheel_beast=$(round_ratios "$tmp/cpu.runs" "$n" wheel beast | median)
    record wheel "$n" cpu_saving_vs_beast_percent "$(awk -v r="$wheel_beast" 'BEGIN { print (1 - r) * 100 }')"
    budget "W9 server CPU per request wheel : beast at N=$n" "$wheel_beast" 1
    # Within 5 % of the untimed server is held by instructions
    # (doc/benchmarks.md#budgets; callgrind_http.sh, which run_all.sh runs): the
    # CPU time's ratio is reported, no verdict.
    record wheel "$n" cpu_ratio_to_untimed "$(round_ratios "$tmp/cpu.runs" "$n" wheel untimed | median)"
    # Beast's own stream with its timers routed to the wheel: no more than Beast's tcp_stream.
    routed_beast=$(round_ratios "$tmp/cpu.runs" "$n" routed beast | median)
    record routed "$n" cpu_ratio_to_beast "$routed_beast"
    budget "W9 server CPU per request routed Beast stream : beast at N=$n" "$routed_beast" 1
  done
  echo
  echo "routed: Beast's own basic_stream<tcp, asio_wheel::wheel_executor<>>, its timers in the wheel;"
  echo "untimed: the wheel's stream without expires_after (--no-timeout); socket: a plain tcp::socket."
  echo "Ratios are taken within a round (the ways of a round ran back to back)."
  echo
  echo "Idle memory, $idle_connections connections (median of $idle_reps runs):"
  echo
  echo "| way | bytes per idle connection | minus untimed's | minus socket's |"
  echo "|---|---:|---:|---:|"
  untimed_bytes=$(med "$tmp/rss.runs" - untimed)
  socket_bytes=$(med "$tmp/rss.runs" - socket)
  for impl in $ways; do
    b=$(med "$tmp/rss.runs" - $impl)
    record $impl "$idle_connections" bytes_per_idle_connection_median "$b"
    printf '| %s | %.0f | %.0f | %.0f |\n' "$impl" "$b" "$(awk -v a="$b" -v c="$untimed_bytes" 'BEGIN { print a - c }')" \
      "$(awk -v a="$b" -v c="$socket_bytes" 'BEGIN { print a - c }')"
  done
  budget "W9 bytes per idle connection wheel - untimed (within 150)" \
    "$(awk -v a="$(med "$tmp/rss.runs" - wheel)" -v c="$untimed_bytes" 'BEGIN { print a - c }')" 150
  # Against a plain socket (no Beast stream at all) is no budget: the 150 bytes of W9's budget
  # (doc/benchmarks.md#budgets) are against the same server without timeouts (untimed).
  record wheel "$idle_connections" bytes_minus_socket \
    "$(awk -v a="$(med "$tmp/rss.runs" - wheel)" -v c="$socket_bytes" 'BEGIN { print a - c }')"
  echo
  echo "| verdict | budget | measured | limit |"
  echo "|---|---|---:|---:|"
  cat "$tmp/budgets.md"
  echo
  echo "Load average after the run: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores (the machine is shared)."
} > "$out_dir/http_wrk_summary.md"
{
  printf '{"program":"http_wrk","records":[\n'
  sed '$!s/$/,/' "$records"
  printf ']}\n'
} > "$json"
say ""
tee -a "$text" < "$out_dir/http_wrk_summary.md"
