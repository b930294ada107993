// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// Conformance of the behaviour around async_wait that Asio defines through the
// handler's associated characteristics (executor, allocator, per-operation
// cancellation slot), through shutdown and handler misbehaviour (pending
// handlers are destroyed, never invoked; a timer may be re-armed, moved or
// destroyed inside its own handler; an exception leaves run() and loses no
// wait) and through threads (run() on several threads, timers whose executor
// is a strand).
#include "conformance.hpp"

#include <functional>
#include <future>
#include <optional>
#include <stdexcept>
#include <thread>
#include <type_traits>

using namespace conformance;

BOOST_AUTO_TEST_SUITE(semantics)

// ---------------------------------------------------------------- associated executor

BOOST_AUTO_TEST_CASE_TEMPLATE(
    handler_runs_through_associated_strand_executor, Timer, timer_types)
{
  test_context<Timer> io;
  auto strand = asio::make_strand(io);
  Timer expiring(io, 1ms);
  Timer cancelled(io, Timer::time_point::max());
  int in_strand = 0, outside_strand = 0;
  auto check = [&](error_code) {
    (strand.running_in_this_thread() ? in_strand : outside_strand) += 1;
  };
  expiring.async_wait(asio::bind_executor(strand, check));
  cancelled.async_wait(asio::bind_executor(strand, check));
  BOOST_TEST(cancelled.cancel() == 1u);
  CONFORMANCE_RUN_TO_COMPLETION(io);
  BOOST_TEST(in_strand == 2,
      in_strand << " of 2 handlers ran inside the bound strand");
  BOOST_TEST(outside_strand == 0,
      outside_strand << " handlers ran outside the bound strand");
}

// A timer made on a strand (its executor, any_io_executor, holds the strand)
// runs its handlers on that strand: a handler that left it would race with the
// strand's other handlers. The strand of an io_context, then of a thread_pool.
BOOST_AUTO_TEST_CASE_TEMPLATE(
    handler_runs_on_the_strand_the_timer_was_made_on, Timer, timer_types)
{
  test_context<Timer> io;
  auto strand = asio::make_strand(io);
  Timer expiring(strand, 1ms);
  Timer cancelled(strand, Timer::time_point::max());
  int in_strand = 0, outside_strand = 0;
  auto check = [&](error_code) {
    (strand.running_in_this_thread() ? in_strand : outside_strand) += 1;
  };
  expiring.async_wait(check);
  cancelled.async_wait(check);
  BOOST_TEST(cancelled.cancel() == 1u);
  CONFORMANCE_RUN_TO_COMPLETION(io);
  BOOST_TEST(in_strand == 2,
      in_strand << " of 2 handlers ran inside the timer's strand");
  BOOST_TEST(outside_strand == 0,
      outside_strand << " handlers ran outside the timer's strand");
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    handler_runs_on_the_thread_pool_strand_the_timer_was_made_on, Timer,
    timer_types)
{
  // Declared before the pool, whose destructor joins its threads.
  std::atomic<int> in_strand{0}, outside_strand{0}, ran{0};
  std::promise<void> both_ran;
  asio::thread_pool pool(2);
  timer_profile<Timer>::configure(pool);
  auto strand = asio::make_strand(pool);
  auto check = [&](error_code) {
    (strand.running_in_this_thread() ? in_strand : outside_strand) += 1;
    if (++ran == 2)
      both_ran.set_value();
  };
  {
    Timer expiring(strand, 1ms);
    Timer cancelled(strand, Timer::time_point::max());
    expiring.async_wait(check);
    cancelled.async_wait(check);
    BOOST_TEST(cancelled.cancel() == 1u);
    BOOST_REQUIRE_MESSAGE(
        both_ran.get_future().wait_for(run_limit) == std::future_status::ready,
        "the handlers did not run within 5 s");
  }
  pool.join();
  BOOST_TEST(in_strand == 2,
      in_strand << " of 2 handlers ran inside the timer's strand");
  BOOST_TEST(outside_strand == 0,
      outside_strand << " handlers ran outside the timer's strand");
}

// ---------------------------------------------------------------- associated allocator

// A wait handler whose associated allocator is its own allocator_type: the
// form every Asio honours (bind_allocator, below, came with Asio 1.22.1).
template <class Allocator, class F>
struct handler_with_allocator
{
  using allocator_type = Allocator;
  allocator_type get_allocator() const noexcept { return allocator; }
  void operator()(error_code ec) { f(ec); }
  Allocator allocator;
  F f;
};

