# shellcheck shell=bash
# What run_demo.sh, measure_idle.sh and soak.sh share beyond what every example
# script does (../common/script_support.sh, sourced from here: the work directory
# and EXIT trap, raise_open_file_limit, start_server, stop_server): the two
# binaries, and reading the server's /stats and /proc. Sourced, after `set -euo
# pipefail`, with $script set to the script's name (for messages) and $build_dir
# to the build directory. Sourcing it sets $server and $load, creates $work_dir
# and installs the EXIT trap.

# shellcheck source=../common/script_support.sh
source "$(dirname "${BASH_SOURCE[0]}")/../common/script_support.sh"

server=$build_dir/example/keepalive_chat/keepalive_chat_server
load=$build_dir/example/keepalive_chat/keepalive_chat_load
require_built "$server" "$load"

# Prints the server's /stats line, asked over a short-lived connection of our
# own (which the server counts: `connections` includes it); fails if none
# comes within 5 s.
server_stats_line() {
  exec 5<>"/dev/tcp/127.0.0.1/$port" || return 1
  printf '/stats\n' >&5
  local line
  while IFS= read -r -t 5 line <&5; do
    if [[ $line == STATS* ]]; then
      exec 5<&-
      printf '%s\n' "$line"
      return 0
    fi
  done
  exec 5<&-
  return 1
}

# One key=value of a "key=value key=value" line (a number).
field() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p" <<<" $2"; }
rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$server_pid/status"; }
# CPU time of all the server's threads in nanoseconds: schedstat's first field
# (/proc/PID/stat's utime and stime only have 10 ms resolution). %.0f, not %d:
# mawk's %d stops at 2^31 - 1 (2.1 s).
cpu_ns() { cat /proc/"$server_pid"/task/*/schedstat | awk '{ total += $1 } END { printf "%.0f\n", total }'; }
