// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// What only asio_wheel::beast::basic_stream promises: its timeouts are
// entries of the context's wheel (wheel_stats counts them; no timer of the
// reactor is involved), and arming and withdrawing one allocates nothing.
#include "stream_suite.hpp"

#include "../../allocation_faults.hpp"

#include <asio_wheel/wheel_timer.hpp>

#include <array>
#include <atomic>
#include <memory>
#include <stdexcept>

// The global allocations of this program while counting.
using allocation_faults::allocations;
using allocation_faults::counting;

using namespace beast_suite;
using service_type = asio_wheel::wheel_timer_service<std::chrono::steady_clock>;

BOOST_AUTO_TEST_SUITE(wheel_only)

BOOST_AUTO_TEST_CASE(timeouts_are_wheel_entries)
{
  net::io_context ioc;
  asio_wheel::beast::tcp_stream s(ioc);
  tcp::socket peer = connect_pair(ioc, s);
  auto& service = net::use_service<service_type>(ioc);
  const asio_wheel::wheel_stats before = service.stats();
  std::array<char, 16> buf;

  // Pending: one wait in the wheel.
  result r;
  s.expires_after(10s);
  s.async_read_some(net::buffer(buf), r.handler());
  BOOST_TEST(service.stats().pending_waits == before.pending_waits + 1);
  BOOST_TEST(service.stats().timers_in_wheel == before.timers_in_wheel + 1);
  net::write(peer, net::buffer("a", 1));
  run_until(ioc, r.done);
  BOOST_TEST(!r.ec);

  // Completed in time: withdrawn, no completion of its own.
  const asio_wheel::wheel_stats after = service.stats();
  BOOST_TEST(after.pending_waits == before.pending_waits);
  BOOST_TEST(after.timeouts_withdrawn == before.timeouts_withdrawn + 1);
  BOOST_TEST(after.waits_expired == before.waits_expired);
  BOOST_TEST(after.waits_cancelled == before.waits_cancelled);

  // Many reads and writes: each withdraws its timeout.
  for (int i = 0; i < 50; ++i)
  {
    result w, rd;
    s.expires_after(10s);
    s.async_write_some(net::buffer("b", 1), w.handler());
    run_until(ioc, w.done);
    net::write(peer, net::buffer("c", 1));
    s.async_read_some(net::buffer(buf), rd.handler());
    run_until(ioc, rd.done);
    BOOST_TEST(!w.ec);
    BOOST_TEST(!rd.ec);
  }
  BOOST_TEST(
      service.stats().timeouts_withdrawn == before.timeouts_withdrawn + 101);
  BOOST_TEST(service.stats().pending_waits == before.pending_waits);

  // A timeout that fires is an expired wait.
  result t;
  s.expires_after(30ms);
  s.async_read_some(net::buffer(buf), t.handler());
  run_until(ioc, t.done);
  BOOST_TEST(t.ec == timeout_ec, t.ec.message());
  BOOST_TEST(service.stats().waits_expired == before.waits_expired + 1);
  BOOST_TEST(service.stats().pending_waits == before.pending_waits);
}

// A steady stream of reads with a timeout allocates no more than the same
// reads without one: arming and withdrawing a timeout allocates nothing.
BOOST_AUTO_TEST_CASE(no_allocation_per_timeout)
{
  net::io_context ioc(1);
  asio_wheel::beast::tcp_stream s(ioc);
  tcp::socket peer = connect_pair(ioc, s);
  std::array<char, 16> buf;

  auto run_reads = [&](bool timed, int count) {
    for (int i = 0; i < count; ++i)
    {
      if (timed)
        s.expires_after(10s);
      else
        s.expires_never();
      net::write(peer, net::buffer("d", 1));
      // The last read left no work: the context stopped.
      ioc.restart();
      bool done = false;
      // A plain lambda, not the suite's io_handler: what is counted here is
      // the stream's allocations, not std::function's.
      s.async_read_some(net::buffer(buf), [&](error_code ec, std::size_t) {
        BOOST_TEST(!ec);
        done = true;
      });
      while (!done)
        ioc.run_one();
    }
  };
  // Warm up Asio's per-thread recycling caches and the wheel.
  run_reads(true, 20);
  run_reads(false, 20);

  allocations = 0;
  counting = true;
  run_reads(false, 200);
  counting = false;
  const std::size_t untimed = allocations.load();

  allocations = 0;
  counting = true;
  run_reads(true, 200);
  counting = false;
  const std::size_t timed = allocations.load();

  BOOST_TEST_MESSAGE(
      "allocations for 200 reads: untimed " << untimed << ", timed " << timed);
  BOOST_TEST(timed <= untimed);
}

