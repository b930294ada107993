//
// asio_wheel/detail/tick_grid.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The tick arithmetic of a wheel_timer_service: the grid of tick boundaries
// origin + k * tick on a Clock's time line, and the conversions between time
// points and ticks. Waiting for due_tick(t) is never early; time_of(k) is the
// deadline the reactor is given for tick k; coalesced_tick() is where a wait with a
// tolerance completes. Exact over the whole range of the
// clock's representation: far expiries (time_point::max(), a wait of years)
// saturate instead of overflowing. No Asio here.
//

#ifndef ASIO_WHEEL_DETAIL_TICK_GRID_HPP
#define ASIO_WHEEL_DETAIL_TICK_GRID_HPP

#include <asio_wheel/detail/config.hpp>
#include <asio_wheel/detail/bits.hpp>
#include <asio_wheel/detail/timing_wheel.hpp>

#include <algorithm>
#include <chrono>
#include <limits>
#include <type_traits>

ASIO_WHEEL_NAMESPACE_BEGIN
namespace detail {

template <typename Clock>
class tick_grid
{
public:
  using duration = typename Clock::duration;
  using time_point = typename Clock::time_point;

  static_assert(std::is_integral<typename duration::rep>::value,
      "the wheel counts ticks in the clock's integral representation");

  /// Tick 0 is @p origin; a tick is @p tick rounded up to the clock's
  /// resolution (at least one clock unit).
  tick_grid(std::chrono::nanoseconds tick, time_point origin) noexcept
    : tick_(to_clock_tick(tick)), origin_(origin),
      most_ticks_(~urep(0) / static_cast<urep>(tick_.count()))
  {}

  /// The first tick boundary at or after t: waiting for it is never early.
  /// Times before the origin have negative ticks (a clock that is not
  /// steady can step back there); the far ends saturate, towards later.
  tick_type due_tick(const time_point& t) const noexcept
  {
    if (t == (time_point::max)())
      return never_tick;  // never due: gives the reactor no deadline
    const urep tk = static_cast<urep>(tick_.count());
    if (t < origin_)
      return -saturate(before(t) / tk);  // ceil(-d / tk) == -floor(d / tk)
    const urep diff = elapsed(t);
    urep q = diff / tk;
    if (q * tk != diff)
      ++q;
    return q >= static_cast<urep>(max_tick) ? never_tick
                                            : static_cast<tick_type>(q);
  }

  /// The last tick boundary at or before t. Exact while t lies within
  /// max_tick ticks of the origin either way (2^59 ticks: 18 years of 1 ns
  /// ticks, 18 million years of 1 ms ticks); beyond that it saturates, the
  /// wheel's ticks ending there.
  tick_type tick_at(const time_point& t) const noexcept
  {
    const urep tk = static_cast<urep>(tick_.count());
    if (t < origin_)
    {
      const urep d = before(t);
      return -saturate(d / tk + (d % tk != 0 ? 1 : 0));
    }
    const urep q = elapsed(t) / tk;
    return q >= static_cast<urep>(max_tick) ? max_tick - 1
                                            : static_cast<tick_type>(q);
  }

  /// Whether tick @p k is at or before due_tick(t): time_of(k - 1) < t,
  /// exact over the whole range, with a multiplication and no division (for
  /// a check on the path of every reschedule).
  bool at_or_before_due(tick_type k, const time_point& t) const noexcept
  {
    if (t == (time_point::max)())
      return true;  // due at never_tick
    const urep tk = static_cast<urep>(tick_.count());
    const tick_type m = k - 1;
    if (t >= origin_)
    {
      // origin + m * tick < t
      if (m < 0)
        return true;
      const urep um = static_cast<urep>(m);
      return um <= most_ticks_ && um * tk < elapsed(t);
    }
    // origin - |m| * tick < t, t before the origin: m < 0 and |m| * tick >
    // origin - t.
    if (m >= 0)
      return false;
    const urep back = static_cast<urep>(-(m + 1)) + 1;  // -m, for any m < 0
    return back > most_ticks_ || back * tk > before(t);
  }

  /// Whole ticks in @p d, rounded down (a tolerance never grows by the
  /// rounding); 0 for d <= 0, saturated at max_tick.
  tick_type ticks_in(const duration& d) const noexcept
  {
    if (d <= duration::zero())
      return 0;
    const urep q =
        static_cast<urep>(d.count()) / static_cast<urep>(tick_.count());
    return q >= static_cast<urep>(max_tick) ? max_tick
                                            : static_cast<tick_type>(q);
  }

