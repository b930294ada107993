// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// wheel_test_support.hpp: what the tests of test/asio_wheel/ share: the timer and service types
// on the manual clock, the concurrency hints a context can be made with (and how the service
// must read each), a way to run an io_context until nothing more can happen at the current
// manual time, and a record of how a wait completed.
#pragma once

#include "manual_clock.hpp"

#include "../test_asio.hpp"  // asio::, error_code, concurrency_hint_* of the flavour

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <cmath>
#include <cstddef>
#include <string>

namespace asio_wheel_test {

using namespace std::chrono_literals;

// The tick of the service tests' wheels.
inline constexpr std::chrono::nanoseconds tick = 1ms;

using manual_timer =
    asio_wheel::basic_wheel_timer<manual_clock, manual_wait_traits>;
using manual_service =
    asio_wheel::wheel_timer_service<manual_clock, manual_wait_traits>;

// The ways a context can be run, for tests that take one as data: the default (handlers are
// posted to the scheduler), one thread (io_context(1): the service may call handlers itself, a
// slice at a time) and unlocked (..._CONCURRENCY_HINT_UNSAFE: no mutexes at all).
inline const int concurrency_hints[] = {
    concurrency_hint_default, 1, concurrency_hint_unsafe};

// Every kind of concurrency hint an io_context accepts: the three above, a plain thread count
// other than 1, and the special hints UNSAFE_IO (locked scheduler, unlocked reactor I/O) and
// SAFE (everything locked).
inline const int all_concurrency_hints[] = {concurrency_hint_default, 1, 2,
    concurrency_hint_unsafe, concurrency_hint_unsafe_io, concurrency_hint_safe};

inline std::string hint_name(int hint)
{
  if (hint == concurrency_hint_default)
    return "default";
  if (hint == concurrency_hint_unsafe)
    return "UNSAFE";
  if (hint == concurrency_hint_unsafe_io)
    return "UNSAFE_IO";
  if (hint == concurrency_hint_safe)
    return "SAFE";
  return std::to_string(hint);
}

// Whether the service's lock must be on for a context made with `hint` (the contract of
// asio_wheel::detail::scheduler_locks): whether the context's scheduler locks, as Asio's own
// scheduler decides it: off only for UNSAFE.
inline bool expected_locking(int hint)
{
  return hint != concurrency_hint_unsafe;
}

inline asio_wheel::wheel_options make_options(std::chrono::nanoseconds tick,
    std::size_t slots, std::size_t max_completions_per_slice = 256)
{
  asio_wheel::wheel_options options;
  options.tick = tick;
  options.slots = slots;
  options.max_completions_per_slice = max_completions_per_slice;
  return options;
}

// Creates the wheel service of io with options; must come before io's first manual_timer.
inline manual_service& install_service(
    asio::io_context& io, const asio_wheel::wheel_options& options)
{
  return asio::make_service<manual_service>(io, options);
}

// n ticks (fractions allowed: "3.5 ticks" puts an expiry in the middle of a tick, so it lies
// unambiguously inside one tick whatever rounding the wheel uses at tick boundaries).
inline manual_clock::duration ticks(double n, std::chrono::nanoseconds tick)
{
  return manual_clock::duration(
      std::llround(n * static_cast<double>(tick.count())));
}

// Moves the manual clock forward to the next multiple of tick, so that a service created
// afterwards has its tick boundaries on multiples of tick however it picks its origin.
inline manual_clock::time_point align_clock_to(std::chrono::nanoseconds tick)
{
  const auto since_epoch = manual_clock::now().time_since_epoch().count();
  const auto remainder = since_epoch % tick.count();
  if (remainder != 0)
    manual_clock::advance(manual_clock::duration(tick.count() - remainder));
  return manual_clock::now();
}

// Runs io until nothing more happens at the current manual time: no handler is ready and the
// reactor has checked the timer queue since the clock last moved. poll() alone is not enough:
// Linux Asio learns that a timer is due through a timerfd, which the kernel signals a few
// microseconds after Asio re-arms it, so a poll right after an advance can miss a wait
// that is due. run_one_for blocks in epoll until that signal arrives (manual_wait_traits makes
// every wait zero, so it arrives at once while a timer is queued). The io_uring reactor has no
// timerfd but does not look at the clock on every turn: look_at_timers_now() makes it look
// first, and then polling until nothing runs is exact. On IOCP poll() never looks at the timer
// queues, so each time it finds nothing, look_at_timers_now() looks. Returns the number of
// handlers run.
// Bounded, so a library that keeps posting work fails the test instead of hanging.
inline std::size_t settle(asio::io_context& io)
{
  std::size_t handlers_run = look_at_timers_now(io);
  io.restart();
  for (int round = 0; round < 100'000; ++round)
  {
    std::size_t n = io.poll();
#if defined(ASIO_WHEEL_ASIO_HAS_IOCP)
    if (n == 0)
      n = look_at_timers_now(
          io);  // poll() on IOCP never looks at the timer queues
#elif !defined(ASIO_WHEEL_TEST_IO_URING)
    if (n == 0)
      n = io.run_one_for(300us);
#endif
    if (n == 0)
      return handlers_run;
    handlers_run += n;
  }
  BOOST_FAIL("settle: handlers were still running after 100000 rounds");
  return handlers_run;
}

// Advances the manual clock by total in steps of step, settling io after each step.
inline void advance_in_steps(asio::io_context& io, manual_clock::duration total,
    manual_clock::duration step)
{
  while (total > manual_clock::duration::zero())
  {
    const auto this_step = total < step ? total : step;
    manual_clock::advance(this_step);
    total -= this_step;
    settle(io);
  }
}

// How one async_wait completed: how often its handler ran, with what, and at which manual time.
struct wait_record
{
  int calls = 0;
  error_code ec;
  manual_clock::time_point completed_at{};

  bool succeeded_once() const { return calls == 1 && !ec; }
  bool aborted_once() const
  {
    return calls == 1 && ec == asio::error::operation_aborted;
  }
};

inline auto record_into(wait_record& record)
{
  return [&record](const error_code& ec) {
    ++record.calls;
    record.ec = ec;
    record.completed_at = manual_clock::now();
  };
}

}  // namespace asio_wheel_test
