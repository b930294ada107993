//
// example/common/flags.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The command-line flag parsing every example program shares: walking "--flag value" and
// "--flag=value", the values checked as they are read (durations with a unit such as "30s"
// or "250ms", bounded counts, fractions such as "1/64", IP addresses), and what main() does
// with the result (parse_flags_or_exit). A bad flag or value throws usage_error, whose
// message is one line naming the flag; main() prints it and exits with status 2.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>

namespace example_common {

// What main() prints before exiting with status 2.
struct usage_error : std::runtime_error
{
  using std::runtime_error::runtime_error;
};

// "30s", "250ms", "1500us", "2m", "100ns": a non-negative integer with a unit.
std::chrono::nanoseconds parse_duration(
    const std::string& flag, const std::string& text);

// A decimal integer in [min, max].
std::uint64_t parse_count(const std::string& flag, const std::string& text,
    std::uint64_t min, std::uint64_t max);

// The chat servers' two shapes on several cores, one or the other: --threads N (one
// io_context run by N threads, each session on a strand) or --contexts N (N io_contexts of
// one thread each). Throws usage_error naming --contexts when both are above 1.
void check_one_shape(std::size_t threads, std::size_t contexts);

// The --help lines of --threads and --contexts, with their defaults.
std::string shape_help(std::size_t threads, std::size_t contexts);

// A fraction in [0, 1]: a decimal ("0.015625", ".5", "1") or a ratio of two
// decimals ("1/64"). No sign, exponent, inf or nan.
double parse_fraction(const std::string& flag, const std::string& text);

// An IP address to listen on ("127.0.0.1", "::1"), returned as written.
std::string parse_address(const std::string& flag, const std::string& text);

// "3s", "250ms", "1500us": the shortest exact spelling, for messages.
std::string format_duration(std::chrono::nanoseconds d);

// Walks argv as "--flag value" or "--flag=value". Calls on_flag(flag, value)
// for each; a flag in no_value_flags (such as --help) gets an empty value.
template <class OnFlag>
void for_each_flag(int argc, char** argv,
    std::initializer_list<const char*> no_value_flags, OnFlag on_flag)
{
  for (int i = 1; i < argc; ++i)
  {
    std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0)
      throw usage_error(
          "unexpected argument \"" + arg + "\" (flags start with --)");
    std::string value;
    bool has_value = false;
    if (auto eq = arg.find('='); eq != std::string::npos)
    {
      value = arg.substr(eq + 1);
      arg.resize(eq);
      has_value = true;
    }
    bool takes_value = true;
    for (const char* f : no_value_flags)
      if (arg == f)
        takes_value = false;
    if (takes_value && !has_value)
    {
      if (i + 1 >= argc)
        throw usage_error(arg + ": missing value");
      value = argv[++i];
    }
    on_flag(arg, value);
  }
}

// The start of every example's main(): options = parse(argc, argv). A usage_error is printed
// as "PROGRAM: MESSAGE" on stderr and gives exit status 2; options.help prints usage() on
// stdout and gives 0. Otherwise nullopt: the program goes on with the options.
template <class Options, class Parse, class Usage>
std::optional<int> parse_flags_or_exit(int argc, char** argv,
    const std::string& program, Options& options, Parse parse, Usage usage)
{
  try
  {
    options = parse(argc, argv);
  }
  catch (const usage_error& e)
  {
    std::cerr << program << ": " << e.what() << "\n";
    return 2;
  }
  if (options.help)
  {
    std::cout << usage();
    return 0;
  }
  return std::nullopt;
}

}  // namespace example_common
