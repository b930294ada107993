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
server=$build_dir/example/keepalive_chat/keepalive_chat_server
load=$build_dir/example/keepalive_chat/keepalive_chat_load
for program in "$server" "$load"; do
  [[ -x $program ]] || { echo "measure_idle.sh: $program not found; build first" >&2; exit 1; }
done

needed_files=$((connections + 1024))
hard=$(ulimit -Hn)
if [[ $hard != unlimited && $hard -lt $needed_files ]]; then
  ulimit -Hn "$needed_files" 2>/dev/null || { echo "measure_idle.sh: need $needed_files open files (hard limit $hard)" >&2; exit 1; }
fi
soft=$(ulimit -Sn)
if [[ $soft != unlimited && $soft -lt $needed_files ]]; then ulimit -Sn "$needed_files"; fi

work_dir=$(mktemp -d)
server_pid= load_pid=
cleanup() {
  for pid in $load_pid $server_pid; do kill -KILL "$pid" 2>/dev/null || true; done
  exec 3<&- 4<&- 2>/dev/null || true
  rm -rf "$work_dir"
}
trap cleanup EXIT

# One field of the server's /stats line, over a short-lived connection of our own.
stats_field() {
  exec 5<>"/dev/tcp/127.0.0.1/$port"
  printf '/stats\n' >&5
  local line
  while IFS= read -r -t 5 line <&5; do
    if [[ $line == STATS* ]]; then
      exec 5<&-
      sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<<"$line"
      return
    fi
  done
  exec 5<&-
  echo "?"
}
rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
# CPU time of all the process's threads in nanoseconds (schedstat's first field;
# /proc/PID/stat's utime and stime only have 10 ms resolution).
cpu_ns() { cat /proc/"$1"/task/*/schedstat | awk '{ total += $1 } END { printf "%.0f\n", total }'; }

mkfifo "$work_dir/server_stdout" "$work_dir/load_stdout"
"$server" --port 0 --idle-timeout 60s --max-connections $((connections + 100)) >"$work_dir/server_stdout" &
server_pid=$!
exec 3<"$work_dir/server_stdout"
IFS= read -r -t 10 first_line <&3 || { echo "measure_idle.sh: no listening line from the server" >&2; exit 1; }
port=${first_line##*:}

rss_before=$(rss_kib "$server_pid")
"$load" --port "$port" --connections "$connections" --hold $((settle_seconds + hold_seconds + 2))s \
  >"$work_dir/load_stdout" &
load_pid=$!
exec 4<"$work_dir/load_stdout"
IFS= read -r -t 120 progress <&4 || { echo "measure_idle.sh: the load client did not open its connections" >&2; exit 1; }
echo "$progress"
# Let the last welcomes and accepts settle before the clock starts.
sleep "$settle_seconds"
rss_idle=$(rss_kib "$server_pid")
cpu_start=$(cpu_ns "$server_pid")
wakeups_start=$(stats_field drive_wakeups)
sleep "$hold_seconds"  # the measured interval itself
cpu_end=$(cpu_ns "$server_pid")
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
