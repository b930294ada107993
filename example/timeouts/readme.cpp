// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// The README's example, whole: the region below is, byte for byte, its C++ block
// (test/doc/check_snippets.sh, CTest doc_snippets). Built by the test command so that the
// README's code compiles against the library as it is; not run (it waits 30 s).
//! [readme]
#include <asio_wheel.hpp>
#include <boost/asio.hpp>
#include <chrono>
#include <iostream>

int main()
{
  boost::asio::io_context io;
  // was: boost::asio::steady_timer
  asio_wheel::wheel_timer idle(io, std::chrono::seconds(30));
  idle.async_wait([](boost::system::error_code ec) {
    if (!ec)
      std::cout << "30 s without input: close the connection\n";
  });
  // On every input: idle again from now. One store; the wait is kept, nothing is cancelled.
  idle.extend_after(std::chrono::seconds(30));
  io.run();
}
//! [readme]
