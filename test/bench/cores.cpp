//
// test/bench/cores.cpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// Benchmark W12 (cores, doc/benchmarks.md), its churn part; w12_cores.sh runs
// it and the chat server's part. W1 (churn.cpp: expires_after(30s) +
// async_wait on pseudo-random timers, io.poll() every 1024 re-arms) on K
// threads at once, for every K of --cores, in the two shapes of a server on
// K cores:
//
//   contexts  K io_contexts (io_context(1)), one per thread; each thread
//             re-arms its own N timers on its own context: its own wheel,
//             its own scheduler. Nothing is shared.
//   shared    one io_context (the default concurrency hint) whose poll() all
//             K threads call; each re-arms its own N timers (K x N in the one
//             wheel or timer queue): the service's lock (the reactor's for
//             steady_timer) and the scheduler's queue are shared, and an
//             aborted handler runs on whichever thread polls.
//
// And W1's read floor (churn.cpp): on each of K threads at once, a clock
// read, a read of a random timer-sized object of the thread's own N and a
// store into it: the floor that shares nothing, for what the machine itself
// loses going from 1 to K busy cores (frequency, shared caches, memory
// bandwidth, a hyperthread sibling, other users).
//
// Every thread builds its own objects (first touch), then all start together;
// CPU per re-arm is the threads' CPU time (thread CPU clocks) summed over the
// K x R re-arms. Each repetition runs every K, shape and side back to back,
// so the ratios (wheel : steady_timer in one shape and K; a figure at K over
// the same at 1) are taken within one repetition and the median of the
// repetitions is reported. A K above the machine's hardware threads is run
// and said so (printed and in the JSON), never passed off as K cores.
//
// Budgets (doc/benchmarks.md#budgets), one context per core, at every K > 1:
// the wheel's CPU per re-arm at K over its figure at 1 within 1.1 of the read
// floor's same ratio; and at every K, the wheel's CPU per re-arm at most 1/3
// of steady_timer's.
//
//   bench_cores [--cores 1,2] [--smoke] [--reps R] [--json FILE]
//

#include "bench_support.hpp"

#include <asio_wheel.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;

constexpr auto idle_timeout = 30s;
constexpr std::size_t poll_every =
    1024;  // re-arms between two io.poll(), as W1

/// One thread's count of aborted handlers, on a cache line of its own; in the
/// shared shape another thread may run (and count) the handler.
struct alignas(64) thread_counts
{
  std::atomic<std::size_t> aborted{0};
  std::atomic<std::size_t> succeeded{0};
};

struct counting_handler
{
  thread_counts* counts;
  void operator()(const boost::system::error_code& ec) const
  {
    if (ec == boost::asio::error::operation_aborted)
      counts->aborted.fetch_add(1, std::memory_order_relaxed);
    else
      counts->succeeded.fetch_add(1, std::memory_order_relaxed);
  }
};

/// A single-use meeting point of a fixed number of threads (what
/// std::barrier's arrive_and_wait does, without needing C++20's library).
class meeting
{
public:
  explicit meeting(std::size_t threads) : left_(threads) {}
  void arrive_and_wait()
  {
    std::unique_lock lock(mutex_);
    if (--left_ == 0)
      return all_here_.notify_all();
    all_here_.wait(lock, [this] { return left_ == 0; });
  }

private:
  std::mutex mutex_;
  std::condition_variable all_here_;
  std::size_t left_;
};

/// Stands in for a timer in the read floor, as churn.cpp's timer_sized.
struct timer_sized
{
  clock_type::time_point expiry;
  std::size_t pending = 1;
  unsigned char rest[sizeof(asio_wheel::wheel_timer)
      - sizeof(clock_type::time_point) - sizeof(std::size_t)];
};

enum class side
{
  steady,
  wheel,
  read_floor
};
enum class shape
{
  contexts,
  shared
};

const char* side_name(side s)
{
  return s == side::steady ? "steady_timer"
      : s == side::wheel   ? "wheel_timer"
                           : "read_floor";
}
const char* shape_name(shape s)
{
  return s == shape::contexts ? "contexts" : "shared";
}

struct run_result
{
  double cpu_ns_per_rearm = 0;  // the threads' CPU summed, over K x R re-arms
  double wall_ns_per_rearm = 0;  // wall time of the slowest thread over R
  bool handlers_ok =
      true;  // every expires_after aborted one wait, whose handler ran
};

