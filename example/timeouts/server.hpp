//
// example/timeouts/server.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// What this folder's servers share around their sessions: main()'s body (the options, the
// acceptor on 127.0.0.1, then io.run() or the program's --check), and the accept loop of the
// coroutine servers.
//

#ifndef ASIO_WHEEL_EXAMPLE_TIMEOUTS_SERVER_HPP
#define ASIO_WHEEL_EXAMPLE_TIMEOUTS_SERVER_HPP

#include "net.hpp"
#include "options.hpp"

#include <chrono>
#include <exception>
#include <iostream>
#include <utility>

// Accepts connections for ever, each served by the coroutine session(socket, idle).
template <typename Session>
net::awaitable<void> accept_sessions(
    tcp::acceptor& acceptor, std::chrono::milliseconds idle, Session session)
{
  for (;;)
  {
    tcp::socket socket = co_await acceptor.async_accept(net::use_awaitable);
    net::co_spawn(acceptor.get_executor(), session(std::move(socket), idle),
        net::detached);
  }
}

// serve()'s start for a coroutine server: accept_sessions on the acceptor's executor.
template <typename Session>
auto accepting(Session session)
{
  return [session](tcp::acceptor& acceptor, std::chrono::milliseconds idle) {
    net::co_spawn(acceptor.get_executor(),
        accept_sessions(acceptor, idle, session), net::detached);
  };
}

// main(): start(acceptor, idle) begins accepting; with --check, check(io, endpoint, idle) runs
// clients against the server and gives the exit status. 2 when an option or the listen fails.
template <typename Start, typename Check>
int serve(const char* program, int argc, char** argv, Start start, Check check)
{
  try
  {
    const example_options options = parse_options(program, argc, argv);
    net::io_context io(1);
    tcp::acceptor acceptor(
        io, tcp::endpoint(net::ip::make_address("127.0.0.1"), options.port));
    std::cout << program << ": listening on " << acceptor.local_endpoint()
              << ", idle timeout " << options.idle.count() << " ms"
              << std::endl;
    start(acceptor, options.idle);
    if (options.check)
      return check(io, acceptor.local_endpoint(), options.idle);
    io.run();
    return 0;
  }
  catch (const std::exception& e)
  {
    std::cerr << e.what() << "\n";
    return 2;
  }
}

#endif  // ASIO_WHEEL_EXAMPLE_TIMEOUTS_SERVER_HPP
