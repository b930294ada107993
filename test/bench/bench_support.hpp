//
// test/bench/bench_support.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// What every benchmark program of test/bench shares: the command line
// (--smoke, --json FILE, --reps R), the clocks (wall, process and thread CPU,
// context switches), a cheap deterministic index generator, and the report:
// a list of measurements and budget verdicts that is printed as a table and
// written as JSON, one record per line so that run_all.sh and plot.sh can
// merge and read it with POSIX shell tools only (no jq or python needed).
//
// Budget verdicts (PASS/MISS) are informational: a program exits 0 whatever
// the timings. Correctness checks (every handler ran, none early, ...) are
// not: a failed check makes the program exit 1, in smoke mode and full mode.
//

#ifndef ASIO_WHEEL_TEST_BENCH_BENCH_SUPPORT_HPP
#define ASIO_WHEEL_TEST_BENCH_BENCH_SUPPORT_HPP

#include <boost/asio/detail/concurrency_hint.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/version.hpp>

// The peer at its best (doc/benchmarks.md, "steady_timer tuned"): from Asio
// 1.36.0 (Boost 1.89) a context's config sets steady_timer's heap reserve
// (timer.heap_reserve, read by deadline_timer_service) and whether the epoll
// reactor arms a timerfd (reactor.use_timerfd); both are read from
// config_from_string, which arrives with the config service in 1.33.0
// (include/asio_wheel/detail/config.hpp) but without these two keys before
// 1.36.0. The one gate of the benchmarks on the Asio version.
#if BOOST_ASIO_VERSION >= 103600
# define ASIO_WHEEL_BENCH_TUNED_PEER 1
# include <boost/asio/config.hpp>
#endif

// Callgrind's client requests, which the callgrind_*.sh scripts use to count one side of a
// run: no-ops where valgrind's header is not installed.
#if __has_include(<valgrind/callgrind.h>)
# include <valgrind/callgrind.h>
#else
# define CALLGRIND_ZERO_STATS
# define CALLGRIND_DUMP_STATS_AT(label) ((void)(label))
#endif

#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#ifndef ASIO_WHEEL_BENCH_PROGRAM_SUFFIX
# define ASIO_WHEEL_BENCH_PROGRAM_SUFFIX ""
#endif

