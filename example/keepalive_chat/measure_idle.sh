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
set -euo pipefail

build_dir=${1:?usage: measure_idle.sh BUILD_DIR [CONNECTIONS] [SECONDS]}
connections=${2:-10000}
hold_seconds=${3:-10}
settle_seconds=${SETTLE_SECONDS:-1}
script=measure_idle.sh
# shellcheck source=script_support.sh
source "$(dirname "$0")/script_support.sh"
raise_open_file_limit "$connections" "run as root or use fewer connections"

# One field of the server's /stats line.
stats_field() { field "$1" "$(server_stats_line)"; }

start_server --idle-timeout 60s --max-connections $((connections + 100))

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
wakeups_start=$(stats_field drive_wakeups)
sleep "$hold_seconds"  # the measured interval itself
cpu_end=$(cpu_ns)
wakeups_end=$(stats_field drive_wakeups)
cat <&4  # the rest of the load client's output: its summary
wait "$load_pid" && load_status=0 || load_status=$?
load_pid=

kill -TERM "$server_pid"
wait "$server_pid" || true
server_pid=

cpu_us=$(( (cpu_end - cpu_start) / 1000 ))
echo "server RSS: $rss_before KiB before, $rss_idle KiB with $connections idle connections:" \
     "$(( (rss_idle - rss_before) * 1024 / connections )) bytes per connection"
echo "server CPU while holding $connections silent connections for ${hold_seconds} s:" \
     "$(awk -v us="$cpu_us" 'BEGIN {printf "%.1f", us / 1000}') ms" \
     "($(awk -v us="$cpu_us" -v s="$hold_seconds" 'BEGIN {printf "%.3f", us / (s * 1e4)}')% of one core)," \
     "$((wakeups_end - wakeups_start)) drive-timer wakeups"
exit "$load_status"
