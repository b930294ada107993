// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// Asio's own tests of cancel_after and cancel_at (test/cancel_after.cpp and test/cancel_at.cpp
// of boostorg/asio, as in Boost 1.90), ported: the names are asio_wheel's
// (asio_wheel::cancel_after, asio_wheel::cancel_at), and every timer, the operation's and the
// cancellation timers of the timer overloads, is an asio_wheel::wheel_timer instead of a
// steady_timer; Boost.Test checks stand for Asio's unit_test.hpp, and the flavour's names for
// Asio and error_code. The cases, their order and their timings are Asio's (real time, but no
// verdict depends on the machine's speed: each deadline is 100 ms from the event that decides
// its case, the other 5 s or more). Part of asio_wheel_cancel_after_test.
//
// The original tests:
//   Copyright (c) 2003-2025 Christopher M. Kohlhoff (chris at kohlhoff dot com)
//   Distributed under the Boost Software License, Version 1.0. (See accompanying
//   file LICENSE_1_0.txt or copy at http://www.boost.org/LICENSE_1_0.txt)
#include "../test_asio.hpp"  // the flavour's Asio

#include <asio_wheel/cancel_after.hpp>

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <functional>

// In the standalone flavour asio_wheel::asio is ::asio itself, which clang will not see
// declared again as an alias.
#if !defined(ASIO_WHEEL_STANDALONE)
namespace asio = asio_wheel::asio;
#endif
using asio_wheel::error_code;

namespace {

namespace bindns = std;
namespace chronons = std::chrono;

void increment_on_cancel(int* count, const error_code& error)
{
  if (error == asio::error::operation_aborted)
    ++(*count);
}

struct incrementer_token_v1
{
  explicit incrementer_token_v1(int* c) : count(c) {}
  int* count;
};

struct incrementer_handler_v1
{
  explicit incrementer_handler_v1(incrementer_token_v1 t) : count(t.count) {}

  void operator()(error_code error) { increment_on_cancel(count, error); }

  int* count;
};

struct incrementer_token_v2
{
  explicit incrementer_token_v2(int* c) : count(c) {}
  int* count;
};

}  // namespace

ASIO_WHEEL_ASIO_NAMESPACE_BEGIN

template <>
class async_result<incrementer_token_v1, void(error_code)>
{
public:
  typedef incrementer_handler_v1 completion_handler_type;
  typedef void return_type;
  explicit async_result(completion_handler_type&) {}
  return_type get() {}
};

template <>
class async_result<incrementer_token_v2, void(error_code)>
{
public:
  template <typename Initiation, typename... Args>
  static void initiate(
      Initiation initiation, incrementer_token_v2 token, Args&&... args)
  {
    initiation(bindns::bind(
                   &increment_on_cancel, token.count, bindns::placeholders::_1),
        static_cast<Args&&>(args)...);
  }
};

ASIO_WHEEL_ASIO_NAMESPACE_END

BOOST_AUTO_TEST_SUITE(asio_cancel_after)

BOOST_AUTO_TEST_CASE(cancel_after_function_object_test)
{
  asio::io_context ioc;
  int count = 0;

  asio_wheel::wheel_timer t(ioc, chronons::milliseconds(100));
  t.async_wait(asio_wheel::cancel_after(chronons::seconds(5),
      bindns::bind(&increment_on_cancel, &count, bindns::placeholders::_1)));

  ioc.run();

  BOOST_TEST(count == 0);

  t.expires_after(chronons::seconds(5));
  t.async_wait(asio_wheel::cancel_after(chronons::milliseconds(100),
      bindns::bind(&increment_on_cancel, &count, bindns::placeholders::_1)));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 1);

  t.expires_after(chronons::milliseconds(100));
  t.async_wait(asio_wheel::cancel_after(chronons::seconds(5),
      asio_wheel::cancel_after(chronons::seconds(10),
          bindns::bind(
              &increment_on_cancel, &count, bindns::placeholders::_1))));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 1);

  t.expires_after(chronons::seconds(5));
  t.async_wait(asio_wheel::cancel_after(chronons::milliseconds(100),
      asio_wheel::cancel_after(chronons::seconds(10),
          bindns::bind(
              &increment_on_cancel, &count, bindns::placeholders::_1))));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 2);

  t.expires_after(chronons::seconds(5));
  t.async_wait(asio_wheel::cancel_after(chronons::seconds(10),
      asio_wheel::cancel_after(chronons::milliseconds(100),
          bindns::bind(
              &increment_on_cancel, &count, bindns::placeholders::_1))));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 3);
}

