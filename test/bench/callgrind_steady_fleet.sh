#!/bin/sh
#
# test/bench/callgrind_steady_fleet.sh BENCH_PROGRAM OUT_DIR [N T]...
#
# User-space instructions per expiry of W10, the steady fleet, with
# valgrind --tool=callgrind on bench_steady_fleet: each side of a cell
# (steady_timer, the precise wheel, the wheel with a tolerance of T/64) is
# counted over its measured window only. The program delimits each window
# with callgrind client requests (CALLGRIND_ZERO_STATS before it,
# CALLGRIND_DUMP_STATS_AT after it, the dump named by the cell, the side and
# the window's expiries).
#
# The cells: the N T pairs given (T as the program's tables write it: 30s,
# 5min, 1h), by default 10000 30s, 100000 5min and 1000000 1h. Those are
# sparse: the wakeups come one per expiry, more than a millisecond apart,
# and the program keeps up in real time under valgrind. There each side's
# CPU time is mostly the kernel's wakeup, the same on both sides and noisy
# from run to run; the instructions are what each side's own code adds,
# exactly. (A dense cell, 1M x 30 s, falls behind real time under valgrind:
# its figures would be those of a storm.)
#
# What is counted: the benchmark process's user-space instructions; under
# valgrind clock_gettime is a system call (valgrind hides the vDSO), about
# 50 instructions of libc a read. Writes OUT_DIR/callgrind.out.*,
# OUT_DIR/callgrind_cells.txt (the program's own output) and
# OUT_DIR/callgrind_summary.txt (also printed). About a minute a cell.
#
# shellcheck source=bench_support.sh
. "$(dirname "$0")/bench_support.sh"

if [ $# -lt 2 ] || [ $(( $# % 2 )) -ne 0 ]; then usage "BENCH_PROGRAM OUT_DIR [N T]..."; fi
program=$1
out_dir=$2
shift 2
[ $# -gt 0 ] || set -- 10000 30s 100000 5min 1000000 1h
require_tool valgrind valgrind
callgrind_out_dir "$out_dir"
rm -f "$out_dir/callgrind_cells.txt"

# A cell whose program fails a check still gives its counts; the status says
# so at the end. (Under valgrind on a busy machine the loop falls behind real
# time: then the real-time checks, and the figures, are those of a storm.)
status=0
while [ $# -gt 0 ]; do
  if ! valgrind --tool=callgrind --callgrind-out-file="$out_dir/callgrind.out.$1-$2.%p" \
      "$program" --cell "$1" "$2" --reps 1 >> "$out_dir/callgrind_cells.txt" \
      2> "$out_dir/callgrind_$1-$2.log"; then
    echo "$0: $(basename "$program") --cell $1 $2 failed a check: see $out_dir/callgrind_cells.txt" >&2
    status=1
  fi
  shift 2
done

# One line per dump: "W10 N=10k T=30s SIDE expiries=E<TAB>instructions"
# (callgrind.out.CELL.PID.PART; the PID-only files are the processes' ends).
{
  echo "callgrind: user-space instructions per expiry in W10's window, $(basename "$program")"
  echo
  echo "| cell | side | expiries | instructions per expiry | side : steady_timer |"
  echo "|---|---|---:|---:|---:|"
  callgrind_dumps "$out_dir"/callgrind.out.*.*.* | awk -F'\t' '
    { split($1, f, " "); cell = f[2] " " f[3]; side = f[4];
      e = f[5]; sub(/^expiries=/, "", e);
      if (!(cell in seen)) { seen[cell] = 1; cells[++k] = cell }
      per[cell, side] = e > 0 ? $2 / e : 0; count[cell, side] = e;
      if (!((cell, side) in have)) { have[cell, side] = 1; sides[cell, ++ns[cell]] = side } }
    END { for (i = 1; i <= k; i++) { c = cells[i];
            for (j = 1; j <= ns[c]; j++) { s = sides[c, j];
              printf "| %s | %s | %d | %.0f | %s |\n", c, s, count[c, s], per[c, s],
                (per[c, "steady_timer"] > 0 ? sprintf("%.2f", per[c, s] / per[c, "steady_timer"]) : "-") } } }'
} > "$out_dir/callgrind_summary.txt"
cat "$out_dir/callgrind_summary.txt"
exit $status
