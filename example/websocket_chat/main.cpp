// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// websocket_chat_server: parses the flags, configures the timing wheel of each context with
// --tick (for --timers wheel), prints "listening on ADDRESS:PORT" as its first line (scripts
// and tests read the port from it), and runs until SIGINT/SIGTERM has said goodbye to every
// client: one io_context on --threads threads, or --contexts io_contexts of one thread each,
// every one with its own wheel.
#include "server.hpp"

#include "common/flags.hpp"
#include "common/server_main.hpp"

#include <asio_wheel/make_wheel_service.hpp>

#include <iostream>
#include <memory>
#include <vector>

namespace {

using namespace websocket_chat;
using wheel_service = asio_wheel::wheel_timer::service_type;

// The wheels' counters summed over the contexts, their lateness the worst one's: the whole
// server's. stats() takes the service's lock, so one context's thread may read another's.
asio_wheel::wheel_stats sum_stats(const std::vector<wheel_service*>& services)
{
  asio_wheel::wheel_stats s{};
  for (const wheel_service* service : services)
  {
    example_common::add_wheel_stats(s, service->stats());
  }
  return s;
}

}  // namespace

int main(int argc, char** argv)
{
  const std::string program = "websocket_chat_server";
  server_options options;
  if (const auto exit_status =
          example_common::parse_flags_or_exit(argc, argv, program, options,
              parse_server_options, [&] { return server_usage(program); }))
    return *exit_status;
  example_common::raise_open_files_limit();

  // options.contexts > 1 implies one thread each (options.cpp refuses both).
  std::vector<std::unique_ptr<net::io_context>> owned;
  std::vector<net::io_context*> contexts;
  for (std::size_t i = 0; i < options.contexts; ++i)
  {
    owned.push_back(
        std::make_unique<net::io_context>(static_cast<int>(options.threads)));
    contexts.push_back(owned.back().get());
  }
  if (options.timers == timer_mode::beast || options.timers == timer_mode::off)
  {
    chat_server<beast::tcp_stream> server(contexts, options, nullptr);
    return example_common::run_contexts(program, contexts, server,
        options.bind_address, options.port, options.threads);
  }
  // Before the first timer on each context: the wheel of every routed timer
  // (they are timers of steady_clock with Asio's wait traits: wheel_timer's).
  std::vector<wheel_service*> services;
  for (net::io_context* io : contexts)
  {
    asio_wheel::wheel_options wheel;
    wheel.tick = options.tick;
    services.push_back(&asio_wheel::make_wheel_service(*io, wheel));
  }
  if (!websocket_timer_routed)
    std::cerr << program << ": note: Beast " << BOOST_BEAST_VERSION
              << " keeps websocket::stream's timer a steady_timer whatever the "
                 "executor; Beast 1.82 (347) and later route it to the wheel\n";
  chat_server<routed_stream> server(
      contexts, options, [services] { return sum_stats(services); });
  return example_common::run_contexts(program, contexts, server,
      options.bind_address, options.port, options.threads);
}
