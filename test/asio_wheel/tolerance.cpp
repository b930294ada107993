// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// tolerance.cpp: tests of the tolerance of basic_wheel_timer waits (wheel_options::tolerance,
// basic_wheel_timer::tolerance) on the manual clock. The window is the contract: a wait
// completes never before its expiry and never later than its expiry + its tolerance + one
// tick. The clock is stepped one tick at a time over every tick any window covers, so each
// completion is seen at the tick boundary where the wheel completed it. Waits whose windows
// overlap must share wakeups (fewer wakeups than the same program without tolerance),
// and the default must be exactly as precise as before.
#include "wheel_test_support.hpp"

#include <algorithm>
#include <memory>
#include <random>
#include <set>
#include <stdexcept>
#include <vector>

using namespace asio_wheel_test;

namespace {

// One timer of a fleet: when it is armed, for how long, and what happened.
struct fleet_member
{
  manual_clock::duration arrival;  // after the fleet's start
  manual_clock::duration length;  // expires_after(length)
  std::unique_ptr<manual_timer> timer;
  manual_clock::time_point expiry{};
  manual_clock::duration tolerance{};  // timer.tolerance() once armed
  wait_record record;
};

struct fleet_result
{
  asio_wheel::wheel_stats stats;
  std::size_t distinct_completion_times = 0;
};

// Arms `count` timers, each at a random arrival within the first 300 ticks, for a random
// length from 1 tick to 1000 ticks (log-uniform, mid-tick, so that levels 1 and 2 of an
// 8-slot wheel, 8 and 512 ticks a slot, are used), with the context's tolerance `fraction`,
// and steps the clock one tick at a time until every window has closed. Checks every wait's
// window.
fleet_result run_fleet(double fraction, std::uint32_t seed, std::size_t count)
{
  const auto start = align_clock_to(tick);
  asio::io_context io(1);
  auto options = make_options(tick, 8);
  options.tolerance = fraction;
  auto& service = install_service(io, options);

  std::mt19937 random(seed);
  constexpr int last_arrival = 300;
  constexpr double longest = 1000;
  std::uniform_int_distribution<int> arrival(0, last_arrival);
  std::uniform_real_distribution<double> log_length(0.0, std::log(longest));
  std::vector<fleet_member> fleet(count);
  for (auto& m : fleet)
  {
    m.arrival = ticks(arrival(random), tick);
    m.length = ticks(std::floor(std::exp(log_length(random))) + 0.5, tick);
    m.timer = std::make_unique<manual_timer>(io);
  }

  // Until the last window has closed: the last arrival + the longest length, twice over.
  const auto end = start + ticks(last_arrival + 2 * longest + 2, tick);
  while (manual_clock::now() < end)
  {
    for (auto& m : fleet)
    {
      if (start + m.arrival == manual_clock::now())
      {
        m.timer->expires_after(m.length);
        m.expiry = m.timer->expiry();
        m.tolerance = m.timer->tolerance();
        m.timer->async_wait(record_into(m.record));
      }
    }
    settle(io);
    manual_clock::advance(tick);
  }
  settle(io);

  fleet_result result;
  std::set<manual_clock::time_point> completion_times;
  for (const auto& m : fleet)
  {
    // The tolerance the timer reports: the fraction of its length, in whole ticks.
    const auto expected_tolerance =
        ticks(std::floor(fraction * static_cast<double>(m.length.count())
                  / static_cast<double>(tick.count())),
            tick);
    BOOST_TEST(m.tolerance.count() == expected_tolerance.count(),
        "length " << m.length.count() << " ns, fraction " << fraction);
    BOOST_TEST_REQUIRE(m.record.succeeded_once());
    BOOST_TEST((m.record.completed_at >= m.expiry),
        "completed early: " << (m.expiry - m.record.completed_at).count()
                            << " ns before its expiry");
    BOOST_TEST((m.record.completed_at <= m.expiry + m.tolerance + tick),
        "completed " << (m.record.completed_at - m.expiry).count()
                     << " ns after its expiry, "
                     << "beyond its tolerance of " << m.tolerance.count()
                     << " ns + a tick");
    completion_times.insert(m.record.completed_at);
  }
  result.stats = service.stats();
  result.distinct_completion_times = completion_times.size();
  return result;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(tolerance)

BOOST_AUTO_TEST_CASE(default_options_are_precise_and_save_nothing)
{
  const auto precise = run_fleet(0.0, 1, 300);
  BOOST_TEST(precise.stats.wakeups_saved == 0u);
  BOOST_TEST(precise.stats.waits_expired == 300u);

  // Exactly as before tolerance existed: each wait at the first tick boundary at or after
  // its expiry (mid-tick expiries: half a tick later).
  const auto start = align_clock_to(tick);
  asio::io_context io;
  install_service(io, make_options(tick, 8));
  manual_timer timer(io);
  BOOST_TEST(timer.tolerance().count() == 0);
  timer.expires_after(ticks(3000.5, tick));
  wait_record record;
  timer.async_wait(record_into(record));
  advance_in_steps(io, ticks(3000, tick), tick);
  BOOST_TEST(record.calls == 0);
  advance_in_steps(io, ticks(1, tick), tick);
  BOOST_TEST(record.succeeded_once());
  BOOST_TEST((record.completed_at == start + ticks(3001, tick)));
}

BOOST_DATA_TEST_CASE(
    a_context_fraction_keeps_every_wait_in_its_window_and_shares_wakeups,
    boost::unit_test::data::make({1.0 / 64, 1.0 / 4, 1.0}), fraction)
{
  const auto precise = run_fleet(0.0, 7, 400);
  const auto tolerant = run_fleet(fraction, 7, 400);
  BOOST_TEST(tolerant.stats.waits_expired == 400u);
  BOOST_TEST(tolerant.stats.wakeups < precise.stats.wakeups,
      "wakeups: " << tolerant.stats.wakeups << " with tolerance " << fraction
                  << ", " << precise.stats.wakeups << " without");
  BOOST_TEST(
      tolerant.distinct_completion_times < precise.distinct_completion_times);
  BOOST_TEST(tolerant.stats.wakeups_saved > 0u);
  // Each wait saves at most its own wakeup.
  BOOST_TEST(tolerant.stats.wakeups_saved <= tolerant.stats.waits_expired);
  BOOST_TEST(precise.stats.wakeups - tolerant.stats.wakeups
          <= tolerant.stats.wakeups_saved,
      "wakeups_saved must bound the wakeups saved");
}

BOOST_DATA_TEST_CASE(the_window_holds_for_many_seeds,
    boost::unit_test::data::xrange(20, 30), seed)
{
  run_fleet(
      seed % 2 ? 1.0 / 16 : 1.0 / 3, static_cast<std::uint32_t>(seed), 60);
}

BOOST_AUTO_TEST_CASE(a_timers_own_tolerance_replaces_the_contexts)
{
  const auto start = align_clock_to(tick);
  asio::io_context io;
  auto options = make_options(tick, 8);
  options.tolerance = 1.0 / 4;
  install_service(io, options);

  // Precise in a tolerant context: zero.
  manual_timer precise(io);
  precise.tolerance(manual_clock::duration::zero());
  precise.expires_after(ticks(1000.5, tick));
  BOOST_TEST(precise.tolerance().count() == 0);
  wait_record precise_record;
  precise.async_wait(record_into(precise_record));

  // Its own, shorter than the context's 250 ticks, rounded down to whole ticks.
  manual_timer own(io);
  own.tolerance(ticks(10.7, tick));
  BOOST_TEST(own.tolerance().count() == ticks(10, tick).count());
  own.expires_after(ticks(1000.5, tick));
  BOOST_TEST(own.tolerance().count() == ticks(10, tick).count(),
      "a new expiry must not replace the timer's own tolerance");
  wait_record own_record;
  own.async_wait(record_into(own_record));

  // The context's: a quarter of the length.
  manual_timer context(io);
  context.expires_after(ticks(1000.5, tick));
  BOOST_TEST(context.tolerance().count() == ticks(250, tick).count());
  wait_record context_record;
  context.async_wait(record_into(context_record));

  advance_in_steps(io, ticks(1300, tick), tick);
  BOOST_TEST((precise_record.completed_at == start + ticks(1001, tick)));
  BOOST_TEST((own_record.completed_at >= start + ticks(1000.5, tick)));
  BOOST_TEST((own_record.completed_at <= start + ticks(1000.5 + 10 + 1, tick)));
  BOOST_TEST((context_record.completed_at >= start + ticks(1000.5, tick)));
  BOOST_TEST(
      (context_record.completed_at <= start + ticks(1000.5 + 250 + 1, tick)));

  BOOST_CHECK_THROW(own.tolerance(-ticks(1, tick)), std::invalid_argument);
  BOOST_TEST(own.tolerance().count() == ticks(10, tick).count(),
      "a rejected tolerance must leave the timer's own unchanged");
}

BOOST_AUTO_TEST_CASE(
    a_smaller_tolerance_moves_a_pending_wait_into_its_new_window)
{
  // The wait's place (the tick its first tolerance chose) can lie beyond the window of a
  // smaller tolerance: it must move earlier, or complete at once if already past its expiry.
  for (const bool past_expiry : {false, true})
  {
    const auto start = align_clock_to(tick);
    asio::io_context io;
    install_service(io, make_options(tick, 8));
    manual_timer timer(io);
    timer.tolerance(ticks(4096, tick));
    timer.expires_after(
        ticks(100.5, tick));  // the wheel may keep it until tick 4196
    wait_record record;
    timer.async_wait(record_into(record));
    advance_in_steps(io, ticks(past_expiry ? 150 : 50, tick), tick);
    BOOST_TEST_REQUIRE(
        record.calls == 0, "completed before the test could shrink its window");
    timer.tolerance(ticks(2, tick));
    settle(io);
    if (past_expiry)
    {
      BOOST_TEST(record.succeeded_once(),
          "a wait past its expiry and window must complete");
      BOOST_TEST((record.completed_at == start + ticks(150, tick)));
    }
    else
    {
      advance_in_steps(io, ticks(60, tick), tick);
      BOOST_TEST(record.succeeded_once());
      BOOST_TEST((record.completed_at >= start + ticks(100.5, tick)));
      BOOST_TEST((record.completed_at <= start + ticks(100.5 + 2 + 1, tick)));
    }
  }
}

BOOST_AUTO_TEST_CASE(
    a_later_expiry_with_less_tolerance_is_not_left_at_its_old_place)
{
  // Under the context's fraction, a reschedule to a later expiry that is nearer in time than
  // the first one was long has a smaller window: the place the first window chose may lie
  // beyond it, though the expiry moved later.
  const auto start = align_clock_to(tick);
  asio::io_context io;
  auto options = make_options(tick, 8);
  options.tolerance = 1.0;
  install_service(io, options);
  manual_timer timer(io);
  timer.expires_after(ticks(2000.5, tick));  // may complete up to tick 4001
  wait_record record;
  timer.async_wait(record_into(record));
  advance_in_steps(io, ticks(1990, tick), tick);
  BOOST_TEST_REQUIRE(record.calls == 0);
  // 11 ticks from now, 1 tick later than before: a window of 11 ticks, ending at 2013.
  BOOST_TEST(timer.reschedule_after(ticks(11.5, tick)) == 1u);
  BOOST_TEST(timer.tolerance().count() == ticks(11, tick).count());
  advance_in_steps(io, ticks(40, tick), tick);
  BOOST_TEST(record.succeeded_once());
  BOOST_TEST((record.completed_at >= start + ticks(2001.5, tick)));
  BOOST_TEST((record.completed_at <= start + ticks(2001.5 + 11 + 1, tick)));
}

BOOST_AUTO_TEST_CASE(an_extended_wait_keeps_its_tolerance_and_its_window)
{
  // The window of an extended wait is [extension, extension + tolerance + one tick]; the
  // tolerance stays what the expiry set: the timer's own, or the context's fraction.
  {
    const auto start = align_clock_to(tick);
    asio::io_context io;
    auto options = make_options(tick, 8);
    options.tolerance = 1.0 / 4;
    install_service(io, options);
    manual_timer timer(io);
    timer.expires_after(
        ticks(100.5, tick));  // 25 ticks under the context's quarter
    wait_record record;
    timer.async_wait(record_into(record));
    const auto extension = start + ticks(300.5, tick);
    timer.extend_at(extension);
    BOOST_TEST(timer.tolerance().count() == ticks(25, tick).count());
    advance_in_steps(io, ticks(300, tick), tick);
    BOOST_TEST(record.calls == 0, "completed before its extension");
    advance_in_steps(io, ticks(30, tick), tick);
    BOOST_TEST(record.succeeded_once());
    BOOST_TEST((record.completed_at >= extension));
    BOOST_TEST((record.completed_at <= extension + ticks(25 + 1, tick)));
  }
  // A smaller tolerance set after an extension re-files the wait for the extension's window,
  // not for the expiry's (which has passed).
  {
    const auto start = align_clock_to(tick);
    asio::io_context io;
    install_service(io, make_options(tick, 8));
    manual_timer timer(io);
    timer.tolerance(ticks(4096, tick));
    timer.expires_after(ticks(10.5, tick));
    wait_record record;
    timer.async_wait(record_into(record));
    const auto extension = start + ticks(100.5, tick);
    timer.extend_at(extension);
    advance_in_steps(io, ticks(50, tick), tick);
    BOOST_TEST_REQUIRE(record.calls == 0);
    timer.tolerance(ticks(2, tick));
    settle(io);
    BOOST_TEST(record.calls == 0,
        "a smaller tolerance completed a wait whose extension lies ahead");
    advance_in_steps(io, ticks(60, tick), tick);
    BOOST_TEST(record.succeeded_once());
    BOOST_TEST((record.completed_at >= extension));
    BOOST_TEST((record.completed_at <= extension + ticks(2 + 1, tick)));
  }
}

BOOST_AUTO_TEST_CASE(a_moved_timer_takes_its_tolerance_along)
{
  asio::io_context io;
  install_service(io, make_options(tick, 8));
  manual_timer from(io);
  from.tolerance(ticks(7, tick));
  manual_timer to(std::move(from));
  BOOST_TEST(to.tolerance().count() == ticks(7, tick).count());
  BOOST_TEST(from.tolerance().count() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
