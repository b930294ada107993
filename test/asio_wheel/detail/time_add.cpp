//
// test/asio_wheel/detail/time_add.cpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// detail::add_saturated (include/asio_wheel/detail/time_add.hpp), the now + d of the refreshes:
// the same result as Asio's chrono_time_traits::add for every pair of edge values (the clock's
// min and max, either side of them and of the epoch, zero), on steady_clock, system_clock, a
// clock of 32-bit ticks and one of double seconds (Asio's add itself, the representation not
// being integral).
//
// Part of asio_wheel_service_test (test/asio_wheel/CMakeLists.txt), so that every matrix leg
// runs it against its Asio's add.
#include "../wheel_test_support.hpp"

#include <asio_wheel/detail/time_add.hpp>

#include <chrono>
#include <cstdint>
#include <limits>
#include <ratio>
#include <vector>

using namespace asio_wheel_test;

namespace {

template <typename Rep>
struct rep_clock
{
  using rep = Rep;
  using period = std::milli;
  using duration = std::chrono::duration<rep, period>;
  using time_point = std::chrono::time_point<rep_clock>;
  static constexpr bool is_steady = true;
  static time_point now() noexcept { return time_point(); }
};

// Edge values of Rep: its min and max, one inside each, either side of zero, the middle.
template <typename Rep>
std::vector<Rep> edges()
{
  using limits = std::numeric_limits<Rep>;
  const Rep lo = limits::lowest(), hi = (limits::max)();
  return {lo, Rep(lo + 1), Rep(lo / 2), Rep(-2), Rep(-1), Rep(0), Rep(1),
      Rep(2), Rep(hi / 2), Rep(hi / 2 + 1), Rep(hi - 1), hi};
}

template <typename Clock>
void same_as_asio()
{
  using traits =
      asio_wheel::detail::chrono_time_traits<Clock, asio::wait_traits<Clock>>;
  using time_point = typename traits::time_type;
  using duration = typename traits::duration_type;
  using rep = typename duration::rep;
  for (const rep t : edges<rep>())
    for (const rep d : edges<rep>())
    {
      const time_point at{duration(t)};
      const time_point ours =
          asio_wheel::detail::add_saturated<traits>(at, duration(d));
      const time_point asios = traits::add(at, duration(d));
      BOOST_TEST_REQUIRE(
          ours.time_since_epoch().count() == asios.time_since_epoch().count(),
          "t " << t << " d " << d);
    }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(time_add)

BOOST_AUTO_TEST_CASE(saturates_as_asio_does_on_steady_clock)
{
  same_as_asio<std::chrono::steady_clock>();
}

BOOST_AUTO_TEST_CASE(saturates_as_asio_does_on_system_clock)
{
  same_as_asio<std::chrono::system_clock>();
}

BOOST_AUTO_TEST_CASE(saturates_as_asio_does_on_32_bit_ticks)
{
  same_as_asio<rep_clock<std::int32_t>>();
}

BOOST_AUTO_TEST_CASE(takes_asio_s_add_for_a_floating_point_clock)
{
  same_as_asio<rep_clock<double>>();
}

BOOST_AUTO_TEST_SUITE_END()
