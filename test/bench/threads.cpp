//
// test/bench/threads.cpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// Benchmark W7 (threads, doc/benchmarks.md): W1 and W2 with the io_context
// run by 2 threads. One io_context with the default concurrency hint holds N
// timers (N = 100k), each with one pending wait at 30 s. Two threads each
// take their own half of the timers and re-arm pseudo-random ones of it:
//
//   W1  steady_timer and wheel_timer: expires_after(30s) + async_wait; the
//       old wait is aborted and its handler runs. Each thread calls
//       io.poll() every 1024 re-arms, as churn.cpp's one thread does, so the
//       aborted handlers run on both threads, wherever the context puts them.
//   W2  wheel_timer::reschedule_after(30s): no handler runs.
//
// Reported per re-arm: the CPU time of both threads (thread CPU clocks,
// summed) and the wall time of the whole run, the median of the repetitions,
// steady_timer and wheel_timer alternating in one process on the same index
// sequences. The budget (doc/benchmarks.md#budgets): wheel W1 and W2 CPU <=
// 1/3 of steady_timer's W1 in the same setting, as the median of --reps runs
// (default 5), each on fresh fleets with 3 repetitions of its own: two
// threads on the two cores of a shared machine measure the host too, and one
// run is not a verdict.
//
// bench_threads_locks is the same program built with W7_LOCK_STATS, which
// interposes pthread_mutex_lock in the program to count the locks (the
// scheduler's, the reactor's and the wheel's, all pthread mutexes: a trylock
// first, then the real lock, timed, when it failed). Re-acquisitions inside
// pthread_cond_wait do not pass through pthread_mutex_lock and are not
// counted. The counting costs time, so that build reports the counts; the
// plain bench_threads the times.
//

#include "bench_support.hpp"

#include <asio_wheel.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#if defined(W7_LOCK_STATS)
# include <dlfcn.h>
# include <pthread.h>
#endif

namespace {

using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;

constexpr auto idle_timeout = 30s;
constexpr std::size_t poll_every = 1024;  // re-arms between two io.poll()
constexpr int run_threads = 2;

struct lock_counts
{
  std::uint64_t acquisitions = 0;
  std::uint64_t contended = 0;
  std::uint64_t wait_ns = 0;

  lock_counts& operator+=(const lock_counts& o)
  {
    acquisitions += o.acquisitions;
    contended += o.contended;
    wait_ns += o.wait_ns;
    return *this;
  }
  lock_counts operator-(const lock_counts& o) const
  {
    return {acquisitions - o.acquisitions, contended - o.contended,
        wait_ns - o.wait_ns};
  }
};

#if defined(W7_LOCK_STATS)
thread_local lock_counts lock_counts_here;  // pthread mutexes

lock_counts locks_now()
{
  return lock_counts_here;
}
#else
lock_counts locks_now()
{
  return {};
}
#endif

// Handlers run on either thread: each thread counts its own, nothing shared.
thread_local std::size_t aborted_here = 0;
thread_local std::size_t succeeded_here = 0;

struct counting_handler
{
  void operator()(const boost::system::error_code& ec) const
  {
    if (ec == boost::asio::error::operation_aborted)
      ++aborted_here;
    else
      ++succeeded_here;
  }
};

template <class Timer>
struct timer_fleet
{
  boost::asio::io_context io{BOOST_ASIO_CONCURRENCY_HINT_DEFAULT};
  std::vector<Timer> timers;

  explicit timer_fleet(std::size_t n)
  {
    timers.reserve(n);
    for (std::size_t i = 0; i < n; ++i)
    {
      timers.emplace_back(io);
      timers.back().expires_after(idle_timeout);
      timers.back().async_wait(counting_handler{});
    }
  }

