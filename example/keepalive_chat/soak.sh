#!/usr/bin/env bash
# The soak of doc/reliability.md section 6: keepalive_chat_server under
# SOAK_CONNECTIONS connections that churn for SOAK_SECONDS (keepalive_chat_load
# --churn: each lives a random 1 to 20 s, talks, answers PINGs, leaves with
# /quit, closes, or stays silent until the idle timeout kicks it, and is
# replaced at once). On every progress line of the load client (every
# SOAK_SAMPLE) it samples the server: VmRSS, open descriptors, /stats
# connections and pending waits, CPU. It prints a table, writes a CSV (and a
# plot if gnuplot is installed), and ends with a verdict:
#   flat  after the first SOAK_WARMUP seconds, no RSS sample exceeds an earlier
#         one by more than SOAK_RSS_TOLERANCE percent of their minimum (at least
#         SOAK_RSS_FLOOR_KIB; falling is fine: malloc returning memory to the
#         kernel); in every sample the descriptors beyond those
#         held before the load match the server's connection count within
#         SOAK_FD_TOLERANCE; and after the load the server is back to no
#         connections, its descriptor count before the load and two pending
#         waits (those of the /stats connection asking);
#   exit 1 otherwise, or if the server died, or the load client saw a protocol
#         error (a wrong reply, an early or unexpected kick, a close without BYE).
#
#   example/keepalive_chat/soak.sh BUILD_DIR      (build with -DCMAKE_BUILD_TYPE=Release)
#
# Environment overrides: SOAK_CONNECTIONS (10000), SOAK_SECONDS (600),
# SOAK_IDLE (5s), SOAK_TICK (10ms), SOAK_MIN_LIFETIME (1s), SOAK_MAX_LIFETIME
# (20s), SOAK_SAMPLE (10, seconds), SOAK_WARMUP (60, seconds), SOAK_SOURCES (16 source
# addresses 127.0.0.2 and up), SOAK_RSS_TOLERANCE (5, percent),
# SOAK_RSS_FLOOR_KIB (1024), SOAK_FD_TOLERANCE (1 % of the connections, at
# least 20), SOAK_CSV (BUILD_DIR/soak.csv), SOAK_THREADS (1), SOAK_JUDGE_RSS
# (1; 0 reports the RSS without judging it, for a server built with
# AddressSanitizer, whose quarantine of freed memory grows for hundreds of MB).
set -euo pipefail

build_dir=${1:?usage: soak.sh BUILD_DIR}
connections=${SOAK_CONNECTIONS:-10000}
soak_seconds=${SOAK_SECONDS:-600}
idle=${SOAK_IDLE:-5s}
tick=${SOAK_TICK:-10ms}
min_lifetime=${SOAK_MIN_LIFETIME:-1s}
max_lifetime=${SOAK_MAX_LIFETIME:-20s}
sample=${SOAK_SAMPLE:-10}
warmup=${SOAK_WARMUP:-60}
sources=${SOAK_SOURCES:-16}
rss_tolerance=${SOAK_RSS_TOLERANCE:-5}
rss_floor_kib=${SOAK_RSS_FLOOR_KIB:-1024}
judge_rss=${SOAK_JUDGE_RSS:-1}
fd_tolerance=${SOAK_FD_TOLERANCE:-$(( connections / 100 > 20 ? connections / 100 : 20 ))}
csv=${SOAK_CSV:-$build_dir/soak.csv}
threads=${SOAK_THREADS:-1}
script=soak.sh
# shellcheck source=script_support.sh
source "$(dirname "$0")/script_support.sh"
raise_open_file_limit "$connections" "run as root or lower SOAK_CONNECTIONS"

fail() {
  echo "soak.sh: FAIL: $*"
  exit 1
}

# Sets $stats to the server's /stats line.
read_stats() { stats=$(server_stats_line) || fail "no STATS line within 5 s"; }
fd_count() { ls "/proc/$server_pid/fd" | wc -l; }
load_average() { cut -d' ' -f1-3 /proc/loadavg; }

start_server --idle-timeout "$idle" --tick "$tick" --threads "$threads" \
  --max-connections $((connections + 100))

fds_before=$(fd_count)
rss_before=$(rss_kib)
echo "soak: server pid $server_pid $first_line, idle timeout $idle, tick $tick, $threads thread(s), Release build expected"
echo "soak: $connections connections churning for ${soak_seconds} s, lifetimes $min_lifetime to $max_lifetime," \
     "$sources source addresses; sample every ${sample} s, warm-up ${warmup} s"
echo "soak: server before the load: RSS $rss_before KiB, $fds_before descriptors; load average $(load_average)"

# --connect-concurrency 1000: up to a tenth of the connections may await their
# WELCOME at once, so a burst of ends (the first generation's silent
# connections are all kicked within seconds of each other) is refilled at once.
mkfifo "$work_dir/load_stdout"
"$load" --port "$port" --connections "$connections" --churn "${soak_seconds}s" --connect-concurrency 1000 \
  --min-lifetime "$min_lifetime" --max-lifetime "$max_lifetime" --report-every "${sample}s" \
  --source-addresses "$sources" >"$work_dir/load_stdout" &
