// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// websocket_chat_server: parses the flags, configures the timing wheel with --tick (for
// --timers wheel), prints "listening on ADDRESS:PORT" as its first line (scripts and tests
// read the port from it), and runs the server on one thread until SIGINT/SIGTERM has said
// goodbye to every client.
#include "server.hpp"

#include "common/flags.hpp"
#include "common/server_main.hpp"

#include <asio_wheel/make_wheel_service.hpp>

#include <iostream>

int main(int argc, char** argv)
{
  using namespace websocket_chat;
  const std::string program = "websocket_chat_server";
  server_options options;
  if (const auto exit_status =
          example_common::parse_flags_or_exit(argc, argv, program, options,
              parse_server_options, [&] { return server_usage(program); }))
    return *exit_status;
  example_common::raise_open_files_limit();

  net::io_context io(1);
  if (options.timers == timer_mode::beast || options.timers == timer_mode::off)
  {
    chat_server<beast::tcp_stream> server(io, options, nullptr);
    return example_common::listen_and_run(
        program, io, server, options.bind_address, options.port, 1);
  }
  // Before the first timer on this context: the wheel of every routed timer
  // (they are timers of steady_clock with Asio's wait traits: wheel_timer's).
  asio_wheel::wheel_options wheel;
  wheel.tick = options.tick;
  auto& service = asio_wheel::make_wheel_service(io, wheel);
  if (!websocket_timer_routed)
    std::cerr << program << ": note: Beast " << BOOST_BEAST_VERSION
              << " keeps websocket::stream's timer a steady_timer whatever the "
                 "executor; Beast 1.82 (347) and later route it to the wheel\n";
  chat_server<routed_stream> server(
      io, options, [&service] { return service.stats(); });
  return example_common::listen_and_run(
      program, io, server, options.bind_address, options.port, 1);
}