/// One thread's timed W1 loop over its own timers; returns its CPU time.
template <class Timer>
std::chrono::nanoseconds rearm_loop(boost::asio::io_context& io,
    std::vector<Timer>& timers, thread_counts& counts, std::size_t rearms,
    std::uint64_t seed, std::size_t& cancelled)
{
  bench::index_generator pick(seed);
  const std::size_t n = timers.size();
  const bench::stopwatch watch;
  for (std::size_t i = 0; i < rearms; ++i)
  {
    Timer& t = timers[pick.below(n)];
    cancelled += t.expires_after(idle_timeout);
    t.async_wait(counting_handler{&counts});
    if (i % poll_every == poll_every - 1)
      io.poll();
  }
  io.poll();
  return watch.cpu();
}

/// The read floor's loop (churn.cpp's run_read_floor without the prefetch).
std::chrono::nanoseconds read_floor_loop(std::vector<timer_sized>& objects,
    std::size_t rearms, std::uint64_t seed, std::size_t& pending)
{
  bench::index_generator pick(seed);
  const std::size_t n = objects.size();
  const bench::stopwatch watch;
  for (std::size_t i = 0; i < rearms; ++i)
  {
    timer_sized& t = objects[pick.below(n)];
    pending += t.pending;
    t.expiry = clock_type::now() + idle_timeout;
  }
  return watch.cpu();
}

/// W1 (or the read floor) on k threads at once in one shape.
template <class Timer>
run_result run_timers(
    shape sh, std::size_t k, std::size_t n, std::size_t rearms, int rep)
{
  // contexts: one context per thread; shared: one for all, the default hint.
  std::vector<std::unique_ptr<boost::asio::io_context>> contexts;
  for (std::size_t i = 0; i < (sh == shape::contexts ? k : 1); ++i)
    contexts.push_back(std::make_unique<boost::asio::io_context>(
        sh == shape::contexts ? 1 : bench::concurrency_hint_for(int(k))));
  std::vector<thread_counts> counts(k);
  std::vector<std::vector<Timer>> fleets(k);
  std::vector<std::chrono::nanoseconds> cpu(k);
  std::vector<std::size_t> cancelled(k, 0);
  meeting built(k + 1), start(k + 1), done(k + 1);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < k; ++t)
    threads.emplace_back([&, t] {
      boost::asio::io_context& io = *contexts[sh == shape::contexts ? t : 0];
      auto& fleet = fleets[t];
      fleet.reserve(n);
      for (std::size_t i = 0; i < n; ++i)
      {
        fleet.emplace_back(io);
        fleet.back().expires_after(idle_timeout);
        fleet.back().async_wait(counting_handler{&counts[t]});
      }
      built.arrive_and_wait();
      start.arrive_and_wait();
      cpu[t] = rearm_loop(io, fleet, counts[t], rearms,
          1000 + 7919 * std::uint64_t(rep) + t, cancelled[t]);
      done.arrive_and_wait();
    });
  built.arrive_and_wait();
  const auto wall_start = clock_type::now();
  start.arrive_and_wait();
  done.arrive_and_wait();
  const auto wall = clock_type::now() - wall_start;
  for (auto& t : threads)
    t.join();
  for (auto& io : contexts)
    io->poll();  // whatever a thread's last poll left behind
  run_result r;
  double total_cpu = 0;
  for (std::size_t t = 0; t < k; ++t)
  {
    total_cpu += bench::to_ns(cpu[t]);
    r.handlers_ok = r.handlers_ok && cancelled[t] == rearms
        && counts[t].aborted.load() == rearms
        && counts[t].succeeded.load() == 0;
  }
  r.cpu_ns_per_rearm = total_cpu / double(k * rearms);
  r.wall_ns_per_rearm = bench::to_ns(wall) / double(rearms);
  // The timers go before their contexts, which destroy the aborted waits'
  // handlers without running them.
  fleets.clear();
  return r;
}

run_result run_read_floor(
    std::size_t k, std::size_t n, std::size_t rearms, int rep)
{
  std::vector<std::vector<timer_sized>> objects(k);
  std::vector<std::chrono::nanoseconds> cpu(k);
  std::vector<std::size_t> pending(k, 0);
  meeting built(k + 1), done(k + 1);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < k; ++t)
    threads.emplace_back([&, t] {
      objects[t].resize(n);
      built.arrive_and_wait();
      cpu[t] = read_floor_loop(
          objects[t], rearms, 1000 + 7919 * std::uint64_t(rep) + t, pending[t]);
      done.arrive_and_wait();
    });
  const auto wall_start = clock_type::now();
  built.arrive_and_wait();
  done.arrive_and_wait();
  const auto wall = clock_type::now() - wall_start;
  for (auto& t : threads)
    t.join();
  run_result r;
  double total_cpu = 0;
  for (std::size_t t = 0; t < k; ++t)
  {
    total_cpu += bench::to_ns(cpu[t]);
    r.handlers_ok = r.handlers_ok && pending[t] == rearms;
    clock_type::time_point latest{};
    for (const auto& o : objects[t])
      latest = std::max(latest, o.expiry);
    bench::keep(latest.time_since_epoch().count());
  }
  r.cpu_ns_per_rearm = total_cpu / double(k * rearms);
  r.wall_ns_per_rearm = bench::to_ns(wall) / double(rearms);
  return r;
}

