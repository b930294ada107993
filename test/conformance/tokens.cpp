// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// Conformance of async_wait with each of these completion tokens: callbacks
// (move-only too), use_future, use_awaitable with co_spawn, deferred (as
// token and awaited), as_tuple, redirect_error, consign, append, prepend,
// experimental::make_parallel_group, the awaitable operator ||,
// as_default_on, detached and yield_context.
// bind_executor, bind_allocator and bind_cancellation_slot are covered with
// the associated characteristics in semantics.cpp.
//
// A token that the Asio being compiled against does not have is left out by
// the ASIO_WHEEL_TEST_HAS_... gates of ../test_asio.hpp, and the test case
// tokens/what_this_leg_leaves_out prints what was left out, so that the log of
// every leg says it (standalone Asio 1.22 has no consign, and deferred,
// as_tuple, append and prepend only in asio::experimental, where they are
// tested through asio_wheel_test::token::).
//
// Cancellation inside coroutines is made deterministic by post()ing the
// cancel() before starting the wait: the posted function can only run once the
// coroutine has suspended inside async_wait.
#include "conformance.hpp"

#include <array>
#include <exception>
#include <future>
#include <iostream>
#include <optional>
#include <variant>

using namespace conformance;

namespace {

// Runs a coroutine body (a callable returning awaitable<void>) to completion
// and fails the test if it threw or never finished.
template <class Body>
void run_coroutine(asio::io_context& io, Body body)
{
  bool finished = false;
  std::exception_ptr error;
  asio::co_spawn(io, std::move(body), [&](std::exception_ptr e) {
    finished = true;
    error = e;
  });
  CONFORMANCE_RUN_TO_COMPLETION(io);
  BOOST_TEST(finished, "coroutine never finished");
  BOOST_TEST(!error, "coroutine threw: " << describe(error));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(tokens)

// Always passes; says in the CTest log which of the tokens above this leg cannot test.
BOOST_AUTO_TEST_CASE(what_this_leg_leaves_out)
{
  const std::string left_out = tokens_left_out();
  const std::string renamed = tokens_renamed();
  std::cout << "tokens: left out in this leg (" << asio_description() << "): "
            << (left_out.empty() ? "nothing"
                                 : left_out + " -- not in this Asio")
            << "\n";
  if (!renamed.empty())
    std::cout << "tokens: " << renamed << "\n";
  BOOST_TEST(true);
}

// ---------------------------------------------------------------- callbacks

// Asio accepts handlers that can only be moved (they own a unique resource).
struct move_only_handler
{
  std::unique_ptr<int> owned;
  completion_record* record;
  move_only_handler(std::unique_ptr<int> o, completion_record& r)
    : owned(std::move(o)), record(&r)
  {}
  move_only_handler(move_only_handler&&) = default;
  move_only_handler(const move_only_handler&) = delete;
  void operator()(error_code ec)
  {
    ++record->invocations;
    record->ec = ec;
    record->ran_at_or_after_expiry =
        owned && *owned == 42;  // the payload survived the moves
  }
};

BOOST_AUTO_TEST_CASE_TEMPLATE(
    move_only_callback_is_invoked_with_its_state, Timer, timer_types)
{
  test_context<Timer> io;
  Timer timer(io, 1ms);
  completion_record record;
  timer.async_wait(move_only_handler(std::make_unique<int>(42), record));
  CONFORMANCE_RUN_TO_COMPLETION(io);
  BOOST_TEST(record.invocations == 1);
  BOOST_TEST(!record.ec, "got " << describe(record.ec));
  BOOST_TEST(record.ran_at_or_after_expiry,
      "move-only handler lost the state it owned");
}

// ---------------------------------------------------------------- use_future

BOOST_AUTO_TEST_CASE_TEMPLATE(
    use_future_is_ready_after_expiry_and_throws_when_cancelled, Timer,
    timer_types)
{
  test_context<Timer> io;
  Timer expiring(io, 2ms);
  Timer cancelled(io, Timer::time_point::max());
  std::future<void> expired_future = expiring.async_wait(asio::use_future);
  std::future<void> cancelled_future = cancelled.async_wait(asio::use_future);
  BOOST_TEST(cancelled.cancel() == 1u);
  CONFORMANCE_RUN_TO_COMPLETION(io);

  BOOST_REQUIRE((expired_future.wait_for(0s) == std::future_status::ready));
  BOOST_CHECK_NO_THROW(expired_future.get());
  BOOST_TEST((Timer::clock_type::now() >= expiring.expiry()));
  BOOST_REQUIRE((cancelled_future.wait_for(0s) == std::future_status::ready));
  try
  {
    cancelled_future.get();
    BOOST_ERROR("future of a cancelled wait did not throw");
  }
  catch (const system_error& e)
  {
    BOOST_TEST(is_aborted(e.code()), "future threw " << describe(e.code()));
  }
}

// ---------------------------------------------------------------- use_awaitable

BOOST_AUTO_TEST_CASE_TEMPLATE(
    use_awaitable_resumes_after_expiry_and_throws_when_cancelled, Timer,
    timer_types)
{
  test_context<Timer> io;
  run_coroutine(io, [&]() -> asio::awaitable<void> {
    Timer timer(co_await asio::this_coro::executor, 2ms);
    co_await timer.async_wait(asio::use_awaitable);
    BOOST_TEST((Timer::clock_type::now() >= timer.expiry()),
        "coroutine resumed before the expiry");

    timer.expires_at(Timer::time_point::max());
    asio::post(io, [&] { BOOST_TEST(timer.cancel() == 1u); });
    try
    {
      co_await timer.async_wait(asio::use_awaitable);
      BOOST_ERROR("awaiting a cancelled wait did not throw");
    }
    catch (const system_error& e)
    {
      BOOST_TEST(is_aborted(e.code()),
          "awaiting a cancelled wait threw " << describe(e.code()));
    }
  });
}

// ---------------------------------------------------------------- deferred

#if defined(ASIO_WHEEL_TEST_HAS_TOKEN_ADAPTERS)
BOOST_AUTO_TEST_CASE_TEMPLATE(
    deferred_token_starts_wait_only_when_invoked, Timer, timer_types)
{
  test_context<Timer> io;
  Timer timer(io, 2ms);
  auto operation = timer.async_wait(token::deferred);
  BOOST_TEST(timer.cancel() == 0u,
      "async_wait(deferred) started the wait before it was invoked");
  completion_record record;
  std::move(operation)(recorder(record, timer));
  CONFORMANCE_RUN_TO_COMPLETION(io);
  BOOST_TEST(record.invocations == 1);
  BOOST_TEST(!record.ec, "got " << describe(record.ec));
  BOOST_TEST(record.ran_at_or_after_expiry);
}
#endif

#if defined(ASIO_WHEEL_TEST_HAS_AWAITABLE_DEFERRED)
BOOST_AUTO_TEST_CASE_TEMPLATE(
    deferred_operation_can_be_awaited, Timer, timer_types)
{
  test_context<Timer> io;
  run_coroutine(io, [&]() -> asio::awaitable<void> {
    Timer timer(io, 2ms);
    co_await timer.async_wait(token::deferred);
    BOOST_TEST((Timer::clock_type::now() >= timer.expiry()),
        "awaited deferred wait resumed early");
  });
}
#endif

// ---------------------------------------------------------------- as_tuple, redirect_error

#if defined(ASIO_WHEEL_TEST_HAS_TOKEN_ADAPTERS)
BOOST_AUTO_TEST_CASE_TEMPLATE(
    as_tuple_delivers_error_code_as_tuple, Timer, timer_types)
{
  test_context<Timer> io;
  Timer callback_timer(io, Timer::time_point::max());
  std::optional<std::tuple<error_code>> delivered;
  callback_timer.async_wait(token::as_tuple(
      [&](std::tuple<error_code> result) { delivered = result; }));
  callback_timer.cancel();

  run_coroutine(io, [&]() -> asio::awaitable<void> {
    Timer timer(io, Timer::time_point::max());
    asio::post(io, [&] { timer.cancel(); });
    auto [ec] = co_await timer.async_wait(token::as_tuple(asio::use_awaitable));
    BOOST_TEST(is_aborted(ec), "as_tuple(use_awaitable) gave " << describe(ec));
    timer.expires_after(1ms);
    auto [ec2] =
        co_await timer.async_wait(token::as_tuple(asio::use_awaitable));
    BOOST_TEST(!ec2, "as_tuple(use_awaitable) gave " << describe(ec2));
  });
  BOOST_REQUIRE(delivered.has_value());
  BOOST_TEST(is_aborted(std::get<0>(*delivered)),
      "as_tuple(callback) gave " << describe(std::get<0>(*delivered)));
}
#endif

BOOST_AUTO_TEST_CASE_TEMPLATE(
    redirect_error_stores_error_instead_of_throwing, Timer, timer_types)
{
  test_context<Timer> io;
  run_coroutine(io, [&]() -> asio::awaitable<void> {
    Timer timer(io, Timer::time_point::max());
    error_code ec;
    asio::post(io, [&] { timer.cancel(); });
    co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    BOOST_TEST(is_aborted(ec), "redirect_error stored " << describe(ec));
    timer.expires_after(1ms);
    ec = asio::error::would_block;
    co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    BOOST_TEST(!ec, "redirect_error stored " << describe(ec));
  });
}

// ---------------------------------------------------------------- consign, append, prepend

#if defined(ASIO_WHEEL_TEST_HAS_CONSIGN)
BOOST_AUTO_TEST_CASE_TEMPLATE(
    consign_keeps_values_alive_until_completion, Timer, timer_types)
{
  test_context<Timer> io;
  Timer timer(io, 2ms);
  auto kept_alive = std::make_shared<int>(7);
  std::weak_ptr<int> observer = kept_alive;
  bool alive_in_handler = false;
  timer.async_wait(
      asio::consign([&](error_code) { alive_in_handler = !observer.expired(); },
          std::move(kept_alive)));
  BOOST_TEST(!observer.expired(),
      "consign did not keep the value alive while the wait is pending");
  CONFORMANCE_RUN_TO_COMPLETION(io);
  BOOST_TEST(
      alive_in_handler, "consigned value was released before the handler ran");
  BOOST_TEST(
      observer.expired(), "consigned value outlived the completed operation");
}
#endif

#if defined(ASIO_WHEEL_TEST_HAS_TOKEN_ADAPTERS)
BOOST_AUTO_TEST_CASE_TEMPLATE(
    append_and_prepend_add_values_to_completion, Timer, timer_types)
{
  test_context<Timer> io;
  Timer timer(io, 1ms);
  std::string appended;
  int prepended = 0;
  error_code append_ec = asio::error::would_block,
             prepend_ec = asio::error::would_block;
  timer.async_wait(token::append(
      [&](error_code ec, int number, std::string text) {
        append_ec = ec;
        appended = std::to_string(number) + text;
      },
      5, std::string("x")));
  timer.async_wait(token::prepend(
      [&](int number, error_code ec) {
        prepend_ec = ec;
        prepended = number;
      },
      9));
  CONFORMANCE_RUN_TO_COMPLETION(io);
  BOOST_TEST(appended == "5x");
  BOOST_TEST(!append_ec, "append: " << describe(append_ec));
  BOOST_TEST(prepended == 9);
  BOOST_TEST(!prepend_ec, "prepend: " << describe(prepend_ec));
}
#endif

// ---------------------------------------------------------------- parallel group, ||

#if defined(ASIO_WHEEL_TEST_HAS_TOKEN_ADAPTERS)
BOOST_AUTO_TEST_CASE_TEMPLATE(
    parallel_group_wait_for_one_cancels_the_slower_wait, Timer, timer_types)
{
  test_context<Timer> io;
  Timer fast(io, 2ms);
  Timer never(io, Timer::time_point::max());
  bool completed = false;
  std::array<std::size_t, 2> order{};
  error_code fast_ec = asio::error::would_block, never_ec;
  asio::experimental::make_parallel_group(
      fast.async_wait(token::deferred), never.async_wait(token::deferred))
      .async_wait(asio::experimental::wait_for_one(),
          [&](std::array<std::size_t, 2> o, error_code e1, error_code e2) {
            completed = true;
            order = o;
            fast_ec = e1;
            never_ec = e2;
          });
  // Returns only if the group cancelled the never-expiring wait through its slot.
  CONFORMANCE_RUN_TO_COMPLETION(io);
  BOOST_REQUIRE(completed);
  BOOST_TEST(order[0] == 0u, "the 2 ms wait should finish first");
  BOOST_TEST(!fast_ec, "fast wait: " << describe(fast_ec));
  BOOST_TEST(is_aborted(never_ec),
      "the slower wait should be cancelled, got " << describe(never_ec));
  BOOST_TEST(
      never.cancel() == 0u, "the cancelled wait is still pending on its timer");
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    awaitable_or_operator_returns_first_and_cancels_other, Timer, timer_types)
{
  using namespace asio::experimental::awaitable_operators;
  test_context<Timer> io;
  Timer fast(io, 2ms);
  Timer never(io, Timer::time_point::max());
  run_coroutine(io, [&]() -> asio::awaitable<void> {
    auto winner = co_await (fast.async_wait(asio::use_awaitable)
        || never.async_wait(asio::use_awaitable));
    BOOST_TEST(winner.index() == 0u,
        "|| reported alternative " << winner.index() << " as the winner");
    BOOST_TEST((Timer::clock_type::now() >= fast.expiry()));
  });
  BOOST_TEST(
      never.cancel() == 0u, "the losing wait is still pending on its timer");
}
#endif

// ---------------------------------------------------------------- as_default_on, detached

BOOST_AUTO_TEST_CASE_TEMPLATE(
    as_default_on_makes_token_the_default, Timer, timer_types)
{
  test_context<Timer> io;
  run_coroutine(io, [&]() -> asio::awaitable<void> {
    auto awaiting = asio::use_awaitable_t<>::as_default_on(Timer(io, 1ms));
    co_await awaiting.async_wait();
    BOOST_TEST((Timer::clock_type::now() >= awaiting.expiry()));

#if defined(ASIO_WHEEL_TEST_HAS_TOKEN_ADAPTERS)
    using tuple_awaitable = token::as_tuple_t<asio::use_awaitable_t<>>;
    auto tupled =
        tuple_awaitable::as_default_on(Timer(io, Timer::time_point::max()));
    asio::post(io, [&] { tupled.cancel(); });
    auto [ec] = co_await tupled.async_wait();
    BOOST_TEST(is_aborted(ec), "as_tuple default token gave " << describe(ec));
#endif
  });

#if defined(ASIO_WHEEL_TEST_HAS_TOKEN_ADAPTERS)
  auto deferring = token::deferred.as_default_on(Timer(io, 1ms));
  completion_record record;
  deferring.async_wait()(recorder<Timer>(record, deferring.expiry()));
  CONFORMANCE_RUN_TO_COMPLETION(io);
  BOOST_TEST(record.invocations == 1);
  BOOST_TEST(!record.ec, "deferred default token: " << describe(record.ec));
  BOOST_TEST(record.ran_at_or_after_expiry);
#endif
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    detached_wait_keeps_run_busy_until_expiry, Timer, timer_types)
{
  test_context<Timer> io;
  Timer timer(io, 3ms);
  timer.async_wait(asio::detached);
#if defined(ASIO_WHEEL_TEST_DETACHED_DEFAULT_ON_ANY_IO_EXECUTOR)
  auto defaulted = asio::detached_t::as_default_on(Timer(io, 4ms));
#else
  using native_timer = typename Timer::template rebind_executor<
      profile_executor_t<Timer, asio::io_context::executor_type>>::other;
  auto defaulted = asio::detached_t::as_default_on(native_timer(io, 4ms));
#endif
  defaulted.async_wait();
  CONFORMANCE_RUN_TO_COMPLETION(io);
  // Nothing observes a detached completion except that run() waited for it.
  BOOST_TEST((Timer::clock_type::now() >= timer.expiry()),
      "run() returned before the detached wait expired");
  BOOST_TEST((Timer::clock_type::now() >= defaulted.expiry()),
      "run() returned before the detached-by-default wait expired");
}

// ---------------------------------------------------------------- yield_context

#if defined(ASIO_WHEEL_TEST_HAS_YIELD_CONTEXT)
BOOST_AUTO_TEST_CASE_TEMPLATE(
    yield_context_resumes_after_expiry_and_reports_cancel, Timer, timer_types)
{
  test_context<Timer> io;
  bool finished = false;
  std::exception_ptr error;
  auto body = [&](asio::yield_context yield) {
    Timer timer(io, 2ms);
    timer.async_wait(yield);
    BOOST_TEST((Timer::clock_type::now() >= timer.expiry()),
        "stackful coroutine resumed early");

    timer.expires_at(Timer::time_point::max());
    asio::post(io, [&] { timer.cancel(); });
    error_code ec;
    timer.async_wait(yield[ec]);
    BOOST_TEST(is_aborted(ec), "yield[ec] stored " << describe(ec));

    asio::post(io, [&] { timer.cancel(); });
    try
    {
      timer.async_wait(yield);
      BOOST_ERROR("cancelled wait with plain yield did not throw");
    }
    catch (const system_error& e)
    {
      BOOST_TEST(
          is_aborted(e.code()), "plain yield threw " << describe(e.code()));
    }
  };
# if defined(ASIO_WHEEL_TEST_SPAWN_TAKES_TOKEN)
  asio::spawn(io, body, [&](std::exception_ptr e) {
    finished = true;
    error = e;
  });
# else
  // Before Asio 1.23 (Boost 1.80) spawn takes no completion token: the body
  // says that it finished, and an exception it throws leaves run(), which
  // fails the test case (a catch here would also catch Boost.Coroutine's
  // forced unwinding).
  asio::spawn(io, [&](asio::yield_context yield) {
    body(yield);
    finished = true;
  });
# endif
  CONFORMANCE_RUN_TO_COMPLETION(io);
  BOOST_TEST(finished, "stackful coroutine never finished");
  BOOST_TEST(!error, "stackful coroutine threw: " << describe(error));
}
#endif

BOOST_AUTO_TEST_SUITE_END()