BOOST_AUTO_TEST_CASE(cancel_after_timer_function_object_test)
{
  asio::io_context ioc;
  asio_wheel::wheel_timer cancellation_timer1(ioc);
  asio_wheel::wheel_timer cancellation_timer2(ioc);
  int count = 0;

  asio_wheel::wheel_timer t(ioc, chronons::milliseconds(100));
  t.async_wait(asio_wheel::cancel_after(cancellation_timer1,
      chronons::seconds(5),
      bindns::bind(&increment_on_cancel, &count, bindns::placeholders::_1)));

  ioc.run();

  BOOST_TEST(count == 0);

  t.expires_after(chronons::seconds(5));
  t.async_wait(asio_wheel::cancel_after(cancellation_timer1,
      chronons::milliseconds(100),
      bindns::bind(&increment_on_cancel, &count, bindns::placeholders::_1)));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 1);

  t.expires_after(chronons::milliseconds(100));
  t.async_wait(
      asio_wheel::cancel_after(cancellation_timer1, chronons::seconds(5),
          asio_wheel::cancel_after(cancellation_timer2, chronons::seconds(10),
              bindns::bind(
                  &increment_on_cancel, &count, bindns::placeholders::_1))));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 1);

  t.expires_after(chronons::seconds(5));
  t.async_wait(
      asio_wheel::cancel_after(cancellation_timer1, chronons::milliseconds(100),
          asio_wheel::cancel_after(cancellation_timer2, chronons::seconds(10),
              bindns::bind(
                  &increment_on_cancel, &count, bindns::placeholders::_1))));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 2);

  t.expires_after(chronons::seconds(5));
  t.async_wait(asio_wheel::cancel_after(cancellation_timer1,
      chronons::seconds(10),
      asio_wheel::cancel_after(cancellation_timer2, chronons::milliseconds(100),
          bindns::bind(
              &increment_on_cancel, &count, bindns::placeholders::_1))));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 3);
}

BOOST_AUTO_TEST_CASE(cancel_after_completion_token_v1_test)
{
  asio::io_context ioc;
  int count = 0;

  asio_wheel::wheel_timer t(ioc, chronons::milliseconds(100));
  t.async_wait(asio_wheel::cancel_after(
      chronons::seconds(5), incrementer_token_v1(&count)));

  ioc.run();

  BOOST_TEST(count == 0);

  t.expires_after(chronons::seconds(5));
  t.async_wait(asio_wheel::cancel_after(chronons::milliseconds(100),
      bindns::bind(&increment_on_cancel, &count, bindns::placeholders::_1)));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 1);

  t.expires_after(chronons::milliseconds(100));
  t.async_wait(asio_wheel::cancel_after(chronons::seconds(5),
      asio_wheel::cancel_after(
          chronons::seconds(10), incrementer_token_v1(&count))));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 1);

  t.expires_after(chronons::seconds(5));
  t.async_wait(asio_wheel::cancel_after(chronons::milliseconds(100),
      asio_wheel::cancel_after(
          chronons::seconds(10), incrementer_token_v1(&count))));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 2);

  t.expires_after(chronons::seconds(5));
  t.async_wait(asio_wheel::cancel_after(chronons::seconds(10),
      asio_wheel::cancel_after(
          chronons::milliseconds(100), incrementer_token_v1(&count))));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 3);
}

