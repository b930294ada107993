// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// Flag parsing of the HTTP keep-alive server, on the examples' shared helpers
// (common/flags.hpp). Every error message starts with the flag it is about.
#include "options.hpp"

#include "common/flags.hpp"

#include <sstream>

namespace http_keepalive {

using example_common::for_each_flag;
using example_common::format_duration;
using example_common::parse_address;
using example_common::parse_count;
using example_common::parse_duration;
using example_common::parse_fraction;
using example_common::usage_error;

server_options parse_server_options(int argc, char** argv, bool on_wheel)
{
  server_options o;
  for_each_flag(argc, argv, {"--help", "--no-timeout"},
      [&](const std::string& flag, const std::string& value) {
        if (flag == "--help")
        {
          o.help = true;
        }
        else if (flag == "--no-timeout")
        {
          o.no_timeout = true;
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
        else if (flag == "--threads")
        {
          o.threads = parse_count(flag, value, 1, 256);
        }
        else if (flag == "--idle-timeout")
        {
          o.idle_timeout = parse_duration(flag, value);
          if (o.idle_timeout.count() == 0)
            throw usage_error("--idle-timeout: must be greater than 0, got \""
                + value + "\"");
        }
        else if (flag == "--idle-tolerance")
        {
          // Rejected rather than ignored: a comparison run that believes the Beast
          // stream was tolerant too would be comparing different things.
          if (!on_wheel)
            throw usage_error("--idle-tolerance: only http_keepalive takes it "
                              "(asio_wheel::beast::tcp_stream, whose "
                              "timeouts are timing wheel entries)");
          o.idle_tolerance = parse_fraction(flag, value);
        }
        else if (flag == "--body")
        {
          if (value.size() > 1 << 20)
            throw usage_error("--body: at most 1 MiB, got "
                + std::to_string(value.size()) + " bytes");
          o.body = value;
        }
        else
        {
          throw usage_error(flag + ": unknown flag (see --help)");
        }
      });
  return o;
}

std::string server_usage(
    const std::string& program, const std::string& stream, bool on_wheel)
{
  const server_options d;
  std::ostringstream out;
  out << "usage: " << program << " [flags]\n"
      << "Beast's asynchronous HTTP keep-alive server pattern on " << stream
      << ".\n"
      << "Answers GET and HEAD of any target with 200 and a fixed body; "
         "anything else gets 400.\n"
      << "Durations take a unit: ns, us, ms, s, m (e.g. 30s, 250ms).\n\n"
      << "  --bind ADDRESS        address to listen on (default "
      << d.bind_address << ")\n"
      << "  --port N              port, 0 picks a free one (default 0)\n"
      << "  --threads N           threads running the io_context (default "
      << d.threads << ")\n"
      << "  --idle-timeout D      stream.expires_after(D) before every read: a "
         "connection silent\n"
      << "                        this long is closed (default "
      << format_duration(d.idle_timeout) << "; ignored without timeouts)\n"
      << "  --no-timeout          never call expires_after: no timeout at all, "
         "on the same stream\n";
  if (on_wheel)
    out << "  --idle-tolerance F    the idle close may come up to F x the idle "
           "timeout late, never early,\n"
        << "                        so closes due close together share one "
           "wakeup of the timing wheel\n"
        << "                        (wheel_options::tolerance); F in [0, 1] "
           "(0: precise), e.g. 1/64 or\n"
        << "                        0.015625 (default " << d.idle_tolerance
        << "; ignored without timeouts)\n";
  else
    out << "  --idle-tolerance F    http_keepalive only (its timeouts are "
           "timing wheel entries): rejected here\n";
  out << "  --body TEXT           the body of every 200 response (default "
         "\"Hello, world!\\n\")\n"
      << "  --help                print this and exit\n\n"
      << "The first line printed is \"listening on ADDRESS:PORT\". "
         "SIGINT/SIGTERM: stop accepting,\n"
      << "finish the responses under way, close every connection, exit 0. A "
         "bad flag value exits 2.\n";
  return out.str();
}

}  // namespace http_keepalive
