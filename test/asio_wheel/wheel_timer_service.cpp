// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// wheel_timer_service.cpp: tests of asio_wheel::wheel_timer_service
// (include/asio_wheel/wheel_timer_service.hpp) on the manual clock: its stats() through a
// scripted scenario, no wakeups for an idle or far-only wheel, the fairness budget during an
// expiry storm, exceptions thrown by handlers, run() on four threads (and on one) with strands,
// aborted handlers running in the order they were decided (and a cancellation signal for an
// aborted wait doing nothing), each with each of the six kinds of concurrency hint, a pending
// wait keeping run() alive exactly while it is pending, the handlers that did not run being
// destroyed with the context, and the hook of a per-operation timeout (hooked_wait_op) running
// once when the service decides it. What the service makes of each concurrency hint is tested
// in detail/asio_scheduler.cpp.
#include "wheel_test_support.hpp"

#include <atomic>
#include <cstddef>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

using namespace asio_wheel_test;

BOOST_AUTO_TEST_SUITE(stats)

BOOST_DATA_TEST_CASE(stats_follow_a_scripted_scenario,
    boost::unit_test::data::make(concurrency_hints), concurrency_hint)
{
  const auto t0 = align_clock_to(tick);
  asio::io_context io(concurrency_hint);
  auto& service = install_service(io, make_options(tick, 8));
  const auto at = [&](double n) { return t0 + ticks(n, tick); };
  const auto step_to = [&](double n) {
    advance_in_steps(io, at(n) - manual_clock::now(), tick);
  };

  auto s = service.stats();
  BOOST_TEST(s.timers_in_wheel == 0u);
  BOOST_TEST(s.pending_waits == 0u);
  BOOST_TEST(s.wakeups == 0u);
  BOOST_TEST(s.empty_wakeups == 0u);
  BOOST_TEST(s.waits_expired == 0u);
  BOOST_TEST(s.waits_cancelled == 0u);
  BOOST_TEST(s.lazy_refilings == 0u);
  BOOST_TEST(s.round_revisits == 0u);
  BOOST_TEST(s.max_lateness.count() == 0);

  // a (2 waits) is due at tick 4, b at tick 12: with 8 slots a sits in level 0 (slot 4), b beyond
  // one revolution in level 1 (the slot of block 8-15), which moves down when tick 12 is reached.
  manual_timer a(io, at(3.5)), b(io, at(11.5));
  wait_record a1, a2, b1;
  a.async_wait(record_into(a1));
  a.async_wait(record_into(a2));
  b.async_wait(record_into(b1));
  s = service.stats();
  BOOST_TEST(
      s.timers_in_wheel == 2u, "two timers with waits are two wheel entries");
  BOOST_TEST(s.pending_waits == 3u);

  step_to(3);
  s = service.stats();
  BOOST_TEST(
      s.wakeups == 0u, "woken during ticks 1-3 although nothing was due");
  BOOST_TEST(a1.calls == 0);

  step_to(4);
  s = service.stats();
  BOOST_TEST(a1.succeeded_once());
  BOOST_TEST(a2.succeeded_once());
  BOOST_TEST(s.wakeups == 1u);
  BOOST_TEST(s.empty_wakeups == 0u);
  BOOST_TEST(s.waits_expired == 2u);
  BOOST_TEST(s.pending_waits == 1u);
  BOOST_TEST(s.timers_in_wheel == 1u);
  BOOST_TEST(s.round_revisits == 0u, "b was visited at tick 4");
  BOOST_TEST(s.cascades == 0u, "b moved down before its block began");
  BOOST_TEST(s.max_lateness.count() == ticks(0.5, tick).count(),
      "completed at tick 4, expiry 3.5 ticks");

  step_to(11);
  BOOST_TEST(service.stats().wakeups == 1u, "woken between tick 4 and tick 12");
  step_to(12);
  s = service.stats();
  BOOST_TEST(b1.succeeded_once());
  BOOST_TEST(
      s.wakeups == 2u, "the wakeup at tick 12 moves b down and expires it");
  BOOST_TEST(s.cascades == 1u);
  BOOST_TEST(s.round_revisits == 0u);
  BOOST_TEST(s.waits_expired == 3u);
  BOOST_TEST(s.pending_waits == 0u);
  BOOST_TEST(s.timers_in_wheel == 0u);

  // A later reschedule: the entry stays filed at tick 15 and is re-filed when slot 7 comes
  // round. That wakeup completes nothing: an empty wakeup.
  manual_timer c(io, at(14.5));
  wait_record c1;
  c.async_wait(record_into(c1));
  BOOST_TEST(c.reschedule_at(at(21.5)) == 1u);
  BOOST_TEST(service.stats().lazy_refilings == 0u);
  step_to(15);
  s = service.stats();
  BOOST_TEST(c1.calls == 0);
  BOOST_TEST(s.lazy_refilings == 1u);
  BOOST_TEST(
      s.wakeups == 3u, "the old slot of a lazily moved entry must be visited");
  BOOST_TEST(s.empty_wakeups == 1u, "the wakeup at tick 15 completed no wait");
  step_to(22);
  s = service.stats();
  BOOST_TEST(c1.succeeded_once());
  BOOST_TEST(s.wakeups == 4u);
  BOOST_TEST(s.empty_wakeups == 1u);
  BOOST_TEST(s.waits_expired == 4u);

  // A clock jump: d expires at 23.5 ticks and is seen at 30: 6.5 ticks late.
  manual_timer d(io, at(23.5));
  wait_record d1;
  d.async_wait(record_into(d1));
  manual_clock::set(at(30));
  settle(io);
  s = service.stats();
  BOOST_TEST(d1.succeeded_once());
  BOOST_TEST(s.max_lateness.count() == ticks(6.5, tick).count(),
      "max_lateness " << s.max_lateness.count() << " ns, expected 6.5 ticks");
  BOOST_TEST(s.wakeups == 5u);

  // Cancellation: cancel() of two waits, then cancel_one() of the last pending wait. f is
  // armed first, so the reactor's deadline is tick 34: the cancels must leave nothing that
  // keeps the context busy.
  manual_timer e(io, at(40.5)), f(io, at(33.5));
  wait_record e1, e2, f1;
  f.async_wait(record_into(f1));
  e.async_wait(record_into(e1));
  e.async_wait(record_into(e2));
  BOOST_TEST(e.cancel() == 2u);
  s = service.stats();
  BOOST_TEST(s.waits_cancelled == 2u);
  BOOST_TEST(s.pending_waits == 1u);
  BOOST_TEST(s.timers_in_wheel == 1u);
  BOOST_TEST(f.cancel_one() == 1u);
  settle(io);
  s = service.stats();
  BOOST_TEST(e1.aborted_once());
  BOOST_TEST(e2.aborted_once());
  BOOST_TEST(f1.aborted_once());
  BOOST_TEST(s.waits_cancelled == 3u);
  BOOST_TEST(s.pending_waits == 0u);
  BOOST_TEST(s.timers_in_wheel == 0u);
  BOOST_TEST(
      io.stopped(), "nothing pending: nothing may keep the context busy");
  {
    // Nothing is pending: nothing wakes, also while other work keeps the context running (the
    // guard here).
    const auto guard = asio::make_work_guard(io);
    step_to(41);
  }
  s = service.stats();
  BOOST_TEST(s.wakeups == 5u, "a wakeup with no wait pending");
  BOOST_TEST(s.empty_wakeups == 1u);

  // A wakeup whose only wait was cancelled in the meantime completes nothing, so if the
  // service still wakes at tick 46 that wakeup must count as empty.
  manual_timer g(io, at(45.5)), h(io, at(48.5));
  wait_record g1, h1;
  g.async_wait(record_into(g1));
  h.async_wait(record_into(h1));
  BOOST_TEST(g.cancel() == 1u);
  const auto before = service.stats();
  step_to(46);
  const auto after_cancelled_tick = service.stats();
  BOOST_TEST(after_cancelled_tick.wakeups - before.wakeups
          == after_cancelled_tick.empty_wakeups - before.empty_wakeups,
      "a wakeup at a tick whose wait was cancelled must be counted as empty");
  step_to(49);
  s = service.stats();
  BOOST_TEST(h1.succeeded_once());
  BOOST_TEST(s.wakeups == after_cancelled_tick.wakeups + 1);
  BOOST_TEST(s.empty_wakeups == after_cancelled_tick.empty_wakeups);
  BOOST_TEST(s.waits_expired == 6u);
  BOOST_TEST(s.waits_cancelled == 4u);

  // expires_at and the destructor count as cancellations too (the records outlive the timer:
  // the destructor's aborted handler runs later).
  wait_record doomed1, reset1;
  {
    manual_timer doomed(io, at(60));
    doomed.async_wait(record_into(doomed1));
    BOOST_TEST(doomed.expires_at(at(70)) == 1u);
    doomed.async_wait(record_into(reset1));
  }
  settle(io);
  BOOST_TEST(doomed1.aborted_once());
  BOOST_TEST(reset1.aborted_once());
  BOOST_TEST(service.stats().waits_cancelled == 6u);
}

