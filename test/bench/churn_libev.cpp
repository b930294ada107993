//
// test/bench/churn_libev.cpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// Benchmark W1 (churn, doc/benchmarks.md) for libev, the C state of the art
// for idle timeouts: N ev_timers with repeat = 30 s, all started;
// pseudo-random ones are pushed back with ev_timer_again(), libev's
// documented idiom for idle timeouts ("be smart about timeouts", method 2),
// which adjusts the timer's heap entry in place. The loop runs with
// EVRUN_NOWAIT every 1024 re-arms, the cadence churn.cpp uses for io.poll().
//
// libev aborts nothing and runs no handler on a re-arm, so this is also its
// W2. Its own program because libev's libevent emulation clashes with
// libevent's symbols (churn_libevent.cpp).
//

#include "bench_support.hpp"

#include <ev.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace {

constexpr double idle_timeout_seconds = 30.0;
constexpr std::size_t poll_every = 1024;

std::size_t fired_count = 0;

void on_timeout(struct ev_loop*, ev_timer*, int)
{
  ++fired_count;  // a 30 s timeout must not fire during the run
}

double run_churn(struct ev_loop* loop, std::vector<ev_timer>& timers,
    std::size_t rearms, std::uint64_t seed)
{
  bench::index_generator pick(seed);
  const std::size_t n = timers.size();
  const bench::stopwatch watch;
  for (std::size_t i = 0; i < rearms; ++i)
  {
    ev_timer_again(loop, &timers[pick.below(n)]);
    if (i % poll_every == poll_every - 1)
      ev_run(loop, EVRUN_NOWAIT);
  }
  ev_run(loop, EVRUN_NOWAIT);
  // CPU time of the thread, as churn.cpp reports.
  return bench::to_ns(watch.cpu()) / static_cast<double>(rearms);
}

/// libev's refresh after the loop's cached time went stale: a timer with
/// repeat `timeout` is refreshed with ev_timer_again after `busy` of work
/// during which the loop did not run (as in a handler that computes or
/// blocks). Returns how much earlier than `timeout` after the refresh the
/// timer fired, in ms: libev reads no clock, it adds the repeat to the
/// time the loop last saw.
double stale_refresh_early_ms(
    std::chrono::milliseconds timeout, std::chrono::milliseconds busy)
{
  using clock = std::chrono::steady_clock;
  struct ev_loop* loop = ev_loop_new(EVBACKEND_EPOLL);
  if (!loop)
    return 0;
  struct fired_at
  {
    ev_timer timer;
    clock::time_point when;
    bool fired = false;
  };
  fired_at f;
  ev_init(&f.timer, [](struct ev_loop* l, ev_timer* t, int) {
    fired_at* self =
        reinterpret_cast<fired_at*>(t);  // timer is the first member
    self->when = clock::now();
    self->fired = true;
    ev_break(l, EVBREAK_ALL);
  });
  f.timer.repeat = std::chrono::duration<double>(timeout).count();
  ev_timer_again(loop, &f.timer);
  ev_run(loop, EVRUN_NOWAIT);  // the loop's cached time is now fresh
  const clock::time_point busy_until = clock::now() + busy;
  while (clock::now() < busy_until)
  {}
  const clock::time_point refreshed = clock::now();
  ev_timer_again(loop, &f.timer);
  ev_run(loop, 0);  // until the timer fires (ev_break)
  ev_timer_stop(loop, &f.timer);
  ev_loop_destroy(loop);
  if (!f.fired)
    return 0;
  return std::chrono::duration<double, std::milli>(
      timeout - (f.when - refreshed))
      .count();
}

}  // namespace

int main(int argc, char** argv)
{
  const bench::options opts = bench::parse_options(argc, argv);
  bench::report report("churn_libev", opts);

  const std::vector<std::size_t> sizes = opts.smoke
      ? std::vector<std::size_t>{200}
      : std::vector<std::size_t>{1000, 100000, 1000000};
  const std::size_t rearms = opts.smoke ? 5000 : 1000000;  // as churn.cpp
  const int reps = opts.reps ? opts.reps : (opts.smoke ? 1 : 3);

  std::printf("W1 churn, libev %d.%d ev_timer_again (repeat 30 s):\n"
              "CPU ns per re-arm, median of %d x %zu re-arms, ev_run(NOWAIT) "
              "every %zu\n\n",
      ev_version_major(), ev_version_minor(), reps, rearms, poll_every);
  std::printf("%8s %14s\n", "N", "libev W1");

  for (std::size_t n : sizes)
  {
    struct ev_loop* loop = ev_loop_new(EVBACKEND_EPOLL);
    if (!loop)
    {
      std::fprintf(stderr, "ev_loop_new(EVBACKEND_EPOLL) failed\n");
      return 1;
    }
    fired_count = 0;
    std::vector<ev_timer> timers(n);
    for (ev_timer& t : timers)
    {
      ev_init(&t, on_timeout);
      t.repeat = idle_timeout_seconds;
      ev_timer_again(loop, &t);
    }

    std::vector<double> samples;
    for (int rep = 0; rep < reps; ++rep)
      samples.push_back(run_churn(loop, timers, rearms, 1000 + rep));

    std::size_t active = 0;
    for (ev_timer& t : timers)
      active += ev_is_active(&t) ? 1 : 0;
    report.check(fired_count == 0,
        "libev N=" + std::to_string(n)
            + ": no 30 s timer fired during the run");
    report.check(active == n,
        "libev N=" + std::to_string(n) + ": every timer still pending ("
            + std::to_string(active) + " of " + std::to_string(n) + ")");

    for (ev_timer& t : timers)
      ev_timer_stop(loop, &t);
    ev_loop_destroy(loop);

    const double ns = bench::median(samples);
    std::printf("%8s %14.1f\n", bench::size_label(n).c_str(), ns);
    report.measure("W1", "libev", n, "ns_per_rearm", ns);
  }
  // Why libev's refresh is cheaper than any that reads a clock: it may
  // make the timeout shorter than asked (doc/benchmarks.md, W2 and libev).
  const auto stale_timeout = opts.smoke ? std::chrono::milliseconds(40)
                                        : std::chrono::milliseconds(200);
  const auto stale_busy = stale_timeout / 2;
  const double early_ms = stale_refresh_early_ms(stale_timeout, stale_busy);
  std::printf(
      "\nev_timer_again after %lld ms without the loop running: a %lld ms "
      "timeout fired %.1f ms early\n",
      static_cast<long long>(stale_busy.count()),
      static_cast<long long>(stale_timeout.count()), early_ms);
  report.measure("W2", "libev_stale_refresh", 1, "early_ms", early_ms);
  report.note("stale_refresh_busy_ms", std::to_string(stale_busy.count()));
  report.note(
      "stale_refresh_timeout_ms", std::to_string(stale_timeout.count()));
  report.note("rearms_per_rep", std::to_string(rearms));
  report.note("reps", std::to_string(reps));
  return report.finish();
}
