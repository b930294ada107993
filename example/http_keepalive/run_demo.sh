#!/usr/bin/env bash
# The HTTP keep-alive demo: starts http_keepalive (Beast's keep-alive server on
# asio_wheel::beast::tcp_stream, a timeout on every read) on a free port, loads it
# with wrk over DEMO_CONNECTIONS keep-alive connections for DEMO_SECONDS, prints
# wrk's report and the server's CPU per request, stops the server with SIGINT
# and exits 0 only if wrk saw no socket error or non-2xx response and the server
# exited with status 0 within 10 s.
#
#   example/http_keepalive/run_demo.sh BUILD_DIR
#
# Environment overrides: DEMO_CONNECTIONS (1000), DEMO_SECONDS (10),
# DEMO_PROGRAM (http_keepalive; http_keepalive_beast runs Beast's own stream).
set -euo pipefail

build_dir=${1:?usage: run_demo.sh BUILD_DIR}
connections=${DEMO_CONNECTIONS:-1000}
seconds=${DEMO_SECONDS:-10}
program=${DEMO_PROGRAM:-http_keepalive}
server=$build_dir/example/http_keepalive/$program
script=run_demo.sh
# The work directory, start_server, stop_server, ...
# shellcheck source=../common/script_support.sh
source "$(dirname "$0")/../common/script_support.sh"

require_built "$server"
command -v wrk >/dev/null 2>&1 || { echo "$script: wrk not found (Debian: apt-get install wrk)" >&2; exit 1; }
# wrk and the server each hold one descriptor per connection.
raise_open_file_limit "$connections" "run as root or lower DEMO_CONNECTIONS"

# shellcheck disable=SC2119  # no flags of its own: the server's defaults
start_server
echo "$program (pid $server_pid) $first_line; wrk: $connections connections, ${seconds} s"

# utime + stime of the server, in clock ticks (fields 14 and 15 of /proc/PID/stat,
# counted after the command name, which is in parentheses).
cpu_ticks() { sed 's/.*) //' "/proc/$server_pid/stat" | awk '{ print $12 + $13 }'; }
before=$(cpu_ticks)
wrk -t1 -c"$connections" -d"${seconds}s" --timeout 10s "http://$address/" | tee "$work_dir/wrk.txt"
after=$(cpu_ticks)

requests=$(awk '/requests in/ { print $1 }' "$work_dir/wrk.txt")
status=0
if grep -q "Socket errors\|Non-2xx" "$work_dir/wrk.txt"; then
  echo "$script: wrk reported socket errors or non-2xx responses" >&2
  status=1
fi
if [[ -n $requests && $requests -gt 0 ]]; then
  awk -v t=$((after - before)) -v hz="$(getconf CLK_TCK)" -v r="$requests" \
    'BEGIN { printf "server CPU: %.2f s for %d requests, %.1f us per request\n", t / hz, r, t / hz / r * 1e6 }'
else
  echo "$script: wrk completed no request" >&2
  status=1
fi

stop_server INT
server_status=${server_status:-1}  # empty: still running after 10 s, killed
echo "server exited with status $server_status after SIGINT"
if [[ $server_status -ne 0 ]]; then exit "$server_status"; fi
exit "$status"