/// "--cores 1,2,4" (or "1 2 4"): the core counts, taken out of argv.
std::vector<std::size_t> take_cores(int& argc, char** argv)
{
  std::vector<std::size_t> cores = {1, 2};
  for (int i = 1; i < argc; ++i)
  {
    if (std::string(argv[i]) != "--cores" || i + 1 >= argc)
      continue;
    cores.clear();
    std::string list = argv[i + 1];
    for (char& c : list)
      if (c == ',')
        c = ' ';
    std::size_t pos = 0;
    while (pos < list.size())
    {
      if (list[pos] == ' ')
      {
        ++pos;
        continue;
      }
      const std::size_t end = list.find(' ', pos);
      const std::string item = list.substr(pos, end - pos);
      const long k = std::atol(item.c_str());
      if (k < 1 || k > 256 || std::to_string(k) != item)
      {
        std::fprintf(stderr,
            "%s: --cores: each must be in 1..256, got \"%s\"\n", argv[0],
            item.c_str());
        std::exit(2);
      }
      cores.push_back(std::size_t(k));
      pos = end == std::string::npos ? list.size() : end;
    }
    for (int j = i; j + 2 < argc; ++j)
      argv[j] = argv[j + 2];
    argc -= 2;
    break;
  }
  // Ratios against K = 1 need K = 1.
  if (std::find(cores.begin(), cores.end(), 1) == cores.end())
    cores.insert(cores.begin(), 1);
  return cores;
}

}  // namespace

