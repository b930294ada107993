// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// Must not compile: Asio's own cancel_after(duration, token) on an operation of a
// wheel_executor builds a timer of the operation's executor type (a routed timer) and moves
// it into Asio's basic_waitable_timer<Clock, WaitTraits>, which cannot take it over. The
// compile stops with the message of detail::not_an_asio_timer_implementation
// (include/asio_wheel/wheel_executor.hpp), which names asio_wheel::cancel_after.
#include "../../test_asio.hpp"

#include <asio_wheel/wheel_executor.hpp>

#include <array>
#include <chrono>

namespace asio = asio_wheel::asio;

void start(
    asio::basic_stream_socket<asio::ip::tcp, asio_wheel::wheel_executor<>>&
        socket)
{
  static std::array<char, 8> buf;
  socket.async_read_some(asio::buffer(buf),
      asio::cancel_after(std::chrono::seconds(30),
          [](asio_wheel::error_code, std::size_t) {}));
}
