//
// test/flavours/main.cpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// both_flavours_test: one program holding asio-wheel twice, the Boost.Asio flavour
// (asio_wheel::asio_wheel) and the standalone one (asio_wheel::asio_wheel_standalone),
// each used by its half (side.cpp compiled twice). It fails
// - at link time (CMakeLists.txt) if the two flavours define one name twice: both
//   libraries are linked whole (--whole-archive: a symbol defined in both is a multiple
//   definition), and with GCC the whole program is link-time optimised with
//   -Werror=odr, whose checker rejects one class name defined two ways;
// - here, if either half's waits do not complete as they must, or if the two halves'
//   timer, service and error_code types are not distinct, each in its flavour's
//   namespace.
//

#include "report.hpp"

#include <iostream>

namespace {

int failures = 0;

void check(bool ok, const std::string& what)
{
  std::cout << (ok ? "  ok    " : "  FAIL  ") << what << '\n';
  if (!ok)
    ++failures;
}

void print(const char* name, const flavour_report& r)
{
  std::cout << name << ": Asio " << r.asio_version << ", timer " << r.timer_type
            << "\n  service " << r.service_type << "\n  error_code "
            << r.error_code_type
            << "\n  20 ms wait: " << (r.expired ? "expired" : "NOT expired")
            << " after " << r.waited_ms << " ms; cancelled wait: "
            << (r.aborted ? "operation_aborted" : "NOT aborted")
            << "; stats: " << r.waits_expired << " expired, "
            << r.waits_cancelled << " cancelled\n";
}

bool contains(const std::string& s, const std::string& part)
{
  return s.find(part) != std::string::npos;
}

void check_half(const char* name, const flavour_report& r,
    const std::string& ns, const std::string& error_code_type)
{
  check(r.expired && r.waited_ms >= 20,
      std::string(name) + ": the 20 ms wait expired, not early");
  check(r.aborted,
      std::string(name)
          + ": the cancelled wait completed with operation_aborted");
  check(r.waits_expired == 1 && r.waits_cancelled == 1,
      std::string(name)
          + ": its service counted 1 expired and 1 cancelled wait");
  check(contains(r.timer_type, "asio_wheel::" + ns + "::basic_wheel_timer<"),
      std::string(name) + ": the timer is asio_wheel::" + ns
          + "::basic_wheel_timer");
  check(
      contains(r.service_type, "asio_wheel::" + ns + "::wheel_timer_service<"),
      std::string(name) + ": the service is asio_wheel::" + ns
          + "::wheel_timer_service");
  check(r.error_code_type == error_code_type,
      std::string(name) + ": error_code is " + error_code_type);
}

}  // namespace

int main()
{
  const flavour_report boost = run_boost_flavour();
  const flavour_report standalone = run_standalone_flavour();
  print("Boost.Asio flavour", boost);
  print("standalone flavour", standalone);

  check_half(
      "Boost.Asio flavour", boost, "boost_asio", "boost::system::error_code");
  check_half(
      "standalone flavour", standalone, "standalone_asio", "std::error_code");
  check(boost.timer_type != standalone.timer_type
          && boost.service_type != standalone.service_type,
      "the two flavours' timer and service are distinct types");

  std::cout << (failures == 0 ? "both_flavours_test: passed\n"
                              : "both_flavours_test: FAILED\n");
  return failures == 0 ? 0 : 1;
}