load_pid=$!
exec 4<"$work_dir/load_stdout"

echo "t_s,client_open,opened,closed,churn_per_s,server_connections,server_fds,fds_beyond_connections,server_rss_kib,server_cpu_s,server_cpu_pct,pending_waits" >"$csv"
row_format='%7s %7s %9s %9s %8s %8s %7s %7s %9s %8s %6s %8s\n'
printf "$row_format" t_s open opened closed churn/s s_conns s_fds beyond rss_kib cpu_s cpu% waits
cpu_start=$(cpu_ns)
last_t=0 last_opened=0 last_cpu=$cpu_start
# One sample per progress line; the client prints one every $sample s, so a
# silence much longer than that means it hangs.
read_timeout=$((sample + 60))
summary=
while true; do
  line=
  IFS= read -r -t "$read_timeout" line <&4 || {
    status=$?
    [[ $status -gt 128 ]] && fail "no output from the load client for $read_timeout s"
    break  # end of its output: it has exited
  }
  if [[ $line != "churn "* ]]; then
    summary+=$line$'\n'
    echo "$line"
    continue
  fi
  kill -0 "$server_pid" 2>/dev/null || fail "the server died (load client: $line)"
  open=$(field open "$line")
  [[ $open == 0 ]] && continue  # the client's last line, after everyone left: checked below
  t=$(field t "$line") opened=$(field opened "$line") closed=$(field closed "$line")
  # Descriptors counted between two /stats answers: at a thousand connections a
  # second the count moves while we look, so the descriptors are compared with
  # the range of the two counts. Each count leaves out our own /stats
  # connection (the previous one the server has usually closed by then).
  read_stats
  server_connections=$(( $(field connections "$stats") - 1 ))
  waits=$(field pending_waits "$stats")
  fds=$(fd_count)
  read_stats
  connections_then=$(( $(field connections "$stats") - 1 ))
  rss=$(rss_kib)
  cpu=$(cpu_ns)
  held=$((fds - fds_before))
  low=$(( server_connections < connections_then ? server_connections : connections_then ))
  high=$(( server_connections > connections_then ? server_connections : connections_then ))
  beyond=$(( held > high ? held - high : held < low ? held - low : 0 ))
  row=$(awk -v t="$t" -v lt="$last_t" -v o="$opened" -v lo="$last_opened" -v c="$cpu" -v lc="$last_cpu" -v c0="$cpu_start" '
    BEGIN { dt = t - lt; printf "%.1f,%.1f,%.1f", (o - lo) / dt, (c - c0) / 1e9, (c - lc) / 1e7 / dt }')
  IFS=, read -r churn_rate cpu_s cpu_pct <<<"$row"
  echo "$t,$open,$opened,$closed,$churn_rate,$server_connections,$fds,$beyond,$rss,$cpu_s,$cpu_pct,$waits" >>"$csv"
  printf "$row_format" "$t" "$open" "$opened" "$closed" "$churn_rate" "$server_connections" "$fds" "$beyond" \
    "$rss" "$cpu_s" "$cpu_pct" "$waits"
  last_t=$t last_opened=$opened last_cpu=$cpu
done
wait "$load_pid" && load_status=0 || load_status=$?
load_pid=
kill -0 "$server_pid" 2>/dev/null || fail "the server died"
cpu_total=$(awk -v c="$(cpu_ns)" -v c0="$cpu_start" 'BEGIN { printf "%.1f", (c - c0) / 1e9 }')

# Every client has gone; the server notices each close within moments. Poll
# (there is no event to wait for) for at most 10 s until it holds nothing more
# than before the load.
for _ in $(seq 100); do
  fds_after=$(fd_count)
  read_stats
  [[ $fds_after -le $fds_before && $(field connections "$stats") == 1 ]] && break
  sleep 0.1
done
rss_after=$(rss_kib)
connections_after=$(( $(field connections "$stats") - 1 ))
waits_after=$(field pending_waits "$stats")

stop_server TERM
server_status=${server_status:-"none (still running 10 s after SIGTERM; killed)"}

if command -v gnuplot >/dev/null; then
  gnuplot <<EOF || echo "soak: gnuplot failed; no plot"
set terminal pngcairo size 900,500 noenhanced
set output '${csv%.csv}.png'
set datafile separator ','
set key bottom right
set xlabel 'seconds'
set ylabel 'KiB'
set y2label 'descriptors, connections'
set ytics nomirror
set y2tics
set yrange [0:*]
set y2range [0:*]
set title 'keepalive_chat_server, $connections connections churning ($(basename "$csv"))'
plot '$csv' using 1:9 with linespoints axes x1y1 title 'server RSS (KiB, left)', \\
     '' using 1:7 with lines axes x1y2 title 'server descriptors (right)', \\
     '' using 1:6 with lines axes x1y2 title 'server connections (right)'
EOF
fi

# The verdict, from the CSV: the samples after the warm-up.
verdict=$(awk -F, -v warmup="$warmup" -v rss_tol="$rss_tolerance" -v rss_floor="$rss_floor_kib" -v fd_tol="$fd_tolerance" \
    -v judge_rss="$judge_rss" '
  function track(name, value) {
    if (!(name in low) || value < low[name]) low[name] = value
    if (!(name in high) || value > high[name]) high[name] = value
  }
  NR == 1 || $1 < warmup { next }
  {
    if (++n == 1) { t_first = $1; opened_first = $3; cpu_first = $10; rss_first = $9 }
    t_last = $1; opened_last = $3; cpu_last = $10; rss_last = $9
    # A leak makes the RSS rise above what it was before; the largest such rise.
    if (n == 1 || $9 < lowest_so_far) lowest_so_far = $9
    if ($9 - lowest_so_far > rise) rise = $9 - lowest_so_far
    track("rss", $9); track("beyond", $8); track("fds", $7); track("server", $6); track("client", $2)
    if ($8 < -fd_tol || $8 > fd_tol) fd_out++
  }
  END {
    if (n < 3) { printf "too-few %d\n", n; exit }
    allowed = rss_tol * low["rss"] / 100; if (allowed < rss_floor) allowed = rss_floor
    printf "%s %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %.0f %.0f\n",
           ((rise <= allowed || judge_rss == 0) && fd_out == 0) ? "flat" : "not-flat", n,
           rss_first, low["rss"], high["rss"], rss_last, rise + 0, allowed, low["beyond"], high["beyond"], fd_out + 0,
           low["fds"], high["fds"], low["server"], high["server"], low["client"], high["client"],
           (opened_last - opened_first) / (t_last - t_first) * 60, (cpu_last - cpu_first) / (t_last - t_first) * 100
  }' "$csv")
read -r shape samples rss_first rss_min rss_max rss_last rss_rise rss_allowed beyond_min beyond_max fd_out \
        fds_min fds_max server_min server_max client_min client_max churn_per_minute cpu_percent <<<"$verdict"

echo
echo "soak summary ($(date -u +%Y-%m-%dT%H:%MZ), load average now $(load_average))"
echo "  CSV: $csv$([[ -f ${csv%.csv}.png ]] && echo ", plot: ${csv%.csv}.png" || true)"
[[ $shape != too-few ]] || fail "only $samples sample(s) after the ${warmup} s warm-up; run longer or sample more often"
echo "  after the ${warmup} s warm-up, $samples samples:"
echo "    server RSS: first $rss_first, min $rss_min, max $rss_max, last $rss_last KiB;" \
     "largest rise above an earlier sample $rss_rise KiB" \
     "$([[ $judge_rss == 0 ]] && echo "(not judged: SOAK_JUDGE_RSS=0)" || echo "(allowed $rss_allowed)")"
echo "    server descriptors: $fds_min to $fds_max for $server_min to $server_max connections" \
     "(the load client held $client_min to $client_max);"
echo "      beyond the connections and the $fds_before held before the load: $beyond_min to $beyond_max" \
     "(allowed +-$fd_tolerance), $fd_out sample(s) outside"
echo "    churn: $churn_per_minute connections opened and closed per minute; server CPU $cpu_percent % of one core"
echo "  server CPU over the whole load: $cpu_total s"
echo "  after the load: $connections_after connections, $fds_after descriptors ($fds_before before), RSS $rss_after KiB," \
     "$waits_after pending waits; server exit status after SIGTERM: $server_status"
problems=()
[[ $shape == flat ]] || problems+=("RSS or descriptors not flat after the warm-up")
[[ $connections_after == 0 && $fds_after -le $fds_before ]] ||
  problems+=("the server still holds $connections_after connection(s), $((fds_after - fds_before)) descriptor(s) more than before the load")
[[ $waits_after == 2 ]] || problems+=("$waits_after pending waits after the load, expected 2 (the /stats connection's)")
[[ $load_status == 0 ]] || problems+=("the load client failed (status $load_status): $(grep '^result:' <<<"$summary" || true)")
[[ $server_status == 0 ]] || problems+=("server exit status after SIGTERM: $server_status")
if [[ ${#problems[@]} -gt 0 ]]; then
  for problem in "${problems[@]}"; do echo "soak.sh: FAIL: $problem"; done
  exit 1
fi
if [[ $judge_rss == 0 ]]; then
  echo "soak: PASS (RSS not judged; descriptors within +-$fd_tolerance of the connections, all released after the load)"
else
  echo "soak: flat (RSS rose by at most $rss_allowed KiB, descriptors within +-$fd_tolerance of the connections, all released after the load)"
fi
