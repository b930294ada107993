//
// asio_wheel/detail/drive_timer.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The drive timer: the entries a wheel_timer_service keeps in the reactor's
// timer queue. It is armed for the next tick whose slot holds a due wait,
// never earlier than needed, so a sparse wheel wakes nobody. When it
// completes (or is cancelled) the reactor calls the service's wakeup
// function, which advances the wheel and re-arms it.
//
// It is two reactor timers, so that the next wakeup's timer is in place
// before this one fires. When a timer fires, the reactor sets its own
// (timerfd, io_uring timeout, waitable timer) for the earliest timer left
// in its queues; re-arming the fired one for the next due tick afterwards
// would move that earliest deadline again, a second system call per
// wakeup. So one timer is armed for the next due tick and the other, ahead
// of time, for the due tick after it (timing_wheel::next_due_after): when
// the first fires, the reactor's next deadline is already right, and the
// fired timer is re-armed behind the other, which moves no deadline. A
// timer armed ahead too late costs one such move at its predecessor's
// wakeup; armed for a tick whose waits went away, one empty wakeup, as a
// single timer armed for it would.
//
// When the last pending wait goes, the timers are not cancelled but
// *parked*: they stay armed in the reactor and give back the units of work
// their operations hold, so that run() returns as if they were gone. The
// usual next step is a new wait (the next operation's timeout, the next
// idle timer), which takes the units again: two atomic counts instead of a
// cancel, an aborted completion and a re-arm, each with the reactor's lock.
// A parked timer that fires first costs one wakeup that finds nothing; its
// operation then takes its unit back before the scheduler counts it done.
//
// Every member but the constructor and destructor is called with the
// service's lock held. A cancelled timer stays "busy" until its aborted
// operation has completed: only then may it be armed again, because its
// operation object is reused.
//

#ifndef ASIO_WHEEL_DETAIL_DRIVE_TIMER_HPP
#define ASIO_WHEEL_DETAIL_DRIVE_TIMER_HPP

#include <asio_wheel/detail/asio_operation.hpp>
#include <asio_wheel/detail/asio_scheduler.hpp>
#include <asio_wheel/detail/tick_grid.hpp>
#include <asio_wheel/detail/timing_wheel.hpp>

#include <boost/config.hpp>

#include <algorithm>

ASIO_WHEEL_NAMESPACE_BEGIN
namespace detail {

template <typename Clock, typename WaitTraits>
class drive_timer
{
public:
  /// Called from a thread running the context when timer @p which fired
  /// (ec clear) or its cancellation completed (ec set); lock not held.
  using wakeup_function = void (*)(
      void* owner, const error_code& ec, unsigned which);

  drive_timer(asio::execution_context& context, scheduler& sched,
      const tick_grid<Clock>& grid, wakeup_function on_wakeup, void* owner)
    : grid_(grid), scheduler_(sched),
      reactor_(asio::use_service<reactor>(context)),
      queue_(context), timers_{{drive_op(on_wakeup, owner, 0)},
                           {drive_op(on_wakeup, owner, 1)}}
  {
    reactor_.init_task();
    reactor_.add_timer_queue(queue_);
  }

  ~drive_timer() { reactor_.remove_timer_queue(queue_); }

  drive_timer(const drive_timer&) = delete;
  drive_timer& operator=(const drive_timer&) = delete;

  /// The earliest tick a timer is armed for, or never_tick.
  tick_type armed_tick() const noexcept
  {
    return (std::min)(timers_[0].tick, timers_[1].tick);
  }

  /// Times a timer was set in the reactor, set ahead of time (arm_ahead),
  /// and cancelled there.
  std::uint64_t arms() const noexcept { return arms_; }
  std::uint64_t arms_ahead() const noexcept { return arms_ahead_; }
  std::uint64_t cancels() const noexcept { return cancels_; }

  /// Makes sure a timer completes no later than tick @p due. Called for
  /// every wait that becomes pending: it unparks the timers.
  void arm_no_later_than(tick_type due)
  {
    // Inline, the usual call: none is parked (a lone wait unparks them: the
    // test that sends it on comes first), and a timer is armed in time.
    if (!timers_[0].parked && !timers_[1].parked && due >= armed_tick())
      return;
    unpark_and_arm(due);
  }

  /// After arm_no_later_than(@p next): true if arm_ahead() may have work,
  /// so that the tick after @p next is worth finding. An idle timer is
  /// armed ahead; a timer armed beyond the tick after @p next is re-aimed.
  bool wants_ahead(tick_type next) const noexcept
  {
    if (is_idle(timers_[0]) || is_idle(timers_[1]))
      return true;
    return !timers_[0].busy && !timers_[1].busy
        && (std::max)(timers_[0].tick, timers_[1].tick) > next;
  }