BOOST_AUTO_TEST_CASE(far_only_wheel_causes_no_wakeups)
{
  asio::io_context io;
  auto& service =
      install_service(io, asio_wheel::wheel_options{});  // 4096 slots of 1 ms

  // 1000 waits an hour ahead (spread over a second, so over many slots), while 10 minutes of
  // manual time pass in 1 s steps: 146 revolutions of the wheel, and not one wakeup.
  std::vector<std::unique_ptr<manual_timer>> timers;
  std::vector<wait_record> records(1000);
  for (int i = 0; i < 1000; ++i)
  {
    timers.push_back(
        std::make_unique<manual_timer>(io, std::chrono::hours(1) + i * 1ms));
    timers.back()->async_wait(record_into(records[i]));
  }
  advance_in_steps(io, std::chrono::minutes(10), std::chrono::seconds(1));
  auto s = service.stats();
  BOOST_TEST(s.wakeups == 0u, s.wakeups << " wakeups for waits 50 min away");
  BOOST_TEST(s.empty_wakeups == 0u);
  BOOST_TEST(s.round_revisits == 0u);
  BOOST_TEST(s.pending_waits == 1000u);
  BOOST_TEST(s.timers_in_wheel == 1000u);
  int completed = 0;
  for (auto& r : records)
    completed += r.calls;
  BOOST_TEST(completed == 0);

  for (auto& t : timers)
    t->cancel();
  settle(io);
  s = service.stats();
  BOOST_TEST(s.waits_cancelled == 1000u);
  BOOST_TEST(s.pending_waits == 0u);
  BOOST_TEST(io.stopped());
  for (auto& r : records)
    BOOST_TEST(r.aborted_once());
}

