//
// test/asio_wheel/detail/tick_grid.cpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// Unit tests of the tick arithmetic of the service: the grid origin + k * tick
// on a clock's time line and the conversions between time points and ticks.
// due_tick(t) is the first boundary at or after t (waiting for it is never
// early), tick_at(t) the last boundary at or before t, time_of(k) boundary k;
// all exact before the origin (negative ticks, for a clock that stepped back)
// and up to max_tick ticks either way, saturating beyond (ticks) and at the
// ends of the clock's range (time_of). Checked against exact 128-bit floor and
// ceiling divisions.
//

#define BOOST_TEST_MODULE tick_grid
#include <boost/test/unit_test.hpp>

#include <asio_wheel/detail/tick_grid.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <random>
#include <ratio>

using asio_wheel::detail::max_tick;
using asio_wheel::detail::never_tick;
using asio_wheel::detail::tick_grid;
using asio_wheel::detail::tick_type;

namespace {

// Clocks that tick_grid reads nothing but the types of: time points are made by hand.
template <typename Period>
struct test_clock
{
  using rep = std::int64_t;
  using period = Period;
  using duration = std::chrono::duration<rep, period>;
  using time_point = std::chrono::time_point<test_clock, duration>;
  static constexpr bool is_steady = false;
  static time_point now() noexcept { return time_point(); }
};

using ns_clock = test_clock<std::nano>;
using us_clock = test_clock<std::micro>;
using third_ms_clock = test_clock<std::ratio<1, 3000>>;  // not a power of ten

using i128 = __int128;

constexpr std::int64_t rep_max = (std::numeric_limits<std::int64_t>::max)();
constexpr std::int64_t rep_min = (std::numeric_limits<std::int64_t>::min)();

i128 floor_div(i128 a, i128 b)
{
  const i128 q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

i128 ceil_div(i128 a, i128 b)
{
  return -floor_div(-a, b);
}

template <typename Clock>
typename Clock::time_point at(std::int64_t count)
{
  return typename Clock::time_point(typename Clock::duration(count));
}

template <typename Clock>
std::int64_t count_of(typename Clock::time_point t)
{
  return t.time_since_epoch().count();
}

// The ticks of t on the grid (origin, tk) in clock units, as the header documents them: exact
// within max_tick ticks of the origin, saturating towards later beyond. due_tick is the
// ceiling, never_tick for time_point::max() and from max_tick ticks on, at least -max_tick;
// tick_at the floor, at most max_tick - 1 and at least -max_tick.
tick_type expected_due_tick(
    std::int64_t t, std::int64_t origin, std::int64_t tk)
{
  if (t == rep_max)
    return never_tick;
  const i128 k = ceil_div(i128(t) - origin, tk);
  if (k >= max_tick)
    return never_tick;
  if (k < -max_tick)
    return -max_tick;
  return static_cast<tick_type>(k);
}

tick_type expected_tick_at(std::int64_t t, std::int64_t origin, std::int64_t tk)
{
  const i128 k = floor_div(i128(t) - origin, tk);
  if (k >= max_tick)
    return max_tick - 1;
  if (k < -max_tick)
    return -max_tick;
  return static_cast<tick_type>(k);
}

// Boundary k, saturated at the clock's limits.
std::int64_t expected_time_of(tick_type k, std::int64_t origin, std::int64_t tk)
{
  const i128 t = i128(origin) + i128(k) * tk;
  if (t > rep_max)
    return rep_max;
  if (t < rep_min)
    return rep_min;
  return static_cast<std::int64_t>(t);
}

// Every property of one time point t on grid g (origin, tk in clock units), exactly.
template <typename Clock>
void check_point(const tick_grid<Clock>& g, std::int64_t origin,
    std::int64_t tk, std::int64_t t)
{
  const auto tp = at<Clock>(t);
  const tick_type due = g.due_tick(tp);
  const tick_type floor = g.tick_at(tp);
  BOOST_TEST_REQUIRE(due == expected_due_tick(t, origin, tk),
      "due_tick(" << t << ") with origin " << origin << " and tick " << tk);
  BOOST_TEST_REQUIRE(floor == expected_tick_at(t, origin, tk),
      "tick_at(" << t << ") with origin " << origin << " and tick " << tk);
  if (due != never_tick && due > -max_tick)  // not saturated
  {
    // Never early, and the first such boundary.
    BOOST_TEST_REQUIRE(
        count_of<Clock>(g.time_of(due)) >= t, "due_tick is early for " << t);
    if (count_of<Clock>(g.time_of(due - 1)) != rep_min)
      BOOST_TEST_REQUIRE(count_of<Clock>(g.time_of(due - 1)) < t,
          "due_tick is not the first boundary for " << t);
  }
  if (floor != max_tick - 1 && floor > -max_tick)  // not saturated
  {
    if (count_of<Clock>(g.time_of(floor)) != rep_min)
      BOOST_TEST_REQUIRE(
          count_of<Clock>(g.time_of(floor)) <= t, "tick_at is after " << t);
    if (count_of<Clock>(g.time_of(floor + 1)) != rep_max)
      BOOST_TEST_REQUIRE(count_of<Clock>(g.time_of(floor + 1)) > t,
          "tick_at is not the last boundary for " << t);
  }
  // On a boundary both agree; strictly inside a tick the ceiling is one more than the floor.
  BOOST_TEST_REQUIRE((due == floor || due == floor + 1 || due == never_tick
      || due == -max_tick || floor == max_tick - 1 || floor == -max_tick));
}

}  // namespace

BOOST_AUTO_TEST_CASE(
    due_tick_is_the_first_boundary_at_or_after_and_tick_at_the_last_at_or_before)
{
  // The origin off any round number, as the service's is (Clock::now() when it was made).
  const std::int64_t origin = 1'000'000'000'000'123'457;
  const std::int64_t tk = 1000;
  const tick_grid<ns_clock> g(
      std::chrono::nanoseconds(tk), at<ns_clock>(origin));
  // Every clock unit of five ticks either side of the origin: boundaries, their neighbours,
  // the insides of ticks, positive and negative.
  for (std::int64_t t = origin - 5 * tk; t <= origin + 5 * tk; ++t)
    check_point(g, origin, tk, t);

  BOOST_TEST(g.due_tick(at<ns_clock>(origin)) == 0);
  BOOST_TEST(g.tick_at(at<ns_clock>(origin)) == 0);
  BOOST_TEST(g.due_tick(at<ns_clock>(origin + 1)) == 1);
  BOOST_TEST(g.tick_at(at<ns_clock>(origin + 1)) == 0);
  BOOST_TEST(g.due_tick(at<ns_clock>(origin + tk)) == 1);
  BOOST_TEST(g.tick_at(at<ns_clock>(origin + tk - 1)) == 0);
  BOOST_TEST(g.tick_at(at<ns_clock>(origin + tk)) == 1);
  BOOST_TEST(g.due_tick(at<ns_clock>(origin + tk + 1)) == 2);
  BOOST_TEST(count_of<ns_clock>(g.time_of(0)) == origin);
  BOOST_TEST(count_of<ns_clock>(g.time_of(3)) == origin + 3 * tk);
}

BOOST_AUTO_TEST_CASE(times_before_the_origin_have_exact_negative_ticks)
{
  const std::int64_t origin = 1'000'000'000'000'123'457;
  const std::int64_t tk = 1000;
  const tick_grid<ns_clock> g(
      std::chrono::nanoseconds(tk), at<ns_clock>(origin));
  // One clock unit before the origin: inside tick -1, whose end is the origin.
  BOOST_TEST(g.due_tick(at<ns_clock>(origin - 1)) == 0);
  BOOST_TEST(g.tick_at(at<ns_clock>(origin - 1)) == -1);
  // On boundary -1 and either side of it.
  BOOST_TEST(g.due_tick(at<ns_clock>(origin - tk + 1)) == 0);
  BOOST_TEST(g.tick_at(at<ns_clock>(origin - tk + 1)) == -1);
  BOOST_TEST(g.due_tick(at<ns_clock>(origin - tk)) == -1);
  BOOST_TEST(g.tick_at(at<ns_clock>(origin - tk)) == -1);
  BOOST_TEST(g.due_tick(at<ns_clock>(origin - tk - 1)) == -1);
  BOOST_TEST(g.tick_at(at<ns_clock>(origin - tk - 1)) == -2);
  // Far before: a year of 1 us ticks.
  const std::int64_t year = 365LL * 24 * 3600 * 1'000'000;
  BOOST_TEST(g.due_tick(at<ns_clock>(origin - year * tk)) == -year);
  BOOST_TEST(g.tick_at(at<ns_clock>(origin - year * tk)) == -year);
  BOOST_TEST(g.due_tick(at<ns_clock>(origin - year * tk - 1)) == -year);
  BOOST_TEST(g.tick_at(at<ns_clock>(origin - year * tk - 1)) == -year - 1);
  BOOST_TEST(g.due_tick(at<ns_clock>(origin - year * tk + 1)) == -year + 1);
  // time_of is exact there too, and the conversions round-trip on every boundary.
  for (tick_type k = -2000; k <= 2000; ++k)
  {
    const auto b = g.time_of(k);
    BOOST_TEST_REQUIRE(count_of<ns_clock>(b) == origin + k * tk);
    BOOST_TEST_REQUIRE(g.due_tick(b) == k);
    BOOST_TEST_REQUIRE(g.tick_at(b) == k);
  }
  BOOST_TEST(count_of<ns_clock>(g.time_of(-year)) == origin - year * tk);

  // An origin before the clock's epoch (negative counts) changes nothing.
  const std::int64_t neg_origin = -777'777'777'777;
  const tick_grid<ns_clock> n(
      std::chrono::nanoseconds(tk), at<ns_clock>(neg_origin));
  for (std::int64_t t = neg_origin - 3 * tk; t <= neg_origin + 3 * tk; ++t)
    check_point(n, neg_origin, tk, t);
  for (std::int64_t t = -3 * tk; t <= 3 * tk;
       ++t)  // around the epoch, far after the origin
    check_point(n, neg_origin, tk, t);
}

BOOST_AUTO_TEST_CASE(ends_of_the_clock_saturate)
{
  const auto tmax = (ns_clock::time_point::max)();
  const auto tmin = (ns_clock::time_point::min)();
  const std::int64_t origin = 1'000'000'000'000'123'457;

  // 1 ms ticks: the whole range of the clock lies within max_tick ticks of the origin, so
  // everything but time_point::max() itself is exact.
  {
    const std::int64_t tk = 1'000'000;
    const tick_grid<ns_clock> g(
        std::chrono::nanoseconds(tk), at<ns_clock>(origin));
    BOOST_TEST(
        g.due_tick(tmax) == never_tick, "time_point::max() is never due");
    BOOST_TEST(g.tick_at(tmax) == expected_tick_at(rep_max, origin, tk));
    check_point(g, origin, tk, rep_max - 1);
    check_point(g, origin, tk, rep_min);
    check_point(g, origin, tk, rep_min + 1);
    BOOST_TEST(g.due_tick(tmin)
        == static_cast<tick_type>(ceil_div(i128(rep_min) - origin, tk)));
    BOOST_TEST(g.due_tick(tmin) < 0);
    BOOST_TEST((g.time_of(g.due_tick(tmin)) >= tmin));
    // The boundary before time_point::min() does not exist: time_of saturates there.
    BOOST_TEST((g.time_of(g.tick_at(tmin)) == tmin));
    BOOST_TEST((g.time_of(never_tick) == tmax));
    BOOST_TEST((g.time_of(never_tick - 1) == tmax));
    BOOST_TEST((g.time_of(-never_tick) == tmin));
    BOOST_TEST((g.time_of((std::numeric_limits<tick_type>::min)()) == tmin));
    // The last boundaries inside the range are exact, the next ones saturate.
    const auto kmax =
        static_cast<tick_type>(floor_div(i128(rep_max) - origin, tk));
    const auto kmin =
        static_cast<tick_type>(ceil_div(i128(rep_min) - origin, tk));
    BOOST_TEST(count_of<ns_clock>(g.time_of(kmax)) == origin + kmax * tk);
    BOOST_TEST((g.time_of(kmax + 1) == tmax));
    BOOST_TEST(count_of<ns_clock>(g.time_of(kmin))
        == expected_time_of(kmin, origin, tk));
    BOOST_TEST(count_of<ns_clock>(g.time_of(kmin)) > rep_min);
    BOOST_TEST((g.time_of(kmin - 1) == tmin));
    BOOST_TEST(g.due_tick(g.time_of(kmax)) == kmax);
    BOOST_TEST(g.due_tick(g.time_of(kmin)) == kmin);
  }

  // 1 ns ticks: max_tick ticks (2^59 ns, 18 years) either way of the origin are exact; beyond,
  // the ticks saturate towards later (a due tick there is late, never early): due_tick at
  // never_tick (never due) after the origin and at -max_tick before it, tick_at at
  // max_tick - 1 and -max_tick.
  {
    const tick_grid<ns_clock> g(
        std::chrono::nanoseconds(1), at<ns_clock>(origin));
    BOOST_TEST(g.due_tick(at<ns_clock>(origin + max_tick - 1)) == max_tick - 1);
    BOOST_TEST(g.tick_at(at<ns_clock>(origin + max_tick - 1)) == max_tick - 1);
    BOOST_TEST(g.due_tick(at<ns_clock>(origin + max_tick)) == never_tick);
    BOOST_TEST(g.tick_at(at<ns_clock>(origin + max_tick)) == max_tick - 1);
    BOOST_TEST(g.due_tick(at<ns_clock>(origin - max_tick)) == -max_tick);
    BOOST_TEST(g.tick_at(at<ns_clock>(origin - max_tick)) == -max_tick);
    BOOST_TEST(
        g.due_tick(at<ns_clock>(origin - max_tick + 1)) == -max_tick + 1);
    BOOST_TEST(g.tick_at(at<ns_clock>(origin - max_tick + 1)) == -max_tick + 1);
    BOOST_TEST(g.due_tick(at<ns_clock>(origin - max_tick - 1)) == -max_tick);
    BOOST_TEST(g.tick_at(at<ns_clock>(origin - max_tick - 1)) == -max_tick);
    for (const std::int64_t d :
        {max_tick - 2, max_tick - 1, max_tick, max_tick + 1})
    {
      check_point(g, origin, 1, origin + d);
      check_point(g, origin, 1, origin - d);
    }
    BOOST_TEST(g.due_tick(tmax) == never_tick);
    BOOST_TEST(g.tick_at(tmax) == max_tick - 1);
    BOOST_TEST(g.due_tick(tmin) == -max_tick);
    BOOST_TEST(g.tick_at(tmin) == -max_tick);
    BOOST_TEST((g.time_of(g.due_tick(tmin)) >= tmin));
    check_point(g, origin, 1, rep_min);
    check_point(g, origin, 1, rep_max - 1);
    // time_of is exact wherever the clock can hold the boundary, whatever the wheel's ticks.
    BOOST_TEST(count_of<ns_clock>(g.time_of(max_tick)) == origin + max_tick);
    BOOST_TEST(count_of<ns_clock>(g.time_of(rep_max - origin)) == rep_max);
    BOOST_TEST((g.time_of(rep_max - origin + 1) == tmax));
    BOOST_TEST((g.time_of(never_tick) == tmax));
  }

  // The same from an origin before the epoch.
  {
    const std::int64_t neg_origin = -origin;
    const tick_grid<ns_clock> g(
        std::chrono::nanoseconds(1), at<ns_clock>(neg_origin));
    BOOST_TEST(g.due_tick(tmax) == never_tick);
    BOOST_TEST(g.tick_at(tmax) == max_tick - 1);
    BOOST_TEST(g.due_tick(at<ns_clock>(rep_max - 1)) == never_tick);
    BOOST_TEST(g.tick_at(at<ns_clock>(rep_max - 1)) == max_tick - 1);
    check_point(g, neg_origin, 1, rep_max - 1);
    check_point(g, neg_origin, 1, rep_min);
    BOOST_TEST(g.due_tick(tmin) == -max_tick);
    // Boundary never_tick - 1 still lies inside the clock's range here: exact, not max().
    BOOST_TEST(count_of<ns_clock>(g.time_of(never_tick - 1))
        == neg_origin + (never_tick - 1));
    BOOST_TEST((g.time_of(-never_tick) == tmin));
    BOOST_TEST(count_of<ns_clock>(g.time_of(rep_min - neg_origin)) == rep_min);
    BOOST_TEST((g.time_of(rep_min - neg_origin - 1) == tmin));
  }
}

BOOST_AUTO_TEST_CASE(random_points_over_the_whole_range_match_exact_division)
{
  auto clamp = [](i128 c) {
    return c > rep_max ? rep_max
        : c < rep_min  ? rep_min
                       : static_cast<std::int64_t>(c);
  };
  std::mt19937_64 rng(20240601);
  const std::int64_t ticks[] = {
      1, 7, 1000, 1'000'000, 999'999'937, 3'600'000'000'000};
  const std::int64_t origins[] = {1'000'000'000'000'123'457,
      -1'000'000'000'000'123'457, 0, rep_max - 5, rep_min + 5};
  for (const std::int64_t origin : origins)
    for (const std::int64_t tk : ticks)
    {
      const tick_grid<ns_clock> g(
          std::chrono::nanoseconds(tk), at<ns_clock>(origin));
      for (int i = 0; i < 2000; ++i)
      {
        std::int64_t t;
        switch (i % 4)
        {
        case 0:
          t = static_cast<std::int64_t>(rng());
          break;  // anywhere
        case 1:
          t = clamp(
              i128(origin) + static_cast<std::int64_t>(rng() % 2001) - 1000);
          break;
        case 2:  // on a boundary not far from the origin, or next to one
        {
          const auto k = static_cast<std::int64_t>(rng() % 2001) - 1000;
          t = clamp(i128(origin) + i128(k) * tk
              + static_cast<std::int64_t>(rng() % 3) - 1);
          break;
        }
        default:
          t = rng() % 2 ? rep_max - static_cast<std::int64_t>(rng() % 3)
                        : rep_min + static_cast<std::int64_t>(rng() % 3);
        }
        check_point(g, origin, tk, t);
      }
      for (int i = 0; i < 200; ++i)
      {
        const auto k = static_cast<tick_type>(rng());
        BOOST_TEST_REQUIRE(
            count_of<ns_clock>(g.time_of(k)) == expected_time_of(k, origin, tk),
            "time_of(" << k << ") with origin " << origin << " and tick "
                       << tk);
      }
    }
}

// at_or_before_due(k, t), reschedule's check without a division, is k <= due_tick(t) wherever
// due_tick is exact; where due_tick saturates (beyond max_tick ticks before the origin) it may
// only say false, which costs reschedule the exact path.
BOOST_AUTO_TEST_CASE(at_or_before_due_agrees_with_due_tick)
{
  std::mt19937_64 rng(20261128);
  const std::int64_t ticks[] = {
      1, 7, 1000, 1'000'000, 999'999'937, 3'600'000'000'000};
  const std::int64_t origins[] = {1'000'000'000'000'123'457,
      -1'000'000'000'000'123'457, 0, rep_max - 5, rep_min + 5};
  for (const std::int64_t origin : origins)
    for (const std::int64_t tk : ticks)
    {
      const tick_grid<ns_clock> g(
          std::chrono::nanoseconds(tk), at<ns_clock>(origin));
      for (int i = 0; i < 4000; ++i)
      {
        // A point anywhere, near the origin, or on a boundary near it, and a filed tick at,
        // next to, or far from its due tick.
        std::int64_t t = static_cast<std::int64_t>(rng());
        if (i % 3 == 1)
          t = static_cast<std::int64_t>(std::max<i128>(rep_min,
              std::min<i128>(rep_max,
                  i128(origin)
                      + i128(static_cast<std::int64_t>(rng() % 41) - 20) * tk
                      + static_cast<std::int64_t>(rng() % 3) - 1)));
        const tick_type due = g.due_tick(at<ns_clock>(t));
        tick_type k;
        switch (i % 4)
        {
        case 0:
          k = due;
          break;
        case 1:
          k = due == never_tick ? max_tick : due + 1;
          break;
        case 2:
          k = due == never_tick ? max_tick - 1 : due - 1;
          break;
        default:
          k = static_cast<tick_type>(
                  rng() % (2 * static_cast<std::uint64_t>(max_tick) + 1))
              - max_tick;
        }
        k = std::max(-max_tick, std::min(max_tick, k));
        const bool got = g.at_or_before_due(k, at<ns_clock>(t));
        const bool saturated = due == -max_tick;
        if (saturated)
          BOOST_TEST_REQUIRE((!got || k <= due));
        else
          BOOST_TEST_REQUIRE(got == (k <= due),
              "at_or_before_due(" << k << ", " << t << ") with origin "
                                  << origin << " and tick " << tk
                                  << ": due_tick is " << due);
      }
    }
}

// The tick is rounded up to the clock's resolution: a grid of whole clock units, never finer
// than asked (waiting for a boundary is still never early), at least one unit.
BOOST_AUTO_TEST_CASE(
    a_tick_that_is_not_a_multiple_of_the_clock_unit_is_rounded_up)
{
  const std::int64_t origin = 1'000'000'000'123;  // microseconds
  const tick_grid<us_clock> g(
      std::chrono::nanoseconds(1500), at<us_clock>(origin));  // 2 us
  BOOST_TEST(count_of<us_clock>(g.time_of(1)) == origin + 2);
  BOOST_TEST(count_of<us_clock>(g.time_of(-3)) == origin - 6);
  BOOST_TEST(g.due_tick(at<us_clock>(origin + 1)) == 1);
  BOOST_TEST(g.tick_at(at<us_clock>(origin + 3)) == 1);
  BOOST_TEST(g.due_tick(at<us_clock>(origin - 1)) == 0);
  BOOST_TEST(g.tick_at(at<us_clock>(origin - 1)) == -1);
  BOOST_TEST(g.due_tick(at<us_clock>(origin - 3)) == -1);
  BOOST_TEST(g.tick_at(at<us_clock>(origin - 3)) == -2);
  for (std::int64_t t = origin - 20; t <= origin + 20; ++t)
    check_point(g, origin, 2, t);

  const tick_grid<us_clock> one(
      std::chrono::nanoseconds(1), at<us_clock>(origin));  // 1 us
  BOOST_TEST(count_of<us_clock>(one.time_of(5)) == origin + 5);
  for (std::int64_t t = origin - 5; t <= origin + 5; ++t)
    check_point(one, origin, 1, t);

  const tick_grid<us_clock> exact(
      std::chrono::nanoseconds(3000), at<us_clock>(origin));  // 3 us
  for (std::int64_t t = origin - 10; t <= origin + 10; ++t)
    check_point(exact, origin, 3, t);

  // A period that is not a power of ten: 1/3 ms units; 1.1 ms is 3.3 units, rounded to 4.
  const tick_grid<third_ms_clock> third(
      std::chrono::microseconds(1100), at<third_ms_clock>(7));
  BOOST_TEST(count_of<third_ms_clock>(third.time_of(1)) == 7 + 4);
  for (std::int64_t t = 7 - 13; t <= 7 + 13; ++t)
    check_point(third, 7, 4, t);
  const tick_grid<third_ms_clock> whole(
      std::chrono::milliseconds(1), at<third_ms_clock>(7));
  BOOST_TEST(count_of<third_ms_clock>(whole.time_of(-2)) == 7 - 6);
}

// ticks_in: whole ticks, rounded down, so that a tolerance never grows; nothing for d <= 0.
BOOST_AUTO_TEST_CASE(ticks_in_a_duration_round_down_and_saturate)
{
  const tick_grid<us_clock> g(
      std::chrono::nanoseconds(3000), at<us_clock>(0));  // 3 us
  BOOST_TEST(g.ticks_in(us_clock::duration(0)) == 0);
  BOOST_TEST(g.ticks_in(us_clock::duration(-7)) == 0);
  BOOST_TEST(g.ticks_in(us_clock::duration(2)) == 0);
  BOOST_TEST(g.ticks_in(us_clock::duration(3)) == 1);
  BOOST_TEST(g.ticks_in(us_clock::duration(8)) == 2);
  const tick_grid<us_clock> one(
      std::chrono::nanoseconds(1), at<us_clock>(0));  // 1 us
  BOOST_TEST(one.ticks_in((us_clock::duration::max)()) == max_tick);
}

// coalesced_tick(due, slack): the tick in [due, due + slack] that is a multiple of the largest
// power of two 2^k <= slack + 1, for every due (negative too) and slack; due itself for slack
// 0; never beyond max_tick's reach.
BOOST_AUTO_TEST_CASE(coalesced_tick_lies_in_the_window_on_the_coarsest_step)
{
  using asio_wheel::detail::coalesced_tick;
  BOOST_TEST(coalesced_tick(9, 0) == 9);
  BOOST_TEST(coalesced_tick(9, 5) == 12);  // step 4
  BOOST_TEST(coalesced_tick(10, 5) == 12);
  BOOST_TEST(coalesced_tick(13, 5) == 16);
  BOOST_TEST(coalesced_tick(9, 40) == 32);  // step 32
  BOOST_TEST(coalesced_tick(33, 40) == 64);
  BOOST_TEST(coalesced_tick(64, 40) == 64);  // already on the step
  BOOST_TEST(coalesced_tick(-5, 3) == -4);  // step 4, towards later
  BOOST_TEST(coalesced_tick(-4, 3) == -4);
  BOOST_TEST(coalesced_tick(never_tick, 1000) == never_tick);
  BOOST_TEST(
      coalesced_tick(max_tick - 3, 1000) == max_tick - 3, "no room: precise");

  std::mt19937_64 random(11);
  for (int i = 0; i < 200000; ++i)
  {
    const tick_type due =
        static_cast<tick_type>(random() % (std::uint64_t(1) << 40))
        - (tick_type(1) << 39);
    const tick_type slack =
        static_cast<tick_type>(random() % (std::uint64_t(1) << (i % 40)));
    const tick_type c = coalesced_tick(due, slack);
    BOOST_TEST_REQUIRE(c >= due);
    BOOST_TEST_REQUIRE(c <= due + slack);
    tick_type step = 1;
    while (step * 2 <= slack + 1)
      step *= 2;
    BOOST_TEST_REQUIRE(
        ((c % step) + step) % step == 0, "due " << due << " slack " << slack);
    // The coarsest: a multiple of twice the step beyond the window would not do.
    BOOST_TEST_REQUIRE(c - due < step);
  }
}