// The wait's operation is allocated with the handler's associated allocator
// (made by bind(allocator, function)), and freed before the handler runs.
template <class Timer, class Bind>
void check_associated_allocator(Bind bind)
{
  test_context<Timer> io;
  allocation_counts counts;
  Timer expiring(io, 1ms);
  Timer cancelled(io, Timer::time_point::max());
  std::size_t outstanding_in_handler[2] = {99, 99};
  auto handler_for = [&](int index) {
    return bind(counting_allocator<int>(counts), [&, index](error_code) {
      // Asio frees the operation before the upcall so that a handler can
      // start the next operation in the same memory.
      outstanding_in_handler[index] = counts.allocations - counts.deallocations;
    });
  };
  expiring.async_wait(handler_for(0));
  cancelled.async_wait(handler_for(1));
  BOOST_TEST(counts.allocations >= 2u,
      "async_wait allocated " << counts.allocations
                              << " times with the associated allocator");
  cancelled.cancel();
  CONFORMANCE_RUN_TO_COMPLETION(io);
  BOOST_TEST(counts.deallocations == counts.allocations,
      counts.allocations << " allocations but " << counts.deallocations
                         << " deallocations");
  // When either handler runs, its own operation must already be freed; only
  // the other wait's operation may still be allocated.
  BOOST_TEST(outstanding_in_handler[0] <= 1u,
      "expired wait's operation not freed before its handler ran");
  BOOST_TEST(outstanding_in_handler[1] <= 1u,
      "cancelled wait's operation not freed before its handler ran");
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    wait_operation_uses_the_handlers_own_allocator, Timer, timer_types)
{
  check_associated_allocator<Timer>([](auto allocator, auto f) {
    return handler_with_allocator<decltype(allocator), decltype(f)>{
        allocator, f};
  });
}

#if defined(ASIO_WHEEL_TEST_HAS_BIND_ALLOCATOR)
BOOST_AUTO_TEST_CASE_TEMPLATE(
    wait_operation_uses_associated_allocator, Timer, timer_types)
{
  check_associated_allocator<Timer>([](auto allocator, auto f) {
    return asio::bind_allocator(allocator, f);
  });
}
#endif

// ---------------------------------------------------------------- per-operation cancellation
// Where Asio has it (1.19 and later): detail/config.hpp.
#if defined(ASIO_WHEEL_ASIO_HAS_CANCELLATION_SLOT)

template <class Timer>
void check_slot_cancellation(
    asio::cancellation_type type, const char* type_name)
{
  test_context<Timer> io;
  Timer timer(io, 20ms);
  asio::cancellation_signal signal;
  completion_record bound, other;
  timer.async_wait(
      asio::bind_cancellation_slot(signal.slot(), recorder(bound, timer)));
  timer.async_wait(recorder(other, timer));
  io.poll();  // the waits are registered and running; nothing completes yet
  BOOST_TEST(bound.invocations == 0);

  signal.emit(type);
  BOOST_TEST(
      bound.invocations == 0, "handler ran inside emit(" << type_name << ")");
  io.poll();
  BOOST_TEST(bound.invocations == 1,
      type_name << " cancellation did not complete the bound wait promptly");
  BOOST_TEST(is_aborted(bound.ec),
      type_name << " cancellation gave " << describe(bound.ec));
  BOOST_TEST(other.invocations == 0,
      "the other wait on the timer completed too early");

  CONFORMANCE_RUN_TO_COMPLETION(io);
  BOOST_TEST(bound.invocations == 1,
      "cancelled wait ran " << bound.invocations << " times");
  BOOST_TEST(other.invocations == 1);
  BOOST_TEST(!other.ec,
      "the other wait was disturbed by "
          << type_name << " cancellation: " << describe(other.ec));
  BOOST_TEST(other.ran_at_or_after_expiry);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    terminal_slot_cancellation_aborts_only_that_wait, Timer, timer_types)
{
  check_slot_cancellation<Timer>(asio::cancellation_type::terminal, "terminal");
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    partial_slot_cancellation_aborts_only_that_wait, Timer, timer_types)
{
  check_slot_cancellation<Timer>(asio::cancellation_type::partial, "partial");
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    total_slot_cancellation_aborts_only_that_wait, Timer, timer_types)
{
  check_slot_cancellation<Timer>(asio::cancellation_type::total, "total");
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    slot_cancellation_after_timer_cancel_is_harmless, Timer, timer_types)
{
  test_context<Timer> io;
  Timer timer(io, Timer::time_point::max());
  asio::cancellation_signal signal;
  completion_record bound;
  timer.async_wait(
      asio::bind_cancellation_slot(signal.slot(), recorder(bound, timer)));
  BOOST_TEST(timer.cancel() == 1u);
  // The operation is already cancelled but its handler has not run: a signal
  // now must not complete it a second time.
  signal.emit(asio::cancellation_type::terminal);
  CONFORMANCE_RUN_TO_COMPLETION(io);
  BOOST_TEST(bound.invocations == 1,
      "wait cancelled twice ran " << bound.invocations << " times");
  BOOST_TEST(is_aborted(bound.ec), "got " << describe(bound.ec));
}

