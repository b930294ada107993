//
// test/bench/parked.cpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// Benchmark W13 (the condition-variable idiom, doc/benchmarks.md): Boost.Redis
// and Boost.MySQL park a timer at time_point::max() and cancel() it to wake the
// coroutine waiting on it (Redis: connection's writer and health-check
// timers), which then parks it again. N timers, each parked with one pending
// wait at max(); per event, one cancel() of a pseudo-random parked timer,
// whose handler (operation_aborted) parks it again: expires_at(max()) +
// async_wait. The handlers run from io.poll() every 1024 events, as in W1
// (churn.cpp; a smoke run's few timers every N / 4); a timer woken and not yet parked again is not picked (the
// next pick is taken instead), so every event wakes one wait.
//
// Measured for steady_timer and wheel_timer in the same run, on the same
// index sequence, at N = 10k and 100k: CPU ns per event (the thread's CPU
// time; the program has one thread), the median of --reps repetitions; and
// bytes per parked timer, sizeof(Timer) + the heap's growth (mallinfo2, arena
// + mmap: Asio's aligned_alloc'd operations included, as W5 counts them) / N
// while the N timers are parked. Where the Asio has them (1.36.0 on,
// bench_support.hpp) the tuned steady_timer runs beside them too: its
// context configured with timer.heap_reserve=N and reactor.use_timerfd=0.
//

#include "bench_support.hpp"

#include <malloc.h>

#include <asio_wheel.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace {

constexpr std::size_t poll_every = 1024;  // events between two io.poll()

/// Every malloc-family byte in use: arena chunks plus mmapped chunks (W5's
/// measure, memory.cpp).
std::int64_t malloc_in_use_bytes()
{
  const struct mallinfo2 mi = ::mallinfo2();
  return static_cast<std::int64_t>(mi.uordblks + mi.hblkhd);
}

/// N parked timers of one kind on their own io_context.
template <class Timer>
struct parked_fleet
{
  /// The waiting side's handler: woken by cancel(), it parks its timer
  /// again, as a coroutine that loops on async_wait does.
  struct park_handler
  {
    parked_fleet* fleet;
    std::size_t index;

    void operator()(const boost::system::error_code& ec) const
    {
      if (ec != boost::asio::error::operation_aborted)
      {
        ++fleet->expired;  // a wait at max() must never expire
        return;
      }
      ++fleet->woken;
      fleet->park(index);
    }
  };

  boost::asio::io_context io;
  std::vector<Timer> timers;
  std::vector<unsigned char> awake;  // woken, not yet parked again
  std::size_t woken = 0;
  std::size_t expired = 0;
  std::int64_t heap_bytes = 0;  // the heap's growth while parking all N

  parked_fleet(std::size_t n, std::size_t tuned_for)
    : io(bench::make_context(1, tuned_for)), awake(n, 0)
  {
    timers.reserve(n);  // sizeof(Timer) per timer, counted apart
    const std::int64_t before = malloc_in_use_bytes();
    for (std::size_t i = 0; i < n; ++i)
    {
      timers.emplace_back(io);
      park(i);
    }
    heap_bytes = malloc_in_use_bytes() - before;
  }

  void park(std::size_t i)
  {
    awake[i] = 0;
    timers[i].expires_at(Timer::time_point::max());
    timers[i].async_wait(park_handler{this, i});
  }

  ~parked_fleet()
  {
    // Destroying the timers aborts their waits; the io_context, destroyed
    // after the vector, destroys those handlers without running them.
    timers.clear();
  }
};

struct event_result
{
  double ns_per_event = 0;  // CPU time of the thread per event
  double wall_ns_per_event = 0;
  std::size_t cancelled = 0;  // the sum of cancel()'s return values
  std::size_t woken = 0;  // handlers that ran with operation_aborted
};

