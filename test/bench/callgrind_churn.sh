#!/bin/sh
#
# test/bench/callgrind_churn.sh BENCH_CHURN OUT_DIR
#
# User-space instructions per refresh of W2, with valgrind --tool=callgrind on
# bench_churn --smoke (N = 200, 5000 refreshes a loop): the idiom's store of
# the input's time into its connection against wheel_timer::extend_after
# (side wheel_extend) and wheel_timer::reschedule_after (side wheel_timer),
# each cold and after a read of the connection ("warm"); and per re-arm of W1
# (expires_after + async_wait, the aborted handler run by io.poll()), for
# steady_timer and wheel_timer. The program delimits each loop with callgrind
# client requests (CALLGRIND_ZERO_STATS before, CALLGRIND_DUMP_STATS_AT after,
# the dump named "W2 SIDE[ warm] refreshes=R" or "W1 SIDE rearms=R"), so each
# dump holds that loop alone, its io.poll() calls included. Under valgrind clock_gettime is a system call (valgrind hides the
# vDSO): a clock read counts about 20 instructions of libc, on both sides.
# Writes OUT_DIR/callgrind.out.* and OUT_DIR/callgrind_churn.txt (printed).
# Takes a few seconds.
#
# shellcheck source=bench_support.sh
. "$(dirname "$0")/bench_support.sh"

[ $# -eq 2 ] || usage "BENCH_CHURN OUT_DIR"
program=$1
out_dir=$2
require_tool valgrind valgrind
callgrind_out_dir "$out_dir"
valgrind --tool=callgrind --callgrind-out-file="$out_dir/callgrind.out.%p" \
  "$program" --smoke > "$out_dir/churn.txt" 2> "$out_dir/churn.log"

{
  echo "callgrind: user-space instructions per W2 refresh of $(basename "$program") --smoke"
  echo
  echo "| side | refreshes | instructions per refresh | wheel : idiom |"
  echo "|---|---:|---:|---:|"
  callgrind_dumps "$out_dir"/callgrind.out.*.* | awk -F'\t' '
    $1 ~ /^W2 / {
      n = split($1, f, " "); r = f[n]; sub(/^refreshes=/, "", r)
      side = f[2] (n == 4 ? " " f[3] : ""); per[side] = $2 / r; count[side] = r
      order[++k] = side
    }
    END {
      for (i = 1; i <= k; i++) {
        s = order[i]; idiom = (s ~ / warm$/ ? "steady_idiom warm" : "steady_idiom")
        printf "| %s | %d | %.1f | %s |\n", s, count[s], per[s],
          (s ~ /^wheel/ && per[idiom] > 0 ? sprintf("%.2f", per[s] / per[idiom]) : "-")
      }
    }'
  echo
  echo "| W1 side | re-arms | instructions per re-arm | wheel : steady |"
  echo "|---|---:|---:|---:|"
  callgrind_dumps "$out_dir"/callgrind.out.*.* | awk -F'\t' '
    $1 ~ /^W1 / {
      n = split($1, f, " "); r = f[n]; sub(/^rearms=/, "", r)
      per[f[2]] = $2 / r; count[f[2]] = r; order[++k] = f[2]
    }
    END {
      for (i = 1; i <= k; i++) {
        s = order[i]
        printf "| %s | %d | %.1f | %s |\n", s, count[s], per[s],
          (s == "wheel_timer" && per["steady_timer"] > 0 ? sprintf("%.2f", per[s] / per["steady_timer"]) : "-")
      }
    }'
} | tee "$out_dir/callgrind_churn.txt"
