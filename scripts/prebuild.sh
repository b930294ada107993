# scripts/prebuild.sh: sourced by scripts/test, scripts/matrix, scripts/sanitize and
# scripts/windows (not run on its own). Builds ahead of the tests.
#
# The test command's parts alternate between compiling, which keeps both cores busy, and
# running tests, which mostly wait on sockets, timers and processes. So scripts/test starts,
# with the main build, one background job (the prebuilder: scripts/windows, scripts/sanitize
# and scripts/matrix with --build-only, at nice 19, its scheduler autogroup too) that
# configures and builds every later build directory in the order the tests will want them
# (two at a time), while the foreground builds the main suite and runs its tests, then each
# part's tests as soon as its build is there. Nice 19 gives the main build and the tests the
# CPU whenever they want it: the compilers only take what they leave. Each foreground part still
# configures and builds its directory itself, after the prebuilder has finished with it
# (wait_prebuilt): that finds nothing left to do, or, when the prebuilder's build failed,
# compiles the failing objects again, so that the error is in the part's own output.
# Without scripts/test (ASIO_WHEEL_PREBUILD unset) every script builds for itself, as before.
#
# ASIO_WHEEL_PREBUILD: a folder where the prebuilder leaves one file per build directory it
# has finished with (prebuilt_mark), and the file `pid` with its pid, which is its session's id.

# prebuild_running: a prebuilder was started (its pid file is there).
prebuild_running() { [[ -n "${ASIO_WHEEL_PREBUILD:-}" && -f "$ASIO_WHEEL_PREBUILD/pid" ]]; }

# prebuild_marker DIR: the marker file for the build directory DIR.
prebuild_marker() {
  echo "$ASIO_WHEEL_PREBUILD/$(realpath -m "$1" | tr '/' '_').done"
}

# prebuilt_mark DIR: the prebuilder is done with DIR (built, or its build failed).
prebuilt_mark() {
  [[ -n "${ASIO_WHEEL_PREBUILD:-}" ]] || return 0
  : >"$(prebuild_marker "$1")"
}

# wait_prebuilt DIR: returns once the prebuilder is done with DIR, or gone (then the caller
# builds DIR itself); at once without a prebuilder.
wait_prebuilt() {
  prebuild_running || return 0
  local marker pid waited=$SECONDS
  marker="$(prebuild_marker "$1")"
  pid="$(cat "$ASIO_WHEEL_PREBUILD/pid")"
  while [[ ! -f "$marker" ]] && kill -0 "$pid" 2>/dev/null; do
    sleep 1
  done
  echo "prebuild: waited $((SECONDS - waited)) s for the build of $1"
}

# The prebuilder's processes are found by their session (the prebuilder is a session
# leader): ninja puts each compiler in a process group of its own, so the prebuilder's
# process group would miss them. prebuild_signal SIGNAL sends SIGNAL to all of them.
prebuild_signal() {
  prebuild_running || return 0
  pkill "-$1" -s "$(cat "$ASIO_WHEEL_PREBUILD/pid")" 2>/dev/null || true
}

# prebuild_confine CPU: the prebuilder keeps off CPU (its processes, and those they start
# later, which inherit the affinity, run on the other CPUs), for tests pinned to CPU that
# must have it to themselves; prebuild_release: on every CPU again. Without another CPU
# (one core) the prebuilder stops meanwhile instead.
prebuild_confine() {
  prebuild_running || return 0
  local others
  others="$(seq 0 $(($(nproc --all) - 1)) | grep -vx "$1" | paste -sd, -)"
  if [[ -z "$others" ]]; then
    prebuild_signal STOP
    return 0
  fi
  prebuild_affinity "$others"
}
prebuild_release() {
  prebuild_running || return 0
  prebuild_affinity "0-$(($(nproc --all) - 1))"
  prebuild_signal CONT
}
prebuild_affinity() {
  local pid
  for pid in $(pgrep -s "$(cat "$ASIO_WHEEL_PREBUILD/pid")"); do
    taskset -a -pc "$1" "$pid" >/dev/null 2>&1 || true
  done
}
