#!/bin/sh
#
# test/bench/plot.sh RESULTS_JSON PLOT_DIR
#
# Renders the benchmark plots of doc/benchmarks.md from the merged JSON that
# run_all.sh writes, with gnuplot (Debian: gnuplot-nox):
#   churn.png     CPU ns per re-arm against N (log-log), every implementation
#   storm.png     W3: CPU time of the storm and p99 lateness, per N
#   memory.png    W5: bytes per timer with one pending wait, per N
#   fairness.png  W6: the ping-pong's round trips around the storm
#   w10.png       W10: wheel_timer : steady_timer CPU per second of real time in
#                 every cell of the steady fleet (N x T), against the budgets
#   w10_tolerance.png  W10 with a tolerance of T/64: CPU and wakeups against
#                 steady_timer, every cell
#   http.png      W9: the HTTP server's CPU per request in every round, and its bytes
#                 per idle connection (only when the JSON has W9, from http_wrk.sh)
#   w11.png       W11: the WebSocket server's CPU and instructions per message, each way
#                 (only when the JSON has W11, from websocket_w11.sh)
# Each measurement is one line of the JSON (bench_support.hpp writes them so),
# so plain grep/sed extract them; no JSON tool is needed.
#
# shellcheck source=bench_support.sh
. "$(dirname "$0")/bench_support.sh"

[ $# -eq 2 ] || usage "RESULTS_JSON PLOT_DIR"
results=$1
plot_dir=$2
mkdir -p "$plot_dir"
make_tmp
data_dir=$tmp

# value WORKLOAD IMPL N METRIC: the figure of a full-size run, or "-" when not measured.
value() { grep '"smoke":false' "$results" | pick_measurement "$@"; }

# --- data files ------------------------------------------------------------
for n in 1000 100000 1000000; do
  printf '%s %s %s %s %s %s %s %s %s %s\n' "$n" \
    "$(value W1 steady_timer $n ns_per_rearm)" "$(value W1 wheel_timer $n ns_per_rearm)" \
    "$(value W2 wheel_timer $n ns_per_rearm)" "$(value W1 libev $n ns_per_rearm)" \
    "$(value W1 libevent $n ns_per_rearm)" "$(value W2 floor $n ns_per_rearm)" \
    "$(value W2 read_floor $n ns_per_rearm)" "$(value W2 steady_idiom $n ns_per_rearm)" \
    "$(value W2 wheel_extend $n ns_per_rearm)"
done > "$data_dir/churn.dat"

for n in 100000 1000000; do
  case $n in 100000) label=100k ;; *) label=1M ;; esac
  printf '%s %s %s %s %s\n' "$label" \
    "$(value W3 steady_timer $n cpu_ms)" "$(value W3 wheel_timer $n cpu_ms)" \
    "$(value W3 steady_timer $n lateness_p99_ms)" "$(value W3 wheel_timer $n lateness_p99_ms)"
done > "$data_dir/storm.dat"
tick_budget_ms=$(grep '"key":"wheel_tick_ns"' "$results" | head -n 1 \
  | sed 's/.*"value":"\([0-9]*\)".*/\1/' | awk '{ printf "%g", $1 / 1e6 + 1 }')
loop_p99_ms=$(grep '"impl":"loop_wakeup_reference"' "$results" \
  | grep '"metric":"lateness_p99_ms"' | grep '"smoke":false' \
  | sed 's/.*"value":\([^,}]*\).*/\1/' | head -n 1)

for n in 1000 100000 1000000; do
  case $n in 1000) label=1k ;; 100000) label=100k ;; *) label=1M ;; esac
  printf '%s %s %s\n' "$label" \
    "$(value W5 steady_timer $n bytes_per_timer)" "$(value W5 wheel_timer $n bytes_per_timer)"
done > "$data_dir/memory.dat"

printf '"worst RTT" %s %s\n"worst RTT in the storm" %s %s\n"most loop CPU in one RTT" %s %s\n"median RTT before the storm" %s %s\n' \
  "$(value W6 steady_timer 100000 worst_rtt_us)" "$(value W6 wheel_timer 100000 worst_rtt_us)" \
  "$(value W6 steady_timer 100000 worst_rtt_in_storm_us)" "$(value W6 wheel_timer 100000 worst_rtt_in_storm_us)" \
  "$(value W6 steady_timer 100000 worst_rtt_cpu_us)" "$(value W6 wheel_timer 100000 worst_rtt_cpu_us)" \
  "$(value W6 steady_timer 100000 median_rtt_before_storm_us)" "$(value W6 wheel_timer 100000 median_rtt_before_storm_us)" \
  > "$data_dir/fairness.dat"

