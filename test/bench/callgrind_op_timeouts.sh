#!/bin/sh
#
# test/bench/callgrind_op_timeouts.sh BENCH_PROGRAM OUT_DIR
#
# Instruction counts of W8 and of the target of <= 300 instructions per arm +
# disarm pair of a wheel timeout (both in doc/benchmarks.md), with
# valgrind --tool=callgrind on bench_op_timeouts or
# bench_op_timeouts_newer_asio. Each measured section of the program is
# delimited with callgrind client requests (CALLGRIND_ZERO_STATS before,
# CALLGRIND_DUMP_STATS_AT after), so each dump holds that section alone.
#
#   1. BENCH_PROGRAM --pairs 100000: for each way, 100k operations started
#      with the way's timeout on a fake operation (no I/O: it stores its
#      handler and completes it at once with success; 1000 other timeouts
#      pending, then again with none: the lone timeout of a client, the
#      context's only one; io.poll() every 256). Instructions per operation, minus those
#      of the same operation without a timeout: what one arm + withdraw pair
#      of the timeout costs, adapter included. For the wheel, also the
#      inclusive cost per pair of the parts (the service's arm_timeout and
#      withdraw_timeout are the wheel entry's arm and withdraw proper).
#   2. BENCH_PROGRAM --sizes 2000 --reps 1 --reissues 20000 --warmup 5000:
#      the W8 workload over loopback TCP at N = 2000; instructions per
#      re-issue of each way, minus the no-timeout way's.
#
# What is counted: the user-space instructions of the benchmark process
# only. The kernel's work in system calls (recv, epoll_wait) is not, nor is
# the peer process. Under valgrind, clock_gettime is a system call (valgrind
# hides the vDSO), so a clock read counts ~30 instructions of libc instead of
# the vDSO's few dozen. Writes OUT_DIR/callgrind.out.* and
# OUT_DIR/callgrind_summary.txt (also printed), and the budgets of W8 that are
# held by instructions (doc/benchmarks.md#budgets: the timeout's own
# instructions per re-issue <= 0.6 of a steady_timer per operation's;
# cancel_after's pair <= 500 with 1000 others pending; its lone pair no more
# than a steady_timer per operation's, lone) as a JSON report,
# OUT_DIR/callgrind_op_timeouts.json. Takes about 25 s.
#
# shellcheck source=bench_support.sh
. "$(dirname "$0")/bench_support.sh"

