//
// test/bench/churn.cpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// Benchmarks W1 (churn) and W2 (idle refresh) of doc/benchmarks.md,
// Boost.Asio side: N timers, each with one pending wait at 30 s;
// pseudo-random ones are re-armed over and over, the way a server pushes
// back a connection's idle timeout on every packet.
//
//   W1  steady_timer and wheel_timer: expires_after(30s) + async_wait. The
//       old wait is aborted and its handler runs (drained by io.poll() every
//       1024 re-arms, as an event loop would between packets).
//   W2  wheel_timer::extend_after(30s), the idle refresh: a clock read and
//       one relaxed store into the timer; the wait stays pending, no handler
//       runs. Its peer and budget is the expert's steady_timer idiom
//       (doc/benchmarks.md#budgets): each connection keeps the time of its
//       last input, and its steady_timer, armed once for the idle period,
//       checks that time when it fires and re-arms for what remains, or
//       closes. Per input that is a clock read and a store into the
//       connection object (steady_timer + time point, 128 bytes), which is
//       what the idiom's column measures; its timers, armed for 30 s, do not
//       fire during the run. Beside them, as a measurement,
//       wheel_timer::reschedule_after(30s), which returns how many waits it
//       moved and moves earlier too: it reads the timer and takes the
//       service's lock.
//
//       References, no budget: the blind floor stores Clock::now() + 30s into
//       a random element of an array of time points; the read floor reads a
//       pending count from a random timer-sized object and stores into it;
//       the prefetched read floor does the same after prefetching the object
//       before the clock read, as reschedule_after does (the least a refresh
//       that reads its timer can cost); the locked store stores into a
//       random timer-sized object under an uncontended service lock (the
//       service's lock: a compare-and-swap and an exchange) and reads
//       nothing. A store overlaps its cache miss with
//       the next refresh; a read does not, because the vDSO reads the clock
//       with an ordered TSC read (RDTSCP or LFENCE; RDTSC), which waits for
//       every earlier load; and a locked instruction waits for every earlier
//       store. So a refresh that must read its timer (is a wait pending? is
//       the new expiry earlier?) or take a lock pays the miss the idiom's
//       store hides: see doc/benchmarks.md, "W2 against the idiom".
//
//       The same refreshes after a read of the whole connection object (as
//       a read handler that worked on the connection has brought it into
//       the cache), for both the idiom and the wheel.
//
//       Under callgrind (callgrind_churn.sh) each W1 and W2 loop is a dump of
//       its own, named by its side and its re-arms or refreshes:
//       instructions per re-arm, per refresh.
//
// Both implementations run in the same process, one after the other, on the
// same index sequence; each figure is the median of --reps repetitions. The
// C peers (libev, libevent) are churn_libev.cpp and churn_libevent.cpp;
// run_all.sh puts all of them in one table.
//

#include "bench_support.hpp"

#include <asio_wheel.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace {

using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;

constexpr auto idle_timeout = 30s;
constexpr std::size_t poll_every = 1024;  // re-arms between two io.poll()

struct wait_counts
{
  std::size_t aborted = 0;
  std::size_t succeeded = 0;
};

/// The handler every pending wait of this program carries: it counts, so the
/// program can check that every aborted wait's handler ran exactly once.
struct counting_handler
{
  wait_counts* counts;

  void operator()(const boost::system::error_code& ec) const
  {
    if (ec == boost::asio::error::operation_aborted)
      ++counts->aborted;
    else
      ++counts->succeeded;
  }
};

/// N timers of one kind with one pending wait each, on their own io_context.
template <class Timer>
struct timer_fleet
{
  boost::asio::io_context io;
  wait_counts counts;
  std::vector<Timer> timers;

  /// @p tuned: on the tuned steady_timer's context (bench_support.hpp).
  explicit timer_fleet(std::size_t n, bool tuned = false)
    : io(bench::make_context(1, tuned ? n : 0))
  {
    timers.reserve(n);
    for (std::size_t i = 0; i < n; ++i)
    {
      timers.emplace_back(io);
      timers.back().expires_after(idle_timeout);
      timers.back().async_wait(counting_handler{&counts});
    }
  }

