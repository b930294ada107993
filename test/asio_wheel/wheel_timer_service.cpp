// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// wheel_timer_service.cpp: tests of asio_wheel::wheel_timer_service
// (include/asio_wheel/wheel_timer_service.hpp) on the manual clock: its stats() through a
// scripted scenario, no drive wakeups for an idle or far-only wheel, fairness slices during an
// expiry storm, exceptions thrown by handlers, run() on four threads (and on one) with strands,
// aborted handlers running in the order they were decided (and a cancellation signal for an
// aborted wait doing nothing, and a lone abort in a handler posted by itself), each with each of
// the six kinds of concurrency hint, the drive
// timer keeping run() alive exactly while a wait is pending, and the handlers that did not run
// being destroyed with the context, and the hook of a per-operation timeout (hooked_wait_op)
// running once when the service decides it. What the service makes of each concurrency hint is tested
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

#if __has_include(<sys/mman.h>) && __has_include(<unistd.h>)
# include <sys/mman.h>
# include <unistd.h>
#endif

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
  BOOST_TEST(s.queued_completions == 0u);
  BOOST_TEST(s.drive_wakeups == 0u);
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
      s.drive_wakeups == 0u, "woken during ticks 1-3 although nothing was due");
  BOOST_TEST(a1.calls == 0);

  step_to(4);
  s = service.stats();
  BOOST_TEST(a1.succeeded_once());
  BOOST_TEST(a2.succeeded_once());
  BOOST_TEST(s.drive_wakeups == 1u);
  BOOST_TEST(s.empty_wakeups == 0u);
  BOOST_TEST(s.waits_expired == 2u);
  BOOST_TEST(s.pending_waits == 1u);
  BOOST_TEST(s.timers_in_wheel == 1u);
  BOOST_TEST(s.round_revisits == 0u, "b was visited at tick 4");
  BOOST_TEST(s.cascades == 0u, "b moved down before its block began");
  BOOST_TEST(s.queued_completions == 0u,
      "all 2 expired waits were handed over in one slice,"
      " yet queued_completions is "
          << s.queued_completions);
  BOOST_TEST(s.max_lateness.count() == ticks(0.5, tick).count(),
      "completed at tick 4, expiry 3.5 ticks");

  step_to(11);
  BOOST_TEST(
      service.stats().drive_wakeups == 1u, "woken between tick 4 and tick 12");
  step_to(12);
  s = service.stats();
  BOOST_TEST(b1.succeeded_once());
  BOOST_TEST(s.drive_wakeups == 2u,
      "the wakeup at tick 12 moves b down and expires it");
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
  BOOST_TEST(s.drive_wakeups == 3u,
      "the old slot of a lazily moved entry must be visited");
  BOOST_TEST(s.empty_wakeups == 1u, "the wakeup at tick 15 completed no wait");
  step_to(22);
  s = service.stats();
  BOOST_TEST(c1.succeeded_once());
  BOOST_TEST(s.drive_wakeups == 4u);
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
  BOOST_TEST(s.drive_wakeups == 5u);

  // Cancellation: cancel() of two waits, then cancel_one() of the last pending wait. f is
  // armed first, so the drive timer is armed for tick 34 and must be disarmed by the cancels.
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
  BOOST_TEST(io.stopped(),
      "nothing pending: the drive timer must not keep the context busy");
  {
    // The drive timer was parked for f's tick 34, not cancelled (see drive_timer.hpp): while
    // other work keeps the context running (the guard here), it fires there, once, and finds
    // nothing. A context with nothing to do does not run at all.
    const auto guard = asio::make_work_guard(io);
    step_to(41);
  }
  s = service.stats();
  BOOST_TEST(
      s.drive_wakeups == 6u, "the parked drive timer fires once, at tick 34");
  BOOST_TEST(s.empty_wakeups == 2u);
  BOOST_TEST(s.drive_cancels == 0u,
      "the drive timer was cancelled although nothing came due"
      " sooner");

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
  BOOST_TEST(after_cancelled_tick.drive_wakeups - before.drive_wakeups
          == after_cancelled_tick.empty_wakeups - before.empty_wakeups,
      "a wakeup at a tick whose wait was cancelled must be counted as empty");
  step_to(49);
  s = service.stats();
  BOOST_TEST(h1.succeeded_once());
  BOOST_TEST(s.drive_wakeups == after_cancelled_tick.drive_wakeups + 1);
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
  BOOST_TEST(service.stats().queued_completions == 0u);
}

