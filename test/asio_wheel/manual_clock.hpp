// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// manual_clock.hpp: clocks that move only when a test moves them (manual_clock, steady, only
// forward; manual_wall_clock, not steady, which may also step back as a wall clock does), wait
// traits that make Asio's reactor look at them again at once (or, under io_uring, within a
// millisecond), and look_at_timers_now(), which makes the reactor look right away on every
// backend.
//
// Timers of type basic_wheel_timer<manual_clock, manual_wait_traits> (and the wheel's deadline, which shares the traits) expire in manual time, so a test decides exactly when
// "now" passes an expiry and can check "never early" and "at most one tick late" without
// sleeping or depending on how busy the machine is. The same holds for manual_wall_clock with
// manual_wall_wait_traits, for Asio's basic_waitable_timer too.
//
// On IOCP (Windows) the io_context has no reactor that reads the clock on each turn: see
// basic_manual_wait_traits and look_at_timers_now below for what the harness does there instead.
#pragma once

#include "../test_asio.hpp"  // asio::, ASIO_WHEEL_TEST_IO_URING

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <stdexcept>

namespace asio_wheel_test {

// A clock that moves only when a test moves it. Steady: it only goes forward (manual_clock).
// Not steady: it may also step back, as a wall clock does after an NTP step or a change of the
// date (manual_wall_clock).
template <bool Steady>
struct basic_manual_clock
{
  using rep = std::int64_t;
  using period = std::nano;
  using duration = std::chrono::duration<rep, period>;
  using time_point = std::chrono::time_point<basic_manual_clock, duration>;
  static constexpr bool is_steady = Steady;

  static time_point now() noexcept
  {
    return time_point(
        duration(nanoseconds_since_epoch_.load(std::memory_order_acquire)));
  }

  // Moves the clock forward by d (d >= 0: a steady clock never goes back).
  static void advance(duration d)
  {
    if (d < duration::zero())
      throw std::invalid_argument("manual_clock::advance: negative duration");
    nanoseconds_since_epoch_.fetch_add(d.count(), std::memory_order_acq_rel);
    note_move();
  }

  // Jumps the clock to tp. A steady clock refuses to go back (is_steady must stay true).
  static void set(time_point tp)
  {
    rep current = nanoseconds_since_epoch_.load(std::memory_order_acquire);
    do
    {
      if (Steady && tp.time_since_epoch().count() < current)
        throw std::invalid_argument(
            "manual_clock::set: would move the clock backwards");
    } while (!nanoseconds_since_epoch_.compare_exchange_weak(
        current, tp.time_since_epoch().count(), std::memory_order_acq_rel));
    note_move();
  }

  // Steps the clock by d, either way (only a clock that is not steady).
  static void step(duration d) requires(!Steady) { set(now() + d); }

  // Whether the clock was moved during the last `window` of real time (see manual_wait_traits).
  static bool moved_within(std::chrono::steady_clock::duration window) noexcept
  {
    const auto last = std::chrono::steady_clock::duration(
        last_move_real_.load(std::memory_order_relaxed));
    return std::chrono::steady_clock::now().time_since_epoch() - last < window;
  }

private:
  static void note_move() noexcept
  {
    last_move_real_.store(
        std::chrono::steady_clock::now().time_since_epoch().count(),
        std::memory_order_relaxed);
  }

  // Starts far from the epoch and off any round number of ticks, so code that assumes
  // "time starts at 0" or "now is a multiple of the tick" is caught.
  static inline std::atomic<rep> nanoseconds_since_epoch_{
      1'000'000'000'000'123'457};

