// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// http_keepalive_no_timeout: the same server on a plain tcp::socket, with no
// timeout at all (--idle-timeout is ignored): the floor that benchmark W9
// measures the timeouts' cost against.
#include "server.hpp"

int main(int argc, char** argv)
{
  return http_keepalive::run_server<boost::asio::ip::tcp::socket>(argc, argv,
      "http_keepalive_no_timeout",
      "boost::asio::ip::tcp::socket (no timeouts)");
}
