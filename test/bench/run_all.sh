#!/bin/sh
#
# test/bench/run_all.sh BUILD_DIR OUT_DIR
#
# Runs every benchmark of test/bench (W1-W13) at full size, merges their
# JSON reports into OUT_DIR/results.json together with a description of the
# machine, writes and prints OUT_DIR/summary.md (the verdicts and the tables
# of doc/benchmarks.md, including the budgets that compare programs: the wheel
# against libevent, which lives in a separate executable), writes the summary
# into doc/benchmarks.md between its two markers and the results beside it
# (doc/benchmarks/results.json), and renders the plots into doc/benchmarks/
# with plot.sh.
#
# BUILD_DIR is configured (Release, -O2 -DNDEBUG) if it has no CMakeCache.txt
# yet; the benchmark targets are (re)built either way, and only they. Needs
# cmake, ninja, Boost 1.81; libev-dev and libevent-dev for the C peers
# (skipped if absent); gnuplot for the plots (skipped if absent); valgrind for
# the budgets held by instructions (doc/benchmarks.md#budgets: W8's CPU and
# pairs, W9's 5 % and its stream's pair: callgrind_op_timeouts.sh,
# callgrind_stream_pairs.sh, callgrind_http.sh; skipped, and their rows n/a, if
# absent). The runs take
# about 4 minutes on a 2-core machine (W8's two programs about 80 s of it,
# W7's five runs about a minute), plus about 10 minutes for W10
# (bench_steady_fleet: 9 cells x 4 sides x (2 s warm-up + 5 s window), the
# sparse cells' 4 further runs of 2 sides, and the 1M fleets' arming), plus
# about 8 minutes for W9 (http_wrk.sh, the HTTP keep-alive example under
# wrk; skipped when wrk is not installed or the examples are turned off),
# plus about 3 minutes under callgrind, plus about 15 minutes for W11
# (websocket_w11.sh, the WebSocket chat example at 10k and 100k connections,
# half of it under callgrind; skipped when the examples are turned off; its
# server is built in BUILD_DIR/websocket_w11 against the Boost 1.90 Asio,
# Beast and Core trees of scripts/asio-trees when they are there, for a Beast
# (1.82 or later) that routes the websocket's own timer), plus about 3 minutes
# for W12 (w12_cores.sh: W1 and the keepalive chat server on W12_CORES cores, in
# the two shapes; skipped when the examples are turned off); longer with a fresh
# build. W8 runs
# with --share-sockets: where
# the open-file limit cannot be raised to N, it puts several reads on each
# socket and says so in its table (column "reads per socket").
#
# shellcheck source=bench_support.sh
. "$(dirname "$0")/bench_support.sh"

[ $# -eq 2 ] || usage "BUILD_DIR OUT_DIR"
build_dir=$1
out_dir=$2
# An entry PROGRAM:T runs PROGRAM with --threads T (W3 and W6 with 2 threads),
# its report going to PROGRAM_T_threads.json.
programs="bench_churn bench_churn_libev bench_churn_libevent bench_clock_reads bench_storm bench_storm:2 bench_idle_fleet bench_memory bench_fairness bench_fairness:2 bench_threads bench_threads_locks bench_op_timeouts bench_op_timeouts_newer_asio bench_steady_fleet"

configure_if_new "$build_dir"
# Build only the benchmark targets; the C peers exist only when CMake found
# their library (test/bench/CMakeLists.txt).
cache=$build_dir/CMakeCache.txt
if grep -q '^ASIO_WHEEL_BUILD_BENCHMARKS:BOOL=OFF' "$cache" \
    || grep -q '^ASIO_WHEEL_BUILD_TESTS:BOOL=OFF' "$cache"; then
  echo "$build_dir has the benchmarks (or the test tree) turned off" >&2
  exit 1
fi
found() { grep "^$1:" "$cache" | grep -qv NOTFOUND; }
targets="bench_churn bench_clock_reads bench_storm bench_idle_fleet bench_memory bench_fairness bench_threads bench_threads_locks bench_op_timeouts bench_steady_fleet bench_stream_pairs"
if found ASIO_WHEEL_LIBEV_LIBRARY && found ASIO_WHEEL_LIBEV_INCLUDE_DIR; then
  targets="$targets bench_churn_libev"
fi
if found ASIO_WHEEL_LIBEVENT_LIBRARY && found ASIO_WHEEL_LIBEVENT_INCLUDE_DIR; then
  targets="$targets bench_churn_libevent"
fi
# W8 against a Boost.Asio that has asio::cancel_after (test/bench/CMakeLists.txt).
if grep -q '^ASIO_WHEEL_BENCH_NEWER_ASIO_INCLUDE_DIR:[^=]*=.' "$cache"; then
  targets="$targets bench_op_timeouts_newer_asio"
fi
# W13, the condition-variable idiom (parked.cpp); and, against the newer Boost.Asio,
# W1, W3, W5, W10 and W13 beside the tuned steady_timer (timer.heap_reserve=N,
# reactor.use_timerfd=0: test/bench/CMakeLists.txt), about 15 minutes more.
targets="$targets bench_parked"
programs="$programs bench_parked"
if grep -q '^ASIO_WHEEL_BENCH_NEWER_ASIO_INCLUDE_DIR:[^=]*=.' "$cache"; then
  for p in churn storm memory steady_fleet parked; do
    targets="$targets bench_${p}_newer_asio"
    programs="$programs bench_${p}_newer_asio"
  done
fi
# shellcheck disable=SC2086
cmake --build "$build_dir" --parallel 2 --target $targets

mkdir -p "$out_dir"
bench_dir=$build_dir/test/bench
start=$(date +%s)
# The report name of an entry: PROGRAM, or PROGRAM_T_threads for PROGRAM:T.
report_name() { case $1 in *:*) echo "${1%%:*}_${1#*:}_threads" ;; *) echo "$1" ;; esac; }
for entry in $programs; do
  p=${entry%%:*}
  name=$(report_name "$entry")
  if [ ! -x "$bench_dir/$p" ]; then
    echo "== $name: not built, skipped"
    rm -f "$out_dir/$name.json"
    continue
  fi
  echo "== $name"
  case $entry in
    bench_op_timeouts*) extra=--share-sockets ;;
    *:*) extra="--threads ${entry#*:}" ;;
    *) extra= ;;
  esac
  # shellcheck disable=SC2086
  "$bench_dir/$p" $extra --json "$out_dir/$name.json" | tee "$out_dir/$name.txt"
  echo
