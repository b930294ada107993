//
// example/timeouts/self_check.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// What the two servers of this folder are checked with (--check): over loopback, one client
// that talks every idle/4 for three idle periods must keep its connection and get every echo,
// and one that stays silent must be closed by the server, no earlier than the idle timeout
// after it connected. Both run as coroutines on the server's io_context; the check gives up
// (and fails) after 10 idle periods plus 10 s, so it cannot hang.
//

#ifndef ASIO_WHEEL_EXAMPLE_TIMEOUTS_SELF_CHECK_HPP
#define ASIO_WHEEL_EXAMPLE_TIMEOUTS_SELF_CHECK_HPP

#include "net.hpp"

#include <chrono>
#include <iostream>
#include <string>

namespace self_check {

struct result
{
  bool active_kept = false;  // every echo came back, the connection stayed open
  bool silent_closed = false;
  std::chrono::steady_clock::duration silent_lifetime{};
};

inline net::awaitable<void> active_client(
    tcp::endpoint server, std::chrono::milliseconds idle, result& r)
{
  tcp::socket s(co_await net::this_coro::executor);
  co_await s.async_connect(server, net::use_awaitable);
  net::steady_timer pause(s.get_executor());
  for (int i = 0; i < 12; ++i)  // 12 x idle/4: three idle periods
  {
    pause.expires_after(idle / 4);
    co_await pause.async_wait(net::use_awaitable);
    const std::string line = "ping " + std::to_string(i) + "\n";
    co_await net::async_write(s, net::buffer(line), net::use_awaitable);
    std::string echo(line.size(), '\0');
    co_await net::async_read(s, net::buffer(echo), net::use_awaitable);
    if (echo != line)
      co_return;
  }
  r.active_kept = true;
}

inline net::awaitable<void> silent_client(tcp::endpoint server, result& r)
{
  tcp::socket s(co_await net::this_coro::executor);
  co_await s.async_connect(server, net::use_awaitable);
  const auto connected = std::chrono::steady_clock::now();
  char byte;
  error_code ec;
  co_await s.async_read_some(
      net::buffer(&byte, 1), net::redirect_error(net::use_awaitable, ec));
  r.silent_lifetime = std::chrono::steady_clock::now() - connected;
  r.silent_closed = ec == net::error::eof || ec == net::error::connection_reset;
}

// Runs both clients against the server listening at `server` on io, then stops io. Returns the
// exit status: 0 if both behaved as they should.
inline int run(
    net::io_context& io, tcp::endpoint server, std::chrono::milliseconds idle)
{
  result r;
  int done = 0;
  auto finished = [&](std::exception_ptr) {
    if (++done == 2)
      io.stop();
  };
  net::co_spawn(io, active_client(server, idle, r), finished);
  net::co_spawn(io, silent_client(server, r), finished);
  io.run_for(idle * 10 + std::chrono::seconds(10));

  const auto lifetime_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(r.silent_lifetime)
          .count();
  std::cout << "active client kept its connection: "
            << (r.active_kept ? "yes" : "NO") << "\n"
            << "silent client closed by the server: "
            << (r.silent_closed ? "yes" : "NO") << " after " << lifetime_ms
            << " ms (idle timeout " << idle.count() << " ms)\n";
  const bool early = r.silent_lifetime < idle;
  if (early)
    std::cout << "the silent client was closed EARLY\n";
  return r.active_kept && r.silent_closed && !early ? 0 : 1;
}

}  // namespace self_check

#endif  // ASIO_WHEEL_EXAMPLE_TIMEOUTS_SELF_CHECK_HPP
