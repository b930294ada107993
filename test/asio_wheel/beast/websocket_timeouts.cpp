// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// Beast's websocket::stream's own timeouts (stream_base::timeout: the handshake timeout, the
// idle timeout with and without keep-alive pings, the close handshake's timeout), on Beast's
// basic_stream (the reference, which proves each test right) and on Beast's basic_stream over
// an asio_wheel::wheel_executor, where, since Beast 1.82, the websocket's timer is a wheel
// timer (ASIO_WHEEL_TEST_BEAST_WEBSOCKET_TIMER_ROUTED, stream_suite.hpp). Real loopback
// sockets and real timeouts of 100-200 ms: each timeout must complete with Beast's error code,
// never before its time (measured from just before the operation that arms it) and at most a
// tick of the wheel plus scheduling after it (late_bound). Each case asserts through
// wheel_stats where the timer was: in the wheel on a wheel_executor (Beast 1.82 and later), in
// Asio's timer queue otherwise (Beast 1.81 and older: the websocket's own timer is a
// steady_timer whatever the executor, and is not routed).
#include "stream_suite.hpp"

#include <boost/beast/websocket.hpp>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

using namespace beast_suite;
namespace websocket = bb::websocket;

namespace {

using websocket_families = boost::mpl::list<beast_family, routed_family>;
using clock_type = std::chrono::steady_clock;

// How late a timeout may complete: a tick of the wheel (1 ms by default) plus the event
// loop's scheduling on a shared machine (100 ms, what the chat examples' load clients allow).
constexpr auto late_bound = 1ms + 100ms;

// Whether F's websocket timer is a wheel timer in the Beast compiled against.
template <class F>
constexpr bool websocket_timer_routed()
{
#if defined(ASIO_WHEEL_TEST_BEAST_WEBSOCKET_TIMER_ROUTED)
  return std::is_same_v<F, routed_family>;
#else
  return false;
#endif
}

// The timer fired in the wheel (at least @p fired times) exactly where it is routed, and the
// wheel saw nothing where it is not.
template <class F>
void check_where_the_timer_was(net::io_context& ioc,
    const asio_wheel::wheel_stats& before, std::uint64_t fired)
{
  const asio_wheel::wheel_stats after = wheel_stats_of(ioc);
  const std::uint64_t expired = after.waits_expired - before.waits_expired;
  if constexpr (websocket_timer_routed<F>())
  {
    BOOST_TEST(expired >= fired,
        "the websocket's timer is routed, but the wheel saw "
            << expired << " of its expiries, not at least " << fired);
  }
  else
  {
    BOOST_TEST(expired == 0u,
        "the websocket's timer is not routed here, but the wheel saw "
            << expired << " expiries");
    BOOST_TEST_MESSAGE("the websocket's timer is a steady_timer here "
                       "(BOOST_BEAST_VERSION "
        << BOOST_BEAST_VERSION << ")");
  }
}

// The time from @p start to now, checked against [timeout, timeout + late_bound].
void check_on_time(clock_type::time_point start, clock_type::duration timeout,
    const char* what)
{
  const auto elapsed = clock_type::now() - start;
  const auto ms = [](clock_type::duration d) {
    return std::chrono::duration<double, std::milli>(d).count();
  };
  BOOST_TEST((elapsed >= timeout),
      what << ": early, after " << ms(elapsed) << " ms of " << ms(timeout));
  BOOST_TEST((elapsed <= timeout + late_bound),
      what << ": late, after " << ms(elapsed) << " ms of " << ms(timeout)
           << " (bound " << ms(timeout + late_bound) << " ms)");
}

websocket::stream_base::timeout timeout_option(
    clock_type::duration handshake, clock_type::duration idle, bool pings)
{
  websocket::stream_base::timeout t;
  t.handshake_timeout = handshake;
  t.idle_timeout = idle;
  t.keep_alive_pings = pings;
  return t;
}

const clock_type::duration none = websocket::stream_base::none();

// A server and a client websocket over loopback, the handshake done (in time, no timeouts
// set yet).
template <class F>
struct upgraded_pair
{
  explicit upgraded_pair(net::io_context& ioc) : server(ioc), client(ioc)
  {
    tcp::socket peer = connect_pair(ioc, bb::get_lowest_layer(server));
    bb::get_lowest_layer(client).socket() = std::move(peer);
    bool accepted = false, handshaken = false;
    server.async_accept(done_handler([&](error_code ec) {
      BOOST_TEST(!ec, ec.message());
      accepted = true;
    }));
    client.async_handshake("127.0.0.1", "/", done_handler([&](error_code ec) {
      BOOST_TEST(!ec, ec.message());
      handshaken = true;
    }));
    run_until(ioc, accepted);
    run_until(ioc, handshaken);
  }

