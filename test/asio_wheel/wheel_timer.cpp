// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// wheel_timer.cpp: tests of asio_wheel::basic_wheel_timer (include/asio_wheel/wheel_timer.hpp)
// on the manual clock: reschedule_at / reschedule_after, extend_at / extend_after, "never
// early, at most one tick late"
// across many wheel revolutions and far expiries, re-arming after a cancel, what a handler may
// do to its own timer (destroy, move, cancel, re-arm), and per-operation cancellation after
// completion.
#define BOOST_TEST_MODULE asio_wheel service tests
#include "wheel_test_support.hpp"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <thread>
#include <vector>

using namespace asio_wheel_test;

namespace {

struct probe
{
  probe(asio::io_context& io, manual_clock::time_point expiry)
    : timer(io, expiry), expiry(expiry)
  {}

  manual_timer timer;
  manual_clock::time_point expiry;
  wait_record record;
  bool reported_late = false;
};

// Starts a wait on p that checks, when it runs, that it did not complete early.
void start_probe_wait(probe& p)
{
  p.timer.async_wait([&p](const error_code& ec) {
    ++p.record.calls;
    p.record.ec = ec;
    p.record.completed_at = manual_clock::now();
    BOOST_TEST(!ec,
        "wait expiring at " << p.expiry.time_since_epoch().count()
                            << " ns completed with " << ec.message());
    BOOST_TEST((manual_clock::now() >= p.expiry),
        "early: completed at " << manual_clock::now().time_since_epoch().count()
                               << " ns, expiry "
                               << p.expiry.time_since_epoch().count() << " ns");
  });
}

// After a settle: every probe whose expiry + tick has passed must have completed by now.
void check_none_later_than_a_tick(std::vector<std::unique_ptr<probe>>& probes)
{
  const auto now = manual_clock::now();
  for (auto& p : probes)
  {
    if (p->record.calls == 0 && now >= p->expiry + tick && !p->reported_late)
    {
      p->reported_late = true;
      BOOST_ERROR("late: wait expiring at "
          << p->expiry.time_since_epoch().count() << " ns still pending at "
          << now.time_since_epoch().count() << " ns (tick " << tick.count()
          << " ns)");
    }
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(reschedule)

// Both spellings move the waits later without cancelling them.
void check_later_reschedule_moves_waits(bool use_reschedule_at)
{
  const auto t0 = align_clock_to(tick);
  asio::io_context io;
  auto& service = install_service(io, make_options(tick, 8));

  manual_timer timer(io, t0 + ticks(4.5, tick));
  wait_record records[3];
  for (auto& r : records)
    timer.async_wait(record_into(r));

  advance_in_steps(io, ticks(2, tick), tick);
  const auto new_expiry =
      t0 + ticks(12.5, tick);  // past the old expiry and a revolution
  const std::size_t moved = use_reschedule_at
      ? timer.reschedule_at(new_expiry)
      : timer.reschedule_after(new_expiry - manual_clock::now());
  BOOST_TEST(
      moved == 3u, "reschedule must report the 3 pending waits as moved");
  BOOST_TEST((timer.expiry() == new_expiry));

  // Through the old expiry (4.5 ticks) and up to just before the new one: nothing completes.
  while (manual_clock::now() + tick <= new_expiry)
  {
    manual_clock::advance(tick);
    settle(io);
    for (auto& r : records)
      BOOST_TEST(r.calls == 0,
          "a moved wait completed at " << (manual_clock::now() - t0).count()
                                       << " ns, before its new expiry");
  }
  manual_clock::advance(tick);
  settle(io);
  for (auto& r : records)
  {
    BOOST_TEST(r.succeeded_once(),
        "a moved wait must complete once with success, got "
            << r.calls << " calls, " << r.ec.message());
    BOOST_TEST((r.completed_at >= new_expiry));
    BOOST_TEST((r.completed_at <= new_expiry + tick));
  }
  BOOST_TEST(
      service.stats().waits_cancelled == 0u, "reschedule must not cancel");
  BOOST_TEST(service.stats().waits_expired == 3u);
}

BOOST_AUTO_TEST_CASE(reschedule_after_later_moves_waits_without_cancelling)
{
  check_later_reschedule_moves_waits(false);
}

BOOST_AUTO_TEST_CASE(reschedule_at_later_moves_waits_without_cancelling)
{
  check_later_reschedule_moves_waits(true);
}

BOOST_AUTO_TEST_CASE(reschedule_earlier_completes_at_the_new_expiry)
{
  const auto t0 = align_clock_to(tick);
  asio::io_context io;
  install_service(io, make_options(tick, 8));

  // Plain earlier move: from 20.5 ticks to 3.5 ticks.
  manual_timer timer(io, t0 + ticks(20.5, tick));
  wait_record first, second;
  timer.async_wait(record_into(first));
  timer.async_wait(record_into(second));
  BOOST_TEST(timer.reschedule_at(t0 + ticks(3.5, tick)) == 2u);

  // Earlier after a lazy later move: 10.5 -> 30.5 (stays filed at 11) -> 6.5, before the
  // slot it is still filed under, so it must be re-filed at once.
  manual_timer lazily_moved(io, t0 + ticks(10.5, tick));
  wait_record lazy_record;
  lazily_moved.async_wait(record_into(lazy_record));
  BOOST_TEST(lazily_moved.reschedule_at(t0 + ticks(30.5, tick)) == 1u);
  BOOST_TEST(lazily_moved.reschedule_at(t0 + ticks(6.5, tick)) == 1u);

  advance_in_steps(io, ticks(3, tick), tick);
  BOOST_TEST(first.calls == 0, "completed before the new expiry");
  advance_in_steps(io, ticks(1, tick), tick);
  BOOST_TEST(
      first.succeeded_once(), "must complete at the new, earlier expiry");
  BOOST_TEST(second.succeeded_once());
  BOOST_TEST(lazy_record.calls == 0);

  advance_in_steps(io, ticks(2, tick), tick);
  BOOST_TEST(lazy_record.calls == 0, "completed before 6.5 ticks");
  advance_in_steps(io, ticks(1, tick), tick);
  BOOST_TEST(lazy_record.succeeded_once(),
      "an earlier move after a lazy later move must complete at the earlier "
      "expiry, got "
          << lazy_record.calls << " calls at tick 7");
}

BOOST_DATA_TEST_CASE(reschedule_into_the_past_completes_soon_with_success,
    boost::unit_test::data::make(concurrency_hints), concurrency_hint)
{
  const auto t0 = align_clock_to(tick);
  asio::io_context io(concurrency_hint);
  auto& service = install_service(io, make_options(tick, 8));
  advance_in_steps(io, ticks(10, tick), tick);

  manual_timer timer(io, manual_clock::now() + ticks(10, tick));
  wait_record a, b;
  timer.async_wait(record_into(a));
  timer.async_wait(record_into(b));
  BOOST_TEST(timer.reschedule_at(t0 + ticks(5, tick)) == 2u);
  BOOST_TEST(a.calls == 0, "the handler must not run inside reschedule_at");
  settle(io);  // no clock movement: "soon" means at the current manual time
  BOOST_TEST(
      a.succeeded_once(), "got " << a.calls << " calls, " << a.ec.message());
  BOOST_TEST(b.succeeded_once());

  // reschedule_after(0) and a negative duration are "now" and "the past" too.
  manual_timer zero(io, manual_clock::now() + ticks(10, tick));
  manual_timer negative(io, manual_clock::now() + ticks(10, tick));
  wait_record zero_record, negative_record;
  zero.async_wait(record_into(zero_record));
  negative.async_wait(record_into(negative_record));
  BOOST_TEST(zero.reschedule_after(manual_clock::duration::zero()) == 1u);
  BOOST_TEST(negative.reschedule_after(-ticks(3, tick)) == 1u);
  settle(io);
  BOOST_TEST(zero_record.succeeded_once());
  BOOST_TEST(negative_record.succeeded_once());
  BOOST_TEST(service.stats().waits_cancelled == 0u);
  BOOST_TEST(service.stats().pending_waits == 0u);
}

BOOST_AUTO_TEST_CASE(
    reschedule_without_pending_wait_returns_zero_and_sets_expiry)
{
  align_clock_to(tick);
  asio::io_context io;
  install_service(io, make_options(tick, 8));

  manual_timer timer(io);
  const auto target = manual_clock::now() + ticks(3.5, tick);
  BOOST_TEST(timer.reschedule_at(target) == 0u);
  BOOST_TEST((timer.expiry() == target));
  BOOST_TEST(timer.reschedule_after(ticks(5.5, tick)) == 0u);
  const auto later = manual_clock::now() + ticks(5.5, tick);
  BOOST_TEST((timer.expiry() == later));

  // The expiry set that way is the one a following wait uses.
  wait_record record;
  timer.async_wait(record_into(record));
  advance_in_steps(io, ticks(5, tick), tick);
  BOOST_TEST(
      record.calls == 0, "completed before the expiry set by reschedule_after");
  advance_in_steps(io, ticks(1, tick), tick);
  BOOST_TEST(record.succeeded_once());
  BOOST_TEST((record.completed_at >= later));
}

BOOST_AUTO_TEST_CASE(
    repeated_reschedules_keep_the_wait_pending_until_the_last_expiry)
{
  align_clock_to(tick);
  asio::io_context io;
  auto& service = install_service(io, make_options(tick, 8));

  // The idle-timeout pattern: a 5-tick timeout refreshed every half tick, 1000 times,
  // then 1000 refreshes in a row without time passing.
  manual_timer idle(io, ticks(5, tick));
  wait_record record;
  idle.async_wait(record_into(record));
  std::size_t wrong_returns = 0;
  for (int i = 0; i < 1000; ++i)
  {
    if (idle.reschedule_after(ticks(5, tick)) != 1u)
      ++wrong_returns;
    manual_clock::advance(ticks(0.5, tick));
    settle(io);
    if (record.calls != 0)
      break;
  }
  for (int i = 0; i < 1000; ++i)
    if (idle.reschedule_after(ticks(5.25, tick)) != 1u)
      ++wrong_returns;
  BOOST_TEST(wrong_returns == 0u,
      "reschedule_after did not return 1 on " << wrong_returns << " calls");
  BOOST_TEST(record.calls == 0,
      "the refreshed wait completed although refreshed in time");
  BOOST_TEST(service.stats().pending_waits == 1u);
  BOOST_TEST(service.stats().waits_cancelled == 0u);
  BOOST_TEST(service.stats().lazy_refilings > 0u,
      "500 ticks of refreshes crossed the entry's slot many times: expected "
      "lazy re-filings");

  const auto last_expiry = idle.expiry();
  advance_in_steps(io, ticks(5, tick), tick);
  BOOST_TEST(record.calls == 0, "completed before the last expiry");
  advance_in_steps(io, ticks(1, tick), tick);
  BOOST_TEST(record.succeeded_once());
  BOOST_TEST((record.completed_at >= last_expiry));
  BOOST_TEST((record.completed_at <= last_expiry + tick));
}

BOOST_AUTO_TEST_CASE(
    later_reschedule_is_refiled_lazily_when_its_old_slot_comes_round)
{
  const auto t0 = align_clock_to(tick);
  asio::io_context io;
  auto& service = install_service(io, make_options(tick, 8));

  manual_timer timer(io, t0 + ticks(3.5, tick));  // filed for tick 4
  wait_record record;
  timer.async_wait(record_into(record));
  // Three later moves before tick 4: none is a list operation, one re-filing at tick 4.
  BOOST_TEST(timer.reschedule_at(t0 + ticks(9.5, tick)) == 1u);
  BOOST_TEST(timer.reschedule_at(t0 + ticks(14.5, tick)) == 1u);
  BOOST_TEST(timer.reschedule_at(t0 + ticks(20.5, tick)) == 1u);
  BOOST_TEST(service.stats().lazy_refilings == 0u,
      "a later move must not re-file at once");

  advance_in_steps(io, ticks(3, tick), tick);
  BOOST_TEST(service.stats().lazy_refilings == 0u);
  advance_in_steps(io, ticks(1, tick), tick);
  BOOST_TEST(service.stats().lazy_refilings == 1u,
      "the old slot came round at tick 4: the entry must have been re-filed "
      "once");
  BOOST_TEST(record.calls == 0);

  advance_in_steps(io, ticks(16, tick), tick);
  BOOST_TEST(record.calls == 0, "completed before 20.5 ticks");
  advance_in_steps(io, ticks(1, tick), tick);
  BOOST_TEST(record.succeeded_once());
  BOOST_TEST(service.stats().lazy_refilings == 1u);
}

BOOST_AUTO_TEST_SUITE_END()

// extend_at / extend_after: a store of a second time, the extension; the waits complete at the
// later of the expiry and the extension. Under the manual clock, so "never early, at most one
// tick late" is exact.
BOOST_AUTO_TEST_SUITE(extend)

// Checks that every record in `records` is still pending before `expiry` (stepping a tick at a
// time) and completes once with success within one tick of it.
void check_completes_at(asio::io_context& io,
    const std::vector<wait_record*>& records, manual_clock::time_point expiry,
    const char* what)
{
  while (manual_clock::now() + tick <= expiry)
  {
    manual_clock::advance(tick);
    settle(io);
    for (const wait_record* r : records)
      BOOST_REQUIRE_MESSAGE(r->calls == 0,
          what << ": a wait completed "
               << (expiry - manual_clock::now()).count()
               << " ns before its expiry");
  }
  manual_clock::advance(tick);
  settle(io);
  for (const wait_record* r : records)
  {
    BOOST_TEST(r->succeeded_once(),
        what << ": must complete once with success within a tick of its "
                "expiry, got "
             << r->calls << " calls, " << r->ec.message());
    BOOST_TEST((r->completed_at >= expiry), what << ": early");
    BOOST_TEST((r->completed_at <= expiry + tick), what << ": a tick late");
  }
}

BOOST_DATA_TEST_CASE(later_extension_is_refiled_lazily_and_completes_at_it,
    boost::unit_test::data::make(concurrency_hints), concurrency_hint)
{
  for (const bool use_extend_to : {true, false})
  {
    const auto t0 = align_clock_to(tick);
    asio::io_context io(concurrency_hint);
    auto& service = install_service(io, make_options(tick, 8));

    manual_timer timer(io, t0 + ticks(3.5, tick));  // filed for tick 4
    wait_record first, second;
    timer.async_wait(record_into(first));
    timer.async_wait(record_into(second));
    // Past the old expiry and a revolution of the 8 slots.
    const auto extension = t0 + ticks(12.5, tick);
    if (use_extend_to)
      timer.extend_at(extension);
    else
      timer.extend_after(extension - manual_clock::now());
    BOOST_TEST(
        (timer.expiry() == extension), "expiry() must return the extension");
    BOOST_TEST(service.stats().lazy_refilings == 0u,
        "the extension must not re-file the entry at once");

    advance_in_steps(io, ticks(4, tick), tick);
    BOOST_TEST(service.stats().lazy_refilings == 1u,
        "the entry's slot came round at tick 4: it must have been re-filed "
        "once for the extension");
    check_completes_at(io, {&first, &second}, extension,
        use_extend_to ? "extend_at" : "extend_after");
    BOOST_TEST(service.stats().waits_cancelled == 0u, "extend must not cancel");
    BOOST_TEST(service.stats().waits_expired == 2u);
    BOOST_TEST(service.stats().lazy_refilings == 1u);
    BOOST_TEST(service.stats().max_lateness.count() == ticks(0.5, tick).count(),
        "lateness is measured from the extension");
  }
}

BOOST_AUTO_TEST_CASE(repeated_extensions_keep_the_wait_pending_until_the_last)
{
  align_clock_to(tick);
  asio::io_context io;
  auto& service = install_service(io, make_options(tick, 8));

  // The idle-timeout pattern of reschedule's test, with extend_after: a 5-tick timeout
  // refreshed every half tick, 1000 times.
  manual_timer idle(io, ticks(5, tick));
  wait_record record;
  idle.async_wait(record_into(record));
  for (int i = 0; i < 1000 && record.calls == 0; ++i)
  {
    idle.extend_after(ticks(5, tick));
    manual_clock::advance(ticks(0.5, tick));
    settle(io);
  }
  BOOST_TEST(record.calls == 0, "the wait completed although extended in time");
  BOOST_TEST(service.stats().pending_waits == 1u);
  BOOST_TEST(service.stats().lazy_refilings > 0u,
      "500 ticks of extensions crossed the entry's slot many times");
  check_completes_at(io, {&record}, idle.expiry(), "the last extension");
}

BOOST_AUTO_TEST_CASE(extension_earlier_than_the_expiry_changes_nothing)
{
  const auto t0 = align_clock_to(tick);
  asio::io_context io;
  auto& service = install_service(io, make_options(tick, 8));

  const auto expiry = t0 + ticks(6.5, tick);
  manual_timer timer(io, expiry);
  wait_record record;
  timer.async_wait(record_into(record));
  timer.extend_at(t0 + ticks(2.5, tick));
  BOOST_TEST((timer.expiry() == expiry));
  timer.extend_after(ticks(1, tick));
  BOOST_TEST((timer.expiry() == expiry));
  check_completes_at(io, {&record}, expiry, "an earlier extension");
  BOOST_TEST(service.stats().lazy_refilings == 0u);
}

BOOST_AUTO_TEST_CASE(the_last_extension_wins)
{
  const auto t0 = align_clock_to(tick);
  asio::io_context io;
  install_service(io, make_options(tick, 8));

  // Both later than the expiry, the second earlier than the first: stored before the walk
  // reaches the entry, the second is the one the wait completes at.
  manual_timer timer(io, t0 + ticks(2.5, tick));
  wait_record record;
  timer.async_wait(record_into(record));
  timer.extend_at(t0 + ticks(9.5, tick));
  timer.extend_at(t0 + ticks(5.5, tick));
  BOOST_TEST((timer.expiry() == t0 + ticks(5.5, tick)));
  check_completes_at(
      io, {&record}, t0 + ticks(5.5, tick), "the last extension");
}

BOOST_AUTO_TEST_CASE(setting_the_expiry_clears_the_extension)
{
  align_clock_to(tick);
  enum class setter
  {
    expires_at,
    expires_after,
    reschedule_at,
    reschedule_after
  };
  for (const setter how : {setter::expires_at, setter::expires_after,
           setter::reschedule_at, setter::reschedule_after})
  {
    asio::io_context io;
    install_service(io, make_options(tick, 8));
    const auto start = manual_clock::now();
    manual_timer timer(io, start + ticks(2.5, tick));
    wait_record old_wait;
    timer.async_wait(record_into(old_wait));
    timer.extend_at(start + ticks(20.5, tick));
    // Set exactly, earlier than the extension: the extension must be gone.
    const auto expiry = start + ticks(4.5, tick);
    switch (how)
    {
    case setter::expires_at:
      BOOST_TEST(timer.expires_at(expiry) == 1u);
      break;
    case setter::expires_after:
      BOOST_TEST(timer.expires_after(expiry - manual_clock::now()) == 1u);
      break;
    case setter::reschedule_at:
      BOOST_TEST(timer.reschedule_at(expiry) == 1u);
      break;
    case setter::reschedule_after:
      BOOST_TEST(timer.reschedule_after(expiry - manual_clock::now()) == 1u);
      break;
    }
    BOOST_TEST((timer.expiry() == expiry),
        "the extension survived setting the expiry (setter "
            << static_cast<int>(how) << ")");
    // reschedule_* moved the pending wait; expires_* aborted it, so a new one is watched.
    wait_record fresh;
    wait_record* watched = &old_wait;
    if (how == setter::expires_at || how == setter::expires_after)
    {
      settle(io);
      BOOST_TEST(old_wait.aborted_once());
      timer.async_wait(record_into(fresh));
      watched = &fresh;
    }
    check_completes_at(
        io, {watched}, expiry, "the expiry set after an extension");
  }
}

BOOST_AUTO_TEST_CASE(cancel_keeps_the_extension)
{
  const auto t0 = align_clock_to(tick);
  asio::io_context io;
  install_service(io, make_options(tick, 8));

  // As Asio's cancel() keeps the expiry, it keeps the extension.
  manual_timer timer(io, t0 + ticks(2.5, tick));
  wait_record aborted;
  timer.async_wait(record_into(aborted));
  timer.extend_at(t0 + ticks(6.5, tick));
  BOOST_TEST(timer.cancel() == 1u);
  settle(io);
  BOOST_TEST(aborted.aborted_once());
  BOOST_TEST((timer.expiry() == t0 + ticks(6.5, tick)));
  wait_record record;
  timer.async_wait(record_into(record));
  check_completes_at(io, {&record}, t0 + ticks(6.5, tick), "after cancel");
}

BOOST_AUTO_TEST_CASE(extension_without_a_pending_wait_applies_to_the_next_wait)
{
  const auto t0 = align_clock_to(tick);
  asio::io_context io;
  install_service(io, make_options(tick, 8));

  manual_timer timer(io, t0 + ticks(2.5, tick));
  timer.extend_after(ticks(7.5, tick));
  const auto extension = t0 + ticks(7.5, tick);
  BOOST_TEST((timer.expiry() == extension));
  // Past the expiry, before the extension, with the wheel's walk past the expiry's tick too
  // (another timer's wait took it to tick 4): a new wait is not due.
  manual_timer keeper(io, t0 + ticks(3.5, tick));
  wait_record kept;
  keeper.async_wait(record_into(kept));
  advance_in_steps(io, ticks(4, tick), tick);
  BOOST_TEST_REQUIRE(kept.succeeded_once());
  wait_record record;
  timer.async_wait(record_into(record));
  settle(io);
  BOOST_TEST(record.calls == 0,
      "a wait started after the expiry but before the extension completed at "
      "once");
  check_completes_at(io, {&record}, extension, "a wait after the extension");
}

BOOST_AUTO_TEST_CASE(blocking_wait_returns_at_the_extension)
{
  align_clock_to(tick);
  asio::io_context io;
  install_service(io, make_options(tick, 8));

  // The clock moves a tick a millisecond on another thread (only the clock: the timer is
  // this thread's) until the wait returns, or for 10 s.
  manual_timer timer(io, manual_clock::now() + ticks(1.5, tick));
  const auto extension = manual_clock::now() + ticks(5.5, tick);
  timer.extend_at(extension);
  std::atomic<bool> returned{false};
  std::thread mover([&returned] {
    for (int i = 0; i < 10000 && !returned.load(); ++i)
    {
      manual_clock::advance(tick);
      std::this_thread::sleep_for(1ms);
    }
  });
  timer.wait();
  const auto returned_at = manual_clock::now();
  returned = true;
  mover.join();
  BOOST_TEST((returned_at >= extension),
      "wait() returned " << (extension - returned_at).count()
                         << " ns before the extension");
}

BOOST_AUTO_TEST_CASE(a_move_carries_the_extension)
{
  const auto t0 = align_clock_to(tick);
  asio::io_context io;
  install_service(io, make_options(tick, 8));

  // Move construction: the pending wait, filed for tick 3, and the extension go with it.
  manual_timer source(io, t0 + ticks(2.5, tick));
  wait_record record;
  source.async_wait(record_into(record));
  source.extend_at(t0 + ticks(5.5, tick));
  manual_timer moved(std::move(source));
  BOOST_TEST((moved.expiry() == t0 + ticks(5.5, tick)));
  BOOST_TEST((source.expiry() == manual_clock::time_point()),
      "a moved-from timer is as if constructed: no expiry, no extension");
  check_completes_at(
      io, {&record}, t0 + ticks(5.5, tick), "a move-constructed timer");

  // Move assignment: the target's own wait is aborted, the source's extension taken.
  manual_timer target(io, manual_clock::now() + ticks(1.5, tick));
  wait_record target_wait;
  target.async_wait(record_into(target_wait));
  manual_timer source2(io, manual_clock::now() + ticks(1.5, tick));
  wait_record record2;
  source2.async_wait(record_into(record2));
  const auto extension = manual_clock::now() + ticks(4.5, tick);
  source2.extend_at(extension);
  target = std::move(source2);
  settle(io);
  BOOST_TEST(target_wait.aborted_once());
  BOOST_TEST((target.expiry() == extension));
  check_completes_at(io, {&record2}, extension, "a move-assigned timer");
}

// A wall clock (not steady) that steps: the extension is the expiry the clock must reach,
// whatever steps it takes (doc/design.md#clocks-that-step).
BOOST_AUTO_TEST_CASE(an_extended_wait_follows_the_wall_clock_through_its_steps)
{
  using wall_timer =
      asio_wheel::basic_wheel_timer<manual_wall_clock, manual_wall_wait_traits>;
  using wall_service = asio_wheel::wheel_timer_service<manual_wall_clock,
      manual_wall_wait_traits>;
  const auto wall_tick =
      std::chrono::duration_cast<manual_wall_clock::duration>(tick);
  // The wall clock on a tick boundary, so that the service's ticks are on multiples of it.
  manual_wall_clock::set(manual_wall_clock::time_point(
      manual_wall_clock::duration(1'000'000'000'000'000'000)));
  const auto t0 = manual_wall_clock::now();
  asio::io_context io;
  asio::make_service<wall_service>(io, make_options(tick, 8));
  const auto at = [&](double n) {
    return t0 + manual_wall_clock::duration(ticks(n, tick).count());
  };
  // How a wait completed, in wall-clock time.
  struct wall_record
  {
    int calls = 0;
    error_code ec;
    manual_wall_clock::time_point completed_at{};
    bool succeeded_once() const { return calls == 1 && !ec; }
  };
  const auto record_into = [](wall_record& r) {
    return [&r](const error_code& ec) {
      ++r.calls;
      r.ec = ec;
      r.completed_at = manual_wall_clock::now();
    };
  };
  const auto step_to = [&](double n) {
    // Forward in whole ticks from where the clock is, settling after each.
    while (manual_wall_clock::now() + wall_tick <= at(n))
    {
      manual_wall_clock::step(wall_tick);
      settle(io);
    }
  };

  // A step back after the walk re-filed the entry for its extension: it completes when the
  // clock has come back to the extension, not before.
  wall_timer back(io, at(2.5));
  wall_record back_record;
  back.async_wait(record_into(back_record));
  back.extend_at(at(6.5));
  step_to(4);  // past the expiry: re-filed for tick 7
  BOOST_TEST_REQUIRE(back_record.calls == 0, "completed before its extension");
  manual_wall_clock::step(-3 * wall_tick);  // back to tick 1
  settle(io);
  step_to(6);
  BOOST_TEST(back_record.calls == 0,
      "completed after a step back, before the clock reached its extension");
  step_to(7);
  BOOST_TEST(back_record.succeeded_once());
  BOOST_TEST((back_record.completed_at >= at(6.5)));
  BOOST_TEST((back_record.completed_at <= at(7.5)));

  // A new wait after a step back, whose expiry the stepped clock has passed but whose
  // extension it has not: due by neither; it completes at the extension.
  step_to(12);
  manual_wall_clock::step(-8 * wall_tick);  // back to tick 4
  settle(io);
  wall_timer fresh(io, at(3.5));
  fresh.extend_at(at(6.5));
  wall_record fresh_record;
  fresh.async_wait(record_into(fresh_record));
  settle(io);
  BOOST_TEST(fresh_record.calls == 0,
      "a wait whose extension lies ahead of the stepped clock completed at "
      "once");
  step_to(7);
  BOOST_TEST(fresh_record.succeeded_once());
  BOOST_TEST((fresh_record.completed_at >= at(6.5)));

  // A step forward past the extension: it completes soon, with success.
  wall_timer forward(io, manual_wall_clock::now() + wall_tick);
  wall_record forward_record;
  forward.async_wait(record_into(forward_record));
  const auto extension = manual_wall_clock::now() + 5 * wall_tick;
  forward.extend_at(extension);
  manual_wall_clock::step(20 * wall_tick);
  settle(io);
  BOOST_TEST(forward_record.succeeded_once());
  BOOST_TEST((forward_record.completed_at >= extension));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(expiry_accuracy)

// A seeded mix of expiries: random offsets over 25 revolutions of an 8-slot wheel, exact tick
// multiples, the past, "now", plus far ones and time_point::max() that must not fire.
std::vector<std::unique_ptr<probe>> make_probes(
    asio::io_context& io, manual_clock::time_point start, std::mt19937_64& rng)
{
  std::vector<std::unique_ptr<probe>> probes;
  std::uniform_int_distribution<std::int64_t> offset(
      0, ticks(200, tick).count());
  for (int i = 0; i < 200; ++i)
    probes.push_back(std::make_unique<probe>(
        io, start + manual_clock::duration(offset(rng))));
  for (int k = 0; k <= 24; ++k)
    probes.push_back(std::make_unique<probe>(io, start + ticks(k, tick)));
  probes.push_back(std::make_unique<probe>(io, start - ticks(5, tick)));
  probes.push_back(
      std::make_unique<probe>(io, start + manual_clock::duration(1)));
  for (auto& p : probes)
    start_probe_wait(*p);
  return probes;
}

void run_probes(asio::io_context& io,
    std::vector<std::unique_ptr<probe>>& probes, manual_clock::time_point start,
    std::mt19937_64& rng, bool whole_tick_steps)
{
  manual_timer never(io, manual_clock::time_point::max());
  manual_timer distant(io, start + manual_clock::duration::max() / 2);
  wait_record never_record, far_record;
  never.async_wait(record_into(never_record));
  distant.async_wait(record_into(far_record));

  std::uniform_int_distribution<std::int64_t> step(1, tick.count());
  settle(io);
  check_none_later_than_a_tick(probes);
  for (int i = 0; i < 100'000 && manual_clock::now() < start + ticks(205, tick);
       ++i)
  {
    manual_clock::advance(
        whole_tick_steps ? tick : manual_clock::duration(step(rng)));
    settle(io);
    check_none_later_than_a_tick(probes);
  }

  manual_clock::duration max_lateness{0};
  for (auto& p : probes)
  {
    BOOST_TEST(p->record.succeeded_once(),
        "wait expiring at " << (p->expiry - start).count()
                            << " ns after start: " << p->record.calls
                            << " calls");
    const auto lateness = p->record.completed_at - std::max(p->expiry, start);
    if (p->record.calls == 1 && lateness > max_lateness)
      max_lateness = lateness;
    // Waits armed already expired complete at start, at the latest one tick on.
    if (whole_tick_steps)
      BOOST_TEST((p->record.completed_at <= std::max(p->expiry, start) + tick),
          "completed " << lateness.count()
                       << " ns after its expiry (or the start, if"
                          " later) with whole-tick steps");
  }
  BOOST_TEST_MESSAGE("measured max lateness: "
      << max_lateness.count() << " ns, tick " << tick.count() << " ns, "
      << probes.size() << " waits");
  BOOST_TEST(never_record.calls == 0, "time_point::max() fired");
  BOOST_TEST(far_record.calls == 0, "an expiry 146 years ahead fired");
  BOOST_TEST(never.cancel() == 1u);
  BOOST_TEST(distant.cancel() == 1u);
  settle(io);
  BOOST_TEST(never_record.aborted_once());
  BOOST_TEST(far_record.aborted_once());
}

BOOST_DATA_TEST_CASE(whole_tick_steps_complete_within_one_tick_of_the_expiry,
    boost::unit_test::data::make(concurrency_hints), concurrency_hint)
{
  const auto start = align_clock_to(tick);
  asio::io_context io(concurrency_hint);
  install_service(io, make_options(tick, 8));
  std::mt19937_64 rng(20261121);
  auto probes = make_probes(io, start, rng);
  run_probes(io, probes, start, rng, true);
}

BOOST_AUTO_TEST_CASE(random_sub_tick_steps_never_early_and_never_a_tick_late)
{
  // Deliberately not aligned: the wheel's tick boundaries fall between the clock's steps.
  manual_clock::advance(manual_clock::duration(tick.count() / 3 + 17));
  const auto start = manual_clock::now();
  asio::io_context io;
  install_service(io, make_options(tick, 8));
  std::mt19937_64 rng(4242);
  auto probes = make_probes(io, start, rng);
  run_probes(io, probes, start, rng, false);
}

BOOST_AUTO_TEST_CASE(
    far_expiries_fire_neither_early_nor_late_across_clock_jumps)
{
  asio::io_context io;
  install_service(io, make_options(tick, 8));
  const auto start = manual_clock::now();
  constexpr auto hour = std::chrono::hours(1);
  const manual_clock::duration offsets[] = {hour, 24 * hour,
      50 * 365 * 24 * hour, 50 * 365 * 24 * hour + ticks(2.5, tick)};
  std::vector<std::unique_ptr<probe>> probes;
  for (auto offset : offsets)
  {
    probes.push_back(std::make_unique<probe>(io, start + offset));
    start_probe_wait(*probes.back());
  }
  for (std::size_t i = 0; i < probes.size(); ++i)
  {
    manual_clock::set(probes[i]->expiry - manual_clock::duration(1));
    settle(io);
    BOOST_TEST(
        probes[i]->record.calls == 0, "expiry " << i << " fired 1 ns early");
    manual_clock::set(probes[i]->expiry + tick);
    settle(io);
    BOOST_TEST(probes[i]->record.succeeded_once(),
        "expiry " << i << " did not fire one tick after it passed ("
                  << probes[i]->record.calls << " calls)");
  }
}

BOOST_AUTO_TEST_CASE(expiry_at_time_point_min_completes_at_once)
{
  asio::io_context io;
  auto& service = install_service(io, make_options(tick, 8));
  manual_timer timer(io, manual_clock::time_point::min());
  wait_record first, moved;
  timer.async_wait(record_into(first));
  settle(io);
  BOOST_TEST(first.succeeded_once());

  // The same via reschedule_at, which goes through the wheel's "expire now" path. The lateness
  // of such a wait (now - time_point::min()) does not fit the duration type: the service must
  // saturate or skip it, not overflow (a signed overflow is undefined; UBSan reports it).
  timer.expires_after(ticks(10, tick));
  timer.async_wait(record_into(moved));
  BOOST_TEST(timer.reschedule_at(manual_clock::time_point::min()) == 1u);
  settle(io);
  BOOST_TEST(moved.succeeded_once());
  const auto max_lateness = service.stats().max_lateness;
  BOOST_TEST((max_lateness >= std::chrono::nanoseconds::zero()),
      "max_lateness overflowed: " << max_lateness.count() << " ns");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(rearm_after_cancel)

// After its last wait is aborted a timer may stay filed in the wheel (a "ghost") to make the
// next re-arm cheap. Whatever happens to it next - re-armed later, re-armed earlier, moved,
// destroyed, or left alone - the waits must complete exactly as if it had left the wheel.
BOOST_AUTO_TEST_CASE(cancelled_timer_rearmed_moved_or_destroyed_behaves_as_new)
{
  const auto t0 = align_clock_to(tick);
  asio::io_context io;
  auto& service = install_service(io, make_options(tick, 8));
  const auto at = [&](double n) { return t0 + ticks(n, tick); };

  // Keeps the reactor's deadline at tick 2, before every other entry.
  manual_timer anchor(io, at(1.5));
  wait_record anchor_record;
  anchor.async_wait(record_into(anchor_record));

  wait_record aborted[5];
  manual_timer later(io, at(10.5)), earlier(io, at(10.5)),
      left_alone(io, at(9.5));
  auto destroyed = std::make_unique<manual_timer>(io, at(12.5));
  auto moved_from = std::make_unique<manual_timer>(io, at(14.5));
  later.async_wait(record_into(aborted[0]));
  earlier.async_wait(record_into(aborted[1]));
  left_alone.async_wait(record_into(aborted[2]));
  destroyed->async_wait(record_into(aborted[3]));
  moved_from->async_wait(record_into(aborted[4]));
  BOOST_TEST(later.cancel() == 1u);
  BOOST_TEST(earlier.cancel() == 1u);
  BOOST_TEST(left_alone.cancel() == 1u);
  BOOST_TEST(destroyed->cancel() == 1u);
  BOOST_TEST(moved_from->cancel() == 1u);
  BOOST_TEST(service.stats().timers_in_wheel == 1u,
      "only the anchor has a pending wait");

  wait_record later_record, earlier_record, same_slot_record, moved_record;
  later.expires_at(at(20.5));
  later.async_wait(record_into(later_record));
  earlier.expires_at(at(5.5));
  earlier.async_wait(record_into(earlier_record));
  destroyed.reset();
  manual_timer same_slot(
      io, at(12.5));  // the slot the destroyed timer was filed in
  same_slot.async_wait(record_into(same_slot_record));
  manual_timer moved(std::move(*moved_from));
  moved_from.reset();
  moved.expires_at(at(16.5));
  moved.async_wait(record_into(moved_record));
  BOOST_TEST(service.stats().timers_in_wheel == 5u);
  BOOST_TEST(service.stats().pending_waits == 5u);

  struct expectation
  {
    const char* name;
    wait_record* record;
    double expiry_ticks;
  };
  const expectation expected[] = {{"anchor", &anchor_record, 1.5},
      {"re-armed earlier", &earlier_record, 5.5},
      {"same slot", &same_slot_record, 12.5}, {"moved", &moved_record, 16.5},
      {"re-armed later", &later_record, 20.5}};
  for (int step = 1; step <= 22; ++step)
  {
    advance_in_steps(io, tick, tick);
    for (const auto& e : expected)
    {
      if (step < e.expiry_ticks)
        BOOST_TEST(e.record->calls == 0,
            e.name << " completed early, at tick " << step);
      else
        BOOST_TEST(e.record->succeeded_once(),
            e.name << " not completed once by tick " << step << ": "
                   << e.record->calls << " calls, " << e.record->ec.message());
    }
  }
  for (auto& r : aborted)
    BOOST_TEST(r.aborted_once());
  const auto s = service.stats();
  BOOST_TEST(s.pending_waits == 0u);
  BOOST_TEST(s.timers_in_wheel == 0u);
  BOOST_TEST(s.waits_expired == 5u);
  BOOST_TEST(s.waits_cancelled == 5u);
  BOOST_TEST(io.stopped(), "entries without waits kept the context busy");
}

// The churn pattern (expires_after + async_wait on every message, benchmark W1 of
// doc/benchmarks.md): each re-arm aborts the previous wait, the last one completes at its expiry.
BOOST_DATA_TEST_CASE(rearm_on_every_message_aborts_each_previous_wait,
    boost::unit_test::data::make(concurrency_hints), concurrency_hint)
{
  align_clock_to(tick);
  asio::io_context io(concurrency_hint);
  auto& service = install_service(io, make_options(tick, 8));
  constexpr int timer_count = 50;
  constexpr int messages = 40;
  std::vector<std::unique_ptr<manual_timer>> timers;
  std::vector<std::vector<wait_record>> records(
      timer_count, std::vector<wait_record>(messages));
  for (int i = 0; i < timer_count; ++i)
    timers.push_back(std::make_unique<manual_timer>(io));
  std::mt19937 rng(7);
  for (int m = 0; m < messages; ++m)
  {
    for (int i = 0; i < timer_count; ++i)
    {
      // Timeouts of 2 to 9 ticks: some shorter than the gap to the next message, so a few
      // waits expire between messages and the next re-arm finds nothing to abort.
      const std::size_t aborted =
          timers[i]->expires_after(ticks(2 + rng() % 8, tick));
      BOOST_TEST(aborted <= 1u);
      timers[i]->async_wait(record_into(records[i][m]));
    }
    advance_in_steps(io, ticks(3, tick), ticks(0.5, tick));
  }
  advance_in_steps(io, ticks(10, tick), tick);
  std::uint64_t succeeded = 0, aborted = 0;
  for (int i = 0; i < timer_count; ++i)
    for (int m = 0; m < messages; ++m)
    {
      const auto& r = records[i][m];
      BOOST_TEST(r.calls == 1,
          "timer " << i << " message " << m << ": " << r.calls << " calls");
      (r.ec ? aborted : succeeded) += 1;
    }
  BOOST_TEST(succeeded + aborted
      == static_cast<std::uint64_t>(timer_count * messages));
  const auto s = service.stats();
  BOOST_TEST(s.waits_expired == succeeded);
  BOOST_TEST(s.waits_cancelled == aborted);
  BOOST_TEST(s.pending_waits == 0u);
  BOOST_TEST(s.timers_in_wheel == 0u);
  BOOST_TEST(io.stopped());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(inside_own_handler)

BOOST_DATA_TEST_CASE(timer_destroyed_inside_its_own_handler,
    boost::unit_test::data::make(concurrency_hints), concurrency_hint)
{
  align_clock_to(tick);
  asio::io_context io(concurrency_hint);
  auto& service = install_service(io, make_options(tick, 8));

  // Two waits expire together; the first handler destroys the timer. The second has already
  // expired, so the destructor does not abort it: it still sees success.
  auto timer = std::make_unique<manual_timer>(io, ticks(2.5, tick));
  wait_record first, second;
  timer->async_wait([&](const error_code& ec) {
    record_into(first)(ec);
    timer.reset();
  });
  timer->async_wait(record_into(second));
  advance_in_steps(io, ticks(3, tick), tick);
  BOOST_TEST(first.succeeded_once());
  BOOST_TEST(second.succeeded_once(),
      "second wait: " << second.calls << " calls, " << second.ec.message());
  BOOST_TEST(!timer);

  // Destroyed inside its handler after re-arming: the new wait is aborted by the destructor.
  timer = std::make_unique<manual_timer>(io, ticks(1.5, tick));
  wait_record rearmed_first, rearmed_second;
  timer->async_wait([&](const error_code& ec) {
    record_into(rearmed_first)(ec);
    timer->expires_after(ticks(3, tick));
    timer->async_wait(record_into(rearmed_second));
    timer.reset();
  });
  advance_in_steps(io, ticks(2, tick), tick);
  BOOST_TEST(rearmed_first.succeeded_once());
  BOOST_TEST(rearmed_second.aborted_once());

  // The service is intact: nothing left in the wheel, and a new timer works.
  const auto stats = service.stats();
  BOOST_TEST(stats.timers_in_wheel == 0u);
  BOOST_TEST(stats.pending_waits == 0u);
  manual_timer after(io, ticks(1.5, tick));
  wait_record after_record;
  after.async_wait(record_into(after_record));
  advance_in_steps(io, ticks(2, tick), tick);
  BOOST_TEST(after_record.succeeded_once());
}

BOOST_DATA_TEST_CASE(timer_moved_inside_its_own_handler,
    boost::unit_test::data::make(concurrency_hints), concurrency_hint)
{
  align_clock_to(tick);
  asio::io_context io(concurrency_hint);
  auto& service = install_service(io, make_options(tick, 8));

  std::optional<manual_timer> self(std::in_place, io, ticks(1.5, tick));
  manual_timer target(io, ticks(100, tick));
  std::optional<manual_timer> constructed;
  wait_record own, target_own, carried, carried_by_construction;
  manual_clock::time_point carried_expiry{};
  target.async_wait(record_into(target_own));
  self->async_wait([&](const error_code& ec) {
    record_into(own)(ec);
    // Re-arm, then move the timer away: the new wait travels with the object, and the
    // target's own pending wait is aborted by the move assignment.
    self->expires_after(ticks(3, tick));
    carried_expiry = self->expiry();
    self->async_wait(record_into(carried));
    target = std::move(*self);
    self.reset();
    // Move construction inside a handler too.
    constructed.emplace(std::move(target));
    constructed->async_wait(record_into(carried_by_construction));
  });
  advance_in_steps(io, ticks(2, tick), tick);
  BOOST_TEST(own.succeeded_once());
  BOOST_TEST(target_own.aborted_once(),
      "move assignment must abort the target's own wait");
  BOOST_TEST(carried.calls == 0);
  BOOST_TEST((constructed->expiry() == carried_expiry));

  advance_in_steps(io, ticks(2, tick), tick);
  BOOST_TEST(carried.calls == 0, "completed before its expiry");
  advance_in_steps(io, ticks(1, tick), tick);
  BOOST_TEST(carried.succeeded_once(),
      "the wait moved with the timer must complete with"
      " success at its expiry: "
          << carried.calls << " calls, " << carried.ec.message());
  BOOST_TEST(carried_by_construction.succeeded_once());
  BOOST_TEST(service.stats().pending_waits == 0u);
  BOOST_TEST(service.stats().timers_in_wheel == 0u);
}

BOOST_DATA_TEST_CASE(timer_cancelled_inside_its_own_handler,
    boost::unit_test::data::make(concurrency_hints), concurrency_hint)
{
  align_clock_to(tick);
  asio::io_context io(concurrency_hint);
  install_service(io, make_options(tick, 8));

  manual_timer timer(io, ticks(1.5, tick));
  wait_record first, expired_with_first, rearmed;
  std::size_t cancelled_at_entry = 99, cancelled_after_rearm = 99;
  timer.async_wait([&](const error_code& ec) {
    record_into(first)(ec);
    // The other wait has expired too (handler not run yet): not cancellable, not counted.
    cancelled_at_entry = timer.cancel();
    timer.expires_after(ticks(5, tick));
    timer.async_wait(record_into(rearmed));
    cancelled_after_rearm = timer.cancel();
  });
  timer.async_wait(record_into(expired_with_first));
  advance_in_steps(io, ticks(2, tick), tick);
  BOOST_TEST(first.succeeded_once());
  BOOST_TEST(cancelled_at_entry == 0u);
  BOOST_TEST(expired_with_first.succeeded_once(),
      "an expired wait whose handler had not run yet must still see success");
  BOOST_TEST(cancelled_after_rearm == 1u);
  BOOST_TEST(rearmed.aborted_once());

  // cancel_one inside the handler of a wait aborts the oldest still pending one.
  wait_record a, b;
  std::size_t cancelled_one = 99;
  timer.expires_after(ticks(1.5, tick));
  timer.async_wait([&](const error_code& ec) {
    record_into(a)(ec);
    timer.expires_after(ticks(4, tick));
    timer.async_wait(record_into(b));
    cancelled_one = timer.cancel_one();
  });
  advance_in_steps(io, ticks(2, tick), tick);
  BOOST_TEST(a.succeeded_once());
  BOOST_TEST(cancelled_one == 1u);
  BOOST_TEST(b.aborted_once());
}

BOOST_DATA_TEST_CASE(timer_rearmed_inside_its_own_handler,
    boost::unit_test::data::make(concurrency_hints), concurrency_hint)
{
  align_clock_to(tick);
  asio::io_context io(concurrency_hint);
  auto& service = install_service(io, make_options(tick, 8));

  // A chain of 12 waits, each armed by the previous handler, alternately with expires_after
  // and reschedule_after (which with no pending wait only sets the expiry).
  constexpr int chain_length = 12;
  manual_timer timer(io, ticks(1.5, tick));
  std::vector<wait_record> records(chain_length);
  std::vector<manual_clock::time_point> expiries(chain_length);
  std::size_t nonzero_returns = 0;
  expiries[0] = timer.expiry();
  std::function<void(int)> start = [&](int k) {
    timer.async_wait([&, k](const error_code& ec) {
      record_into(records[k])(ec);
      BOOST_TEST((manual_clock::now() >= expiries[k]),
          "link " << k << " completed early");
      if (k + 1 == chain_length)
        return;
      const auto delay = ticks(1.5 + (k % 4), tick);
      nonzero_returns += (k % 2 == 0) ? timer.expires_after(delay)
                                      : timer.reschedule_after(delay);
      expiries[k + 1] = timer.expiry();
      start(k + 1);
    });
  };
  start(0);
  for (int i = 0; i < 200 && records.back().calls == 0; ++i)
    advance_in_steps(io, tick, tick);
  for (int k = 0; k < chain_length; ++k)
  {
    BOOST_TEST(records[k].succeeded_once(),
        "link " << k << ": " << records[k].calls << " calls, "
                << records[k].ec.message());
    BOOST_TEST((records[k].completed_at <= expiries[k] + tick),
        "link " << k << " late");
  }
  BOOST_TEST(nonzero_returns == 0u,
      "nothing was pending when re-arming from the handler");
  BOOST_TEST(service.stats().waits_expired
      == static_cast<std::uint64_t>(chain_length));
}

BOOST_AUTO_TEST_SUITE_END()

// Per-operation cancellation: where Asio has it (1.19 and later; detail/config.hpp).
#if defined(ASIO_WHEEL_ASIO_HAS_CANCELLATION_SLOT)
BOOST_AUTO_TEST_SUITE(cancellation_slot)

BOOST_DATA_TEST_CASE(emitted_before_expiry_aborts_only_that_wait,
    boost::unit_test::data::make(concurrency_hints), concurrency_hint)
{
  align_clock_to(tick);
  asio::io_context io(concurrency_hint);
  auto& service = install_service(io, make_options(tick, 8));

  const asio::cancellation_type types[] = {asio::cancellation_type::terminal,
      asio::cancellation_type::partial, asio::cancellation_type::total};
  for (auto type : types)
  {
    manual_timer timer(io, ticks(3.5, tick));
    asio::cancellation_signal signal;
    wait_record cancelled, untouched;
    timer.async_wait(
        asio::bind_cancellation_slot(signal.slot(), record_into(cancelled)));
    timer.async_wait(record_into(untouched));
    advance_in_steps(io, ticks(1, tick), tick);
    signal.emit(type);
    settle(io);
    BOOST_TEST(cancelled.aborted_once(),
        "cancellation type " << static_cast<int>(type) << ": "
                             << cancelled.calls << " calls, "
                             << cancelled.ec.message());
    BOOST_TEST(untouched.calls == 0);
    BOOST_TEST(
        !signal.slot().has_handler(), "slot still connected after completion");
    advance_in_steps(io, ticks(3, tick), tick);
    BOOST_TEST(untouched.succeeded_once());
  }
  BOOST_TEST(service.stats().waits_cancelled == 3u);
}

BOOST_DATA_TEST_CASE(
    emitted_after_completion_does_nothing_even_after_the_timer_is_gone,
    boost::unit_test::data::make(concurrency_hints), concurrency_hint)
{
  align_clock_to(tick);
  asio::io_context io(concurrency_hint);
  auto& service = install_service(io, make_options(tick, 8));

  auto timer = std::make_unique<manual_timer>(io, ticks(1.5, tick));
  asio::cancellation_signal expired_signal, aborted_signal;
  wait_record expired;
  timer->async_wait(asio::bind_cancellation_slot(
      expired_signal.slot(), record_into(expired)));
  advance_in_steps(io, ticks(2, tick), tick);
  BOOST_TEST(expired.succeeded_once());
  BOOST_TEST(!expired_signal.slot().has_handler(),
      "the slot must be cleared when the wait completes");

  // Emitting now must not touch the finished operation (ASan/valgrind would see a use
  // after free) nor change anything.
  expired_signal.emit(asio::cancellation_type::terminal);
  expired_signal.emit(asio::cancellation_type::all);
  settle(io);
  BOOST_TEST(expired.calls == 1);
  BOOST_TEST(service.stats().waits_cancelled == 0u);

  // A wait aborted by cancel(): its slot is cleared as well.
  wait_record aborted;
  timer->expires_after(ticks(5, tick));
  timer->async_wait(asio::bind_cancellation_slot(
      aborted_signal.slot(), record_into(aborted)));
  BOOST_TEST(timer->cancel() == 1u);
  settle(io);
  BOOST_TEST(aborted.aborted_once());
  BOOST_TEST(!aborted_signal.slot().has_handler());

  // And after the timer itself is destroyed.
  timer.reset();
  expired_signal.emit(asio::cancellation_type::all);
  aborted_signal.emit(asio::cancellation_type::all);
  settle(io);
  BOOST_TEST(expired.calls == 1);
  BOOST_TEST(aborted.calls == 1);
  BOOST_TEST(service.stats().waits_cancelled == 1u);
  BOOST_TEST(service.stats().pending_waits == 0u);
}

BOOST_AUTO_TEST_SUITE_END()
#endif  // ASIO_WHEEL_ASIO_HAS_CANCELLATION_SLOT