# --- plots -----------------------------------------------------------------
if grep -q '"workload":"W1".*"smoke":false' "$results"; then
gnuplot <<EOF
set datafile missing "-"
set terminal pngcairo noenhanced size 900,560 font "DejaVu Sans,10"
set grid
set key top left

set output "$plot_dir/churn.png"
set title "W1 churn / W2 idle refresh: CPU ns per re-arm (lower is better)"
set logscale xy
set xlabel "N timers, each with one pending wait"
set ylabel "CPU ns per re-arm"
set xtics ("1k" 1000, "10k" 10000, "100k" 100000, "1M" 1000000)
set xrange [700:1400000]
plot "$data_dir/churn.dat" using 1:2 with linespoints lw 2 title "steady_timer W1 (expires_after + async_wait)", \
     ""                    using 1:3 with linespoints lw 2 title "wheel_timer W1 (expires_after + async_wait)", \
     ""                    using 1:10 with linespoints lw 2 title "wheel_timer W2 (extend_after)", \
     ""                    using 1:4 with linespoints lw 2 title "wheel_timer W2 (reschedule_after)", \
     ""                    using 1:9 with linespoints lw 2 title "steady_timer idiom W2 (store of the input's time)", \
     ""                    using 1:5 with linespoints lw 2 title "libev ev_timer_again", \
     ""                    using 1:6 with linespoints lw 2 title "libevent common timeout re-add", \
     ""                    using 1:7 with linespoints lw 2 dt 2 title "floor: store now()+30s in an array", \
     ""                    using 1:8 with linespoints lw 2 dt 3 title "read floor: read a timer-sized object, store now()+30s"
unset logscale
unset xrange
set xtics autofreq

set key below horizontal
set output "$plot_dir/storm.png"
set multiplot layout 1,2 title "W3 storm: N expiries spread evenly over 1 s, by N"
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set xlabel ""
set title "CPU time of the storm (lower is better)"
set ylabel "CPU ms"
set yrange [0:*]
set xrange [-0.5:1.5]
plot "$data_dir/storm.dat" using 2:xtic(1) title "steady_timer", "" using 3 title "wheel_timer"
set title "p99 lateness (log scale)"
set ylabel "ms"
set logscale y
set yrange [0.05:*]
plot "$data_dir/storm.dat" using 4:xtic(1) title "steady_timer", "" using 5 title "wheel_timer", \
     ${tick_budget_ms:-2} with lines lw 2 dt 2 lc rgb "red" title "budget: tick + 1 ms"$( [ -n "$loop_p99_ms" ] && printf ', \\\n     %s with lines lw 2 dt 3 lc rgb "gray30" title "this machine: event-loop wakeup p99"' "$loop_p99_ms" )
unset logscale
unset multiplot
unset arrow
unset label

set output "$plot_dir/memory.png"
set title "W5 memory: bytes per timer with one pending wait, by N (lower is better)"
set ylabel "bytes per timer"
set yrange [0:*]
set xrange [-0.5:2.5]
plot "$data_dir/memory.dat" using 2:xtic(1) title "steady_timer", \
     "" using 3 title "wheel_timer", \
     "" using (\$0 + 0.17):(\$2 * 2 / 3) with points pt 7 ps 1.5 lc rgb "red" title "budget for the wheel: 2/3 of steady_timer"

set output "$plot_dir/fairness.png"
set title "W6 fairness: 1-byte TCP ping-pong while 100k waits expire at once"
set xlabel ""
set ylabel "microseconds (log)"
set logscale y
set yrange [1:*]
set xrange [-0.5:3.5]
plot "$data_dir/fairness.dat" using 2:xtic(1) title "steady_timer", "" using 3 title "wheel_timer"
EOF
echo "plots written to $plot_dir: churn.png storm.png memory.png fairness.png"
else
  echo "no W1 in $results: churn.png, storm.png, memory.png, fairness.png not written"
fi

# --- W10 (bench_steady_fleet) -------------------------------------------------
if grep -q '"workload":"W10_[^"]*".*"smoke":false' "$results"; then
  for t in 30s 5min 1h; do
    case $t in 30s) label="T = 30 s" ;; 5min) label="T = 5 min" ;; *) label="T = 1 h" ;; esac
    printf '"%s" %s %s %s\n' "$label" \
      "$(value "W10_$t" wheel_timer 10000 cpu_ratio_to_steady)" \
      "$(value "W10_$t" wheel_timer 100000 cpu_ratio_to_steady)" \
      "$(value "W10_$t" wheel_timer 1000000 cpu_ratio_to_steady)"
  done > "$data_dir/w10.dat"
  gnuplot <<EOF