  /// The time of tick boundary k, saturated at the clock's limits.
  time_point time_of(tick_type k) const noexcept
  {
    // In the unsigned type, where origin_ +- k * tick cannot overflow
    // before the range check says it leaves rep.
    const urep tk = static_cast<urep>(tick_.count());
    const urep origin = static_cast<urep>(origin_.time_since_epoch().count());
    urep t;
    if (k >= 0)
    {
      const urep room =
          static_cast<urep>((std::numeric_limits<rep>::max)()) - origin;
      if (static_cast<urep>(k) > room / tk)
        return (time_point::max)();
      t = origin + static_cast<urep>(k) * tk;
    }
    else
    {
      const urep room =
          origin - static_cast<urep>((std::numeric_limits<rep>::min)());
      const urep back = static_cast<urep>(-(k + 1)) + 1;  // -k, for any k < 0
      if (back > room / tk)
        return (time_point::min)();
      t = origin - back * tk;
    }
    return time_point(duration(static_cast<rep>(t)));
  }

private:
  using rep = typename duration::rep;
  using urep = std::make_unsigned_t<rep>;

  static duration to_clock_tick(std::chrono::nanoseconds tick) noexcept
  {
    const duration d = std::chrono::ceil<duration>(tick);
    return d > duration::zero() ? d : duration(1);
  }

  // t - origin_ for t >= origin_, and origin_ - t for t < origin_: exact
  // over the whole range of rep (the difference of two signed values always
  // fits the unsigned type).
  urep elapsed(const time_point& t) const noexcept
  {
    return static_cast<urep>(t.time_since_epoch().count())
        - static_cast<urep>(origin_.time_since_epoch().count());
  }

  urep before(const time_point& t) const noexcept
  {
    return static_cast<urep>(origin_.time_since_epoch().count())
        - static_cast<urep>(t.time_since_epoch().count());
  }

  // A count of ticks before the origin, capped at the wheel's far end.
  static tick_type saturate(urep q) noexcept
  {
    return q >= static_cast<urep>(max_tick) ? max_tick
                                            : static_cast<tick_type>(q);
  }

  const duration tick_;
  const time_point origin_;
  const urep most_ticks_;  // the most ticks whose length fits in urep
};

/// How many ticks late a timer's waits may complete (its tolerance), and
/// whose setting that is. The timer's own (basic_wheel_timer::tolerance)
/// holds until changed. Otherwise it is the context's fraction of the wait's
/// length (wheel_options::tolerance), which is fixed when the expiry is set:
/// the tick a pending wait is due at must not move earlier as time passes,
/// or an entry would be filed later than it is due. 0: precise.
class timer_slack
{
public:
  tick_type ticks() const noexcept { return v_ < 0 ? -(v_ + 1) : v_; }
  bool own() const noexcept { return v_ < 0; }
  void set_own(tick_type ticks) noexcept { v_ = -ticks - 1; }
  void set_from_context(tick_type ticks) noexcept { v_ = ticks; }

private:
  tick_type v_ = 0;  // ticks, or -(ticks + 1) for the timer's own setting
};

/// Where a wait due at tick @p due that may be up to @p slack ticks late
/// completes: the tick in [due, due + slack] that is a multiple of the
/// largest power of two it can be, 2^k <= slack + 1. Waits whose windows
/// overlap mostly land on the same tick, so they share a wakeup, and the
/// coarser the tick, the more of them do; one that lands on the first tick
/// of an upper level's block leaves the wheel from that level's slot without
/// moving down (see timing_wheel). slack 0 is the precise tick, due itself.
inline tick_type coalesced_tick(tick_type due, tick_type slack) noexcept
{
  if (slack <= 0 || due >= max_tick - slack)
    return due;  // precise; or far beyond the wheel's ticks anyway
  const tick_type step = tick_type(1)
      << highest_bit(static_cast<std::uint64_t>(slack) + 1);
  // Rounds up to a multiple of step, for negative ticks too (two's
  // complement: & -step rounds towards minus infinity).
  return (due + step - 1) & -step;
}

}  // namespace detail
ASIO_WHEEL_NAMESPACE_END

#endif  // ASIO_WHEEL_DETAIL_TICK_GRID_HPP
