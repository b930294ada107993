//
// test/asio_wheel/detail/asio_operation.cpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// Tests of the Asio internals the library names once (include/asio_wheel/detail/
// asio_operation.hpp) that differ between Asio versions: detail::target_of and
// detail::native_executor, which tell a plain io_context executor behind an any_io_executor
// from any other executor, and make_io_object_impl, which builds an I/O object's
// implementation with this Asio's io_object_impl constructor.
//
// native_executor decides where a wait, a cancel_after timeout and a Beast stream's timeout
// run their completion: an io_context executor is stored as itself, anything else (a strand,
// a thread_pool's executor) as the any_io_executor it came in. Up to Asio 1.24 (Boost 1.80)
// any_executor::target<T>() casts whatever the executor holds to T; taking its answer for a
// type check made a timer on make_strand(io) run its handlers outside the strand (the gate
// ASIO_WHEEL_ASIO_TARGET_CHECKS_TYPE in detail/config.hpp, dated from Asio's source: 1.26).
//
// Part of asio_wheel_service_test (test/asio_wheel/CMakeLists.txt), so that every matrix leg
// runs it.
#include "../wheel_test_support.hpp"

#include <asio_wheel/detail/asio_operation.hpp>

using namespace asio_wheel_test;

BOOST_AUTO_TEST_SUITE(asio_operation)

BOOST_AUTO_TEST_CASE(native_executor_finds_a_plain_io_context_executor)
{
  asio::io_context io;
  const asio::any_io_executor ex = io.get_executor();
  const auto* native = asio_wheel::detail::native_executor(ex);
  BOOST_TEST_REQUIRE(native != nullptr,
      "an io_context executor behind any_io_executor was not recognized");
  BOOST_TEST((*native == io.get_executor()));
  BOOST_TEST(&native->context() == &io);
}

BOOST_AUTO_TEST_CASE(
    native_executor_does_not_take_a_strand_for_its_inner_executor)
{
  asio::io_context io;
  const asio::any_io_executor ex = asio::make_strand(io);
  BOOST_TEST(asio_wheel::detail::native_executor(ex) == nullptr,
      "a strand of an io_context was taken for a plain io_context executor: "
      "its handlers would run outside the strand");
  BOOST_TEST(asio_wheel::detail::target_of<
                 asio::strand<asio::io_context::executor_type>>(ex)
      != nullptr);
}

BOOST_AUTO_TEST_CASE(native_executor_does_not_take_a_thread_pool_executor)
{
  asio::thread_pool pool(1);
  const asio::any_io_executor plain = pool.get_executor();
  const asio::any_io_executor strand = asio::make_strand(pool);
  BOOST_TEST(asio_wheel::detail::native_executor(plain) == nullptr,
      "a thread_pool executor was taken for an io_context executor");
  BOOST_TEST(asio_wheel::detail::native_executor(strand) == nullptr,
      "a strand of a thread_pool was taken for an io_context executor");
  pool.join();
}

BOOST_AUTO_TEST_CASE(native_executor_of_an_empty_executor_is_null)
{
  const asio::any_io_executor empty;
  BOOST_TEST(asio_wheel::detail::native_executor(empty) == nullptr);
}

BOOST_AUTO_TEST_CASE(make_io_object_impl_builds_from_an_executor_and_a_context)
{
  using impl_type = asio_wheel::detail::io_object_impl<
      asio_wheel::wheel_timer_service<std::chrono::steady_clock>,
      asio::any_io_executor>;
  asio::io_context io;
  const auto strand = asio::make_strand(io);
  impl_type from_executor =
      asio_wheel::detail::make_io_object_impl<impl_type>(strand);
  BOOST_TEST((from_executor.get_executor() == asio::any_io_executor(strand)));
  impl_type in_context =
      asio_wheel::detail::make_io_object_impl_in<impl_type>(io);
  BOOST_TEST(
      (in_context.get_executor() == asio::any_io_executor(io.get_executor())));
  BOOST_TEST(&from_executor.get_service() == &in_context.get_service(),
      "the two implementations use different services of one context");
}

BOOST_AUTO_TEST_SUITE_END()
