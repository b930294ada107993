//
// test/bench/churn_libev.cpp
//
// SPEC 5, workload W1 (churn) for libev, the C state of the art for idle
// timeouts: N ev_timers with repeat = 30 s, all started; pseudo-random ones
// are pushed back with ev_timer_again(), libev's documented idiom for idle
// timeouts ("be smart about timeouts", method 2), which adjusts the timer's
// heap entry in place. The loop runs with EVRUN_NOWAIT every 1024 re-arms,
// the cadence churn.cpp uses for io.poll().
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
  ++fired_count; // a 30 s timeout must not fire during the run
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

} // namespace

int main(int argc, char** argv)
{
  const bench::options opts = bench::parse_options(argc, argv);
  bench::report report("churn_libev", opts);

  const std::vector<std::size_t> sizes = opts.smoke
      ? std::vector<std::size_t>{200}
      : std::vector<std::size_t>{1000, 100000, 1000000};
  const std::size_t rearms = opts.smoke ? 5000 : 1000000; // as churn.cpp
  const int reps = opts.reps ? opts.reps : (opts.smoke ? 1 : 3);

  std::printf("W1 churn, libev %d.%d ev_timer_again (repeat 30 s):\n"
      "CPU ns per re-arm, median of %d x %zu re-arms, ev_run(NOWAIT) every %zu\n\n",
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
        "libev N=" + std::to_string(n) + ": no 30 s timer fired during the run");
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
  report.note("rearms_per_rep", std::to_string(rearms));
  report.note("reps", std::to_string(reps));
  return report.finish();
}
