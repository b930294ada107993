//
// test/bench/clock_reads.cpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// Benchmark W2 against libev (doc/benchmarks.md, "W2 against libev: the
// clock read"): what the clock read of a refresh costs, and why a refresh
// cannot skip it or use a coarser clock.
//
// reschedule_after(d) stores Clock::now() + d; libev's ev_timer_again stores
// the loop's cached time + d and reads no clock. A refresh may skip the
// precise read only if something cheaper still bounds the current time from
// above, otherwise the timeout can end up shorter than asked. This program
// measures, on this machine:
//
//   - the CPU cost of one read of each candidate: steady_clock::now()
//     (CLOCK_MONOTONIC through the vDSO), CLOCK_MONOTONIC_COARSE (the time
//     of the kernel's last tick, read from the vDSO page without a counter),
//     and on x86-64 the raw TSC (RDTSC alone, before any conversion to
//     time), to set against libev's whole refresh from churn_libev.cpp;
//   - how far CLOCK_MONOTONIC_COARSE lags CLOCK_MONOTONIC (pairs of reads,
//     coarse first, for --seconds): "coarse + one tick" is never early only
//     if the lag never exceeds the wheel's tick (1 ms by default), and the
//     kernel gives no such bound, only clock_getres().
//
// Linux only (CLOCK_MONOTONIC_COARSE), as the benchmarks are.
//

#include "bench_support.hpp"

#include <asio_wheel.hpp>

#include <time.h>
#if defined(__x86_64__)
# include <x86intrin.h>
#endif

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {

std::int64_t to_ns(const timespec& t)
{
  return static_cast<std::int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec;
}

/// CPU ns per call of `read` over `count` calls; the values are summed into
/// `sink` so that no read can be dropped.
template <class Read>
double ns_per_read(std::size_t count, std::uint64_t& sink, Read read)
{
  const bench::stopwatch watch;
  for (std::size_t i = 0; i < count; ++i)
    sink += read();
  return bench::to_ns(watch.cpu()) / static_cast<double>(count);
}

struct lag_result
{
  std::size_t samples = 0;
  double max_ms = 0;
  double p999_ms = 0;
  std::size_t over_tick = 0;  // samples whose lag exceeded the wheel's tick
  std::size_t negative = 0;  // coarse ahead of fine: must never happen
};

/// CLOCK_MONOTONIC - CLOCK_MONOTONIC_COARSE, the coarse clock read first,
/// pair after pair for `duration`. The lags go into a histogram of 10 us
/// buckets (the last one holds everything from 100 ms on); the maximum is
/// exact.
lag_result measure_coarse_lag(
    std::chrono::milliseconds duration, std::int64_t tick_ns)
{
  constexpr std::int64_t bucket_ns = 10000;
  std::vector<std::size_t> histogram(10001);
  std::int64_t max_lag = 0;
  lag_result r;
  const auto end = std::chrono::steady_clock::now() + duration;
  while (std::chrono::steady_clock::now() < end)
  {
    for (int i = 0; i < 1024; ++i)
    {
      timespec coarse, fine;
      clock_gettime(CLOCK_MONOTONIC_COARSE, &coarse);
      clock_gettime(CLOCK_MONOTONIC, &fine);
      const std::int64_t lag = to_ns(fine) - to_ns(coarse);
      if (lag < 0)
      {
        ++r.negative;
        continue;
      }
      r.over_tick += lag > tick_ns ? 1 : 0;
      max_lag = std::max(max_lag, lag);
      ++histogram[std::min<std::size_t>(
          static_cast<std::size_t>(lag / bucket_ns), histogram.size() - 1)];
      ++r.samples;
    }
  }
  r.max_ms = static_cast<double>(max_lag) / 1e6;
  // p99.9: the upper edge of the bucket where 99.9 % of the pairs are reached.
  std::size_t seen = 0;
  for (std::size_t b = 0; b < histogram.size(); ++b)
  {
    seen += histogram[b];
    if (static_cast<double>(seen) >= 0.999 * static_cast<double>(r.samples))
    {
      r.p999_ms = static_cast<double>((b + 1) * bucket_ns) / 1e6;
      break;
    }
  }
  return r;
}

}  // namespace