BOOST_AUTO_TEST_CASE(idle_wheel_causes_no_wakeups_and_does_not_keep_run_busy)
{
  asio::io_context io;
  auto& service = install_service(io, make_options(tick, 8));
  manual_timer unused(io);  // a timer without a wait is not work
  advance_in_steps(io, std::chrono::seconds(10), 100ms);
  BOOST_TEST(service.stats().wakeups == 0u);
  io.restart();
  const auto started = std::chrono::steady_clock::now();
  io.run_for(5s);
  BOOST_TEST(io.stopped(), "run() did not return on an idle context");
  BOOST_TEST((std::chrono::steady_clock::now() - started < 4s));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(fairness)

BOOST_DATA_TEST_CASE(expiry_storm_yields_to_other_handlers_between_turns,
    boost::unit_test::data::make(concurrency_hints), concurrency_hint)
{
  const auto t0 = align_clock_to(tick);
  asio::io_context io(concurrency_hint);
  constexpr std::size_t budget = 8;
  constexpr int waits = 100;
  auto& service = install_service(io, make_options(tick, 8, budget));

  std::vector<std::unique_ptr<manual_timer>> timers;
  std::vector<int> calls(waits, 0);
  int handlers_run = 0;
  int handlers_run_before_posted = -1;
  std::size_t cancelled_when_posted_ran = waits;
  for (int i = 0; i < waits; ++i)
  {
    timers.push_back(std::make_unique<manual_timer>(io, t0 + ticks(1.5, tick)));
    timers.back()->async_wait([&, i](const error_code& ec) {
      BOOST_TEST(!ec);
      ++calls[i];
      if (++handlers_run == 1)
        asio::post(io, [&] {
          handlers_run_before_posted = handlers_run;
          // Those whose handlers have not run are expired already.
          cancelled_when_posted_ran = 0;
          for (auto& t : timers)
            cancelled_when_posted_ran += t->cancel();
        });
    });
  }
  advance_in_steps(io, ticks(2, tick), tick);

  BOOST_TEST_MESSAGE("a handler posted during the storm ran after "
      << handlers_run_before_posted << " of " << waits
      << " wait handlers (budget " << budget << ")");
  BOOST_TEST(handlers_run_before_posted >= 1, "the posted handler did not run");
  BOOST_TEST(handlers_run_before_posted < waits,
      "the posted handler waited for the whole storm: no fairness budget");
#if !defined(ASIO_WHEEL_ASIO_HAS_IOCP)
  BOOST_TEST(handlers_run_before_posted <= static_cast<int>(2 * budget),
      "more than two turns' budgets ran before it");
#endif
  // (On IOCP each turn is a dispatch that a thread of the context makes when the waitable
  // timer's thread asks for one, and the manual clock's probes make more: how many budgets run
  // before the posted handler depends on those threads' timing, 3 in a run under Wine.)
  BOOST_TEST(cancelled_when_posted_ran == 0u,
      "every wait due at the wakeup is decided then, as Asio decides them");
  for (int i = 0; i < waits; ++i)
    BOOST_TEST(calls[i] == 1, "wait " << i << " ran " << calls[i] << " times");
  const auto s = service.stats();
  BOOST_TEST(s.waits_expired == static_cast<std::uint64_t>(waits));
  BOOST_TEST(s.pending_waits == 0u);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(errors_and_threads)

struct handler_failure : std::runtime_error
{
  using std::runtime_error::runtime_error;
};

BOOST_DATA_TEST_CASE(
    handler_exception_propagates_and_no_wait_is_lost_or_doubled,
    boost::unit_test::data::make(concurrency_hints), concurrency_hint)
{
  const auto t0 = align_clock_to(tick);
  asio::io_context io(concurrency_hint);
  auto& service = install_service(io, make_options(tick, 8, 8));

  // 100 waits expire in one tick and are handed to the loop 8 a turn; two handlers throw, one
  // in the first turn and one in a later one.
  constexpr int waits = 100;
  std::vector<std::unique_ptr<manual_timer>> timers;
  std::vector<int> calls(waits, 0);
  for (int i = 0; i < waits; ++i)
  {
    timers.push_back(std::make_unique<manual_timer>(io, t0 + ticks(1.5, tick)));
    timers.back()->async_wait([&, i](const error_code& ec) {
      BOOST_TEST(!ec);
      ++calls[i];
      if (i == 3 || i == 50)
        throw handler_failure("handler " + std::to_string(i));
    });
  }
  manual_clock::advance(ticks(2, tick));

  int caught = 0;
  for (int attempt = 0; attempt < 10 && !io.stopped(); ++attempt)
  {
    try
    {
      io.restart();
      io.run_for(5s);
    }
    catch (const handler_failure&)
    {
      ++caught;
    }
  }
  BOOST_TEST(
      caught == 2, "expected both exceptions out of run(), got " << caught);
  BOOST_TEST(
      io.stopped(), "run() did not finish: a wait was lost after an exception");
  for (int i = 0; i < waits; ++i)
    BOOST_TEST(calls[i] == 1, "wait " << i << " ran " << calls[i] << " times");
  const auto s = service.stats();
  BOOST_TEST(s.waits_expired == static_cast<std::uint64_t>(waits));
  BOOST_TEST(s.pending_waits == 0u);
}

// One timer of the stress test, used only on its own strand.
using strand_type = asio::strand<asio::io_context::executor_type>;
using strand_timer = asio_wheel::basic_wheel_timer<manual_clock,
    manual_wait_traits, strand_type>;

struct stress_timer
{
  stress_timer(asio::io_context& io, unsigned seed)
    : strand(asio::make_strand(io)), timer(strand), rng(seed)
  {}

  strand_type strand;
  strand_timer timer;
  std::minstd_rand rng;
  int rounds_left = 0;
  std::atomic<int> handlers_inside{0};
};

// Shared counters; assertions are made by the main thread (Boost.Test is not thread-safe).
struct stress_state
{
  explicit stress_state(std::size_t capacity) : completions(capacity) {}

  std::vector<std::atomic<int>> completions;  // per wait id
  std::atomic<std::size_t> next_wait_id{0};
  std::atomic<int> ids_exhausted{0};
  std::atomic<int> chains_finished{0};
  std::atomic<int> not_on_strand{0};
  std::atomic<int> overlapping_handlers{0};
  std::atomic<int> unexpected_errors{0};
  std::atomic<int> successes{0};
  std::atomic<int> aborts{0};
};

void start_stress_wait(
    stress_state& state, stress_timer& t, bool continues_chain);

void arm_stress_round(stress_state& state, stress_timer& t)
{
  t.timer.expires_after(ticks(1 + t.rng() % 12, tick));
  start_stress_wait(state, t, true);
  // A disturbance of this round, run later on the same strand.
  asio::post(t.strand, [&state, &t] {
    if (!t.strand.running_in_this_thread())
      ++state.not_on_strand;
    switch (t.rng() % 6)
    {
    case 0:
      break;
    case 1:
      t.timer.cancel();
      break;
    case 2:
      t.timer.reschedule_after(ticks(t.rng() % 12, tick));
      break;
    case 3:
      t.timer.cancel_one();
      break;
    case 4:
      start_stress_wait(state, t, false);
      break;
    case 5:
      t.timer.reschedule_at(manual_clock::now() - tick);
      break;
    }
  });
}

void start_stress_wait(
    stress_state& state, stress_timer& t, bool continues_chain)
{
  const std::size_t id = state.next_wait_id++;
  if (id >= state.completions.size())
  {
    ++state.ids_exhausted;
    return;
  }
  t.timer.async_wait([&state, &t, id, continues_chain](const error_code& ec) {
    if (!t.strand.running_in_this_thread())
      ++state.not_on_strand;
    if (t.handlers_inside.fetch_add(1) != 0)
      ++state.overlapping_handlers;
    ++state.completions[id];
    if (!ec)
      ++state.successes;
    else if (ec == asio::error::operation_aborted)
      ++state.aborts;
    else
      ++state.unexpected_errors;
    if (continues_chain)
    {
      if (--t.rounds_left > 0)
        arm_stress_round(state, t);
      else
        ++state.chains_finished;
    }
    t.handlers_inside.fetch_sub(1);
  });
}

// Four threads and, for contrast, one thread (io_context(1)) while another thread moves the
// clock.
const int run_thread_counts[] = {4, 1};

BOOST_DATA_TEST_CASE(threads_with_strands_complete_every_wait_exactly_once,
    boost::unit_test::data::make(run_thread_counts), thread_count)
{
  constexpr int timer_count = 4000;
  constexpr int rounds = 10;
  asio::io_context io(thread_count);
  auto& service = install_service(io, make_options(tick, 256));
  stress_state state(static_cast<std::size_t>(timer_count) * rounds * 2);

  std::vector<std::unique_ptr<stress_timer>> timers;
  for (int i = 0; i < timer_count; ++i)
  {
    timers.push_back(std::make_unique<stress_timer>(io, 1000u + i));
    timers.back()->rounds_left = rounds;
  }
  // Posted before the threads start, so run() has work from the beginning.
  for (auto& t : timers)
    asio::post(t->strand, [&state, &t = *t] { arm_stress_round(state, t); });

  std::atomic<int> runs_returned{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < thread_count; ++i)
    threads.emplace_back([&] {
      io.run();
      ++runs_returned;
    });

  // Manual time advances one tick per 100 us of real time: the pause only paces this thread
  // against the four run() threads so that arming, cancelling and expiring interleave; no
  // result depends on its length.
  const auto real_start = std::chrono::steady_clock::now();
  const auto deadline = real_start + 60s;
  int ticks_advanced = 0;
  while (state.chains_finished.load() < timer_count
      && std::chrono::steady_clock::now() < deadline)
  {
    manual_clock::advance(tick);
    ++ticks_advanced;
    std::this_thread::sleep_for(100us);
  }
  // Everything completed: run() must return on every thread by itself.
  const auto return_deadline = std::chrono::steady_clock::now() + 10s;
  while (runs_returned.load() < thread_count
      && std::chrono::steady_clock::now() < return_deadline)
  {
    manual_clock::advance(tick);
    std::this_thread::sleep_for(1ms);
  }
  const bool returned_by_itself = runs_returned.load() == thread_count;
  if (!returned_by_itself)
    io.stop();
  for (auto& th : threads)
    th.join();
  const auto real_elapsed = std::chrono::steady_clock::now() - real_start;

  const std::size_t ids_used =
      std::min(state.next_wait_id.load(), state.completions.size());
  std::size_t not_once = 0;
  for (std::size_t id = 0; id < ids_used; ++id)
    if (state.completions[id].load() != 1)
      ++not_once;
  BOOST_TEST_MESSAGE(ids_used
      << " waits on " << timer_count << " timers, " << thread_count
      << " threads: " << state.successes.load() << " succeeded, "
      << state.aborts.load() << " aborted, " << ticks_advanced
      << " ticks of manual time, "
      << std::chrono::duration_cast<std::chrono::milliseconds>(real_elapsed)
             .count()
      << " ms real");
  BOOST_TEST(state.chains_finished.load() == timer_count,
      "unfinished chains: a wait was lost");
  BOOST_TEST(
      returned_by_itself, "run() did not return after the last wait completed");
  BOOST_TEST(
      not_once == 0u, not_once << " waits did not complete exactly once");
  BOOST_TEST(state.ids_exhausted.load() == 0);
  BOOST_TEST(state.not_on_strand.load() == 0,
      "handlers ran outside their timer's strand");
  BOOST_TEST(state.overlapping_handlers.load() == 0,
      "handlers of one strand overlapped");
  BOOST_TEST(state.unexpected_errors.load() == 0);
  BOOST_TEST(
      static_cast<std::size_t>(state.successes.load() + state.aborts.load())
      == ids_used);
  const auto s = service.stats();
  BOOST_TEST(s.pending_waits == 0u);
  BOOST_TEST(s.timers_in_wheel == 0u);
  BOOST_TEST(s.waits_expired + s.waits_cancelled == ids_used);
}

// extend_at's store is relaxed and takes no lock, while the walk reads it under the lock on
// another thread. Here the timers' owner (this thread) extends each timer to 3 ticks ahead,
// then moves the clock half a tick; two threads run the context. The clock's move publishes
// the stores before it (it is an acquire-release update that the walk reads first), so a walk
// that sees the clock at C sees extensions of at least C + 2.5 ticks: no extended timer may
// complete. Each timer stops being extended at its own round and must then complete once,
// with success, never before its last extension. Under ThreadSanitizer (scripts/sanitize,
// label threads) this is also the proof that the store and the walk's read do not race.
BOOST_AUTO_TEST_CASE(extensions_stored_while_other_threads_walk_the_wheel)
{
  constexpr int timer_count = 200;
  constexpr int extending_rounds = 100;  // every timer, then one stops a round
  asio::io_context io;
  install_service(io, make_options(tick, 8));
  auto work = asio::make_work_guard(io);

  struct extended
  {
    explicit extended(asio::io_context& io) : timer(io) {}
    manual_timer timer;
    manual_clock::time_point last_extension{};
    std::atomic<int> calls{0};
    std::atomic<bool> failed{false};
    std::atomic<manual_clock::rep> completed_at{0};
  };
  std::vector<std::unique_ptr<extended>> timers;
  for (int i = 0; i < timer_count; ++i)
  {
    timers.push_back(std::make_unique<extended>(io));
    extended& e = *timers.back();
    e.timer.expires_after(ticks(3, tick));
    e.last_extension = e.timer.expiry();
    e.timer.async_wait([&e](const error_code& ec) {
      e.completed_at = manual_clock::now().time_since_epoch().count();
      e.failed = static_cast<bool>(ec);
      ++e.calls;
    });
  }
  std::vector<std::thread> threads;
  for (int i = 0; i < 2; ++i)
    threads.emplace_back([&io] { io.run(); });

  const auto deadline = std::chrono::steady_clock::now() + 60s;
  int completed_while_extended = 0;
  for (int round = 0; round < extending_rounds + timer_count; ++round)
  {
    for (int i = 0; i < timer_count; ++i)
    {
      extended& e = *timers[static_cast<std::size_t>(i)];
      if (round >= extending_rounds + i)
        continue;  // no longer extended
      if (e.calls.load() != 0)
        ++completed_while_extended;
      e.timer.extend_after(ticks(3, tick));
      e.last_extension = e.timer.expiry();
    }
    manual_clock::advance(ticks(0.5, tick));
    std::this_thread::sleep_for(20us);
  }
  // The last timers: until every wait has completed, or 60 s.
  const auto all_done = [&] {
    for (const auto& e : timers)
      if (e->calls.load() == 0)
        return false;
    return true;
  };
  while (!all_done() && std::chrono::steady_clock::now() < deadline)
  {
    manual_clock::advance(tick);
    std::this_thread::sleep_for(100us);
  }
  work.reset();
  for (auto& t : threads)
    t.join();

  BOOST_TEST(completed_while_extended == 0,
      completed_while_extended << " times a timer was found completed while it"
                               << " was still extended 2.5 ticks ahead");
  int not_once = 0, failed = 0, early = 0;
  for (const auto& e : timers)
  {
    not_once += e->calls.load() != 1;
    failed += e->failed.load();
    early +=
        e->completed_at.load() < e->last_extension.time_since_epoch().count();
  }
  BOOST_TEST(not_once == 0, not_once << " waits did not complete exactly once");
  BOOST_TEST(failed == 0, failed << " waits did not complete with success");
  BOOST_TEST(
      early == 0, early << " waits completed before their last extension");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(abort_order)

// Handlers of aborted waits run in the order they were aborted, as Asio posts them at once;
// waits already due when they start run after them, once the reactor has collected them, in
// the order of their expiry (as a steady_timer's do). Lone waits, timers with two waits, and
// re-arms already due. Both tests of this suite run with every kind of concurrency hint
// (all_concurrency_hints).
BOOST_DATA_TEST_CASE(handlers_run_once_in_the_order_the_results_were_decided,
    boost::unit_test::data::make(all_concurrency_hints), concurrency_hint)
{
  asio::io_context io(concurrency_hint);
  auto& service = install_service(io, make_options(tick, 8));
  constexpr int timer_count = 700;
  std::vector<std::unique_ptr<manual_timer>> timers;
  std::vector<int> ran;  // labels, in the order the handlers ran
  std::vector<error_code> results(2 * timer_count + 2);
  const auto labelled = [&](int label) {
    return [&ran, &results, label](const error_code& ec) {
      ran.push_back(label);
      results[static_cast<std::size_t>(label)] = ec;
    };
  };
  // Two timers with two waits and two whose wait is aborted by a re-arm that is already due;
  // lone waits between them.
  const auto has_two_waits = [](int i) { return i == 50 || i == 650; };
  const auto rearmed_due = [](int i) { return i == 75 || i == 675; };
  for (int i = 0; i < timer_count; ++i)
  {
    timers.push_back(std::make_unique<manual_timer>(io, ticks(10, tick)));
    timers.back()->async_wait(labelled(i));
    if (has_two_waits(i))
      timers.back()->async_wait(labelled(timer_count + i));
  }
  settle(io);
  BOOST_TEST(ran.empty());

  std::vector<int> expected;
  std::vector<int> expected_due;  // after every abort
  std::vector<wait_record> rearmed(timer_count);
  std::size_t still_pending = 0;
  int due_label = 2 * timer_count;
  for (int i = 0; i < timer_count; ++i)
  {
    manual_timer& timer = *timers[static_cast<std::size_t>(i)];
    const std::size_t waits = has_two_waits(i) ? 2 : 1;
    if (rearmed_due(i))
    {
      // Aborted, then a wait already due: it completes soon with success.
      BOOST_TEST(timer.expires_after(manual_clock::duration::zero()) == waits);
      timer.async_wait(labelled(due_label));
      expected.push_back(i);
      if (waits == 2)
        expected.push_back(timer_count + i);
      expected_due.push_back(due_label++);
      continue;
    }
    if (i % 3 == 0)
    {
      // The re-arm of an idle timeout: the old wait is aborted, a new one stays pending.
      BOOST_TEST(timer.expires_after(ticks(10, tick)) == waits);
      timer.async_wait(record_into(rearmed[static_cast<std::size_t>(i)]));
      ++still_pending;
    }
    else
      BOOST_TEST(timer.cancel() == waits);
    expected.push_back(i);
    if (waits == 2)
      expected.push_back(timer_count + i);
  }
  expected.insert(expected.end(), expected_due.begin(), expected_due.end());
  settle(io);
  BOOST_TEST(ran == expected, "handlers ran out of order, or not exactly once");
  for (int label : expected)
  {
    const auto& ec = results[static_cast<std::size_t>(label)];
    const bool due = label >= 2 * timer_count;
    BOOST_TEST((ec == asio::error::operation_aborted) == !due,
        "wait " << label << " completed with: " << ec.message());
  }
  for (const wait_record& record : rearmed)
    BOOST_TEST(record.calls == 0, "a re-armed wait completed");
  const auto s = service.stats();
  BOOST_TEST(
      s.pending_waits == still_pending, "the re-armed waits stay pending");
}

#if defined(ASIO_WHEEL_ASIO_HAS_CANCELLATION_SLOT)  // Asio 1.19 and later
// A cancellation signal for a wait that was already aborted, but whose handler has not run yet,
// does nothing, even after its timer was re-armed with a new wait: the handler runs once, with
// operation_aborted, and the new wait stays pending. Both from outside run() and from a
// handler.
BOOST_DATA_TEST_CASE(
    slot_cancellation_after_an_abort_leaves_the_rearmed_timer_alone,
    boost::unit_test::data::make(all_concurrency_hints), concurrency_hint)
{
  for (const bool in_a_handler : {false, true})
  {
    BOOST_TEST_CONTEXT("re-armed "
        << (in_a_handler ? "in a handler" : "outside run()"))
    {
      asio::io_context io(concurrency_hint);
      auto& service = install_service(io, make_options(tick, 8));
      manual_timer timer(io, ticks(10, tick));
      asio::cancellation_signal signal;
      wait_record aborted, rearmed;
      timer.async_wait(
          asio::bind_cancellation_slot(signal.slot(), record_into(aborted)));
      settle(io);

      const auto rearm_and_signal = [&] {
        BOOST_TEST(timer.expires_after(ticks(10, tick)) == 1u);
        timer.async_wait(record_into(rearmed));
        signal.emit(asio::cancellation_type::terminal);
      };
      if (in_a_handler)
        asio::post(io, rearm_and_signal);
      else
        rearm_and_signal();
      settle(io);
      BOOST_TEST(aborted.aborted_once(),
          "the aborted wait's handler ran " << aborted.calls << " times");
      BOOST_TEST(rearmed.calls == 0,
          "the signal for the old wait completed the new one");
      BOOST_TEST(service.stats().pending_waits == 1u);
      BOOST_TEST(timer.cancel() == 1u);
      settle(io);
      BOOST_TEST(rearmed.aborted_once());
    }
  }
}
#endif

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(run_lifetime)

// Destroying the context destroys handlers that did not run, without invoking them: a wait
// still in the wheel, one already due and one aborted (both queued, not run). Each handler owns
// its timer, as a connection object usually does, so the timers die during the shutdown.
BOOST_DATA_TEST_CASE(
    destroying_the_context_destroys_pending_handlers_without_invoking_them,
    boost::unit_test::data::make(concurrency_hints), concurrency_hint)
{
  auto token = std::make_shared<int>(0);
  int invoked = 0;
  {
    asio::io_context io(concurrency_hint);
    install_service(io, make_options(tick, 8));
    auto in_wheel = std::make_shared<manual_timer>(io, ticks(10, tick));
    auto already_due =
        std::make_shared<manual_timer>(io, manual_clock::duration::zero());
    auto aborted = std::make_shared<manual_timer>(io, ticks(10, tick));
    for (auto* timer : {&in_wheel, &already_due, &aborted})
      (*timer)->async_wait(
          [owner = *timer, token, &invoked](const error_code&) { ++invoked; });
    BOOST_TEST(aborted->cancel() == 1u);
    in_wheel.reset();
    already_due.reset();
    aborted.reset();
    BOOST_TEST(token.use_count() == 4, "each handler holds the token");
  }
  BOOST_TEST(invoked == 0, "a handler ran during the context's destruction");
  BOOST_TEST(token.use_count() == 1,
      "handlers (and the timers they own) were not destroyed");
}

BOOST_DATA_TEST_CASE(
    pending_wait_keeps_run_from_returning_until_the_last_is_cancelled,
    boost::unit_test::data::make(concurrency_hints), concurrency_hint)
{
  asio::io_context io(concurrency_hint);
  install_service(io, make_options(tick, 8));
  manual_timer first(io, ticks(5, tick)), second(io, ticks(7, tick));
  wait_record first_record, second_record;
  first.async_wait(record_into(first_record));
  second.async_wait(record_into(second_record));

  io.run_for(50ms);
  BOOST_TEST(!io.stopped(), "run() ran out of work with two waits pending");
  BOOST_TEST(first.cancel() == 1u);
  io.run_for(50ms);
  BOOST_TEST(!io.stopped(), "run() ran out of work with one wait pending");
  BOOST_TEST(first_record.aborted_once());

  BOOST_TEST(second.cancel() == 1u);
  const auto started = std::chrono::steady_clock::now();
  io.run_for(5s);
  BOOST_TEST(io.stopped(),
      "run() kept going after the last wait was cancelled:"
      " something left armed?");
  BOOST_TEST((std::chrono::steady_clock::now() - started < 4s));
  BOOST_TEST(second_record.aborted_once());

  // The same when the last wait expires instead.
  manual_timer third(io, ticks(2.5, tick));
  wait_record third_record;
  third.async_wait(record_into(third_record));
  io.restart();
  io.run_for(50ms);
  BOOST_TEST(!io.stopped());
  manual_clock::advance(ticks(3, tick));
  const auto started_again = std::chrono::steady_clock::now();
  io.run_for(5s);
  BOOST_TEST(io.stopped(), "run() kept going after the last wait expired");
  BOOST_TEST((std::chrono::steady_clock::now() - started_again < 4s));
  BOOST_TEST(third_record.succeeded_once());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(decision_hook)

// A per-operation timeout as the Beast stream makes one (arm_timeout, withdraw_timeout), whose
// owner is told when the service decides it (hooked_wait_op): counts the hook's calls and the
// completions, and whether the hook had run before each completion.
struct hooked_timeout : asio_wheel::detail::hooked_wait_op
{
  hooked_timeout() noexcept
    : hooked_wait_op(&hooked_timeout::complete, &hooked_timeout::hook)
  {}

  manual_service::implementation_type entry;
  int decided = 0;
  int completed = 0;
  int abandoned = 0;
  bool completed_before_decided = false;

  static void hook(asio_wheel::detail::hooked_wait_op* base) noexcept
  {
    ++static_cast<hooked_timeout*>(base)->decided;
  }

  static void complete(void* owner,
      asio_wheel::detail::scheduler_operation* base,
      const asio_wheel::error_code&, std::size_t)
  {
    auto* o = static_cast<hooked_timeout*>(base);
    if (o->decided != 1)
      o->completed_before_decided = true;
    ++(owner ? o->completed : o->abandoned);
  }
};

// Withdrawn in time: no hook. Expired: the hook once, before the completion. Already due when
// armed: pending until the event loop collects it, as a steady_timer's wait is, then the hook
// once, before the completion. Pending at shutdown: the hook once, then destroyed.
BOOST_DATA_TEST_CASE(
    the_hook_runs_once_when_a_timeout_is_decided_and_before_its_completion,
    boost::unit_test::data::make(concurrency_hints), concurrency_hint)
{
  hooked_timeout withdrawn, expired, due, abandoned;
  {
    asio::io_context io(concurrency_hint);
    manual_service& service = install_service(io, make_options(tick, 8));

    service.arm_timeout(
        withdrawn.entry, &withdrawn, manual_clock::now() + ticks(5, tick));
    settle(io);
    BOOST_TEST(service.withdraw_timeout(withdrawn.entry, &withdrawn));
    advance_in_steps(io, ticks(6, tick), tick);
    BOOST_TEST(withdrawn.decided == 0);
    BOOST_TEST(withdrawn.completed == 0);

    service.arm_timeout(
        expired.entry, &expired, manual_clock::now() + ticks(5, tick));
    advance_in_steps(io, ticks(4, tick), tick);
    BOOST_TEST(expired.decided == 0, "decided before its expiry");
    advance_in_steps(io, ticks(2, tick), tick);
    BOOST_TEST(expired.decided == 1);
    BOOST_TEST(expired.completed == 1);
    BOOST_TEST(!expired.completed_before_decided);
    BOOST_TEST(!service.withdraw_timeout(expired.entry, &expired),
        "withdrawn after it fired");

    service.arm_timeout(due.entry, &due, manual_clock::now() - tick);
    BOOST_TEST(due.decided == 0, "decided in arm_timeout, before the loop ran");
    BOOST_TEST(due.completed == 0, "completed inside arm_timeout");
    settle(io);
    BOOST_TEST(due.decided == 1);
    BOOST_TEST(due.completed == 1);
    BOOST_TEST(!due.completed_before_decided);

    service.arm_timeout(
        abandoned.entry, &abandoned, manual_clock::now() + ticks(50, tick));
    settle(io);
  }
  BOOST_TEST(abandoned.decided == 1);
  BOOST_TEST(abandoned.abandoned == 1);
  BOOST_TEST(abandoned.completed == 0);
  BOOST_TEST(!abandoned.completed_before_decided);
}

// Aborted as a lone wait (cancel): the hook runs once, under the lock, before the completion
// is posted.
BOOST_DATA_TEST_CASE(
    the_hook_runs_once_when_a_lone_timeout_is_aborted_and_before_its_completion,
    boost::unit_test::data::make(concurrency_hints), concurrency_hint)
{
  hooked_timeout aborted;
  asio::io_context io(concurrency_hint);
  manual_service& service = install_service(io, make_options(tick, 8));
  service.arm_timeout(
      aborted.entry, &aborted, manual_clock::now() + ticks(5, tick));
  settle(io);
  BOOST_TEST(service.cancel(aborted.entry) == 1u);
  settle(io);
  BOOST_TEST(aborted.decided == 1);
  BOOST_TEST(aborted.completed == 1);
  BOOST_TEST(!aborted.completed_before_decided);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(lookup)

// wheel_timer_service::of (what cancel_after uses per operation) remembers each thread's last
// lookup; it must still give each context its own service, as use_service does.
BOOST_AUTO_TEST_CASE(of_gives_each_context_its_own_service)
{
  asio::io_context first, second;
  auto& first_service = install_service(first, make_options(tick, 8));
  auto& second_service = install_service(second, make_options(2 * tick, 8));
  for (int i = 0; i < 4; ++i)
  {
    BOOST_TEST(&manual_service::of(first) == &first_service);
    BOOST_TEST(&manual_service::of(second) == &second_service);
  }
  // A context without one gets the default service, made as use_service makes it.
  asio::io_context third;
  auto& made = manual_service::of(third);
  BOOST_TEST(&made == &asio::use_service<manual_service>(third));
  BOOST_TEST(&manual_service::of(first) == &first_service);
}

// A context destroyed and another made at the same address: the last lookup must not give the
// old service. The old service's memory is taken by other allocations of its size first, so
// that the new service usually lives elsewhere and a stale answer shows; where the allocator
// still hands the new service the same memory, the two cannot be told apart and the case says
// so instead of passing for nothing.
BOOST_AUTO_TEST_CASE(of_forgets_the_service_of_a_destroyed_context)
{
  std::optional<asio::io_context> io;
  io.emplace();
  const manual_service* old_service =
      &install_service(*io, make_options(tick, 8));
  BOOST_TEST(&manual_service::of(*io) == old_service);
  io.reset();
  std::vector<std::unique_ptr<char[]>> taken;
  for (int i = 0; i < 256; ++i)
    taken.emplace_back(new char[sizeof(manual_service)]);
  io.emplace();
  auto& new_service = install_service(*io, make_options(2 * tick, 8));
  if (&new_service == old_service)
  {
    BOOST_TEST_MESSAGE(
        "the new service took the old one's memory: nothing to tell apart");
    return;
  }
  BOOST_TEST(&manual_service::of(*io) == &new_service);
  BOOST_TEST((manual_service::of(*io).options().tick == 2 * tick));
}

BOOST_AUTO_TEST_SUITE_END()