  ~timer_fleet()
  {
    // Destroying the timers aborts their waits; the io_context, destroyed
    // after the vector, destroys those handlers without running them.
    timers.clear();
  }
};

struct churn_result
{
  double ns_per_op = 0;  // CPU time of the thread per re-arm
  double wall_ns_per_op = 0;  // wall time per re-arm (noisier when shared)
  std::size_t handlers_expected = 0;  // aborted handlers that must have run
  std::size_t handlers_ran = 0;
  std::size_t moved_or_cancelled = 0;  // sum of the calls' return values
};

/// The per-re-arm times of `rearms` re-arms measured by `watch`.
churn_result per_rearm(const bench::stopwatch& watch, std::size_t rearms)
{
  churn_result r;
  r.ns_per_op = bench::to_ns(watch.cpu()) / static_cast<double>(rearms);
  r.wall_ns_per_op = bench::to_ns(watch.wall()) / static_cast<double>(rearms);
  return r;
}

/// W1 on one fleet: expires_after + async_wait on `rearms` random timers;
/// under callgrind a dump of its own, "W1 SIDE rearms=R".
template <class Timer>
churn_result run_w1(timer_fleet<Timer>& fleet, const char* side,
    std::size_t rearms, std::uint64_t seed)
{
  bench::index_generator pick(seed);
  const std::size_t n = fleet.timers.size();
  const std::size_t aborted_before = fleet.counts.aborted;
  std::size_t cancelled = 0;

  CALLGRIND_ZERO_STATS;
  const bench::stopwatch watch;
  for (std::size_t i = 0; i < rearms; ++i)
  {
    Timer& t = fleet.timers[pick.below(n)];
    cancelled += t.expires_after(idle_timeout);
    t.async_wait(counting_handler{&fleet.counts});
    if (i % poll_every == poll_every - 1)
      fleet.io.poll();
  }
  fleet.io.poll();

  churn_result r = per_rearm(watch, rearms);
  const std::string dump =
      std::string("W1 ") + side + " rearms=" + std::to_string(rearms);
  CALLGRIND_DUMP_STATS_AT(dump.c_str());
  r.handlers_expected = rearms;
  r.handlers_ran = fleet.counts.aborted - aborted_before;
  r.moved_or_cancelled = cancelled;
  return r;
}

/// A W2 loop's callgrind dump: "W2 SIDE[ warm] refreshes=R".
std::string callgrind_label(const char* side, bool warm, std::size_t rearms)
{
  return std::string("W2 ") + side + (warm ? " warm" : "")
      + " refreshes=" + std::to_string(rearms);
}

/// Reads every cache line of the object at @p p (a read handler that worked
/// on the connection has brought it into the cache); returns a sum to keep.
template <class T>
unsigned touch(const T& object)
{
  const volatile unsigned char* bytes =
      reinterpret_cast<const volatile unsigned char*>(&object);
  unsigned sum = 0;
  for (std::size_t offset = 0; offset < sizeof(T); offset += 64)
    sum += bytes[offset];
  return sum + bytes[sizeof(T) - 1];
}

/// W2's loop: `rearms` refreshes of random elements of a fleet (each read
/// first if @p warm) at W1's event-loop cadence, although nothing is ready to
/// run; under callgrind a dump of its own, named by @p side. @p refresh
/// returns how many waits it moved.
template <class Fleet, class Elements, class Refresh>
churn_result run_w2_loop(Fleet& fleet, Elements& elements, const char* side,
    std::size_t rearms, std::uint64_t seed, bool warm, Refresh refresh)
{
  bench::index_generator pick(seed);
  const std::size_t n = elements.size();
  const std::size_t handlers_before =
      fleet.counts.aborted + fleet.counts.succeeded;
  std::size_t moved = 0;
  unsigned touched = 0;

  CALLGRIND_ZERO_STATS;
  const bench::stopwatch watch;
  for (std::size_t i = 0; i < rearms; ++i)
  {
    auto& element = elements[pick.below(n)];
    if (warm)
      touched += touch(element);
    moved += refresh(element);
    if (i % poll_every == poll_every - 1)
      fleet.io.poll();
  }
  fleet.io.poll();

  churn_result r = per_rearm(watch, rearms);
  const std::string dump = callgrind_label(side, warm, rearms);
  CALLGRIND_DUMP_STATS_AT(dump.c_str());
  bench::keep(touched);
  r.handlers_expected = 0;
  r.handlers_ran =
      fleet.counts.aborted + fleet.counts.succeeded - handlers_before;
  r.moved_or_cancelled = moved;
  return r;
}

