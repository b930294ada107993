// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// Command-line flags of the keepalive chat server, parsed with the examples' shared helpers
// (common/flags.hpp): a bad flag or value throws example_common::usage_error whose message
// is one line naming the flag; main() prints it and exits with status 2.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace keepalive_chat {

// The timers of a session, and how a received line refreshes the idle one
// (--timers; session.hpp):
//   wheel        asio_wheel::wheel_timer, extend_after on every line
//   steady       boost::asio::steady_timer, expires_at + async_wait on every
//                line (the pending wait is cancelled: an aborted handler runs)
//   steady_lazy  steady_timer, the expert's idiom: a line only stores its
//                time; the timer, armed once, checks it when it fires and
//                re-arms for what remains
enum class timer_kind
{
  wheel,
  steady,
  steady_lazy
};

// "wheel", "steady", "steady-lazy": as --timers spells them.
const char* timer_kind_name(timer_kind kind);

struct server_options
{
  std::string bind_address = "127.0.0.1";
  unsigned short port =
      0;  // 0: the kernel picks a free port, printed on the first line
  std::chrono::nanoseconds idle_timeout = std::chrono::seconds(30);
  // Idle timeouts are seconds long, so 10 ms is plenty of precision; it also
  // caps the wheel at 100 wakeups per second however many connections
  // there are, and 4096 slots x 10 ms = 41 s covers a 30 s timeout in one round.
  std::chrono::nanoseconds tick = std::chrono::milliseconds(10);
  // A write that makes no progress for this long marks a slow consumer.
  std::chrono::nanoseconds write_timeout = std::chrono::seconds(10);
  // wheel_options::tolerance, context-wide: each wheel wait may complete up to
  // this fraction of its length late, never early, so that idle closes due
  // close together share one wakeup. 0: every wait at its own tick.
  double idle_tolerance = 0.0;
  std::size_t max_connections = 100000;
  std::size_t threads = 1;
  // io_contexts, each run by one thread of its own (--contexts): a connection
  // lives on one of them, its timers in that context's wheel. 1: one context
  // run by --threads threads. The two are not combined.
  std::size_t contexts = 1;
  std::size_t max_line = 1024;  // bytes, not counting the '\n' (or "\r\n")
  std::size_t max_queue =
      256 * 1024;  // bytes queued for one client before it is cut off
  timer_kind timers = timer_kind::wheel;
  bool help = false;
};

// Parses the server's flags; throws example_common::usage_error on a bad flag or value.
server_options parse_server_options(int argc, char** argv);

// The --help text: every flag with its default.
std::string server_usage(const std::string& program);

}  // namespace keepalive_chat
