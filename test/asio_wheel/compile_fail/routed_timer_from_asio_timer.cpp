// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// Must not compile: a routed timer cannot take over Asio's own timer (its waits live in
// Asio's timer queue); the message says to construct it from the executor.
#include "../../test_asio.hpp"

#include <asio_wheel/wheel_executor.hpp>

#include <chrono>
#include <utility>

namespace asio = asio_wheel::asio;

using routed_timer = asio::basic_waitable_timer<std::chrono::steady_clock,
    asio::wait_traits<std::chrono::steady_clock>, asio_wheel::wheel_executor<>>;

routed_timer convert(asio::steady_timer& timer)
{
  return routed_timer(std::move(timer));
}
