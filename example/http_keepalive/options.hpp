// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// Command-line flags of the HTTP keep-alive server, parsed with the examples' shared helpers
// (common/flags.hpp: durations with a unit, bounded counts, "--flag value" walking,
// usage_error): a bad flag or value is a one-line error naming the flag, and main() exits
// with status 2.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace http_keepalive {

struct server_options
{
  std::string bind_address = "127.0.0.1";
  unsigned short port =
      0;  // 0: the kernel picks a free port, printed on the first line
  std::size_t threads = 1;
  // stream.expires_after(idle_timeout) before every read, as Beast's example does with 30 s.
  std::chrono::nanoseconds idle_timeout = std::chrono::seconds(30);
  // --no-timeout: no expires_after at all (the stream's expiry stays "never"),
  // to measure what the timeouts cost on the same stream type.
  bool no_timeout = false;
  // --idle-tolerance: wheel_options::tolerance of the io_context's wheel, so an
  // idle close may come up to this fraction of idle_timeout late (never early)
  // and closes due close together share one wakeup. http_keepalive only: the
  // other two programs have no wheel, and reject the flag.
  double idle_tolerance = 0.0;
  // The body of every 200 response; small and fixed, so that a benchmark
  // measures the server and its timeouts, not file I/O.
  std::string body = "Hello, world!\n";
  bool help = false;
};

// Parses the flags; throws example_common::usage_error on a bad flag or value.
// on_wheel: the program's stream keeps its timeouts in the timing wheel, the
// only case where --idle-tolerance means something (else it is an error).
server_options parse_server_options(int argc, char** argv, bool on_wheel);

// The --help text: every flag with its default. `stream` names the stream type.
std::string server_usage(
    const std::string& program, const std::string& stream, bool on_wheel);

}  // namespace http_keepalive
