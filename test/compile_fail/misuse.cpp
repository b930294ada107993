// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// The library's mistakes that a user makes most easily, each of which must stop the compile
// with one line that says what to write instead (test/compile_fail/CMakeLists.txt):
// FRACTION_ON_A_TIMER a fraction given to a timer's tolerance(), which takes a duration;
// INTEGER_TOLERANCE an integer, 1 / 64, given to wheel_options::tolerance, a fraction;
// CANCEL_AFTER_ON_A_STEADY_TIMER and CANCEL_AT_ON_A_STEADY_TIMER the timer forms of
// cancel_after and cancel_at given a steady_timer. Without any of them, the right forms,
// which must compile.
#include <asio_wheel.hpp>

#if defined(ASIO_WHEEL_STANDALONE)
# include <asio/buffer.hpp>
# include <asio/ip/tcp.hpp>
# include <asio/steady_timer.hpp>
#else
# include <boost/asio/buffer.hpp>
# include <boost/asio/ip/tcp.hpp>
# include <boost/asio/steady_timer.hpp>
#endif

#include <chrono>
#include <cstddef>

namespace asio = asio_wheel::asio;
using namespace std::chrono_literals;

int main()
{
  asio::io_context io;
  asio_wheel::wheel_timer wheel_timer(io);
  asio::steady_timer steady_timer(io);
  asio::ip::tcp::socket socket(io);
  char buffer[64];
  auto handler = [](asio_wheel::error_code, std::size_t) {};
  asio_wheel::wheel_options options;
#if defined(FRACTION_ON_A_TIMER)
  wheel_timer.tolerance(1.0 / 64);
#elif defined(INTEGER_TOLERANCE)
  options.tolerance = 1 / 64;
#elif defined(CANCEL_AFTER_ON_A_STEADY_TIMER)
  socket.async_read_some(asio::buffer(buffer),
      asio_wheel::cancel_after(steady_timer, 5s, handler));
#elif defined(CANCEL_AT_ON_A_STEADY_TIMER)
  socket.async_read_some(asio::buffer(buffer),
      asio_wheel::cancel_at(
          steady_timer, std::chrono::steady_clock::now() + 5s, handler));
#else
  options.tolerance = 1.0 / 64;
  options.tolerance = 1.0f / 64;
  const double fraction = options.tolerance;
  (void)fraction;
  wheel_timer.tolerance(4s);
  socket.async_read_some(
      asio::buffer(buffer), asio_wheel::cancel_after(wheel_timer, 5s, handler));
  socket.async_read_some(asio::buffer(buffer),
      asio_wheel::cancel_at(
          wheel_timer, std::chrono::steady_clock::now() + 5s, handler));
  (void)steady_timer;
#endif
  (void)options;
}
