//
// test/flavours/side.cpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// One half of both_flavours_test, compiled twice: once in the Boost.Asio flavour
// (run_boost_flavour) and once with ASIO_WHEEL_STANDALONE (run_standalone_flavour).
// Each half waits on a real wheel_timer on its own io_context, cancels another, and
// reports the types it used, so that main() can check that the two flavours are
// distinct types working side by side in one program.
//

#include <asio_wheel.hpp>

#include "report.hpp"

#include <chrono>
#include <cxxabi.h>
#include <cstdlib>
#include <memory>
#include <type_traits>
#include <typeinfo>

#if defined(ASIO_WHEEL_STANDALONE)
# include <asio/io_context.hpp>
# include <asio/version.hpp>
// The promise of the standalone flavour: neither Boost.Asio nor Boost.System came in.
# if defined(BOOST_ASIO_DETAIL_CONFIG_HPP) || defined(BOOST_ASIO_VERSION)      \
     || defined(BOOST_SYSTEM_DETAIL_CONFIG_HPP_INCLUDED)
#  error "the standalone flavour included a Boost.Asio or Boost.System header"
# endif
# define FLAVOUR_RUN run_standalone_flavour
# define FLAVOUR_NAMESPACE standalone_asio
# define FLAVOUR_ASIO_VERSION ASIO_VERSION
namespace {
namespace net = ::asio;
using error_code = std::error_code;
}  // namespace
#else
# include <boost/asio/io_context.hpp>
# include <boost/asio/version.hpp>
# define FLAVOUR_RUN run_boost_flavour
# define FLAVOUR_NAMESPACE boost_asio
# define FLAVOUR_ASIO_VERSION BOOST_ASIO_VERSION
namespace {
namespace net = ::boost::asio;
using error_code = ::boost::system::error_code;
}  // namespace
#endif

// asio_wheel::wheel_timer is the flavour's own, in its inline namespace.
static_assert(std::is_same_v<asio_wheel::wheel_timer,
                  asio_wheel::FLAVOUR_NAMESPACE::wheel_timer>,
    "asio_wheel::wheel_timer is not in the flavour's inline namespace");
static_assert(
    std::is_same_v<asio_wheel::wheel_timer_service<std::chrono::steady_clock>,
        asio_wheel::FLAVOUR_NAMESPACE::wheel_timer_service<
            std::chrono::steady_clock>>,
    "wheel_timer_service is not in the flavour's inline namespace");

namespace {

std::string demangle(const std::type_info& type)
{
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(
      abi::__cxa_demangle(type.name(), nullptr, nullptr, &status), std::free);
  return status == 0 && name ? std::string(name.get())
                             : std::string(type.name());
}

}  // namespace

flavour_report FLAVOUR_RUN()
{
  flavour_report report;
  report.asio_version = FLAVOUR_ASIO_VERSION;

  net::io_context io;
  const auto start = std::chrono::steady_clock::now();
  asio_wheel::wheel_timer timer(io, std::chrono::milliseconds(20));
  timer.async_wait([&](const error_code& ec) {
    report.expired = !ec;
    report.waited_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - start)
                           .count();
  });
  asio_wheel::wheel_timer cancelled(io, std::chrono::seconds(30));
  cancelled.async_wait([&](const error_code& ec) {
    report.aborted = ec == net::error::operation_aborted;
  });
  cancelled.cancel();
  io.run();

  auto& service = net::use_service<
      asio_wheel::wheel_timer_service<std::chrono::steady_clock>>(io);
  report.waits_expired = service.stats().waits_expired;
  report.waits_cancelled = service.stats().waits_cancelled;
  report.timer_type = demangle(typeid(timer));
  report.service_type = demangle(typeid(service));
  report.error_code_type = demangle(typeid(error_code));
  return report;
}