done
# W9: the HTTP keep-alive example under wrk, a script of its own that builds
# its programs and writes http_wrk.json and http_wrk_summary.md.
if grep -q '^ASIO_WHEEL_BUILD_EXAMPLES:BOOL=OFF' "$cache"; then
  echo "== http_wrk (W9): $build_dir has the examples turned off, skipped"
  rm -f "$out_dir/http_wrk.json" "$out_dir/http_wrk_summary.md"
elif command -v wrk >/dev/null 2>&1; then
  echo "== http_wrk (W9)"
  "$script_dir/http_wrk.sh" "$build_dir" "$out_dir"
  echo
else
  echo "== http_wrk (W9): wrk not found (Debian: wrk; scripts/install-deps --bench), skipped"
  rm -f "$out_dir/http_wrk.json" "$out_dir/http_wrk_summary.md"
fi
# W11: the WebSocket chat example, a script of its own (its CPU, memory and callgrind
# parts) on a build of its own, BUILD_DIR/websocket_w11 (websocket_w11.sh configures it
# against Beast 1.90 when the trees are there); writes websocket_w11.json and
# websocket_w11_summary.md.
if grep -q '^ASIO_WHEEL_BUILD_EXAMPLES:BOOL=OFF' "$cache"; then
  echo "== websocket_w11 (W11): $build_dir has the examples turned off, skipped"
  rm -f "$out_dir/websocket_w11.json" "$out_dir/websocket_w11_summary.md"
else
  echo "== websocket_w11 (W11)"
  "$script_dir/websocket_w11.sh" "$build_dir/websocket_w11" "$out_dir"
  echo
fi
# W12: W1 and the keepalive chat server's CPU per message on W12_CORES cores (default
# "1 2"), one context per core and one context run by K threads: a script of its own
# (bench_cores, the chat server and its client); writes w12_cores.json and
# w12_cores_summary.md.
if grep -q '^ASIO_WHEEL_BUILD_EXAMPLES:BOOL=OFF' "$cache"; then
  echo "== w12_cores (W12): $build_dir has the examples turned off, skipped"
  rm -f "$out_dir/w12_cores.json" "$out_dir/w12_cores_summary.md"
else
  echo "== w12_cores (W12)"
  "$script_dir/w12_cores.sh" "$build_dir" "$out_dir"
  echo
