// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// mt_completions_test.cpp: expiries, cancels and completions with several threads in
// io_context::run() (default concurrency hint). Each case runs with 2, 3 and 4 run() threads:
// - many waits expiring in one tick: each handler runs once, never early, on more than one
//   thread;
// - a handler that blocks until almost every other handler has run: the others must not be
//   held behind it (each handler is one operation of the scheduler, which any thread runs);
// - cancels and reschedules from other threads racing the expiry of the same tick;
// - throwing handlers: the exception leaves run() on that thread, no other wait is lost or
//   completed twice;
// - the context destroyed with decided waits still queued: their handlers are destroyed
//   without running.
// Label `threads`: scripts/sanitize runs it under ThreadSanitizer.
#define BOOST_TEST_MODULE asio_wheel_mt_completions_test
#include <boost/test/unit_test.hpp>
#include <boost/test/data/test_case.hpp>

#include <asio_wheel.hpp>

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

// A named namespace: the test cases' lambdas capture these types (-Wsubobject-linkage).
namespace mt_completions {

using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;
using service_type = asio_wheel::wheel_timer_service<clock_type>;
namespace bdata = boost::unit_test::data;

const auto thread_counts = bdata::make({2, 3, 4});

service_type& make_wheel(boost::asio::io_context& io, std::size_t budget)
{
  asio_wheel::wheel_options options;
  options.tick = 1ms;
  options.slots = 256;
  options.max_completions_per_slice = budget;
  return boost::asio::make_service<service_type>(io, options);
}

// Runs io on `threads` threads until it runs out of work; a thread whose run() throws counts
// the exception and calls run() again. False if not every thread returned within `limit`.
bool run_on_threads(boost::asio::io_context& io, int threads,
    std::atomic<int>& exceptions, std::chrono::seconds limit = 30s)
{
  std::vector<std::future<void>> runs;
  for (int i = 0; i < threads; ++i)
    runs.push_back(std::async(std::launch::async, [&io, &exceptions] {
      for (;;)
      {
        try
        {
          io.run();
          return;
        }
        catch (const std::runtime_error&)
        {
          ++exceptions;
        }
      }
    }));
  const auto finish_by = clock_type::now() + limit;
  bool all_returned = true;
  for (auto& r : runs)
    if (r.wait_until(finish_by) != std::future_status::ready)
      all_returned = false;
  if (!all_returned)
  {
    io.stop();
    for (auto& r : runs)
      r.wait();
  }
  return all_returned;
}

struct per_wait
{
  std::atomic<int> calls{0};
  std::atomic<int> successes{0};
  std::atomic<int> early{0};
};

}  // namespace mt_completions

using namespace mt_completions;

BOOST_DATA_TEST_CASE(
    many_waits_expiring_in_one_tick_are_delivered_by_all_threads, thread_counts,
    threads)
{
  constexpr std::size_t n = 20000;
  constexpr std::size_t budget = 64;
  boost::asio::io_context io;  // default hint: several threads may run it
  service_type& service = make_wheel(io, budget);

  std::vector<per_wait> waits(n);
  std::vector<std::atomic<int>> ran_on(threads);
  std::vector<std::thread::id> thread_ids(threads);
  std::atomic<int> next_thread{0};
  thread_local int my_index = -1;

  const auto expiry = clock_type::now() + 50ms;
  std::vector<asio_wheel::wheel_timer> timers;
  timers.reserve(n);
  for (std::size_t i = 0; i < n; ++i)
  {
    timers.emplace_back(io, expiry);
    timers.back().async_wait([&, i](const boost::system::error_code& ec) {
      if (clock_type::now() < expiry)
        ++waits[i].early;
      if (!ec)
        ++waits[i].successes;
      ++waits[i].calls;
      if (my_index < 0)
        my_index = next_thread++ % threads;
      ++ran_on[my_index];
      // A little work per handler, so that a batch takes long enough for the other threads
      // to take the next handlers.
      const auto until = clock_type::now() + 2us;
      while (clock_type::now() < until)
      {}
    });
  }

  std::atomic<int> exceptions{0};
  BOOST_TEST_REQUIRE(
      run_on_threads(io, threads, exceptions), "run() did not return");
  BOOST_TEST(exceptions.load() == 0);
  std::size_t not_once = 0, failed = 0, early = 0;
  for (auto& w : waits)
  {
    not_once += w.calls != 1;
    failed += w.successes != 1;
    early += w.early != 0;
  }
  BOOST_TEST(not_once == 0u);
  BOOST_TEST(failed == 0u);
  BOOST_TEST(early == 0u);

  const asio_wheel::wheel_stats s = service.stats();
  // The work was shared by more than one thread.
  int threads_used = 0;
  for (auto& r : ran_on)
    threads_used += r.load() != 0;
  BOOST_TEST(
      threads_used >= 2, "handlers ran on " << threads_used << " thread(s)");
  BOOST_TEST(s.pending_waits == 0u);
}

