// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// Command-line flags of the WebSocket chat server, parsed with the examples' shared helpers
// (common/flags.hpp): a bad flag or value throws example_common::usage_error whose message
// is one line naming the flag; main() prints it and exits with status 2.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace websocket_chat {

// Which timers the server's websocket streams use (the same server code, three builds of its
// stream type; see server.hpp).
enum class timer_mode
{
  wheel,  // Beast's own timeouts, its timers routed to the wheel (wheel_executor)
  beast,  // Beast's own timeouts on Beast's own steady_timers
  off  // no timeouts at all
};

const char* to_string(timer_mode mode);

struct server_options;
// Whether the server sets Beast's timeouts (not with --timers off or --no-timeouts).
bool timed(const server_options& o);

struct server_options
{
  std::string bind_address = "127.0.0.1";
  unsigned short port =
      0;  // 0: the kernel picks a free port, printed on the first line
  timer_mode timers = timer_mode::wheel;
  // Beast's stream_base::timeout::suggested(role_type::server): idle 300 s with
  // keep-alive pings (a ping at half of it), 30 s for the handshakes.
  std::chrono::nanoseconds idle_timeout = std::chrono::seconds(300);
  std::chrono::nanoseconds handshake_timeout = std::chrono::seconds(30);
  bool keep_alive_pings = true;
  // The wheel's tick (--timers wheel): idle timeouts are seconds long, so
  // 10 ms is plenty of precision, and the wheel wakes the loop at most 100 times
  // a second however many connections there are.
  std::chrono::nanoseconds tick = std::chrono::milliseconds(10);
  // The stream of --timers, but no timeouts set: what that stream costs without
  // them (benchmark W11's floor for the routed stream; --timers off is Beast's).
  bool no_timeouts = false;
  std::size_t max_connections = 100000;
  // Threads running the one io_context (--threads); above 1, each session on a strand.
  std::size_t threads = 1;
  // io_contexts, each run by one thread of its own (--contexts): a connection lives on one
  // of them, its timers in that context's wheel. 1: one context run by --threads threads.
  // The two are not combined.
  std::size_t contexts = 1;
  std::size_t max_message = 4096;  // bytes; Beast's read_message_max
  std::size_t max_queue =
      256 * 1024;  // bytes queued for one client before it is cut off
  // The page served at GET /: empty, the chat.html embedded at build time; a file named
  // with --page is read once at start, to try changes to the page without a rebuild.
  std::string page_file;
  // --log: one line per connection event on stdout (the browser test times the idle close
  // from it); off by default, since a demo's ten thousand connections would flood it.
  bool log_events = false;
  bool help = false;
};

// Parses the server's flags; throws example_common::usage_error on a bad flag or value.
server_options parse_server_options(int argc, char** argv);

// The --help text: every flag with its default.
std::string server_usage(const std::string& program);

}  // namespace websocket_chat
