// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// The stream's timeout semantics, on Beast's basic_stream and on ours:
// read, write and connect timeouts, expires_never, which operations an expiry
// applies to, a timeout that elapsed before the operation, cancel, close, an
// operation completing in time, the rate policy, and the io_context destroyed
// with timeouts pending. Where Beast's semantics changed between the releases
// the suite runs on (1.81, 1.87, 1.90), a case says so and checks the Beast it
// is compiled with (BOOST_BEAST_VERSION).
#define BOOST_TEST_MODULE asio_wheel beast stream
#include "stream_suite.hpp"

#include <boost/beast/version.hpp>

#include <array>
#include <memory>
#include <thread>

using namespace beast_suite;

BOOST_AUTO_TEST_SUITE(timeouts)

BOOST_AUTO_TEST_CASE_TEMPLATE(
    read_timeout_closes_and_reports_timeout, F, families)
{
  net::io_context ioc;
  typename F::tcp_stream s(ioc);
  tcp::socket peer = connect_pair(ioc, s);
  std::array<char, 64> buf;
  result r;
  s.expires_after(100ms);
  s.async_read_some(net::buffer(buf), r.handler());
  run_until(ioc, r.done);
  BOOST_TEST(r.ec == timeout_ec, r.ec.message());
  BOOST_TEST(r.n == 0u);
  BOOST_TEST(!s.socket().is_open());
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    write_timeout_when_peer_does_not_read, F, families)
{
  net::io_context ioc;
  typename F::tcp_stream s(ioc);
  tcp::socket peer = connect_pair(ioc, s);
  s.socket().set_option(net::socket_base::send_buffer_size(4096));
  peer.set_option(net::socket_base::receive_buffer_size(4096));
  std::vector<char> chunk(64 * 1024, 'x');
  s.expires_after(200ms);  // applies to every write started from now on
  bool done = false;
  error_code last;
  std::size_t writes = 0;
  std::function<void()> write_more = [&] {
    s.async_write_some(
        net::buffer(chunk), io_handler([&](error_code ec, std::size_t) {
          ++writes;
          if (ec)
          {
            last = ec;
            done = true;
            return;
          }
          write_more();
        }));
  };
  write_more();
  run_until(ioc, done, 10000ms);
  BOOST_TEST(last == timeout_ec, last.message());
  BOOST_TEST(!s.socket().is_open());
  BOOST_TEST(writes >= 1u);
}

