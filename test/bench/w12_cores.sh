#!/bin/sh
#
# test/bench/w12_cores.sh BUILD_DIR OUT_DIR
#
# Benchmark W12 (doc/benchmarks.md, doc/threads.md): steady_timer and wheel_timer on K cores,
# for every K of W12_CORES (default "1 2"; any list, e.g. "1 2 4 8 16" on a larger machine),
# in the two shapes of a server on K cores:
#   contexts  K io_contexts, one thread each (the keepalive chat server's --contexts K)
#   threads   one io_context run by K threads (--threads K: sessions on strands)
# Two parts:
# 1. Churn (bench_cores, test/bench/cores.cpp): W1 on K threads at once, each re-arming its
#    own 100k timers (one context each, or all in one), and W1's read floor on K threads (the
#    floor that shares nothing); medians of 5 repetitions, each running every K, shape and
#    side back to back. Its budgets, one context per core: the wheel's CPU per re-arm at K
#    over its 1-core figure within 1.1 of the read floor's same ratio (every K > 1), and at
#    most 1/3 of steady_timer's (every K).
# 2. The chat server's CPU per message: example/keepalive_chat's server (--timers steady or
#    wheel, the shape's flag) under bench_w12_chat_client: W12_CONNECTIONS connections (200)
#    each sending PING and awaiting its PONG, as fast as the server answers, for W12_SECONDS
#    (3) after 0.5 s of warm-up; the server's CPU time (every thread's schedstat) over the
#    window / the PONGs. A PING is read, parsed, refreshes the idle timer (extend_after, or a
#    steady_timer re-arm) and is answered under the write deadline: the timers' part of a
#    message without the room's fan-out. W12_ROUNDS rounds (5) of every K, shape and side,
#    a fresh server each, the sides taking turns in first place; the ratio is the median of
#    the rounds' own wheel : steady_timer ratios. No budget: a measurement.
# The client is one more busy thread: on a machine with K cores, a server on K threads shares
# them with it (the table says so), and each K above the machine's cores is marked.
#
# Prints both parts as one table; writes OUT_DIR/w12_cores.txt (everything printed),
# OUT_DIR/w12_cores.json (the records one a line, as bench_support.hpp writes them; run_all.sh
# merges them), OUT_DIR/w12_cores_summary.md (the table and the budgets).
# W12_BUILD=0: use the programs as built. W12_SMOKE=true: tiny sizes for CTest, verdicts n/a.
# About 3 minutes with the defaults on 2 cores.
#
# shellcheck source=bench_support.sh
. "$(dirname "$0")/bench_support.sh"