namespace bench {

// ---------------------------------------------------------------------------
// Command line

struct options
{
  bool smoke = false;  // each workload once at a tiny size, for CI
  std::string json_path;  // where to write the JSON report ("" = nowhere)
  int reps = 0;  // repetitions per measurement; 0 = program default
  int threads = 1;  // threads in run(): 1 = io_context(1), more = default hint
};

inline options parse_options(int argc, char** argv)
{
  options opts;
  for (int i = 1; i < argc; ++i)
  {
    std::string arg = argv[i];
    if (arg == "--smoke")
      opts.smoke = true;
    else if (arg == "--json" && i + 1 < argc)
      opts.json_path = argv[++i];
    else if (arg == "--reps" && i + 1 < argc)
    {
      opts.reps = std::atoi(argv[++i]);
      if (opts.reps < 1 || opts.reps > 100)
      {
        std::fprintf(stderr, "%s: --reps must be in 1..100\n", argv[0]);
        std::exit(2);
      }
    }
    else if (arg == "--threads" && i + 1 < argc)
    {
      opts.threads = std::atoi(argv[++i]);
      if (opts.threads < 1 || opts.threads > 16)
      {
        std::fprintf(stderr, "%s: --threads must be in 1..16\n", argv[0]);
        std::exit(2);
      }
    }
    else
    {
      std::fprintf(stderr,
          "usage: %s [--smoke] [--json FILE] [--reps R] [--threads T]\n"
          "  --smoke   every workload once at a tiny size, no timing verdicts\n"
          "  --json    write the measurements and budget verdicts to FILE\n"
          "  --reps    repetitions per timed measurement (median reported)\n"
          "  --threads T threads in io_context::run() (storm, fairness): 1 "
          "(the\n"
          "            default) constructs io_context(1), more the default "
          "hint\n",
          argv[0]);
      std::exit(2);
    }
  }
  return opts;
}

/// The concurrency hint for a context run by @p threads threads: 1 (Asio's
/// one-thread paths) or the default hint.
inline int concurrency_hint_for(int threads)
{
  return threads == 1 ? 1 : BOOST_ASIO_CONCURRENCY_HINT_DEFAULT;
}

/// The tuned steady_timer's context configuration for @p n timers: the heap
/// reserved for all of them up front, the reactor's timeouts through
/// epoll_wait's own rather than a timerfd, and the concurrency hint of
/// concurrency_hint_for(threads). One line a key, as config_from_string
/// reads them; tuned_peer_label() is how the tables print it.
inline std::string tuned_peer_config(std::size_t n, int threads = 1)
{
  std::string config =
      "timer.heap_reserve=" + std::to_string(n) + "\nreactor.use_timerfd=0\n";
  if (threads == 1)
    config += "scheduler.concurrency_hint=1\n";
  return config;
}

/// The configuration printed beside the tuned peer's figures.
inline std::string tuned_peer_label()
{
  return "timer.heap_reserve=N, reactor.use_timerfd=false";
}

/// Whether this build has the tuned peer (Asio 1.36.0 or later).
constexpr bool has_tuned_peer()
{
#if defined(ASIO_WHEEL_BENCH_TUNED_PEER)
  return true;
#else
  return false;
#endif
}

/// The Asio the program was built against, "Boost.Asio 1.37.0", for the
/// budget rows of a build that has the tuned peer.
inline std::string asio_version_label()
{
  return "Boost.Asio " + std::to_string(BOOST_ASIO_VERSION / 100000) + "."
      + std::to_string(BOOST_ASIO_VERSION / 100 % 1000) + "."
      + std::to_string(BOOST_ASIO_VERSION % 100);
}

/// A context for @p threads threads (io_context(1) for one): as Asio ships
/// it when @p tuned_for is 0, else configured by tuned_peer_config(tuned_for)
/// (only where has_tuned_peer(); elsewhere @p tuned_for must be 0).
inline boost::asio::io_context make_context(
    int threads, std::size_t tuned_for = 0)
{
#if defined(ASIO_WHEEL_BENCH_TUNED_PEER)
  if (tuned_for)
    return boost::asio::io_context{
        boost::asio::config_from_string{tuned_peer_config(tuned_for, threads)}};
#else
  (void)tuned_for;
#endif
  return boost::asio::io_context{concurrency_hint_for(threads)};
}

/// Calls @p run (e.g. io.run_for) on @p threads threads, this one included,
/// and returns when all have returned.
template <class Run>
void on_threads(int threads, Run run)
{
  std::vector<std::thread> others;
  for (int i = 1; i < threads; ++i)
    others.emplace_back(run);
  run();
  for (std::thread& t : others)
    t.join();
}

// ---------------------------------------------------------------------------
// Clocks

inline std::chrono::nanoseconds cpu_clock(clockid_t id)
{
  timespec ts{};
  ::clock_gettime(id, &ts);
  return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
}

/// CPU time (user + system) of the whole process.
inline std::chrono::nanoseconds process_cpu_time()
{
  return cpu_clock(CLOCK_PROCESS_CPUTIME_ID);
}

/// Resource usage of the calling thread only: a watcher thread that ends a
/// measurement does not pollute the event-loop thread's figures.
struct thread_usage
{
  std::chrono::nanoseconds cpu{0};
  long voluntary_switches = 0;  // the thread blocked (e.g. in epoll_wait)
  long involuntary_switches = 0;  // the thread was preempted (shared machine)

  static thread_usage now()
  {
    rusage ru{};
    ::getrusage(RUSAGE_THREAD, &ru);
    thread_usage u;
    // getrusage's utime/stime are split by tick sampling; the thread CPU
    // clock is the precise sum.
    u.cpu = cpu_clock(CLOCK_THREAD_CPUTIME_ID);
    u.voluntary_switches = ru.ru_nvcsw;
    u.involuntary_switches = ru.ru_nivcsw;
    return u;
  }