set datafile missing "-"
set terminal pngcairo noenhanced size 900,560 font "DejaVu Sans,10"
set output "$plot_dir/w10.png"
set title "W10 steady fleet: wheel_timer : steady_timer CPU per second of real time (lower is better)"
set grid ytics
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key top left
set ylabel "wheel CPU / steady_timer CPU"
set yrange [0:*]
set xrange [-0.5:2.5]
plot "$data_dir/w10.dat" using 2:xtic(1) title "N = 10k", \
     "" using 3 title "N = 100k", \
     "" using 4 title "N = 1M", \
     1 with lines lw 2 dt 2 lc rgb "red" title "budget: 1:1 in every cell", \
     1.0/3 with lines lw 2 dt 3 lc rgb "gray30" title "budget at 1M x 30 s: 1:3"
EOF
  # With a tolerance of T/64: CPU and event-loop wakeups against steady_timer,
  # on a log scale (the ratios span three decades).
  for t in 30s 5min 1h; do
    case $t in 30s) label="T = 30 s" ;; 5min) label="T = 5 min" ;; *) label="T = 1 h" ;; esac
    printf '"%s" %s %s %s %s %s %s\n' "$label" \
      "$(value "W10_$t" wheel_1/64T 10000 cpu_ratio_to_steady)" \
      "$(value "W10_$t" wheel_1/64T 100000 cpu_ratio_to_steady)" \
      "$(value "W10_$t" wheel_1/64T 1000000 cpu_ratio_to_steady)" \
      "$(value "W10_$t" wheel_1/64T 10000 wakeup_ratio_to_steady)" \
      "$(value "W10_$t" wheel_1/64T 100000 wakeup_ratio_to_steady)" \
      "$(value "W10_$t" wheel_1/64T 1000000 wakeup_ratio_to_steady)"
  done > "$data_dir/w10_tolerance.dat"
  gnuplot <<EOF
set datafile missing "-"
set terminal pngcairo noenhanced size 900,560 font "DejaVu Sans,10"
set output "$plot_dir/w10_tolerance.png"
set title "W10 with a tolerance of T/64: wheel_timer : steady_timer (lower is better; 0 is drawn at 1e-5)"
set grid ytics
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key below maxrows 3
set logscale y
set ylabel "wheel / steady_timer"
set yrange [1e-5:1]
set xrange [-0.5:2.5]
f(x) = x > 1e-5 ? x : 1e-5
plot "$data_dir/w10_tolerance.dat" using (f(\$2)):xtic(1) title "CPU, N = 10k", \
     "" using (f(\$3)) title "CPU, N = 100k", \
     "" using (f(\$4)) title "CPU, N = 1M", \
     "" using (f(\$5)) title "wakeups, N = 10k", \
     "" using (f(\$6)) title "wakeups, N = 100k", \
     "" using (f(\$7)) title "wakeups, N = 1M", \
     0.2 with lines lw 2 dt 2 lc rgb "red" title "budget, CPU: 1:5", \
     0.1 with lines lw 2 dt 3 lc rgb "gray30" title "budget, wakeups: 1:10"
EOF
  echo "plots written to $plot_dir: w10.png w10_tolerance.png"
else
  echo "no W10 in $results: w10.png, w10_tolerance.png not written"
fi

# two_histograms NAME TITLE: the gnuplot lines that start NAME.png, two panels of clustered
# histograms side by side under TITLE (W9's and W11's plots).
two_histograms() {
  cat <<EOF
set datafile missing "-"
set terminal pngcairo noenhanced size 1100,560 font "DejaVu Sans,10"
set output "$plot_dir/$1.png"
set multiplot layout 1,2 title "$2"
set grid ytics
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key below
set yrange [0:*]
EOF
}

# --- W11 (test/bench/websocket_w11.sh) ---------------------------------------
if grep -q '"workload":"W11".*"smoke":false' "$results"; then
  # The sizes measured (10k and 100k by default; fewer where the open-file limit is lower).
  w11_sizes=$(grep '"workload":"W11"' "$results" | grep '"smoke":false' \
    | grep -e '"metric":"cpu_us_per_message_median"' -e '"metric":"instructions_per_message"' \
    | sed 's/.*"n":\([0-9]*\),.*/\1/' | sort -nu)
  for n in $w11_sizes; do
    printf '"%sk connections" %s %s %s %s %s %s %s %s\n' "$((n / 1000))" \
      "$(value W11 wheel $n cpu_us_per_message_median)" \
      "$(value W11 wheel_untimed $n cpu_us_per_message_median)" \
      "$(value W11 beast $n cpu_us_per_message_median)" \
      "$(value W11 off $n cpu_us_per_message_median)" \
      "$(value W11 wheel $n instructions_per_message)" \
      "$(value W11 wheel_untimed $n instructions_per_message)" \
      "$(value W11 beast $n instructions_per_message)" \
      "$(value W11 off $n instructions_per_message)"
  done > "$data_dir/w11.dat"
  gnuplot <<EOF
