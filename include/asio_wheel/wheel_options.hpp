//
// asio_wheel/wheel_options.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The per-service configuration (wheel_options), with the check of its
// values, and the counters a service reports (wheel_stats). Both are plain
// values; see wheel_timer_service.
//

#ifndef ASIO_WHEEL_WHEEL_OPTIONS_HPP
#define ASIO_WHEEL_WHEEL_OPTIONS_HPP

#include <asio_wheel/detail/config.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

ASIO_WHEEL_NAMESPACE_BEGIN

/// Configuration of one wheel_timer_service, fixed when the service is made.
/**
 * Give it before the first timer of the context is created, with
 * make_wheel_service (asio_wheel/make_wheel_service.hpp), which calls Asio's
 * make_service for the service of wheel_timer or of the timer type named:
 * @code
 * asio_wheel::make_wheel_service(io, opts);
 * @endcode
 * Invalid values make the service's constructor throw std::invalid_argument
 * with a message naming the field.
 */
struct wheel_options
{
  /// What tolerance holds: a double, converted to and from double freely;
  /// an integer (1 / 64 is the integer 0) stops the compile with a message.
  class fraction
  {
  public:
    constexpr fraction(double value = 0.0) noexcept : value_(value) {}

    /// An integer: a compile error that says what to write instead.
    template <typename Integer,
        typename = std::enable_if_t<std::is_integral<Integer>::value>>
    fraction(Integer)
    {
      static_assert(!std::is_integral<Integer>::value,
          "asio_wheel::wheel_options::tolerance is a fraction, a double: "
          "write 1.0 / 64 (1 / 64 is the integer 0) and 0.0 for none");
    }

    constexpr operator double() const noexcept { return value_; }

  private:
    double value_;
  };

  /// Granularity of the wheel. A wait completes at the first tick boundary at
  /// or after its expiry, so it is never early and at most one tick late (plus
  /// the event loop's own latency). Must be > 0.
  std::chrono::nanoseconds tick = std::chrono::milliseconds(1);

  /// Number of slots of the finest level, a power of two. It covers
  /// slots * tick: 4096 slots of 1 ms is 4.096 s. Longer expiries wait in
  /// the three coarser levels above it, of 64 slots each as wide as the
  /// whole level below (4.4 min, 4.7 h, 12.4 days with the defaults; see
  /// doc/design.md, "Levels"). A slot is 24 bytes on a 64-bit target (plus a
  /// bit of occupancy bitmap): 4096 slots cost 96 KiB per service. At most
  /// max_slots.
  std::size_t slots = 4096;

  /// The largest slots accepted, 2^20 (1,048,576): 24 MiB per service, and
  /// with 1 ms ticks a level 0 of 17.5 min under levels that reach 8.7
  /// years. More would cost more memory for reach nobody needs, so a larger
  /// value is taken for a mistake and reported as one, not as the
  /// std::bad_alloc of its allocation.
  static constexpr std::size_t max_slots = std::size_t(1) << 20;

  /// Fairness budget: when many waits expire at once, every one of them is
  /// decided then (a cancel() finds them expired, as with steady_timer),
  /// but at most this many handlers are handed to the event loop at each of
  /// its turns, so that the I/O completions and handlers that become ready
  /// meanwhile run between them; the rest follow at the next turns. Each
  /// handler is one operation of the event loop, as a steady_timer's is.
  /// Must be > 0.
  std::size_t max_completions_per_slice = 256;

  /// Tolerance, opt-in: how late a wait may complete, as a fraction of its
  /// length (its expiry minus the time its expiry was set), never early.
  /// 0, the default, is precise: every wait completes at the first tick at
  /// or after its expiry, as with steady_timer. With 1.0 / 64, a 10 ms wait
  /// stays precise (its 0.16 ms is less than a tick) and a 5-minute idle
  /// timeout may complete up to 4.7 s late: waits whose windows overlap then
  /// complete in one wakeup, and a long one leaves the wheel from a coarse
  /// level without moving down (see doc/timeouts.md, "Tolerance"). A timer's
  /// own setting, basic_wheel_timer::tolerance(), replaces it for that
  /// timer; cancel_after and the Beast stream take one per operation or per
  /// stream. Must be in [0, 1]; an integer, such as 1 / 64 (the integer 0),
  /// is a compile error: write 1.0 / 64.
  fraction tolerance = 0.0;
};