// A handler must not keep waits from threads that could run them: the first handler blocks
// until all but `budget` of the waits have run. If it held the rest, the others could never
// run them and the handler gives up after 10 s.
BOOST_DATA_TEST_CASE(
    a_blocked_handler_holds_back_no_other_wait, thread_counts, threads)
{
  constexpr std::size_t n = 2000;
  constexpr std::size_t budget = 16;
  boost::asio::io_context io;
  make_wheel(io, budget);

  std::atomic<std::size_t> done{0};
  std::atomic<bool> blocker_taken{false};
  std::atomic<bool> gave_up{false};
  std::vector<std::atomic<int>> calls(n);
  const auto expiry = clock_type::now() + 30ms;
  std::vector<asio_wheel::wheel_timer> timers;
  timers.reserve(n);
  for (std::size_t i = 0; i < n; ++i)
  {
    timers.emplace_back(io, expiry);
    timers.back().async_wait([&, i](const boost::system::error_code&) {
      ++calls[i];
      if (!blocker_taken.exchange(true))
      {
        const auto give_up_at = clock_type::now() + 10s;
        while (done.load() < n - budget)
        {
          if (clock_type::now() > give_up_at)
          {
            gave_up = true;
            break;
          }
          std::this_thread::yield();
        }
      }
      ++done;
    });
  }

  std::atomic<int> exceptions{0};
  BOOST_TEST_REQUIRE(
      run_on_threads(io, threads, exceptions), "run() did not return");
  BOOST_TEST(!gave_up.load(),
      "the blocked handler held waits other threads could run");
  BOOST_TEST(done.load() == n);
  std::size_t not_once = 0;
  for (auto& c : calls)
    not_once += c != 1;
  BOOST_TEST(not_once == 0u);
}

// Timers of one tick are cancelled, re-armed and rescheduled (earlier, later) from threads
// outside run() and from handlers on strands while the run() threads expire them.
BOOST_DATA_TEST_CASE(
    cancels_and_reschedules_race_the_expiry_of_one_tick, thread_counts, threads)
{
  constexpr std::size_t n = 4000;
  boost::asio::io_context io;
  service_type& service = make_wheel(io, 8);

  struct record
  {
    std::atomic<int> started{0};
    std::atomic<int> calls{0};
    std::atomic<int> early{0};
    // A success before this (steady_clock ticks) is early. Only ever lowered while the wait
    // may complete, and lowered before the call that makes it earlier.
    std::atomic<clock_type::rep> not_before{0};
  };
  // Each timer carries up to two waits over the run (the first, and one after a re-arm).
  std::vector<record> records(2 * n);
  std::vector<asio_wheel::wheel_timer> timers;
  timers.reserve(n);
  const auto expiry = clock_type::now() + 40ms;
  auto handler_for = [&](std::size_t id) {
    return [&, id](const boost::system::error_code& ec) {
      if (!ec
          && clock_type::now().time_since_epoch().count()
              < records[id].not_before)
        ++records[id].early;
      ++records[id].calls;
    };
  };
  for (std::size_t i = 0; i < n; ++i)
  {
    timers.emplace_back(io, expiry);
    records[i].not_before = expiry.time_since_epoch().count();
    records[i].started = 1;
    timers.back().async_wait(handler_for(i));
  }

  std::atomic<int> exceptions{0};
  auto work = boost::asio::make_work_guard(io);
  std::future<bool> runs = std::async(std::launch::async,
      [&] { return run_on_threads(io, threads, exceptions, 60s); });

  // Two outside threads, each on its own half of the timers (one timer object is used by one
  // thread at a time), around the expiry: cancel, reschedule earlier/later, re-arm.
  auto meddle = [&](std::size_t first, std::size_t last, unsigned seed) {
    std::minstd_rand rng(seed);
    std::this_thread::sleep_until(expiry - 2ms);
    for (std::size_t i = first; i < last; ++i)
    {
      asio_wheel::wheel_timer& t = timers[i];
      switch (rng() % 5)
      {
      case 0:
        t.cancel();
        break;
      case 1:
        // Later: the original expiry stays a valid lower bound.
        t.reschedule_after(5ms);
        break;
      case 2:
      {
        // Earlier: due now, completes with success soon.
        const auto now = clock_type::now();
        records[i].not_before = now.time_since_epoch().count();
        t.reschedule_at(now);
        break;
      }
      case 3:
        // Re-arm: the first wait (if pending) is aborted, a second one starts.
        t.expires_after(3ms);
        records[n + i].not_before = t.expiry().time_since_epoch().count();
        records[n + i].started = 1;
        t.async_wait(handler_for(n + i));
        break;
      default:
        break;  // left to expire
      }
    }
  };
  std::thread a(meddle, 0, n / 2, 11u);
  std::thread b(meddle, n / 2, n, 12u);
  a.join();
  b.join();
  work.reset();
  BOOST_TEST_REQUIRE(runs.get(), "run() did not return");
  BOOST_TEST(exceptions.load() == 0);

  std::size_t not_once = 0, early = 0, started = 0;
  for (auto& r : records)
  {
    started += r.started != 0;
    not_once += r.started != 0 && r.calls != 1;
    early += r.early != 0;
  }
  BOOST_TEST(not_once == 0u);
  BOOST_TEST(early == 0u);
  const auto s = service.stats();
  BOOST_TEST(s.waits_expired + s.waits_cancelled == started);
  BOOST_TEST(s.pending_waits == 0u);
}