int main(int argc, char** argv)
{
  const std::vector<std::size_t> cores = take_cores(argc, argv);
  const bench::options opts = bench::parse_options(argc, argv);
  bench::report report("cores", opts);
  const std::size_t n = opts.smoke ? 200 : 100000;  // timers per thread
  const std::size_t rearms = opts.smoke ? 5000 : 1000000;  // per thread
  const int reps = opts.reps ? opts.reps : (opts.smoke ? 1 : 5);
  const unsigned hardware = std::thread::hardware_concurrency();

  std::printf(
      "W12 cores, churn: W1 (expires_after(30s) + async_wait, io.poll() "
      "every %zu) on K threads at once,\n%zu timers and %zu re-arms "
      "per thread; CPU ns per re-arm (the threads' CPU summed), median "
      "of %d\nrepetitions; this machine has %u hardware threads\n\n",
      poll_every, n, rearms, reps, hardware);

  // samples[K][shape][side]: CPU ns per re-arm of each repetition.
  struct cell
  {
    std::vector<double> steady, wheel, wall_steady, wall_wheel;
  };
  const std::size_t kinds = cores.size();
  std::vector<cell> contexts_cells(kinds), shared_cells(kinds);
  std::vector<std::vector<double>> floor(kinds);
  for (int rep = 0; rep < reps; ++rep)
    for (std::size_t c = 0; c < kinds; ++c)
    {
      const std::size_t k = cores[c];
      for (shape sh : {shape::contexts, shape::shared})
      {
        cell& into =
            sh == shape::contexts ? contexts_cells[c] : shared_cells[c];
        for (side s : {side::steady, side::wheel})
        {
          const run_result r = s == side::steady
              ? run_timers<boost::asio::steady_timer>(sh, k, n, rearms, rep)
              : run_timers<asio_wheel::wheel_timer>(sh, k, n, rearms, rep);
          report.check(r.handlers_ok,
              std::string(side_name(s)) + " W12 " + shape_name(sh)
                  + " K=" + std::to_string(k)
                  + ": each expires_after aborted one wait, its handler ran "
                    "once, and no 30 s wait completed");
          (s == side::steady ? into.steady : into.wheel)
              .push_back(r.cpu_ns_per_rearm);
          (s == side::steady ? into.wall_steady : into.wall_wheel)
              .push_back(r.wall_ns_per_rearm);
        }
      }
      const run_result f = run_read_floor(k, n, rearms, rep);
      report.check(f.handlers_ok,
          "read floor W12 K=" + std::to_string(k)
              + ": every object read had one pending wait");
      floor[c].push_back(f.cpu_ns_per_rearm);
    }

  // Per-repetition ratios, then their medians.
  auto ratio_median = [&](const std::vector<double>& a,
                          const std::vector<double>& b) {
    std::vector<double> r;
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
      r.push_back(a[i] / b[i]);
    return bench::median(r);
  };
  std::printf("%5s %-9s %11s %11s %9s %11s %11s %11s %9s  %s\n", "K", "shape",
      "steady ns", "wheel ns", "wheel:st", "floor ns", "wheel K:1", "floor K:1",
      "w/f K:1", "");
  for (std::size_t c = 0; c < kinds; ++c)
  {
    const std::size_t k = cores[c];
    const char* over = k > hardware ? "more threads than hardware threads" : "";
    for (shape sh : {shape::contexts, shape::shared})
    {
      const cell& x =
          sh == shape::contexts ? contexts_cells[c] : shared_cells[c];
      const cell& one =
          sh == shape::contexts ? contexts_cells[0] : shared_cells[0];
      const double steady = bench::median(x.steady),
                   wheel = bench::median(x.wheel);
      const double wheel_vs_steady = ratio_median(x.wheel, x.steady);
      const double wheel_scaling = ratio_median(x.wheel, one.wheel);
      const double floor_scaling = ratio_median(floor[c], floor[0]);
      // The wheel's scaling over the floor's, per repetition.
      std::vector<double> over_floor;
      for (std::size_t i = 0; i < x.wheel.size(); ++i)
        over_floor.push_back(
            (x.wheel[i] / one.wheel[i]) / (floor[c][i] / floor[0][i]));
      const double scaling_vs_floor = bench::median(over_floor);
      std::printf(
          "%5zu %-9s %11.1f %11.1f %9.3f %11.1f %11.3f %11.3f %9.3f  %s\n", k,
          shape_name(sh), steady, wheel, wheel_vs_steady,
          bench::median(floor[c]), wheel_scaling, floor_scaling,
          scaling_vs_floor, over);
      const std::string w = std::string("W12_") + shape_name(sh);
      report.measure(w, "steady_timer", k, "cpu_ns_per_rearm", steady);
      report.measure(w, "wheel_timer", k, "cpu_ns_per_rearm", wheel);
      report.measure(w, "steady_timer", k, "wall_ns_per_rearm",
          bench::median(x.wall_steady));
      report.measure(w, "wheel_timer", k, "wall_ns_per_rearm",
          bench::median(x.wall_wheel));
      report.measure(w, "wheel_to_steady", k, "ratio", wheel_vs_steady);
      report.measure(w, "wheel_scaling", k, "ratio", wheel_scaling);
      report.measure(
          w, "wheel_scaling_over_floor", k, "ratio", scaling_vs_floor);
      if (sh == shape::contexts)
      {
        report.measure("W12", "read_floor", k, "cpu_ns_per_rearm",
            bench::median(floor[c]));
        report.measure("W12", "read_floor_scaling", k, "ratio", floor_scaling);
      }
    }
    report.measure("W12", "oversubscribed", k, "flag", k > hardware ? 1 : 0);
  }
  std::printf(
      "\nshape contexts: K io_contexts, one per thread; shared: one io_context "
      "polled by all K threads.\nwheel:st = wheel : steady_timer in the same "
      "shape and K; wheel K:1 and floor K:1 = the CPU per re-arm at K\nover "
      "the same at K = 1 (the read floor: each thread reads and stores its own "
      "%zu-byte objects);\nw/f K:1 = wheel K:1 over floor K:1. Ratios are "
      "medians of the repetitions' own ratios.\n",
      sizeof(timer_sized));

  for (std::size_t c = 0; c < kinds; ++c)
  {
    const std::size_t k = cores[c];
    const cell& x = contexts_cells[c];
    const std::string at = " at K=" + std::to_string(k);
    const std::string detail =
        k > hardware ? "more threads than the machine's hardware threads" : "";
    if (k > 1)
    {
      std::vector<double> over_floor;
      for (std::size_t i = 0; i < x.wheel.size(); ++i)
        over_floor.push_back((x.wheel[i] / contexts_cells[0].wheel[i])
            / (floor[c][i] / floor[0][i]));
      report.budget("W12",
          "W12 one context per core: wheel CPU/re-arm K:1 over the read floor's"
              + at,
          bench::median(over_floor), 1.1, detail, k <= hardware);
    }
    report.budget("W12",
        "W12 one context per core: wheel:steady CPU/re-arm" + at,
        ratio_median(x.wheel, x.steady), 1.0 / 3, detail, k <= hardware);
  }
  report.note("rearms_per_thread", std::to_string(rearms));
  report.note("timers_per_thread", std::to_string(n));
  report.note("reps", std::to_string(reps));
  report.note("hardware_threads", std::to_string(hardware));
  return report.finish();
}
