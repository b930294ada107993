//
// example/common/flags.cpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The value parsers of flags.hpp. Every error message starts with the flag it is about.
#include "flags.hpp"

#include <boost/asio/ip/address.hpp>

#include <charconv>
#include <string_view>

namespace example_common {

std::chrono::nanoseconds parse_duration(
    const std::string& flag, const std::string& text)
{
  const auto bad = [&] {
    return usage_error(flag
        + ": expected a duration with a unit (e.g. 30s, 250ms), got \"" + text
        + "\"");
  };
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9')
    ++digits;
  if (digits == 0 || digits > 12)
    throw bad();  // 12 digits: no overflow even in ns of minutes
  const std::int64_t n = std::stoll(text.substr(0, digits));
  const std::string unit = text.substr(digits);
  using namespace std::chrono;
  if (unit == "ns")
    return nanoseconds(n);
  if (unit == "us")
    return microseconds(n);
  if (unit == "ms")
    return milliseconds(n);
  if (unit == "s")
    return seconds(n);
  if (unit == "m")
    return minutes(n);
  throw bad();
}

std::uint64_t parse_count(const std::string& flag, const std::string& text,
    std::uint64_t min, std::uint64_t max)
{
  const auto bad = [&] {
    return usage_error(flag + ": expected an integer in [" + std::to_string(min)
        + ", " + std::to_string(max) + "], got \"" + text + "\"");
  };
  if (text.empty() || text.size() > 19)
    throw bad();
  for (char c : text)
    if (c < '0' || c > '9')
      throw bad();
  const std::uint64_t n = std::stoull(text);
  if (n < min || n > max)
    throw bad();
  return n;
}

double parse_fraction(const std::string& flag, const std::string& text)
{
  const auto bad = [&](const std::string& what) {
    return usage_error(flag + ": " + what + ", got \"" + text + "\"");
  };
  // Digits with at most one '.'. Checked by hand because from_chars (like
  // strtod) would also take "inf", "nan" and exponents.
  const auto number = [](std::string_view part, double& value) {
    std::size_t digits = 0, points = 0;
    for (char c : part)
    {
      if (c >= '0' && c <= '9')
        ++digits;
      else if (c == '.')
        ++points;
      else
        return false;
    }
    if (digits == 0 || points > 1)
      return false;
    const auto [end, ec] = std::from_chars(part.data(),
        part.data() + part.size(), value, std::chars_format::fixed);
    return ec == std::errc() && end == part.data() + part.size();
  };
  // A decimal, or a ratio of two: the dividend and the divisor (1 for a decimal).
  const auto ratio = [&](std::string_view s, double& dividend,
                         double& divisor) {
    const auto slash = s.find('/');
    if (slash == std::string_view::npos)
      return number(s, dividend);
    return number(s.substr(0, slash), dividend)
        && number(s.substr(slash + 1), divisor);
  };
  double dividend = 0, divisor = 1;
  if (!ratio(text, dividend, divisor))
  {
    // "-0.5" is a number, only out of range: say that rather than "expected a fraction".
    if (!text.empty() && text[0] == '-'
        && ratio(std::string_view(text).substr(1), dividend, divisor))
      throw bad("must be in [0, 1]");
    throw bad("expected a fraction in [0, 1], a decimal (e.g. 0.015625) or a "
              "ratio (e.g. 1/64)");
  }
  if (divisor == 0)
    throw bad("the ratio divides by zero");
  const double value = dividend / divisor;
  if (value > 1)
    throw bad("must be in [0, 1]");
  return value;
}

void check_one_shape(std::size_t threads, std::size_t contexts)
{
  if (contexts > 1 && threads > 1)
    throw usage_error("--contexts: runs one thread per context, so it does not "
                      "combine with --threads "
        + std::to_string(threads) + " (use one or the other)");
}

std::string shape_help(std::size_t threads, std::size_t contexts)
{
  return "  --threads N             threads running the io_context, a strand "
         "per session (default "
      + std::to_string(threads)
      + ")\n"
        "  --contexts N            io_contexts, one thread each; a "
        "connection and its timers live\n"
        "                          on one of them, handed out in turn "
        "(default "
      + std::to_string(contexts) + "; not with --threads)\n";
}

std::string parse_address(const std::string& flag, const std::string& text)
{
  boost::system::error_code ec;
  boost::asio::ip::make_address(text, ec);
  if (ec)
    throw usage_error(flag
        + ": expected an IP address (e.g. 127.0.0.1, ::1), got \"" + text
        + "\"");
  return text;
}

std::string format_duration(std::chrono::nanoseconds d)
{
  const auto n = d.count();
  if (n != 0 && n % 1'000'000'000 == 0)
    return std::to_string(n / 1'000'000'000) + "s";
  if (n % 1'000'000 == 0)
    return std::to_string(n / 1'000'000) + "ms";
  if (n % 1'000 == 0)
    return std::to_string(n / 1'000) + "us";
  return std::to_string(n) + "ns";
}

}  // namespace example_common