[ $# -eq 2 ] || usage "BENCH_PROGRAM OUT_DIR"
program=$1
out_dir=$2
require_tool valgrind valgrind
require_tool callgrind_annotate valgrind
callgrind_out_dir "$out_dir"

pairs=100000
reissues=20000
valgrind --tool=callgrind --callgrind-out-file="$out_dir/callgrind.out.pairs.%p" \
  "$program" --pairs $pairs > "$out_dir/callgrind_pairs.txt" 2> "$out_dir/callgrind_pairs.log"
valgrind --tool=callgrind --callgrind-out-file="$out_dir/callgrind.out.w8.%p" \
  "$program" --sizes 2000 --reps 1 --reissues $reissues --warmup 5000 \
  > "$out_dir/callgrind_w8.txt" 2> "$out_dir/callgrind_w8.log"

# label<TAB>instructions<TAB>file of every dump the client requests of KIND made
# (callgrind.out.KIND.PID.PART; the PID-only files are the ends of the
# processes, the peer's included).
sections() { callgrind_dumps "$out_dir"/callgrind.out."$1".*.*; }

# Inclusive instructions per operation of the functions matching PATTERN.
inclusive() { # file pattern count
  callgrind_annotate --inclusive=yes --threshold=100 "$1" 2>/dev/null \
    | grep -F -- "$2" | head -n 1 \
    | awk -v n="$3" '{ gsub(",", "", $1); printf "%.1f", $1 / n }'
}

{
  version=$(sed -n 's/^W8 .*(\(Boost.Asio [0-9.]*\)).*/\1/p' "$out_dir/callgrind_w8.txt" | head -n 1)
  echo "callgrind instruction counts of $(basename "$program") (${version:-?}), user space only"
  echo
  echo "1. Arm + withdraw pairs: $pairs operations per way on a fake operation"
  echo
  echo "| way | instructions per operation, 1000 other timeouts pending | minus no timeout | the same, none pending (lone) | minus no timeout |"
  echo "|---|---:|---:|---:|---:|"
  sections pairs | awk -F'\t' -v n=$pairs '
    { split($1, f, " "); kind = f[1]; way = f[2]; ir[kind, way] = $2 / n;
      if (kind == "pairs") order[++k] = way }
    END { for (i = 1; i <= k; i++) { w = order[i];
            printf "| %s | %.1f | %s | %.1f | %s |\n", w, ir["pairs", w],
              (w == "none" ? "-" : sprintf("%.1f", ir["pairs", w] - ir["pairs", "none"])),
              ir["lone", w],
              (w == "none" ? "-" : sprintf("%.1f", ir["lone", w] - ir["lone", "none"])) } }'
  wheel_dump=$(sections pairs | awk -F'\t' '$1 == "pairs wheel" { print $3 }')
  if [ -n "$wheel_dump" ]; then
    echo
    echo "Of the wheel's pair (inclusive instructions per operation):"
    echo
    echo "| part | instructions |"
    echo "|---|---:|"
    for part in "::arm_timeout(" "::withdraw_timeout(" "timing_wheel::insert(" \
        "timing_wheel::erase(" "service_registry::do_use_service(" \
        "pthread_mutex_lock" "op_pool::allocate(" "op_pool::deallocate(" \
        "steady_clock::now()"; do
      v=$(inclusive "$wheel_dump" "$part" $pairs)
      printf '| %s | %s |\n' "$part" "${v:--}"
    done
  fi
  echo
  echo "2. W8 workload, N = 2000 loopback TCP reads, $reissues re-issues per way"
  echo
  echo "| way | instructions per re-issue | minus no timeout |"
  echo "|---|---:|---:|"
  sections w8 | awk -F'\t' -v n=$reissues '
    { way = $1; sub(/^W8 /, "", way); sub(/ N=.*/, "", way); ir[way] = $2 / n; order[++k] = way }
    END { for (i = 1; i <= k; i++) { w = order[i];
            printf "| %s | %.0f | %s |\n", w, ir[w],
              (w == "none" ? "-" : sprintf("%.0f", ir[w] - ir["none"])) } }'
} > "$out_dir/callgrind_summary.txt"

# The budgets of W8 that are held by instructions (doc/benchmarks.md#budgets),
# as records of OUT_DIR/callgrind_op_timeouts.json (run_all.sh merges them into
# its table).
# per_op KIND WAY COUNT: instructions per operation of the way's dump in the
# sections of KIND (pairs: "pairs WAY" and "lone WAY"; w8: "W8 WAY N=..."), or -.
per_op() {
  sections "$1" | awk -F'\t' -v w="$2" -v n="$3" '
    { label = $1; sub(/ N=.*/, "", label) }
    label == w { printf "%.1f", $2 / n; found = 1 }
    END { if (!found) printf "-" }'
}
minus() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-") print "-"; else printf "%.1f", a - b }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.4f", a / b }'; }
pair=$(minus "$(per_op pairs "pairs wheel" $pairs)" "$(per_op pairs "pairs none" $pairs)")
lone=$(minus "$(per_op pairs "lone wheel" $pairs)" "$(per_op pairs "lone none" $pairs)")
steady_lone=$(minus "$(per_op pairs "lone steady_timer" $pairs)" "$(per_op pairs "lone none" $pairs)")
w8_wheel=$(minus "$(per_op w8 "W8 wheel" $reissues)" "$(per_op w8 "W8 none" $reissues)")
w8_steady=$(minus "$(per_op w8 "W8 steady_timer" $reissues)" "$(per_op w8 "W8 none" $reissues)")
records=$out_dir/callgrind_op_timeouts.records
: > "$records"
# The pairs as measurements too (W8, impl WAY, n = others pending), for
# run_all.sh's check of the Beast stream's lone pair against a steady_timer's.
for m in "wheel 1000 $pair" "wheel 0 $lone" "steady_timer 0 $steady_lone"; do
  # shellcheck disable=SC2086  # three words
  set -- $m
  [ "$3" = - ] || printf '{"kind":"measurement","program":"callgrind_op_timeouts","workload":"W8","impl":"%s","n":%s,"metric":"pair_instructions","value":%s,"smoke":false}\n' \
    "$1" "$2" "$3" >> "$records"
done
tag=" (${version:-?})"
{
  echo
  echo "Budgets (W8 by instructions):"
  echo
  echo "| verdict | budget | measured | limit |"
  echo "|---|---|---:|---:|"
  budget_record "$records" callgrind_op_timeouts W8 \
    "W8 wheel:steady_timer timeout's own instructions per re-issue at N=2000$tag" \
    "$(ratio "$w8_wheel" "$w8_steady")" 0.6
  budget_record "$records" callgrind_op_timeouts W8 \
    "W8 cancel_after arm + withdraw pair, 1000 others pending, instructions$tag" "$pair" 500
  budget_record "$records" callgrind_op_timeouts W8 \
    "W8 cancel_after lone pair : steady_timer per operation, lone, instructions$tag" \
    "$(ratio "$lone" "$steady_lone")" 1
} >> "$out_dir/callgrind_summary.txt"
write_report "$records" callgrind_op_timeouts "$out_dir/callgrind_op_timeouts.json"
rm -f "$records"
cat "$out_dir/callgrind_summary.txt"
