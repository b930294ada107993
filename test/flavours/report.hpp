//
// test/flavours/report.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// What each flavour's half of both_flavours_test reports to main(). Includes no
// Asio header: main.cpp is compiled in neither flavour.
//

#ifndef ASIO_WHEEL_TEST_FLAVOURS_REPORT_HPP
#define ASIO_WHEEL_TEST_FLAVOURS_REPORT_HPP

#include <cstdint>
#include <string>

struct flavour_report
{
  long asio_version = 0;  // (BOOST_)ASIO_VERSION the half was compiled with
  bool expired = false;  // a 20 ms wait completed with success ...
  long long waited_ms = -1;  // ... after this long
  bool aborted = false;  // a cancelled wait completed with operation_aborted
  std::uint64_t waits_expired = 0;  // the service's stats
  std::uint64_t waits_cancelled = 0;
  std::string timer_type;  // demangled typeid names
  std::string service_type;
  std::string error_code_type;
};

flavour_report run_boost_flavour();  // side.cpp, Boost.Asio flavour
flavour_report run_standalone_flavour();  // side.cpp, standalone flavour

#endif  // ASIO_WHEEL_TEST_FLAVOURS_REPORT_HPP