BOOST_AUTO_TEST_CASE(cancel_after_timer_completion_token_v1_test)
{
  asio::io_context ioc;
  asio_wheel::wheel_timer cancellation_timer1(ioc);
  asio_wheel::wheel_timer cancellation_timer2(ioc);
  int count = 0;

  asio_wheel::wheel_timer t(ioc, chronons::milliseconds(100));
  t.async_wait(asio_wheel::cancel_after(
      cancellation_timer1, chronons::seconds(5), incrementer_token_v1(&count)));

  ioc.run();

  BOOST_TEST(count == 0);

  t.expires_after(chronons::seconds(5));
  t.async_wait(asio_wheel::cancel_after(cancellation_timer1,
      chronons::milliseconds(100),
      bindns::bind(&increment_on_cancel, &count, bindns::placeholders::_1)));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 1);

  t.expires_after(chronons::milliseconds(100));
  t.async_wait(
      asio_wheel::cancel_after(cancellation_timer1, chronons::seconds(5),
          asio_wheel::cancel_after(cancellation_timer2, chronons::seconds(10),
              incrementer_token_v1(&count))));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 1);

  t.expires_after(chronons::seconds(5));
  t.async_wait(
      asio_wheel::cancel_after(cancellation_timer1, chronons::milliseconds(100),
          asio_wheel::cancel_after(cancellation_timer2, chronons::seconds(10),
              incrementer_token_v1(&count))));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 2);

  t.expires_after(chronons::seconds(5));
  t.async_wait(
      asio_wheel::cancel_after(cancellation_timer1, chronons::seconds(10),
          asio_wheel::cancel_after(cancellation_timer2,
              chronons::milliseconds(100), incrementer_token_v1(&count))));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 3);
}

BOOST_AUTO_TEST_CASE(cancel_after_completion_token_v2_test)
{
  asio::io_context ioc;
  int count = 0;

  asio_wheel::wheel_timer t(ioc, chronons::milliseconds(100));
  t.async_wait(asio_wheel::cancel_after(
      chronons::seconds(5), incrementer_token_v2(&count)));

  ioc.run();

  BOOST_TEST(count == 0);

  t.expires_after(chronons::seconds(5));
  t.async_wait(asio_wheel::cancel_after(
      chronons::milliseconds(100), incrementer_token_v2(&count)));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 1);

  t.expires_after(chronons::milliseconds(100));
  t.async_wait(asio_wheel::cancel_after(chronons::seconds(5),
      asio_wheel::cancel_after(
          chronons::seconds(10), incrementer_token_v2(&count))));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 1);

  t.expires_after(chronons::seconds(5));
  t.async_wait(asio_wheel::cancel_after(chronons::milliseconds(100),
      asio_wheel::cancel_after(
          chronons::seconds(10), incrementer_token_v2(&count))));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 2);

  t.expires_after(chronons::seconds(5));
  t.async_wait(asio_wheel::cancel_after(chronons::seconds(10),
      asio_wheel::cancel_after(
          chronons::milliseconds(100), incrementer_token_v2(&count))));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 3);
}