// The drive timer is two reactor timers: while one waits for the next due tick, the other is
// set for the due tick after it, so that a wakeup does not set the reactor's deadline a second
// time. A wait due sooner than both is served by cancelling the later one, and a timer armed
// beyond the tick after the next is re-aimed.
BOOST_DATA_TEST_CASE(drive_timer_is_armed_ahead_for_the_due_tick_after_the_next,
    boost::unit_test::data::make(concurrency_hints), concurrency_hint)
{
  const auto t0 = align_clock_to(tick);
  asio::io_context io(concurrency_hint);
  auto& service = install_service(io, make_options(tick, 64));
  const auto at = [&](double n) { return t0 + ticks(n, tick); };
  const auto step_to = [&](double n) {
    advance_in_steps(io, at(n) - manual_clock::now(), tick);
  };

  manual_timer a(io, at(3.5)), b(io, at(7.5)), c(io, at(11.5));
  wait_record a1, b1, c1;
  a.async_wait(record_into(a1));
  b.async_wait(record_into(b1));
  c.async_wait(record_into(c1));
  auto s = service.stats();
  BOOST_TEST(
      s.drive_arms == 1u, "set for tick 4 only: later waits do not touch it");
  BOOST_TEST(s.drive_arms_ahead == 0u);

  step_to(4);
  s = service.stats();
  BOOST_TEST(a1.succeeded_once());
  BOOST_TEST(s.drive_arms == 3u,
      "the wakeup at tick 4 sets one timer for 8, the other for 12");
  BOOST_TEST(s.drive_arms_ahead == 1u);

  step_to(8);
  s = service.stats();
  BOOST_TEST(b1.succeeded_once());
  BOOST_TEST(s.drive_arms == 3u,
      "the wakeup at tick 8 found tick 12's timer in place and set"
      " none: "
          << s.drive_arms << " arms");

  step_to(12);
  s = service.stats();
  BOOST_TEST(c1.succeeded_once());
  BOOST_TEST(s.drive_wakeups == 3u);
  BOOST_TEST(s.empty_wakeups == 0u);
  BOOST_TEST(s.drive_cancels == 0u);
  BOOST_TEST(io.stopped());

  // Armed for 34 and, ahead, for 38; then a wait due at 32: the later timer is cancelled and
  // set for 32 when its cancellation completes. Every wait completes at its own tick.
  manual_timer f(io, at(29.5)), g(io, at(33.5)), h(io, at(37.5)), k(io);
  wait_record f1, g1, h1, k1;
  f.async_wait(record_into(f1));
  g.async_wait(record_into(g1));
  h.async_wait(record_into(h1));
  step_to(30);
  BOOST_TEST(f1.succeeded_once());
  const auto before = service.stats();
  k.expires_at(at(31.5));
  k.async_wait(record_into(k1));
  settle(io);
  s = service.stats();
  BOOST_TEST(s.drive_cancels == before.drive_cancels + 1);
  BOOST_TEST(
      s.drive_arms == before.drive_arms + 1, "set again for 32 once cancelled");
  step_to(31);
  BOOST_TEST(k1.calls == 0);
  step_to(32);
  BOOST_TEST(k1.succeeded_once());
  BOOST_TEST((k1.completed_at == at(32)));
  step_to(38);
  BOOST_TEST(g1.succeeded_once());
  BOOST_TEST((g1.completed_at == at(34)));
  BOOST_TEST(h1.succeeded_once());
  BOOST_TEST((h1.completed_at == at(38)));
  s = service.stats();
  BOOST_TEST(s.empty_wakeups == 0u);
  BOOST_TEST(io.stopped());

  // A timer armed far ahead while the other was idle (here: the first wait, due at 70) is
  // re-aimed: once the other covers the next due tick (54), it is cancelled and armed for the
  // tick after (58), so that the wakeups leapfrog again instead of setting the reactor's
  // deadline twice each until tick 70.
  manual_timer distant(io, at(69.5)), p(io, at(49.5)), q(io, at(53.5)),
      r(io, at(57.5));
  wait_record distant1, p1, q1, r1;
  distant.async_wait(record_into(distant1));
  p.async_wait(record_into(p1));
  q.async_wait(record_into(q1));
  r.async_wait(record_into(r1));
  const auto before_far = service.stats();
  BOOST_TEST(before_far.drive_arms == s.drive_arms + 2,
      "one timer for 70, the other for 50");
  step_to(50);
  s = service.stats();
  BOOST_TEST(p1.succeeded_once());
  BOOST_TEST(s.drive_cancels == before_far.drive_cancels + 1,
      "the timer for 70 re-aimed");
  BOOST_TEST(s.drive_arms_ahead == before_far.drive_arms_ahead + 1);
  const auto at_50 = s;
  step_to(54);
  s = service.stats();
  BOOST_TEST(q1.succeeded_once());
  BOOST_TEST(s.drive_arms - at_50.drive_arms
          == s.drive_arms_ahead - at_50.drive_arms_ahead,
      "the wakeup at 54 set only a timer ahead: "
          << s.drive_arms - at_50.drive_arms << " arms, "
          << s.drive_arms_ahead - at_50.drive_arms_ahead << " ahead");
  step_to(70);
  BOOST_TEST(r1.succeeded_once());
  BOOST_TEST((r1.completed_at == at(58)));
  BOOST_TEST(distant1.succeeded_once());
  BOOST_TEST((distant1.completed_at == at(70)));
  BOOST_TEST(service.stats().empty_wakeups == 0u);
  BOOST_TEST(io.stopped());
}

