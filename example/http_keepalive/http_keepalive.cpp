// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// http_keepalive: the HTTP keep-alive server of server.hpp on
// asio_wheel::beast::tcp_stream, whose timeouts are entries of the
// io_context's timing wheel.
#include "server.hpp"

// doc/timeouts.md shows the region between the two "//! [main]" lines.
//! [main]
#include <asio_wheel/beast/tcp_stream.hpp>

// --idle-tolerance is this program's alone: its stream must be recognised as on the wheel.
static_assert(http_keepalive::on_wheel<asio_wheel::beast::tcp_stream>);

int main(int argc, char** argv)
{
  return http_keepalive::run_server<asio_wheel::beast::tcp_stream>(
      argc, argv, "http_keepalive", "asio_wheel::beast::tcp_stream");
}
//! [main]
