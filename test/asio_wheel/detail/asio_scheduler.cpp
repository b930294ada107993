//
// test/asio_wheel/detail/asio_scheduler.cpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// Tests of the scheduler hooks (include/asio_wheel/detail/asio_scheduler.hpp): the wheel
// service under every kind of io_context concurrency hint: the default, 1, 2, and the special
// hints UNSAFE, UNSAFE_IO and SAFE. For each, how the service reads the hint
// (asio_wheel::detail::scheduler_locks: whether the service's lock is on), and on the manual
// clock that waits expire in order, exactly once and never early, that cancel() and expires_after() abort with operation_aborted and that reschedule_after()
// moves a wait without aborting it. For the hints that let several threads run one context
// (the default, 2, SAFE), io_context::run() on two threads while both threads arm timers:
// every handler runs exactly once, with the result its wait must have.
// (The abort_order tests of wheel_timer_service.cpp run with all six hints too.)
//
// Part of asio_wheel_service_test (test/asio_wheel/CMakeLists.txt), whose manual-clock
// scaffolding it shares.
#include "../wheel_test_support.hpp"

#include <asio_wheel/detail/asio_scheduler.hpp>

#include <algorithm>
#include <atomic>
#include <memory>
#include <thread>
#include <vector>

using namespace asio_wheel_test;

BOOST_AUTO_TEST_SUITE(concurrency_hints)

// ---------------------------------------------------------------- how the hint is read

BOOST_DATA_TEST_CASE(scheduler_locks_reads_the_hint_as_asio_does,
    boost::unit_test::data::make(all_concurrency_hints), concurrency_hint)
{
  asio::io_context io(concurrency_hint);
  const bool seen = asio_wheel::detail::scheduler_locks(io);
  const bool expected = expected_locking(concurrency_hint);
  BOOST_TEST(seen == expected,
      "hint " << hint_name(concurrency_hint) << " read as locking=" << seen
              << ", expected " << expected << " (" << asio_description()
              << ")");
}

BOOST_AUTO_TEST_CASE(
    scheduler_locks_reads_a_default_constructed_context_as_the_default_hint)
{
  asio::io_context io;
  BOOST_TEST(asio_wheel::detail::scheduler_locks(io)
      == expected_locking(concurrency_hint_default));
}

// ---------------------------------------------------------------- one thread, every hint

