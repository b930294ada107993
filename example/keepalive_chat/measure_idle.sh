#!/usr/bin/env bash
# Measures what idle connections cost keepalive_chat_server: resident memory
# per connection, and CPU time while N connections stay silent for a while.
# The idle timeout is set long (60 s) so nobody is kicked during the hold; the
# load client (--hold) opens the connections, prints a progress line when all
# are open, and keeps them silent. We sample /proc/PID around the hold.
#
#   example/keepalive_chat/measure_idle.sh BUILD_DIR [CONNECTIONS=10000] [SECONDS=10]
#
# SETTLE_SECONDS (default 1) is the pause between "all open" and the start of
# the measured window; with 11 the window starts after the one lazy re-filing
# each connection's write deadline gets 10 s after its welcome.
# TIMERS (default wheel) is the server's --timers, or several of them, e.g.
# TIMERS="wheel steady steady-lazy": each is measured on a server of its own,
# one after the other, and a table of them ends the output.
set -euo pipefail

build_dir=${1:?usage: measure_idle.sh BUILD_DIR [CONNECTIONS] [SECONDS]}
connections=${2:-10000}
hold_seconds=${3:-10}
settle_seconds=${SETTLE_SECONDS:-1}
timers_list=${TIMERS:-wheel}
script=measure_idle.sh
# shellcheck source=script_support.sh
source "$(dirname "$0")/script_support.sh"
raise_open_file_limit "$connections" "run as root or use fewer connections"

# One field of the server's /stats line.
stats_field() { field "$1" "$(server_stats_line)"; }

# measure TIMERS: one server with --timers TIMERS, measured; its line of the
# final table goes to $work_dir/table. A load client that failed sets $status.
measure() {
  local timers=$1 rss_before rss_idle cpu_start cpu_end wakeups_start wakeups_end progress
  rm -f "$work_dir/server_stdout" "$work_dir/load_stdout"
  start_server --idle-timeout 60s --max-connections $((connections + 100)) --timers "$timers"
  echo "server --timers $timers"

  rss_before=$(rss_kib)
  mkfifo "$work_dir/load_stdout"
  "$load" --port "$port" --connections "$connections" --hold $((settle_seconds + hold_seconds + 2))s \
    >"$work_dir/load_stdout" &
  load_pid=$!
  exec 4<"$work_dir/load_stdout"
  IFS= read -r -t 120 progress <&4 || { echo "measure_idle.sh: the load client did not open its connections" >&2; exit 1; }
  echo "$progress"
  # Let the last welcomes and accepts settle before the clock starts.
  sleep "$settle_seconds"
  rss_idle=$(rss_kib)
  cpu_start=$(cpu_ns)
  wakeups_start=$(stats_field wakeups)
  sleep "$hold_seconds"  # the measured interval itself
  cpu_end=$(cpu_ns)
  wakeups_end=$(stats_field wakeups)
  cat <&4  # the rest of the load client's output: its summary
  exec 4<&-
  wait "$load_pid" && load_status=0 || load_status=$?
  load_pid=

  kill -TERM "$server_pid"
  wait "$server_pid" || true
  server_pid=
  exec 3<&-

  local cpu_us=$(( (cpu_end - cpu_start) / 1000 ))
  local bytes=$(( (rss_idle - rss_before) * 1024 / connections ))
  local cpu_ms percent
  cpu_ms=$(awk -v us="$cpu_us" 'BEGIN {printf "%.1f", us / 1000}')
  percent=$(awk -v us="$cpu_us" -v s="$hold_seconds" 'BEGIN {printf "%.3f", us / (s * 1e4)}')
  echo "server RSS: $rss_before KiB before, $rss_idle KiB with $connections idle connections:" \
       "$bytes bytes per connection"
  echo "server CPU while holding $connections silent connections for ${hold_seconds} s:" \
       "$cpu_ms ms ($percent% of one core), $((wakeups_end - wakeups_start)) wheel wakeups"
  printf '| %s | %s | %s | %s | %s |\n' "$timers" "$bytes" "$cpu_ms" "$percent" \
    "$((wakeups_end - wakeups_start))" >> "$work_dir/table"
  if [[ $load_status -ne 0 ]]; then status=$load_status; fi
}

status=0
: > "$work_dir/table"
for timers in $timers_list; do
  measure "$timers"
  echo
done
# Side by side when there were several. (steady_timer's waits are Asio's own timers,
# not the wheel's: with them the wheel serves only the server's own.)
if [[ $(wc -l < "$work_dir/table") -gt 1 ]]; then
  echo "$connections silent connections, ${hold_seconds} s window, ${settle_seconds} s after the last connect:"
  echo
  echo "| --timers | bytes per connection | server CPU ms | % of one core | wheel wakeups |"
  echo "|---|---:|---:|---:|---:|"
  cat "$work_dir/table"
fi
exit "$status"