[ $# -eq 2 ] || usage "BUILD_DIR OUT_DIR"
build_dir=$1
out_dir=$2
cores=${W12_CORES:-1 2}
connections=${W12_CONNECTIONS:-200}
seconds=${W12_SECONDS:-3}
rounds=${W12_ROUNDS:-5}
smoke=${W12_SMOKE:-false}

configure_if_new "$build_dir"
if [ "${W12_BUILD:-1}" != 0 ]; then
  cmake --build "$build_dir" --parallel 2 --target bench_cores bench_w12_chat_client keepalive_chat_server
fi
bench_dir=$build_dir/test/bench
server=$build_dir/example/keepalive_chat/keepalive_chat_server
client=$bench_dir/bench_w12_chat_client
for program in "$bench_dir/bench_cores" "$client" "$server"; do
  [ -x "$program" ] || { echo "$0: $program is not built" >&2; exit 1; }
done
mkdir -p "$out_dir"
out_dir=$(cd "$out_dir" && pwd)
make_tmp
hardware=$(nproc)
json=$out_dir/w12_cores.json
records=$tmp/records.json
text=$out_dir/w12_cores.txt
rm -f "$json"
: > "$records"
: > "$text"
say() { printf '%s\n' "$*" | tee -a "$text"; }
record() { # workload impl k metric value
  printf '{"kind":"measurement","program":"w12_cores","workload":"%s","impl":"%s","n":%s,"metric":"%s","value":%s,"smoke":%s}\n' \
    "$1" "$2" "$3" "$4" "$5" "$smoke" >> "$records"
}
# shape_label SHAPE K: how the table and the demo name a shape.
shape_label() {
  if [ "$1" = contexts ]; then
    if [ "$2" -eq 1 ]; then echo "1 context, 1 thread"; else echo "$2 contexts, 1 thread each"; fi
  else
    if [ "$2" -eq 1 ]; then echo "1 context, 1 thread"; else echo "1 context, $2 threads"; fi
  fi
}
over() { # K: the mark of a K above the machine's cores
  if [ "$1" -gt "$hardware" ]; then echo " (more threads than the machine's $hardware CPUs)"; fi
}

# --- 1. churn ---------------------------------------------------------------------------
say "== W12 churn (bench_cores)"
smoke_flag=
[ "$smoke" != true ] || smoke_flag=--smoke
# shellcheck disable=SC2086
"$bench_dir/bench_cores" --cores "$(echo $cores | tr ' ' ,)" $smoke_flag --json "$tmp/cores.json" \
  > "$tmp/cores.txt" || { cat "$tmp/cores.txt"; echo "$0: bench_cores failed" >&2; exit 1; }
tee -a "$text" < "$tmp/cores.txt"
# Its records, one a line, with ours.
grep '"kind"' "$tmp/cores.json" | sed 's/,$//' >> "$records"
churn() { pick_measurement "$@" < "$tmp/cores.json"; } # workload impl k metric

# --- 2. the chat server's CPU per message -------------------------------------------------
say ""
say "== W12 chat: keepalive_chat_server under bench_w12_chat_client, $connections connections pinging, ${seconds} s windows, $rounds round(s)"
runs=$tmp/runs.txt
: > "$runs"
server_pid=
run_chat() { # SHAPE K TIMERS ROUND
  if [ "$1" = contexts ]; then flag=--contexts; else flag=--threads; fi
  rm -f "$tmp/server.out"
  "$server" --port 0 "$flag" "$2" --timers "$3" --idle-timeout 60s \
    --max-connections $((connections + 100)) > "$tmp/server.out" 2> "$tmp/server.err" &
  server_pid=$!
  wait_for_port "$tmp/server.out" "$tmp/server.err" 30 "keepalive_chat_server $flag $2"
  if ! "$client" --port "$port" --server-pid "$server_pid" --connections "$connections" \
      --seconds "$seconds" > "$tmp/client.out" 2>&1; then
    cat "$tmp/client.out" "$tmp/server.err" >&2
    echo "$0: $flag $2 --timers $3: the client failed" >&2
    exit 1
  fi
  kill -TERM "$server_pid"
  if ! wait "$server_pid"; then echo "$0: the server did not exit 0 on SIGTERM" >&2; cat "$tmp/server.err" >&2; exit 1; fi
  server_pid=
  us=$(sed -n 's/.*cpu_us_per_message=\([0-9.]*\).*/\1/p' "$tmp/client.out")
  messages=$(sed -n 's/^messages=\([0-9]*\).*/\1/p' "$tmp/client.out")
  echo "$2 $4 ${1}_$3 $us $messages" >> "$runs"
  say "round $4: $(shape_label "$1" "$2") --timers $3: $us us of server CPU per message ($messages messages)"
}
round=1
while [ "$round" -le "$rounds" ]; do
  for k in $cores; do
    for shape in contexts threads; do
      # The sides take turns in first place, round by round.
      if [ $((round % 2)) -eq 1 ]; then sides="steady wheel"; else sides="wheel steady"; fi
      for timers in $sides; do run_chat "$shape" "$k" "$timers" "$round"; done
    done
  done
  round=$((round + 1))
done
chat_median() { awk -v k="$1" -v w="$2" '$1 == k && $3 == w { print $4 }' "$runs" | median; }
for k in $cores; do
  for shape in contexts threads; do
    for timers in steady wheel; do
      record "W12_chat_$shape" "$([ $timers = wheel ] && echo wheel_timer || echo steady_timer)" "$k" \
        cpu_us_per_message "$(chat_median "$k" "${shape}_$timers")"
    done
    record "W12_chat_$shape" wheel_to_steady "$k" ratio \
      "$(round_ratios "$runs" "$k" "${shape}_wheel" "${shape}_steady" | median)"
  done
done
chat() { pick_measurement "$@" < "$records"; }

# --- the table ------------------------------------------------------------------------------
fmt() { case $1 in -) printf '-' ;; *) awk -v v="$1" -v d="${2:-1}" 'BEGIN { printf "%.*f", d, v }' ;; esac; }
{
  echo "#### W12 cores: W1 churn and the chat server's CPU per message, K cores in two shapes"
  echo
  echo "Machine: $hardware cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1);" \
    "load average after the run: $(cut -d' ' -f1-3 /proc/loadavg). Revision $(revision)."
  echo
  echo "| K | shape | W1 steady_timer CPU ns per re-arm | W1 wheel_timer | W1 wheel : steady_timer | W1 wheel K : 1 | read floor K : 1 | chat steady_timer CPU us per message | chat wheel_timer | chat wheel : steady_timer |"
  echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"
  for k in $cores; do
    for shape in contexts threads; do
      w=W12_contexts
      [ "$shape" = contexts ] || w=W12_shared
      # At K = 1 the shapes are the same server: the flag says which row is which.
      flag=
      [ "$k" -ne 1 ] || flag=" (--$shape 1)"
      printf '| %s | %s%s%s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$k" "$(shape_label "$shape" "$k")" "$flag" "$(over "$k")" \
        "$(fmt "$(churn $w steady_timer "$k" cpu_ns_per_rearm)")" \
        "$(fmt "$(churn $w wheel_timer "$k" cpu_ns_per_rearm)")" \
        "$(fmt "$(churn $w wheel_to_steady "$k" ratio)" 3)" \
        "$(fmt "$(churn $w wheel_scaling "$k" ratio)" 3)" \
        "$(fmt "$(churn W12 read_floor_scaling "$k" ratio)" 3)" \
        "$(fmt "$(chat "W12_chat_$shape" steady_timer "$k" cpu_us_per_message)" 2)" \
        "$(fmt "$(chat "W12_chat_$shape" wheel_timer "$k" cpu_us_per_message)" 2)" \
        "$(fmt "$(chat "W12_chat_$shape" wheel_to_steady "$k" ratio)" 3)"
    done
  done
  echo
  note() { grep "\"key\":\"$1\"" "$tmp/cores.json" | sed 's/.*"value":"\([^"]*\)".*/\1/' | head -n 1; }
  echo "W1: each of K threads re-arms its own $(note timers_per_thread) timers (one context per thread, or all in one"
  echo "context polled by the K threads), the threads' CPU summed per re-arm, median of $(note reps); K : 1 is"
  echo "the figure at K over the same shape's at 1, the read floor's (each thread reading and"
  echo "storing its own timer-sized objects) beside it. Chat: the server's CPU (all its threads) per"
  echo "PING answered, median of the rounds; the load client is one more thread on the same cores."
  echo "Every ratio is the median of the repetitions' (rounds') own ratios, taken in one run."
  echo
  echo "| verdict | budget | measured | limit |"
  echo "|---|---|---:|---:|"
  grep '"kind":"budget"' "$tmp/cores.json" \
    | sed 's/.*"budget":"\([^"]*\)","measured":\([^,]*\),"limit":\([^,]*\),"verdict":"\([^"]*\)","detail":"\([^"]*\)".*/\4|\1|\2|\3|\5/' \
    | awk -F'|' '{ printf "| %s | %s%s | %.3g | %.3g |\n", $1, $2, ($5 == "" ? "" : " (" $5 ")"), $3, $4 }'
  echo
} > "$out_dir/w12_cores_summary.md"
say ""
tee -a "$text" < "$out_dir/w12_cores_summary.md"
write_report "$records" w12_cores "$json"
