# What run_demo.sh, measure_idle.sh and soak.sh share: finding the two
# binaries, raising the open-file limit, a work directory cleaned up on exit
# (with the server and load client killed if still running), starting the
# server and reading its address, and reading the server's /stats and /proc.
# Sourced, after `set -euo pipefail`, with $script set to the script's name
# (for messages) and $build_dir to the build directory. Sourcing it sets
# $server and $load, creates $work_dir and installs the EXIT trap.

server=$build_dir/example/keepalive_chat/keepalive_chat_server
load=$build_dir/example/keepalive_chat/keepalive_chat_load
for program in "$server" "$load"; do
  if [[ ! -x $program ]]; then
    echo "$script: $program not found; build first (cmake --build $build_dir)" >&2
    exit 1
  fi
done

work_dir=$(mktemp -d)
server_pid= load_pid=
cleanup() {
  for pid in $load_pid $server_pid; do kill -KILL "$pid" 2>/dev/null || true; done
  exec 3<&- 4<&- 2>/dev/null || true
  rm -rf "$work_dir"
}
trap cleanup EXIT

# raise_open_file_limit CONNECTIONS HINT: server and client each hold one
# descriptor per connection, plus a few. Raising the hard limit needs root
# (CAP_SYS_RESOURCE); HINT says what else to do.
raise_open_file_limit() {
  local needed=$(($1 + 1024)) hard soft
  hard=$(ulimit -Hn)
  if [[ $hard != unlimited && $hard -lt $needed ]] && ! ulimit -Hn "$needed" 2>/dev/null; then
    echo "$script: need $needed open files per process, the hard limit is $hard; $2" >&2
    exit 1
  fi
  soft=$(ulimit -Sn)
  if [[ $soft != unlimited && $soft -lt $needed ]]; then ulimit -Sn "$needed"; fi
}

# start_server FLAGS...: starts the server on a free port with FLAGS, its
# stdout on descriptor 3, and waits (at most 10 s) for its first line,
# "listening on ADDRESS:PORT"; a FIFO lets us wait with a timeout instead of
# polling a file. Sets $server_pid, $first_line, $host and $port.
start_server() {
  mkfifo "$work_dir/server_stdout"
  "$server" --port 0 "$@" >"$work_dir/server_stdout" &
  server_pid=$!
  exec 3<"$work_dir/server_stdout"
  if ! IFS= read -r -t 10 first_line <&3; then
    echo "$script: the server did not print its address within 10 s" >&2
    exit 1
  fi
  if [[ $first_line != "listening on "* ]]; then
    echo "$script: unexpected first line from the server: $first_line" >&2
    exit 1
  fi
  local address=${first_line#listening on }
  port=${address##*:}
  host=${address%:*}
  host=${host#[}
  host=${host%]}
}

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
