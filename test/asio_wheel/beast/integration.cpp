// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// The stream under Beast's own algorithms and Asio's tokens, on Beast's
// basic_stream and on ours: http::async_read / async_write (and a timeout
// mid-request), coroutines, use_future, deferred, and a stream on a strand
// run by two threads. websocket::stream: websocket.cpp, the same suite in a
// file of its own (the heaviest part of the suite to compile, so that it
// builds in parallel with the rest).
#include "stream_suite.hpp"

#include "../../test_asio.hpp"  // token::deferred, the token gates

#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/beast/http.hpp>

#include <array>
#include <atomic>
#include <future>
#include <optional>
#include <thread>

using namespace beast_suite;
namespace http = bb::http;

BOOST_AUTO_TEST_SUITE(integration)

BOOST_AUTO_TEST_CASE_TEMPLATE(http_request_response, F, families)
{
  net::io_context ioc;
  typename F::tcp_stream server(ioc), client(ioc);
  {
    tcp::acceptor acc = make_acceptor(ioc);
    client.socket().connect(acc.local_endpoint());
    acc.accept(server.socket());
  }
  bb::flat_buffer sbuf, cbuf;
  http::request<http::string_body> req{http::verb::post, "/echo", 11};
  req.set(http::field::host, "127.0.0.1");
  req.body() = "ping";
  req.prepare_payload();
  http::request<http::string_body> sreq;
  http::response<http::string_body> res;
  bool done = false;

  server.expires_after(5s);
  http::async_read(
      server, sbuf, sreq, io_handler([&](error_code ec, std::size_t) {
        BOOST_TEST(!ec, ec.message());
        auto r = std::make_shared<http::response<http::string_body>>(
            http::status::ok, 11);
        r->body() = sreq.body() + "-pong";
        r->prepare_payload();
        server.expires_after(5s);
        http::async_write(
            server, *r, io_handler([&, r](error_code ec, std::size_t) {
              BOOST_TEST(!ec, ec.message());
            }));
      }));
  client.expires_after(5s);
  http::async_write(client, req, io_handler([&](error_code ec, std::size_t) {
    BOOST_TEST(!ec, ec.message());
    http::async_read(
        client, cbuf, res, io_handler([&](error_code ec, std::size_t) {
          BOOST_TEST(!ec, ec.message());
          done = true;
        }));
  }));
  run_until(ioc, done);
  BOOST_TEST(res.result() == http::status::ok);
  BOOST_TEST(res.body() == "ping-pong");
  BOOST_TEST(server.socket().is_open());
  BOOST_TEST(client.socket().is_open());
}

// Timed operations that are over leave no work behind: run() returns once
// nothing is pending, whether the handler has no executor of its own (a
// lambda) or is a Beast composed operation, whose executor (the stream's,
// handed out by beast::async_base with outstanding work tracked) the
// timeout's upcall would run on. Each run_for gets 5 s; ending it early with
// the context stopped means it ran out of work.
BOOST_AUTO_TEST_CASE_TEMPLATE(
    run_returns_when_timed_operations_are_over, F, families)
{
  // On the context's own executor, and on a strand, as Beast's servers make
  // it (Beast's composed operations then have an executor the timeout keeps
  // for its upcall while they are pending).
  for (const bool on_strand : {false, true})
  {
    BOOST_TEST_CONTEXT("stream on a strand: " << on_strand)
    {
      net::io_context ioc;
      std::optional<typename F::tcp_stream> stream;
      if (on_strand)
        stream.emplace(net::make_strand(ioc));
      else
        stream.emplace(ioc);
      auto& s = *stream;
      tcp::socket peer = connect_pair(ioc, s);
      std::array<char, 16> buf;
      // Runs until the context runs out of work (or 5 s): the operation
      // done, the context stopped, well before the limit.
      auto run_out_of_work = [&](const bool& done) {
        const auto start = std::chrono::steady_clock::now();
        ioc.run_for(5s);
        BOOST_TEST(done);
        BOOST_TEST(ioc.stopped());
        BOOST_TEST((std::chrono::steady_clock::now() - start < 4s));
      };

      // A plain handler.
      bool read_done = false;
      s.expires_after(10s);
      net::write(peer, net::buffer("a", 1));
      s.async_read_some(
          net::buffer(buf), io_handler([&](error_code ec, std::size_t) {
            BOOST_TEST(!ec, ec.message());
            read_done = true;
          }));
      run_out_of_work(read_done);

      // Beast's composed operations: http::async_write, then
      // http::async_read.
      ioc.restart();
      http::response<http::string_body> res{http::status::ok, 11};
      res.body() = "x";
      res.prepare_payload();
      bool write_done = false;
      s.expires_after(10s);
      http::async_write(s, res, io_handler([&](error_code ec, std::size_t) {
        BOOST_TEST(!ec, ec.message());
        write_done = true;
      }));
      run_out_of_work(write_done);

      ioc.restart();
      const std::string request =
          "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n";
      net::write(peer, net::buffer(request));
      bb::flat_buffer b;
      http::request<http::string_body> req;
      bool http_read_done = false;
      s.expires_after(10s);
      http::async_read(s, b, req, io_handler([&](error_code ec, std::size_t) {
        BOOST_TEST(!ec, ec.message());
        http_read_done = true;
      }));
      run_out_of_work(http_read_done);
      BOOST_TEST(s.socket().is_open());
    }
  }
}