BOOST_AUTO_TEST_CASE(far_only_wheel_causes_no_drive_wakeups)
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
  BOOST_TEST(s.drive_wakeups == 0u,
      s.drive_wakeups << " drive wakeups for waits 50 min away");
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
  BOOST_TEST(service.stats().drive_wakeups == 0u);
  io.restart();
  const auto started = std::chrono::steady_clock::now();
  io.run_for(5s);
  BOOST_TEST(io.stopped(), "run() did not return on an idle context");
  BOOST_TEST((std::chrono::steady_clock::now() - started < 4s));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(fairness)

BOOST_DATA_TEST_CASE(expiry_storm_yields_to_other_handlers_between_slices,
    boost::unit_test::data::make(concurrency_hints), concurrency_hint)
{
  const auto t0 = align_clock_to(tick);
  asio::io_context io(concurrency_hint);
  constexpr std::size_t slice = 8;
  constexpr int waits = 100;
  auto& service = install_service(io, make_options(tick, 8, slice));

  std::vector<std::unique_ptr<manual_timer>> timers;
  std::vector<int> calls(waits, 0);
  int handlers_run = 0;
  int handlers_run_before_posted = -1;
  // Waits not run yet when the posted handler ran: still in the wheel (a
  // storm is also advanced in slices) or queued for a later slice.
  std::size_t left_when_posted_ran = 0;
  for (int i = 0; i < waits; ++i)
  {
    timers.push_back(std::make_unique<manual_timer>(io, t0 + ticks(1.5, tick)));
    timers.back()->async_wait([&, i](const error_code& ec) {
      BOOST_TEST(!ec);
      ++calls[i];
      if (++handlers_run == 1)
        asio::post(io, [&] {
          handlers_run_before_posted = handlers_run;
          const auto st = service.stats();
          left_when_posted_ran = st.pending_waits + st.queued_completions;
        });
    });
  }
  advance_in_steps(io, ticks(2, tick), tick);

  BOOST_TEST_MESSAGE("a handler posted during the storm ran after "
      << handlers_run_before_posted << " of " << waits
      << " wait handlers (slice " << slice << ")");
  BOOST_TEST(handlers_run_before_posted >= 1, "the posted handler did not run");
  BOOST_TEST(handlers_run_before_posted < waits,
      "the posted handler waited for the whole storm: no slicing");
  BOOST_TEST(handlers_run_before_posted <= static_cast<int>(2 * slice),
      "more than the rest of one slice and a whole next slice ran before it");
  BOOST_TEST(left_when_posted_ran > 0u,
      "stats() showed no waits left"
      " (pending or queued) for later slices while the storm was being sliced");
  BOOST_TEST(left_when_posted_ran + handlers_run_before_posted
      <= static_cast<std::size_t>(waits));
  for (int i = 0; i < waits; ++i)
    BOOST_TEST(calls[i] == 1, "wait " << i << " ran " << calls[i] << " times");
  const auto s = service.stats();
  BOOST_TEST(s.waits_expired == static_cast<std::uint64_t>(waits));
  BOOST_TEST(s.queued_completions == 0u);
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

  // 100 waits expire in one tick and complete in slices of 8; two handlers throw, one in the
  // first slice and one in a later one.
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
  BOOST_TEST(s.queued_completions == 0u);
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

// Four threads (the service posts each handler) and, for contrast, one thread (io_context(1):
// the service calls handlers itself, in slices) while another thread moves the clock.
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
  BOOST_TEST(s.queued_completions == 0u);
  BOOST_TEST(s.waits_expired + s.waits_cancelled == ids_used);
}