fi
# The budgets held by instructions (doc/benchmarks.md#budgets), under callgrind: W8's
# (each W8 program), the Beast stream's pair (W8, W9) and W9's 5 % (the HTTP example).
# Each script writes a JSON report of its budgets, merged below as the programs' are.
callgrind_reports="callgrind_op_timeouts callgrind_op_timeouts_newer_asio callgrind_stream_pairs callgrind_http"
for name in $callgrind_reports; do rm -f "$out_dir/$name.json"; done
if command -v valgrind >/dev/null 2>&1; then
  for p in bench_op_timeouts bench_op_timeouts_newer_asio; do
    [ -x "$bench_dir/$p" ] || continue
    name=callgrind_${p#bench_}
    echo "== $name (W8 by instructions)"
    "$script_dir/callgrind_op_timeouts.sh" "$bench_dir/$p" "$out_dir/$name"
    cp "$out_dir/$name/callgrind_op_timeouts.json" "$out_dir/$name.json"
    echo
  done
  echo "== callgrind_stream_pairs (the Beast stream's pair by instructions)"
  "$script_dir/callgrind_stream_pairs.sh" "$bench_dir/bench_stream_pairs" "$out_dir/callgrind_stream_pairs"
  cp "$out_dir/callgrind_stream_pairs/callgrind_stream_pairs.json" "$out_dir/"
  echo
  if ! grep -q '^ASIO_WHEEL_BUILD_EXAMPLES:BOOL=OFF' "$cache" && command -v wrk >/dev/null 2>&1; then
    echo "== callgrind_http (W9 by instructions)"
    "$script_dir/callgrind_http.sh" "$build_dir" "$out_dir/callgrind_http"
    cp "$out_dir/callgrind_http/callgrind_http.json" "$out_dir/"
    echo
  else
    echo "== callgrind_http (W9 by instructions): no examples or no wrk, skipped"
  fi
else
  echo "== callgrind (W8, W9 by instructions): valgrind not found (Debian: valgrind), skipped"
fi
elapsed=$(( $(date +%s) - start ))

# --- the machine and the merged JSON -------------------------------------
json_string() { printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g'; }
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
cores=$(nproc)
kernel=$(uname -sr)
compiler=$(sed -n 's/^CMAKE_CXX_COMPILER:[^=]*=//p' "$build_dir/CMakeCache.txt")
compiler_version=$("${compiler:-c++}" --version | head -n 1)
boost_version=$(sed -n 's/^#define BOOST_LIB_VERSION "\(.*\)"/\1/p' /usr/include/boost/version.hpp 2>/dev/null || true)
load=$(cut -d' ' -f1-3 /proc/loadavg)
revision=$(revision)
# merge: every report of the run (and run_all.json, the budgets that compare two programs'
# figures, once written below) into results.json.
run_date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
merge() {
  {
    printf '{"machine":{"cpu":"%s","cores":%s,"kernel":"%s","compiler":"%s","boost":"%s","load_average_after":"%s"},\n' \
      "$(json_string "$cpu")" "$cores" "$(json_string "$kernel")" \
      "$(json_string "$compiler_version")" "$boost_version" "$load"
    printf '"revision":"%s","date":"%s","run_seconds":%s,\n"programs":[\n' \
      "$revision" "$run_date" "$elapsed"
    first=1
    for entry in $programs http_wrk websocket_w11 w12_cores $callgrind_reports run_all; do
      name=$(report_name "$entry")
      [ -f "$out_dir/$name.json" ] || continue
      [ $first -eq 1 ] || printf ',\n'
      first=0
      cat "$out_dir/$name.json"
    done
    printf ']}\n'
  } > "$out_dir/results.json"
}
rm -f "$out_dir/run_all.json"
merge

# --- the tables of doc/benchmarks.md ---------------------------------------
# Every measurement is one line of results.json; value() picks one figure
# ("-" when it was not measured), fmt() rounds it for the table.
value() { pick_measurement "$@" < "$out_dir/results.json"; } # workload impl n metric
fmt() { # value [decimals]
  case $1 in -) printf '-' ;; *) awk -v v="$1" -v d="${2:-1}" 'BEGIN { printf "%.*f", d, v }' ;; esac
}
label() { case $1 in 1000) echo 1k ;; 10000) echo 10k ;; 100000) echo 100k ;; 1000000) echo 1M ;; *) echo "$1" ;; esac; }
# The budgets that compare two programs' figures (the wheel against libevent and libev, which
# live in programs of their own; the Beast stream's lone pair against a steady_timer per
# operation, from two callgrind scripts): budget records of run_all.json, merged into
# results.json with the programs' own, so that every verdict row comes from the results file.
# budget_record WORKLOAD BUDGET MEASURED LIMIT VERDICT
budget_record() {
  printf '{"kind":"budget","program":"run_all","workload":"%s","budget":"%s","measured":%s,"limit":%s,"verdict":"%s","detail":"","smoke":false}' \
    "$1" "$2" "$3" "$4" "$5"
}
# ratio_budget WORKLOAD BUDGET A B [at_most]: A / B, a pass below 1 (at 1 too with at_most);
# nothing when either was not measured.
ratio_budget() {
  [ "$3" != - ] && [ "$4" != - ] || return 0
  r=$(awk -v a="$3" -v b="$4" 'BEGIN { printf "%.6g", a / b }')
  budget_record "$1" "$2" "$r" 1 "$(awk -v a="$3" -v b="$4" -v le="${5:+1}" \
    'BEGIN { print (a < b || (le && a == b) ? "PASS" : "MISS") }')"
  echo
}
steady_lone=$(grep '"program":"callgrind_op_timeouts"' "$out_dir/results.json" \
  | pick_measurement W8 steady_timer 0 pair_instructions)
{
  for n in 100000 1000000; do
    ratio_budget W2 "W2 wheel extend_after : libevent common-timeout re-add at N=$(label $n)" \
      "$(value W2 wheel_extend $n ns_per_rearm)" "$(value W1 libevent $n ns_per_rearm)"
  done
  for n in 1000 100000 1000000; do
    ratio_budget W2 "W2 goal: wheel extend_after : libev ev_timer_again at N=$(label $n)" \
      "$(value W2 wheel_extend $n ns_per_rearm)" "$(value W1 libev $n ns_per_rearm)"
  done
  # At most a steady_timer per operation: a pass at 1 too.
  for way in wheel_plain wheel_bound; do
    ratio_budget W8 "W8 Beast stream ($way) lone pair : steady_timer per operation, lone, instructions" \
      "$(value W9 $way 0 pair_instructions)" "$steady_lone" at_most
  done
} | sed '$!s/$/,/' | { printf '{"program":"run_all","records":[\n'; cat; printf ']}\n'; } > "$out_dir/run_all.json"
merge

