#!/bin/sh
#
# test/bench/websocket_w11.sh BUILD_DIR OUT_DIR
#
# Benchmark W11 (doc/benchmarks.md): example/websocket_chat, Beast's websocket::stream chat
# server with Beast's own server timeouts (stream_base::timeout::suggested(server): idle
# 300 s with keep-alive pings, handshakes 30 s; the server's defaults), run four ways:
#   wheel          --timers wheel                 basic_stream<tcp, wheel_executor<>>: the
#                                                 websocket's timer routed to the wheel
#                                                 (Beast 1.82 and later)
#   wheel_untimed  --timers wheel --no-timeouts   the same stream, no timeouts: its floor
#   beast          --timers beast                 boost::beast::tcp_stream, Beast's own
#                                                 steady_timer
#   off            --timers off                   the same, no timeouts: its floor
# loaded by websocket_chat_load --hold: N connections (W11_CONNECTIONS, default 10000 and
# 100000) arriving over the connect phase, 256 handshakes at a time (so that their idle
# timers are spread over it; none expires in the window: the first ping is due after
# 150 s), W11_ACTIVE_PERCENT of them (default 20: with 5 the 10k server's CPU per message
# moved by up to a quarter from run to run, its rounds' ratios 0.72 to 1.28; with 20, 0.92 to
# 1.06) sending a message a second (a PING the server answers with a PONG, at a random phase
# of the second), the rest silent. The routed timer's use is known only from the
# server: its /stats (the client's last line) must say websocket_timer=wheel with at least N
# waits pending in the wheel, else the "wheel" way is not routed and its verdicts are n/a.
#
# 1. CPU and memory: a warm-up run of the first way (round 0, not counted: the first run of
#    a series came out 1.19 and 1.26 of the next way's in two series whose other rounds gave
#    0.91 to 0.99 and 0.97 to 1.15), then W11_ROUNDS rounds (default 3) of each way in turn,
#    the ways taking turns in first place round by round, each run a fresh server:
#    a warm-up client of one connection, the server's VmRSS; the load client connects the N
#    and prints "ready"; VmRSS again (bytes per connection = the delta / N, the connections
#    all but the active share idle) and the server's CPU time (/proc/PID/task/*/schedstat,
#    nanoseconds); a line on the client's stdin starts the messages (--start-on-input), for
#    W11_SECONDS (default 10) s; at the client's "done messages=M" (every PING has its PONG;
#    the client then waits for the end of its stdin before it quits) the CPU time again.
#    Server CPU per message = the CPU delta / M.
# 2. Instructions (when valgrind is installed and W11_CALLGRIND is not 0): each way once at
#    each N under valgrind --tool=callgrind with instrumentation off until "ready", then on
#    (callgrind_control -i on, -z) for a W11_CG_SECONDS (default 5) s window of
#    W11_CG_ACTIVE (default 250) chatting connections, dumped at "done": the server's
#    user-space instructions per message. The timer's own instructions per message: a timed
#    way's minus its floor's (wheel - wheel_untimed, beast - off); where they go: the
#    inclusive counts of Beast's update_timer (the re-arm: expires_after aborts the pending
#    wait, async_wait a new one) and of the timeout handler's completions, per message
#    (callgrind_annotate).
#
# Prints every run, then the medians, ratios and verdicts against W11's budgets
# (doc/benchmarks.md#budgets); writes OUT_DIR/websocket_w11.txt (the same),
# OUT_DIR/websocket_w11.json (the records one a line, as bench_support.hpp writes them;
# run_all.sh merges them), OUT_DIR/websocket_w11_summary.md and, under callgrind,
# OUT_DIR/callgrind.out.w11.*.
#
# W11_WAYS: the ways to run (default all four), W11_ROUNDS=0: the callgrind part alone.
# BUILD_DIR: a build directory whose Beast is 1.82 (BOOST_BEAST_VERSION 347) or later, so
# that the websocket's own timer is routed: if it has no CMakeCache.txt it is configured like
# run_all.sh's (Release, -O2 -DNDEBUG) against the Boost 1.90 Asio, Beast and Core trees of
# scripts/asio-trees when they are there (else the system Boost, whose Beast 1.81 leaves the
# websocket's timer a steady_timer: the routed way's verdicts are then n/a). W11_BUILD=0:
# use the programs as built. W11_SMOKE=true: tiny sizes for CTest, verdicts n/a. As root (the
# open-file limit is raised to N + 1024). About 15 minutes with the defaults, half of it
# under callgrind.
#
# shellcheck source=bench_support.sh
. "$(dirname "$0")/bench_support.sh"