BOOST_AUTO_TEST_CASE(cancel_after_timer_completion_token_v2_test)
{
  asio::io_context ioc;
  asio_wheel::wheel_timer cancellation_timer1(ioc);
  asio_wheel::wheel_timer cancellation_timer2(ioc);
  int count = 0;

  asio_wheel::wheel_timer t(ioc, chronons::milliseconds(100));
  t.async_wait(asio_wheel::cancel_after(
      cancellation_timer1, chronons::seconds(5), incrementer_token_v2(&count)));

  ioc.run();

  BOOST_TEST(count == 0);

  t.expires_after(chronons::seconds(5));
  t.async_wait(asio_wheel::cancel_after(cancellation_timer1,
      chronons::milliseconds(100), incrementer_token_v2(&count)));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 1);

  t.expires_after(chronons::milliseconds(100));
  t.async_wait(
      asio_wheel::cancel_after(cancellation_timer1, chronons::seconds(5),
          asio_wheel::cancel_after(cancellation_timer2, chronons::seconds(10),
              incrementer_token_v2(&count))));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 1);

  t.expires_after(chronons::seconds(5));
  t.async_wait(
      asio_wheel::cancel_after(cancellation_timer1, chronons::milliseconds(100),
          asio_wheel::cancel_after(cancellation_timer2, chronons::seconds(10),
              incrementer_token_v2(&count))));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 2);

  t.expires_after(chronons::seconds(5));
  t.async_wait(
      asio_wheel::cancel_after(cancellation_timer1, chronons::seconds(10),
          asio_wheel::cancel_after(cancellation_timer2,
              chronons::milliseconds(100), incrementer_token_v2(&count))));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 3);
}

BOOST_AUTO_TEST_CASE(partial_cancel_after_test)
{
  asio::io_context ioc;
  int count = 0;

  asio_wheel::wheel_timer t(ioc, chronons::milliseconds(100));
  t.async_wait(asio_wheel::cancel_after(chronons::seconds(5)))(
      incrementer_token_v2(&count));

  ioc.run();

  BOOST_TEST(count == 0);

  t.expires_after(chronons::seconds(5));
  t.async_wait(asio_wheel::cancel_after(chronons::milliseconds(100)))(
      incrementer_token_v2(&count));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 1);
}

BOOST_AUTO_TEST_CASE(partial_cancel_after_timer_test)
{
  asio::io_context ioc;
  asio_wheel::wheel_timer cancellation_timer(ioc);
  int count = 0;

  asio_wheel::wheel_timer t(ioc, chronons::milliseconds(100));
  t.async_wait(asio_wheel::cancel_after(
      cancellation_timer, chronons::seconds(5)))(incrementer_token_v2(&count));

  ioc.run();

  BOOST_TEST(count == 0);

  t.expires_after(chronons::seconds(5));
  t.async_wait(asio_wheel::cancel_after(cancellation_timer,
      chronons::milliseconds(100)))(incrementer_token_v2(&count));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 1);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(asio_cancel_at)

BOOST_AUTO_TEST_CASE(cancel_at_function_object_test)
{
  asio::io_context ioc;
  int count = 0;

  asio_wheel::wheel_timer t(ioc, chronons::milliseconds(100));
  auto now = asio_wheel::wheel_timer::clock_type::now();
  t.async_wait(asio_wheel::cancel_at(now + chronons::seconds(5),
      bindns::bind(&increment_on_cancel, &count, bindns::placeholders::_1)));

  ioc.run();

  BOOST_TEST(count == 0);

  t.expires_after(chronons::seconds(5));
  now = asio_wheel::wheel_timer::clock_type::now();
  t.async_wait(asio_wheel::cancel_at(now + chronons::milliseconds(100),
      bindns::bind(&increment_on_cancel, &count, bindns::placeholders::_1)));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 1);

  t.expires_after(chronons::milliseconds(100));
  now = asio_wheel::wheel_timer::clock_type::now();
  t.async_wait(asio_wheel::cancel_at(now + chronons::seconds(5),
      asio_wheel::cancel_at(now + chronons::seconds(10),
          bindns::bind(
              &increment_on_cancel, &count, bindns::placeholders::_1))));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 1);

  t.expires_after(chronons::seconds(5));
  now = asio_wheel::wheel_timer::clock_type::now();
  t.async_wait(asio_wheel::cancel_at(now + chronons::milliseconds(100),
      asio_wheel::cancel_at(now + chronons::seconds(10),
          bindns::bind(
              &increment_on_cancel, &count, bindns::placeholders::_1))));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 2);

  t.expires_after(chronons::seconds(5));
  now = asio_wheel::wheel_timer::clock_type::now();
  t.async_wait(asio_wheel::cancel_at(now + chronons::seconds(10),
      asio_wheel::cancel_at(now + chronons::milliseconds(100),
          bindns::bind(
              &increment_on_cancel, &count, bindns::placeholders::_1))));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 3);
}

