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

if [[ ! -x $server ]]; then
  echo "$script: $server not found; build first (cmake --build $build_dir --target $program)" >&2
  exit 1
fi
command -v wrk >/dev/null 2>&1 || { echo "$script: wrk not found (Debian: apt-get install wrk)" >&2; exit 1; }
# wrk and the server each hold one descriptor per connection.
needed=$((connections + 1024))
if [[ $(ulimit -Hn) != unlimited && $(ulimit -Hn) -lt $needed ]] && ! ulimit -Hn "$needed" 2>/dev/null; then
  echo "$script: need $needed open files, the hard limit is $(ulimit -Hn); run as root or lower DEMO_CONNECTIONS" >&2
  exit 1
fi
if [[ $(ulimit -Sn) != unlimited && $(ulimit -Sn) -lt $needed ]]; then ulimit -Sn "$needed"; fi

work_dir=$(mktemp -d)
server_pid=
cleanup() {
  [[ -n $server_pid ]] && kill -KILL "$server_pid" 2>/dev/null || true
  exec 3<&- 2>/dev/null || true
  rm -rf "$work_dir"
}
trap cleanup EXIT

# The server's first line is "listening on ADDRESS:PORT"; a FIFO lets us wait for
# it with a timeout.
mkfifo "$work_dir/server_stdout"
"$server" --port 0 >"$work_dir/server_stdout" &
server_pid=$!
exec 3<"$work_dir/server_stdout"
if ! IFS= read -r -t 10 first_line <&3 || [[ $first_line != "listening on "* ]]; then
  echo "$script: the server did not print 'listening on ADDRESS:PORT' within 10 s" >&2
  exit 1
fi
address=${first_line#listening on }
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

kill -INT "$server_pid"
server_status=
for _ in $(seq 100); do  # at most 10 s
  if ! kill -0 "$server_pid" 2>/dev/null; then
    server_status=0
    wait "$server_pid" || server_status=$?
    break
  fi
  sleep 0.1
done
server_pid_was=$server_pid
server_pid=
if [[ -z $server_status ]]; then
  echo "$script: the server did not exit within 10 s of SIGINT; killed" >&2
  kill -KILL "$server_pid_was" 2>/dev/null || true
  server_status=1
fi
echo "server exited with status $server_status after SIGINT"
if [[ $server_status -ne 0 ]]; then exit "$server_status"; fi
exit "$status"