// extend_to's store is relaxed and takes no lock, while the walk reads it under the lock on
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

// Handlers of aborted and already-due waits run in the order their results were decided, as
// Asio posts them. With one thread the service defers the aborts of lone waits (the usual
// re-arm) and marks them in batches: this mixes them with the decisions it does not defer
// (two waits on one timer, a wait already due), and defers more aborts than one batch holds.
// Both tests of this suite run with every kind of concurrency hint (all_concurrency_hints).
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
  // 573 lone waits between them, more than one batch of deferred aborts.
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
      expected.push_back(due_label++);
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
  // Where one thread runs the context, the service queues the decided waits itself, and the
  // stats count them; otherwise it posts each to the scheduler at once.
  if (expected_threading(concurrency_hint).one_thread)
    BOOST_TEST(service.stats().queued_completions == expected.size(),
        "queued_completions counts every decided wait whose handler has not "
        "run (hint "
            << hint_name(concurrency_hint) << ")");

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
  BOOST_TEST(s.queued_completions == 0u);
  BOOST_TEST(
      s.pending_waits == still_pending, "the re-armed waits stay pending");
}

// Inside a handler of a context that one thread runs, a timer's lone wait aborted while no other
// decided wait is queued, and while slices do not batch, is posted to the scheduler by itself, as
// Asio's cancel posts it, not through a slice of one handler (W11: about 200 instructions fewer
// per re-arm); posted_completions counts it. A loop of aborts in one handler posts only its first
// one that way, the rest going through a slice (deferred:
// a_lone_waits_abort_does_not_touch_its_operation, below). After a slice that called several
// handlers, aborts take slices again (W9: a busy server's slices batch the aborts of many
// handlers) until one calls a single handler; while aborts are posted alone, one now and then
// takes a slice to measure that again. A handler that posted something else first still posts
// its abort by itself. The handlers run in the order the results were decided (and, for the
// posted ones, in the order of the handler's posts). Several threads, IOCP, and any call from
// outside run(): every handler goes through a slice.
BOOST_DATA_TEST_CASE(a_lone_abort_inside_a_handler_is_posted_by_itself,
    boost::unit_test::data::make(all_concurrency_hints), concurrency_hint)
{
  asio::io_context io(concurrency_hint);
  auto& service = install_service(io, make_options(tick, 8));
  // With one thread, where the scheduler keeps a queue of the running handler's posts: not on
  // IOCP, where every abort takes a slice.
#if defined(ASIO_WHEEL_ASIO_HAS_IOCP)
  const bool posts_alone = false;
#else
  const bool posts_alone = expected_threading(concurrency_hint).one_thread;
#endif
  std::vector<std::string> ran;
  const auto labelled = [&ran](std::string label) {
    return [&ran, label](const error_code& ec) {
      ran.push_back(label + (ec == asio::error::operation_aborted ? "" : "!"));
    };
  };
  manual_timer a(io, ticks(10, tick)), b(io, ticks(10, tick)),
      c(io, ticks(10, tick)), d(io, ticks(10, tick));
  a.async_wait(labelled("a"));
  b.async_wait(labelled("b"));
  c.async_wait(labelled("c"));
  d.async_wait(labelled("d1"));
  d.async_wait(labelled("d2"));
  settle(io);
  std::uint64_t posted = 0, sliced = 0;  // expected
  const auto check = [&](const char* step) {
    const auto s = service.stats();
    BOOST_TEST(s.posted_completions == (posts_alone ? posted : 0u),
        step << ", hint " << hint_name(concurrency_hint));
    BOOST_TEST(s.sliced_completions == (posts_alone ? sliced : posted + sliced),
        step << ", hint " << hint_name(concurrency_hint));
    BOOST_TEST(s.queued_completions == 0u);
  };
  const auto rearm_a_in_a_handler = [&](const std::string& next) {
    asio::post(io, [&, next] {
      BOOST_TEST(a.expires_after(ticks(10, tick)) == 1u);
      a.async_wait(labelled(next));
    });
    settle(io);
  };

  rearm_a_in_a_handler("a2");  // the idle-timeout re-arm of one message
  posted = 1;
  check("one re-arm");

  asio::post(io, [&] {  // a loop of aborts: lone waits, then a timer with two
    BOOST_TEST(b.cancel() == 1u);
    BOOST_TEST(c.cancel() == 1u);
    BOOST_TEST(d.cancel() == 2u);
  });
  settle(io);
  posted = 2;
  sliced = 3;  // c, d1 and d2 in one slice
  check("a loop");

  rearm_a_in_a_handler("a3");  // the last slice batched: a slice again
  sliced = 4;
  check("after a slice of three");

  asio::post(io, [&] {  // the last slice called one handler: posted alone again
    asio::post(io, [&ran] { ran.push_back("posted"); });
    BOOST_TEST(a.cancel() == 1u);
  });
  settle(io);
  posted = 3;
  check("behind another post");

  a.async_wait(labelled("a4"));  // from outside run()
  BOOST_TEST(a.cancel() == 1u);
  settle(io);
  sliced = 5;
  check("outside run()");

  // One handler re-arm per message, many messages: nearly all posted alone, a few sliced.
  a.async_wait(labelled("a5"));
  settle(io);
  const auto before = service.stats();
  constexpr int messages = 100;
  for (int i = 0; i < messages; ++i)
    rearm_a_in_a_handler("m");
  const auto after = service.stats();
  const auto posted_now = after.posted_completions - before.posted_completions;
  const auto sliced_now = after.sliced_completions - before.sliced_completions;
  BOOST_TEST(posted_now + sliced_now == std::uint64_t(messages));
  if (posts_alone)
  {
    BOOST_TEST(
        posted_now >= 90u, posted_now << " of " << messages << " posted alone");
    BOOST_TEST(sliced_now >= 1u, "no slice measured whether slices batch");
  }
  else
    BOOST_TEST(posted_now == 0u);
  BOOST_TEST(a.cancel() == 1u);
  settle(io);

  std::vector<std::string> expected = {
      "a", "b", "c", "d1", "d2", "a2", "posted", "a3", "a4", "a5"};
  expected.insert(expected.end(), messages, "m");
  BOOST_TEST(ran == expected, "handlers ran out of order, or not exactly once");
  BOOST_TEST(service.stats().pending_waits == 0u);
}

