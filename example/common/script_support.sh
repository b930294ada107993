# shellcheck shell=bash
#
# example/common/script_support.sh
#
# What the examples' scripts share (keepalive_chat's run_demo.sh, measure_idle.sh and soak.sh
# through keepalive_chat/script_support.sh, and http_keepalive's run_demo.sh): checking that
# the programs are built, raising the open-file limit, a work directory removed on exit (the
# server and the load client killed if still running), starting a server that prints
# "listening on ADDRESS:PORT" first and reading its address, and stopping it with a signal.
# Sourced, after `set -euo pipefail`, with $script set to the script's name (for messages)
# and $build_dir to the build directory. Sourcing it creates $work_dir and installs the EXIT
# trap; a script that starts a load client records its pid in $load_pid.

work_dir=$(mktemp -d)
server_pid='' load_pid=''
cleanup() {
  for pid in $load_pid $server_pid; do kill -KILL "$pid" 2>/dev/null || true; done
  exec 3<&- 4<&- 2>/dev/null || true
  rm -rf "$work_dir"
}
trap cleanup EXIT

# require_built PROGRAM...: each must exist and be executable, else the script stops.
require_built() {
  local program
  for program in "$@"; do
    if [[ ! -x $program ]]; then
      echo "$script: $program not found; build first (cmake --build $build_dir --target ${program##*/})" >&2
      exit 1
    fi
  done
}

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

# start_server FLAGS...: starts $server on a free port with FLAGS, its stdout on
# descriptor 3, and waits (at most 10 s) for its first line, "listening on
# ADDRESS:PORT"; a FIFO lets us wait with a timeout instead of polling a file.
# Sets $server_pid, $first_line, $address (ADDRESS:PORT as printed), $host and $port.
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
  address=${first_line#listening on }
  port=${address##*:}
  host=${address%:*}
  host=${host#[}
  host=${host%]}
}

# stop_server SIGNAL: sends SIGNAL (TERM, INT) to the server and waits for it to
# exit, at most 10 s. Sets $server_status to its exit status; if it was still
# running, kills it, says so and leaves $server_status empty. Clears $server_pid.
stop_server() {
  kill -"$1" "$server_pid"
  server_status=
  for _ in $(seq 100); do  # at most 10 s
    if ! kill -0 "$server_pid" 2>/dev/null; then
      server_status=0
      wait "$server_pid" || server_status=$?
      break
    fi
    sleep 0.1
  done
  if [[ -z $server_status ]]; then
    echo "$script: the server did not exit within 10 s of SIG$1; killed" >&2
    kill -KILL "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  server_pid=
}
