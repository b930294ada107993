// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// Waits on a wheel_timer of the standalone flavour and exits 0 when it completed with
// success, and so did the waits of second.cpp, the program's other translation unit that
// includes asio-wheel. Standalone Asio only: compiling fails if a Boost.Asio or Boost.System
// header came in through asio-wheel or Asio. ASIO_STANDALONE alone must select the flavour
// (the plain and pkg-config consumers define nothing else); asio-wheel then defines
// ASIO_WHEEL_STANDALONE.
#include <asio_wheel.hpp>
#include <asio/io_context.hpp>
#include <asio/version.hpp>
#include <iostream>
#include <system_error>

#if !defined(ASIO_STANDALONE) || !defined(ASIO_WHEEL_STANDALONE)
# error                                                                        \
     "the standalone flavour needs ASIO_STANDALONE, and asio-wheel must then define ASIO_WHEEL_STANDALONE"
#endif
#if defined(BOOST_ASIO_DETAIL_CONFIG_HPP) || defined(BOOST_ASIO_VERSION)       \
    || defined(BOOST_SYSTEM_DETAIL_CONFIG_HPP_INCLUDED)
# error "a Boost.Asio or Boost.System header was included"
#endif

bool second_translation_unit_waits();

int main()
{
  asio::io_context io;
  asio_wheel::wheel_timer timer(io, std::chrono::milliseconds(5));
  bool fired = false;
  timer.async_wait([&](std::error_code ec) { fired = !ec; });
  io.run();
  const bool second = second_translation_unit_waits();
  std::cout << "consumer (standalone Asio " << ASIO_VERSION
            << "): " << (fired && second ? "wheel_timer fired\n" : "FAILED\n");
  return fired && second ? 0 : 1;
}
