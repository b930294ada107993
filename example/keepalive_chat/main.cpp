// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// keepalive_chat_server: parses the flags, configures the timing wheel with
// --tick and --idle-tolerance, prints "listening on ADDRESS:PORT" as its first
// line (scripts and tests read the port from it), and runs until SIGINT/SIGTERM
// has said goodbye to every client: one io_context on --threads threads, or
// --contexts io_contexts of one thread each, every one with its own wheel.
#include "chat_server.hpp"

#include "common/flags.hpp"
#include "common/server_main.hpp"

#include <boost/asio/io_context.hpp>

#include <memory>
#include <vector>

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

  // options.contexts > 1 implies one thread each (options.cpp refuses both).
  //! [contexts]
  std::vector<std::unique_ptr<boost::asio::io_context>> owned;
  std::vector<boost::asio::io_context*> contexts;
  for (std::size_t i = 0; i < options.contexts; ++i)
  {
    owned.push_back(std::make_unique<boost::asio::io_context>(
        static_cast<int>(options.threads)));
    contexts.push_back(owned.back().get());
    // Must come before the first wheel_timer on this context exists (the server's own).
    asio_wheel::wheel_options wheel;
    wheel.tick = options.tick;
    // Context-wide, so every wheel wait of the server gets it, not only the idle
    // ones; the idle timeouts are what it is for: one per connection, long, and
    // nobody minds a close a little late.
    wheel.tolerance = options.idle_tolerance;
    asio_wheel::make_wheel_service(*owned.back(), wheel);
  }
  //! [contexts]

  chat_server server(contexts, options);
  return example_common::run_contexts(program, contexts, server,
      options.bind_address, options.port, options.threads);
}
