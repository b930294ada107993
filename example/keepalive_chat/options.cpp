// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// Flag parsing for the keepalive chat server, on the examples' shared helpers
// (common/flags.hpp). Every error message starts with the flag it is about.
#include "options.hpp"

#include "common/flags.hpp"

#include <sstream>
#include <string>

namespace keepalive_chat {

using example_common::check_one_shape;
using example_common::for_each_flag;
using example_common::format_duration;
using example_common::parse_address;
using example_common::parse_count;
using example_common::parse_duration;
using example_common::parse_fraction;
using example_common::shape_help;
using example_common::usage_error;

const char* timer_kind_name(timer_kind kind)
{
  switch (kind)
  {
  case timer_kind::steady:
    return "steady";
  case timer_kind::steady_lazy:
    return "steady-lazy";
  default:
    return "wheel";
  }
}

server_options parse_server_options(int argc, char** argv)
{
  server_options o;
  for_each_flag(argc, argv, {"--help"},
      [&](const std::string& flag, const std::string& value) {
        if (flag == "--help")
        {
          o.help = true;
        }
        else if (flag == "--bind")
        {
          o.bind_address = parse_address(flag, value);
        }
        else if (flag == "--port")
        {
          o.port =
              static_cast<unsigned short>(parse_count(flag, value, 0, 65535));
        }
        else if (flag == "--idle-timeout")
        {
          o.idle_timeout = parse_duration(flag, value);
        }
        else if (flag == "--tick")
        {
          o.tick = parse_duration(flag, value);
          if (o.tick.count() == 0)
            throw usage_error(
                "--tick: must be greater than 0, got \"" + value + "\"");
        }
        else if (flag == "--write-timeout")
        {
          o.write_timeout = parse_duration(flag, value);
          if (o.write_timeout.count() == 0)
            throw usage_error("--write-timeout: must be greater than 0, got \""
                + value + "\"");
        }
        else if (flag == "--idle-tolerance")
        {
          o.idle_tolerance = parse_fraction(flag, value);
        }
        else if (flag == "--max-connections")
        {
          o.max_connections = parse_count(flag, value, 1, 10'000'000);
        }
        else if (flag == "--threads")
        {
          o.threads = parse_count(flag, value, 1, 256);
        }
        else if (flag == "--contexts")
        {
          o.contexts = parse_count(flag, value, 1, 256);
        }
        else if (flag == "--max-line")
        {
          o.max_line = parse_count(flag, value, 16, 1 << 20);
        }
        else if (flag == "--max-queue")
        {
          o.max_queue = parse_count(flag, value, 4096, std::uint64_t(1) << 30);
        }
        else if (flag == "--timers")
        {
          bool known = false;
          for (timer_kind kind :
              {timer_kind::wheel, timer_kind::steady, timer_kind::steady_lazy})
            if (value == timer_kind_name(kind))
            {
              o.timers = kind;
              known = true;
            }
          if (!known)
            throw usage_error(
                "--timers: must be wheel, steady or steady-lazy, got \"" + value
                + "\"");
        }
        else
        {
          throw usage_error(flag + ": unknown flag (see --help)");
        }
      });
  // steady_timer has no tolerance: the flag would do nothing.
  if (o.timers != timer_kind::wheel && o.idle_tolerance != 0.0)
    throw usage_error(
        "--idle-tolerance: applies to --timers wheel only, not --timers "
        + std::string(timer_kind_name(o.timers)));
  check_one_shape(o.threads, o.contexts);
  // The PING goes out at idle/2, so both halves must be at least a tick long.
  if (o.idle_timeout < 2 * o.tick)
    throw usage_error("--idle-timeout: must be at least two ticks ("
        + format_duration(2 * o.tick) + "), got "
        + format_duration(o.idle_timeout));
  return o;
}

std::string server_usage(const std::string& program)
{
  const server_options d;
  std::ostringstream out;
  out << "usage: " << program << " [flags]\n"
      << "A line-based TCP chat server whose timeouts are "
         "asio_wheel::wheel_timer\n(or, with --timers, "
         "boost::asio::steady_timer, to compare).\n"
      << "Durations take a unit: ns, us, ms, s, m (e.g. 30s, 250ms).\n\n"
      << "  --bind ADDRESS          address to listen on (default "
      << d.bind_address << ")\n"
      << "  --port N                port, 0 picks a free one (default 0)\n"
      << "  --idle-timeout D        close a connection silent this long; PING "
         "at half (default "
      << format_duration(d.idle_timeout) << ")\n"
      << "  --tick D                timing wheel tick, the timeout precision "
         "(default "
      << format_duration(d.tick) << ")\n"
      << "  --idle-tolerance F      an idle close may come up to F x the idle "
         "timeout late, never early, so\n"
      << "                          closes due close together share one "
         "wakeup; F in [0, 1] (0: precise),\n"
      << "                          e.g. 1/64 or 0.015625 (default "
      << d.idle_tolerance << "). Context-wide (wheel_options::tolerance):\n"
      << "                          the write deadline may be late by the same "
         "fraction of --write-timeout\n"
      << "  --write-timeout D       a write stuck this long marks a slow "
         "consumer (default "
      << format_duration(d.write_timeout) << ")\n"
      << "  --max-connections N     refuse connections beyond this many "
         "(default "
      << d.max_connections << ")\n"
      << shape_help(d.threads, d.contexts)
      << "  --max-line N            longest accepted line in bytes (default "
      << d.max_line << ")\n"
      << "  --max-queue N           bytes queued for one client before it is "
         "cut off (default "
      << d.max_queue << ")\n"
      << "  --timers KIND           a session's idle and write timers (default "
      << timer_kind_name(d.timers) << "):\n"
      << "                          wheel: asio_wheel::wheel_timer, a line "
         "calls extend_after;\n"
      << "                          steady: boost::asio::steady_timer, a line "
         "cancels the wait and\n"
      << "                          starts another; steady-lazy: "
         "steady_timer, a line stores its time\n"
      << "                          and the timer, armed once, re-arms for "
         "what remains when it fires\n"
      << "  --help                  print this and exit\n\n"
      << "The first line printed is \"listening on ADDRESS:PORT\". "
         "SIGINT/SIGTERM: every client\n"
      << "gets \"BYE server-shutdown\", then the server exits 0. A bad flag "
         "value exits 2.\n";
  return out.str();
}

}  // namespace keepalive_chat
