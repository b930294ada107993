//
// asio_wheel/detail/time_add.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// A time plus a duration, saturating at the clock's min and max exactly as
// Asio's chrono_time_traits::add does, in fewer instructions: the refreshes
// (expires_after, reschedule_after, extend_after) compute now + d on every
// input, and extend_after is meant to cost what the expert's idiom costs
// there, a clock read and a store. Asio's add compares against max - t (or
// t - min) before it adds; for an integral representation the add's own
// overflow flag gives the same result (__builtin_add_overflow, where the
// compiler has it). Other representations take Asio's add.
//

#ifndef ASIO_WHEEL_DETAIL_TIME_ADD_HPP
#define ASIO_WHEEL_DETAIL_TIME_ADD_HPP

#include <asio_wheel/detail/config.hpp>

#include <type_traits>

ASIO_WHEEL_NAMESPACE_BEGIN
namespace detail {

/// TimeTraits::add(@p t, @p d) (Asio's chrono_time_traits): t + d, or the
/// clock's max (min) where that would be beyond it.
template <typename TimeTraits>
inline typename TimeTraits::time_type add_saturated(
    const typename TimeTraits::time_type& t,
    const typename TimeTraits::duration_type& d)
{
#if defined(__GNUC__) || defined(__clang__)
  using time_type = typename TimeTraits::time_type;
  using duration_type = typename TimeTraits::duration_type;
  using rep = typename duration_type::rep;
  if constexpr (
      std::is_integral_v<
          rep> && std::is_same_v<typename time_type::duration, duration_type>)
  {
    rep sum;
    if (!__builtin_add_overflow(t.time_since_epoch().count(), d.count(), &sum))
      return time_type(duration_type(sum));
    // Only a positive d goes past max, only a negative one past min.
    return d.count() > 0 ? (time_type::max)() : (time_type::min)();
  }
#endif
  return TimeTraits::add(t, d);
}

}  // namespace detail
ASIO_WHEEL_NAMESPACE_END

#endif  // ASIO_WHEEL_DETAIL_TIME_ADD_HPP
