//
// asio_wheel/impl/wheel_timer_service_advance.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// Advancing the wheel: the drive timer's upcall (on_drive) walks the wheel
// to the clock's tick, at most a slice's worth of entries at a time, and
// hands the expired waits (expire) to the completion slices; then the drive
// timer is armed for the next due tick (arm_for_next_due), or parked when
// no wait is pending (disarm_if_idle). A clock that is not steady can step
// back: rewound_for (where a wait looks due) and rewind bring the wheel
// back to it. Included by impl/wheel_timer_service.hpp.
//

#ifndef ASIO_WHEEL_IMPL_WHEEL_TIMER_SERVICE_ADVANCE_HPP
#define ASIO_WHEEL_IMPL_WHEEL_TIMER_SERVICE_ADVANCE_HPP

#include <asio_wheel/wheel_timer_service.hpp>

#include <chrono>
#include <cstdint>

ASIO_WHEEL_NAMESPACE_BEGIN

template <typename Clock, typename WaitTraits>
template <typename Sink>
inline void wheel_timer_service<Clock, WaitTraits>::expire(
    implementation_type& impl, const time_point& now, Sink&& sink)
{
  --stats_.timers_in_wheel;
  const time_point expiry = impl.effective();
  if (expiry < now)
  {
    // Saturating: an expiry such as time_point::min() is "infinitely" late.
    const duration late = time_traits::subtract(now, expiry);
    const auto late_ns = late >= std::chrono::duration_cast<duration>(
                             (std::chrono::nanoseconds::max)())
        ? (std::chrono::nanoseconds::max)()
        : std::chrono::duration_cast<std::chrono::nanoseconds>(late);
    if (late_ns > stats_.max_lateness)
      stats_.max_lateness = late_ns;
  }
  while (detail::wait_op_base* op = impl.waits.front())
  {
    impl.waits.pop();
    op->timer = nullptr;
    --stats_.pending_waits;
    ++stats_.waits_expired;
    op->decided();
    sink(op);
  }
}

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::disarm_if_idle()
{
  if (stats_.pending_waits == 0)
    drive_.disarm();
}

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::on_drive(
    void* owner, const error_code& ec, unsigned which)
{
  wheel_timer_service* self = static_cast<wheel_timer_service*>(owner);
  detail::wait_op_queue batch;
  slice_plan plan;
  {
    lock_type lock(self->mutex_);
    self->drive_.completed(which);
    if (!ec)
    {
      ++self->stats_.drive_wakeups;
      const std::uint64_t expired_before = self->stats_.waits_expired;
      const time_point now = Clock::now();
      self->advance_wheel(self->grid_.tick_at(now), now);
      if (self->stats_.waits_expired == expired_before
          && !self->wheel_.advancing())
        ++self->stats_.empty_wakeups;
    }
    else if (!self->wheel_.advancing())
      self->arm_for_next_due();
    // In the same critical section: a wakeup takes the lock once.
    plan = self->take_slice(batch);
  }
  self->run_slice(batch, plan);
}

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::advance_wheel(
    tick_type to, const time_point& now)
{
  if constexpr (!Clock::is_steady)
  {
    // The clock stepped back behind the ticks the wheel has processed, or
    // is processing: the entries not yet decided wait for it to get back.
    const tick_type now_tick = grid_.tick_at(now);
    if (now_tick < wheel_.horizon())
    {
      rewind(now_tick);
      to = now_tick;
    }
  }
  wheel_.advance(
      to,
      [this](const detail::wheel_entry& e) {
        const auto& impl = static_cast<const implementation_type&>(e);
        // A ghost is "due" where it is filed: the walk drops it. A timer
        // is due at its effective expiry: a later extension re-files it.
        return impl.waits.empty()
            ? impl.filed_tick()
            : tolerant(grid_.due_tick(impl.effective()), impl);
      },
      [this, &now](detail::wheel_entry& e) {
        auto& impl = static_cast<implementation_type&>(e);
        if (impl.waits.empty())
          return;
        // Completed later than their own tick, at one their tolerance
        // chose: each wait counts as a wakeup saved.
        bool deferred = false;
        if (impl.slack.ticks() != 0)
        {
          const tick_type precise = grid_.due_tick(impl.effective());
          deferred = precise < tolerant(precise, impl);
        }
        expire(impl, now, [this, deferred](detail::wait_op_base* op) {
          stats_.wakeups_saved += deferred;
          slices_.push_expired(op);
        });
      },
      options_.max_completions_per_slice);
  if (!wheel_.advancing())
    arm_for_next_due();
}

template <typename Clock, typename WaitTraits>
inline bool wheel_timer_service<Clock, WaitTraits>::rewound_for(
    [[maybe_unused]] const time_point& expiry)
{
  if constexpr (!Clock::is_steady)
  {
    const time_point now = Clock::now();
    if (now < expiry)
    {
      rewind(grid_.tick_at(now));
      // A pass the rewind abandoned put its undecided entries back, some
      // perhaps due by now's tick, and no advance follows here: the drive
      // timer must come for them.
      arm_for_next_due();
      return true;
    }
  }
  return false;
}

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::rewind(tick_type now_tick)
{
  wheel_.rewind(now_tick);
  ++stats_.clock_steps_back;
}

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::arm_for_next_due()
{
  if (stats_.pending_waits == 0)
  {
    drive_.disarm();
    return;
  }
  const tick_type next = wheel_.next_due();
  if (next == detail::never_tick)
    return;
  drive_.arm_no_later_than(next);
  if (drive_.wants_ahead(next))
    drive_.arm_ahead(wheel_.next_due_after(next));
}

ASIO_WHEEL_NAMESPACE_END

#endif  // ASIO_WHEEL_IMPL_WHEEL_TIMER_SERVICE_ADVANCE_HPP