#endif  // ASIO_WHEEL_ASIO_HAS_CANCELLATION_SLOT

// ---------------------------------------------------------------- shutdown

// The common Asio ownership pattern: the handler owns the timer, so the only
// thing that ends the timer's life is the handler's destruction.
BOOST_AUTO_TEST_CASE_TEMPLATE(
    destroying_context_destroys_pending_handlers_without_invoking, Timer,
    timer_types)
{
  constexpr int timer_count = 50;
  bool destroyed[timer_count] = {};
  bool invoked = false;
  auto io = std::make_unique<test_context<Timer>>();
  for (int i = 0; i < timer_count; ++i)
  {
    // A mix of near, far and never-expiring waits so that shutdown meets
    // them in different places.
    auto timer = std::make_shared<Timer>(*io,
        i % 2 ? Timer::time_point::max()
              : Timer::clock_type::now() + std::chrono::hours(i + 1));
    timer->async_wait([timer, witness = destruction_witness(destroyed[i]),
                          &invoked](error_code) { invoked = true; });
  }
  io->poll();
  BOOST_TEST(!io->stopped(), "pending waits should keep the context busy");
  io.reset();
  BOOST_TEST(!invoked, "a pending handler was invoked during shutdown");
  int destroyed_count = 0;
  for (bool d : destroyed)
    destroyed_count += d;
  BOOST_TEST(destroyed_count == timer_count,
      destroyed_count << " of " << timer_count
                      << " pending handlers were destroyed at shutdown");
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    destroying_context_destroys_queued_completions_without_invoking, Timer,
    timer_types)
{
  bool cancelled_destroyed = false, expired_destroyed = false;
  bool invoked = false;
  auto io = std::make_unique<test_context<Timer>>();
  {
    Timer cancelled(*io, Timer::time_point::max());
    Timer expired(*io, Timer::clock_type::now() - 1s);
    cancelled.async_wait([witness = destruction_witness(cancelled_destroyed),
                             &invoked](error_code) { invoked = true; });
    expired.async_wait([witness = destruction_witness(expired_destroyed),
                           &invoked](error_code) { invoked = true; });
    cancelled.cancel();
  }  // the destructors queue the cancelled completion; nothing has run yet
  io.reset();
  BOOST_TEST(!invoked, "a queued completion was invoked during shutdown");
  BOOST_TEST(cancelled_destroyed,
      "queued completion of a cancelled wait was not destroyed");
  BOOST_TEST(
      expired_destroyed, "completion of an expired wait was not destroyed");
}

// ---------------------------------------------------------------- re-entrancy and exceptions

