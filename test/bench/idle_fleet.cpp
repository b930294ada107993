//
// test/bench/idle_fleet.cpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// Benchmark W4 (idle fleet, doc/benchmarks.md): 100k waits at 30 s and no
// traffic, watched for 2 s. An idle server must not wake up: the budget is 0
// event-loop wakeups and CPU ~ 0 for the wheel (steady_timer, whose kernel
// timer is simply set to the earliest expiry, is the reference).
//
// How wakeups are counted: the program calls io.run() once, which blocks in
// epoll_wait; one extra steady_timer, due at the end of the watch, stops the
// loop from inside (no second thread, so no lock contention adds context
// switches). Every return from a blocking epoll_wait is one voluntary
// context switch of the thread (getrusage(RUSAGE_THREAD)), so the loop's
// wakeups are the voluntary switches minus the one that ends the watch. For
// the wheel, the service's wakeups counter must agree.
//

#include "bench_support.hpp"

#include <asio_wheel.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;

struct fleet_result
{
  double watch_ms = 0;  // how long the loop actually ran
  long loop_wakeups = 0;  // epoll returns, the stop excluded
  long preemptions = 0;  // involuntary switches (machine noise)
  double cpu_ms = 0;  // loop thread CPU during the watch
  std::size_t handlers_ran = 0;  // must be 0: nothing expires in 2 s
  std::int64_t wakeups = -1;  // wheel only
  std::int64_t empty_wakeups = -1;  // wheel only
};

template <class Timer>
fleet_result run_idle_fleet(std::size_t n, std::chrono::milliseconds watch)
{
  fleet_result result;
  boost::asio::io_context io{1};
  std::vector<Timer> timers;
  timers.reserve(n);
  std::size_t handlers_ran = 0;
  for (std::size_t i = 0; i < n; ++i)
  {
    timers.emplace_back(io, 30s);
    timers.back().async_wait(
        [&handlers_ran](const boost::system::error_code&) { ++handlers_ran; });
  }

  using service_type = asio_wheel::wheel_timer_service<clock_type>;
  constexpr bool is_wheel = !std::is_same_v<Timer, boost::asio::steady_timer>;
  asio_wheel::wheel_stats stats_before{};
  if constexpr (is_wheel)
    stats_before = boost::asio::use_service<service_type>(io).stats();

  const auto start = clock_type::now();
  boost::asio::steady_timer end_of_watch(io, start + watch);
  end_of_watch.async_wait(
      [&io](const boost::system::error_code&) { io.stop(); });

  const auto usage_before = bench::thread_usage::now();
  io.run();  // blocks until end_of_watch stops it: one epoll_wait, ideally
  const auto stop = clock_type::now();
  const auto usage = bench::thread_usage::now() - usage_before;

  result.watch_ms = bench::to_ms(stop - start);
  // One voluntary switch is the wakeup that ends the watch.
  result.loop_wakeups =
      usage.voluntary_switches > 0 ? usage.voluntary_switches - 1 : 0;
  result.preemptions = usage.involuntary_switches;
  result.cpu_ms = bench::to_ms(usage.cpu);
  result.handlers_ran = handlers_ran;
  if constexpr (is_wheel)
  {
    const auto stats = boost::asio::use_service<service_type>(io).stats();
    result.wakeups =
        static_cast<std::int64_t>(stats.wakeups - stats_before.wakeups);
    result.empty_wakeups = static_cast<std::int64_t>(
        stats.empty_wakeups - stats_before.empty_wakeups);
  }
  return result;
}

}  // namespace

int main(int argc, char** argv)
{
  const bench::options opts = bench::parse_options(argc, argv);
  bench::report report("idle_fleet", opts);

  const std::size_t n = opts.smoke ? 200 : 100000;
  const std::chrono::milliseconds watch = opts.smoke ? 100ms : 2000ms;
  // CPU ~ 0, made concrete: under 1 ms of CPU in the whole watch (0.05 % of
  // one core over 2 s).
  const double cpu_budget_ms = 1.0;

  std::printf(
      "W4 idle fleet: %zu waits at 30 s, no traffic, watched for %lld ms\n\n",
      n, static_cast<long long>(watch.count()));
  std::printf("%-13s %9s %13s %9s %12s %13s %13s\n", "impl", "watch ms",
      "loop wakeups", "CPU ms", "preemptions", "wakeups", "empty wakeups");

  const fleet_result steady =
      run_idle_fleet<boost::asio::steady_timer>(n, watch);
  const fleet_result wheel = run_idle_fleet<asio_wheel::wheel_timer>(n, watch);

  for (auto [impl, r] :
      {std::pair{"steady_timer", steady}, std::pair{"wheel_timer", wheel}})
  {
    std::printf("%-13s %9.1f %13ld %9.3f %12ld %13s %13s\n", impl, r.watch_ms,
        r.loop_wakeups, r.cpu_ms, r.preemptions,
        r.wakeups < 0 ? "-" : std::to_string(r.wakeups).c_str(),
        r.empty_wakeups < 0 ? "-" : std::to_string(r.empty_wakeups).c_str());
    report.measure(
        "W4", impl, n, "loop_wakeups", static_cast<double>(r.loop_wakeups));
    report.measure("W4", impl, n, "cpu_ms", r.cpu_ms);
    report.measure("W4", impl, n, "watch_ms", r.watch_ms);
    if (r.wakeups >= 0)
      report.measure("W4", impl, n, "wakeups", static_cast<double>(r.wakeups));
    report.check(r.handlers_ran == 0,
        std::string(impl) + " W4: no 30 s wait completed during the watch ("
            + std::to_string(r.handlers_ran) + " did)");
    report.check(r.watch_ms >= bench::to_ms(watch),
        std::string(impl) + " W4: the loop ran for the whole watch");
  }

  report.budget("W4", "W4 wheel event-loop wakeups in the watch",
      static_cast<double>(wheel.loop_wakeups), 0,
      "epoll returns, stop excluded");
  report.budget("W4", "W4 wheel wakeups in the watch",
      static_cast<double>(wheel.wakeups), 0, "wheel_stats");
  report.budget("W4", "W4 wheel CPU ms in the watch", wheel.cpu_ms,
      cpu_budget_ms, "CPU ~ 0");
  report.note("watch_ms", std::to_string(watch.count()));
  return report.finish();
}
