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
# DEMO_IDLE (3s), DEMO_TICK (10ms), DEMO_THREADS (1: threads running the one
# io_context), DEMO_CONTEXTS (1: io_contexts of one thread each, the other shape
# on several cores; not with DEMO_THREADS), DEMO_TIMERS (wheel: the server's
# --timers, a session's timers; steady or steady-lazy to compare). It prints the
# shape it ran ("shape: 2 contexts, 1 thread each" or "shape: 1 context, 2 threads").
set -euo pipefail

build_dir=${1:?usage: run_demo.sh BUILD_DIR}
connections=${DEMO_CONNECTIONS:-10000}
active=${DEMO_ACTIVE:-$((connections / 20))}
idle=${DEMO_IDLE:-3s}
tick=${DEMO_TICK:-10ms}
threads=${DEMO_THREADS:-1}
contexts=${DEMO_CONTEXTS:-1}
timers=${DEMO_TIMERS:-wheel}
script=run_demo.sh
# shellcheck source=script_support.sh
source "$(dirname "$0")/script_support.sh"
raise_open_file_limit "$connections" "run as root or lower DEMO_CONNECTIONS"
start_server --idle-timeout "$idle" --tick "$tick" --threads "$threads" --contexts "$contexts" \
  --max-connections $((connections + 100)) --timers "$timers"
if [[ $contexts -gt 1 ]]; then
  shape="$contexts contexts, 1 thread each"
else
  shape="1 context, $threads thread"
  if [[ $threads -gt 1 ]]; then shape+=s; fi
fi
echo "server pid $server_pid $first_line (idle timeout $idle, tick $tick, --timers $timers)"
echo "shape: $shape"
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

stop_server TERM
server_status=${server_status:-1}  # empty: still running after 10 s, killed
echo "server exited with status $server_status after SIGTERM"
if [[ $client_status -ne 0 ]]; then exit "$client_status"; fi
exit "$server_status"