// Waits on twelve timers, expiring over four revolutions of an 8-slot wheel and armed out of
// expiry order, complete in expiry order, each once, with success, never early and at most one
// tick late. Meanwhile cancel() and expires_after() abort waits with operation_aborted, exactly
// once and without completing them at their old expiry, and reschedule_after() moves a wait
// later without aborting it.
BOOST_DATA_TEST_CASE(
    waits_expire_in_order_once_and_aborts_and_moves_keep_their_results,
    boost::unit_test::data::make(all_concurrency_hints), concurrency_hint)
{
  const auto t0 = align_clock_to(tick);
  asio::io_context io(concurrency_hint);
  // 8 slots, slices of 3: same-tick expiries and revolutions, batches split across slices.
  auto& service = install_service(io, make_options(tick, 8, 3));
  const auto at = [&](double n) { return t0 + ticks(n, tick); };

  const double expiry_ticks[] = {
      7.5, 2.5, 12.5, 2.5, 20.5, 5.5, 9.5, 17.5, 1.5, 30.5, 4.5, 9.5};
  constexpr std::size_t n = std::size(expiry_ticks);
  std::vector<std::unique_ptr<manual_timer>> timers;
  std::vector<wait_record> records(n);
  std::vector<std::size_t> completion_order;
  for (std::size_t i = 0; i < n; ++i)
  {
    timers.push_back(std::make_unique<manual_timer>(io, at(expiry_ticks[i])));
    timers.back()->async_wait([&, i](const error_code& ec) {
      record_into(records[i])(ec);
      completion_order.push_back(i);
    });
  }

  // cancel(): both waits of `cancelled` are aborted.
  manual_timer cancelled(io, at(3.5));
  wait_record cancelled_1, cancelled_2;
  cancelled.async_wait(record_into(cancelled_1));
  cancelled.async_wait(record_into(cancelled_2));
  BOOST_TEST(cancelled.cancel() == 2u);

  // expires_after(): the wait at 6.5 ticks is aborted; the new wait completes at 3 ticks.
  manual_timer rearmed(io, at(6.5));
  wait_record rearmed_old, rearmed_new;
  rearmed.async_wait(record_into(rearmed_old));
  BOOST_TEST(rearmed.expires_after(ticks(2.5, tick)) == 1u);
  const auto rearmed_expiry = rearmed.expiry();
  rearmed.async_wait(record_into(rearmed_new));

  // reschedule_after(): the wait at 4.5 ticks moves to 10.5 ticks and is not aborted.
  manual_timer moved(io, at(4.5));
  wait_record moved_wait;
  moved.async_wait(record_into(moved_wait));
  BOOST_TEST(moved.reschedule_after(ticks(10.5, tick)) == 1u);
  const auto moved_expiry = moved.expiry();

  BOOST_TEST(cancelled_1.calls == 0, "a handler ran inside cancel()");
  BOOST_TEST(rearmed_old.calls == 0, "a handler ran inside expires_after()");
  settle(io);
  BOOST_TEST(cancelled_1.aborted_once(),
      "cancel(): " << cancelled_1.calls << " calls, "
                   << cancelled_1.ec.message() << " (hint "
                   << hint_name(concurrency_hint) << ")");
  BOOST_TEST(cancelled_2.aborted_once(),
      "cancel(): " << cancelled_2.calls << " calls, "
                   << cancelled_2.ec.message());
  BOOST_TEST(rearmed_old.aborted_once(),
      "expires_after(): " << rearmed_old.calls << " calls, "
                          << rearmed_old.ec.message());

  // One tick at a time: every wait due by now has completed, none early, none twice.
  for (int step = 1; step <= 32; ++step)
  {
    manual_clock::advance(tick);
    settle(io);
    const auto now = manual_clock::now();
    for (std::size_t i = 0; i < n; ++i)
    {
      const auto expiry = at(expiry_ticks[i]);
      if (now >= expiry + tick)
        BOOST_TEST(records[i].calls == 1,
            "wait " << i << " (expiry " << expiry_ticks[i] << " ticks) ran "
                    << records[i].calls << " times by tick " << step);
      if (now < expiry)
        BOOST_TEST(records[i].calls == 0,
            "wait " << i << " (expiry " << expiry_ticks[i]
                    << " ticks) completed early, at tick " << step);
    }
    if (now < moved_expiry)
      BOOST_TEST(moved_wait.calls == 0,
          "the moved wait completed at tick " << step
                                              << ", before its new expiry");
  }

  for (std::size_t i = 0; i < n; ++i)
  {
    BOOST_TEST(records[i].succeeded_once(),
        "wait " << i << ": " << records[i].calls << " calls, "
                << records[i].ec.message());
    BOOST_TEST((records[i].completed_at >= at(expiry_ticks[i])),
        "wait " << i << " early");
    BOOST_TEST((records[i].completed_at <= at(expiry_ticks[i]) + tick),
        "wait " << i << " more than one tick late");
  }
  BOOST_TEST(completion_order.size() == n);
  for (std::size_t k = 1; k < completion_order.size(); ++k)
    BOOST_TEST(expiry_ticks[completion_order[k - 1]]
            <= expiry_ticks[completion_order[k]],
        "wait " << completion_order[k - 1] << " (expiry "
                << expiry_ticks[completion_order[k - 1]]
                << ") completed after wait " << completion_order[k]
                << " (expiry " << expiry_ticks[completion_order[k]] << ")");

  BOOST_TEST(cancelled_1.calls == 1,
      "an aborted wait also completed at its old expiry");
  BOOST_TEST(cancelled_2.calls == 1);
  BOOST_TEST(rearmed_old.calls == 1,
      "an aborted wait also completed at its old expiry");
  BOOST_TEST(rearmed_new.succeeded_once(),
      "the wait after expires_after(): " << rearmed_new.calls << " calls, "
                                         << rearmed_new.ec.message());
  BOOST_TEST((rearmed_new.completed_at >= rearmed_expiry));
  BOOST_TEST((rearmed_new.completed_at <= rearmed_expiry + tick));
  BOOST_TEST(moved_wait.succeeded_once(),
      "the moved wait: " << moved_wait.calls << " calls, "
                         << moved_wait.ec.message());
  BOOST_TEST((moved_wait.completed_at >= moved_expiry));
  BOOST_TEST((moved_wait.completed_at <= moved_expiry + tick));

  const auto s = service.stats();
  BOOST_TEST(s.waits_expired == n + 2, "waits_expired " << s.waits_expired);
  BOOST_TEST(s.waits_cancelled == 3u, "waits_cancelled " << s.waits_cancelled);
  BOOST_TEST(s.pending_waits == 0u);
  BOOST_TEST(io.stopped(), "nothing pending, yet run() would not return");
}

// ---------------------------------------------------------------- two threads

// The hints under which several threads may run one context.
const int multi_thread_hints[] = {
    concurrency_hint_default, 2, concurrency_hint_safe};

