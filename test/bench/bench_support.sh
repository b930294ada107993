# shellcheck shell=sh
#
# test/bench/bench_support.sh
#
# What the benchmark scripts of test/bench share, as bench_support.hpp is what the programs
# share. Each script sources it first (`. "$(dirname "$0")/bench_support.sh"`); it sets
# strict mode (set -eu: the scripts are POSIX sh, which has no pipefail), $script_dir and
# $repo_dir, and defines:
#   usage, require_tool         the usage line (exit 2), a tool that must be on the PATH
#   configure_if_new            an optimised build directory, configured if it is new
#   make_tmp                    $tmp, removed on exit with the server in $server_pid killed
#   revision                    the checkout's git describe
#   http_command, wait_for_port the servers of W9 (example/http_keepalive) and their port
#   pick_measurement            one figure of the JSON reports (one record a line)
#   median, range, round_ratios medians and ranges of runs, ratios of ways within rounds
#   callgrind_out_dir, callgrind_dumps, callgrind_total
#                               callgrind's output: where it goes, what each dump counted
# POSIX sh has no local variables: the helpers' own (i, f, label, v) are plain ones.

set -eu

script_dir=$(cd "$(dirname "$0")" && pwd)
repo_dir=$(cd "$script_dir/../.." && pwd)

# usage ARGUMENTS: prints "usage: SCRIPT ARGUMENTS" on stderr and exits with status 2.
usage() {
  echo "usage: $0 $1" >&2
  exit 2
}

# require_tool TOOL DEBIAN: stops the script unless TOOL is on the PATH (DEBIAN: where to
# get it, for the message).
require_tool() {
  command -v "$1" >/dev/null 2>&1 || { echo "$0: $1 not found (Debian: $2)" >&2; exit 1; }
}

# configure_if_new BUILD_DIR: configures BUILD_DIR as the benchmarks are measured (Release,
# -O2 -DNDEBUG, benchmarks on) if it has no CMakeCache.txt yet.
configure_if_new() {
  if [ ! -f "$1/CMakeCache.txt" ]; then
    cmake -S "$repo_dir" -B "$1" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG" -DASIO_WHEEL_BUILD_BENCHMARKS=ON
  fi
}

# make_tmp: creates the directory $tmp, removed when the script exits, when the server whose
# pid is in $server_pid (empty: none) is killed too.
make_tmp() {
  tmp=$(mktemp -d)
  server_pid=
  trap remove_tmp EXIT
}
remove_tmp() {
  [ -z "$server_pid" ] || kill -KILL "$server_pid" 2>/dev/null || true
  rm -rf "$tmp"
}

# revision: the checkout's `git describe --always --dirty`, or "unknown".
revision() {
  git -C "$repo_dir" describe --always --dirty 2>/dev/null || echo unknown
}

# http_command WAY: the command line of W9's server WAY, less the common flags, from the
# programs of example/http_keepalive in $example_dir:
#   beast          http_keepalive_beast               boost::beast::tcp_stream
#   beast_untimed  http_keepalive_beast --no-timeout  the same, no expires_after
#   wheel          http_keepalive                     asio_wheel::beast::tcp_stream
#   untimed        http_keepalive --no-timeout        the same, no expires_after
#   socket         http_keepalive_no_timeout          a plain tcp::socket
#   routed         http_keepalive_routed              Beast's basic_stream<tcp, wheel_executor<>>
#   routed_untimed http_keepalive_routed --no-timeout the same, no expires_after
# shellcheck disable=SC2154  # example_dir: the caller's
http_command() {
  case $1 in
    routed) echo "$example_dir/http_keepalive_routed" ;;
    routed_untimed) echo "$example_dir/http_keepalive_routed --no-timeout" ;;
    beast) echo "$example_dir/http_keepalive_beast" ;;
    beast_untimed) echo "$example_dir/http_keepalive_beast --no-timeout" ;;
    wheel) echo "$example_dir/http_keepalive" ;;
    untimed) echo "$example_dir/http_keepalive --no-timeout" ;;
    socket) echo "$example_dir/http_keepalive_no_timeout" ;;
  esac
}

