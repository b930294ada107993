// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// Flag parsing for the WebSocket chat server, on the examples' shared helpers
// (common/flags.hpp). Every error message starts with the flag it is about.
#include "options.hpp"

#include "common/flags.hpp"

#include <fstream>
#include <sstream>

namespace websocket_chat {

using example_common::check_one_shape;
using example_common::for_each_flag;
using example_common::format_duration;
using example_common::parse_address;
using example_common::parse_count;
using example_common::parse_duration;
using example_common::shape_help;
using example_common::usage_error;

const char* to_string(timer_mode mode)
{
  switch (mode)
  {
  case timer_mode::wheel:
    return "wheel";
  case timer_mode::beast:
    return "beast";
  case timer_mode::off:
    return "off";
  }
  return "?";
}

bool timed(const server_options& o)
{
  return o.timers != timer_mode::off && !o.no_timeouts;
}

server_options parse_server_options(int argc, char** argv)
{
  server_options o;
  for_each_flag(argc, argv, {"--help", "--no-timeouts", "--log"},
      [&](const std::string& flag, const std::string& value) {
        if (flag == "--help")
          o.help = true;
        else if (flag == "--bind")
          o.bind_address = parse_address(flag, value);
        else if (flag == "--port")
          o.port =
              static_cast<unsigned short>(parse_count(flag, value, 0, 65535));
        else if (flag == "--timers")
        {
          if (value == "wheel")
            o.timers = timer_mode::wheel;
          else if (value == "beast")
            o.timers = timer_mode::beast;
          else if (value == "off")
            o.timers = timer_mode::off;
          else
            throw usage_error(
                "--timers: must be wheel, beast or off, got \"" + value + "\"");
        }
        else if (flag == "--no-timeouts")
          o.no_timeouts = true;
        else if (flag == "--idle-timeout")
          o.idle_timeout = parse_duration(flag, value);
        else if (flag == "--handshake-timeout")
          o.handshake_timeout = parse_duration(flag, value);
        else if (flag == "--pings")
        {
          if (value == "on")
            o.keep_alive_pings = true;
          else if (value == "off")
            o.keep_alive_pings = false;
          else
            throw usage_error(
                "--pings: must be on or off, got \"" + value + "\"");
        }
        else if (flag == "--tick")
        {
          o.tick = parse_duration(flag, value);
          if (o.tick.count() == 0)
            throw usage_error(
                "--tick: must be greater than 0, got \"" + value + "\"");
        }
        else if (flag == "--max-connections")
          o.max_connections = parse_count(flag, value, 1, 10'000'000);
        else if (flag == "--threads")
          o.threads = parse_count(flag, value, 1, 256);
        else if (flag == "--contexts")
          o.contexts = parse_count(flag, value, 1, 256);
        else if (flag == "--max-message")
          o.max_message = parse_count(flag, value, 16, 1 << 20);
        else if (flag == "--max-queue")
          o.max_queue = parse_count(flag, value, 4096, std::uint64_t(1) << 30);
        else if (flag == "--page")
        {
          // Checked here, so that a wrong name exits 2 like any bad flag value.
          if (value.empty() || !std::ifstream(value))
            throw usage_error("--page: cannot read \"" + value + "\"");
          o.page_file = value;
        }
        else if (flag == "--log")
          o.log_events = true;
        else
          throw usage_error(flag + ": unknown flag (see --help)");
      });
  check_one_shape(o.threads, o.contexts);
  if (timed(o))
  {
    // Beast pings at half the idle timeout: both halves must be at least a tick.
    if (o.idle_timeout < 2 * o.tick)
      throw usage_error("--idle-timeout: must be at least two ticks ("
          + format_duration(2 * o.tick) + "), got "
          + format_duration(o.idle_timeout));
    if (o.handshake_timeout < o.tick)
      throw usage_error("--handshake-timeout: must be at least a tick ("
          + format_duration(o.tick) + "), got "
          + format_duration(o.handshake_timeout));
  }
  return o;
}

std::string server_usage(const std::string& program)
{
  const server_options d;
  std::ostringstream out;
  out << "usage: " << program << " [flags]\n"
      << "A Boost.Beast WebSocket chat server (one room) whose idle timeout "
         "with keep-alive pings is\n"
      << "Beast's own (websocket::stream_base::timeout), its timer routed to "
         "the asio_wheel timing wheel.\n"
      << "Durations take a unit: ns, us, ms, s, m (e.g. 30s, 250ms).\n\n"
      << "  --bind ADDRESS          address to listen on (default "
      << d.bind_address << ")\n"
      << "  --port N                port, 0 picks a free one (default 0)\n"
      << "  --timers MODE           wheel: Beast's timers routed to the wheel "
         "(asio_wheel::wheel_executor);\n"
      << "                          beast: Beast's own steady_timers; off: no "
         "timeouts (default "
      << to_string(d.timers) << ")\n"
      << "  --idle-timeout D        close a connection idle this long; with "
         "pings, one at half of it and\n"
      << "                          the close only if it went unanswered "
         "(default "
      << format_duration(d.idle_timeout) << ")\n"
      << "  --no-timeouts           the stream of --timers without timeouts "
         "(what that stream costs\n"
      << "                          without them: benchmark W11's floor)\n"
      << "  --pings on|off          Beast's keep-alive pings (default on)\n"
      << "  --handshake-timeout D   the opening and the closing handshakes' "
         "limit (default "
      << format_duration(d.handshake_timeout) << ")\n"
      << "  --tick D                the timing wheel's tick, the timeouts' "
         "precision with --timers wheel\n"
      << "                          (default " << format_duration(d.tick)
      << ")\n"
      << "  --max-connections N     refuse connections beyond this many "
         "(default "
      << d.max_connections << ")\n"
      << shape_help(d.threads, d.contexts)
      << "  --max-message N         largest message accepted, in bytes "
         "(default "
      << d.max_message << ")\n"
      << "  --max-queue N           bytes queued for one client before it is "
         "cut off (default "
      << d.max_queue << ")\n"
      << "  --page FILE             the HTML page served at GET / (default: "
         "chat.html, built in)\n"
      << "  --log                   print a line per connection event "
         "(HTTP requests, joins, pongs,\n"
      << "                          closes with their reasons), each with "
         "the steady clock's time\n"
      << "  --help                  print this and exit\n\n"
      << "The first line printed is \"listening on ADDRESS:PORT\"; "
         "http://ADDRESS:PORT/ is the chat page,\n"
      << "and the WebSocket is at ws://ADDRESS:PORT/. SIGINT/SIGTERM: every "
         "client gets\n"
      << "\"BYE server-shutdown\" and a close (1001 going away), then the "
         "server exits 0. A bad\n"
      << "flag value exits 2.\n";
  return out.str();
}

}  // namespace websocket_chat