BOOST_AUTO_TEST_CASE(cancel_at_timer_function_object_test)
{
  asio::io_context ioc;
  asio_wheel::wheel_timer cancellation_timer1(ioc);
  asio_wheel::wheel_timer cancellation_timer2(ioc);
  int count = 0;

  asio_wheel::wheel_timer t(ioc, chronons::milliseconds(100));
  auto now = asio_wheel::wheel_timer::clock_type::now();
  t.async_wait(asio_wheel::cancel_at(cancellation_timer1,
      now + chronons::seconds(5),
      bindns::bind(&increment_on_cancel, &count, bindns::placeholders::_1)));

  ioc.run();

  BOOST_TEST(count == 0);

  t.expires_after(chronons::seconds(5));
  now = asio_wheel::wheel_timer::clock_type::now();
  t.async_wait(asio_wheel::cancel_at(cancellation_timer1,
      now + chronons::milliseconds(100),
      bindns::bind(&increment_on_cancel, &count, bindns::placeholders::_1)));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 1);

  t.expires_after(chronons::milliseconds(100));
  now = asio_wheel::wheel_timer::clock_type::now();
  t.async_wait(asio_wheel::cancel_at(cancellation_timer1,
      now + chronons::seconds(5),
      asio_wheel::cancel_at(cancellation_timer2, now + chronons::seconds(10),
          bindns::bind(
              &increment_on_cancel, &count, bindns::placeholders::_1))));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 1);

  t.expires_after(chronons::seconds(5));
  now = asio_wheel::wheel_timer::clock_type::now();
  t.async_wait(asio_wheel::cancel_at(cancellation_timer1,
      now + chronons::milliseconds(100),
      asio_wheel::cancel_at(cancellation_timer2, now + chronons::seconds(10),
          bindns::bind(
              &increment_on_cancel, &count, bindns::placeholders::_1))));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 2);

  t.expires_after(chronons::seconds(5));
  now = asio_wheel::wheel_timer::clock_type::now();
  t.async_wait(
      asio_wheel::cancel_at(cancellation_timer1, now + chronons::seconds(10),
          asio_wheel::cancel_at(cancellation_timer2,
              now + chronons::milliseconds(100),
              bindns::bind(
                  &increment_on_cancel, &count, bindns::placeholders::_1))));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 3);
}

BOOST_AUTO_TEST_CASE(cancel_at_completion_token_v1_test)
{
  asio::io_context ioc;
  int count = 0;

  asio_wheel::wheel_timer t(ioc, chronons::milliseconds(100));
  auto now = asio_wheel::wheel_timer::clock_type::now();
  t.async_wait(asio_wheel::cancel_at(
      now + chronons::seconds(5), incrementer_token_v1(&count)));

  ioc.run();

  BOOST_TEST(count == 0);

  t.expires_after(chronons::seconds(5));
  now = asio_wheel::wheel_timer::clock_type::now();
  t.async_wait(asio_wheel::cancel_at(now + chronons::milliseconds(100),
      bindns::bind(&increment_on_cancel, &count, bindns::placeholders::_1)));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 1);

  t.expires_after(chronons::milliseconds(100));
  now = asio_wheel::wheel_timer::clock_type::now();
  t.async_wait(asio_wheel::cancel_at(now + chronons::seconds(5),
      asio_wheel::cancel_at(
          now + chronons::seconds(10), incrementer_token_v1(&count))));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 1);

  t.expires_after(chronons::seconds(5));
  now = asio_wheel::wheel_timer::clock_type::now();
  t.async_wait(asio_wheel::cancel_at(now + chronons::milliseconds(100),
      asio_wheel::cancel_at(
          now + chronons::seconds(10), incrementer_token_v1(&count))));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 2);

  t.expires_after(chronons::seconds(5));
  now = asio_wheel::wheel_timer::clock_type::now();
  t.async_wait(asio_wheel::cancel_at(now + chronons::seconds(10),
      asio_wheel::cancel_at(
          now + chronons::milliseconds(100), incrementer_token_v1(&count))));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 3);
}