// One timer of the two-thread test: a chain of rounds, each started either by the thread that
// created the chain (round 0) or by the handler that ends the previous round, on whichever
// thread runs it. Within a round the timer is touched only until the round's last async_wait,
// so no two threads use one timer at once (Asio's implicit strand of a single chain).
struct chain
{
  explicit chain(asio::io_context& io) : timer(io) {}

  manual_timer timer;
  int index = 0;
  int rounds_done = 0;
};

struct two_thread_state
{
  explicit two_thread_state(std::size_t capacity) : completions(capacity) {}

  std::vector<std::atomic<int>> completions;  // per wait id
  std::atomic<std::size_t> next_wait_id{0};
  std::atomic<int> ids_exhausted{0};
  std::atomic<int> wrong_result{0};
  std::atomic<int> early{0};
  std::atomic<int> wrong_count{
      0};  // cancel / expires_* / reschedule_* returned a wrong count
  std::atomic<int> chains_finished{0};
  std::atomic<int> successes{0};
  std::atomic<int> aborts{0};
  std::atomic<int> armed_by_thread[2] = {};
  std::atomic<int> handlers_on_thread[2] = {};
};

constexpr int chain_rounds = 16;
thread_local int this_run_thread =
    -1;  // 0 or 1 on the two threads, -1 elsewhere

void start_round(two_thread_state& state, chain& c);

// A wait of one round: checks its result (and, for a success, that the clock had reached
// not_before) when it runs and, if it ends the round, starts the next one from the handler.
void wait_for(two_thread_state& state, chain& c, bool expect_success,
    manual_clock::time_point not_before, bool ends_round)
{
  const std::size_t id = state.next_wait_id++;
  if (id >= state.completions.size())
  {
    ++state.ids_exhausted;
    return;
  }
  if (this_run_thread >= 0)
    ++state.armed_by_thread[this_run_thread];
  c.timer.async_wait([&state, &c, id, expect_success, not_before, ends_round](
                         const error_code& ec) {
    if (this_run_thread >= 0)
      ++state.handlers_on_thread[this_run_thread];
    ++state.completions[id];
    if (!ec)
      ++state.successes;
    else if (ec == asio::error::operation_aborted)
      ++state.aborts;
    if (expect_success ? bool(ec) : ec != asio::error::operation_aborted)
      ++state.wrong_result;
    if (expect_success && manual_clock::now() < not_before)
      ++state.early;
    if (ends_round)
    {
      if (++c.rounds_done < chain_rounds)
        start_round(state, c);
      else
        ++state.chains_finished;
    }
  });
}

// Round r of chain i, by (i + r) % 4. Every count is checked on a wait at time_point::max(),
// which cannot have expired in between, so the counts are exact however the threads run.
void start_round(two_thread_state& state, chain& c)
{
  constexpr auto never = manual_clock::time_point::max();
  const auto delay = ticks(1 + (c.index * 7 + c.rounds_done) % 9, tick);
  switch ((c.index + c.rounds_done) % 4)
  {
  case 0:  // a plain wait
    c.timer.expires_after(delay);
    wait_for(state, c, true, c.timer.expiry(), true);
    break;
  case 1:  // reschedule_after moves a wait without aborting it
  {
    // The new expiry is now + delay as reschedule_after reads the clock: not before this.
    const auto moved_not_before = manual_clock::now() + delay;
    c.timer.expires_at(never);
    wait_for(state, c, true, moved_not_before, false);
    if (c.timer.reschedule_after(delay) != 1u)
      ++state.wrong_count;
    wait_for(state, c, true, c.timer.expiry(), true);
    break;
  }
  case 2:  // expires_after aborts the pending wait
    c.timer.expires_at(never);
    wait_for(state, c, false, never, false);
    if (c.timer.expires_after(delay) != 1u)
      ++state.wrong_count;
    wait_for(state, c, true, c.timer.expiry(), true);
    break;
  case 3:  // cancel aborts the pending wait; the next wait is not affected
    c.timer.expires_at(never);
    wait_for(state, c, false, never, false);
    if (c.timer.cancel() != 1u)
      ++state.wrong_count;
    if (c.timer.expires_after(delay) != 0u)
      ++state.wrong_count;
    wait_for(state, c, true, c.timer.expiry(), true);
    break;
  }
}