  thread_usage operator-(const thread_usage& earlier) const
  {
    thread_usage d;
    d.cpu = cpu - earlier.cpu;
    d.voluntary_switches = voluntary_switches - earlier.voluntary_switches;
    d.involuntary_switches =
        involuntary_switches - earlier.involuntary_switches;
    return d;
  }
};

/// Wall time and CPU time of the calling thread over one measured section.
/// On a shared machine the wall time includes the moments other processes
/// ran instead of this one; the thread's CPU time does not, so per-operation
/// costs are reported in CPU time.
class stopwatch
{
public:
  stopwatch()
    : wall_start_(std::chrono::steady_clock::now()),
      cpu_start_(cpu_clock(CLOCK_THREAD_CPUTIME_ID))
  {}

  std::chrono::nanoseconds wall() const
  {
    return std::chrono::steady_clock::now() - wall_start_;
  }

  std::chrono::nanoseconds cpu() const
  {
    return cpu_clock(CLOCK_THREAD_CPUTIME_ID) - cpu_start_;
  }

private:
  std::chrono::steady_clock::time_point wall_start_;
  std::chrono::nanoseconds cpu_start_;
};

template <class Duration>
double to_ns(Duration d)
{
  return static_cast<double>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(d).count());
}

template <class Duration>
double to_ms(Duration d)
{
  return to_ns(d) / 1e6;
}

// ---------------------------------------------------------------------------
// Pseudo-random indices: xorshift64*, the same seeded sequence for every
// implementation, and a multiply-shift reduction to [0, n) that costs no
// division, so the generator adds the same few ns to every side (the floor
// of W2 included).

class index_generator
{
public:
  explicit index_generator(std::uint64_t seed = 0x9e3779b97f4a7c15ull)
    : state_(seed ? seed : 1)
  {}

  std::size_t below(std::size_t n) noexcept
  {
    state_ ^= state_ >> 12;
    state_ ^= state_ << 25;
    state_ ^= state_ >> 27;
    const std::uint64_t r = state_ * 0x2545f4914f6cdd1dull;
    return static_cast<std::size_t>(
        (static_cast<unsigned __int128>(r >> 32) * n) >> 32);
  }

private:
  std::uint64_t state_;
};

/// Makes @p value observable, so that the computation producing it cannot be
/// optimised away (an empty asm statement that claims to read it).
template <class T>
inline void keep(const T& value)
{
  asm volatile("" : : "r,m"(value) : "memory");
}

// ---------------------------------------------------------------------------
// Statistics