BOOST_AUTO_TEST_CASE_TEMPLATE(
    timer_can_be_rearmed_moved_and_destroyed_inside_its_own_handler, Timer,
    timer_types)
{
  test_context<Timer> io;
  // Re-armed from its own handler three times.
  Timer rearmed(io, 1ms);
  int rearm_rounds = 0;
  std::function<void(error_code)> on_rearmed = [&](error_code ec) {
    BOOST_TEST(!ec, "re-armed round " << rearm_rounds << ": " << describe(ec));
    BOOST_TEST((Timer::clock_type::now() >= rearmed.expiry()),
        "re-armed wait completed early");
    if (++rearm_rounds < 3)
    {
      BOOST_TEST(rearmed.expires_after(1ms) == 0u,
          "the running wait was counted as pending");
      rearmed.async_wait(on_rearmed);
    }
  };
  rearmed.async_wait(on_rearmed);

  // Destroyed from its own handler while a second wait on it is pending.
  auto destroyed = std::make_unique<Timer>(io, 1ms);
  completion_record destroyed_second;
  destroyed->async_wait([&](error_code) {
    destroyed->expires_at(Timer::time_point::max());
    destroyed->async_wait(
        recorder<Timer>(destroyed_second, Timer::time_point::max()));
    destroyed.reset();
  });

  // Moved from inside its own handler: the wait started there travels along.
  Timer moved_from(io, 1ms);
  std::optional<Timer> moved_to;
  completion_record travelled;
  moved_from.async_wait([&](error_code) {
    moved_from.expires_after(2ms);
    moved_from.async_wait(recorder(travelled, moved_from));
    moved_to.emplace(std::move(moved_from));
  });

  CONFORMANCE_RUN_TO_COMPLETION(io);
  BOOST_TEST(rearm_rounds == 3);
  BOOST_TEST(destroyed_second.invocations == 1,
      "wait on a timer destroyed in its handler ran "
          << destroyed_second.invocations << " times");
  BOOST_TEST(
      is_aborted(destroyed_second.ec), "got " << describe(destroyed_second.ec));
  BOOST_TEST(travelled.invocations == 1);
  BOOST_TEST(
      !travelled.ec, "wait moved inside a handler: " << describe(travelled.ec));
  BOOST_TEST(travelled.ran_at_or_after_expiry);
}

struct handler_failure : std::runtime_error
{
  handler_failure() : std::runtime_error("thrown by a wait handler") {}
};

BOOST_AUTO_TEST_CASE_TEMPLATE(
    exception_from_handler_propagates_out_of_run_and_loses_no_wait, Timer,
    timer_types)
{
  test_context<Timer> io;
  Timer timer(io, 1ms);
  std::vector<int> ran;
  for (int i = 0; i < 4; ++i)
    timer.async_wait([&ran, i](error_code) {
      ran.push_back(i);
      if (i == 1)
        throw handler_failure();
    });

  bool thrown = false;
  try
  {
    io.run_for(run_limit);
  }
  catch (const handler_failure&)
  {
    thrown = true;
  }
  BOOST_TEST(thrown, "the handler's exception did not propagate out of run()");
  BOOST_TEST(ran == std::vector<int>({0, 1}),
      "run() should leave right after the throwing handler");
  // As with Asio, run() may simply be called again to carry on.
  CONFORMANCE_RUN_TO_COMPLETION(io);
  BOOST_TEST(ran == std::vector<int>({0, 1, 2, 3}),
      "a wait was lost or completed twice after the exception");
}

// ---------------------------------------------------------------- threads