BOOST_AUTO_TEST_CASE(cancel_at_timer_completion_token_v1_test)
{
  asio::io_context ioc;
  asio_wheel::wheel_timer cancellation_timer1(ioc);
  asio_wheel::wheel_timer cancellation_timer2(ioc);
  int count = 0;

  asio_wheel::wheel_timer t(ioc, chronons::milliseconds(100));
  auto now = asio_wheel::wheel_timer::clock_type::now();
  t.async_wait(asio_wheel::cancel_at(cancellation_timer1,
      now + chronons::seconds(5), incrementer_token_v1(&count)));

  ioc.run();

  BOOST_TEST(count == 0);

  t.expires_after(chronons::seconds(5));
  now = asio_wheel::wheel_timer::clock_type::now();
  t.async_wait(asio_wheel::cancel_at(cancellation_timer1,
      now + chronons::milliseconds(100),
      bindns::bind(&increment_on_cancel, &count, bindns::placeholders::_1)));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 1);

  t.expires_after(chronons::milliseconds(100));
  now = asio_wheel::wheel_timer::clock_type::now();
  t.async_wait(
      asio_wheel::cancel_at(cancellation_timer1, now + chronons::seconds(5),
          asio_wheel::cancel_at(cancellation_timer2,
              now + chronons::seconds(10), incrementer_token_v1(&count))));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 1);

  t.expires_after(chronons::seconds(5));
  now = asio_wheel::wheel_timer::clock_type::now();
  t.async_wait(asio_wheel::cancel_at(cancellation_timer1,
      now + chronons::milliseconds(100),
      asio_wheel::cancel_at(cancellation_timer2, now + chronons::seconds(10),
          incrementer_token_v1(&count))));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 2);

  t.expires_after(chronons::seconds(5));
  now = asio_wheel::wheel_timer::clock_type::now();
  t.async_wait(asio_wheel::cancel_at(cancellation_timer1,
      now + chronons::seconds(10),
      asio_wheel::cancel_at(cancellation_timer2,
          now + chronons::milliseconds(100), incrementer_token_v1(&count))));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 3);
}

BOOST_AUTO_TEST_CASE(cancel_at_completion_token_v2_test)
{
  asio::io_context ioc;
  int count = 0;

  asio_wheel::wheel_timer t(ioc, chronons::milliseconds(100));
  auto now = asio_wheel::wheel_timer::clock_type::now();
  t.async_wait(asio_wheel::cancel_at(
      now + chronons::seconds(5), incrementer_token_v2(&count)));

  ioc.run();

  BOOST_TEST(count == 0);

  t.expires_after(chronons::seconds(5));
  now = asio_wheel::wheel_timer::clock_type::now();
  t.async_wait(asio_wheel::cancel_at(
      now + chronons::milliseconds(100), incrementer_token_v2(&count)));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 1);

  t.expires_after(chronons::milliseconds(100));
  now = asio_wheel::wheel_timer::clock_type::now();
  t.async_wait(asio_wheel::cancel_at(now + chronons::seconds(5),
      asio_wheel::cancel_at(
          now + chronons::seconds(10), incrementer_token_v2(&count))));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 1);

  t.expires_after(chronons::seconds(5));
  now = asio_wheel::wheel_timer::clock_type::now();
  t.async_wait(asio_wheel::cancel_at(now + chronons::milliseconds(100),
      asio_wheel::cancel_at(
          now + chronons::seconds(10), incrementer_token_v2(&count))));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 2);

  t.expires_after(chronons::seconds(5));
  now = asio_wheel::wheel_timer::clock_type::now();
  t.async_wait(asio_wheel::cancel_at(now + chronons::seconds(10),
      asio_wheel::cancel_at(
          now + chronons::milliseconds(100), incrementer_token_v2(&count))));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 3);
}