namespace detail {

/// @p o, if every field is valid (the service's constructor).
/// @throws std::invalid_argument naming the first invalid field.
inline const wheel_options& validated(const wheel_options& o)
{
  // (Written so that NaN fails too.)
  if (!(o.tolerance >= 0.0 && o.tolerance <= 1.0))
    throw std::invalid_argument(
        "asio_wheel::wheel_options::tolerance must be a fraction of each "
        "wait's length in [0, 1] (got "
        + std::to_string(static_cast<double>(o.tolerance)) + ")");
  if (o.tick <= std::chrono::nanoseconds::zero())
    throw std::invalid_argument(
        "asio_wheel::wheel_options::tick must be greater than zero (got "
        + std::to_string(o.tick.count()) + " ns)");
  if (o.slots == 0 || (o.slots & (o.slots - 1)) != 0)
    throw std::invalid_argument(
        "asio_wheel::wheel_options::slots must be a non-zero power of two "
        "(got "
        + std::to_string(o.slots) + ")");
  if (o.slots > wheel_options::max_slots)
    throw std::invalid_argument(
        "asio_wheel::wheel_options::slots must be at most "
        + std::to_string(wheel_options::max_slots)
        + ", wheel_options::max_slots (got " + std::to_string(o.slots) + ")");
  if (o.max_completions_per_slice == 0)
    throw std::invalid_argument(
        "asio_wheel::wheel_options::max_completions_per_slice must be "
        "greater than zero");
  return o;
}

}  // namespace detail

/// Counters of one wheel_timer_service, read with wheel_timer_service::stats().
struct wheel_stats
{
  /// Timers that have at least one pending wait, i.e. entries in the wheel.
  std::size_t timers_in_wheel = 0;

  /// Waits not yet completed by the wheel nor cancelled. (While a storm of
  /// expiries is handed to the event loop, the waits of its wakeup that the
  /// wheel has not visited yet count here; they are expired already: a
  /// cancel() finds them so.)
  std::size_t pending_waits = 0;

  /// Times the reactor woke for the wheel: a tick it was due to process
  /// had come, or waits whose expiry had been reached when they started
  /// were waiting. Each is an event-loop wakeup, unless the reactor was
  /// awake for other work anyway.
  std::uint64_t wakeups = 0;

  /// Wakeups that found no wait due (after a cancel or a lazy move, or an
  /// upper level's slot whose entries only moved down).
  std::uint64_t empty_wakeups = 0;

  /// Waits completed with success because their expiry was reached.
  std::uint64_t waits_expired = 0;

  /// Waits completed with operation_aborted (cancel, expires_*, destructor,
  /// per-operation cancellation).
  std::uint64_t waits_cancelled = 0;

  /// Per-operation timeouts (cancel_after) taken back because their
  /// operation completed first. A timeout that fires counts as a wait that
  /// expired; a pending one, as a pending wait.
  std::uint64_t timeouts_withdrawn = 0;

  /// Entries moved to a later slot when their old slot came round, after
  /// reschedule_at / reschedule_after moved their expiry later.
  std::uint64_t lazy_refilings = 0;

  /// Entries visited in their slot that were due in a later round: only
  /// waits beyond the top level's reach (12.4 days with default options),
  /// or after a clock stepped back.
  std::uint64_t round_revisits = 0;

  /// Entries moved down a level of the hierarchical wheel when the block of
  /// their upper-level slot began: at most one per level (three) between a
  /// wait's arm and its expiry, however long its timeout (see
  /// doc/design.md, "Levels"). (cascades + round_revisits + lazy_refilings
  /// + waits_expired) / waits_expired is how often the wheel touched an
  /// entry per wait.
  std::uint64_t cascades = 0;

  /// Waits that completed at a later tick than their own, the one their
  /// tolerance chose to share with others: each is a wakeup the wheel did
  /// not make, unless another wait was due at its own tick too, so an upper
  /// bound on the wakeups the tolerance saved (wakeups with and
  /// without the tolerance give the exact figure). Always 0 without one.
  std::uint64_t wakeups_saved = 0;

  /// Times the wheel found that a clock that is not steady had stepped back
  /// behind the ticks it had processed, and moved back to the clock (see
  /// doc/design.md, "Clocks that step"). Always 0 with a steady clock.
  std::uint64_t clock_steps_back = 0;

  /// The largest lateness observed when the wheel found a wait due: that
  /// time minus the wait's expiry (at most a tick plus the reactor's delay
  /// in waking). The handler itself may run later still when the loop is
  /// busy with other handlers.
  std::chrono::nanoseconds max_lateness{0};
};

ASIO_WHEEL_NAMESPACE_END

#endif  // ASIO_WHEEL_WHEEL_OPTIONS_HPP