# wait_for_port OUT ERR SECONDS WHAT: waits (at most SECONDS) for the server started with its
# stdout in OUT and its stderr in ERR to print its first line, "listening on ADDRESS:PORT",
# and sets $port; else says "WHAT printed nothing in SECONDS s", shows ERR and stops.
wait_for_port() {
  i=0
  until [ -s "$1" ]; do
    i=$((i + 1))
    if [ $i -gt $(($3 * 20)) ]; then echo "$0: $4 printed nothing in $3 s" >&2; cat "$2" >&2; exit 1; fi
    sleep 0.05
  done
  # shellcheck disable=SC2034  # for the caller
  port=$(head -n 1 "$1" | sed 's/.*://')
}

# pick_measurement WORKLOAD IMPL N METRIC: the value of the first measurement record on
# stdin (the JSON reports, one record a line: bench_support.hpp) with that workload,
# implementation, size and metric, or "-" when there is none.
pick_measurement() {
  v=$(grep '"kind":"measurement"' \
    | grep "\"workload\":\"$1\"" | grep "\"impl\":\"$2\"" \
    | grep "\"n\":$3," | grep "\"metric\":\"$4\"" \
    | sed 's/.*"value":\([^,}]*\).*/\1/' | head -n 1)
  printf '%s' "${v:--}"
}

# median, range: of the numbers on stdin, one a line: the median ("-" when there is none),
# and "LO-HI".
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
range() { sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { if (NR) printf "%.3f-%.3f", lo, hi; else print "-" }'; }

# round_ratios RUNS N A B: the ratios A : B of the value of the ways A and B within each round
# at size N, sorted, from the file RUNS of lines "N ROUND WAY VALUE ..." (the scripts run the
# ways of a round back to back, so that on a shared machine they see the same load).
round_ratios() {
  awk -v n="$2" -v a="$3" -v b="$4" '$1 == n { v[$2 " " $3] = $4; r[$2] = 1 }
    END { for (k in r) if ((k " " a) in v && (k " " b) in v) print v[k " " a] / v[k " " b] }' "$1" | sort -g
}

# callgrind_out_dir DIR: creates DIR, and removes from it the callgrind dumps of an earlier
# run (callgrind.out.*).
callgrind_out_dir() {
  mkdir -p "$1"
  rm -f "$1"/callgrind.out.*
}

# callgrind_total DUMP: the instructions a callgrind dump counted (its summary line, or its
# totals line if it has none).
callgrind_total() {
  v=$(sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$1" | head -n 1)
  [ -n "$v" ] || v=$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$1" | head -n 1)
  printf '%s\n' "$v"
}

# callgrind_dumps DUMP...: for each dump that exists, "LABEL<TAB>INSTRUCTIONS<TAB>DUMP", the
# label being the one the program gave its client request (CALLGRIND_DUMP_STATS_AT).
callgrind_dumps() {
  for f in "$@"; do
    [ -f "$f" ] || continue
    label=$(sed -n 's/^desc: Trigger: Client Request: //p' "$f")
    printf '%s\t%s\t%s\n' "$label" "$(callgrind_total "$f")" "$f"
  done
}

# Budget verdicts of the scripts (the callgrind counts), in the records of bench_support.hpp's
# JSON report, so that run_all.sh merges them with the programs' into results.json and its
# budget table:
#   budget_record RECORDS PROGRAM WORKLOAD WHAT MEASURED LIMIT
#                      appends the budget (PASS when MEASURED <= LIMIT, n/a when MEASURED is
#                      "-") to the file RECORDS and prints its row of the budget tables
#   write_report RECORDS PROGRAM JSON
#                      writes the records as the report of PROGRAM to the file JSON
budget_record() {
  verdict=$(awk -v m="$5" -v l="$6" 'BEGIN { if (m == "-") print "n/a"; else print (m + 0 <= l + 0 ? "PASS" : "MISS") }')
  measured=$5
  [ "$measured" != - ] || measured=0
  printf '{"kind":"budget","program":"%s","workload":"%s","budget":"%s","measured":%s,"limit":%s,"verdict":"%s","detail":"","smoke":false}\n' \
    "$2" "$3" "$4" "$measured" "$6" "$verdict" >> "$1"
  printf '| %s | %s | %s | %s |\n' "$verdict" "$4" "$5" "$6"
}
write_report() {
  {
    printf '{"program":"%s","records":[\n' "$2"
    sed '$!s/$/,/' "$1"
    printf ']}\n'
  } > "$3"
}
