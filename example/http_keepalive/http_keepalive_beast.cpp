// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// http_keepalive_beast: the same server on boost::beast::tcp_stream (a
// steady_timer wait per timeout), the baseline of benchmark W9.
#include "server.hpp"

#include <boost/beast/core/tcp_stream.hpp>

static_assert(!http_keepalive::on_wheel<
              boost::beast::tcp_stream>);  // --idle-tolerance is rejected

int main(int argc, char** argv)
{
  return http_keepalive::run_server<boost::beast::tcp_stream>(
      argc, argv, "http_keepalive_beast", "boost::beast::tcp_stream");
}