/// W2 on a wheel fleet: reschedule_after on random timers.
churn_result run_w2(timer_fleet<asio_wheel::wheel_timer>& fleet,
    std::size_t rearms, std::uint64_t seed, bool warm)
{
  return run_w2_loop(fleet, fleet.timers, "wheel_timer", rearms, seed, warm,
      [](asio_wheel::wheel_timer& t) {
        return t.reschedule_after(idle_timeout);
      });
}

/// W2 on a wheel fleet: extend_after on random timers, the idle refresh.
churn_result run_w2_extend(timer_fleet<asio_wheel::wheel_timer>& fleet,
    std::size_t rearms, std::uint64_t seed, bool warm)
{
  return run_w2_loop(fleet, fleet.timers, "wheel_extend", rearms, seed, warm,
      [](asio_wheel::wheel_timer& t) {
        t.extend_after(idle_timeout);
        return std::size_t(0);
      });
}

/// A connection of the expert's steady_timer idiom: the time of its last
/// input, and a steady_timer armed once for the idle period that, when it
/// fires, checks that time and re-arms for what remains, or closes.
struct idiom_connection
{
  boost::asio::steady_timer timer;
  clock_type::time_point last_input;

  // (The counts live in the handler, not in the connection: the connection
  // holds what the idiom needs, no more.)
  idiom_connection(boost::asio::io_context& io, wait_counts& counts)
    : timer(io), last_input(clock_type::now())
  {
    arm(last_input + idle_timeout, counts);
  }

  void arm(clock_type::time_point deadline, wait_counts& counts)
  {
    timer.expires_at(deadline);
    timer.async_wait([this, &counts](const boost::system::error_code& ec) {
      on_timer(ec, counts);
    });
  }

  void on_timer(const boost::system::error_code& ec, wait_counts& counts)
  {
    if (ec)
    {
      ++counts.aborted;
      return;
    }
    const auto deadline = last_input + idle_timeout;
    if (clock_type::now() < deadline)
      return arm(deadline, counts);  // input came meanwhile: what remains
    ++counts.succeeded;  // idle for the whole period: the server closes
  }
};

/// N connections of the idiom on their own io_context.
struct idiom_fleet
{
  boost::asio::io_context io{1};
  wait_counts counts;
  std::vector<idiom_connection> connections;

  explicit idiom_fleet(std::size_t n)
  {
    connections.reserve(n);  // the handlers point at their connection
    for (std::size_t i = 0; i < n; ++i)
      connections.emplace_back(io, counts);
  }

  ~idiom_fleet() { connections.clear(); }
};

/// W2 of the idiom: per input, the time of the input stored into a random
/// connection.
churn_result run_w2_idiom(
    idiom_fleet& fleet, std::size_t rearms, std::uint64_t seed, bool warm)
{
  return run_w2_loop(fleet, fleet.connections, "steady_idiom", rearms, seed,
      warm, [](idiom_connection& c) {
        c.last_input = clock_type::now();
        return std::size_t(0);
      });
}

/// The blind floor (reference): one clock read and one store, no read.
churn_result run_floor(std::vector<clock_type::time_point>& expiries,
    std::size_t rearms, std::uint64_t seed)
{
  bench::index_generator pick(seed);
  const std::size_t n = expiries.size();
  const bench::stopwatch watch;
  for (std::size_t i = 0; i < rearms; ++i)
    expiries[pick.below(n)] = clock_type::now() + idle_timeout;
  return per_rearm(watch, rearms);
}

/// Stands in for a timer object in the read floor: as large as a
/// wheel_timer, with an expiry and a count of pending waits.
struct timer_sized
{
  clock_type::time_point expiry;
  std::size_t pending = 1;
  unsigned char rest[sizeof(asio_wheel::wheel_timer)
      - sizeof(clock_type::time_point) - sizeof(std::size_t)];
};