// The reference for "connect never completes": a listener whose accept queue
// is full (backlog 0, never accepting) drops further SYNs on Linux, so a
// connect to it stays pending until its timeout. If this kernel completes
// the connect anyway, the check is skipped with a message, not failed.
BOOST_AUTO_TEST_CASE_TEMPLATE(connect_timeout, F, families)
{
  net::io_context ioc;
  tcp::acceptor acc = make_acceptor(ioc, 0);
  const tcp::endpoint ep = acc.local_endpoint();
  // Fill the accept queue (each fill connect is left pending or connected).
  std::vector<std::unique_ptr<tcp::socket>> fill;
  for (int i = 0; i < 8; ++i)
  {
    fill.push_back(std::make_unique<tcp::socket>(ioc));
    fill.back()->async_connect(ep, done_handler([](error_code) {}));
  }
  run_for(ioc, 100ms);

  typename F::tcp_stream s(ioc);
  result r;
  s.expires_after(150ms);
  s.async_connect(ep, done_handler([&](error_code ec) {
    r.done = true;
    r.ec = ec;
  }));
  run_until(ioc, r.done);
  if (!r.ec)
  {
    BOOST_TEST_MESSAGE("connect completed despite a full accept queue: "
                       "connect timeout not checkable on this kernel");
    return;
  }
  BOOST_TEST(r.ec == timeout_ec, r.ec.message());
  BOOST_TEST(!s.socket().is_open());

  // The range form, with a connect condition, times out the same way.
  typename F::tcp_stream s2(ioc);
  bool done2 = false;
  error_code ec2;
  const std::vector<tcp::endpoint> eps{ep};
  int tried = 0;
  s2.expires_after(150ms);
  s2.async_connect(
      eps,
      [&](const error_code&, const tcp::endpoint&) {
        ++tried;
        return true;
      },
      [&](error_code ec, tcp::endpoint) {
        done2 = true;
        ec2 = ec;
      });
  run_until(ioc, done2);
  BOOST_TEST(ec2 == timeout_ec, ec2.message());
  BOOST_TEST(tried == 1);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(connect_overloads_in_time, F, families)
{
  net::io_context ioc;
  tcp::acceptor acc = make_acceptor(ioc);
  const tcp::endpoint ep = acc.local_endpoint();
  std::vector<tcp::socket> peers;
  std::function<void()> accept_more = [&] {
    acc.async_accept([&](error_code ec, tcp::socket p) {
      if (ec)
        return;
      peers.push_back(std::move(p));
      accept_more();
    });
  };
  accept_more();

  typename F::tcp_stream a(ioc), b(ioc), c(ioc);
  result ra;
  bool rb = false, rc = false;
  a.expires_after(5s);
  a.async_connect(ep, done_handler([&](error_code ec) {
    ra.done = true;
    ra.ec = ec;
  }));
  const std::vector<tcp::endpoint> eps{ep};
  b.expires_after(5s);
  b.async_connect(eps, [&](error_code ec, tcp::endpoint e) {
    BOOST_TEST(!ec);
    BOOST_TEST(e == ep);
    rb = true;
  });
  c.expires_after(5s);
  c.async_connect(eps.begin(), eps.end(),
      [&](error_code ec, std::vector<tcp::endpoint>::const_iterator it) {
        BOOST_TEST(!ec);
        BOOST_TEST((it == eps.begin()));
        rc = true;
      });
  run_until(ioc, ra.done);
  run_until(ioc, rb);
  run_until(ioc, rc);
  BOOST_TEST(!ra.ec, ra.ec.message());
  BOOST_TEST(a.socket().is_open());
  // A long run afterwards: the withdrawn timeouts close nothing.
  run_for(ioc, 50ms);
  BOOST_TEST(a.socket().is_open());
  BOOST_TEST(b.socket().is_open());
  BOOST_TEST(c.socket().is_open());

  // The blocking forms.
  typename F::tcp_stream d(ioc), e(ioc);
  d.connect(ep);
  BOOST_TEST(
      d.connect(eps) == ep);  // reconnecting an open socket: fine for a range
  error_code ec;
  e.connect(ep, ec);
  BOOST_TEST(!ec);
  acc.close();
  run_for(ioc, 20ms);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(expires_never_disables, F, families)
{
  net::io_context ioc;
  typename F::tcp_stream s(ioc);
  tcp::socket peer = connect_pair(ioc, s);
  s.expires_after(50ms);
  s.expires_never();
  std::array<char, 16> buf;
  result r;
  s.async_read_some(net::buffer(buf), r.handler());
  after(ioc, 250ms, [&] { net::write(peer, net::buffer("hello", 5)); });
  run_until(ioc, r.done);
  BOOST_TEST(!r.ec, r.ec.message());
  BOOST_TEST(r.n == 5u);
  BOOST_TEST(s.socket().is_open());
}

// An expiry set while a read is pending applies to the write started after
// it, not to the pending read.
BOOST_AUTO_TEST_CASE_TEMPLATE(
    expiry_applies_to_operations_started_after, F, families)
{
  net::io_context ioc;
  typename F::tcp_stream s(ioc);
  tcp::socket peer = connect_pair(ioc, s);
  std::array<char, 16> buf;
  result rd, wr;
  s.async_read_some(net::buffer(buf), rd.handler());  // no timeout
  s.expires_after(100ms);
  s.async_write_some(net::buffer("ping", 4), wr.handler());
  run_until(ioc, wr.done);
  BOOST_TEST(!wr.ec, wr.ec.message());
  // Well past the expiry: the pending read is not affected.
  run_for(ioc, 250ms);
  BOOST_TEST(!rd.done);
  BOOST_TEST(s.socket().is_open());
  net::write(peer, net::buffer("pong", 4));
  run_until(ioc, rd.done);
  BOOST_TEST(!rd.ec, rd.ec.message());
  BOOST_TEST(rd.n == 4u);
}

// The timeout elapsed while nothing was pending and was not set again: the
// next read times out at once (long before the peer writes).
BOOST_AUTO_TEST_CASE_TEMPLATE(timeout_already_elapsed, F, families)
{
  net::io_context ioc;
  typename F::tcp_stream s(ioc);
  tcp::socket peer = connect_pair(ioc, s);
  s.expires_after(30ms);
  run_for(ioc, 100ms);
  BOOST_TEST(s.socket().is_open());  // nothing was pending: nothing closed
  std::array<char, 16> buf;
  result r;
  bool peer_wrote = false;
  s.async_read_some(net::buffer(buf), r.handler());
  after(ioc, 3000ms, [&] {
    peer_wrote = true;
    error_code ec;
    net::write(peer, net::buffer("late", 4), ec);
  });
  run_until(ioc, r.done);
  BOOST_TEST(!peer_wrote);
  BOOST_TEST(r.ec == timeout_ec, r.ec.message());
  BOOST_TEST(!s.socket().is_open());
}

#if defined(ASIO_WHEEL_BEAST_ELAPSED_TIMEOUT_COMPLETES_AT_ONCE)
// Since Beast 354 (Boost 1.86, its commit 2dcdef38), an operation started after the timeout
// elapsed times out whatever it would have done: a read with data waiting, a write the socket
// has room for. It completes through the handler's immediate executor (by default, as if
// posted: never inside the initiating function), and the socket is closed. Before 354 only an
// operation on empty buffers did so at once (empty_buffers_with_elapsed_timeout); others
// raced the elapsed timer (timeout_already_elapsed waits for nothing).
BOOST_AUTO_TEST_CASE_TEMPLATE(
    operation_after_elapsed_timeout_times_out_at_once, F, families)
{
  {
    net::io_context ioc;
    typename F::tcp_stream s(ioc);
    tcp::socket peer = connect_pair(ioc, s);
    net::write(peer, net::buffer("ready", 5));
    s.expires_after(10ms);
    run_for(ioc, 60ms);
    BOOST_TEST(s.socket().is_open());  // nothing was pending: nothing closed
    std::array<char, 16> buf;
    result r;
    s.async_read_some(net::buffer(buf), r.handler());
    BOOST_TEST(!r.done);  // not inside the initiating function
    run_until(ioc, r.done);
    BOOST_TEST(r.ec == timeout_ec, r.ec.message());
    BOOST_TEST(r.n == 0u);
    BOOST_TEST(!s.socket().is_open());
  }
  {
    net::io_context ioc;
    typename F::tcp_stream s(ioc);
    tcp::socket peer = connect_pair(ioc, s);
    s.expires_at(std::chrono::steady_clock::now() - 1s);
    result w;
    s.async_write_some(net::buffer("late", 4), w.handler());
    BOOST_TEST(!w.done);
    run_until(ioc, w.done);
    BOOST_TEST(w.ec == timeout_ec, w.ec.message());
    BOOST_TEST(w.n == 0u);
    BOOST_TEST(!s.socket().is_open());
  }
  {
    // A handler with an immediate executor of its own, initiated from a handler running on
    // that executor: the completion is dispatched there, inside the initiating function.
    net::io_context ioc;
    typename F::tcp_stream s(ioc);
    tcp::socket peer = connect_pair(ioc, s);
    s.expires_at(std::chrono::steady_clock::now() - 1s);
    std::array<char, 16> buf;
    result r;
    bool inside = false;
    net::post(ioc, [&] {
      s.async_read_some(net::buffer(buf),
          net::bind_immediate_executor(ioc.get_executor(), r.handler()));
      inside = r.done;
    });
    run_until(ioc, r.done);
    BOOST_TEST(inside);
    BOOST_TEST(r.ec == timeout_ec, r.ec.message());
    BOOST_TEST(!s.socket().is_open());
  }
}
#endif

// The timeout covers every operation started after it: a logical operation
// of two reads times out as a whole.
BOOST_AUTO_TEST_CASE_TEMPLATE(timeout_spans_a_logical_operation, F, families)
{
  net::io_context ioc;
  typename F::tcp_stream s(ioc);
  tcp::socket peer = connect_pair(ioc, s);
  net::write(peer, net::buffer("abcd", 4));
  std::array<char, 16> buf;
  s.expires_after(150ms);
  result r1, r2;
  s.async_read_some(net::buffer(buf), r1.handler());
  run_until(ioc, r1.done);
  BOOST_TEST(!r1.ec);
  BOOST_TEST(r1.n == 4u);
  s.async_read_some(net::buffer(buf), r2.handler());
  run_until(ioc, r2.done);
  BOOST_TEST(r2.ec == timeout_ec, r2.ec.message());
}

// A stream made on a strand (its executor, any_io_executor, holds the strand)
// whose handlers have no executor of their own: the handler of a read that
// times out, and of one that completes, runs on that strand.
BOOST_AUTO_TEST_CASE_TEMPLATE(handlers_run_on_the_streams_strand, F, families)
{
  net::io_context ioc;
  const auto strand = net::make_strand(ioc);
  typename F::tcp_stream s(strand);
  tcp::socket peer = connect_pair(ioc, s);
  std::array<char, 8> buf;
  int on_strand = 0, off_strand = 0;
  bool done = false;
  error_code first;
  s.expires_after(50ms);
  s.async_read_some(
      net::buffer(buf), io_handler([&](error_code ec, std::size_t) {
        (strand.running_in_this_thread() ? on_strand : off_strand) += 1;
        first = ec;
        done = true;
      }));
  run_until(ioc, done);
  BOOST_TEST(first == timeout_ec, first.message());
  typename F::tcp_stream s2(strand);
  tcp::socket peer2 = connect_pair(ioc, s2);
  done = false;
  s2.expires_after(5s);
  s2.async_read_some(net::buffer(buf), io_handler([&](error_code, std::size_t) {
    (strand.running_in_this_thread() ? on_strand : off_strand) += 1;
    done = true;
  }));
  net::write(peer2, net::buffer("x", 1));
  run_until(ioc, done);
  BOOST_TEST(on_strand == 2,
      on_strand << " of 2 handlers (timed out, completed) ran on the strand");
  BOOST_TEST(off_strand == 0, off_strand << " handlers ran outside the strand");
}

BOOST_AUTO_TEST_CASE_TEMPLATE(cancel_aborts_and_keeps_socket_open, F, families)
{
  net::io_context ioc;
  typename F::tcp_stream s(ioc);
  tcp::socket peer = connect_pair(ioc, s);
  std::array<char, 16> buf;
  result r;
  s.expires_after(300ms);
  s.async_read_some(net::buffer(buf), r.handler());
  run_for(ioc, 20ms);
  s.cancel();
  run_until(ioc, r.done);
  BOOST_TEST(r.ec == net::error::operation_aborted, r.ec.message());
  BOOST_TEST(s.socket().is_open());
  // The cancelled operation's timeout closes nothing later on.
  run_for(ioc, 450ms);
  BOOST_TEST(s.socket().is_open());
  // And the stream still works.
  s.expires_after(5s);
  result r2;
  s.async_read_some(net::buffer(buf), r2.handler());
  net::write(peer, net::buffer("x", 1));
  run_until(ioc, r2.done);
  BOOST_TEST(!r2.ec, r2.ec.message());
}

#if defined(ASIO_WHEEL_ASIO_HAS_CANCELLATION_SLOT)
// Per-operation cancellation of a timed read, as the Beast compiled with has
// it: since Beast 345 (Boost 1.81) a terminal signal bound to the read reaches
// the socket's read, which completes with operation_aborted, the socket left
// open; before 345 (Beast 318, 330) the stream's operations have no
// cancellation slot, the signal reaches nothing and the read stays pending
// (then cancel() ends it).
BOOST_AUTO_TEST_CASE_TEMPLATE(
    per_operation_cancellation_as_this_beast_has_it, F, families)
{
  net::io_context ioc;
  typename F::tcp_stream s(ioc);
  tcp::socket peer = connect_pair(ioc, s);
  std::array<char, 16> buf;
  result r;
  net::cancellation_signal signal;
  s.expires_after(5s);
  s.async_read_some(net::buffer(buf),
      net::bind_cancellation_slot(signal.slot(), r.handler()));
  run_for(ioc, 20ms);
  signal.emit(net::cancellation_type::terminal);
# if defined(ASIO_WHEEL_BEAST_HAS_PER_OPERATION_CANCELLATION)
  run_until(ioc, r.done);
  BOOST_TEST(r.done, "the signal did not end the read");
# else
  run_for(ioc, 50ms);
  BOOST_TEST(!r.done, "the signal reached the read: this Beast has no slot");
  s.cancel();
  run_until(ioc, r.done);
# endif
  BOOST_TEST(r.ec == net::error::operation_aborted, r.ec.message());
  BOOST_TEST(s.socket().is_open());
}
#endif

BOOST_AUTO_TEST_CASE_TEMPLATE(close_aborts_and_closes, F, families)
{
  net::io_context ioc;
  typename F::tcp_stream s(ioc);
  tcp::socket peer = connect_pair(ioc, s);
  std::array<char, 16> buf;
  result r;
  s.expires_after(300ms);
  s.async_read_some(net::buffer(buf), r.handler());
  run_for(ioc, 20ms);
  s.close();
  run_until(ioc, r.done);
  BOOST_TEST(r.ec == net::error::operation_aborted, r.ec.message());
  BOOST_TEST(!s.socket().is_open());
}

BOOST_AUTO_TEST_CASE_TEMPLATE(read_in_time_reports_no_timeout, F, families)
{
  net::io_context ioc;
  typename F::tcp_stream s(ioc);
  tcp::socket peer = connect_pair(ioc, s);
  std::array<char, 16> buf;
  for (int i = 0; i < 20; ++i)
  {
    result r;
    s.expires_after(150ms);
    s.async_read_some(net::buffer(buf), r.handler());
    net::write(peer, net::buffer("data", 4));
    run_until(ioc, r.done);
    BOOST_TEST(!r.ec, r.ec.message());
    BOOST_TEST(r.n == 4u);
  }
  // Past the last expiry: the withdrawn timeouts close nothing.
  run_for(ioc, 300ms);
  BOOST_TEST(s.socket().is_open());
  // And the stream still works (with no timeout: the last one has elapsed, and an operation
  // started after that times out, at once since Beast 354; timeout_already_elapsed and
  // operation_after_elapsed_timeout_times_out_at_once).
  s.expires_never();
  result w;
  s.async_write_some(net::buffer("ok", 2), w.handler());
  run_until(ioc, w.done);
  BOOST_TEST(!w.ec, w.ec.message());
}

// A timeout with both a read and a write pending: the read (whose timeout
// fires) reports timeout; the write, aborted by the close, too or
// operation_aborted depending on which fired first: both closed.
BOOST_AUTO_TEST_CASE_TEMPLATE(read_and_write_pending, F, families)
{
  net::io_context ioc;
  typename F::tcp_stream s(ioc);
  tcp::socket peer = connect_pair(ioc, s);
  s.socket().set_option(net::socket_base::send_buffer_size(4096));
  peer.set_option(net::socket_base::receive_buffer_size(4096));
  std::vector<char> big(4 << 20, 'y');
  std::array<char, 16> buf;
  result rd, wr;
  s.expires_after(100ms);
  s.async_read_some(net::buffer(buf), rd.handler());
  s.async_write_some(net::buffer(big), wr.handler());
  run_until(ioc, rd.done);
  run_until(ioc, wr.done);
  BOOST_TEST(rd.ec == timeout_ec, rd.ec.message());
  // The write either completed partially before the close, or was timed out
  // or aborted: never success with a socket left open.
  BOOST_TEST(!s.socket().is_open());
}

BOOST_AUTO_TEST_CASE_TEMPLATE(empty_buffers_with_elapsed_timeout, F, families)
{
  net::io_context ioc;
  typename F::tcp_stream s(ioc);
  tcp::socket peer = connect_pair(ioc, s);
  s.expires_after(10ms);
  run_for(ioc, 60ms);
  result r;
  s.async_read_some(net::mutable_buffer(), r.handler());
  run_until(ioc, r.done);
  BOOST_TEST(r.ec == timeout_ec, r.ec.message());
  BOOST_TEST(!s.socket().is_open());
}

BOOST_AUTO_TEST_CASE_TEMPLATE(simple_rate_policy_limits_bytes, F, families)
{
  net::io_context ioc;
  typename F::template stream<net::any_io_executor, bb::simple_rate_policy> s(
      ioc);
  tcp::socket peer = connect_pair(ioc, s);
  s.rate_policy().read_limit(100);
  s.rate_policy().write_limit(50);
  std::vector<char> data(1000, 'z');
  net::write(peer, net::buffer(data));
  std::vector<char> buf(1000);
  std::size_t total = 0;
  for (int i = 0; i < 2; ++i)
  {
    result r;
    s.expires_after(5s);
    s.async_read_some(net::buffer(buf), r.handler());
    run_until(ioc, r.done, 5000ms);
    BOOST_TEST(!r.ec, r.ec.message());
    BOOST_TEST(r.n >= 1u);
    BOOST_TEST(r.n <= 100u);
    total += r.n;
  }
  BOOST_TEST(total <= 200u);
  result w;
  s.async_write_some(net::buffer(data), w.handler());
  run_until(ioc, w.done);
  BOOST_TEST(!w.ec, w.ec.message());
  BOOST_TEST(w.n <= 50u);
  BOOST_TEST(w.n >= 1u);
  s.close();  // stops the rate slices
  run_for(ioc, 20ms);
}

// A timeout fires while the read waits for the next rate slice.
BOOST_AUTO_TEST_CASE_TEMPLATE(timeout_during_rate_wait, F, families)
{
  net::io_context ioc;
  typename F::template stream<net::any_io_executor, bb::simple_rate_policy> s(
      ioc);
  tcp::socket peer = connect_pair(ioc, s);
  s.rate_policy().read_limit(10);
  std::vector<char> data(100, 'z');
  net::write(peer, net::buffer(data));
  std::vector<char> buf(100);
  result r1;
  s.async_read_some(net::buffer(buf), r1.handler());
  run_until(ioc, r1.done);
  BOOST_TEST(!r1.ec);
  BOOST_TEST(r1.n <= 10u);
  // The first slice's bytes are spent; the next read starts the one-second
  // slices at once (the slice timer's expiry is in the past) and reads again.
  result r1b;
  s.async_read_some(net::buffer(buf), r1b.handler());
  run_until(ioc, r1b.done);
  BOOST_TEST(!r1b.ec);
  BOOST_TEST(r1b.n <= 10u);
  // Spent again: the next read waits for the next slice (about a second
  // away), and its 100 ms timeout fires first.
  result r2;
  s.expires_after(100ms);
  s.async_read_some(net::buffer(buf), r2.handler());
  run_until(ioc, r2.done, 5000ms);
  BOOST_TEST(r2.ec == timeout_ec, r2.ec.message());
  BOOST_TEST(!s.socket().is_open());
  s.close();
  run_for(ioc, 20ms);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(release_socket_and_moves, F, families)
{
  net::io_context ioc;
  typename F::tcp_stream s(ioc);
  tcp::socket peer = connect_pair(ioc, s);
  s.expires_after(5s);
  typename F::tcp_stream moved(std::move(s));
  BOOST_TEST(moved.socket().is_open());
  BOOST_TEST(!s.socket().is_open());  // as if newly constructed
  std::array<char, 8> buf;
  result r;
  moved.async_read_some(net::buffer(buf), r.handler());
  net::write(peer, net::buffer("m", 1));
  run_until(ioc, r.done);
  BOOST_TEST(!r.ec);
  tcp::socket raw = moved.release_socket();
  BOOST_TEST(raw.is_open());
#if defined(ASIO_WHEEL_BEAST_HAS_REBINDING_MOVE)
  // Converting move to another executor type (Beast 345, Boost 1.81, and
  // later; earlier Beasts have no such constructor, nor has ours there).
  typename F::template stream<net::io_context::executor_type> other(
      ioc.get_executor());
  typename F::tcp_stream converted(std::move(other));
  BOOST_TEST(!converted.socket().is_open());
#endif
}

// Destroying the io_context with timeouts (and operations) pending releases
// everything (the sanitizer run checks for leaks).
BOOST_AUTO_TEST_CASE_TEMPLATE(
    io_context_destroyed_with_pending_timeouts, F, families)
{
  std::array<char, 8> buf;
  {
    // A session that owns its stream through its pending handler (Beast's
    // usual pattern): destroying the context destroys the handler, hence
    // the stream, with its timeout still in the wheel.
    auto ioc = std::make_unique<net::io_context>();
    auto s = std::make_shared<typename F::tcp_stream>(*ioc);
    tcp::socket peer = connect_pair(*ioc, *s);
    s->expires_after(10s);
    s->async_read_some(
        net::buffer(buf), io_handler([s](error_code, std::size_t) {
          BOOST_TEST(false, "a handler ran after shutdown");
        }));
    ioc->run_for(20ms);
    s.reset();
    peer.close();
    ioc.reset();
  }
  {
    // Never run at all, stream destroyed before its context.
    net::io_context ioc;
    typename F::tcp_stream s(ioc);
    tcp::socket peer = connect_pair(ioc, s);
    s.expires_after(10s);
    s.async_read_some(
        net::buffer(buf), io_handler([](error_code, std::size_t) {}));
  }
  {
    // Stream first, pending write and read, timeout decided but not run.
    net::io_context ioc;
    auto s = std::make_unique<typename F::tcp_stream>(ioc);
    tcp::socket peer = connect_pair(ioc, *s);
    s->expires_after(1ms);
    std::this_thread::sleep_for(10ms);
    s->async_read_some(
        net::buffer(buf), io_handler([](error_code, std::size_t) {}));
    s.reset();
  }
}

BOOST_AUTO_TEST_SUITE_END()
