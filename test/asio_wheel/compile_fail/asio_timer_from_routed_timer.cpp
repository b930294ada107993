// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// Must not compile: Asio's own timer cannot take over a routed timer (its waits live in the
// wheel); the message names what to use instead (an asio_wheel::basic_wheel_timer).
#include "../../test_asio.hpp"

#include <asio_wheel/wheel_executor.hpp>

#include <chrono>
#include <utility>

namespace asio = asio_wheel::asio;

using routed_timer = asio::basic_waitable_timer<std::chrono::steady_clock,
    asio::wait_traits<std::chrono::steady_clock>, asio_wheel::wheel_executor<>>;

asio::steady_timer convert(routed_timer& routed)
{
  return asio::steady_timer(std::move(routed));
}