// 4 threads run one io_context; 64 timers live on 8 strands (their executor is
// the strand). Each timer goes through 6 rounds alternating an expiring wait
// and a cancelled one, re-armed from its own handler. Every handler must run
// exactly once, inside its strand, never overlapping another handler of the
// same strand, and see the error its round expects.
BOOST_AUTO_TEST_CASE_TEMPLATE(
    many_strand_timers_on_several_threads_run_each_handler_once, Timer,
    timer_types)
{
  constexpr int thread_count = 4, strand_count = 8, timers_per_strand = 8,
                rounds = 6;
  constexpr int timer_count = strand_count * timers_per_strand;
  using strand_type = asio::strand<asio::io_context::executor_type>;

  test_context<Timer> io(thread_count);
  std::vector<strand_type> strands;
  std::vector<std::atomic<int>> active_in_strand(strand_count);
  for (int s = 0; s < strand_count; ++s)
    strands.push_back(asio::make_strand(io));

  struct timer_state
  {
    std::unique_ptr<Timer> timer;
    int strand_index = 0;
    std::atomic<int> completed_rounds{0};
    std::atomic<int> wrong_error{0};
    std::atomic<int> outside_strand{0};
    std::atomic<int> early{0};
  };
  std::vector<timer_state> states(timer_count);
  std::atomic<int> overlaps{0};

  // Round r of timer i: even rounds expire after a short delay and must
  // succeed, odd rounds wait "forever" and are cancelled right away.
  std::function<void(int)> arm = [&](int i) {
    timer_state& state = states[i];
    const int round = state.completed_rounds.load();
    if (round == rounds)
      return;
    const bool expect_success = round % 2 == 0;
    if (expect_success)
      state.timer->expires_after(
          std::chrono::microseconds(100 + 97 * ((i * 7 + round) % 23)));
    else
      state.timer->expires_at(Timer::time_point::max());
    const auto expiry = state.timer->expiry();
    state.timer->async_wait([&, i, expect_success, expiry](error_code ec) {
      timer_state& s = states[i];
      if (active_in_strand[s.strand_index].fetch_add(1) != 0)
        ++overlaps;
      if (!strands[s.strand_index].running_in_this_thread())
        ++s.outside_strand;
      if (expect_success ? bool(ec) : !is_aborted(ec))
        ++s.wrong_error;
      if (expect_success && Timer::clock_type::now() < expiry)
        ++s.early;
      std::this_thread::
          yield();  // widen the window in which an overlap would show
      ++s.completed_rounds;
      active_in_strand[s.strand_index].fetch_sub(1);
      arm(i);
    });
    if (!expect_success)
      state.timer->cancel();
  };

  for (int i = 0; i < timer_count; ++i)
  {
    states[i].strand_index = i % strand_count;
    states[i].timer = std::make_unique<Timer>(strands[states[i].strand_index]);
  }
  // Arm each timer from its own strand: a timer object is not thread-safe, so
  // every touch of it happens on its strand.
  for (int i = 0; i < timer_count; ++i)
    asio::dispatch(strands[states[i].strand_index], [&, i] { arm(i); });

  std::vector<std::thread> threads;
  for (int t = 0; t < thread_count; ++t)
    threads.emplace_back([&] { io.run_for(run_limit); });
  for (auto& t : threads)
    t.join();

  BOOST_TEST(
      io.stopped(), "the threads ran out of time before all rounds finished");
  int incomplete = 0, wrong = 0, outside = 0, early = 0;
  for (auto& s : states)
  {
    incomplete += s.completed_rounds != rounds;
    wrong += s.wrong_error;
    outside += s.outside_strand;
    early += s.early;
  }
  BOOST_TEST(incomplete == 0,
      incomplete << " timers did not complete all " << rounds << " rounds");
  BOOST_TEST(wrong == 0, wrong << " handlers saw the wrong error");
  BOOST_TEST(
      early == 0, early << " successful waits completed before their expiry");
  BOOST_TEST(
      outside == 0, outside << " handlers ran outside their timer's strand");
  BOOST_TEST(overlaps.load() == 0,
      overlaps.load() << " times two handlers of one strand overlapped");
  for (auto& s : states)
    s.timer.reset();  // before io: the timers belong to it
}

#if CONFORMANCE_WITH_WHEEL_TIMER
// Guards the suite itself: the stressed profile must really reach its service.
BOOST_AUTO_TEST_CASE(stressed_profile_configures_its_wheel)
{
  test_context<stressed_wheel_timer> io;
  const auto& options = asio::use_service<asio_wheel::wheel_timer_service<
      std::chrono::steady_clock, stressed_wheel_traits>>(io)
                            .options();
  BOOST_TEST(options.slots == 8u);
  BOOST_TEST(options.max_completions_per_slice == 1u);
  BOOST_TEST((options.tick == std::chrono::milliseconds(2)));
}

// And the routed profile must really be a wheel timer: its waits are the wheel's.
BOOST_AUTO_TEST_CASE(routed_profile_waits_in_the_wheel)
{
  static_assert(
      std::is_base_of_v<asio_wheel::basic_wheel_timer<std::chrono::steady_clock,
                            asio::wait_traits<std::chrono::steady_clock>,
                            asio_wheel::wheel_executor<>>,
          routed_timer>);
  test_context<routed_timer> io;
  routed_timer timer(io, 1ms);
  completion_record record;
  timer.async_wait(recorder(record, timer));
  const auto& service = asio::use_service<
      asio_wheel::wheel_timer_service<std::chrono::steady_clock>>(io);
  BOOST_TEST(service.stats().pending_waits == 1u);
  CONFORMANCE_RUN_TO_COMPLETION(io);
  BOOST_TEST(!record.ec, describe(record.ec));
  BOOST_TEST(service.stats().waits_expired == 1u);
}
#endif

BOOST_AUTO_TEST_SUITE_END()
