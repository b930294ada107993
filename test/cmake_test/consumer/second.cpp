// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// A second translation unit that includes asio-wheel, in either flavour: a function of the
// library defined in a header but not inline would be defined twice, and the link fails.
#include <asio_wheel.hpp>
#include <asio_wheel/cancel_after.hpp>

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