  // When the clock last moved, in steady_clock ticks since its epoch.
  static inline std::atomic<std::chrono::steady_clock::rep> last_move_real_{0};
};

using manual_clock = basic_manual_clock<true>;
using manual_wall_clock = basic_manual_clock<false>;

// Asio's reactor sleeps for to_wait_duration(expiry - now) of REAL time before it looks at the
// clock again. Manual time does not pass while the reactor sleeps, so every wait is made zero:
// the reactor re-reads manual_clock::now() on each turn and an advance is seen by the next
// poll. (Only while a timer is queued; an empty timer queue still blocks, so run() on an idle
// context does not spin.)
//
// Under io_uring (ASIO_WHEEL_TEST_IO_URING) a zero wait would not do that: the io_uring service
// looks at its timer queues when its own timeout completes, and every completion of that
// timeout queues an internal operation that poll() counts, so a context with a queued timer
// would never look idle. There a timer that is not yet due is looked at again after 1 ms of
// real time, which keeps run() on other threads following the manual clock, and a test that
// must see an advance at once calls look_at_timers_now().
//
// IOCP (Windows): win_iocp_io_context sets the shortest wait on a Windows waitable timer, and a
// thread of its own posts a wake-up when that timer fires; only then does a thread in run() or
// poll() look at the timer queues, and it sets the waitable timer again. So a wait of zero for a
// timer that is not due is a stream of wake-ups, and each one restarts the completion-port wait
// of run_for() and poll(), which then never return ("a zero-timeout wait can spin"). There:
// - a timer already due waits zero;
// - a timer not yet due waits 1 ms while the manual clock is moving (it moved during the last
//   100 ms of real time), so that run() threads follow a clock another thread moves;
// - otherwise 1.5 s: longer than the 1 s slices in which run_for() and run_one_for() wait, so
//   they return, and short enough that run_for() after an advance sees it within 1.5 s.
// Settling does not wait for either: look_at_timers_now() below makes it exact.
template <class Clock>
struct basic_manual_wait_traits
{
  using duration = typename Clock::duration;
  using time_point = typename Clock::time_point;

  static duration to_wait_duration(const duration& d) { return wait_for(d); }

  static duration to_wait_duration(const time_point& t)
  {
    return wait_for(t - Clock::now());
  }

private:
  static duration wait_for([[maybe_unused]] duration until_expiry)
  {
#if defined(ASIO_WHEEL_ASIO_HAS_IOCP)
    if (until_expiry <= duration::zero())
      return duration::zero();
    if (Clock::moved_within(std::chrono::milliseconds(100)))
      return std::chrono::milliseconds(1);
    return std::chrono::milliseconds(1500);
#elif defined(ASIO_WHEEL_TEST_IO_URING)
    // Not shorter for a timer due sooner: manual time does not pass meanwhile, and a wait that
    // Asio rounds down to 0 us would be the spinning zero wait.
    return until_expiry <= duration::zero() ? duration::zero()
                                            : std::chrono::milliseconds(1);
#else
    return duration::zero();
#endif
  }
};

using manual_wait_traits = basic_manual_wait_traits<manual_clock>;
using manual_wall_wait_traits = basic_manual_wait_traits<manual_wall_clock>;

// Makes io look at its timer queues now, after the manual clock moved, and returns the number
// of handlers run meanwhile (not counting its own). Call it only while no other thread runs io.
// - epoll: the reactor does that on every turn already (the zero waits above): nothing to do.
// - io_uring: the service looks only when a queue's earliest timer changes or its own timeout
//   completes. A wait on a real steady_timer that has already expired changes one, and the same
//   look collects every manual timer that is due, so once that wait's handler ran, the due drive
//   timers are completed or queued.
// - IOCP: poll() never looks at the timer queues; it only takes what the waitable timer's thread
//   already announced. A probe timer, already due in manual time, is queued in io; the thread
//   that collects it collects every due timer of every queue in the same pass (the wheel's drive
//   timer included) and posts them all to the completion port at once; a poll() after the
//   probe's handler runs those the port hands out after it. Bounded in real time, so a context
//   that never collects its timers fails the test instead of hanging it.
inline std::size_t look_at_timers_now([[maybe_unused]] asio::io_context& io)
{
#if defined(ASIO_WHEEL_ASIO_HAS_IOCP)
  asio::basic_waitable_timer<manual_clock, manual_wait_traits> probe(
      io, manual_clock::now());
  bool probed = false;
  probe.async_wait([&probed](const error_code&) { probed = true; });
  io.restart();
  std::size_t handlers_run = 0;
  const auto give_up =
      std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!probed)
  {
    if (std::chrono::steady_clock::now() > give_up)
      throw std::runtime_error(
          "look_at_timers_now: the io_context did not collect a due timer"
          " within 30 s");
    handlers_run += io.run_one_for(std::chrono::milliseconds(100));
  }
  return handlers_run - 1 + io.poll();
#elif defined(ASIO_WHEEL_TEST_IO_URING)
  asio::steady_timer nudge(
      io, asio::steady_timer::clock_type::now() - std::chrono::seconds(1));
  bool looked = false;
  nudge.async_wait([&looked](const error_code&) { looked = true; });
  io.restart();
  // run_one(), not run_one_for(): in Boost.Asio 1.81 a timed run of the io_uring service can
  // read a stale completion and crash (fixed in 1.83), and the nudge surely completes.
  std::size_t handlers_run = 0;
  while (!looked)
    handlers_run += io.run_one();
  return handlers_run - 1;  // not the nudge itself
#else
  return 0;
#endif
}

}  // namespace asio_wheel_test