int main(int argc, char** argv)
{
  const bench::options opts = bench::parse_options(argc, argv);
  bench::report report("clock_reads", opts);
  const std::size_t reads = opts.smoke ? 100000 : 20000000;
  const int reps = opts.reps ? opts.reps : (opts.smoke ? 1 : 3);
  const std::int64_t tick_ns = asio_wheel::wheel_options().tick.count();

  std::printf("W2 against libev: the clock read of a refresh\n"
              "CPU ns per read, median of %d x %zu reads\n\n",
      reps, reads);
  std::uint64_t sink = 0;
  struct candidate
  {
    const char* name;
    double (*measure)(std::size_t, std::uint64_t&);
  };
  const candidate candidates[] = {
    {"steady_clock_now",
        [](std::size_t n, std::uint64_t& s) {
          return ns_per_read(n, s, [] {
            return static_cast<std::uint64_t>(
                std::chrono::steady_clock::now().time_since_epoch().count());
          });
        }},
    {"monotonic_coarse",
        [](std::size_t n, std::uint64_t& s) {
          return ns_per_read(n, s, [] {
            timespec t;
            clock_gettime(CLOCK_MONOTONIC_COARSE, &t);
            return static_cast<std::uint64_t>(to_ns(t));
          });
        }},
#if defined(__x86_64__)
    {"rdtsc",
        [](std::size_t n, std::uint64_t& s) {
          return ns_per_read(
              n, s, [] { return static_cast<std::uint64_t>(__rdtsc()); });
        }},
#endif
  };
  std::printf("%-18s %12s\n", "read", "CPU ns");
  for (const candidate& c : candidates)
  {
    std::vector<double> samples;
    for (int rep = 0; rep < reps; ++rep)
      samples.push_back(c.measure(reads, sink));
    const double ns = bench::median(samples);
    std::printf("%-18s %12.1f\n", c.name, ns);
    report.measure("W2", c.name, 0, "ns_per_read", ns);
  }
  report.check(sink != 0, "the clocks were read");

  timespec res;
  clock_getres(CLOCK_MONOTONIC_COARSE, &res);
  const double res_ms = static_cast<double>(to_ns(res)) / 1e6;
  const auto watch = opts.smoke ? std::chrono::milliseconds(20)
                                : std::chrono::milliseconds(2000);
  const lag_result lag = measure_coarse_lag(watch, tick_ns);
  std::printf(
      "\nCLOCK_MONOTONIC_COARSE behind CLOCK_MONOTONIC, %zu read pairs over "
      "%lld ms:\n  resolution (clock_getres) %.3f ms, p99.9 %.3f ms, max %.3f "
      "ms; "
      "%zu pairs (%.2f %%) lag more than the wheel's default tick (%.3f ms)\n",
      lag.samples, static_cast<long long>(watch.count()), res_ms, lag.p999_ms,
      lag.max_ms, lag.over_tick,
      lag.samples ? 100.0 * static_cast<double>(lag.over_tick)
              / static_cast<double>(lag.samples)
                  : 0.0,
      static_cast<double>(tick_ns) / 1e6);
  report.check(lag.negative == 0,
      "CLOCK_MONOTONIC_COARSE never read ahead of CLOCK_MONOTONIC");
  report.measure("W2", "monotonic_coarse", 0, "resolution_ms", res_ms);
  report.measure("W2", "monotonic_coarse", 0, "lag_p999_ms", lag.p999_ms);
  report.measure("W2", "monotonic_coarse", 0, "lag_max_ms", lag.max_ms);
  report.measure("W2", "monotonic_coarse", 0, "lag_over_tick_share",
      lag.samples ? static_cast<double>(lag.over_tick)
              / static_cast<double>(lag.samples)
                  : 0.0);
  report.note("lag_pairs", std::to_string(lag.samples));
  report.note("wheel_tick_ns", std::to_string(tick_ns));
  return report.finish();
}
