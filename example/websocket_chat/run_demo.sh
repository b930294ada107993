#!/usr/bin/env bash
# The WebSocket chat demo (scripts/demo --websocket runs it after the build): starts
# websocket_chat_server on a free port with a short idle timeout (Beast's own, with keep-alive
# pings, its timer routed to the wheel by default), runs websocket_chat_load against it with
# 10,000 connections, prints the client's summary, stops the server with SIGTERM and exits
# with the client's status (or the server's, if only the server failed). It prints the chat
# page's address, http://ADDRESS:PORT/, which a browser on this machine can open while the
# demo runs; with DEMO_STAY=1 the server stays up after the load client, for the browser,
# until Ctrl-C.
#
#   example/websocket_chat/run_demo.sh BUILD_DIR
#
# Environment overrides: DEMO_CONNECTIONS (10000), DEMO_ACTIVE (5% of them), DEMO_IDLE (3s),
# DEMO_TICK (10ms), DEMO_TIMERS (wheel; beast: Beast's own steady_timers; off: no timeouts,
# where the client instead holds every connection for DEMO_HOLD, 3s, and expects all to
# survive), DEMO_THREADS (1: threads running the one io_context), DEMO_CONTEXTS (1:
# io_contexts of one thread each, the other shape on several cores; not with DEMO_THREADS),
# DEMO_STAY (empty; 1: keep the server after the load client until Ctrl-C). It prints the
# shape it ran ("shape: 2 contexts, 1 thread each" or "shape: 1 context, 2 threads").
set -euo pipefail

build_dir=${1:?usage: run_demo.sh BUILD_DIR}
connections=${DEMO_CONNECTIONS:-10000}
active=${DEMO_ACTIVE:-$((connections / 20))}
idle=${DEMO_IDLE:-3s}
tick=${DEMO_TICK:-10ms}
timers=${DEMO_TIMERS:-wheel}
hold=${DEMO_HOLD:-3s}
threads=${DEMO_THREADS:-1}
contexts=${DEMO_CONTEXTS:-1}
stay=${DEMO_STAY:-}
script=run_demo.sh
server=$build_dir/example/websocket_chat/websocket_chat_server
load=$build_dir/example/websocket_chat/websocket_chat_load
# shellcheck source=../common/script_support.sh
source "$(dirname "$0")/../common/script_support.sh"
require_built "$server" "$load"
raise_open_file_limit "$connections" "run as root or lower DEMO_CONNECTIONS"
start_server --timers "$timers" --idle-timeout "$idle" --tick "$tick" \
  --threads "$threads" --contexts "$contexts" --max-connections $((connections + 100))
if [[ $contexts -gt 1 ]]; then
  shape="$contexts contexts, 1 thread each"
else
  shape="1 context, $threads thread"
  if [[ $threads -gt 1 ]]; then shape+=s; fi
fi
echo "server pid $server_pid $first_line (--timers $timers, idle timeout $idle with keep-alive pings, tick $tick)"
echo "shape: $shape"
echo "chat page: http://$address/ (open it in a browser on this machine; DEMO_STAY=1 keeps the server up after the load client)"
load_flags=(--host "$host" --port "$port" --connections "$connections" --active "$active")
if [[ $timers == off ]]; then
  echo "load client: $connections connections, $active of them chatting, all held for $hold (no timeouts to check)"
  load_flags+=(--hold "$hold")
else
  echo "load client: $connections connections, $active of them chatting and answering pings, the rest silent"
fi

client_status=0
"$load" "${load_flags[@]}" || client_status=$?

if [[ -r /proc/$server_pid/schedstat ]]; then
  awk '{ on_cpu += $1; waiting += $2 }
       END { printf "server used %.2f s of CPU and waited %.2f s for one (runqueue wait, all threads)\n",
                    on_cpu / 1e9, waiting / 1e9 }' /proc/"$server_pid"/task/*/schedstat
fi

if [[ $stay == 1 ]]; then
  echo "chat page: http://$address/ (the server stays up; Ctrl-C stops it)"
  # Ctrl-C: the server says goodbye to the pages (1001, server-shutdown) and exits.
  trap 'stop_server TERM || true; echo "server exited with status ${server_status:-?}"; exit "$client_status"' INT
  wait "$server_pid" || true
  trap - INT
fi
if kill -0 "$server_pid" 2>/dev/null; then
  stop_server TERM
else
  server_status=0
  wait "$server_pid" || server_status=$?
fi
server_status=${server_status:-1}  # empty: still running after 10 s, killed
echo "server exited with status $server_status after SIGTERM"
if [[ $client_status -ne 0 ]]; then exit "$client_status"; fi
exit "$server_status"