BOOST_DATA_TEST_CASE(two_threads_run_the_context_while_both_arm_timers,
    boost::unit_test::data::make(multi_thread_hints), concurrency_hint)
{
  constexpr int chains_per_thread = 500;
  constexpr int chain_count = 2 * chains_per_thread;
  asio::io_context io(concurrency_hint);
  auto& service = install_service(io, make_options(tick, 64, 16));
  two_thread_state state(
      static_cast<std::size_t>(chain_count) * chain_rounds * 2);

  std::vector<std::unique_ptr<chain>> chains;
  for (int i = 0; i < chain_count; ++i)
  {
    chains.push_back(std::make_unique<chain>(io));
    chains.back()->index = i;
  }

  // Each thread arms its half of the chains, both at once, then runs the context; the clock
  // starts moving once both have armed. The start is a spinning gate, not a std::latch:
  // MinGW-w64 GCC 12's std::latch, whose wait falls back to a mutex and condition variable
  // without a futex, can lose its wakeup, and then one thread never starts (under Wine a
  // loop of two-thread latches hung at round 42 of 3000, and this test hung 3 times in 13).
  std::atomic<int> at_gate{0};
  std::atomic<int> threads_armed{0};
  std::atomic<int> runs_returned{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t)
    threads.emplace_back([&, t] {
      this_run_thread = t;
      ++at_gate;
      while (at_gate.load() < 2)
        std::this_thread::yield();
      for (int i = t * chains_per_thread; i < (t + 1) * chains_per_thread; ++i)
        start_round(state, *chains[static_cast<std::size_t>(i)]);
      ++threads_armed;
      io.run();
      ++runs_returned;
    });

  // Manual time advances one tick per 100 us of real time: the pause only paces this thread
  // against the two run() threads so that arming, cancelling and expiring interleave; no
  // result depends on its length.
  const auto armed_deadline = std::chrono::steady_clock::now() + 60s;
  while (threads_armed.load() < 2
      && std::chrono::steady_clock::now() < armed_deadline)
    std::this_thread::yield();
  BOOST_TEST_REQUIRE(
      threads_armed.load() == 2, "a thread did not finish arming in 60 s");
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (state.chains_finished.load() < chain_count
      && std::chrono::steady_clock::now() < deadline)
  {
    manual_clock::advance(tick);
    std::this_thread::sleep_for(100us);
  }
  // Everything completed: run() must return on both threads by itself.
  const auto return_deadline = std::chrono::steady_clock::now() + 10s;
  while (runs_returned.load() < 2
      && std::chrono::steady_clock::now() < return_deadline)
  {
    manual_clock::advance(tick);
    std::this_thread::sleep_for(1ms);
  }
  const bool returned_by_itself = runs_returned.load() == 2;
  if (!returned_by_itself)
    io.stop();
  for (auto& th : threads)
    th.join();

  const std::size_t ids_used =
      std::min(state.next_wait_id.load(), state.completions.size());
  std::size_t not_once = 0;
  for (std::size_t id = 0; id < ids_used; ++id)
    if (state.completions[id].load() != 1)
      ++not_once;
  BOOST_TEST_MESSAGE("hint "
      << hint_name(concurrency_hint) << ": " << ids_used << " waits, "
      << state.successes.load() << " succeeded, " << state.aborts.load()
      << " aborted; armed " << state.armed_by_thread[0].load() << " / "
      << state.armed_by_thread[1].load() << ", handlers run "
      << state.handlers_on_thread[0].load() << " / "
      << state.handlers_on_thread[1].load() << " on the two threads");
  BOOST_TEST(state.chains_finished.load() == chain_count,
      "unfinished chains: a wait was lost"
      " (hint "
          << hint_name(concurrency_hint) << ")");
  BOOST_TEST(
      returned_by_itself, "run() did not return after the last wait completed");
  BOOST_TEST(
      not_once == 0u, not_once << " waits did not complete exactly once");
  BOOST_TEST(state.ids_exhausted.load() == 0);
  BOOST_TEST(state.wrong_result.load() == 0,
      state.wrong_result.load() << " handlers saw the wrong result");
  BOOST_TEST(state.early.load() == 0,
      state.early.load() << " waits completed before their expiry");
  BOOST_TEST(state.wrong_count.load() == 0,
      state.wrong_count.load() << " cancel / expires_after / reschedule_after "
                                  "calls returned a wrong count");
  BOOST_TEST(state.armed_by_thread[0].load() > 0, "thread 0 armed no timer");
  BOOST_TEST(state.armed_by_thread[1].load() > 0, "thread 1 armed no timer");
  BOOST_TEST(
      static_cast<std::size_t>(state.successes.load() + state.aborts.load())
      == ids_used);
  const auto s = service.stats();
  BOOST_TEST(s.pending_waits == 0u);
  BOOST_TEST(s.timers_in_wheel == 0u);
  BOOST_TEST(s.waits_expired + s.waits_cancelled == ids_used);
  BOOST_TEST(
      s.waits_cancelled == static_cast<std::uint64_t>(state.aborts.load()));
}

BOOST_AUTO_TEST_SUITE_END()
