//
// example/common/server_main.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The part of main() the example servers (keepalive_chat_server, the http_keepalive programs)
// share once their flags are parsed and their server is made: listen, print "listening on
// ADDRESS:PORT" as the first line (scripts and tests read the port from it), run the
// io_context on --threads threads until the server's own SIGINT/SIGTERM handling has closed
// everything and run() returns, and say so. Also raise_open_files_limit, which the load client
// calls too.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/system/system_error.hpp>

#include <cstddef>
#include <cstdint>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

namespace example_common {

// Raises the soft RLIMIT_NOFILE to the hard limit (a server holding ten
// thousand sockets needs more than the usual 1024). Returns the new soft limit
// (0 on Windows, which has no such limit).
std::uint64_t raise_open_files_limit();

// Server: listen() binds and listens, returning the endpoint (throws system_error if it
// cannot); start() starts accepting and watching for SIGINT/SIGTERM. bind_address and port
// are the flags', for the message when listen() fails. Returns main()'s exit status: 1 if
// the server cannot listen, 0 once run() has returned on every thread.
template <class Server>
int listen_and_run(const std::string& program, boost::asio::io_context& io,
    Server& server, const std::string& bind_address, unsigned short port,
    std::size_t threads)
{
  boost::asio::ip::tcp::endpoint endpoint;
  try
  {
    endpoint = server.listen();
  }
  catch (const boost::system::system_error& e)
  {
    std::cerr << program << ": cannot listen on " << bind_address << ":" << port
              << ": " << e.code().message() << "\n";
    return 1;
  }
  const auto address = endpoint.address();
  std::cout
      << "listening on "
      << (address.is_v6() ? "[" + address.to_string() + "]"
                          : address.to_string())
      << ":" << endpoint.port()
      << std::endl;  // flushed: whoever started us is waiting for this line
  server.start();

  std::vector<std::thread> runners;
  for (std::size_t i = 1; i < threads; ++i)
    runners.emplace_back([&io] { io.run(); });
  io.run();
  for (auto& t : runners)
    t.join();
  std::cerr << program << ": stopped\n";
  return 0;
}

}  // namespace example_common