  ~timer_fleet() { timers.clear(); }
};

struct thread_result
{
  double cpu_ns = 0;
  std::size_t aborted = 0;  // aborted handlers this thread ran
  std::size_t succeeded = 0;
  std::size_t returned = 0;  // sum of expires_after / reschedule_after results
  lock_counts locks;
};

struct w7_result
{
  double cpu_ns_per_op = 0;  // both threads' CPU per re-arm
  double wall_ns_per_op = 0;  // wall time of the run per re-arm
  std::size_t aborted = 0, succeeded = 0, returned = 0;
  lock_counts locks;
};

enum class workload
{
  w1,
  w2
};

// One thread's share: `rearms` re-arms of pseudo-random timers of its half.
template <class Timer>
thread_result churn_half(timer_fleet<Timer>& fleet, workload w, int half,
    std::size_t rearms, std::uint64_t seed, std::atomic<int>& ready)
{
  bench::index_generator pick(seed);
  const std::size_t half_n = fleet.timers.size() / run_threads;
  Timer* const base = fleet.timers.data() + half * half_n;
  const std::size_t aborted_before = aborted_here,
                    succeeded_before = succeeded_here;
  std::size_t returned = 0;

  // Start together.
  ++ready;
  while (ready.load() < run_threads)
    std::this_thread::yield();

  const lock_counts locks0 = locks_now();
  const auto cpu0 = bench::cpu_clock(CLOCK_THREAD_CPUTIME_ID);
  for (std::size_t i = 0; i < rearms; ++i)
  {
    Timer& t = base[pick.below(half_n)];
    if (w == workload::w1)
    {
      returned += t.expires_after(idle_timeout);
      t.async_wait(counting_handler{});
    }
    else
    {
      if constexpr (std::is_same_v<Timer, asio_wheel::wheel_timer>)
        returned += t.reschedule_after(idle_timeout);
    }
    if (i % poll_every == poll_every - 1)
      fleet.io.poll();
  }
  fleet.io.poll();
  thread_result r;
  r.cpu_ns = bench::to_ns(bench::cpu_clock(CLOCK_THREAD_CPUTIME_ID) - cpu0);
  r.locks = locks_now() - locks0;
  r.aborted = aborted_here - aborted_before;
  r.succeeded = succeeded_here - succeeded_before;
  r.returned = returned;
  return r;
}

template <class Timer>
w7_result run_w7(timer_fleet<Timer>& fleet, workload w, std::size_t rearms,
    std::uint64_t seed)
{
  std::atomic<int> ready{0};
  thread_result results[run_threads];
  const auto wall0 = clock_type::now();
  {
    std::vector<std::thread> threads;
    for (int half = 0; half < run_threads; ++half)
      threads.emplace_back([&, half] {
        results[half] = churn_half(
            fleet, w, half, rearms / run_threads, seed * 7 + half, ready);
      });
    for (auto& t : threads)
      t.join();
  }
  const double wall_ns = bench::to_ns(clock_type::now() - wall0);

  w7_result r;
  for (const thread_result& t : results)
  {
    r.cpu_ns_per_op += t.cpu_ns;
    r.aborted += t.aborted;
    r.succeeded += t.succeeded;
    r.returned += t.returned;
    r.locks += t.locks;
  }
  // The last aborts of one thread may come after the other's last poll: run
  // them here (not timed; at most a poll's worth).
  const std::size_t a0 = aborted_here, s0 = succeeded_here;
  fleet.io.poll();
  r.aborted += aborted_here - a0;
  r.succeeded += succeeded_here - s0;
  const std::size_t done = rearms / run_threads * run_threads;
  r.cpu_ns_per_op /= static_cast<double>(done);
  r.wall_ns_per_op = wall_ns / static_cast<double>(done);
  return r;
}

struct series
{
  std::vector<double> cpu, wall;
  lock_counts locks;
  std::size_t ops = 0;

  void add(const w7_result& r, std::size_t n_ops)
  {
    cpu.push_back(r.cpu_ns_per_op);
    wall.push_back(r.wall_ns_per_op);
    locks += r.locks;
    ops += n_ops;
  }
};

void print_locks(const char* what, const series& s)
{
  auto line = [&](const lock_counts& c) {
    const double ops = static_cast<double>(s.ops ? s.ops : 1);
    std::printf("%-22s %12.3f %11llu %10.3f %14.2f %12.0f\n", what,
        static_cast<double>(c.acquisitions) / ops,
        static_cast<unsigned long long>(c.contended),
        c.acquisitions ? 100.0 * static_cast<double>(c.contended)
                / static_cast<double>(c.acquisitions)
                       : 0.0,
        static_cast<double>(c.wait_ns) / ops,
        c.contended
            ? static_cast<double>(c.wait_ns) / static_cast<double>(c.contended)
            : 0.0);
  };
  line(s.locks);
}

}  // namespace

#if defined(W7_LOCK_STATS)
// Asio's locks are pthread mutexes (posix_mutex), locked from this program's
// code (Asio is header-only): this definition takes those calls.
namespace {
using lock_function = int (*)(pthread_mutex_t*);
lock_function real_pthread_mutex_lock = nullptr;

__attribute__((constructor)) void find_real_pthread_mutex_lock()
{
  real_pthread_mutex_lock =
      reinterpret_cast<lock_function>(::dlsym(RTLD_NEXT, "pthread_mutex_lock"));
}
}  // namespace

