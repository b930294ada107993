//
// example/timeouts/options.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The command line of this folder's servers: --port P, --idle-ms MS, --check. An invalid
// option throws std::invalid_argument naming it.
//

#ifndef ASIO_WHEEL_EXAMPLE_TIMEOUTS_OPTIONS_HPP
#define ASIO_WHEEL_EXAMPLE_TIMEOUTS_OPTIONS_HPP

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>

struct example_options
{
  std::uint16_t port = 0;
  std::chrono::milliseconds idle = std::chrono::seconds(30);
  bool check = false;
};

inline example_options parse_options(
    const std::string& program, int argc, char** argv)
{
  example_options options;
  auto number = [&](const std::string& flag, const char* text, long max) {
    std::size_t used = 0;
    long value = -1;
    try
    {
      value = std::stol(text, &used);
    }
    catch (const std::exception&)
    {}
    if (used == 0 || text[used] != '\0' || value < 0 || value > max)
      throw std::invalid_argument(program + ": invalid " + flag + " '" + text
          + "' (an integer from 0 to " + std::to_string(max) + ")");
    return value;
  };
  for (int i = 1; i < argc; ++i)
  {
    const std::string flag = argv[i];
    if (flag == "--check")
    {
      options.check = true;
      continue;
    }
    if (flag != "--port" && flag != "--idle-ms")
      throw std::invalid_argument(program + ": unknown option '" + flag
          + "' (--port P, --idle-ms MS, --check)");
    if (i + 1 >= argc)
      throw std::invalid_argument(program + ": " + flag + " needs a value");
    if (flag == "--port")
      options.port = static_cast<std::uint16_t>(number(flag, argv[++i], 65535));
    else
      options.idle =
          std::chrono::milliseconds(number(flag, argv[++i], 24L * 3600 * 1000));
  }
  if (options.idle.count() == 0)
    throw std::invalid_argument(
        program + ": invalid --idle-ms '0' (at least 1)");
  return options;
}

#endif  // ASIO_WHEEL_EXAMPLE_TIMEOUTS_OPTIONS_HPP
