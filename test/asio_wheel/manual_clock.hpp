// manual_clock.hpp: a steady clock that moves only when a test moves it, and wait traits that
// make Asio's reactor look at it again at once.
//
// Timers of type basic_wheel_timer<manual_clock, manual_wait_traits> (and the wheel service's
// drive timer, which shares the traits) expire in manual time, so a test decides exactly when
// "now" passes an expiry and can check "never early" and "at most one tick late" without
// sleeping or depending on how busy the machine is.
#pragma once

#include <atomic>
#include <chrono>
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
struct manual_wait_traits
{
  static manual_clock::duration to_wait_duration(const manual_clock::duration&)
  {
    return manual_clock::duration::zero();
  }

  static manual_clock::duration to_wait_duration(const manual_clock::time_point&)
  {
    return manual_clock::duration::zero();
  }
};

} // namespace asio_wheel_test
