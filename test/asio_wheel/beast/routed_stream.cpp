// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// What a wheel_executor changes in Beast's own basic_stream: nothing of its behaviour (the
// suite's shared cases run on routed_family too), only where its timers are. Since Beast 1.81
// (ASIO_WHEEL_TEST_BEAST_STREAM_TIMERS_ROUTED, stream_suite.hpp) the timers of its operations
// and of its rate policy are basic_waitable_timers of its executor, so on a wheel_executor
// they are wheel timers, which wheel_stats counts; before 1.81 they are steady_timers, and the
// wheel sees none of them.
#include "stream_suite.hpp"

#include <array>
#include <cstdint>

using namespace beast_suite;

namespace {

// Routed: the wheel saw @p routed_count of something, not routed: none of it.
void check_routed(
    std::uint64_t seen, std::uint64_t routed_count, const char* what)
{
#if defined(ASIO_WHEEL_TEST_BEAST_STREAM_TIMERS_ROUTED)
  BOOST_TEST(seen == routed_count,
      what << ": the wheel saw " << seen << ", expected " << routed_count);
#else
  (void)routed_count;
  BOOST_TEST(seen == 0u,
      what << ": Beast " << BOOST_BEAST_VERSION
           << " does not route this timer, but the wheel saw " << seen);
#endif
}

}  // namespace

BOOST_AUTO_TEST_SUITE(routed_stream)

// An operation's timeout: a pending wait in the wheel while the read is pending, an expiry in
// the wheel when it times out.
BOOST_AUTO_TEST_CASE(operation_timeouts_are_wheel_waits)
{
  net::io_context ioc;
  routed_family::tcp_stream s(ioc);
  tcp::socket peer = connect_pair(ioc, s);
  std::array<char, 16> buf;
  const asio_wheel::wheel_stats before = wheel_stats_of(ioc);
  result r;
  s.expires_after(100ms);
  s.async_read_some(net::buffer(buf), r.handler());
  check_routed(wheel_stats_of(ioc).pending_waits - before.pending_waits, 1,
      "pending waits during a timed read");
  run_until(ioc, r.done);
  BOOST_TEST(r.ec == timeout_ec, r.ec.message());
  check_routed(wheel_stats_of(ioc).waits_expired - before.waits_expired, 1,
      "expiries after a read timed out");
}

// The rate policy's one-second slices: a wait in the wheel while an operation waits for its
// next slice.
BOOST_AUTO_TEST_CASE(rate_policy_timer_is_a_wheel_timer)
{
  net::io_context ioc;
  routed_family::stream<net::any_io_executor, bb::simple_rate_policy> s(ioc);
  tcp::socket peer = connect_pair(ioc, s);
  s.rate_policy().read_limit(4);
  net::write(peer, net::buffer("0123456789", 10));
  std::array<char, 16> buf;
  const asio_wheel::wheel_stats before = wheel_stats_of(ioc);
  result first;
  s.async_read_some(net::buffer(buf), first.handler());
  run_until(ioc, first.done);
  result second;
  s.async_read_some(net::buffer(buf), second.handler());
  run_until(ioc, second.done);
  BOOST_TEST(!second.ec, second.ec.message());
  // The second read waited for the next slice: at least one expiry of the rate timer.
  const std::uint64_t expired =
      wheel_stats_of(ioc).waits_expired - before.waits_expired;
#if defined(ASIO_WHEEL_TEST_BEAST_STREAM_TIMERS_ROUTED)
  BOOST_TEST(expired >= 1u, "the rate timer's slices are not in the wheel");
#else
  check_routed(expired, 0, "rate timer expiries");
#endif
  s.close();
  run_for(ioc, 20ms);
}

BOOST_AUTO_TEST_SUITE_END()