  websocket::stream<typename F::tcp_stream> server, client;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(websocket_timeouts)

// A client that connects and never sends its upgrade request: the server's accept fails with
// timeout after the handshake timeout.
BOOST_AUTO_TEST_CASE_TEMPLATE(
    handshake_timeout_fails_a_silent_client, F, websocket_families)
{
  net::io_context ioc;
  websocket::stream<typename F::tcp_stream> server(ioc);
  tcp::socket client = connect_pair(ioc, bb::get_lowest_layer(server));
  const clock_type::duration handshake = 100ms;
  server.set_option(timeout_option(handshake, none, false));
  const asio_wheel::wheel_stats before = wheel_stats_of(ioc);
  result r;
  const auto start = clock_type::now();
  server.async_accept(done_handler([&](error_code ec) {
    r.done = true;
    r.ec = ec;
    check_on_time(start, handshake, "handshake timeout");
  }));
  run_until(ioc, r.done);
  BOOST_TEST(r.ec == timeout_ec, r.ec.message());
  BOOST_TEST(!bb::get_lowest_layer(server).socket().is_open());
  check_where_the_timer_was<F>(ioc, before, 1);
}

// Idle timeout without pings: a peer that sends nothing is closed with timeout after it.
BOOST_AUTO_TEST_CASE_TEMPLATE(
    idle_timeout_without_pings_closes_a_silent_peer, F, websocket_families)
{
  net::io_context ioc;
  upgraded_pair<F> pair(ioc);
  const clock_type::duration idle = 200ms;
  pair.server.set_option(timeout_option(5s, idle, false));
  const asio_wheel::wheel_stats before = wheel_stats_of(ioc);
  bb::flat_buffer buf;
  result r;
  const auto start = clock_type::now();
  pair.server.async_read(buf, io_handler([&](error_code ec, std::size_t) {
    r.done = true;
    r.ec = ec;
    check_on_time(start, idle, "idle timeout");
  }));
  run_until(ioc, r.done);
  BOOST_TEST(r.ec == timeout_ec, r.ec.message());
  BOOST_TEST(!bb::get_lowest_layer(pair.server).socket().is_open());
  check_where_the_timer_was<F>(ioc, before, 1);
}

// Idle timeout with keep-alive pings, a peer that reads (and so answers each ping with a
// pong): a ping arrives at half the idle time, then every half idle time, and the connection
// outlives several idle timeouts; a message still gets through at the end.
BOOST_AUTO_TEST_CASE_TEMPLATE(
    keep_alive_pings_at_half_the_idle_time_pongs_keep_the_connection, F,
    websocket_families)
{
  net::io_context ioc;
  upgraded_pair<F> pair(ioc);
  const clock_type::duration idle = 200ms;
  pair.server.set_option(timeout_option(5s, idle, true));
  std::vector<clock_type::time_point> pings;
  pair.client.control_callback(
      [&](websocket::frame_type kind, bb::string_view) {
        if (kind == websocket::frame_type::ping)
          pings.push_back(clock_type::now());
      });
  bb::flat_buffer client_buf;
  result client_read;
  pair.client.async_read(client_buf, client_read.handler());

  const asio_wheel::wheel_stats before = wheel_stats_of(ioc);
  bb::flat_buffer server_buf;
  result server_read;
  const auto start = clock_type::now();
  pair.server.async_read(server_buf, server_read.handler());
  // Three idle timeouts and a bit.
  run_for(ioc,
      std::chrono::duration_cast<std::chrono::milliseconds>(
          3 * idle + idle / 4));
  BOOST_TEST(!server_read.done,
      "the server's read ended though the peer answered every ping: "
          << server_read.ec.message());
  BOOST_TEST(bb::get_lowest_layer(pair.server).socket().is_open());
  BOOST_TEST_REQUIRE(pings.size() >= 5u,
      "the peer received " << pings.size() << " pings in 3.25 idle timeouts");
  // The first at half the idle time after the read started, as Beast arms it.
  const auto first = pings.front() - start;
  const double first_ms =
      std::chrono::duration_cast<std::chrono::microseconds>(first).count()
      / 1000.0;
  BOOST_TEST((first >= idle / 2),
      "first ping after " << first_ms << " ms, before half the idle time");
  BOOST_TEST((first <= idle / 2 + late_bound),
      "first ping after " << first_ms << " ms, late");

  // A message gets through: the connection is alive.
  pair.client.async_write(net::buffer(std::string("still here")),
      io_handler(
          [](error_code ec, std::size_t) { BOOST_TEST(!ec, ec.message()); }));
  run_until(ioc, server_read.done);
  BOOST_TEST(!server_read.ec, server_read.ec.message());
  BOOST_TEST(bb::buffers_to_string(server_buf.data()) == "still here");
  check_where_the_timer_was<F>(ioc, before, 5);
  bb::close_socket(bb::get_lowest_layer(pair.client));
  run_until(ioc, client_read.done);
}

// Idle timeout with keep-alive pings, a peer that does not read: the ping sent at half the
// idle time goes unanswered, and the connection is closed with timeout at the idle time.
BOOST_AUTO_TEST_CASE_TEMPLATE(
    keep_alive_pings_unanswered_close_the_connection_at_the_idle_time, F,
    websocket_families)
{
  net::io_context ioc;
  upgraded_pair<F> pair(ioc);
  const clock_type::duration idle = 200ms;
  pair.server.set_option(timeout_option(5s, idle, true));
  const asio_wheel::wheel_stats before = wheel_stats_of(ioc);
  bb::flat_buffer buf;
  result r;
  const auto start = clock_type::now();
  pair.server.async_read(buf, io_handler([&](error_code ec, std::size_t) {
    r.done = true;
    r.ec = ec;
    check_on_time(start, idle, "idle timeout with pings");
  }));
  run_until(ioc, r.done);
  BOOST_TEST(r.ec == timeout_ec, r.ec.message());
  BOOST_TEST(!bb::get_lowest_layer(pair.server).socket().is_open());
  // The ping reached the peer's socket (2 bytes of frame header, no payload), unread.
  error_code ec;
  const std::size_t waiting =
      bb::get_lowest_layer(pair.client).socket().available(ec);
  BOOST_TEST(waiting >= 2u, "no ping reached the silent peer");
  check_where_the_timer_was<F>(ioc, before, 2);  // the ping's and the close's
}

// The close handshake's timeout (the handshake timeout, applied while closing): a peer that
// never answers the close frame; the close completes with timeout.
BOOST_AUTO_TEST_CASE_TEMPLATE(
    close_handshake_times_out_when_the_peer_is_silent, F, websocket_families)
{
  net::io_context ioc;
  upgraded_pair<F> pair(ioc);
  const clock_type::duration handshake = 100ms;
  pair.server.set_option(timeout_option(handshake, none, false));
  const asio_wheel::wheel_stats before = wheel_stats_of(ioc);
  result r;
  const auto start = clock_type::now();
  pair.server.async_close(
      websocket::close_code::normal, done_handler([&](error_code ec) {
        r.done = true;
        r.ec = ec;
        check_on_time(start, handshake, "close timeout");
      }));
  run_until(ioc, r.done);
  BOOST_TEST(r.ec == timeout_ec, r.ec.message());
  BOOST_TEST(!bb::get_lowest_layer(pair.server).socket().is_open());
  check_where_the_timer_was<F>(ioc, before, 1);
}

BOOST_AUTO_TEST_SUITE_END()
