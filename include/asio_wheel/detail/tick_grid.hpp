//
// asio_wheel/detail/tick_grid.hpp
//
// The tick arithmetic of a wheel_timer_service: the grid of tick boundaries
// origin + k * tick on a Clock's time line, and the conversions between time
// points and ticks. Waiting for due_tick(t) is never early; time_of(k) is the
// time the drive timer is armed for. Exact over the whole range of the
// clock's representation: far expiries (time_point::max(), a wait of years)
// saturate instead of overflowing. No Asio here.
//

#ifndef ASIO_WHEEL_DETAIL_TICK_GRID_HPP
#define ASIO_WHEEL_DETAIL_TICK_GRID_HPP

#include <asio_wheel/detail/config.hpp>
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
    : tick_(to_clock_tick(tick)), origin_(origin)
  {
  }

  /// The first tick boundary at or after t: waiting for it is never early.
  /// Times before the origin have negative ticks (a clock that is not
  /// steady can step back there); the far ends saturate, towards later.
  tick_type due_tick(const time_point& t) const noexcept
  {
    if (t == (time_point::max)())
      return never_tick;  // never due: never arms the drive timer
    const urep tk = static_cast<urep>(tick_.count());
    if (t < origin_)
      return -saturate(before(t) / tk);  // ceil(-d / tk) == -floor(d / tk)
    const urep diff = elapsed(t);
    urep q = diff / tk;
    if (q * tk != diff)
      ++q;
    return q >= static_cast<urep>(max_tick)
      ? never_tick : static_cast<tick_type>(q);
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
    return q >= static_cast<urep>(max_tick)
      ? max_tick - 1 : static_cast<tick_type>(q);
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
    return q >= static_cast<urep>(max_tick)
      ? max_tick : static_cast<tick_type>(q);
  }

  const duration tick_;
  const time_point origin_;
};

} // namespace detail
ASIO_WHEEL_NAMESPACE_END

#endif // ASIO_WHEEL_DETAIL_TICK_GRID_HPP
