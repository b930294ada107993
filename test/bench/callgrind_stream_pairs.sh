#!/bin/sh
#
# test/bench/callgrind_stream_pairs.sh BENCH_STREAM_PAIRS OUT_DIR
#
# Instructions per arm + withdraw pair of the Beast stream's timeout, with
# valgrind --tool=callgrind on bench_stream_pairs (see stream_pairs.cpp): for
# each way, instructions per timed read minus those per untimed read on the
# same stream, with 1000 other timeouts pending and with none. User-space
# instructions of the process only (the peer is a socket of the same process:
# its write is in both counts). Writes OUT_DIR/callgrind.out.* and
# OUT_DIR/callgrind_stream_pairs.txt (also printed), with the budget of <= 300
# per pair with other timeouts pending (W8 and W9, doc/benchmarks.md#budgets) as
# a JSON report, OUT_DIR/callgrind_stream_pairs.json. Takes about 30 s.
#
# shellcheck source=bench_support.sh
. "$(dirname "$0")/bench_support.sh"

[ $# -eq 2 ] || usage "BENCH_STREAM_PAIRS OUT_DIR"
program=$1
out_dir=$2
require_tool valgrind valgrind
callgrind_out_dir "$out_dir"
reads=20000
valgrind --tool=callgrind --callgrind-out-file="$out_dir/callgrind.out.%p" \
  "$program" --reads $reads > "$out_dir/stream_pairs.txt" 2> "$out_dir/stream_pairs.log"

{
  echo "callgrind: instructions per read of $(basename "$program"), $reads reads per section"
  echo
  echo "| way | others pending | untimed | timed | timed minus untimed (one arm + withdraw) |"
  echo "|---|---:|---:|---:|---:|"
  callgrind_dumps "$out_dir"/callgrind.out.*.* | awk -F'\t' -v n=$reads '
    {
      split($1, a, ", "); split(a[1], w, " "); way = w[1]; kind = w[2]; others = a[2]
      key = way "\t" others; per[key, kind] = $2 / n; keys[key] = 1
    }
    END {
      for (k in keys) {
        split(k, p, "\t")
        printf "| %s | %s | %.0f | %.0f | %.0f |\n", p[1], p[2], per[k, "untimed"], per[k, "timed"], per[k, "timed"] - per[k, "untimed"]
      }
    }' | sort
} | tee "$out_dir/callgrind_stream_pairs.txt"

# The budget of W8 and W9 (doc/benchmarks.md#budgets): <= 300 instructions per
# arm + withdraw pair of the Beast stream with other timeouts pending; and each
# pair as a measurement (W9, impl WAY, n = others pending, metric
# pair_instructions), from which run_all.sh holds the lone pair against a
# steady_timer per operation's (W8's callgrind_op_timeouts.sh).
pair_of() { # way others
  sed -n "s/^| $1 | $2 others | [0-9]* | [0-9]* | \([0-9-]*\) |\$/\1/p" \
    "$out_dir/callgrind_stream_pairs.txt"
}
records=$out_dir/callgrind_stream_pairs.records
: > "$records"
{
  echo
  echo "| verdict | budget | measured | limit |"
  echo "|---|---|---:|---:|"
  for way in wheel_plain wheel_bound beast_plain; do
    for others in 0 1000; do
      v=$(pair_of $way $others)
      [ -z "$v" ] || printf '{"kind":"measurement","program":"callgrind_stream_pairs","workload":"W9","impl":"%s","n":%s,"metric":"pair_instructions","value":%s,"smoke":false}\n' \
        "$way" "$others" "$v" >> "$records"
    done
  done
  for way in wheel_plain wheel_bound; do
    v=$(pair_of $way 1000)
    budget_record "$records" callgrind_stream_pairs W9 \
      "W9 Beast stream ($way) arm + withdraw pair, 1000 others pending, instructions" "${v:--}" 300
  done
} | tee -a "$out_dir/callgrind_stream_pairs.txt"
write_report "$records" callgrind_stream_pairs "$out_dir/callgrind_stream_pairs.json"
rm -f "$records"