[ $# -eq 2 ] || usage "BUILD_DIR OUT_DIR"
build_dir=$1
out_dir=$2
connections=${W11_CONNECTIONS:-10000 100000}
active_percent=${W11_ACTIVE_PERCENT:-20}
seconds=${W11_SECONDS:-10}
rounds=${W11_ROUNDS:-3}
cg_seconds=${W11_CG_SECONDS:-5}
cg_active=${W11_CG_ACTIVE:-250}
smoke=${W11_SMOKE:-false}   # true: tiny sizes (CTest), verdicts n/a
ways=${W11_WAYS:-wheel wheel_untimed beast off}   # a subset: that part of the tables alone

if [ ! -f "$build_dir/CMakeCache.txt" ]; then
  trees=$("$repo_dir/scripts/asio-trees")
  if [ -f "$trees/beast-1.90.0/include/boost/beast/version.hpp" ]; then
    cmake -S "$repo_dir" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG" \
      "-DASIO_WHEEL_BOOST_ASIO_INCLUDE_DIR=$trees/boost-1.90.0.beta1/include" \
      "-DASIO_WHEEL_BEAST_INCLUDE_DIR=$trees/beast-1.90.0/include" \
      "-DASIO_WHEEL_BOOST_CORE_INCLUDE_DIR=$trees/core-1.90.0/include"
  else
    configure_if_new "$build_dir"
  fi
fi
if [ "${W11_BUILD:-1}" != 0 ]; then
  cmake --build "$build_dir" --parallel 2 --target websocket_chat_server websocket_chat_load
fi
example_dir=$build_dir/example/websocket_chat
server=$example_dir/websocket_chat_server
load=$example_dir/websocket_chat_load
for program in "$server" "$load"; do
  [ -x "$program" ] || { echo "$0: $program is not built" >&2; exit 1; }
done
beast_dir=$(sed -n 's/^ASIO_WHEEL_BEAST_INCLUDE_DIR:PATH=//p' "$build_dir/CMakeCache.txt")
beast_version=$(sed -n 's/^#define BOOST_BEAST_VERSION \([0-9]*\).*/\1/p' "${beast_dir:-/usr/include}/boost/beast/version.hpp")
mkdir -p "$out_dir"
out_dir=$(cd "$out_dir" && pwd)
make_tmp
client_pid=
# The load client too, if the script stops while it runs.
trap '[ -z "$client_pid" ] || kill -KILL "$client_pid" 2>/dev/null || true; remove_tmp' EXIT
# The server and the client each hold N sockets: a size beyond the open-file limit (raising
# the hard limit needs CAP_SYS_RESOURCE) is skipped, and said so, its verdicts n/a.
max_n=0
for n in $connections; do [ "$n" -le $max_n ] || max_n=$n; done
ulimit -n $((max_n + 1024)) 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
skipped=
measured=
for n in $connections; do
  if [ "$(ulimit -n)" -lt $((n + 64)) ]; then skipped="$skipped $n"; else measured="$measured $n"; fi
done
connections=$measured
max_n=0
for n in $connections; do [ "$n" -le $max_n ] || max_n=$n; done
json=$out_dir/websocket_w11.json
records=$tmp/records.json
text=$out_dir/websocket_w11.txt
rm -f "$json"
: > "$records"
: > "$text"
say() { printf '%s\n' "$*" | tee -a "$text"; }
record() { # impl n metric value [run]
  printf '{"kind":"measurement","program":"websocket_w11","workload":"W11","impl":"%s","n":%s,"metric":"%s","value":%s,%s"smoke":%s}\n' \
    "$1" "$2" "$3" "$4" "${5:+\"run\":$5,}" "$smoke" >> "$records"
}

server_flags() { # WAY N
  case $1 in
    wheel) echo "--timers wheel" ;;
    wheel_untimed) echo "--timers wheel --no-timeouts" ;;
    beast) echo "--timers beast" ;;
    off) echo "--timers off" ;;
  esac
  echo "--max-connections $(($2 + 100))"
}
# Beyond one source address's ephemeral ports (28k on Linux by default): 127.0.0.2 and on.
sources() { if [ "$1" -gt 20000 ]; then echo "--source-addresses $(($1 / 20000 + 1))"; fi; }
rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$server_pid/status"; }
cpu_ns() { cat /proc/"$server_pid"/task/*/schedstat | awk '{ t += $1 } END { printf "%.0f", t }'; }
# wait_for LINE_PATTERN FILE SECONDS WHAT: until a line of FILE matches, the client alive.
wait_for() {
  i=0
  until grep -q "$1" "$2" 2>/dev/null; do
    i=$((i + 1))
    if [ $i -gt $(($3 * 20)) ] || ! kill -0 "$client_pid" 2>/dev/null; then
      echo "$0: $4: no \"$1\" from the load client within $3 s" >&2
      cat "$2" "$tmp/server.err" >&2
      exit 1
    fi
    sleep 0.05
  done
}
# start_server WAY N [VALGRIND...]: a fresh server on a free port; sets server_pid and port.
start_server() {
  way=$1 n=$2
  shift 2
  rm -f "$tmp/server.out"
  # shellcheck disable=SC2046
  "$@" "$server" --port 0 $(server_flags "$way" "$n") > "$tmp/server.out" 2> "$tmp/server.err" &
  server_pid=$!
  wait_for_port "$tmp/server.out" "$tmp/server.err" 60 "$way server"
  # Warm-up: one connection, its messages, gone (lazily made state in the baseline).
  "$load" --port "$port" --connections 1 --active 1 --hold 0ms > "$tmp/warmup.out" 2>&1 \
    || { cat "$tmp/warmup.out" >&2; echo "$0: $way: the warm-up client failed" >&2; exit 1; }
}
stop_server() {
  kill -TERM "$server_pid"
  if ! wait "$server_pid"; then echo "$0: the server did not exit 0 on SIGTERM" >&2; cat "$tmp/server.err" >&2; exit 1; fi
  server_pid=
}
# start_client N ACTIVE SECONDS: the load client, its stdin a FIFO held on descriptor 3: a
# line starts its messages, the end of it (after "done") its /quit and close.
start_client() {
  rm -f "$tmp/go" "$tmp/client.out"
  mkfifo "$tmp/go"
  # shellcheck disable=SC2046
  "$load" --port "$port" --connections "$1" --active "$2" --hold "${3}s" --chat-interval 1s \
    --start-on-input --until-eof $(sources "$1") < "$tmp/go" > "$tmp/client.out" 2>&1 &
  client_pid=$!
  exec 3> "$tmp/go"
}
# finish_client WAY N: closes its stdin, waits for its summary, checks it passed and, for the
# routed way, that the server's wheel held every connection's timer; sets websocket_timer and
# pending_waits.
finish_client() {
  exec 3>&-
  if ! wait "$client_pid"; then cat "$tmp/client.out" >&2; echo "$0: $1 N=$2: the load client failed" >&2; exit 1; fi
  client_pid=
  stats=$(sed -n 's/^server at the end: //p' "$tmp/client.out")
  websocket_timer=$(printf '%s\n' "$stats" | tr ' ' '\n' | sed -n 's/^websocket_timer=//p')
  pending_waits=$(printf '%s\n' "$stats" | tr ' ' '\n' | sed -n 's/^pending_waits=//p')
  if [ "$1" = wheel ] && [ "$websocket_timer" = wheel ] && [ "${pending_waits:-0}" -lt "$2" ]; then
    echo "$0: wheel N=$2: the server's wheel holds $pending_waits waits, fewer than the connections: $stats" >&2
    exit 1
  fi
}
messages_of() { sed -n 's/^done messages=//p' "$tmp/client.out"; }
: > "$tmp/runs"
: > "$tmp/routed"

say "W11 WebSocket chat server: $(nproc) cores, load average before $(cut -d' ' -f1-3 /proc/loadavg)"
say "revision $(revision), Beast $beast_version, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
for n in $skipped; do
  say "N=$n: not measured, the open-file limit is $(ulimit -n) (hard $(ulimit -Hn)), below N + 64"
done
say ""
say "CPU and memory: N connections, $active_percent % of them a message a second for ${seconds} s; one line per run"
say "(round 0: a warm-up run, not counted; then the ways take turns in first place, round by round)"
say "N       round way            connect_s messages  cpu_s   cpu_us/msg  rss_base_KiB rss_loaded_KiB bytes/conn websocket_timer pending_waits"
# measure_run WAY N ROUND: one server and load client; prints its line and, for a round above
# 0, records it.
measure_run() {
  way=$1
  start_server $way "$2"
  baseline=$(rss_kib)
  start_client "$2" "$active" "$seconds"
  wait_for '^ready' "$tmp/client.out" 300 "$way N=$2"
  loaded=$(rss_kib)
  before=$(cpu_ns)
  echo go >&3
  wait_for '^done' "$tmp/client.out" $((seconds + 60)) "$way N=$2"
  after=$(cpu_ns)
  messages=$(messages_of)
  # How long the connections took to arrive (the client's handshakes, 256 at a time).
  connect_s=$(sed -n 's/^connected [0-9]* in \([0-9.]*\) ms$/\1/p' "$tmp/client.out" | awk '{ printf "%.1f", $1 / 1000 }')
  finish_client $way "$2"
  stop_server
  [ "${messages:-0}" -gt 0 ] || { echo "$0: $way N=$2: no message" >&2; exit 1; }
  us=$(awk -v t=$((after - before)) -v m="$messages" 'BEGIN { printf "%.3f", t / 1e3 / m }')
  cpu_s=$(awk -v t=$((after - before)) 'BEGIN { printf "%.3f", t / 1e9 }')
  bytes=$(awk -v b="$baseline" -v l="$loaded" -v c="$2" 'BEGIN { printf "%.0f", (l - b) * 1024 / c }')
  say "$(printf '%-7s %-5s %-14s %-9s %-9s %-7s %-11s %-12s %-14s %-10s %-15s %s' "$2" "$3" $way "$connect_s" "$messages" "$cpu_s" "$us" \
    "$baseline" "$loaded" "$bytes" "$websocket_timer" "${pending_waits:--}")"
  [ "$3" -gt 0 ] || return 0
  record $way "$2" cpu_us_per_message "$us" "$3"
  record $way "$2" bytes_per_connection "$bytes" "$3"
  record $way "$2" connect_seconds "$connect_s" "$3"
  printf '%s %s %s %s %s\n' "$2" "$3" $way "$us" "$bytes" >> "$tmp/runs"
  [ $way != wheel ] || printf '%s %s\n' "$2" "$websocket_timer" >> "$tmp/routed"
}
# rotated K WAYS...: the ways, starting from the K-th (0-based, modulo their number).
rotated() {
  k=$1
  shift
  k=$((k % $#))
  i=0
  for w in "$@"; do [ $i -lt $k ] || printf '%s ' "$w"; i=$((i + 1)); done
  i=0
  for w in "$@"; do [ $i -ge $k ] || printf '%s ' "$w"; i=$((i + 1)); done
}
for n in $connections; do
  active=$((n * active_percent / 100))
  [ $active -gt 0 ] || active=1
  [ "$rounds" -eq 0 ] || measure_run "${ways%% *}" "$n" 0
  round=1
  while [ $round -le "$rounds" ]; do
    # shellcheck disable=SC2086
    for way in $(rotated $((round - 1)) $ways); do
      measure_run $way "$n" $round
    done
    round=$((round + 1))
  done
done

# --- callgrind: instructions per message -----------------------------------------------
callgrind=0
if [ "${W11_CALLGRIND:-1}" != 0 ] && command -v valgrind > /dev/null 2>&1; then callgrind=1; fi
: > "$tmp/cg"
if [ $callgrind = 1 ]; then
  for tool in callgrind_control callgrind_annotate; do require_tool $tool valgrind; done
  rm -f "$out_dir"/callgrind.out.w11.*
  say ""
  say "Under callgrind: N connections, $cg_active of them a message a second for ${cg_seconds} s; the server's instructions in that window"
  say "N       way            messages  instructions     per_message  update_timer/msg  completions/msg"
  for n in $connections; do
    for way in $ways; do
      start_server $way "$n" valgrind --tool=callgrind --instr-atstart=no \
        "--callgrind-out-file=$out_dir/callgrind.out.w11.$way.$n.%p"
      start_client "$n" "$cg_active" "$cg_seconds"
      wait_for '^ready' "$tmp/client.out" 900 "$way N=$n under callgrind"
      callgrind_control -i on "$server_pid" > /dev/null 2>&1
      callgrind_control -z "$server_pid" > /dev/null 2>&1
      echo go >&3
      wait_for '^done' "$tmp/client.out" $((cg_seconds + 120)) "$way N=$n under callgrind"
      callgrind_control -d "$server_pid" > /dev/null 2>&1
      messages=$(messages_of)
      finish_client $way "$n"
      stop_server
      dump=$(ls "$out_dir"/callgrind.out.w11.$way.$n.*.1)
      total=$(callgrind_total "$dump")
      # Inclusive counts of the websocket's re-arm (update_timer) and of the completions of
      # its timer's waits (the do_complete of a wait whose handler is the websocket's
      # timeout_handler: Asio's wait_handler, the wheel's wait_op; an aborted wait's handler
      # returns at once), summed over the template instances.
      callgrind_annotate --inclusive=yes --threshold=100 "$dump" 2>/dev/null > "$tmp/annotate"
      inclusive() { # pattern [pattern]
        grep -e "$1" "$tmp/annotate" | grep -e "${2:-.}" \
          | awk '{ gsub(",", "", $1); s += $1 } END { printf "%.0f", s }'
      }
      update=$(inclusive '::impl_type::update_timer<')
      handler=$(inclusive 'timeout_handler<' '::do_complete(')
      per=$(awk -v t="$total" -v m="$messages" 'BEGIN { printf "%.0f", t / m }')
      per_update=$(awk -v t="$update" -v m="$messages" 'BEGIN { printf "%.0f", t / m }')
      per_handler=$(awk -v t="$handler" -v m="$messages" 'BEGIN { printf "%.0f", t / m }')
      say "$(printf '%-7s %-14s %-9s %-16s %-12s %-17s %s' "$n" $way "$messages" "$total" "$per" "$per_update" "$per_handler")"
      record $way "$n" instructions_per_message "$per"
      record $way "$n" update_timer_instructions_per_message "$per_update"
      record $way "$n" timer_completion_instructions_per_message "$per_handler"
      printf '%s %s %s %s %s\n' "$n" $way "$per" "$per_update" "$per_handler" >> "$tmp/cg"
    done
  done
fi

# --- medians, ratios, verdicts ----------------------------------------------------------
med() { awk -v n="$1" -v w="$2" -v c="$3" '$1 == n && $3 == w { print $c }' "$tmp/runs" | median; } # n way column
cg() { awk -v n="$1" -v w="$2" -v c="${3:-3}" '$1 == n && $2 == w { print $c }' "$tmp/cg"; } # n way [column]
routed_at() { # n: whether the wheel way's websocket timer was the wheel's in every run
  awk -v n="$1" '$1 == n { all++; if ($2 == "wheel") ok++ } END { print (all > 0 && ok == all) ? 1 : 0 }' "$tmp/routed"
}
: > "$tmp/budgets.md"
budget() { # what measured limit [routed]
  if [ "$smoke" = true ] || [ "$2" = - ] || [ "${4:-1}" = 0 ]; then v=n/a
  else v=$(awk -v m="$2" -v l="$3" 'BEGIN { print (m <= l ? "PASS" : "MISS") }'); fi
  measured=$2
  [ "$measured" != - ] || measured=0
  printf '{"kind":"budget","program":"websocket_w11","workload":"W11","budget":"%s","measured":%s,"limit":%s,"verdict":"%s","detail":"","smoke":%s}\n' \
    "$1" "$measured" "$3" "$v" "$smoke" >> "$records"
  printf '| %s | %s | %s | %s |\n' "$v" "$1" "$2" "$3" >> "$tmp/budgets.md"
}
three_places() { awk '{ if ($1 == "-") print "-"; else printf "%.3f\n", $1 }'; }
diff_of() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || a == "-" || b == "-") print "-"; else print a - b }'; }
{
  echo "#### W11 WebSocket chat server (Beast $beast_version; medians of $rounds rounds of ${seconds} s; $active_percent % of the connections chatting)"
  echo
  echo "| N | way | server CPU us per message | CPU : beast, median of the rounds (range) | CPU : off, median (range) | bytes per connection | minus off's |"
  echo "|---:|---|---:|---|---|---:|---:|"
  [ "$rounds" -gt 0 ] || connections_measured=$connections connections=   # no rounds: no rows
  for n in $connections; do
    off_bytes=$(med "$n" off 5)
    for way in $ways; do
      cpu=$(med "$n" $way 4)
      bytes=$(med "$n" $way 5)
      record $way "$n" cpu_us_per_message_median "$cpu"
      record $way "$n" bytes_per_connection_median "$bytes"
      # %s for the ratios and the difference: "-" where W11_WAYS left out beast or off.
      printf '| %s | %s | %.3f | %s (%s) | %s (%s) | %.0f | %s |\n' "$n" $way "$cpu" \
        "$(round_ratios "$tmp/runs" "$n" $way beast | median | three_places)" "$(round_ratios "$tmp/runs" "$n" $way beast | range)" \
        "$(round_ratios "$tmp/runs" "$n" $way off | median | three_places)" "$(round_ratios "$tmp/runs" "$n" $way off | range)" \
        "$bytes" "$(diff_of "$bytes" "$off_bytes")"
    done
  done
  [ "$rounds" -gt 0 ] || connections=$connections_measured
  if [ $callgrind = 1 ]; then
    echo
    echo "Instructions per message under callgrind ($cg_active chatting connections, ${cg_seconds} s); the timer's own: a timed way minus its floor:"
    echo
    echo "| N | wheel | wheel_untimed | beast | off | timer's own, routed (wheel - wheel_untimed) | timer's own, Beast's (beast - off) | routed : Beast's |"
    echo "|---:|---:|---:|---:|---:|---:|---:|---:|"
    for n in $connections; do
      own_wheel=$(diff_of "$(cg "$n" wheel)" "$(cg "$n" wheel_untimed)")
      own_beast=$(diff_of "$(cg "$n" beast)" "$(cg "$n" off)")
      ratio=$(awk -v a="$own_wheel" -v b="$own_beast" 'BEGIN { if (a == "-" || b == "-" || b <= 0) print "-"; else printf "%.3f", a / b }')
      printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$n" "$(cg "$n" wheel)" "$(cg "$n" wheel_untimed)" \
        "$(cg "$n" beast)" "$(cg "$n" off)" "$own_wheel" "$own_beast" "$ratio"
      [ "$own_wheel" = - ] || record wheel "$n" timer_instructions_per_message "$own_wheel"
      [ "$own_beast" = - ] || record beast "$n" timer_instructions_per_message "$own_beast"
      printf '%s %s\n' "$n" "$ratio" >> "$tmp/cg_ratio"
    done
    echo
    echo "Where they go, per message: the inclusive instructions of Beast's update_timer (the re-arm"
    echo "of every read: expires_after, which aborts the pending wait, and async_wait) and of the"
    echo "completions of the timer's waits (the aborted ones: the handler returns at once):"
    echo
    echo "| N | way | update_timer | its timer's completions | the rest of the timed way's surplus over its floor |"
    echo "|---:|---|---:|---:|---:|"
    for n in $connections; do
      for pair in "wheel wheel_untimed" "beast off"; do
        way=${pair% *}
        floor=${pair#* }
        printf '| %s | %s | %s | %s | %s |\n' "$n" $way "$(cg "$n" $way 4)" "$(cg "$n" $way 5)" \
          "$(awk -v t="$(cg "$n" $way)" -v f="$(cg "$n" "$floor")" -v u="$(cg "$n" $way 4)" \
              -v fu="$(cg "$n" "$floor" 4)" -v c="$(cg "$n" $way 5)" \
              'BEGIN { if (t == "" || f == "") print "-"; else print (t - f) - (u - fu) - c }')"
      done
    done
  fi
  echo
  echo "Bytes per connection: the server's VmRSS with the N connections minus before them, / N."
  echo "Ratios are taken within a round (the ways of a round ran back to back)."
  echo
  for n in $connections; do
    routed=$(routed_at "$n")
    [ "$routed" = 1 ] || echo "At N=$n no run showed the wheel way's websocket timer in the wheel (before Beast 1.82 it is a steady_timer; this is Beast $beast_version): its verdicts are n/a."
    budget "W11 server CPU per message routed : Beast's own at N=$n (median of the rounds)" \
      "$(round_ratios "$tmp/runs" "$n" wheel beast | median)" 1 "$routed"
    budget "W11 bytes per connection routed - Beast's own at N=$n" \
      "$(diff_of "$(med "$n" wheel 5)" "$(med "$n" beast 5)")" 0 "$routed"
    # Its limit is for 100k (doc/benchmarks.md#budgets); where that size is not measured,
    # it holds at the largest that is.
    if [ $callgrind = 1 ] && [ "$n" = "$max_n" ]; then
      at=""
      [ "$n" = 100000 ] || at=" (limit: at 100k)"
      budget "W11 the timer's own instructions per message routed : Beast's own at N=$n$at" \
        "$(awk -v n="$n" '$1 == n { print $2 }' "$tmp/cg_ratio")" 0.5 "$routed"
    fi
  done
  for n in $skipped; do
    budget "W11 at N=$n (not measured: the open-file limit $(ulimit -n) is below N + 64)" - 1
  done
  echo
  echo "| verdict | budget | measured | limit |"
  echo "|---|---|---:|---:|"
  cat "$tmp/budgets.md"
  echo
  echo "Load average after the run: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores (the machine is shared)."
} > "$out_dir/websocket_w11_summary.md"
write_report "$records" websocket_w11 "$json"
say ""
tee -a "$text" < "$out_dir/websocket_w11_summary.md"
