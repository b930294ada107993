# scripts/ctest-once.sh: sourced by scripts/test, scripts/matrix, scripts/sanitize and
# scripts/windows (not run on its own). Every test runs once; a second try only for the
# failed tests labelled real_time.
# ---- One try for every test, a second only for those labelled real_time -----------------
# ctest_once PART DIR [CTEST_ARGS...] runs the tests of the build DIR once, with CTEST_ARGS
# (-j, -L, -E, ...), no retry. Then the tests that failed and carry the CTest label real_time
# (they time real sockets, processes or wall-clock time on a shared machine, see
# test/CMakeLists.txt) run once more, one at a time; a failed test without the label gets no
# second try. Fails if a test without the label failed or a labelled one failed twice. Each
# test that passed at its second try is added to second_tries as "NAME (PART)" and, when
# ASIO_WHEEL_SECOND_TRIES names a file (scripts/test sets it), appended to that file
# (record_second_try).
second_tries=()
ctest_once() {
  local part="$1" dir="$2"
  shift 2
  local log="$dir/Testing/Temporary/LastTestsFailed.log"
  rm -f "$log"
  ctest --test-dir "$dir" --output-on-failure "$@" && return 0
  if [[ ! -s $log ]]; then
    echo "ctest ($part): FAILED, with no failed test recorded in $log"
    return 1
  fi
  local failed labelled name again="" rc=0 retry=()
  failed="$(sed -n 's/^[0-9]*://p' "$log")"
  labelled="$(ctest --test-dir "$dir" -N -L '^real_time$' 2>/dev/null \
    | sed -n 's/^ *Test *#[0-9]*: //p')"
  while IFS= read -r name; do
    if grep -qxF -e "$name" <<<"$labelled"; then
      retry+=("$name")
    else
      echo "ctest ($part): $name FAILED (no second try: not labelled real_time)"
      rc=1
    fi
  done <<<"$failed"
  if ((${#retry[@]} == 0)); then
    return 1
  fi
  echo "ctest ($part): a second try, one at a time, for the real_time tests that failed: ${retry[*]}"
  rm -f "$log"
  if ! ctest --test-dir "$dir" --output-on-failure --no-tests=error -j 1 -R \
      "^($(printf '%s\n' "${retry[@]}" | sed 's/[][\\.*^$+?()|]/\\&/g' | paste -sd '|'))\$"; then
    again="$(sed -n 's/^[0-9]*://p' "$log" 2>/dev/null)"
    [[ -n $again ]] || again="$(printf '%s\n' "${retry[@]}")"  # nothing recorded: all failed
  fi
  for name in "${retry[@]}"; do
    if grep -qxF -e "$name" <<<"$again"; then
      echo "ctest ($part): $name FAILED twice"
      rc=1
    else
      echo "ctest ($part): $name passed at its second try"
      record_second_try "$name" "$part"
    fi
  done
  return "$rc"
}

# record_second_try NAME PART: NAME passed at its second try in PART.
record_second_try() {
  second_tries+=("$1 ($2)")
  if [[ -n ${ASIO_WHEEL_SECOND_TRIES:-} ]]; then
    echo "$1 ($2)" >>"$ASIO_WHEEL_SECOND_TRIES"
  fi
}

# say_second_tries WHO: the closing line of WHO (this script) on the tests that needed a
# second try.
say_second_tries() {
  if ((${#second_tries[@]} == 0)); then
    echo "$1: no test needed a second try"
  else
    local joined
    printf -v joined '%s, ' "${second_tries[@]}"
    echo "$1: needed a second try: ${joined%, }"
  fi
}