inline double median(std::vector<double> v)
{
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

/// The value below which a fraction q of the samples lie (nearest rank).
template <class T>
T percentile_of_sorted(const std::vector<T>& sorted, double q)
{
  if (sorted.empty())
    return T{};
  std::size_t rank =
      static_cast<std::size_t>(q * static_cast<double>(sorted.size()));
  if (rank >= sorted.size())
    rank = sorted.size() - 1;
  return sorted[rank];
}

/// "1k", "100k", "1M": how doc/benchmarks.md names the sizes.
inline std::string size_label(std::size_t n)
{
  if (n >= 1000000 && n % 1000000 == 0)
    return std::to_string(n / 1000000) + "M";
  if (n >= 1000 && n % 1000 == 0)
    return std::to_string(n / 1000) + "k";
  return std::to_string(n);
}

// ---------------------------------------------------------------------------
// Report: measurements, budget verdicts and correctness checks.

class report
{
public:
  /// @p program names the report; a build of the same program against
  /// another Asio (test/bench/CMakeLists.txt: the *_newer_asio programs)
  /// defines ASIO_WHEEL_BENCH_PROGRAM_SUFFIX, which is appended.
  report(std::string program, const options& opts)
    : program_(std::move(program) + ASIO_WHEEL_BENCH_PROGRAM_SUFFIX),
      opts_(opts)
  {}

  /// One measured figure, e.g. ("W1", "wheel_timer", 100000, "ns_per_rearm", 21.5).
  void measure(const std::string& workload, const std::string& impl,
      std::size_t n, const std::string& metric, double value)
  {
    records_.push_back(format(
        "{\"kind\":\"measurement\",\"program\":\"%s\",\"workload\":\"%s\","
        "\"impl\":\"%s\",\"n\":%zu,\"metric\":\"%s\",\"value\":%.6g,"
        "\"smoke\":%s}",
        program_.c_str(), workload.c_str(), impl.c_str(), n, metric.c_str(),
        value, opts_.smoke ? "true" : "false"));
  }

  /// A budget (doc/benchmarks.md, the budgets table): passes when measured
  /// <= limit. Printed as a table row; in smoke mode the verdict is recorded
  /// as "n/a" (tiny sizes say nothing about performance), and so it is when
  /// the budget does not apply to this run (`applies` false: the budget holds
  /// only on a machine meeting a condition this one did not meet; `detail`
  /// says which).
  void budget(const std::string& workload, const std::string& what,
      double measured, double limit, const std::string& detail,
      bool applies = true)
  {
    const bool pass = measured <= limit;
    const char* verdict =
        opts_.smoke || !applies ? "n/a" : (pass ? "PASS" : "MISS");
    budget_lines_.push_back(format("  %-4s %-52s %9.4g <= %-7.4g  %s", verdict,
        what.c_str(), measured, limit, detail.c_str()));
    records_.push_back(
        format("{\"kind\":\"budget\",\"program\":\"%s\",\"workload\":\"%s\","
               "\"budget\":\"%s\",\"measured\":%.6g,\"limit\":%.6g,"
               "\"verdict\":\"%s\",\"detail\":\"%s\",\"smoke\":%s}",
            program_.c_str(), workload.c_str(), what.c_str(), measured, limit,
            verdict, detail.c_str(), opts_.smoke ? "true" : "false"));
  }

  /// A correctness condition (not a timing): a failure makes the exit
  /// status 1.
  void check(bool ok, const std::string& what)
  {
    if (!ok)
    {
      std::fprintf(stderr, "CHECK FAILED: %s\n", what.c_str());
      ++failed_checks_;
      records_.push_back(format(
          "{\"kind\":\"check_failed\",\"program\":\"%s\",\"what\":\"%s\"}",
          program_.c_str(), what.c_str()));
    }
  }

  /// A free-form fact about the run (options used, sizes of types).
  void note(const std::string& key, const std::string& value)
  {
    records_.push_back(format("{\"kind\":\"note\",\"program\":\"%s\",\"key\":"
                              "\"%s\",\"value\":\"%s\"}",
        program_.c_str(), key.c_str(), value.c_str()));
  }

  /// Prints the budget verdicts, writes the JSON file, returns the exit status.
  int finish()
  {
    if (!budget_lines_.empty())
    {
      std::printf(
          "\nBudgets (doc/benchmarks.md; wheel : reference, lower is better)"
          "%s\n",
          opts_.smoke ? " -- smoke run, verdicts not applicable" : "");
      for (const auto& line : budget_lines_)
        std::printf("%s\n", line.c_str());
    }
    if (!opts_.json_path.empty())
    {
      std::ofstream out(opts_.json_path);
      out << "{\"program\":\"" << program_ << "\",\"records\":[\n";
      for (std::size_t i = 0; i < records_.size(); ++i)
        out << records_[i] << (i + 1 < records_.size() ? ",\n" : "\n");
      out << "]}\n";
      if (!out)
      {
        std::fprintf(stderr, "cannot write %s\n", opts_.json_path.c_str());
        return 1;
      }
    }
    if (failed_checks_)
    {
      std::fprintf(stderr, "%s: %d correctness check(s) failed\n",
          program_.c_str(), failed_checks_);
      return 1;
    }
    std::fflush(stdout);
    return 0;
  }

private:
  template <class... Args>
  static std::string format(const char* fmt, Args... args)
  {
    char buf[1024];
    std::snprintf(buf, sizeof buf, fmt, args...);
    return buf;
  }

  std::string program_;
  options opts_;
  std::vector<std::string> records_;
  std::vector<std::string> budget_lines_;
  int failed_checks_ = 0;
};

}  // namespace bench

#endif  // ASIO_WHEEL_TEST_BENCH_BENCH_SUPPORT_HPP