// Handlers that throw: each exception leaves run() on the thread that ran it (which calls
// run() again); every other handler still runs once.
BOOST_DATA_TEST_CASE(throwing_handlers_lose_nothing_and_complete_nothing_twice,
    thread_counts, threads)
{
  constexpr std::size_t n = 5000;
  constexpr int throwers =
      50;  // 2 of every 200 waits throw, one aborted, one expired
  boost::asio::io_context io;
  service_type& service = make_wheel(io, 32);

  std::vector<std::atomic<int>> calls(n);
  const auto expiry = clock_type::now() + 30ms;
  std::vector<asio_wheel::wheel_timer> timers;
  timers.reserve(n);
  for (std::size_t i = 0; i < n; ++i)
  {
    // Half expire together, half are aborted (cancelled below) in one burst.
    timers.emplace_back(io, expiry);
    timers.back().async_wait([&calls, i](const boost::system::error_code&) {
      ++calls[i];
      if (i % 200 == 7 || i % 200 == 8)
        throw std::runtime_error("handler throws");
    });
  }
  for (std::size_t i = 0; i < n; i += 2)
    timers[i].cancel();

  std::atomic<int> exceptions{0};
  BOOST_TEST_REQUIRE(
      run_on_threads(io, threads, exceptions), "run() did not return");
  BOOST_TEST(exceptions.load() == throwers);
  std::size_t not_once = 0;
  for (auto& c : calls)
    not_once += c != 1;
  BOOST_TEST(not_once == 0u);
  const auto s = service.stats();
  BOOST_TEST(s.waits_cancelled == n / 2);
  BOOST_TEST(s.waits_expired == n / 2);
}

// The context is stopped in the middle of a storm and destroyed with decided waits (expired
// and aborted) still queued in the service: those handlers are destroyed without running, the
// others ran exactly once, and nothing leaks (ASan) or runs after destruction.
BOOST_DATA_TEST_CASE(
    destroying_the_context_with_decided_waits_destroys_their_handlers,
    thread_counts, threads)
{
  constexpr std::size_t n = 20000;
  auto alive =
      std::make_shared<int>(0);  // one reference per handler not yet destroyed
  std::vector<std::atomic<int>> calls(n);
  std::atomic<std::size_t> ran{0};
  {
    auto io = std::make_unique<boost::asio::io_context>();
    make_wheel(*io, 16);
    std::optional<std::vector<asio_wheel::wheel_timer>> timers(std::in_place);
    timers->reserve(n);
    const auto expiry = clock_type::now() + 30ms;
    for (std::size_t i = 0; i < n; ++i)
    {
      timers->emplace_back(*io, expiry);
      timers->back().async_wait([&calls, &ran, &io, i, keep = alive](
                                    const boost::system::error_code&) {
        ++calls[i];
        if (++ran == 500)
          io->stop();  // a storm in progress: thousands decided, not yet delivered
      });
    }
    std::atomic<int> exceptions{0};
    BOOST_TEST_REQUIRE(
        run_on_threads(*io, threads, exceptions), "run() did not return");
    BOOST_TEST(ran.load() < n, "the storm was over before the stop");
    // Destroying the timers aborts what is still pending in the wheel: more decided waits.
    timers.reset();
    // Destroying the context destroys every queued handler without running it.
    io.reset();
  }
  BOOST_TEST(alive.use_count() == 1,
      (alive.use_count() - 1) << " handlers were never destroyed");
  std::size_t twice = 0, called = 0;
  for (auto& c : calls)
  {
    twice += c > 1;
    called += c == 1;
  }
  BOOST_TEST(twice == 0u);
  BOOST_TEST(called == ran.load());
}