// A client sends half a request and stalls: the server's http::async_read
// times out.
BOOST_AUTO_TEST_CASE_TEMPLATE(http_read_timeout_mid_request, F, families)
{
  net::io_context ioc;
  typename F::tcp_stream server(ioc);
  tcp::socket peer = connect_pair(ioc, server);
  net::write(peer, net::buffer(std::string("GET / HTTP/1.1\r\nHost: x\r\n")));
  bb::flat_buffer buf;
  http::request<http::empty_body> req;
  result r;
  server.expires_after(150ms);
  http::async_read(server, buf, req, r.handler());
  run_until(ioc, r.done);
  BOOST_TEST(r.ec == timeout_ec, r.ec.message());
  BOOST_TEST(!server.socket().is_open());
}

BOOST_AUTO_TEST_CASE_TEMPLATE(coroutine_token, F, families)
{
  net::io_context ioc;
  typename F::tcp_stream s(ioc);
  tcp::socket peer = connect_pair(ioc, s);
  bool done = false;
  net::co_spawn(
      ioc,
      [&]() -> net::awaitable<void> {
        std::array<char, 8> buf;
        s.expires_after(5s);
        net::write(peer, net::buffer("co", 2));
        std::size_t n =
            co_await s.async_read_some(net::buffer(buf), net::use_awaitable);
        BOOST_TEST(n == 2u);
        s.expires_after(80ms);
        try
        {
          co_await s.async_read_some(net::buffer(buf), net::use_awaitable);
          BOOST_TEST(false, "no timeout");
        }
        catch (const boost::system::system_error& e)
        {
          BOOST_TEST(e.code() == timeout_ec, e.code().message());
        }
        done = true;
      },
      net::detached);
  run_until(ioc, done);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(deferred_and_use_future_tokens, F, families)
{
  net::io_context ioc;
  typename F::tcp_stream s(ioc);
  tcp::socket peer = connect_pair(ioc, s);
  std::array<char, 8> buf;
#if defined(                                                                   \
    ASIO_WHEEL_TEST_HAS_TOKEN_ADAPTERS)  // deferred: Asio 1.19 and later
  s.expires_after(80ms);
  auto op =
      s.async_read_some(net::buffer(buf), asio_wheel_test::token::deferred);
  result r;
  std::move(op)(r.handler());
  run_until(ioc, r.done);
  BOOST_TEST(r.ec == timeout_ec, r.ec.message());
#endif

  typename F::tcp_stream s2(ioc);
  tcp::socket peer2 = connect_pair(ioc, s2);
  s2.expires_after(5s);
  std::future<std::size_t> f =
      s2.async_read_some(net::buffer(buf), net::use_future);
  net::write(peer2, net::buffer("fut", 3));
  ioc.restart();
  auto work = net::make_work_guard(ioc);  // run() must not return between ops
  std::thread t([&] { ioc.run_for(10s); });
  auto stop = [&] {
    work.reset();
    ioc.stop();
    if (t.joinable())
      t.join();
  };
  BOOST_TEST((f.wait_for(5s) == std::future_status::ready));
  BOOST_TEST(f.get() == 3u);
  // A timeout with use_future: ours only. Beast runs its timeout handler on
  // the handler's associated executor, which for use_future runs functions
  // on the system executor's threads: Beast closes the socket there, racing
  // with the read's completion on the io_context's thread (which may then
  // see operation_aborted, and which ThreadSanitizer reports). Ours closes
  // it on the stream's executor.
  if constexpr (F::is_wheel)
  {
    s2.expires_after(60ms);
    std::future<std::size_t> f2 =
        s2.async_read_some(net::buffer(buf), net::use_future);
    const bool ready = f2.wait_for(5s) == std::future_status::ready;
    BOOST_TEST(ready);
    // The exception is looked at once the context's thread has ended. That
    // thread releases use_future's promise, and with it a reference to the
    // exception, after the future is ready: the two references are counted
    // inside libstdc++'s compiled part, which ThreadSanitizer does not see,
    // so it took the last release there for a race with the read here (two
    // runs in 60 under load). The join is a synchronization it sees.
    stop();
    try
    {
      if (ready)
        f2.get();
      BOOST_TEST(false, "no timeout");
    }
    catch (const boost::system::system_error& e)
    {
      BOOST_TEST(e.code() == timeout_ec, e.code().message());
    }
  }
  stop();
}