/// The read floor (see the top of the file): one clock read, one read of a
/// random timer-sized object and one store into it; if @p prefetch, the
/// object prefetched before the clock read (the prefetched read floor).
churn_result run_read_floor(std::vector<timer_sized>& timers,
    std::size_t rearms, std::uint64_t seed, bool prefetch)
{
  bench::index_generator pick(seed);
  const std::size_t n = timers.size();
  std::size_t pending = 0;
  const bench::stopwatch watch;
  for (std::size_t i = 0; i < rearms; ++i)
  {
    timer_sized& t = timers[pick.below(n)];
    if (prefetch)
    {
      // reschedule_after's order: prefetch, clock, then the timer.
      asio_wheel::detail::prefetch_for_write(&t, sizeof t);
      const auto expiry = clock_type::now() + idle_timeout;
      pending += t.pending;
      t.expiry = expiry;
      continue;
    }
    pending += t.pending;
    t.expiry = clock_type::now() + idle_timeout;
  }
  churn_result r = per_rearm(watch, rearms);
  r.moved_or_cancelled = pending;
  return r;
}

/// The locked store (see the top of the file): one clock read, then a store
/// into a random timer-sized object under the service's kind of lock, held
/// as a refresh holds it. Nothing is read from the object.
churn_result run_locked_store(
    std::vector<timer_sized>& timers, std::size_t rearms, std::uint64_t seed)
{
  bench::index_generator pick(seed);
  const std::size_t n = timers.size();
  asio_wheel::detail::service_mutex mutex(true);
  const bench::stopwatch watch;
  for (std::size_t i = 0; i < rearms; ++i)
  {
    timer_sized& t = timers[pick.below(n)];
    const auto expiry = clock_type::now() + idle_timeout;
    asio_wheel::detail::service_mutex::scoped_lock lock(mutex);
    t.expiry = expiry;
  }
  return per_rearm(watch, rearms);
}

// W1 on one fleet, `reps` times: CPU and wall ns per re-arm are appended to
// `cpu` and `wall`, and every aborted handler must have run once.
template <class Fleet>
void measure_w1(Fleet& fleet, const char* name, std::size_t n,
    std::size_t rearms, int reps, bench::report& report,
    std::vector<double>& cpu, std::vector<double>& wall)
{
  for (int rep = 0; rep < reps; ++rep)
  {
    const churn_result r = run_w1(fleet, name, rearms, 1000 + rep);
    report.check(r.handlers_ran == r.handlers_expected,
        std::string(name) + " W1 N=" + std::to_string(n)
            + ": every aborted handler ran once ("
            + std::to_string(r.handlers_ran) + " of "
            + std::to_string(r.handlers_expected) + ")");
    report.check(r.moved_or_cancelled == rearms,
        std::string(name) + " W1: each expires_after aborted exactly one wait");
    cpu.push_back(r.ns_per_op);
    wall.push_back(r.wall_ns_per_op);
  }
}

}  // namespace