extern "C" int pthread_mutex_lock(pthread_mutex_t* m) noexcept
{
  lock_counts& c = lock_counts_here;
  ++c.acquisitions;
  if (::pthread_mutex_trylock(m) == 0)
    return 0;
  ++c.contended;
  const auto start = clock_type::now();
  const int r = real_pthread_mutex_lock(m);
  c.wait_ns +=
      static_cast<std::uint64_t>(bench::to_ns(clock_type::now() - start));
  return r;
}
#endif

int main(int argc, char** argv)
{
  const bench::options opts = bench::parse_options(argc, argv);
#if defined(W7_LOCK_STATS)
  bench::report report("threads_locks", opts);
  const bool lock_stats = true;
#else
  bench::report report("threads", opts);
  const bool lock_stats = false;
#endif

  const std::size_t n = opts.smoke ? 200 : 100000;
  const std::size_t rearms =
      opts.smoke ? 5000 : 1000000;  // both threads together
  // The counting build reports counts, not times: one run is enough there.
  const int runs = opts.reps ? opts.reps : (opts.smoke || lock_stats ? 1 : 5);
  const int reps = opts.smoke ? 1 : 3;  // per run

  std::printf(
      "W7 threads: io_context(default hint), %d threads each re-arming its own "
      "half "
      "of N=%zu timers, io.poll() every %zu re-arms;\nns per re-arm, median of "
      "%d runs x %d x %zu "
      "re-arms (CPU: both threads' thread CPU time; wall: the run's)%s\n\n",
      run_threads, n, poll_every, runs, reps, rearms,
      lock_stats
          ? "\nLOCK-COUNTING BUILD: times include the counting, read the counts"
          : "");

  // Every repetition of every run (the figures, the lock counts), and each
  // run's ratios of medians (the verdict is their median).
  series steady_w1, wheel_w1, wheel_w2;
  std::vector<double> w1_ratios, w2_ratios;
  const std::size_t done = rearms / run_threads * run_threads;
  for (int run = 0; run < runs; ++run)
  {
    timer_fleet<boost::asio::steady_timer> steady(n);
    timer_fleet<asio_wheel::wheel_timer> wheel(n);
    series run_steady, run_w1, run_w2;
    for (int rep = 0; rep < reps; ++rep)
    {
      const std::uint64_t seed = 1000 + 10 * run + rep;
      const w7_result s = run_w7(steady, workload::w1, rearms, seed);
      const w7_result w1 = run_w7(wheel, workload::w1, rearms, seed);
      const w7_result w2 = run_w7(wheel, workload::w2, rearms, seed + 500);
      report.check(s.aborted == done && s.returned == done,
          "steady_timer W7 W1: every aborted handler ran once ("
              + std::to_string(s.aborted) + " of " + std::to_string(done)
              + ")");
      report.check(w1.aborted == done && w1.returned == done,
          "wheel_timer W7 W1: every aborted handler ran once ("
              + std::to_string(w1.aborted) + " of " + std::to_string(done)
              + ")");
      report.check(w2.aborted == 0 && w2.returned == done,
          "wheel_timer W7 W2: no handler ran, every reschedule moved one wait ("
              + std::to_string(w2.returned) + " of " + std::to_string(done)
              + ")");
      report.check(s.succeeded + w1.succeeded + w2.succeeded == 0,
          "W7: no 30 s wait completed during the run");
      for (auto [all, one, r] : {std::tuple{&steady_w1, &run_steady, &s},
               std::tuple{&wheel_w1, &run_w1, &w1},
               std::tuple{&wheel_w2, &run_w2, &w2}})
      {
        all->add(*r, done);
        one->add(*r, done);
      }
    }
    const double s_run = bench::median(run_steady.cpu);
    w1_ratios.push_back(bench::median(run_w1.cpu) / s_run);
    w2_ratios.push_back(bench::median(run_w2.cpu) / s_run);
    std::printf("run %d: wheel W1 : steady W1 CPU %.3f, wheel W2 : steady W1 "
                "CPU %.3f\n",
        run + 1, w1_ratios.back(), w2_ratios.back());
  }

  const double s_cpu = bench::median(steady_w1.cpu),
               s_wall = bench::median(steady_w1.wall);
  const double w1_cpu = bench::median(wheel_w1.cpu),
               w1_wall = bench::median(wheel_w1.wall);
  const double w2_cpu = bench::median(wheel_w2.cpu),
               w2_wall = bench::median(wheel_w2.wall);
  std::printf("%-22s %12s %12s %14s %14s\n", "", "CPU ns", "wall ns",
      "CPU : steady", "wall : steady");
  std::printf("%-22s %12.1f %12.1f %14s %14s\n", "steady_timer W1", s_cpu,
      s_wall, "1", "1");
  std::printf("%-22s %12.1f %12.1f %14.3f %14.3f\n", "wheel_timer W1", w1_cpu,
      w1_wall, w1_cpu / s_cpu, w1_wall / s_wall);
  std::printf("%-22s %12.1f %12.1f %14.3f %14.3f\n", "wheel_timer W2", w2_cpu,
      w2_wall, w2_cpu / s_cpu, w2_wall / s_wall);
  std::printf("\nW7 budget: wheel <= 1:3 (0.333) of steady_timer's W1 CPU, "
              "the median of the runs' ratios: W1 %.3f, W2 %.3f\n",
      bench::median(w1_ratios), bench::median(w2_ratios));

  if (lock_stats)
  {
    std::printf("\nlock contention over all repetitions (per re-arm; "
                "pthread_mutex_lock calls: the scheduler's, the reactor's and "
                "the wheel's)\n");
    std::printf("%-22s %12s %11s %10s %14s %12s\n", "run", "acq/re-arm",
        "contended", "cont %", "wait ns/re-arm", "ns/cont");
    print_locks("steady_timer W1", steady_w1);
    print_locks("wheel_timer W1", wheel_w1);
    print_locks("wheel_timer W2", wheel_w2);
    auto measure_locks = [&](const char* impl, const char* wl,
                             const series& s) {
      const double ops = static_cast<double>(s.ops ? s.ops : 1);
      const lock_counts& c = s.locks;
      const std::string impl_wl = std::string(impl) + "_" + wl;
      report.measure("W7", impl_wl, n, "lock_acquisitions_per_rearm",
          static_cast<double>(c.acquisitions) / ops);
      report.measure("W7", impl_wl, n, "lock_contended_per_rearm",
          static_cast<double>(c.contended) / ops);
      report.measure("W7", impl_wl, n, "lock_wait_ns_per_rearm",
          static_cast<double>(c.wait_ns) / ops);
    };
    measure_locks("steady_timer", "W1", steady_w1);
    measure_locks("wheel_timer", "W1", wheel_w1);
    measure_locks("wheel_timer", "W2", wheel_w2);
  }

  // The times of the counting build are not W7's: only the plain build
  // reports them (run_all.sh reads both programs' reports).
  if (!lock_stats)
  {
    report.measure("W7", "steady_timer", n, "W1_cpu_ns_per_rearm", s_cpu);
    report.measure("W7", "wheel_timer", n, "W1_cpu_ns_per_rearm", w1_cpu);
    report.measure("W7", "wheel_timer", n, "W2_cpu_ns_per_rearm", w2_cpu);
    report.measure("W7", "steady_timer", n, "W1_wall_ns_per_rearm", s_wall);
    report.measure("W7", "wheel_timer", n, "W1_wall_ns_per_rearm", w1_wall);
    report.measure("W7", "wheel_timer", n, "W2_wall_ns_per_rearm", w2_wall);
    for (std::size_t run = 0; run < w1_ratios.size(); ++run)
    {
      report.measure("W7", "wheel_timer", n,
          "W1_cpu_ratio_run_" + std::to_string(run + 1), w1_ratios[run]);
      report.measure("W7", "wheel_timer", n,
          "W2_cpu_ratio_run_" + std::to_string(run + 1), w2_ratios[run]);
    }
    const std::string median_of =
        ", median of " + std::to_string(w1_ratios.size()) + " runs";
    report.budget("W7", "W7 wheel W1 : steady W1 CPU, 2 threads" + median_of,
        bench::median(w1_ratios), 1.0 / 3, "");
    report.budget("W7", "W7 wheel W2 : steady W1 CPU, 2 threads" + median_of,
        bench::median(w2_ratios), 1.0 / 3, "");
  }
  report.note("rearms_per_rep", std::to_string(done));
  report.note("runs", std::to_string(runs));
  report.note("reps_per_run", std::to_string(reps));
  report.note("threads", std::to_string(run_threads));
  return report.finish();
}