$(two_histograms w11 "W11: Beast WebSocket chat server, Beast's own timeouts (1 server thread)")
set title "server CPU per message, median of the rounds (lower is better)"
set ylabel "CPU microseconds per message"
plot "$data_dir/w11.dat" using 2:xtic(1) title "routed to the wheel", \
     "" using 3 title "routed stream, no timeouts", \
     "" using 4 title "Beast's own steady_timer", \
     "" using 5 title "tcp_stream, no timeouts"
set title "server instructions per message, callgrind (lower is better)"
set ylabel "instructions per message"
plot "$data_dir/w11.dat" using 6:xtic(1) title "routed to the wheel", \
     "" using 7 title "routed stream, no timeouts", \
     "" using 8 title "Beast's own steady_timer", \
     "" using 9 title "tcp_stream, no timeouts"
unset multiplot
EOF
  echo "plot written to $plot_dir: w11.png"
else
  echo "no W11 in $results: w11.png not written"
fi

# --- W9 (test/bench/http_wrk.sh) ----------------------------------------------
# run_value WORKLOAD IMPL N METRIC RUN: a figure of one round, or "-".
run_value() {
  v=$(grep '"kind":"measurement"' "$results" | grep '"smoke":false' \
    | grep "\"workload\":\"$1\"" | grep "\"impl\":\"$2\"" \
    | grep "\"n\":$3," | grep "\"metric\":\"$4\"" | grep "\"run\":$5[,}]" \
    | sed 's/.*"value":\([^,}]*\).*/\1/' | head -n 1)
  printf '%s' "${v:--}"
}
if ! grep -q '"workload":"W9".*"smoke":false' "$results"; then
  echo "no W9 in $results: http.png not written"
  exit 0
fi
for n in 1000 10000; do
  run=1
  while [ "$(run_value W9 beast $n cpu_us_per_request $run)" != "-" ]; do
    printf '"%sk, round %s" %s %s %s %s %s\n' "$((n / 1000))" "$run" \
      "$(run_value W9 beast $n cpu_us_per_request $run)" \
      "$(run_value W9 wheel $n cpu_us_per_request $run)" \
      "$(run_value W9 untimed $n cpu_us_per_request $run)" \
      "$(run_value W9 socket $n cpu_us_per_request $run)" \
      "$(run_value W9 routed $n cpu_us_per_request $run)"
    run=$((run + 1))
  done
done > "$data_dir/http_cpu.dat"
printf '"10k idle connections (median)" %s %s %s %s %s\n' \
  "$(value W9 beast 10000 bytes_per_idle_connection_median)" \
  "$(value W9 wheel 10000 bytes_per_idle_connection_median)" \
  "$(value W9 untimed 10000 bytes_per_idle_connection_median)" \
  "$(value W9 socket 10000 bytes_per_idle_connection_median)" \
  "$(value W9 routed 10000 bytes_per_idle_connection_median)" > "$data_dir/http_memory.dat"

gnuplot <<EOF
$(two_histograms http "W9: Beast keep-alive HTTP server under wrk (1 server thread)")
set title "server CPU per request, every round (lower is better)"
set ylabel "CPU microseconds per request"
set xtics rotate by -30
plot "$data_dir/http_cpu.dat" using 2:xtic(1) title "boost::beast::tcp_stream", \
     "" using 3 title "asio_wheel::beast::tcp_stream", \
     "" using 4 title "the same, --no-timeout", \
     "" using 5 title "plain tcp::socket", \
     "" using 6 title "basic_stream routed to the wheel"
set title "memory per idle connection (lower is better)"
set ylabel "bytes per connection"
set xtics norotate
plot "$data_dir/http_memory.dat" using 2:xtic(1) title "boost::beast::tcp_stream", \
     "" using 3 title "asio_wheel::beast::tcp_stream", \
     "" using 4 title "the same, --no-timeout", \
     "" using 5 title "plain tcp::socket", \
     "" using 6 title "basic_stream routed to the wheel"
unset multiplot
EOF
echo "plot written to $plot_dir: http.png"