int main(int argc, char** argv)
{
  const bench::options opts = bench::parse_options(argc, argv);
  bench::report report("churn", opts);

  const std::vector<std::size_t> sizes = opts.smoke
      ? std::vector<std::size_t>{200}
      : std::vector<std::size_t>{1000, 100000, 1000000};
  // Enough re-arms that the timed loop runs for tenths of a second at 1M.
  const std::size_t rearms = opts.smoke ? 5000 : 1000000;
  const int reps = opts.reps ? opts.reps : (opts.smoke ? 1 : 3);

  std::printf("W1 churn (expires_after(30s) + async_wait) and W2 idle refresh "
              "(extend_after(30s) against the steady_timer idiom's store; "
              "reschedule_after(30s) beside them):"
              "\nCPU ns per re-arm (thread CPU time), median of %d x %zu "
              "re-arms, io.poll() every %zu\n\n",
      reps, rearms, poll_every);
  std::printf("%8s %10s %10s %8s | %10s %10s %8s %10s %8s | %7s %7s %7s %7s | "
              "%10s %10s %8s %10s %8s\n",
      "N", "steady W1", "wheel W1", "W1 ratio", "idiom W2", "extend W2",
      "W2/idiom", "resched W2", "/idiom", "floor", "rfloor", "pfloor", "locked",
      "warm idiom", "warm ext", "ratio", "warm resch", "ratio");

  struct row
  {
    std::size_t n;
    double steady_w1, wheel_w1, idiom_w2, extend_w2, wheel_w2, floor,
        read_floor, prefetched_read_floor, locked_store, warm_idiom,
        warm_extend, warm_wheel;
  };
  std::vector<row> rows;
  std::vector<double> tuned_by_n;  // the tuned steady_timer's W1, by size

  for (std::size_t n : sizes)
  {
    // CPU ns per re-arm of each repetition, and wall ns for the JSON.
    std::vector<double> steady_w1, wheel_w1, idiom_w2, extend_w2, wheel_w2,
        floor, read_floor, prefetched_read_floor, locked_store, warm_idiom,
        warm_extend, warm_wheel;
    std::vector<double> steady_w1_wall, wheel_w1_wall, idiom_w2_wall,
        extend_w2_wall, wheel_w2_wall, floor_wall;
    // The tuned steady_timer's W1, where the Asio has it.
    std::vector<double> tuned_w1, tuned_w1_wall;
    if (bench::has_tuned_peer())
    {
      timer_fleet<boost::asio::steady_timer> fleet(n, true);
      measure_w1(fleet, "steady_timer_tuned", n, rearms, reps, report, tuned_w1,
          tuned_w1_wall);
      report.check(fleet.counts.succeeded == 0,
          "steady_timer_tuned W1: no 30 s wait completed during the run");
      tuned_by_n.push_back(bench::median(tuned_w1));
      report.measure(
          "W1", "steady_timer_tuned", n, "ns_per_rearm", tuned_by_n.back());
      report.measure("W1", "steady_timer_tuned", n, "wall_ns_per_rearm",
          bench::median(tuned_w1_wall));
    }
    {
      timer_fleet<boost::asio::steady_timer> fleet(n);
      measure_w1(fleet, "steady_timer", n, rearms, reps, report, steady_w1,
          steady_w1_wall);
      report.check(fleet.counts.succeeded == 0,
          "steady_timer W1: no 30 s wait completed during the run");
    }
    {
      timer_fleet<asio_wheel::wheel_timer> fleet(n);
      measure_w1(fleet, "wheel_timer", n, rearms, reps, report, wheel_w1,
          wheel_w1_wall);
      // W2: the idiom, extend_after and reschedule_after alternate, each
      // repetition on the same index sequence, cold and then after a read of
      // the connection. (Both wheel refreshes use the same timers:
      // reschedule_after clears the extension extend_after stored.)
      idiom_fleet idiom(n);
      for (int rep = 0; rep < reps; ++rep)
      {
        const std::uint64_t seed = 2000 + rep;
        for (const bool warm : {false, true})
        {
          const churn_result i = run_w2_idiom(idiom, rearms, seed, warm);
          report.check(i.handlers_ran == 0,
              "steady_timer idiom W2 N=" + std::to_string(n)
                  + ": a stored input runs no handler ("
                  + std::to_string(i.handlers_ran) + " ran)");
          const churn_result e = run_w2_extend(fleet, rearms, seed, warm);
          report.check(e.handlers_ran == 0,
              "wheel_timer W2 N=" + std::to_string(n)
                  + ": extend_after runs no handler ("
                  + std::to_string(e.handlers_ran) + " ran)");
          const churn_result r = run_w2(fleet, rearms, seed, warm);
          report.check(r.handlers_ran == 0,
              "wheel_timer W2 N=" + std::to_string(n)
                  + ": reschedule_after runs no handler ("
                  + std::to_string(r.handlers_ran) + " ran)");
          report.check(r.moved_or_cancelled == rearms,
              "wheel_timer W2: each reschedule_after moved exactly one wait ("
                  + std::to_string(r.moved_or_cancelled) + " of "
                  + std::to_string(rearms) + ")");
          (warm ? warm_idiom : idiom_w2).push_back(i.ns_per_op);
          (warm ? warm_extend : extend_w2).push_back(e.ns_per_op);
          (warm ? warm_wheel : wheel_w2).push_back(r.ns_per_op);
          if (!warm)
          {
            idiom_w2_wall.push_back(i.wall_ns_per_op);
            extend_w2_wall.push_back(e.wall_ns_per_op);
            wheel_w2_wall.push_back(r.wall_ns_per_op);
          }
        }
      }
      report.check(fleet.counts.succeeded == 0,
          "wheel_timer W1/W2: no 30 s wait completed during the run");
      report.check(idiom.counts.succeeded + idiom.counts.aborted == 0,
          "steady_timer idiom W2: no 30 s wait completed during the run");
    }
    {
      std::vector<clock_type::time_point> expiries(
          n, clock_type::now() + idle_timeout);
      for (int rep = 0; rep < reps; ++rep)
      {
        const churn_result r = run_floor(expiries, rearms, 2000 + rep);
        floor.push_back(r.ns_per_op);
        floor_wall.push_back(r.wall_ns_per_op);
      }
      // Read the array back so that the compiler must perform the stores.
      clock_type::time_point latest{};
      for (const auto& e : expiries)
        latest = std::max(latest, e);
      bench::keep(latest.time_since_epoch().count());
    }
    {
      std::vector<timer_sized> timers(n);
      for (int rep = 0; rep < reps; ++rep)
      {
        const churn_result r =
            run_read_floor(timers, rearms, 2000 + rep, false);
        report.check(r.moved_or_cancelled == rearms,
            "read floor: every object read had one pending wait");
        read_floor.push_back(r.ns_per_op);
        prefetched_read_floor.push_back(
            run_read_floor(timers, rearms, 2000 + rep, true).ns_per_op);
        locked_store.push_back(
            run_locked_store(timers, rearms, 2000 + rep).ns_per_op);
      }
      clock_type::time_point latest{};
      for (const auto& t : timers)
        latest = std::max(latest, t.expiry);
      bench::keep(latest.time_since_epoch().count());
    }

    row r{n, bench::median(steady_w1), bench::median(wheel_w1),
        bench::median(idiom_w2), bench::median(extend_w2),
        bench::median(wheel_w2), bench::median(floor),
        bench::median(read_floor), bench::median(prefetched_read_floor),
        bench::median(locked_store), bench::median(warm_idiom),
        bench::median(warm_extend), bench::median(warm_wheel)};
    rows.push_back(r);
    std::printf("%8s %10.1f %10.1f %8.3f | %10.1f %10.1f %8.3f %10.1f %8.3f | "
                "%7.1f %7.1f %7.1f %7.1f | %10.1f %10.1f %8.3f %10.1f %8.3f\n",
        bench::size_label(n).c_str(), r.steady_w1, r.wheel_w1,
        r.wheel_w1 / r.steady_w1, r.idiom_w2, r.extend_w2,
        r.extend_w2 / r.idiom_w2, r.wheel_w2, r.wheel_w2 / r.idiom_w2, r.floor,
        r.read_floor, r.prefetched_read_floor, r.locked_store, r.warm_idiom,
        r.warm_extend, r.warm_extend / r.warm_idiom, r.warm_wheel,
        r.warm_wheel / r.warm_idiom);

    report.measure("W1", "steady_timer", n, "ns_per_rearm", r.steady_w1);
    report.measure("W1", "wheel_timer", n, "ns_per_rearm", r.wheel_w1);
    report.measure("W2", "steady_idiom", n, "ns_per_rearm", r.idiom_w2);
    report.measure("W2", "wheel_extend", n, "ns_per_rearm", r.extend_w2);
    report.measure("W2", "wheel_timer", n, "ns_per_rearm", r.wheel_w2);
    report.measure("W2", "floor", n, "ns_per_rearm", r.floor);
    report.measure("W2", "read_floor", n, "ns_per_rearm", r.read_floor);
    report.measure("W2", "prefetched_read_floor", n, "ns_per_rearm",
        r.prefetched_read_floor);
    report.measure("W2", "locked_store", n, "ns_per_rearm", r.locked_store);
    report.measure("W2", "warm_steady_idiom", n, "ns_per_rearm", r.warm_idiom);
    report.measure("W2", "warm_wheel_extend", n, "ns_per_rearm", r.warm_extend);
    report.measure("W2", "warm_wheel_timer", n, "ns_per_rearm", r.warm_wheel);
    report.measure("W1", "steady_timer", n, "wall_ns_per_rearm",
        bench::median(steady_w1_wall));
    report.measure("W1", "wheel_timer", n, "wall_ns_per_rearm",
        bench::median(wheel_w1_wall));
    report.measure("W2", "steady_idiom", n, "wall_ns_per_rearm",
        bench::median(idiom_w2_wall));
    report.measure("W2", "wheel_extend", n, "wall_ns_per_rearm",
        bench::median(extend_w2_wall));
    report.measure("W2", "wheel_timer", n, "wall_ns_per_rearm",
        bench::median(wheel_w2_wall));
    report.measure(
        "W2", "floor", n, "wall_ns_per_rearm", bench::median(floor_wall));
  }
  std::printf(
      "\nW1 ratio = wheel W1 / steady W1; W2/idiom = wheel extend_after "
      "/ the idiom's\nstore of the input's time into its connection (%zu "
      "bytes: steady_timer + time point); resched W2: reschedule_after,\n"
      "/idiom its ratio (a measurement, no budget)\n"
      "floor: store now()+30s into a random time point; rfloor (read floor): "
      "read a random\n%zu-byte object, store now()+30s into it; pfloor: the "
      "same, the object prefetched before\nthe clock read, as "
      "reschedule_after does; locked: the store under the service lock, "
      "nothing\n"
      "read (references, no budget)\nwarm: the same refreshes after a read "
      "of every cache line of the connection (timer) object\n",
      sizeof(idiom_connection), sizeof(timer_sized));

  if (bench::has_tuned_peer())
  {
    std::printf("\nW1 against steady_timer_tuned: steady_timer on a context "
                "configured with %s (%s)\n%8s %10s %10s %10s %8s %8s\n",
        bench::tuned_peer_label().c_str(), bench::asio_version_label().c_str(),
        "N", "steady W1", "tuned W1", "wheel W1", ":steady", ":tuned");
    for (std::size_t i = 0; i < rows.size(); ++i)
    {
      const row& r = rows[i];
      std::printf("%8s %10.1f %10.1f %10.1f %8.3f %8.3f\n",
          bench::size_label(r.n).c_str(), r.steady_w1, tuned_by_n[i],
          r.wheel_w1, r.wheel_w1 / r.steady_w1, r.wheel_w1 / tuned_by_n[i]);
      report.measure("W1", "wheel_timer", r.n, "cpu_ratio_to_steady_tuned",
          r.wheel_w1 / tuned_by_n[i]);
    }
    report.note("tuned_peer", bench::tuned_peer_label());
  }
  // A build with the tuned peer names its Asio in its rows (run_all.sh runs
  // both builds).
  const std::string asio =
      bench::has_tuned_peer() ? " (" + bench::asio_version_label() + ")" : "";
  for (std::size_t i = 0; i < rows.size(); ++i)
  {
    const row& r = rows[i];
    const std::string at = " at N=" + bench::size_label(r.n) + asio;
    // Both budgets are set at 100k and 1M.
    if (!opts.smoke && r.n < 100000)
      continue;
    report.budget("W1", "W1 wheel:steady ns per re-arm" + at,
        r.wheel_w1 / r.steady_w1, 1.0 / 3, "");
    report.budget("W2", "W2 wheel extend_after : steady_timer idiom" + at,
        r.extend_w2 / r.idiom_w2, 1.0, "");
    if (bench::has_tuned_peer())
      report.budget("W1", "W1 wheel:steady_timer tuned ns per re-arm" + at,
          r.wheel_w1 / tuned_by_n[i], 1.0 / 3, bench::tuned_peer_label());
  }
  report.note("rearms_per_rep", std::to_string(rearms));
  report.note("reps", std::to_string(reps));
  return report.finish();
}