#if defined(ASIO_WHEEL_ASIO_HAS_CANCELLATION_SLOT)  // Asio 1.19 and later
// A cancellation signal for a wait that was already aborted, but whose handler has not run yet,
// does nothing, even after its timer was re-armed with a new wait: the handler runs once, with
// operation_aborted, and the new wait stays pending. Both where the abort is deferred (the
// re-arm from outside run()) and where it is posted by itself (from a handler, one thread).
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
# if !defined(ASIO_WHEEL_ASIO_HAS_IOCP)
      // The path the case is about (no such path on IOCP: see above).
      BOOST_TEST(service.stats().posted_completions
          == (in_a_handler && expected_threading(concurrency_hint).one_thread
                  ? 1u
                  : 0u));
# endif
      BOOST_TEST(timer.cancel() == 1u);
      settle(io);
      BOOST_TEST(rearmed.aborted_once());
    }
  }
}
#endif

#if __has_include(<sys/mman.h>) && __has_include(<unistd.h>)

// Memory for one operation: a page of its own, which the test can make inaccessible.
template <typename T>
struct page_allocator
{
  using value_type = T;

  explicit page_allocator(void* p) noexcept : page(p) {}
  template <typename U>
  page_allocator(const page_allocator<U>& other) noexcept : page(other.page)
  {}

