// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// A second translation unit that includes asio-wheel, in either flavour: a function of the
// library defined in a header but not inline would be defined twice, and the link fails.
// It also checks the version: ASIO_WHEEL_VERSION (asio_wheel/version.hpp, through
// <asio_wheel.hpp>) must be the version the consumer's build was given,
// ASIO_WHEEL_EXPECTED_MAJOR, _MINOR and _PATCH: the CMake package's (find_package), the
// pkg-config file's (pkg-config, Meson), else the version of the build running the test
// (run_consumer.cmake says which).
#include <asio_wheel.hpp>
#include <asio_wheel/cancel_after.hpp>

#if !defined(ASIO_WHEEL_VERSION)
# error "<asio_wheel.hpp> defined no ASIO_WHEEL_VERSION"
#endif
#if !defined(ASIO_WHEEL_EXPECTED_MAJOR) || !defined(ASIO_WHEEL_EXPECTED_MINOR) \
    || !defined(ASIO_WHEEL_EXPECTED_PATCH)
# error "the build defines ASIO_WHEEL_EXPECTED_MAJOR, _MINOR and _PATCH"
#endif
// Decoded as the header's comment says (Asio's BOOST_ASIO_VERSION).
static_assert(ASIO_WHEEL_VERSION / 100000 == ASIO_WHEEL_EXPECTED_MAJOR
        && ASIO_WHEEL_VERSION / 100 % 1000 == ASIO_WHEEL_EXPECTED_MINOR
        && ASIO_WHEEL_VERSION % 100 == ASIO_WHEEL_EXPECTED_PATCH,
    "ASIO_WHEEL_VERSION (asio_wheel/version.hpp) is not the version the "
    "build found (the CMake package's, pkg-config's or the project's)");

#if defined(ASIO_WHEEL_STANDALONE)
# include <asio/io_context.hpp>
namespace net = asio;
using error_code = std::error_code;
#else
# include <boost/asio/io_context.hpp>
namespace net = boost::asio;
using error_code = boost::system::error_code;
#endif

// Runs a context of its own whose one timer is waited on twice: true when both completed
// with success.
bool second_translation_unit_waits()
{
  net::io_context io;
  asio_wheel::wheel_timer timer(io, std::chrono::milliseconds(2));
  int fired = 0;
  timer.async_wait([&](error_code ec) {
    fired += !ec;
    timer.expires_after(std::chrono::milliseconds(2));
    timer.async_wait([&](error_code ec2) { fired += !ec2; });
  });
  io.run();
  return fired == 2;
}