/// @p events events on @p fleet: cancel() a pseudo-random parked timer; its
/// handler parks it again. Under callgrind a dump of its own, "W13 IMPL N=N
/// events=E".
template <class Timer>
event_result run_events(parked_fleet<Timer>& fleet, const std::string& impl,
    std::size_t events, std::uint64_t seed)
{
  bench::index_generator pick(seed);
  const std::size_t n = fleet.timers.size();
  // At most a quarter of the timers awake at once (a smoke run's few).
  const std::size_t batch =
      std::min(poll_every, std::max<std::size_t>(n / 4, 1));
  const std::size_t woken_before = fleet.woken;
  std::size_t cancelled = 0;

  CALLGRIND_ZERO_STATS;
  const bench::stopwatch watch;
  for (std::size_t e = 0; e < events; ++e)
  {
    std::size_t i = pick.below(n);
    while (fleet.awake[i])  // woken in this batch: not parked yet
      i = pick.below(n);
    fleet.awake[i] = 1;
    cancelled += fleet.timers[i].cancel();
    if (e % batch == batch - 1)
      fleet.io.poll();
  }
  fleet.io.poll();

  event_result r;
  r.ns_per_event = bench::to_ns(watch.cpu()) / static_cast<double>(events);
  r.wall_ns_per_event =
      bench::to_ns(watch.wall()) / static_cast<double>(events);
  const std::string dump = "W13 " + impl + " N=" + std::to_string(n)
      + " events=" + std::to_string(events);
  CALLGRIND_DUMP_STATS_AT(dump.c_str());
  r.cancelled = cancelled;
  r.woken = fleet.woken - woken_before;
  return r;
}

struct side_result
{
  double ns_per_event = 0;  // median of the repetitions
  double wall_ns_per_event = 0;
  double bytes_per_timer = 0;
  std::size_t timer_object_bytes = 0;
};

template <class Timer>
side_result measure(const std::string& impl, std::size_t n,
    std::size_t tuned_for, std::size_t events, int reps, bench::report& report)
{
  parked_fleet<Timer> fleet(n, tuned_for);
  fleet.io.poll();  // nothing is due: no handler may run
  report.check(fleet.woken + fleet.expired == 0,
      impl + " W13 N=" + std::to_string(n)
          + ": no handler ran while the timers were parked");
  side_result s;
  s.timer_object_bytes = sizeof(Timer);
  s.bytes_per_timer = static_cast<double>(sizeof(Timer))
      + static_cast<double>(fleet.heap_bytes) / static_cast<double>(n);
  report.check(fleet.heap_bytes > 0,
      impl + " W13: the heap grew with the parked waits (the count works)");

  std::vector<double> cpu, wall;
  for (int rep = 0; rep < reps; ++rep)
  {
    const event_result r =
        run_events(fleet, impl, events, 4000 + static_cast<std::uint64_t>(rep));
    report.check(r.cancelled == events,
        impl + " W13 N=" + std::to_string(n)
            + ": each cancel() woke exactly one wait ("
            + std::to_string(r.cancelled) + " of " + std::to_string(events)
            + ")");
    report.check(r.woken == events,
        impl + " W13 N=" + std::to_string(n)
            + ": each woken handler ran once and parked its timer again ("
            + std::to_string(r.woken) + " of " + std::to_string(events) + ")");
    cpu.push_back(r.ns_per_event);
    wall.push_back(r.wall_ns_per_event);
  }
  report.check(
      fleet.expired == 0, impl + " W13: no wait at time_point::max() expired");
  s.ns_per_event = bench::median(cpu);
  s.wall_ns_per_event = bench::median(wall);

  report.measure("W13", impl, n, "ns_per_event", s.ns_per_event);
  report.measure("W13", impl, n, "wall_ns_per_event", s.wall_ns_per_event);
  report.measure("W13", impl, n, "bytes_per_timer", s.bytes_per_timer);
  report.measure("W13", impl, n, "sizeof_timer",
      static_cast<double>(s.timer_object_bytes));
  return s;
}

}  // namespace