BOOST_AUTO_TEST_CASE(cancel_at_timer_completion_token_v2_test)
{
  asio::io_context ioc;
  asio_wheel::wheel_timer cancellation_timer1(ioc);
  asio_wheel::wheel_timer cancellation_timer2(ioc);
  int count = 0;

  asio_wheel::wheel_timer t(ioc, chronons::milliseconds(100));
  auto now = asio_wheel::wheel_timer::clock_type::now();
  t.async_wait(asio_wheel::cancel_at(cancellation_timer1,
      now + chronons::seconds(5), incrementer_token_v2(&count)));

  ioc.run();

  BOOST_TEST(count == 0);

  t.expires_after(chronons::seconds(5));
  now = asio_wheel::wheel_timer::clock_type::now();
  t.async_wait(asio_wheel::cancel_at(cancellation_timer1,
      now + chronons::milliseconds(100), incrementer_token_v2(&count)));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 1);

  t.expires_after(chronons::milliseconds(100));
  now = asio_wheel::wheel_timer::clock_type::now();
  t.async_wait(
      asio_wheel::cancel_at(cancellation_timer1, now + chronons::seconds(5),
          asio_wheel::cancel_at(cancellation_timer2,
              now + chronons::seconds(10), incrementer_token_v2(&count))));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 1);

  t.expires_after(chronons::seconds(5));
  now = asio_wheel::wheel_timer::clock_type::now();
  t.async_wait(asio_wheel::cancel_at(cancellation_timer1,
      now + chronons::milliseconds(100),
      asio_wheel::cancel_at(cancellation_timer2, now + chronons::seconds(10),
          incrementer_token_v2(&count))));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 2);

  t.expires_after(chronons::seconds(5));
  now = asio_wheel::wheel_timer::clock_type::now();
  t.async_wait(asio_wheel::cancel_at(cancellation_timer1,
      now + chronons::seconds(10),
      asio_wheel::cancel_at(cancellation_timer2,
          now + chronons::milliseconds(100), incrementer_token_v2(&count))));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 3);
}

BOOST_AUTO_TEST_CASE(partial_cancel_at_test)
{
  asio::io_context ioc;
  int count = 0;

  asio_wheel::wheel_timer t(ioc, chronons::milliseconds(100));
  auto now = asio_wheel::wheel_timer::clock_type::now();
  t.async_wait(asio_wheel::cancel_at(now + chronons::seconds(5)))(
      incrementer_token_v2(&count));

  ioc.run();

  BOOST_TEST(count == 0);

  t.expires_after(chronons::seconds(5));
  now = asio_wheel::wheel_timer::clock_type::now();
  t.async_wait(asio_wheel::cancel_at(now + chronons::milliseconds(100)))(
      incrementer_token_v2(&count));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 1);
}

BOOST_AUTO_TEST_CASE(partial_cancel_at_timer_test)
{
  asio::io_context ioc;
  asio_wheel::wheel_timer cancellation_timer(ioc);
  int count = 0;

  asio_wheel::wheel_timer t(ioc, chronons::milliseconds(100));
  auto now = asio_wheel::wheel_timer::clock_type::now();
  t.async_wait(asio_wheel::cancel_at(cancellation_timer,
      now + chronons::seconds(5)))(incrementer_token_v2(&count));

  ioc.run();

  BOOST_TEST(count == 0);

  t.expires_after(chronons::seconds(5));
  now = asio_wheel::wheel_timer::clock_type::now();
  t.async_wait(asio_wheel::cancel_at(cancellation_timer,
      now + chronons::milliseconds(100)))(incrementer_token_v2(&count));

  ioc.restart();
  ioc.run();

  BOOST_TEST(count == 1);
}

BOOST_AUTO_TEST_SUITE_END()
