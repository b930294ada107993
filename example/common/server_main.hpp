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
// everything and run() returns, and say so; with --contexts, run_contexts does the same on one
// thread per context. Also raise_open_files_limit, which the load client calls too, and
// add_wheel_stats, which sums the wheels of several contexts for /stats.
#pragma once

#include <asio_wheel/wheel_options.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/system/system_error.hpp>

#include <cstddef>
#include <algorithm>
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

// Runs Server on its contexts: the first on this thread (inside listen_and_run, after the
// listening line, on @p threads threads when it is the only one), each other on a thread of
// its own. The others hold the server's work guards until the shutdown begins, so they run
// until then whether or not a connection has come to them yet.
template <class Server>
int run_contexts(const std::string& program,
    const std::vector<boost::asio::io_context*>& contexts, Server& server,
    const std::string& bind_address, unsigned short port, std::size_t threads)
{
  if (contexts.size() == 1)
    return listen_and_run(
        program, *contexts.front(), server, bind_address, port, threads);
  std::vector<std::thread> runners;
  for (std::size_t i = 1; i < contexts.size(); ++i)
    runners.emplace_back([io = contexts[i]] { io->run(); });
  const int status =
      listen_and_run(program, *contexts.front(), server, bind_address, port, 1);
  if (status != 0)  // it could not listen: nothing will begin a shutdown
    for (boost::asio::io_context* io : contexts)
      io->stop();
  for (std::thread& t : runners)
    t.join();
  return status;
}

// Adds one context's wheel counters to @p total; the lateness is the worst one's.
inline void add_wheel_stats(
    asio_wheel::wheel_stats& total, const asio_wheel::wheel_stats& part)
{
  total.timers_in_wheel += part.timers_in_wheel;
  total.pending_waits += part.pending_waits;
  total.wakeups += part.wakeups;
  total.wakeups_saved += part.wakeups_saved;
  total.empty_wakeups += part.empty_wakeups;
  total.waits_expired += part.waits_expired;
  total.waits_cancelled += part.waits_cancelled;
  total.lazy_refilings += part.lazy_refilings;
  total.round_revisits += part.round_revisits;
  total.cascades += part.cascades;
  total.timeouts_withdrawn += part.timeouts_withdrawn;
  total.clock_steps_back += part.clock_steps_back;
  total.max_lateness = (std::max)(total.max_lateness, part.max_lateness);
}

}  // namespace example_common
