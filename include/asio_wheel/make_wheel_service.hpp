//
// asio_wheel/make_wheel_service.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// make_wheel_service: gives an execution context's wheel_timer_service its
// wheel_options, naming the timer type rather than the service's clock and
// wait traits, and saying what to do when the service exists already.
//

#ifndef ASIO_WHEEL_MAKE_WHEEL_SERVICE_HPP
#define ASIO_WHEEL_MAKE_WHEEL_SERVICE_HPP

#include <asio_wheel/detail/config.hpp>

// Without an Asio it can use, config.hpp's one line is all (see there).
#if !defined(ASIO_WHEEL_ASIO_UNUSABLE)

# include <asio_wheel/detail/asio_forward.hpp>
# include <asio_wheel/wheel_options.hpp>
# include <asio_wheel/wheel_timer.hpp>
# include <asio_wheel/wheel_timer_service.hpp>

# include <stdexcept>

ASIO_WHEEL_NAMESPACE_BEGIN

/// Makes the service of @p context that keeps the waits of @p Timer, with
/// @p options.
/**
 * Asio's make_service for Timer::service_type: the service of wheel_timer
 * by default, which is also that of the Beast stream, of cancel_after and of
 * the steady_clock timers routed by wheel_executor. A timer of another clock
 * (system_wheel_timer) has a service of its own, which options given for
 * wheel_timer do not configure. Call it before the first of those is created
 * on @p context: that one makes the service with default options, and
 * options are fixed when the service is made.
 * @code
 * boost::asio::io_context io;
 * asio_wheel::wheel_options opts;
 * opts.tick = std::chrono::milliseconds(10);
 * asio_wheel::make_wheel_service(io, opts);  // before io's first timer
 * @endcode
 * @tparam Timer A basic_wheel_timer (or a timer routed to the wheel by
 * wheel_executor), whose service_type is made.
 * @returns the service, whose options() are @p options.
 * @throws std::invalid_argument naming the field, if @p options is invalid.
 * @throws std::logic_error if the service exists already, saying so and that
 * the options must come before the first timer: Asio's own
 * service_already_exists (a std::logic_error too) says only "Service
 * already exists".
 */
template <typename Timer = wheel_timer>
typename Timer::service_type& make_wheel_service(
    asio::execution_context& context, const wheel_options& options)
{
  using service = typename Timer::service_type;
  const char* const exists =
      "asio_wheel::make_wheel_service: the execution context's "
      "wheel_timer_service already exists: its first timer, cancel_after or "
      "Beast stream made it with default options, or an earlier "
      "make_wheel_service or make_service made it; call make_wheel_service "
      "before the first of them";
  // Asked first: make_service builds a service (its wheel, its place among
  // the reactor's timer queues) before it finds that one exists.
  if (asio::has_service<service>(context))
    throw std::logic_error(exists);
  try
  {
    return asio::make_service<service>(context, options);
  }
  catch (const asio::service_already_exists&)
  {
    throw std::logic_error(exists);  // made by another thread meanwhile
  }
}

ASIO_WHEEL_NAMESPACE_END

#endif  // !defined(ASIO_WHEEL_ASIO_UNUSABLE)

#endif  // ASIO_WHEEL_MAKE_WHEEL_SERVICE_HPP
