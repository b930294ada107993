// manual_clock.hpp: a steady clock that moves only when a test moves it, wait traits that
// make Asio's reactor look at it again at once (or, under io_uring, within a millisecond), and
// look_at_timers_now(), which makes the reactor look at it right away on every backend.
//
// Timers of type basic_wheel_timer<manual_clock, manual_wait_traits> (and the wheel service's
// drive timer, which shares the traits) expire in manual time, so a test decides exactly when
// "now" passes an expiry and can check "never early" and "at most one tick late" without
// sleeping or depending on how busy the machine is.
#pragma once

#include "../test_asio.hpp"  // asio::, ASIO_WHEEL_TEST_IO_URING

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <stdexcept>

namespace asio_wheel_test {

struct manual_clock
{
  using rep = std::int64_t;
  using period = std::nano;
  using duration = std::chrono::duration<rep, period>;
  using time_point = std::chrono::time_point<manual_clock, duration>;
  static constexpr bool is_steady = true;

  static time_point now() noexcept
  {
    return time_point(duration(nanoseconds_since_epoch_.load(std::memory_order_acquire)));
  }

  // Moves the clock forward by d (d >= 0: a steady clock never goes back).
  static void advance(duration d)
  {
    if (d < duration::zero())
      throw std::invalid_argument("manual_clock::advance: negative duration");
    nanoseconds_since_epoch_.fetch_add(d.count(), std::memory_order_acq_rel);
  }

  // Jumps the clock to tp, which must not lie in the past (is_steady must stay true).
  static void set(time_point tp)
  {
    rep current = nanoseconds_since_epoch_.load(std::memory_order_acquire);
    do
    {
      if (tp.time_since_epoch().count() < current)
        throw std::invalid_argument("manual_clock::set: would move the clock backwards");
    } while (!nanoseconds_since_epoch_.compare_exchange_weak(
        current, tp.time_since_epoch().count(), std::memory_order_acq_rel));
  }

private:
  // Starts far from the epoch and off any round number of ticks, so code that assumes
  // "time starts at 0" or "now is a multiple of the tick" is caught.
  static inline std::atomic<rep> nanoseconds_since_epoch_{1'000'000'000'000'123'457};
};

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
struct manual_wait_traits
{
  static manual_clock::duration to_wait_duration(const manual_clock::duration& d)
  {
    return wait_for(d);
  }

  static manual_clock::duration to_wait_duration(const manual_clock::time_point& t)
  {
    return wait_for(t - manual_clock::now());
  }

private:
  static manual_clock::duration wait_for([[maybe_unused]] manual_clock::duration until_expiry)
  {
#if defined(ASIO_WHEEL_TEST_IO_URING)
    // Not shorter for a timer due sooner: manual time does not pass meanwhile, and a wait that
    // Asio rounds down to 0 us would be the spinning zero wait.
    return until_expiry <= manual_clock::duration::zero() ? manual_clock::duration::zero()
                                                          : std::chrono::milliseconds(1);
#else
    return manual_clock::duration::zero();
#endif
  }
};

// Makes the reactor of io look at its timer queues now, after the manual clock moved; returns
// the number of handlers run meanwhile. The epoll reactor does that on every turn already (the
// zero waits above), so this does nothing there. The io_uring service looks only when a
// queue's earliest timer changes or its own timeout completes: a wait on a real steady_timer
// that has already expired changes one, and the same look collects every manual timer that is
// due, so once that wait's handler ran, the due drive timers are completed or queued. Call it
// only while no other thread runs io.
inline std::size_t look_at_timers_now([[maybe_unused]] asio::io_context& io)
{
#if defined(ASIO_WHEEL_TEST_IO_URING)
  asio::steady_timer nudge(io, asio::steady_timer::clock_type::now() - std::chrono::seconds(1));
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

} // namespace asio_wheel_test
