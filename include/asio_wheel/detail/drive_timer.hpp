//
// asio_wheel/detail/drive_timer.hpp
//
// The drive timer: the one entry a wheel_timer_service keeps in the
// reactor's timer queue. It is armed for the next tick whose slot holds a
// due wait, never earlier than needed, so a sparse wheel wakes nobody. When
// it completes (or is cancelled) the reactor calls the service's wakeup
// function, which advances the wheel and re-arms it.
//
// When the last pending wait goes, the timer is not cancelled but *parked*:
// it stays armed in the reactor and gives back the unit of work its
// operation holds, so that run() returns as if it were gone. The usual next
// step is a new wait (the next operation's timeout, the next idle timer),
// which takes the unit again: two atomic counts instead of a cancel, an
// aborted completion and a re-arm, each with the reactor's lock. A parked
// timer that fires first costs one wakeup that finds nothing; its operation
// then takes its unit back before the scheduler counts it done.
//
// Every member but the constructor and destructor is called with the
// service's lock held. A cancelled drive timer stays "busy" until its
// aborted operation has completed: only then may it be armed again, because
// its operation object is reused.
//

#ifndef ASIO_WHEEL_DETAIL_DRIVE_TIMER_HPP
#define ASIO_WHEEL_DETAIL_DRIVE_TIMER_HPP

#include <asio_wheel/detail/asio_operation.hpp>
#include <asio_wheel/detail/asio_scheduler.hpp>
#include <asio_wheel/detail/tick_grid.hpp>
#include <asio_wheel/detail/timing_wheel.hpp>

ASIO_WHEEL_NAMESPACE_BEGIN
namespace detail {

template <typename Clock, typename WaitTraits>
class drive_timer
{
public:
  /// Called from a thread running the context when the drive timer fired
  /// (ec clear) or its cancellation completed (ec set); lock not held.
  using wakeup_function = void (*)(void* owner, const error_code& ec);

  drive_timer(asio::execution_context& context, scheduler& sched,
      const tick_grid<Clock>& grid, wakeup_function on_wakeup, void* owner)
    : grid_(grid),
      scheduler_(sched),
      reactor_(asio::use_service<reactor>(context)),
      queue_(context),
      op_(on_wakeup, owner)
  {
    reactor_.init_task();
    reactor_.add_timer_queue(queue_);
  }

  ~drive_timer()
  {
    reactor_.remove_timer_queue(queue_);
  }

  drive_timer(const drive_timer&) = delete;
  drive_timer& operator=(const drive_timer&) = delete;

  /// The tick the timer is armed for, or never_tick.
  tick_type armed_tick() const noexcept { return armed_tick_; }

  /// Times the timer was set in the reactor, and cancelled there.
  std::uint64_t arms() const noexcept { return arms_; }
  std::uint64_t cancels() const noexcept { return cancels_; }

  /// Makes sure the timer completes no later than tick @p due. Called for
  /// every wait that becomes pending: it unparks the timer.
  void arm_no_later_than(tick_type due)
  {
    unpark();
    if (busy_ || due >= armed_tick_)
      return;  // a busy timer re-arms for the next due tick when it completes
    if (armed_tick_ != never_tick)
    {
      // Armed too late: cancel, and re-arm when the aborted wait completes.
      reactor_.cancel_timer(queue_, timer_);
      ++cancels_;
      armed_tick_ = never_tick;
      busy_ = true;
      return;
    }
    armed_tick_ = due;
    ++arms_;
    reactor_.schedule_timer(queue_, grid_.time_of(due), timer_, &op_);
  }

  /// Nothing is pending any more: the timer must not keep run() from
  /// returning. An armed timer is parked (see above); a busy one completes
  /// soon and is not re-armed.
  void disarm()
  {
    if (!busy_ && !parked_ && armed_tick_ != never_tick)
    {
      parked_ = true;
      scheduler_.work_finished();
    }
  }

  /// The wakeup function calls this first: the timer may be armed again.
  void completed()
  {
    // The scheduler counts this operation's unit of work done when the
    // wakeup function returns: a parked timer's must be taken back first.
    unpark();
    busy_ = false;
    armed_tick_ = never_tick;
  }

private:
  using time_traits = chrono_time_traits<Clock, WaitTraits>;

  // The reactor's operation: calls the wakeup function.
  struct drive_op : reactor_wait_op
  {
    drive_op(wakeup_function f, void* o)
      : reactor_wait_op(&drive_op::do_complete), on_wakeup(f), owner(o)
    {
    }

    static void do_complete(void* scheduler_owner, scheduler_operation* base,
        const error_code&, std::size_t)
    {
      drive_op* o = static_cast<drive_op*>(base);
      if (scheduler_owner)  // else destroyed at shutdown: nothing to do
        o->on_wakeup(o->owner, o->ec_);
    }

    wakeup_function on_wakeup;
    void* owner;
  };

  void unpark()
  {
    if (parked_)
    {
      parked_ = false;
      scheduler_.work_started();
    }
  }

  const tick_grid<Clock>& grid_;
  scheduler& scheduler_;
  reactor& reactor_;
  reactor_timer_queue<time_traits> queue_;
  typename reactor_timer_queue<time_traits>::per_timer_data timer_;
  drive_op op_;
  tick_type armed_tick_ = never_tick;
  bool busy_ = false;    // cancelled or fired, not yet completed
  bool parked_ = false;  // armed, its unit of work given back (disarm)
  std::uint64_t arms_ = 0;
  std::uint64_t cancels_ = 0;
};

} // namespace detail
ASIO_WHEEL_NAMESPACE_END

#endif // ASIO_WHEEL_DETAIL_DRIVE_TIMER_HPP
