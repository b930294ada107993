#!/usr/bin/env bash
# The keepalive chat demo, as README's first command runs it after the build:
# starts keepalive_chat_server on a free port with a short idle timeout, runs
# keepalive_chat_load against it with 10,000 connections, prints the client's
# summary, stops the server with SIGTERM and exits with the client's status
# (or the server's, if only the server failed).
#
#   example/keepalive_chat/run_demo.sh BUILD_DIR
#
# Environment overrides: DEMO_CONNECTIONS (10000), DEMO_ACTIVE (5% of them),
# DEMO_IDLE (3s), DEMO_TICK (10ms), DEMO_THREADS (1).
set -euo pipefail

build_dir=${1:?usage: run_demo.sh BUILD_DIR}
connections=${DEMO_CONNECTIONS:-10000}
active=${DEMO_ACTIVE:-$((connections / 20))}
idle=${DEMO_IDLE:-3s}
tick=${DEMO_TICK:-10ms}
threads=${DEMO_THREADS:-1}
server=$build_dir/example/keepalive_chat/keepalive_chat_server
load=$build_dir/example/keepalive_chat/keepalive_chat_load
for program in "$server" "$load"; do
  if [[ ! -x $program ]]; then
    echo "run_demo.sh: $program not found; build first (cmake --build $build_dir)" >&2
    exit 1
  fi
done

# Server and client each hold one descriptor per connection, plus a few.
needed_files=$((connections + 1024))
hard=$(ulimit -Hn)
if [[ $hard != unlimited && $hard -lt $needed_files ]]; then
  # Raising the hard limit needs root (CAP_SYS_RESOURCE); fine on a fresh machine as root.
  if ! ulimit -Hn "$needed_files" 2>/dev/null; then
    echo "run_demo.sh: need $needed_files open files per process, the hard limit is $hard;" \
         "run as root or lower DEMO_CONNECTIONS" >&2
    exit 1
  fi
fi
soft=$(ulimit -Sn)
if [[ $soft != unlimited && $soft -lt $needed_files ]]; then
  ulimit -Sn "$needed_files"
fi

work_dir=$(mktemp -d)
server_pid=
cleanup() {
  if [[ -n $server_pid ]] && kill -0 "$server_pid" 2>/dev/null; then
    kill -KILL "$server_pid" 2>/dev/null || true
  fi
  exec 3<&- 2>/dev/null || true
  rm -rf "$work_dir"
}
trap cleanup EXIT

# The server prints "listening on ADDRESS:PORT" first; a FIFO lets us wait
# for that line with a timeout instead of polling a file.
mkfifo "$work_dir/server_stdout"
"$server" --port 0 --idle-timeout "$idle" --tick "$tick" --threads "$threads" \
  --max-connections $((connections + 100)) >"$work_dir/server_stdout" &
server_pid=$!
exec 3<"$work_dir/server_stdout"
if ! IFS= read -r -t 10 first_line <&3; then
  echo "run_demo.sh: the server did not print its address within 10 s" >&2
  exit 1
fi
if [[ $first_line != "listening on "* ]]; then
  echo "run_demo.sh: unexpected first line from the server: $first_line" >&2
  exit 1
fi
address=${first_line#listening on }
port=${address##*:}
host=${address%:*}
host=${host#[}
host=${host%]}
echo "server pid $server_pid $first_line (idle timeout $idle, tick $tick, $threads thread(s))"
echo "load client: $connections connections, $active of them chatting"

client_status=0
"$load" --host "$host" --port "$port" --connections "$connections" --active "$active" || client_status=$?

# CPU the server used, and time it spent runnable but waiting for a CPU: when
# the lateness check fails on a busy machine, the second number says why.
if [[ -r /proc/$server_pid/schedstat ]]; then
  awk '{ on_cpu += $1; waiting += $2 }
       END { printf "server used %.2f s of CPU and waited %.2f s for one (runqueue wait, all threads)\n",
                    on_cpu / 1e9, waiting / 1e9 }' /proc/"$server_pid"/task/*/schedstat
fi

kill -TERM "$server_pid"
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
  echo "run_demo.sh: the server did not exit within 10 s of SIGTERM; killed" >&2
  kill -KILL "$server_pid" 2>/dev/null || true
  server_status=1
fi
server_pid=
echo "server exited with status $server_status after SIGTERM"
if [[ $client_status -ne 0 ]]; then exit "$client_status"; fi
exit "$server_status"
