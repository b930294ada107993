//
// asio_wheel/detail/drive_timer.hpp
//
// The drive timer: the one entry a wheel_timer_service keeps in the
// reactor's timer queue. It is armed for the next tick whose slot holds a
// due wait, never earlier than needed and never while nothing is pending, so
// an empty or sparse wheel wakes nobody. When it completes (or is cancelled)
// the reactor calls the service's wakeup function, which advances the wheel
// and re-arms it.
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

  drive_timer(asio::execution_context& context, const tick_grid<Clock>& grid,
      wakeup_function on_wakeup, void* owner)
    : grid_(grid),
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

  /// Makes sure the timer completes no later than tick @p due.
  void arm_no_later_than(tick_type due)
  {
    if (busy_ || due >= armed_tick_)
      return;  // a busy timer re-arms for the next due tick when it completes
    if (armed_tick_ != never_tick)
    {
      // Armed too late: cancel, and re-arm when the aborted wait completes.
      cancel();
      return;
    }
    armed_tick_ = due;
    reactor_.schedule_timer(queue_, grid_.time_of(due), timer_, &op_);
  }

  /// Cancels the armed timer (with nothing pending, it must not keep run()
  /// from returning). Its completion still calls the wakeup function.
  void disarm()
  {
    if (!busy_ && armed_tick_ != never_tick)
      cancel();
  }

  /// The wakeup function calls this first: the timer may be armed again.
  void completed() noexcept
  {
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

  void cancel()
  {
    reactor_.cancel_timer(queue_, timer_);
    armed_tick_ = never_tick;
    busy_ = true;
  }

  const tick_grid<Clock>& grid_;
  reactor& reactor_;
  reactor_timer_queue<time_traits> queue_;
  typename reactor_timer_queue<time_traits>::per_timer_data timer_;
  drive_op op_;
  tick_type armed_tick_ = never_tick;
  bool busy_ = false;  // cancelled or fired, not yet completed
};

} // namespace detail
ASIO_WHEEL_NAMESPACE_END

#endif // ASIO_WHEEL_DETAIL_DRIVE_TIMER_HPP
