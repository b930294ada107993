// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// A read timed by asio_wheel::cancel_after as a user writes it: with a callback, or with
// TIMED_WITH_CANCEL_AT cancel_at, or with TIMED_IN_A_COROUTINE in a coroutine with
// use_awaitable (C++20), as example/timeouts/read_timeout.cpp does. Where Asio has
// per-operation cancellation (1.19 and later) it compiles: the main suite checks that, so
// that the test below cannot fail for another reason. Below 1.19 the compile stops with one
// line naming the Asio needed: the matrix legs boost-1.74 and standalone-1.18 check that
// (test/compile_fail/CMakeLists.txt).
#include <asio_wheel.hpp>

#if defined(ASIO_WHEEL_STANDALONE)
# include <asio/buffer.hpp>
# include <asio/co_spawn.hpp>
# include <asio/detached.hpp>
# include <asio/ip/tcp.hpp>
# include <asio/use_awaitable.hpp>
#else
# include <boost/asio/buffer.hpp>
# include <boost/asio/co_spawn.hpp>
# include <boost/asio/detached.hpp>
# include <boost/asio/ip/tcp.hpp>
# include <boost/asio/use_awaitable.hpp>
#endif

#include <chrono>
#include <cstddef>

namespace asio = asio_wheel::asio;

#if defined(TIMED_IN_A_COROUTINE)
asio::awaitable<void> read_with_timeout(asio::ip::tcp::socket& socket)
{
  char buffer[64];
  const std::size_t n = co_await socket.async_read_some(asio::buffer(buffer),
      asio_wheel::cancel_after(std::chrono::seconds(30), asio::use_awaitable));
  (void)n;
}
#endif

int main()
{
  asio::io_context io;
  asio::ip::tcp::socket socket(io);
#if defined(TIMED_IN_A_COROUTINE)
  asio::co_spawn(io, read_with_timeout(socket), asio::detached);
#else
  char buffer[64];
  auto handler = [](asio_wheel::error_code, std::size_t) {};
# if defined(TIMED_WITH_CANCEL_AT)
  socket.async_read_some(asio::buffer(buffer),
      asio_wheel::cancel_at(
          std::chrono::steady_clock::now() + std::chrono::seconds(30),
          handler));
# else
  socket.async_read_some(asio::buffer(buffer),
      asio_wheel::cancel_after(std::chrono::seconds(30), handler));
# endif
#endif
  io.run();
}
