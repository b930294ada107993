//
// asio_wheel.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// Everything of asio-wheel but the Beast stream: ASIO_WHEEL_VERSION,
// wheel_options, wheel_stats, wheel_timer_service, make_wheel_service,
// basic_wheel_timer and wheel_timer, cancel_after / cancel_at, and
// wheel_executor (with the basic_waitable_timer specialization that routes
// timers to the wheel). The Beast stream (asio_wheel/beast.hpp) needs
// Boost.Beast and is included on its own.
//

#ifndef ASIO_WHEEL_HPP
#define ASIO_WHEEL_HPP

#include <asio_wheel/version.hpp>
#include <asio_wheel/wheel_options.hpp>
#include <asio_wheel/wheel_timer_service.hpp>
#include <asio_wheel/wheel_timer.hpp>
#include <asio_wheel/make_wheel_service.hpp>
#include <asio_wheel/cancel_after.hpp>
#include <asio_wheel/wheel_executor.hpp>

#endif  // ASIO_WHEEL_HPP
