//
// asio_wheel/impl/wheel_timer_service.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The definitions of wheel_timer_service's members. The class is declared
// in asio_wheel/wheel_timer_service.hpp, which includes this file at its end;
// the ground rules (what the lock guards, the invariants, the service's
// words) are at the top of that file. The definitions are grouped by what
// they do, one file each, as Asio's detail/impl/ files are:
//   wheel_timer_service_context.hpp    the service in its context: of(),
//                                      stats(), shutdown()
//   wheel_timer_service_lifetime.hpp   a timer's destruction and moves
//   wheel_timer_service_arm.hpp        starting waits (async_wait, wait,
//                                      arm_timeout), withdrawing a timeout
//   wheel_timer_service_cancel.hpp     aborting waits: cancel, cancel_one,
//                                      per-operation cancellation, retire
//   wheel_timer_service_expiry.hpp     setting and moving a timer's expiry
//   wheel_timer_service_tolerance.hpp  how late a wait may complete
//   wheel_timer_service_advance.hpp    the drive timer's upcall: advancing
//                                      the wheel, expiring its due waits,
//                                      re-arming, clock steps back
//   wheel_timer_service_slices.hpp     the slice operation: calling the
//                                      handlers of decided waits
// Each part includes asio_wheel/wheel_timer_service.hpp first, so any of
// them may be included alone; all are templates, so their order is free.
//
// Each definition is declared inline, as a member function defined in its
// class is: GCC's inliner gives such functions more room, and without it
// the inlining decisions change (an arm + withdraw pair of cancel_after
// took 26 more instructions, test/bench/callgrind_op_timeouts.sh).
//

#ifndef ASIO_WHEEL_IMPL_WHEEL_TIMER_SERVICE_HPP
#define ASIO_WHEEL_IMPL_WHEEL_TIMER_SERVICE_HPP

#include <asio_wheel/wheel_timer_service.hpp>

#include <asio_wheel/impl/wheel_timer_service_context.hpp>
#include <asio_wheel/impl/wheel_timer_service_lifetime.hpp>
#include <asio_wheel/impl/wheel_timer_service_arm.hpp>
#include <asio_wheel/impl/wheel_timer_service_cancel.hpp>
#include <asio_wheel/impl/wheel_timer_service_expiry.hpp>
#include <asio_wheel/impl/wheel_timer_service_tolerance.hpp>
#include <asio_wheel/impl/wheel_timer_service_advance.hpp>
#include <asio_wheel/impl/wheel_timer_service_slices.hpp>

#endif  // ASIO_WHEEL_IMPL_WHEEL_TIMER_SERVICE_HPP
