// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// http_keepalive_routed: the same server on Beast's own stream,
// boost::beast::basic_stream<tcp, asio_wheel::wheel_executor<>>, whose timers
// (basic_waitable_timer of its executor type, since Beast 1.81) are wheel
// timers: Beast's code, unmodified, with its timeouts routed to the
// io_context's timing wheel. Benchmark W9 runs it beside the other three.
#include "server.hpp"

#include <asio_wheel/wheel_executor.hpp>
#include <boost/beast/core/basic_stream.hpp>

using routed_stream = boost::beast::basic_stream<boost::asio::ip::tcp,
    asio_wheel::wheel_executor<>>;

// Not on_wheel's kind of stream (no tolerance() of its own): --idle-tolerance
// is rejected, as the two other programs do.
static_assert(!http_keepalive::on_wheel<routed_stream>);

int main(int argc, char** argv)
{
  return http_keepalive::run_server<routed_stream>(argc, argv,
      "http_keepalive_routed",
      "boost::beast::basic_stream<tcp, asio_wheel::wheel_executor<>>");
}