// The stream on a strand, the context run by two threads: every handler runs
// in the strand; timeouts and completions in time do not race.
BOOST_AUTO_TEST_CASE_TEMPLATE(strand_two_threads, F, families)
{
  net::io_context ioc(2);
  using strand_t = net::strand<net::io_context::executor_type>;
  auto strand = net::make_strand(ioc);
  typename F::template stream<strand_t> s(strand);
  tcp::socket peer = connect_pair(ioc, s);
  std::atomic<int> in_time{0}, timed_out{0}, outside{0};
  std::atomic<bool> done{false};
  std::array<char, 64> buf;
  int round = 0;
  std::function<void()> next = [&] {
    if (++round > 40)
    {
      done = true;
      return;
    }
    // Even rounds: data is there; odd rounds: the peer writes nothing, the
    // 20 ms timeout fires, and the stream is reconnected.
    if (!s.socket().is_open())
      peer = connect_pair(ioc, s);
    s.expires_after(20ms);
    if (round % 2 == 0)
      net::write(peer, net::buffer("data", 4));
    s.async_read_some(
        net::buffer(buf), io_handler([&](error_code ec, std::size_t) {
          if (!strand.running_in_this_thread())
            ++outside;
          if (!ec)
            ++in_time;
          else if (ec == timeout_ec)
            ++timed_out;
          next();
        }));
  };
  net::dispatch(strand, next);
  std::thread t1([&] { ioc.run_for(20s); });
  std::thread t2([&] { ioc.run_for(20s); });
  const auto end = std::chrono::steady_clock::now() + 20s;
  while (!done && std::chrono::steady_clock::now() < end)
    std::this_thread::sleep_for(5ms);
  ioc.stop();
  t1.join();
  t2.join();
  BOOST_TEST(done.load());
  BOOST_TEST(outside == 0);
  BOOST_TEST(in_time == 20);
  BOOST_TEST(timed_out == 20);
}

// A handler bound to a strand of its own (the stream on the plain
// io_context executor): the timeout closes the socket in that strand, and
// the handler runs there.
BOOST_AUTO_TEST_CASE_TEMPLATE(handler_bound_to_a_strand, F, families)
{
  net::io_context ioc;
  typename F::tcp_stream s(ioc);
  tcp::socket peer = connect_pair(ioc, s);
  auto strand = net::make_strand(ioc);
  std::array<char, 8> buf;
  result r;
  bool in_strand = false;
  s.expires_after(50ms);
  s.async_read_some(net::buffer(buf),
      net::bind_executor(strand, io_handler([&](error_code ec, std::size_t n) {
        in_strand = strand.running_in_this_thread();
        r.handler()(ec, n);
      })));
  run_until(ioc, r.done);
  BOOST_TEST(in_strand);
  BOOST_TEST(r.ec == timeout_ec, r.ec.message());
  BOOST_TEST(!s.socket().is_open());
}

BOOST_AUTO_TEST_SUITE_END()
