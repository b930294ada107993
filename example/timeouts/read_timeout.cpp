//
// example/timeouts/read_timeout.cpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The same echo server written as a coroutine, with a timeout on each read instead of a timer
// per connection: asio_wheel::cancel_after(idle, token) cancels the read if no input arrives
// within idle, with the semantics of Asio's own cancel_after (Boost 1.86+) but as an entry in
// the context's timing wheel, on every Asio the library supports. A read that completes in
// time takes its timeout back from the wheel in O(1), with no completion of its own. Use this
// form when each operation has its own deadline, or when the code is written with completion
// tokens (coroutines, deferred operations) rather than long-lived objects.
//
// doc/timeouts.md shows the region between the two "//! [session]" lines; the test
// doc_snippets fails if the two differ.
//
// Usage: read_timeout [--port P] [--idle-ms MS] [--check]   (see idle_refresh.cpp)
//

#include "self_check.hpp"
#include "server.hpp"

#include <chrono>
#include <iostream>

//! [session]
#include <asio_wheel/cancel_after.hpp>

net::awaitable<void> session(tcp::socket socket, std::chrono::milliseconds idle)
{
  char data[1024];
  try
  {
    for (;;)
    {
      // No input within idle: the read is cancelled and throws operation_aborted.
      const std::size_t n = co_await socket.async_read_some(net::buffer(data),
          asio_wheel::cancel_after(idle, net::use_awaitable));
      co_await net::async_write(
          socket, net::buffer(data, n), net::use_awaitable);
    }
  }
  catch (const system_error&)
  {
    // operation_aborted (idle), eof (the client left) or a socket error:
    // close either way.
  }
}
//! [session]

int main(int argc, char** argv)
{
  return serve("read_timeout", argc, argv, accepting(session), self_check::run);
}