# verdicts: the table of every budget record of the run, then a row for each budget that
# could not be measured here.
verdicts() {
  echo "#### Verdicts"
  echo
  echo "| verdict | budget | measured | limit |"
  echo "|---|---|---:|---:|"
  grep '"kind":"budget"' "$out_dir/results.json" | grep '"smoke":false' \
    | sed 's/.*"budget":"\([^"]*\)","measured":\([^,]*\),"limit":\([^,]*\),"verdict":"\([^"]*\)".*/\4|\1|\2|\3/' \
    | awk -F'|' '{ printf "| %s | %s | %.3g | %.3g |\n", $1, $2, $3, $4 }'
  [ "$(value W1 libevent 100000 ns_per_rearm)" != - ] \
    || echo "| n/a | W2 wheel extend_after : libevent re-add (libevent not run) | - | < 1 |"
  [ "$(value W1 libev 100000 ns_per_rearm)" != - ] \
    || echo "| n/a | W2 goal: wheel extend_after : libev ev_timer_again (libev not run) | - | < 1 |"
  # A budget held by instructions whose script did not run is shown, not left out.
  for name in $callgrind_reports; do
    [ -f "$out_dir/$name.json" ] || echo "| n/a | the budgets of the callgrind report $name (not made: no valgrind, wrk, examples or program) | - | - |"
  done
  echo
}
{
  echo "Machine: $cpu, $cores cores, $kernel, $compiler_version, Boost $boost_version;"
  echo "load average after the run: $load (the machine is shared). Revision $revision, $(date -u +%Y-%m-%d)."
  echo "Benchmarks ran for ${elapsed} s."
  echo
  verdicts
  echo "#### W1 churn and W2 idle refresh: CPU ns per re-arm (median of 3 x 1M re-arms)"
  echo
  echo "| N | steady_timer W1 | wheel_timer W1 | steady_timer idiom W2 (store of the input's time) | wheel_timer W2 (extend_after) | wheel_timer W2 (reschedule_after) | libev ev_timer_again | libevent common timeout | floor | read floor | prefetched read floor | locked store | idiom W2, connection read first | extend_after, connection read first | reschedule_after, connection read first |"
  echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for n in 1000 100000 1000000; do
    printf '| %s' "$(label $n)"
    for pair in "W1 steady_timer" "W1 wheel_timer" "W2 steady_idiom" "W2 wheel_extend" "W2 wheel_timer" "W1 libev" "W1 libevent" "W2 floor" "W2 read_floor" "W2 prefetched_read_floor" "W2 locked_store" "W2 warm_steady_idiom" "W2 warm_wheel_extend" "W2 warm_wheel_timer"; do
      # shellcheck disable=SC2086
      printf ' | %s' "$(fmt "$(value $pair $n ns_per_rearm)")"
    done
    printf ' |\n'
  done
  echo
  echo "The clock read of a refresh (bench_clock_reads, CPU ns per read, median of 3 x 20M):"
  echo "steady_clock::now() $(fmt "$(value W2 steady_clock_now 0 ns_per_read)"),"
  echo "CLOCK_MONOTONIC_COARSE $(fmt "$(value W2 monotonic_coarse 0 ns_per_read)"),"
  echo "RDTSC alone $(fmt "$(value W2 rdtsc 0 ns_per_read)")."
  echo "CLOCK_MONOTONIC_COARSE lags CLOCK_MONOTONIC by up to $(fmt "$(value W2 monotonic_coarse 0 lag_max_ms)" 3) ms"
  echo "(p99.9 $(fmt "$(value W2 monotonic_coarse 0 lag_p999_ms)" 3) ms, resolution $(fmt "$(value W2 monotonic_coarse 0 resolution_ms)" 3) ms;"
  echo "$(awk -v v="$(value W2 monotonic_coarse 0 lag_over_tick_share)" 'BEGIN { if (v == "-") print "-"; else printf "%.1f", 100 * v }') % of read pairs lag more than the wheel's 1 ms tick)."
  echo "libev's ev_timer_again after $(grep '"key":"stale_refresh_busy_ms"' "$out_dir/results.json" | sed 's/.*"value":"\([^"]*\)".*/\1/') ms"
  echo "without the loop running: a $(grep '"key":"stale_refresh_timeout_ms"' "$out_dir/results.json" | sed 's/.*"value":"\([^"]*\)".*/\1/') ms timeout"
  echo "fired $(fmt "$(value W2 libev_stale_refresh 1 early_ms)") ms early."
  echo
  echo "#### W3 storm: N expiries spread evenly over 1 s (median of 3 runs)"
  echo
  echo "| N | implementation | CPU ms | early | p50 lateness ms | p99 lateness ms | max lateness ms | late runs | longest late run ms |"
  echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|"
  for n in 100000 1000000; do
    for impl in steady_timer wheel_timer; do
      printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$(label $n)" "$impl" \
        "$(fmt "$(value W3 $impl $n cpu_ms)")" "$(fmt "$(value W3 $impl $n early)" 0)" \
        "$(fmt "$(value W3 $impl $n lateness_p50_ms)" 3)" \
        "$(fmt "$(value W3 $impl $n lateness_p99_ms)" 3)" \
        "$(fmt "$(value W3 $impl $n lateness_max_ms)" 3)" \
        "$(fmt "$(value W3 $impl $n late_runs)" 0)" \
        "$(fmt "$(value W3 $impl $n longest_late_run_ms)" 2)"
    done
  done
  echo
  echo "Late runs: runs of consecutive expiries (in expiry order) later than tick + 1 ms;"
  echo "the longest one's length is the span of expiries it covers."
  echo "This machine's own event-loop wakeup latency (1000 x 1 ms steady_timer waits):" \
    "p50 $(fmt "$(value W3 loop_wakeup_reference 1000 lateness_p50_ms)" 3) ms," \
    "p99 $(fmt "$(value W3 loop_wakeup_reference 1000 lateness_p99_ms)" 3) ms," \
    "max $(fmt "$(value W3 loop_wakeup_reference 1000 lateness_max_ms)" 3) ms."
  echo
  echo "#### W4 idle fleet: 100k waits at 30 s, no traffic, watched for 2 s"
  echo
  echo "| implementation | event-loop wakeups | CPU ms | wheel wakeups |"
  echo "|---|---:|---:|---:|"
  for impl in steady_timer wheel_timer; do
    printf '| %s | %s | %s | %s |\n' "$impl" \
      "$(fmt "$(value W4 $impl 100000 loop_wakeups)" 0)" "$(fmt "$(value W4 $impl 100000 cpu_ms)" 3)" \
      "$(fmt "$(value W4 $impl 100000 wakeups)" 0)"
  done
  echo
  echo "#### W5 memory: bytes per timer with one pending wait"
  echo
  echo "| N | implementation | sizeof(timer) | heap bytes per timer | total bytes per timer |"
  echo "|---:|---|---:|---:|---:|"
  for n in 1000 100000 1000000; do
    for impl in steady_timer wheel_timer; do
      printf '| %s | %s | %s | %s | %s |\n' "$(label $n)" "$impl" \
        "$(fmt "$(value W5 $impl $n sizeof_timer)" 0)" \
        "$(fmt "$(value W5 $impl $n heap_bytes_per_timer)")" \
        "$(fmt "$(value W5 $impl $n bytes_per_timer)")"
    done
  done
  echo
  echo "wheel_timer_service's own fixed memory with default options (created on a fresh io_context):"
  echo "$(fmt "$(value W5 wheel_timer_service 0 fixed_bytes)" 0) bytes."
  echo
  echo "#### W6 fairness: 100k waits expire in one tick during a TCP ping-pong (median of 5 runs)"
  echo
  echo "W6_cascade: the same storm, the wheel's waits moving down a level in the storm's tick."
  echo
  echo "| workload | implementation | worst RTT us | worst RTT in the storm us | median RTT before us | most loop CPU within one round trip us | storm ms |"
  echo "|---|---|---:|---:|---:|---:|---:|"
  for w in W6 W6_cascade; do
    for impl in steady_timer wheel_timer; do
      printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$w" "$impl" \
        "$(fmt "$(value $w $impl 100000 worst_rtt_us)")" \
        "$(fmt "$(value $w $impl 100000 worst_rtt_in_storm_us)")" \
        "$(fmt "$(value $w $impl 100000 median_rtt_before_storm_us)")" \
        "$(fmt "$(value $w $impl 100000 worst_rtt_cpu_us)")" \
        "$(fmt "$(value $w $impl 100000 storm_ms)" 2)"
    done
  done
  echo
  echo "#### W3 and W6 with 2 threads in run() (default concurrency hint)"
  echo
  echo "| workload | N | implementation | CPU ms | p99 lateness ms | worst RTT us | storm ms |"
  echo "|---|---:|---|---:|---:|---:|---:|"
  for n in 100000 1000000; do
    for impl in steady_timer wheel_timer; do
      printf '| W3 | %s | %s | %s | %s | - | - |\n' "$(label $n)" "$impl" \
        "$(fmt "$(value W3_2threads $impl $n cpu_ms)")" \
        "$(fmt "$(value W3_2threads $impl $n lateness_p99_ms)" 3)"
    done
  done
  for impl in steady_timer wheel_timer; do
    printf '| W6 | 100k | %s | - | - | %s | %s |\n' "$impl" \
      "$(fmt "$(value W6_2threads $impl 100000 worst_rtt_us)")" \
      "$(fmt "$(value W6_2threads $impl 100000 storm_ms)" 2)"
  done
  echo
  echo "#### W7 threads: W1 and W2 with 2 threads each re-arming its own half of 100k timers (5 runs of 3 x 1M re-arms; the verdict is the median of the runs' ratios)"
  echo
  echo "| run | CPU ns per re-arm | wall ns per re-arm | lock acquisitions per re-arm | lock wait ns per re-arm |"
  echo "|---|---:|---:|---:|---:|"
  for run in "steady_timer W1" "wheel_timer W1" "wheel_timer W2"; do
    impl=${run% *}
    wl=${run#* }
    printf '| %s | %s | %s | %s | %s |\n' "$run" \
      "$(fmt "$(value W7 "$impl" 100000 "${wl}_cpu_ns_per_rearm")")" \
      "$(fmt "$(value W7 "$impl" 100000 "${wl}_wall_ns_per_rearm")")" \
      "$(fmt "$(value W7 "${impl}_$wl" 100000 lock_acquisitions_per_rearm)" 3)" \
      "$(fmt "$(value W7 "${impl}_$wl" 100000 lock_wait_ns_per_rearm)" 2)"
  done
  echo
  echo "CPU and wall times from bench_threads; lock counts from bench_threads_locks (a separate run"
  echo "with counting locks, see test/bench/threads.cpp)."
  echo
  echo "#### W8 operation timeouts: N pending async_read_some on loopback TCP with a 30 s timeout, re-issued (median of 9 x 20k re-issues)"
  echo
  echo "| Asio | N | reads per socket | timeout | CPU ns per re-issue | timeout's own CPU ns | bytes per pending op | timeout's own bytes |"
  echo "|---|---:|---:|---|---:|---:|---:|---:|"
  for prog in op_timeouts op_timeouts_newer_asio; do
    records=$(grep "\"program\":\"$prog\"" "$out_dir/results.json" || true)
    [ -n "$records" ] || continue
    asio=$(printf '%s\n' "$records" | grep '"key":"asio_version"' \
      | sed 's/.*"value":"Boost.Asio \([^"]*\)".*/\1/' | head -n 1)
    for n in 10000 100000; do
      for impl in asio_wheel_cancel_after steady_timer_per_op asio_cancel_after no_timeout; do
        w8() { # metric
          v=$(printf '%s\n' "$records" | grep '"kind":"measurement"' | grep "\"impl\":\"$impl\"" \
            | grep "\"n\":$n," | grep "\"metric\":\"$1\"" \
            | sed 's/.*"value":\([^,}]*\).*/\1/' | head -n 1)
          printf '%s' "${v:--}"
        }
        cpu=$(w8 ns_per_reissue)
        [ "$cpu" != - ] || continue
        printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$asio" "$(label $n)" \
          "$(fmt "$(w8 reads_per_socket)" 0)" "$impl" "$(fmt "$cpu" 0)" \
          "$(fmt "$(w8 timeout_ns_per_reissue)" 0)" "$(fmt "$(w8 bytes_per_op)" 0)" \
          "$(fmt "$(w8 timeout_bytes_per_op)" 0)"
      done
    done
  done
  echo
  echo "#### W10 steady fleet: N idle timeouts of T spread evenly over the next T, each re-armed with expires_after(T) from its handler (5 s window after 2 s of warm-up)"
  echo
  echo "| N | T | implementation | CPU ms per s | CPU : steady_timer's | event-loop wakeups per s | wheel wakeups per s | expiries in the window (expected) | p99 lateness ms | max lateness ms | touches per arm |"
  echo "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
  for t in 30s 5min 1h; do
    for n in 10000 100000 1000000; do
      for impl in steady_timer steady_idiom wheel_timer; do
        printf '| %s | %s | %s | %s | %s | %s | %s | %s (%s) | %s | %s | %s |\n' "$(label $n)" "$t" "$impl" \
          "$(fmt "$(value "W10_$t" $impl $n cpu_ms_per_s)" 2)" \
          "$(fmt "$(value "W10_$t" $impl $n cpu_ratio_to_steady)" 3)" \
          "$(fmt "$(value "W10_$t" $impl $n loop_wakeups_per_s)" 0)" \
          "$(fmt "$(value "W10_$t" $impl $n wakeups_per_s)" 0)" \
          "$(fmt "$(value "W10_$t" $impl $n expiries)" 0)" \
          "$(fmt "$(value "W10_$t" $impl $n expected_expiries)" 0)" \
          "$(fmt "$(value "W10_$t" $impl $n lateness_p99_ms)" 3)" \
          "$(fmt "$(value "W10_$t" $impl $n lateness_max_ms)" 3)" \
          "$(fmt "$(value "W10_$t" $impl $n touches_per_arm)" 2)"
      done
    done
  done
  echo
  # w10_ratios TITLE IMPL METRIC: a 3 x 3 table of one ratio, every cell.
  w10_ratios() {
    echo "$1"
    echo
    echo "| N | T = 30 s | T = 5 min | T = 1 h |"
    echo "|---:|---:|---:|---:|"
    for n in 10000 100000 1000000; do
      printf '| %s' "$(label $n)"
      for t in 30s 5min 1h; do
        printf ' | %s' "$(fmt "$(value "W10_$t" "$2" $n "$3")" 3)"
      done
      printf ' |\n'
    done
    echo
  }
  # Each cell's one-run ratio to steady_timer is the table's column; the verdict is the median.
  w10_ratios "wheel_timer : steady_timer CPU per second of real time, in the sparse cells (T / N at least a tick) the median of 5 runs, the verdict (- in the other cells):" \
    wheel_timer cpu_ratio_to_steady_median
  w10_ratios "wheel_timer : steady_timer idiom CPU per second of real time:" wheel_timer cpu_ratio_to_idiom
  echo
  echo "Touches per arm: (round_revisits + lazy_refilings + waits_expired) / waits_expired over the window;"
  echo "the scheme-6 wheel (one level, round counts) revisits an entry every revolution its slot is walked."
  echo "Load average before and after bench_steady_fleet:" \
    "$(grep '"key":"load_average_before"' "$out_dir/results.json" | sed 's/.*"value":"\([^"]*\)".*/\1/' | head -n 1)," \
    "$(grep '"key":"load_average_after"' "$out_dir/results.json" | sed 's/.*"value":"\([^"]*\)".*/\1/' | head -n 1)."
  echo
  if [ -f "$out_dir/http_wrk_summary.md" ]; then
    # W9's tables without its own budget table (the rows are in the one below).
    sed '/^| verdict |/,$d' "$out_dir/http_wrk_summary.md"
  fi
  if [ -f "$out_dir/websocket_w11_summary.md" ]; then
    # W11's tables without its own budget table (the rows are in the one below).
    sed '/^| verdict |/,$d' "$out_dir/websocket_w11_summary.md"
  fi
  if [ -f "$out_dir/w12_cores_summary.md" ]; then
    # W12's table without its own budget table (the rows are in the one below).
    sed '/^| verdict |/,$d' "$out_dir/w12_cores_summary.md"
  fi
  # W13 and the tuned peer (the *_newer_asio programs): their own tables.
  echo "#### W13 the condition-variable idiom: N timers parked at time_point::max(), one cancel() of a random one per event, its handler parking it again (median of 3 x 1M events)"
  echo
  echo "| Asio | N | implementation | CPU ns per event | CPU : steady_timer's | bytes per parked timer | bytes : steady_timer's |"
  echo "|---|---:|---|---:|---:|---:|---:|"
  for prog in parked parked_newer_asio; do
    records=$(grep "\"program\":\"$prog\"" "$out_dir/results.json" || true)
    [ -n "$records" ] || continue
    asio=$(printf '%s\n' "$records" | grep '"key":"asio_version"' \
      | sed 's/.*"value":"Boost.Asio \([^"]*\)".*/\1/' | head -n 1)
    for n in 10000 100000; do
      steady_ns=$(printf '%s\n' "$records" | pick_measurement W13 steady_timer $n ns_per_event)
      steady_b=$(printf '%s\n' "$records" | pick_measurement W13 steady_timer $n bytes_per_timer)
      for impl in steady_timer steady_timer_tuned wheel_timer; do
        ns=$(printf '%s\n' "$records" | pick_measurement W13 $impl $n ns_per_event)
        [ "$ns" != - ] || continue
        b=$(printf '%s\n' "$records" | pick_measurement W13 $impl $n bytes_per_timer)
        printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$asio" "$(label $n)" "$impl" "$(fmt "$ns")" \
          "$(awk -v a="$ns" -v b="$steady_ns" 'BEGIN { printf "%.3f", a / b }')" "$(fmt "$b")" \
          "$(awk -v a="$b" -v b="$steady_b" 'BEGIN { printf "%.3f", a / b }')"
      done
    done
  done
  echo
  if grep -q '"program":"[a-z_]*_newer_asio".*"key":"tuned_peer"' "$out_dir/results.json"; then
    tuned_label=$(grep '"key":"tuned_peer"' "$out_dir/results.json" | sed 's/.*"value":"\([^"]*\)".*/\1/' | head -n 1)
    echo "#### The peer at its best: the wheel against steady_timer tuned ($tuned_label), Boost.Asio of the newer tree"
    echo
    echo "| workload | N | steady_timer | steady_timer tuned | wheel_timer | wheel : steady_timer | wheel : tuned |"
    echo "|---|---:|---:|---:|---:|---:|---:|"
    # tuned_row PROGRAM WORKLOAD N METRIC TITLE. Its variables are plain ones (POSIX sh):
    # named tuned_*, so that they clobber no caller's (W10's loop variable t did).
    tuned_row() {
      tuned_records=$(grep "\"program\":\"$1\"" "$out_dir/results.json" || true)
      tuned_s=$(printf '%s\n' "$tuned_records" | pick_measurement "$2" steady_timer "$3" "$4")
      tuned_t=$(printf '%s\n' "$tuned_records" | pick_measurement "$2" steady_timer_tuned "$3" "$4")
      tuned_w=$(printf '%s\n' "$tuned_records" | pick_measurement "$2" wheel_timer "$3" "$4")
      [ "$tuned_s" != - ] && [ "$tuned_t" != - ] && [ "$tuned_w" != - ] || return 0
      printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$5" "$(label "$3")" \
        "$(fmt "$tuned_s")" "$(fmt "$tuned_t")" "$(fmt "$tuned_w")" \
        "$(awk -v a="$tuned_w" -v b="$tuned_s" 'BEGIN { printf "%.3f", a / b }')" \
        "$(awk -v a="$tuned_w" -v b="$tuned_t" 'BEGIN { printf "%.3f", a / b }')"
    }
    for n in 1000 100000 1000000; do tuned_row churn_newer_asio W1 $n ns_per_rearm "W1 CPU ns per re-arm"; done
    for n in 100000 1000000; do tuned_row storm_newer_asio W3 $n cpu_ms "W3 CPU ms"; done
    for n in 1000 100000 1000000; do tuned_row memory_newer_asio W5 $n bytes_per_timer "W5 bytes per timer"; done
    for t in 30s 5min 1h; do
      for n in 10000 100000 1000000; do tuned_row steady_fleet_newer_asio "W10_$t" $n cpu_ms_per_s "W10 T=$t CPU ms per s"; done
    done
    for n in 10000 100000; do tuned_row parked_newer_asio W13 $n ns_per_event "W13 CPU ns per event"; done
    echo
  fi
  failed=$(grep -c '"kind":"check_failed"' "$out_dir/results.json" || true)
  echo
  echo "Correctness checks failed: $failed."
} > "$out_dir/summary.md"
cat "$out_dir/summary.md"

# The page's latest run (doc/benchmarks.md, between its two markers, the summary's headings
# one level up) and the results file beside it (doc/benchmarks/results.json), which
# test/doc/check_figures.py holds the page's figures to.
page=$repo_dir/doc/benchmarks.md
begin='<!-- The latest run: written by test/bench/run_all.sh, do not edit. -->'
end='<!-- End of the latest run. -->'
if grep -qxF "$begin" "$page" && grep -qxF "$end" "$page"; then
  awk -v b="$begin" -v e="$end" -v f="$out_dir/summary.md" '
    $0 == b { print; print ""; while ((getline l < f) > 0) { sub(/^####/, "###", l); print l }; skip = 1; next }
    $0 == e { print ""; skip = 0 }
    !skip' "$page" > "$out_dir/benchmarks.md"
  cp "$out_dir/benchmarks.md" "$page"
  cp "$out_dir/results.json" "$repo_dir/doc/benchmarks/results.json"
  echo "doc/benchmarks.md's latest run and doc/benchmarks/results.json written"
else
  echo "doc/benchmarks.md has not the latest run's markers: the page and its results file left alone"
fi

if command -v gnuplot >/dev/null 2>&1; then
  "$script_dir/plot.sh" "$out_dir/results.json" "$repo_dir/doc/benchmarks"
else
  echo "gnuplot not found (Debian: gnuplot-nox): plots not rendered"
fi

# Budgets are informational; a failed correctness check is not.
[ "$failed" -eq 0 ]