  T* allocate(std::size_t) const noexcept { return static_cast<T*>(page); }
  void deallocate(T*, std::size_t) const noexcept {}

  template <typename U>
  bool operator==(const page_allocator<U>& other) const noexcept
  {
    return page == other.page;
  }
  template <typename U>
  bool operator!=(const page_allocator<U>& other) const noexcept
  {
    return page != other.page;
  }

  void* page;
};

// Aborting a timer's lone wait (the idle-timeout re-arm) where the abort is deferred (outside
// run(), as here, or behind the abort a handler posted by itself, above) leaves its operation
// untouched, not even read: the operation was allocated when the timer was last armed and is out
// of cache by then, and a read would cost a cache miss per re-arm (W1 at 100k timers: 120 ns per
// re-arm against 190 when the abort read the operation's flags). The operation lives alone on a
// page that is inaccessible while the timer is cancelled: any access faults.
BOOST_DATA_TEST_CASE(a_lone_waits_abort_does_not_touch_its_operation,
    boost::unit_test::data::make(concurrency_hints), concurrency_hint)
{
  const auto page_size = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  void* page = ::mmap(nullptr, page_size, PROT_READ | PROT_WRITE,
      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  BOOST_TEST_REQUIRE(page != MAP_FAILED);
  {
    asio::io_context io(concurrency_hint);
    install_service(io, make_options(tick, 8));
    manual_timer timer(io, ticks(10, tick));
    wait_record record;
    struct handler
    {
      using allocator_type = page_allocator<void>;
      allocator_type get_allocator() const noexcept
      {
        return allocator_type(page);
      }
      void operator()(const error_code& ec) const
      {
        ++record->calls;
        record->ec = ec;
      }

      void* page;
      wait_record* record;
    };
    timer.async_wait(handler{page, &record});
    settle(io);

    BOOST_TEST_REQUIRE(::mprotect(page, page_size, PROT_NONE) == 0);
    const std::size_t aborted = timer.cancel();
    BOOST_TEST_REQUIRE(
        ::mprotect(page, page_size, PROT_READ | PROT_WRITE) == 0);
    BOOST_TEST(aborted == 1u);
    settle(io);
    BOOST_TEST(record.aborted_once());
  }
  ::munmap(page, page_size);
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
      " drive timer left armed?");
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

// A context whose only timer is the current operation's (a client's read timeout, an idle
// timer re-armed on every message): when its wait goes, the drive timer is parked, not
// cancelled, and the next wait takes it back. No reactor arm or cancel per operation, and yet
// run() returns whenever nothing is pending, also after a parked drive timer fires.
BOOST_DATA_TEST_CASE(lone_wait_parks_the_drive_timer_and_run_still_returns,
    boost::unit_test::data::make(concurrency_hints), concurrency_hint)
{
  const auto t0 = align_clock_to(tick);
  asio::io_context io(concurrency_hint);
  auto& service = install_service(io, make_options(tick, 8));
  const auto at = [&](double n) { return t0 + ticks(n, tick); };
  manual_timer lone(io);

  for (int i = 0; i < 100; ++i)
  {
    wait_record r;
    lone.expires_at(
        at(20.5 + 0.01 * i));  // later each time, as the next operation's is
    lone.async_wait(record_into(r));
    BOOST_TEST_REQUIRE(lone.cancel() == 1u);
    settle(io);
    BOOST_TEST_REQUIRE(r.aborted_once());
    BOOST_TEST_REQUIRE(io.stopped(),
        "operation " << i
                     << ": the parked drive timer kept run()"
                        " from returning");
  }
  auto s = service.stats();
  BOOST_TEST(s.drive_arms == 1u,
      "the drive timer was set " << s.drive_arms << " times");
  BOOST_TEST(s.drive_cancels == 0u);
  BOOST_TEST(s.drive_wakeups == 0u);

  // With nothing else to do the context does not run, so the parked timer fires only while
  // other work keeps it running: at tick 21, one empty wakeup. Its operation takes back the
  // unit of work it gave up before the scheduler counts it done, or the context would stop
  // here with the guard's work left.
  {
    const auto guard = asio::make_work_guard(io);
    advance_in_steps(io, at(21) - manual_clock::now(), tick);
    s = service.stats();
    BOOST_TEST(s.drive_wakeups == 1u);
    BOOST_TEST(s.empty_wakeups == 1u);
    BOOST_TEST(!io.stopped(),
        "the parked drive timer's completion used up other work's unit");
  }
  io.poll();
  BOOST_TEST(io.stopped());

  // The count of work is still right: a pending wait keeps run() going, and its expiry ends it.
  wait_record later;
  lone.expires_at(at(23.5));
  lone.async_wait(record_into(later));
  io.restart();
  io.run_for(50ms);
  BOOST_TEST(!io.stopped(), "run() ran out of work with a wait pending");
  advance_in_steps(io, at(24) - manual_clock::now(), tick);
  BOOST_TEST(later.succeeded_once());
  BOOST_TEST(io.stopped());

  // Parked for tick 40, then a wait due sooner: taken back, and the drive's other timer is set
  // for tick 30, with no cancel. The one parked for 40 is parked again when 30's wait expires.
  wait_record far_wait, near_wait;  // (near and far are macros on Windows)
  lone.expires_at(at(39.5));
  lone.async_wait(record_into(far_wait));
  BOOST_TEST(lone.cancel() == 1u);
  settle(io);
  const auto arms_before = service.stats().drive_arms;
  manual_timer other(io, at(29.5));
  other.async_wait(record_into(near_wait));
  settle(io);
  s = service.stats();
  BOOST_TEST(s.drive_cancels == 0u);
  BOOST_TEST(s.drive_arms == arms_before + 1);
  advance_in_steps(io, at(29) - manual_clock::now(), tick);
  BOOST_TEST(near_wait.calls == 0);
  advance_in_steps(io, at(30) - manual_clock::now(), tick);
  BOOST_TEST(near_wait.succeeded_once());
  BOOST_TEST((near_wait.completed_at == at(30)));
  BOOST_TEST(io.stopped());
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
// armed: the hook at once, in arm_timeout. Pending at shutdown: the hook once, then destroyed.
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
    BOOST_TEST(
        due.decided == 1, "an already due timeout not decided in arm_timeout");
    BOOST_TEST(due.completed == 0, "completed inside arm_timeout");
    settle(io);
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

// Aborted as a lone wait (cancel): the abort defers what touches the operation, the hook
// included, to the marking of the aborts, which runs under the lock before the completion is
// queued: the hook once, before the completion.
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

// withdraw_timeout<true> (KeepEntry), as the Beast stream withdraws its embedded timeouts: with an
// earlier wait pending (the drive timer armed for it), the withdrawn timeout's entry stays in the
// wheel as a ghost, and the next arm_timeout reuses it where it is filed, no list operation. The
// re-armed timeout still fires at its own expiry, never at the ghost's tick; a ghost that nothing
// re-arms is dropped when the walk reaches it, without a completion; destroy() unlinks one.
// Without KeepEntry the entry is unlinked.
BOOST_DATA_TEST_CASE(a_kept_entry_stays_a_ghost_that_the_next_arm_reuses,
    boost::unit_test::data::make(concurrency_hints), concurrency_hint)
{
  hooked_timeout reused, dropped, destroyed, unlinked;
  asio::io_context io(concurrency_hint);
  manual_service& service = install_service(io, make_options(tick, 8));
  manual_timer earlier(io, manual_clock::now() + ticks(2, tick));
  wait_record earlier_wait;
  earlier.async_wait(record_into(earlier_wait));
  settle(io);

  const auto start = manual_clock::now();
  service.arm_timeout(reused.entry, &reused, start + ticks(20, tick));
  const auto filed = reused.entry.filed_tick();
  BOOST_TEST(service.withdraw_timeout<true>(reused.entry, &reused));
  BOOST_TEST(reused.entry.in_wheel(), "a kept entry was unlinked");
  service.arm_timeout(reused.entry, &reused, start + ticks(30, tick));
  BOOST_TEST(reused.entry.in_wheel());
  BOOST_TEST(reused.entry.filed_tick() == filed, "the ghost was re-filed");

  // The other two, withdrawn and kept; one is destroyed at once.
  service.arm_timeout(dropped.entry, &dropped, start + ticks(10, tick));
  BOOST_TEST(service.withdraw_timeout<true>(dropped.entry, &dropped));
  service.arm_timeout(destroyed.entry, &destroyed, start + ticks(12, tick));
  BOOST_TEST(service.withdraw_timeout<true>(destroyed.entry, &destroyed));
  BOOST_TEST(destroyed.entry.in_wheel());
  service.destroy(destroyed.entry);
  BOOST_TEST(!destroyed.entry.in_wheel(), "destroy left a ghost");
  service.arm_timeout(unlinked.entry, &unlinked, start + ticks(14, tick));
  BOOST_TEST(service.withdraw_timeout(unlinked.entry, &unlinked));
  BOOST_TEST(!unlinked.entry.in_wheel());

  advance_in_steps(io, ticks(20, tick), tick);
  BOOST_TEST(earlier_wait.succeeded_once());
  BOOST_TEST(!dropped.entry.in_wheel(), "the walk kept a ghost");
  BOOST_TEST(dropped.decided == 0);
  BOOST_TEST(dropped.completed == 0);
  BOOST_TEST(reused.decided == 0, "fired at the ghost's tick");
  advance_in_steps(io, ticks(9, tick), tick);
  BOOST_TEST(reused.decided == 0, "fired before its expiry");
  advance_in_steps(io, ticks(2, tick), tick);
  BOOST_TEST(reused.decided == 1);
  BOOST_TEST(reused.completed == 1);
  BOOST_TEST(!reused.entry.in_wheel());
  BOOST_TEST(destroyed.decided + destroyed.completed == 0);
  BOOST_TEST(unlinked.decided + unlinked.completed == 0);
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