  /// After arm_no_later_than(next): arms an idle timer for the due tick
  /// @p after_next that follows (never_tick: none, or not known). A timer
  /// armed later than that, when the other covers next, is cancelled: it
  /// was set while neither was armed (by a wait armed during a bounded
  /// advance, whose first arm finds both timers idle), and would otherwise
  /// stay out of the leapfrog until its far tick. It is armed ahead when
  /// its cancellation completes.
  void arm_ahead(tick_type after_next)
  {
    if (after_next == never_tick)
      return;
    if (timer* t = idle_timer())
    {
      arm(*t, after_next);
      ++arms_ahead_;
      return;
    }
    if (timers_[0].busy || timers_[1].busy)
      return;
    timer& later = later_timer();
    if (later.tick > after_next)
      cancel(later);
  }

  /// Nothing is pending any more: the timers must not keep run() from
  /// returning. An armed timer is parked (see above); a busy one completes
  /// soon and is not re-armed.
  void disarm()
  {
    park(timers_[0]);
    park(timers_[1]);
  }

  /// The wakeup function calls this first: timer @p which may be armed
  /// again.
  void completed(unsigned which)
  {
    timer& t = timers_[which];
    // The scheduler counts this operation's unit of work done when the
    // wakeup function returns: a parked timer's must be taken back first.
    unpark(t);
    t.busy = false;
    t.tick = never_tick;
  }

private:
  using time_traits = chrono_time_traits<Clock, WaitTraits>;

  // The reactor's operation: calls the wakeup function.
  struct drive_op : reactor_wait_op
  {
    drive_op(wakeup_function f, void* o, unsigned w)
      : reactor_wait_op(&drive_op::do_complete), on_wakeup(f), owner(o),
        which(w)
    {}

    static void do_complete(void* scheduler_owner, scheduler_operation* base,
        const error_code&, std::size_t)
    {
      drive_op* o = static_cast<drive_op*>(base);
      if (scheduler_owner)  // else destroyed at shutdown: nothing to do
        o->on_wakeup(o->owner, o->ec_, o->which);
    }

    wakeup_function on_wakeup;
    void* owner;
    unsigned which;
  };

  struct timer
  {
    drive_op op;
    typename reactor_timer_queue<time_traits>::per_timer_data data{};
    tick_type tick = never_tick;  // armed for, or never_tick
    bool busy = false;  // cancelled, not yet completed
    bool parked = false;  // armed, its unit of work given back (disarm)
  };

  static bool is_idle(const timer& t) noexcept
  {
    return !t.busy && t.tick == never_tick;
  }

  timer* idle_timer() noexcept
  {
    return is_idle(timers_[0]) ? &timers_[0]
        : is_idle(timers_[1])  ? &timers_[1]
                               : nullptr;
  }

  // Of two armed timers, the one armed for the later tick.
  timer& later_timer() noexcept
  {
    return timers_[0].tick < timers_[1].tick ? timers_[1] : timers_[0];
  }

  // arm_no_later_than's work, where its usual call is not enough.
  BOOST_NOINLINE void unpark_and_arm(tick_type due)
  {
    unpark(timers_[0]);
    unpark(timers_[1]);
    if (due >= armed_tick() || timers_[0].busy || timers_[1].busy)
      return;  // a busy timer re-arms for the next due tick when it completes
    if (timer* t = idle_timer())
    {
      arm(*t, due);
      return;
    }
    // Both armed too late: cancel the later, and re-arm when its aborted
    // wait completes. The earlier one may still be the next but one.
    cancel(later_timer());
  }

  void arm(timer& t, tick_type due)
  {
    t.tick = due;
    ++arms_;
#if !defined(ASIO_WHEEL_ASIO_TIMER_QUEUE_SETS_RESULT)
    t.op.ec_ = error_code();  // the reactor leaves a cancel's result there
#endif
    reactor_.schedule_timer(queue_, grid_.time_of(due), t.data, &t.op);
  }

  void cancel(timer& t)
  {
    reactor_.cancel_timer(queue_, t.data);
    ++cancels_;
    t.tick = never_tick;
    t.busy = true;
  }

  void park(timer& t)
  {
    if (!t.busy && !t.parked && t.tick != never_tick)
    {
      t.parked = true;
      scheduler_.work_finished();
    }
  }

  void unpark(timer& t)
  {
    if (t.parked)
    {
      t.parked = false;
      scheduler_.work_started();
    }
  }

  const tick_grid<Clock>& grid_;
  scheduler& scheduler_;
  reactor& reactor_;
  reactor_timer_queue<time_traits> queue_;
  timer timers_[2];
  std::uint64_t arms_ = 0;
  std::uint64_t arms_ahead_ = 0;
  std::uint64_t cancels_ = 0;
};

}  // namespace detail
ASIO_WHEEL_NAMESPACE_END

#endif  // ASIO_WHEEL_DETAIL_DRIVE_TIMER_HPP
