//
// test/bench/churn_libevent.cpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// Benchmark W1 (churn, doc/benchmarks.md) for libevent 2.1, the other C
// state of the art for idle timeouts: N timer events added with one *common
// timeout* of 30 s (event_base_init_common_timeout), which keeps
// same-duration timeouts in a FIFO list instead of the min-heap;
// pseudo-random events are re-added with event_add(), which unlinks them and
// appends them at the list's tail (O(1)). The loop runs with EVLOOP_NONBLOCK
// every 1024 re-adds, the cadence churn.cpp uses for io.poll().
//
// libevent aborts nothing and runs no callback on a re-add, so this is also
// its W2. Its own program because libev's libevent emulation clashes with
// libevent's symbols (churn_libev.cpp).
//

#include "bench_support.hpp"

#include <event2/event.h>
#include <event2/event_struct.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace {

constexpr std::size_t poll_every = 1024;

std::size_t fired_count = 0;

void on_timeout(evutil_socket_t, short, void*)
{
  ++fired_count;  // a 30 s timeout must not fire during the run
}

double run_churn(event_base* base, std::vector<event>& events,
    const timeval* common_timeout, std::size_t rearms, std::uint64_t seed,
    int& add_failures)
{
  bench::index_generator pick(seed);
  const std::size_t n = events.size();
  const bench::stopwatch watch;
  for (std::size_t i = 0; i < rearms; ++i)
  {
    add_failures += event_add(&events[pick.below(n)], common_timeout) != 0;
    if (i % poll_every == poll_every - 1)
      event_base_loop(base, EVLOOP_NONBLOCK);
  }
  event_base_loop(base, EVLOOP_NONBLOCK);
  // CPU time of the thread, as churn.cpp reports.
  return bench::to_ns(watch.cpu()) / static_cast<double>(rearms);
}

}  // namespace

int main(int argc, char** argv)
{
  const bench::options opts = bench::parse_options(argc, argv);
  bench::report report("churn_libevent", opts);

  const std::vector<std::size_t> sizes = opts.smoke
      ? std::vector<std::size_t>{200}
      : std::vector<std::size_t>{1000, 100000, 1000000};
  const std::size_t rearms = opts.smoke ? 5000 : 1000000;  // as churn.cpp
  const int reps = opts.reps ? opts.reps : (opts.smoke ? 1 : 3);

  std::printf(
      "W1 churn, libevent %s, event_add with a common timeout of 30 s:\n"
      "CPU ns per re-arm, median of %d x %zu re-adds, "
      "event_base_loop(NONBLOCK) "
      "every %zu\n\n",
      event_get_version(), reps, rearms, poll_every);
  std::printf("%8s %14s\n", "N", "libevent W1");

  for (std::size_t n : sizes)
  {
    event_base* base = event_base_new();
    if (!base)
    {
      std::fprintf(stderr, "event_base_new failed\n");
      return 1;
    }
    const timeval thirty_seconds{30, 0};
    const timeval* common_timeout =
        event_base_init_common_timeout(base, &thirty_seconds);
    report.check(common_timeout != nullptr,
        "libevent: event_base_init_common_timeout succeeded");
    if (!common_timeout)
      return report.finish();

    fired_count = 0;
    int add_failures = 0;
    // struct event is not movable once assigned: size the vector once.
    std::vector<event> events(n);
    for (event& ev : events)
    {
      event_assign(&ev, base, -1, 0, on_timeout, nullptr);
      add_failures += event_add(&ev, common_timeout) != 0;
    }

    std::vector<double> samples;
    for (int rep = 0; rep < reps; ++rep)
      samples.push_back(run_churn(
          base, events, common_timeout, rearms, 1000 + rep, add_failures));

    std::size_t pending = 0;
    for (event& ev : events)
      pending += event_pending(&ev, EV_TIMEOUT, nullptr) ? 1 : 0;
    report.check(add_failures == 0, "libevent: every event_add succeeded");
    report.check(fired_count == 0,
        "libevent N=" + std::to_string(n)
            + ": no 30 s timeout fired during the run");
    report.check(pending == n,
        "libevent N=" + std::to_string(n) + ": every event still pending ("
            + std::to_string(pending) + " of " + std::to_string(n) + ")");

    for (event& ev : events)
      event_del(&ev);
    event_base_free(base);

    const double ns = bench::median(samples);
    std::printf("%8s %14.1f\n", bench::size_label(n).c_str(), ns);
    report.measure("W1", "libevent", n, "ns_per_rearm", ns);
  }
  report.note("rearms_per_rep", std::to_string(rearms));
  report.note("reps", std::to_string(reps));
  return report.finish();
}