int main(int argc, char** argv)
{
  const bench::options opts = bench::parse_options(argc, argv);
  bench::report report("parked", opts);

  const std::vector<std::size_t> sizes = opts.smoke
      ? std::vector<std::size_t>{200}
      : std::vector<std::size_t>{10000, 100000};
  const std::size_t events = opts.smoke ? 5000 : 1000000;
  const int reps = opts.reps ? opts.reps : (opts.smoke ? 1 : 3);
  const bool tuned = bench::has_tuned_peer();
  // The budget rows of a build with the tuned peer name its Asio, so that a
  // run of both builds (run_all.sh) tells their rows apart.
  const std::string asio =
      tuned ? " (" + bench::asio_version_label() + ")" : "";

  std::printf("W13 the condition-variable idiom: N timers parked at "
              "time_point::max(), per event one\ncancel() of a random one, "
              "its handler parks it again (expires_at(max) + async_wait).\n"
              "CPU ns per event (thread CPU time), median of %d x %zu "
              "events, io.poll() every %zu;\nbytes per parked timer = "
              "sizeof(timer) + heap growth / N (mallinfo2)\n",
      reps, events, poll_every);
  if (tuned)
    std::printf("steady_tuned: steady_timer on a context configured with %s "
                "(%s)\n",
        bench::tuned_peer_label().c_str(), bench::asio_version_label().c_str());
  std::printf("\n%6s %-13s %12s %10s %8s %14s %8s\n", "N", "impl",
      "CPU ns/event", "wall ns", "ratio", "bytes/timer", "ratio");

  for (std::size_t n : sizes)
  {
    const side_result steady = measure<boost::asio::steady_timer>(
        "steady_timer", n, 0, events, reps, report);
    side_result steady_tuned;
    if (tuned)
      steady_tuned = measure<boost::asio::steady_timer>(
          "steady_timer_tuned", n, n, events, reps, report);
    const side_result wheel = measure<asio_wheel::wheel_timer>(
        "wheel_timer", n, 0, events, reps, report);

    const double cpu_ratio = wheel.ns_per_event / steady.ns_per_event;
    const double bytes_ratio = wheel.bytes_per_timer / steady.bytes_per_timer;
    const auto row = [&](const char* impl, const side_result& s,
                         const char* cpu, const char* bytes) {
      std::printf("%6s %-13s %12.1f %10.1f %8s %14.1f %8s\n",
          bench::size_label(n).c_str(), impl, s.ns_per_event,
          s.wall_ns_per_event, cpu, s.bytes_per_timer, bytes);
    };
    row("steady_timer", steady, "", "");
    if (tuned)
      row("steady_tuned", steady_tuned, "", "");
    row("wheel_timer", wheel, std::to_string(cpu_ratio).substr(0, 5).c_str(),
        std::to_string(bytes_ratio).substr(0, 5).c_str());
    if (tuned)
      std::printf("%6s %-13s %12s %10s %8s %14s %8s\n", "", "  : tuned", "", "",
          std::to_string(wheel.ns_per_event / steady_tuned.ns_per_event)
              .substr(0, 5)
              .c_str(),
          "",
          std::to_string(wheel.bytes_per_timer / steady_tuned.bytes_per_timer)
              .substr(0, 5)
              .c_str());
    report.measure("W13", "wheel_timer", n, "cpu_ratio_to_steady", cpu_ratio);
    report.measure(
        "W13", "wheel_timer", n, "bytes_ratio_to_steady", bytes_ratio);
    if (tuned)
    {
      report.measure("W13", "wheel_timer", n, "cpu_ratio_to_steady_tuned",
          wheel.ns_per_event / steady_tuned.ns_per_event);
      report.measure("W13", "wheel_timer", n, "bytes_ratio_to_steady_tuned",
          wheel.bytes_per_timer / steady_tuned.bytes_per_timer);
    }

    // The budget is set at 100k (10k shows the trend).
    if (opts.smoke || n >= 100000)
    {
      const std::string at = " at N=" + bench::size_label(n);
      report.budget("W13", "W13 wheel:steady CPU per event" + at + asio,
          cpu_ratio, 0.5, "");
      if (tuned)
        report.budget("W13",
            "W13 wheel:steady_timer tuned CPU per event" + at + asio,
            wheel.ns_per_event / steady_tuned.ns_per_event, 0.5,
            bench::tuned_peer_label());
    }
  }
  std::printf("\nratio = wheel_timer / steady_timer (\": tuned\": / the "
              "tuned steady_timer); lower is better\n");
  report.note("asio_version", bench::asio_version_label());
  report.note("events_per_rep", std::to_string(events));
  report.note("reps", std::to_string(reps));
  if (tuned)
    report.note("tuned_peer", bench::tuned_peer_label());
  return report.finish();
}
