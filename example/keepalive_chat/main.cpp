// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// keepalive_chat_server: parses the flags, configures the timing wheel with
// --tick and --idle-tolerance, prints "listening on ADDRESS:PORT" as its first
// line (scripts and tests read the port from it), and runs the io_context on
// --threads threads until SIGINT/SIGTERM has said goodbye to every client.
#include "chat_server.hpp"

#include "common/flags.hpp"
#include "common/server_main.hpp"

#include <boost/asio/io_context.hpp>

int main(int argc, char** argv)
{
  using namespace keepalive_chat;
  const std::string program = "keepalive_chat_server";
  server_options options;
  if (const auto exit_status =
          example_common::parse_flags_or_exit(argc, argv, program, options,
              parse_server_options, [&] { return server_usage(program); }))
    return *exit_status;
  example_common::raise_open_files_limit();

  boost::asio::io_context io(static_cast<int>(options.threads));
  // Must come before the first wheel_timer on this context exists (the server's own).
  asio_wheel::wheel_options wheel;
  wheel.tick = options.tick;
  // Context-wide, so every wheel wait of the server gets it, not only the idle
  // ones; the idle timeouts are what it is for: one per connection, long, and
  // nobody minds a close a little late.
  wheel.tolerance = options.idle_tolerance;
  asio_wheel::make_wheel_service(io, wheel);

  chat_server server(io, options);
  return example_common::listen_and_run(
      program, io, server, options.bind_address, options.port, options.threads);
}
