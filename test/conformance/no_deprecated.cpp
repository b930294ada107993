// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// The conformance suite's member-presence check compiled with BOOST_ASIO_NO_DEPRECATED and
// ASIO_NO_DEPRECATED defined (CMake defines both spellings for this target): Asio's
// steady_timer then has none of its deprecated members (expires_from_now, the expires_at()
// getter, the error_code& overloads), so wheel_timer must have none either, and
// ASIO_WHEEL_HAS_DEPRECATED_TIMER_MEMBERS must be undefined. A trivial wait on each timer
// type proves the rest of the timer still builds and works in such a program.
#define BOOST_TEST_MODULE asio_wheel conformance without deprecated members
#include "conformance.hpp"

#if !defined(BOOST_ASIO_NO_DEPRECATED) || !defined(ASIO_NO_DEPRECATED)
# error                                                                        \
     "no_deprecated.cpp must be compiled with BOOST_ASIO_NO_DEPRECATED and ASIO_NO_DEPRECATED"
#endif
#if defined(ASIO_WHEEL_HAS_DEPRECATED_TIMER_MEMBERS)
# error                                                                        \
     "ASIO_WHEEL_HAS_DEPRECATED_TIMER_MEMBERS is defined although Asio's deprecated members are off"
#endif

using namespace conformance;

BOOST_AUTO_TEST_SUITE(no_deprecated)

BOOST_AUTO_TEST_CASE_TEMPLATE(
    deprecated_members_are_absent_as_on_steady_timer, Timer, timer_types)
{
  check_deprecated_members_match_steady_timer<Timer>();  // static_asserts
  static_assert(!deprecated_members<Timer>::any,
      "a deprecated member survived (BOOST_)ASIO_NO_DEPRECATED");
  BOOST_TEST(!deprecated_members<Timer>::any);
  BOOST_TEST_MESSAGE("no deprecated members with "
      << asio_description() << " and ASIO_NO_DEPRECATED");
}

BOOST_AUTO_TEST_CASE_TEMPLATE(wait_completes_at_expiry, Timer, timer_types)
{
  test_context<Timer> io;
  Timer timer(io, 1ms);
  completion_record record;
  timer.async_wait(recorder(record, timer));
  CONFORMANCE_RUN_TO_COMPLETION(io);
  BOOST_TEST(record.invocations == 1);
  BOOST_TEST(!record.ec, "got " << describe(record.ec));
  BOOST_TEST(record.ran_at_or_after_expiry, "wait completed before its expiry");
}

BOOST_AUTO_TEST_SUITE_END()
