// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// Shared scaffolding of the Beast stream suite: the stream families every test
// is instantiated for (boost::beast::basic_stream, which proves each test
// right, asio_wheel::beast::basic_stream, which proves the drop-in, and
// boost::beast::basic_stream on an asio_wheel::wheel_executor, Beast's own
// stream with its timers routed to the wheel), which of Beast's timers a
// wheel_executor routes in the Beast compiled against, and helpers over real
// loopback sockets (127.0.0.1, ephemeral ports).
//
// Timing: Beast's stream times with the real steady_clock, so the suite uses
// small real timeouts (50-300 ms) and asserts only on error codes and the
// order of events, never on how long something took. Every run is bounded
// with run_for so that nothing hangs.
#ifndef ASIO_WHEEL_TEST_ASIO_WHEEL_BEAST_STREAM_SUITE_HPP
#define ASIO_WHEEL_TEST_ASIO_WHEEL_BEAST_STREAM_SUITE_HPP

#include <asio_wheel/beast.hpp>
#include <asio_wheel/wheel_executor.hpp>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/version.hpp>
#include <boost/mpl/list.hpp>
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace beast_suite {

namespace net = boost::asio;
namespace bb = boost::beast;
using tcp = net::ip::tcp;
using error_code = boost::system::error_code;
using namespace std::chrono_literals;

/// boost::beast::basic_stream: the reference.
struct beast_family
{
  template <class Executor = net::any_io_executor,
      class RatePolicy = bb::unlimited_rate_policy>
  using stream = bb::basic_stream<tcp, Executor, RatePolicy>;
  using tcp_stream = bb::tcp_stream;
  static constexpr bool is_wheel = false;
};

/// asio_wheel::beast::basic_stream: the drop-in.
struct wheel_family
{
  template <class Executor = net::any_io_executor,
      class RatePolicy = bb::unlimited_rate_policy>
  using stream = asio_wheel::beast::basic_stream<tcp, Executor, RatePolicy>;
  using tcp_stream = asio_wheel::beast::tcp_stream;
  static constexpr bool is_wheel = true;
};

/// boost::beast::basic_stream on a wheel_executor: Beast's own stream, whose
/// timers are routed to the wheel (asio_wheel/wheel_executor.hpp) where their
/// type follows the executor's (ASIO_WHEEL_TEST_BEAST_STREAM_TIMERS_ROUTED).
/// Beast's semantics, so is_wheel is false.
struct routed_family
{
  template <class Executor = net::any_io_executor,
      class RatePolicy = bb::unlimited_rate_policy>
  using stream =
      bb::basic_stream<tcp, asio_wheel::wheel_executor<Executor>, RatePolicy>;
  using tcp_stream = stream<>;
  static constexpr bool is_wheel = false;
};

// Which of Beast's own timers follow their I/O executor's type, and so are
// wheel timers on a wheel_executor: basic_stream's (its operations' and its
// rate policy's) since Beast 1.81 (BOOST_BEAST_VERSION 345, its commit
// 1fc34071; before, net::steady_timer), websocket::stream's since Beast 1.82
// (347, commit 334b9871, PR #2603: steady_timer::rebind_executor<NextLayer's
// executor_type>::other; before, net::steady_timer, whatever the executor).
#if BOOST_BEAST_VERSION >= 345
# define ASIO_WHEEL_TEST_BEAST_STREAM_TIMERS_ROUTED 1
#endif
#if BOOST_BEAST_VERSION >= 347
# define ASIO_WHEEL_TEST_BEAST_WEBSOCKET_TIMER_ROUTED 1
#endif

// The families every shared case runs on. Before Beast 1.81 Beast's own stream keeps
// steady_timers whatever its executor, so a routed_family there would run beast_family's
// cases again on the same timers: it is left out (the executor itself is tested in every
// leg, test/asio_wheel/wheel_executor.cpp), which keeps the older legs' builds smaller.
#if defined(ASIO_WHEEL_TEST_BEAST_STREAM_TIMERS_ROUTED)
using families = boost::mpl::list<beast_family, wheel_family, routed_family>;
#else
using families = boost::mpl::list<beast_family, wheel_family>;
#endif

/// The wheel service whose stats tell which waits the wheel saw (the
/// context's steady_clock service: a routed timer's, asio_wheel::wheel_timer's).
using steady_wheel_service =
    asio_wheel::wheel_timer_service<std::chrono::steady_clock>;

/// The wheel's stats of @p ioc's steady_clock service, zero if it has none.
inline asio_wheel::wheel_stats wheel_stats_of(net::io_context& ioc)
{
  if (!net::has_service<steady_wheel_service>(ioc))
    return asio_wheel::wheel_stats();
  return net::use_service<steady_wheel_service>(ioc).stats();
}

/// An acceptor on 127.0.0.1, ephemeral port.
inline tcp::acceptor make_acceptor(net::io_context& ioc, int backlog = 16)
{
  tcp::acceptor acc(ioc);
  const tcp::endpoint ep(net::ip::make_address("127.0.0.1"), 0);
  acc.open(ep.protocol());
  acc.set_option(tcp::acceptor::reuse_address(true));
  acc.bind(ep);
  acc.listen(backlog);
  return acc;
}

/// Connects @p stream's socket to a fresh peer socket (blocking), returned.
template <class Stream>
tcp::socket connect_pair(net::io_context& ioc, Stream& stream)
{
  tcp::acceptor acc = make_acceptor(ioc);
  stream.socket().connect(acc.local_endpoint());
  tcp::socket peer(ioc);
  acc.accept(peer);
  return peer;
}

/// Runs @p ioc until @p done is true or @p limit elapsed; reports a hang.
inline bool run_until(net::io_context& ioc, const bool& done,
    std::chrono::milliseconds limit = 5000ms)
{
  const auto end = std::chrono::steady_clock::now() + limit;
  while (!done && std::chrono::steady_clock::now() < end)
  {
    if (ioc.stopped())
      ioc.restart();
    ioc.run_for(10ms);
  }
  BOOST_TEST(done, "an operation did not complete in time (hang?)");
  return done;
}

/// Runs @p ioc for @p d (lets pending things happen).
inline void run_for(net::io_context& ioc, std::chrono::milliseconds d)
{
  const auto end = std::chrono::steady_clock::now() + d;
  while (std::chrono::steady_clock::now() < end)
  {
    if (ioc.stopped())
      ioc.restart();
    ioc.run_for(5ms);
  }
}

/// Calls @p f after @p d on @p ioc (a plain steady_timer: test scaffolding).
inline void after(
    net::io_context& ioc, std::chrono::milliseconds d, std::function<void()> f)
{
  auto t = std::make_shared<net::steady_timer>(ioc, d);
  t->async_wait([t, f = std::move(f)](error_code) { f(); });
}

/// The suite's completion handlers, one type per completion signature. Beast's composed
/// operations (websocket's and HTTP's above all) are templates of their handler's type: a
/// lambda per call compiled a copy of the whole operation per call and per stream family,
/// which made these sources the longest of the test command to compile; wrapped in these,
/// each operation compiles once per family (websocket.cpp with clang 14 at -O0: 86 s of
/// CPU with a lambda per call, 49 s so).
using done_handler = std::function<void(error_code)>;
using io_handler = std::function<void(error_code, std::size_t)>;

/// One completion: whether it ran, its error and byte count.
struct result
{
  bool done = false;
  error_code ec;
  std::size_t n = 0;

  auto handler()
  {
    return [this](error_code e, std::size_t bytes = 0) {
      BOOST_TEST(!done, "a handler ran twice");
      done = true;
      ec = e;
      n = bytes;
    };
  }
};

inline const error_code timeout_ec = bb::error::timeout;

}  // namespace beast_suite

#endif  // ASIO_WHEEL_TEST_ASIO_WHEEL_BEAST_STREAM_SUITE_HPP
