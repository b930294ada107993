// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// Conformance of the members of basic_waitable_timer: member types,
// constructors, moves, destructor, expires_at / expires_after, cancel /
// cancel_one, blocking wait and the basic async_wait guarantees (exactly once,
// never inside async_wait, never early, FIFO, condition-variable idiom), and
// the deprecated members (expires_from_now, the expires_at() getter, the
// error_code& overloads): present exactly where this Asio's steady_timer has
// them (checked at compile time), and where present, tested like the others.
// Every test is a template run for each type in conformance::timer_types.
#define BOOST_TEST_MODULE asio_wheel conformance
#include "conformance.hpp"

#include <type_traits>
#include <utility>

using namespace conformance;

BOOST_AUTO_TEST_SUITE(members)

// ---------------------------------------------------------------- types

BOOST_AUTO_TEST_CASE_TEMPLATE(
    member_types_match_basic_waitable_timer, Timer, timer_types)
{
  using clock = std::chrono::steady_clock;
  static_assert(std::is_same_v<typename Timer::executor_type,
      profile_executor_t<Timer, asio::any_io_executor>>);
  static_assert(std::is_same_v<typename Timer::clock_type, clock>);
  static_assert(std::is_same_v<typename Timer::duration, clock::duration>);
  static_assert(std::is_same_v<typename Timer::time_point, clock::time_point>);
  static_assert(std::is_same_v<typename Timer::traits_type,
      typename timer_profile<Timer>::expected_traits>);
  BOOST_TEST_MESSAGE("member types are the ones of steady_timer");
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    member_signatures_match_basic_waitable_timer, Timer, timer_types)
{
  Timer* timer = nullptr;  // unevaluated operands only
  asio::steady_timer* reference = nullptr;
  // As this Asio's steady_timer: executor_type by value before Asio 1.24
  // (standalone 1.22), const executor_type& from 1.24 on.
  static_assert(std::is_same_v<typename Timer::executor_type,
      profile_executor_t<Timer, asio::steady_timer::executor_type>>);
  using reference_result = decltype(reference->get_executor());
  static_assert(std::is_same_v<decltype(timer->get_executor()),
                    std::conditional_t<std::is_reference_v<reference_result>,
                        const typename Timer::executor_type&,
                        typename Timer::executor_type>>,
      "get_executor() returns another type than this Asio's steady_timer");
  static_assert(noexcept(timer->get_executor()));
  static_assert(std::is_same_v<decltype(std::as_const(*timer).expiry()),
      typename Timer::time_point>);
  static_assert(std::is_same_v<decltype(timer->cancel()), std::size_t>);
  static_assert(std::is_same_v<decltype(timer->cancel_one()), std::size_t>);
  static_assert(
      std::is_same_v<decltype(timer->expires_at(typename Timer::time_point())),
          std::size_t>);
  static_assert(
      std::is_same_v<decltype(timer->expires_after(typename Timer::duration())),
          std::size_t>);
  static_assert(std::is_same_v<decltype(timer->wait()), void>);
  // The single-argument constructors are explicit, as in Asio.
  static_assert(!std::is_convertible_v<asio::io_context&, Timer>);
  static_assert(!std::is_convertible_v<const asio::any_io_executor&, Timer>);
  BOOST_TEST_MESSAGE("member signatures are the ones of steady_timer");
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    deprecated_members_exist_exactly_where_steady_timer_has_them, Timer,
    timer_types)
{
  check_deprecated_members_match_steady_timer<Timer>();  // static_asserts
  BOOST_TEST(
      deprecated_members<Timer>::any == asio_has_deprecated_timer_members);
  BOOST_TEST_MESSAGE("deprecated members "
      << (deprecated_members<Timer>::any ? "present" : "absent")
      << ", as on the steady_timer of " << asio_description());
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    rebind_executor_yields_timer_with_that_executor, Timer, timer_types)
{
  using strand_executor =
      profile_executor_t<Timer, asio::strand<asio::io_context::executor_type>>;
  using rebound =
      typename Timer::template rebind_executor<strand_executor>::other;
  static_assert(
      std::is_same_v<typename rebound::executor_type, strand_executor>);
  static_assert(
      std::is_same_v<typename rebound::clock_type, typename Timer::clock_type>);
  static_assert(std::is_same_v<typename rebound::traits_type,
      typename Timer::traits_type>);

  test_context<Timer> io;
  const strand_executor strand(asio::make_strand(io));
  rebound timer(strand, 1ms);
  BOOST_TEST((timer.get_executor() == strand),
      "rebound timer does not keep the strand it was given");
  completion_record record;
  timer.async_wait(recorder(record, timer));
  CONFORMANCE_RUN_TO_COMPLETION(io);
  BOOST_TEST(!record.ec, "wait on the rebound timer: " << describe(record.ec));
  BOOST_TEST(record.ran_at_or_after_expiry);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(timer_is_move_only, Timer, timer_types)
{
  static_assert(!std::is_copy_constructible_v<Timer>,
      "a timer must not be copy-constructible");
  static_assert(
      !std::is_copy_assignable_v<Timer>, "a timer must not be copy-assignable");
  static_assert(std::is_move_constructible_v<Timer>);
  static_assert(std::is_move_assignable_v<Timer>);
  BOOST_TEST_MESSAGE("copy is deleted, move is available");
}

// ---------------------------------------------------------------- constructors

BOOST_AUTO_TEST_CASE_TEMPLATE(
    constructors_without_expiry_use_epoch_and_given_executor, Timer,
    timer_types)
{
  test_context<Timer> io;
  Timer from_executor(io.get_executor());
  Timer from_context(io);
  BOOST_TEST((from_executor.expiry() == typename Timer::time_point()),
      "timer constructed from an executor should expire at the clock's epoch, "
      "got "
          << ns_since_epoch(from_executor.expiry()) << " ns");
  BOOST_TEST((from_context.expiry() == typename Timer::time_point()),
      "timer constructed from a context should expire at the clock's epoch");
  using executor_type = typename Timer::executor_type;
  BOOST_TEST((from_executor.get_executor() == executor_type(io.get_executor())),
      "get_executor() differs from the executor given to the constructor");
  BOOST_TEST((from_context.get_executor() == executor_type(io.get_executor())),
      "get_executor() differs from the io_context's executor");
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    constructors_with_time_point_set_that_expiry, Timer, timer_types)
{
  test_context<Timer> io;
  const auto expiry = Timer::clock_type::now() + 1234567us;
  Timer from_executor(io.get_executor(), expiry);
  Timer from_context(io, expiry);
  BOOST_TEST(ns_since_epoch(from_executor.expiry()) == ns_since_epoch(expiry));
  BOOST_TEST(ns_since_epoch(from_context.expiry()) == ns_since_epoch(expiry));
  const auto latest = Timer::time_point::max();
  Timer far_timer(io, latest);
  BOOST_TEST((far_timer.expiry() == latest),
      "time_point::max() was not kept as the expiry");
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    constructors_with_duration_expire_that_long_after_now, Timer, timer_types)
{
  test_context<Timer> io;
  const auto delay = 250ms;
  const auto before = Timer::clock_type::now();
  Timer from_executor(io.get_executor(), delay);
  Timer from_context(io, delay);
  const auto after = Timer::clock_type::now();
  for (const Timer* timer : {&from_executor, &from_context})
  {
    BOOST_TEST(
        (timer->expiry() >= before + delay && timer->expiry() <= after + delay),
        "expiry should lie in [now + d] measured around construction; it is "
            << ns_since_epoch(timer->expiry()) - ns_since_epoch(before + delay)
            << " ns after the earliest admissible value");
  }
}

// ---------------------------------------------------------------- moves

BOOST_AUTO_TEST_CASE_TEMPLATE(
    move_constructed_timer_completes_moved_waits_at_expiry, Timer, timer_types)
{
  test_context<Timer> io;
  Timer source(io, 3ms);
  const auto expiry = source.expiry();
  completion_record record;
  source.async_wait(recorder(record, source));

  Timer target(std::move(source));
  BOOST_TEST(
      (target.expiry() == expiry), "move constructor did not carry the expiry");
  BOOST_TEST((target.get_executor() ==
      typename Timer::executor_type(io.get_executor())));
  CONFORMANCE_RUN_TO_COMPLETION(io);

  BOOST_TEST(record.invocations == 1,
      "moved wait ran " << record.invocations << " times");
  BOOST_TEST(!record.ec,
      "moved wait should complete with success, got " << describe(record.ec));
  BOOST_TEST(
      record.ran_at_or_after_expiry, "moved wait completed before its expiry");
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    move_constructed_timer_owns_moved_waits, Timer, timer_types)
{
  test_context<Timer> io;
  Timer source(io, Timer::time_point::max());
  completion_record first, second;
  source.async_wait(recorder(first, source));
  source.async_wait(recorder(second, source));

  Timer target(std::move(source));
  BOOST_TEST(source.cancel() == 0u, "moved-from timer still owns waits");
  BOOST_TEST(
      target.cancel() == 2u, "moved-to timer should own both moved waits");
  CONFORMANCE_RUN_TO_COMPLETION(io);
  BOOST_TEST(first.invocations == 1);
  BOOST_TEST(second.invocations == 1);
  BOOST_TEST(is_aborted(first.ec), "got " << describe(first.ec));
  BOOST_TEST(is_aborted(second.ec), "got " << describe(second.ec));
}

BOOST_AUTO_TEST_CASE_TEMPLATE(moved_from_timer_is_reusable, Timer, timer_types)
{
  test_context<Timer> io;
  Timer source(io, Timer::time_point::max());
  completion_record moved;
  source.async_wait(recorder(moved, source));
  Timer target(std::move(source));

  // Asio: the moved-from object is as if constructed from its executor.
  source.expires_after(2ms);
  completion_record reused;
  source.async_wait(recorder(reused, source));
  BOOST_TEST(target.cancel() == 1u);
  CONFORMANCE_RUN_TO_COMPLETION(io);

  BOOST_TEST(is_aborted(moved.ec), "got " << describe(moved.ec));
  BOOST_TEST(reused.invocations == 1,
      "wait on the reused moved-from timer ran " << reused.invocations
                                                 << " times");
  BOOST_TEST(!reused.ec,
      "wait on the reused moved-from timer: " << describe(reused.ec));
  BOOST_TEST(reused.ran_at_or_after_expiry);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    move_assignment_aborts_target_waits_and_takes_source_waits, Timer,
    timer_types)
{
  test_context<Timer> io;
  Timer source(io, 3ms);
  Timer target(io, Timer::time_point::max());
  const auto source_expiry = source.expiry();
  completion_record source_wait, target_wait;
  source.async_wait(recorder(source_wait, source));
  target.async_wait(recorder(target_wait, target));

  target = std::move(source);
  BOOST_TEST((target.expiry() == source_expiry),
      "move assignment did not carry the expiry");
  BOOST_TEST(target_wait.invocations == 0,
      "the target's aborted wait ran inside operator=");
  CONFORMANCE_RUN_TO_COMPLETION(io);

  BOOST_TEST(target_wait.invocations == 1);
  BOOST_TEST(is_aborted(target_wait.ec),
      "target's own wait should be aborted by move assignment, got "
          << describe(target_wait.ec));
  BOOST_TEST(source_wait.invocations == 1);
  BOOST_TEST(!source_wait.ec,
      "moved wait should complete with success, got "
          << describe(source_wait.ec));
  BOOST_TEST(source_wait.ran_at_or_after_expiry);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    converting_move_from_other_executor_type_carries_waits, Timer, timer_types)
{
  using io_executor_timer = typename Timer::template rebind_executor<
      profile_executor_t<Timer, asio::io_context::executor_type>>::other;
  static_assert(!std::is_same_v<io_executor_timer, Timer>);
  test_context<Timer> io;

  io_executor_timer constructed_source(io.get_executor(), 3ms);
  completion_record via_constructor;
  constructed_source.async_wait(recorder(via_constructor, constructed_source));
  Timer constructed(std::move(constructed_source));

  io_executor_timer assigned_source(io.get_executor(), 4ms);
  completion_record via_assignment, assigned_own;
  assigned_source.async_wait(recorder(via_assignment, assigned_source));
  Timer assigned(io, Timer::time_point::max());
  assigned.async_wait(recorder(assigned_own, assigned));
  assigned = std::move(assigned_source);

  BOOST_TEST((constructed.get_executor() ==
      typename Timer::executor_type(io.get_executor())));
  CONFORMANCE_RUN_TO_COMPLETION(io);
  BOOST_TEST(via_constructor.invocations == 1);
  BOOST_TEST(!via_constructor.ec,
      "converting move construction: " << describe(via_constructor.ec));
  BOOST_TEST(via_constructor.ran_at_or_after_expiry);
  BOOST_TEST(via_assignment.invocations == 1);
  BOOST_TEST(!via_assignment.ec,
      "converting move assignment: " << describe(via_assignment.ec));
  BOOST_TEST(via_assignment.ran_at_or_after_expiry);
  BOOST_TEST(assigned_own.invocations == 1);
  BOOST_TEST(is_aborted(assigned_own.ec),
      "converting move assignment should abort the target's wait, got "
          << describe(assigned_own.ec));
}

// ---------------------------------------------------------------- destructor

BOOST_AUTO_TEST_CASE_TEMPLATE(
    destructor_aborts_pending_waits_later, Timer, timer_types)
{
  test_context<Timer> io;
  completion_record first, second;
  {
    Timer timer(io, 1h);
    timer.async_wait(recorder(first, timer));
    timer.async_wait(recorder(second, timer));
  }
  BOOST_TEST(first.invocations == 0, "handler ran inside the destructor");
  CONFORMANCE_RUN_TO_COMPLETION(io);
  BOOST_TEST(first.invocations == 1);
  BOOST_TEST(second.invocations == 1);
  BOOST_TEST(is_aborted(first.ec), "got " << describe(first.ec));
  BOOST_TEST(is_aborted(second.ec), "got " << describe(second.ec));
}

// ---------------------------------------------------------------- expires_at / expires_after

BOOST_AUTO_TEST_CASE_TEMPLATE(
    expires_after_aborts_pending_waits_and_does_not_rearm, Timer, timer_types)
{
  test_context<Timer> io;
  Timer timer(io, 1h);
  completion_record records[3];
  for (auto& r : records)
    timer.async_wait(recorder(r, timer));

  const auto before = Timer::clock_type::now();
  BOOST_TEST(timer.expires_after(1ms) == 3u,
      "expires_after should report the 3 aborted waits");
  BOOST_TEST((timer.expiry() >= before + 1ms
                 && timer.expiry() <= Timer::clock_type::now() + 1ms),
      "expires_after did not set expiry to now + 1ms");
  BOOST_TEST(timer.expires_after(1ms) == 0u, "no wait was left to abort");
  BOOST_TEST(records[0].invocations == 0, "handler ran inside expires_after");
  CONFORMANCE_RUN_TO_COMPLETION(io);
  for (auto& r : records)
  {
    // Exactly once and aborted: the wait must not also complete at the new expiry.
    BOOST_TEST(
        r.invocations == 1, "aborted wait ran " << r.invocations << " times");
    BOOST_TEST(is_aborted(r.ec), "got " << describe(r.ec));
  }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    expires_at_aborts_pending_waits_and_does_not_rearm, Timer, timer_types)
{
  test_context<Timer> io;
  Timer timer(io, Timer::time_point::max());
  completion_record records[2];
  for (auto& r : records)
    timer.async_wait(recorder(r, timer));

  const auto new_expiry = Timer::clock_type::now() + 1ms;
  BOOST_TEST(timer.expires_at(new_expiry) == 2u,
      "expires_at should report the 2 aborted waits");
  BOOST_TEST(
      (timer.expiry() == new_expiry), "expires_at did not set the expiry");
  BOOST_TEST(timer.expires_at(new_expiry) == 0u, "no wait was left to abort");
  CONFORMANCE_RUN_TO_COMPLETION(io);
  for (auto& r : records)
  {
    BOOST_TEST(
        r.invocations == 1, "aborted wait ran " << r.invocations << " times");
    BOOST_TEST(is_aborted(r.ec), "got " << describe(r.ec));
  }
}

// ---------------------------------------------------------------- cancel / cancel_one

BOOST_AUTO_TEST_CASE_TEMPLATE(
    cancel_returns_number_of_aborted_waits, Timer, timer_types)
{
  test_context<Timer> io;
  Timer timer(io, 1h);
  BOOST_TEST(timer.cancel() == 0u, "cancel() without waits");
  completion_record records[4];
  for (auto& r : records)
    timer.async_wait(recorder(r, timer));
  BOOST_TEST(timer.cancel() == 4u);
  BOOST_TEST(timer.cancel() == 0u, "second cancel() found waits again");
  BOOST_TEST(records[0].invocations == 0, "handler ran inside cancel()");
  CONFORMANCE_RUN_TO_COMPLETION(io);
  for (auto& r : records)
  {
    BOOST_TEST(r.invocations == 1);
    BOOST_TEST(is_aborted(r.ec), "got " << describe(r.ec));
  }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(cancel_one_aborts_oldest_wait, Timer, timer_types)
{
  test_context<Timer> io;
  Timer timer(io, 1h);
  BOOST_TEST(timer.cancel_one() == 0u, "cancel_one() without waits");
  std::vector<int> aborted_order;
  for (int i = 0; i < 3; ++i)
    timer.async_wait([&aborted_order, i](error_code ec) {
      BOOST_TEST(is_aborted(ec), "wait " << i << ": " << describe(ec));
      aborted_order.push_back(i);
    });

  BOOST_TEST(timer.cancel_one() == 1u);
  BOOST_TEST(aborted_order.empty(), "handler ran inside cancel_one()");
  io.poll();  // runs the aborted completion; waits 1 and 2 stay pending
  BOOST_TEST(aborted_order == std::vector<int>({0}),
      "first cancel_one() must abort the oldest wait");
  BOOST_TEST(timer.cancel_one() == 1u);
  io.poll();
  BOOST_TEST(aborted_order == std::vector<int>({0, 1}),
      "second cancel_one() must abort wait 1");
  BOOST_TEST(
      timer.cancel() == 1u, "exactly one wait should be left for cancel()");
  CONFORMANCE_RUN_TO_COMPLETION(io);
  BOOST_TEST(aborted_order == std::vector<int>({0, 1, 2}));
  BOOST_TEST(timer.cancel_one() == 0u);
}

// A wait whose expiry has been reached and whose completion is already queued
// is no longer pending: cancel(), cancel_one(), expires_at() and expires_after()
// must not count it, and it still completes with success. Deterministic setup:
// two waits on one timer that expired in the past are collected together, so
// inside the first handler the second is expired-but-not-yet-run.
enum class late_call
{
  cancel,
  cancel_one,
  expires_after,
  expires_at
};

template <class Timer>
void check_expired_wait_is_not_counted(late_call call, const char* call_name)
{
  test_context<Timer> io;
  Timer timer(io, Timer::clock_type::now() - 1ms);
  const auto original_expiry = timer.expiry();
  std::size_t counted_inside_first_handler = 99;
  completion_record first, second;
  timer.async_wait([&](error_code ec) {
    recorder<Timer>(first, original_expiry)(ec);
    switch (call)
    {
    case late_call::cancel:
      counted_inside_first_handler = timer.cancel();
      break;
    case late_call::cancel_one:
      counted_inside_first_handler = timer.cancel_one();
      break;
    case late_call::expires_after:
      counted_inside_first_handler = timer.expires_after(1h);
      break;
    case late_call::expires_at:
      counted_inside_first_handler = timer.expires_at(Timer::time_point::max());
      break;
    }
  });
  timer.async_wait(recorder(second, timer));
  CONFORMANCE_RUN_TO_COMPLETION(io);

  BOOST_TEST(!first.ec, "first wait: " << describe(first.ec));
  BOOST_TEST(counted_inside_first_handler == 0u,
      call_name << " counted " << counted_inside_first_handler
                << " wait(s) although the only other wait had already expired");
  BOOST_TEST(second.invocations == 1);
  BOOST_TEST(!second.ec,
      "an expired wait must still see success after " << call_name << ", got "
                                                      << describe(second.ec));
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    cancel_does_not_count_expired_wait, Timer, timer_types)
{
  check_expired_wait_is_not_counted<Timer>(late_call::cancel, "cancel()");
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    cancel_one_does_not_count_expired_wait, Timer, timer_types)
{
  check_expired_wait_is_not_counted<Timer>(
      late_call::cancel_one, "cancel_one()");
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    expires_after_does_not_count_expired_wait, Timer, timer_types)
{
  check_expired_wait_is_not_counted<Timer>(
      late_call::expires_after, "expires_after()");
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    expires_at_does_not_count_expired_wait, Timer, timer_types)
{
  check_expired_wait_is_not_counted<Timer>(
      late_call::expires_at, "expires_at()");
}

// ---------------------------------------------------------------- deprecated members

#if defined(ASIO_WHEEL_HAS_DEPRECATED_TIMER_MEMBERS)
BOOST_AUTO_TEST_CASE_TEMPLATE(
    deprecated_getters_report_the_expiry, Timer, timer_types)
{
  test_context<Timer> io;
  Timer timer(io, 1h);
  const auto expiry = timer.expiry();
  BOOST_TEST(
      (timer.expires_at() == expiry), "expires_at() differs from expiry()");
  const auto before = Timer::clock_type::now();
  const typename Timer::duration remaining = timer.expires_from_now();
  const auto after = Timer::clock_type::now();
  BOOST_TEST((remaining <= expiry - before && remaining >= expiry - after),
      "expires_from_now() should be expiry() - now, got "
          << std::chrono::duration_cast<std::chrono::nanoseconds>(remaining)
                 .count()
          << " ns for "
          << std::chrono::duration_cast<std::chrono::nanoseconds>(
                 expiry - before)
                 .count()
          << " ns remaining");
  Timer past(io, Timer::clock_type::now() - 1s);
  BOOST_TEST((past.expires_from_now() <= -1s),
      "an expiry in the past gives a negative expires_from_now()");
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    deprecated_expires_from_now_aborts_pending_waits_and_does_not_rearm, Timer,
    timer_types)
{
  test_context<Timer> io;
  Timer timer(io, 1h);
  completion_record records[3];
  for (auto& r : records)
    timer.async_wait(recorder(r, timer));

  auto before = Timer::clock_type::now();
  BOOST_TEST(timer.expires_from_now(1ms) == 3u,
      "expires_from_now(d) should report the 3 aborted waits");
  BOOST_TEST((timer.expiry() >= before + 1ms
                 && timer.expiry() <= Timer::clock_type::now() + 1ms),
      "expires_from_now(d) did not set expiry to now + d");
  BOOST_TEST(
      records[0].invocations == 0, "handler ran inside expires_from_now(d)");

  completion_record second;
  timer.async_wait(recorder(second, timer));
  error_code ec = asio::error::would_block;
  before = Timer::clock_type::now();
  BOOST_TEST(timer.expires_from_now(2ms, ec) == 1u,
      "expires_from_now(d, ec) should report the aborted wait");
  BOOST_TEST(
      !ec, "expires_from_now(d, ec) should clear ec, got " << describe(ec));
  BOOST_TEST((timer.expiry() >= before + 2ms
                 && timer.expiry() <= Timer::clock_type::now() + 2ms),
      "expires_from_now(d, ec) did not set expiry to now + d");
  BOOST_TEST(timer.expires_from_now(2ms) == 0u, "no wait was left to abort");

  completion_record last;
  timer.async_wait(recorder(last, timer));
  CONFORMANCE_RUN_TO_COMPLETION(io);
  for (auto& r : records)
  {
    BOOST_TEST(
        r.invocations == 1, "aborted wait ran " << r.invocations << " times");
    BOOST_TEST(is_aborted(r.ec), "got " << describe(r.ec));
  }
  BOOST_TEST(second.invocations == 1);
  BOOST_TEST(is_aborted(second.ec), "got " << describe(second.ec));
  BOOST_TEST(last.invocations == 1);
  BOOST_TEST(!last.ec, "wait after expires_from_now: " << describe(last.ec));
  BOOST_TEST(last.ran_at_or_after_expiry,
      "wait after expires_from_now completed before its expiry");
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    deprecated_expires_at_with_error_code_aborts_pending_waits, Timer,
    timer_types)
{
  test_context<Timer> io;
  Timer timer(io, Timer::time_point::max());
  completion_record records[2];
  for (auto& r : records)
    timer.async_wait(recorder(r, timer));

  const auto new_expiry = Timer::clock_type::now() + 1ms;
  error_code ec = asio::error::would_block;
  BOOST_TEST(timer.expires_at(new_expiry, ec) == 2u,
      "expires_at(tp, ec) should report the 2 aborted waits");
  BOOST_TEST(!ec, "expires_at(tp, ec) should clear ec, got " << describe(ec));
  BOOST_TEST((timer.expiry() == new_expiry),
      "expires_at(tp, ec) did not set the expiry");
  ec = asio::error::would_block;
  BOOST_TEST(
      timer.expires_at(new_expiry, ec) == 0u, "no wait was left to abort");
  BOOST_TEST(!ec, "got " << describe(ec));
  CONFORMANCE_RUN_TO_COMPLETION(io);
  for (auto& r : records)
  {
    BOOST_TEST(
        r.invocations == 1, "aborted wait ran " << r.invocations << " times");
    BOOST_TEST(is_aborted(r.ec), "got " << describe(r.ec));
  }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    deprecated_cancel_with_error_code_aborts_oldest_or_all, Timer, timer_types)
{
  test_context<Timer> io;
  Timer timer(io, 1h);
  std::vector<int> aborted_order;
  for (int i = 0; i < 3; ++i)
    timer.async_wait([&aborted_order, i](error_code ec) {
      BOOST_TEST(is_aborted(ec), "wait " << i << ": " << describe(ec));
      aborted_order.push_back(i);
    });

  error_code ec = asio::error::would_block;
  BOOST_TEST(timer.cancel_one(ec) == 1u);
  BOOST_TEST(!ec, "cancel_one(ec) should clear ec, got " << describe(ec));
  BOOST_TEST(aborted_order.empty(), "handler ran inside cancel_one(ec)");
  io.poll();
  BOOST_TEST(aborted_order == std::vector<int>({0}),
      "cancel_one(ec) must abort the oldest wait");

  ec = asio::error::would_block;
  BOOST_TEST(
      timer.cancel(ec) == 2u, "cancel(ec) should report the 2 waits left");
  BOOST_TEST(!ec, "cancel(ec) should clear ec, got " << describe(ec));
  BOOST_TEST(aborted_order.size() == 1u, "handler ran inside cancel(ec)");
  ec = asio::error::would_block;
  BOOST_TEST(timer.cancel(ec) == 0u, "second cancel(ec) found waits again");
  BOOST_TEST(!ec, "got " << describe(ec));
  ec = asio::error::would_block;
  BOOST_TEST(timer.cancel_one(ec) == 0u, "cancel_one(ec) without waits");
  BOOST_TEST(!ec, "got " << describe(ec));
  CONFORMANCE_RUN_TO_COMPLETION(io);
  BOOST_TEST(aborted_order == std::vector<int>({0, 1, 2}));
}
#endif  // ASIO_WHEEL_HAS_DEPRECATED_TIMER_MEMBERS

// ---------------------------------------------------------------- blocking wait

BOOST_AUTO_TEST_CASE_TEMPLATE(
    blocking_wait_returns_at_or_after_expiry, Timer, timer_types)
{
  test_context<Timer> io;
  Timer timer(io, 3ms);
  timer.wait();
  BOOST_TEST((Timer::clock_type::now() >= timer.expiry()),
      "wait() returned before the expiry");

  timer.expires_after(2ms);
  error_code ec = asio::error::would_block;
  timer.wait(ec);
  BOOST_TEST(!ec, "wait(ec) should report success, got " << describe(ec));
  BOOST_TEST((Timer::clock_type::now() >= timer.expiry()),
      "wait(ec) returned before the expiry");
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    blocking_wait_on_expired_timer_returns_at_once, Timer, timer_types)
{
  test_context<Timer> io;
  Timer timer(io, Timer::clock_type::now() - 1s);
  const auto start = std::chrono::steady_clock::now();
  error_code ec = asio::error::would_block;
  timer.wait(ec);
  timer.wait();
  const auto took = std::chrono::steady_clock::now() - start;
  BOOST_TEST(!ec, "got " << describe(ec));
  BOOST_TEST((took < 500ms),
      "wait() on an expired timer took "
          << std::chrono::duration_cast<std::chrono::microseconds>(took).count()
          << " us");
}

// ---------------------------------------------------------------- async_wait basics

BOOST_AUTO_TEST_CASE_TEMPLATE(
    async_wait_handler_never_runs_inside_async_wait, Timer, timer_types)
{
  test_context<Timer> io;
  Timer expired(io, Timer::clock_type::now() - 1s);
  Timer default_constructed(io);  // expiry at the epoch: also already expired
  completion_record a, b;
  expired.async_wait(recorder(a, expired));
  default_constructed.async_wait(recorder(b, default_constructed));
  BOOST_TEST(
      a.invocations == 0, "handler of an expired timer ran inside async_wait");
  BOOST_TEST(b.invocations == 0,
      "handler of a default-constructed timer ran inside async_wait");
  CONFORMANCE_RUN_TO_COMPLETION(io);
  BOOST_TEST(a.invocations == 1);
  BOOST_TEST(b.invocations == 1);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    already_expired_wait_completes_soon_with_success, Timer, timer_types)
{
  test_context<Timer> io;
  Timer timer(io, Timer::clock_type::now() - 10ms);
  completion_record record;
  timer.async_wait(recorder(record, timer));
  const auto start = std::chrono::steady_clock::now();
  CONFORMANCE_RUN_TO_COMPLETION(io);
  const auto took = std::chrono::steady_clock::now() - start;
  BOOST_TEST(record.invocations == 1);
  BOOST_TEST(!record.ec, "got " << describe(record.ec));
  // Generous bound: the machine is shared; the point is "not at some later tick round".
  BOOST_TEST((took < 200ms),
      "expired wait took "
          << std::chrono::duration_cast<std::chrono::microseconds>(took).count()
          << " us to complete");
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    async_wait_never_completes_before_expiry, Timer, timer_types)
{
  test_context<Timer> io;
  // Odd durations so that expiries fall between tick boundaries.
  const std::chrono::microseconds delays[] = {
      1us, 700us, 1000us, 1500us, 2300us, 4999us, 7000us};
  std::vector<Timer> timers;
  timers.reserve(std::size(delays));
  std::vector<completion_record> records(std::size(delays));
  for (std::size_t i = 0; i < std::size(delays); ++i)
  {
    timers.emplace_back(io, delays[i]);
    timers.back().async_wait(recorder(records[i], timers.back()));
  }
  CONFORMANCE_RUN_TO_COMPLETION(io);
  for (std::size_t i = 0; i < records.size(); ++i)
  {
    BOOST_TEST(records[i].invocations == 1,
        "wait of " << delays[i].count() << " us ran " << records[i].invocations
                   << " times");
    BOOST_TEST(!records[i].ec,
        "wait of " << delays[i].count() << " us: " << describe(records[i].ec));
    BOOST_TEST(records[i].ran_at_or_after_expiry,
        "wait of " << delays[i].count() << " us completed before its expiry");
  }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    pending_wait_keeps_run_from_returning_until_cancelled, Timer, timer_types)
{
  test_context<Timer> io;
  Timer timer(io, Timer::time_point::max());
  completion_record record;
  timer.async_wait(recorder(record, timer));

  io.poll();
  BOOST_TEST(!io.stopped(),
      "poll() found no outstanding work although a wait is pending");
  const auto start = std::chrono::steady_clock::now();
  io.run_for(30ms);
  BOOST_TEST((std::chrono::steady_clock::now() - start >= 30ms),
      "run_for() returned early");
  BOOST_TEST(
      !io.stopped(), "run_for() ran out of work although a wait is pending");
  BOOST_TEST(record.invocations == 0, "wait at time_point::max() completed");

  BOOST_TEST(timer.cancel() == 1u);
  CONFORMANCE_RUN_TO_COMPLETION(
      io);  // run() returns once the aborted handler ran
  BOOST_TEST(record.invocations == 1);
  BOOST_TEST(is_aborted(record.ec), "got " << describe(record.ec));
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    waits_on_one_timer_complete_in_fifo_order, Timer, timer_types)
{
  test_context<Timer> io;
  std::vector<int> order;
  Timer soon(io, 2ms);
  Timer expired(io, Timer::clock_type::now() - 1ms);
  std::vector<int> expired_order;
  for (int i = 0; i < 8; ++i)
  {
    soon.async_wait([&order, i](error_code ec) {
      BOOST_TEST(!ec, "wait " << i << ": " << describe(ec));
      order.push_back(i);
    });
    expired.async_wait(
        [&expired_order, i](error_code) { expired_order.push_back(i); });
  }
  CONFORMANCE_RUN_TO_COMPLETION(io);
  BOOST_TEST(order == std::vector<int>({0, 1, 2, 3, 4, 5, 6, 7}),
      "waits at expiry ran out of order");
  BOOST_TEST(expired_order == std::vector<int>({0, 1, 2, 3, 4, 5, 6, 7}),
      "waits on an already expired timer ran out of order");
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    condition_variable_idiom_cancel_one_wakes_exactly_one_waiter, Timer,
    timer_types)
{
  test_context<Timer> io;
  Timer condition(io);
  condition.expires_at(Timer::time_point::max());
  std::vector<int> woken;
  for (int i = 0; i < 3; ++i)
    condition.async_wait([&woken, i](error_code ec) {
      BOOST_TEST(
          is_aborted(ec), "waiter " << i << " woke with " << describe(ec));
      woken.push_back(i);
    });

  // A post()ed notifier, as another part of the program would do it.
  asio::post(io, [&] { BOOST_TEST(condition.cancel_one() == 1u); });
  io.run_for(20ms);  // far expiry: only the notified waiter may complete
  BOOST_TEST(
      !io.stopped(), "two waiters should still keep the io_context busy");
  BOOST_TEST(woken == std::vector<int>({0}),
      "cancel_one() should wake exactly the oldest waiter");

  BOOST_TEST(condition.cancel() == 2u);
  CONFORMANCE_RUN_TO_COMPLETION(io);
  BOOST_TEST(woken == std::vector<int>({0, 1, 2}));
}

BOOST_AUTO_TEST_SUITE_END()