// The stream finds its service once, in the context of its executor, and
// uses the one of that context with the options it was made with.
BOOST_AUTO_TEST_CASE(uses_the_context_service)
{
  net::io_context ioc;
  asio_wheel::wheel_options opts;
  opts.tick = std::chrono::milliseconds(5);
  auto& service = net::make_service<service_type>(ioc, opts);
  asio_wheel::beast::tcp_stream s(net::make_strand(ioc));
  tcp::socket peer = connect_pair(ioc, s);
  std::array<char, 16> buf;
  result r;
  s.expires_after(30ms);
  s.async_read_some(net::buffer(buf), r.handler());
  BOOST_TEST(service.stats().pending_waits == 1u);
  run_until(ioc, r.done);
  BOOST_TEST(r.ec == timeout_ec, r.ec.message());
  BOOST_TEST(service.stats().waits_expired == 1u);
}

// A stream's timeouts take its own tolerance (tolerance()), or the context's fraction of their
// length (wheel_options::tolerance): never early, never later than expiry + tolerance + a tick
// (plus the loop's delay, here up to 100 ms of a loaded machine), and timeouts whose windows
// overlap complete in shared wakeups.
BOOST_AUTO_TEST_CASE(timeouts_keep_the_streams_or_the_contexts_tolerance)
{
  using clock = std::chrono::steady_clock;
  constexpr auto loop_delay = 100ms;
  for (const bool own : {true, false})
  {
    net::io_context ioc;
    asio_wheel::wheel_options opts;
    opts.tolerance =
        own ? 0.0 : 1.0;  // with 1, a timeout may be up to its length late
    auto& service = net::make_service<service_type>(ioc, opts);
    constexpr int n = 6;
    std::array<std::unique_ptr<asio_wheel::beast::tcp_stream>, n> streams;
    std::array<tcp::socket, n> peers{tcp::socket(ioc), tcp::socket(ioc),
        tcp::socket(ioc), tcp::socket(ioc), tcp::socket(ioc), tcp::socket(ioc)};
    std::array<result, n> results;
    std::array<clock::time_point, n> expiry, fired;
    std::array<char, 16> buf;
    for (int i = 0; i < n; ++i)
    {
      streams[i] = std::make_unique<asio_wheel::beast::tcp_stream>(ioc);
      peers[i] = connect_pair(ioc, *streams[i]);
      if (own)
        streams[i]->tolerance(150ms);
      const auto length = 60ms + i * 5ms;
      expiry[i] = clock::now() + length;
      streams[i]->expires_after(length);
      streams[i]->async_read_some(
          net::buffer(buf), io_handler([&, i](error_code ec, std::size_t) {
            fired[i] = clock::now();
            results[i].ec = ec;
            results[i].done = true;
          }));
    }
    for (int i = 0; i < n; ++i)
      run_until(ioc, results[i].done);
    for (int i = 0; i < n; ++i)
    {
      const auto tolerance = own ? 150ms : 60ms + i * 5ms;
      BOOST_TEST_REQUIRE(results[i].done);
      BOOST_TEST(results[i].ec == timeout_ec, results[i].ec.message());
      BOOST_TEST((fired[i] >= expiry[i]), "stream " << i << " timed out early");
      BOOST_TEST((fired[i] <= expiry[i] + tolerance + 1ms + loop_delay),
          "stream " << i << " timed out " << (fired[i] - expiry[i]) / 1ms
                    << " ms after its expiry");
    }
    BOOST_TEST(service.stats().waits_expired == std::uint64_t(n));
    BOOST_TEST(
        service.stats().wakeups_saved >= 1u, "no timeout shared a wakeup");
  }
  net::io_context ioc;
  asio_wheel::beast::tcp_stream s(ioc);
  BOOST_CHECK_THROW(s.tolerance(-1ms), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
