// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// Waits on a wheel_timer and exits 0 when it completed with success, and so did the waits of
// second.cpp, the program's other translation unit that includes asio-wheel.
#include <asio_wheel.hpp>
#include <boost/asio/io_context.hpp>
#include <iostream>

bool second_translation_unit_waits();

int main()
{
  boost::asio::io_context io;
  asio_wheel::wheel_timer timer(io, std::chrono::milliseconds(5));
  bool fired = false;
  timer.async_wait([&](boost::system::error_code ec) { fired = !ec; });
  io.run();
  const bool second = second_translation_unit_waits();
  std::cout << (fired && second ? "consumer: wheel_timer fired\n"
                                : "consumer: FAILED\n");
  return fired && second ? 0 : 1;
}
