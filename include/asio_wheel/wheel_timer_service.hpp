//
// asio_wheel/wheel_timer_service.hpp
//
// The execution_context service that keeps the pending waits of all
// basic_wheel_timer objects of one context (and one Clock) in a single
// hashed timing wheel, driven by one timer in Asio's reactor. See
// doc/design.md for the algorithm, its precision and its costs.
//
// Users meet this class only to configure it (make_service with
// wheel_options) and to read options() and stats(); the rest is the
// implementation interface basic_wheel_timer calls, in the style of Asio's
// detail::deadline_timer_service.
//

#ifndef ASIO_WHEEL_WHEEL_TIMER_SERVICE_HPP
#define ASIO_WHEEL_WHEEL_TIMER_SERVICE_HPP

#include <asio_wheel/detail/prefetch.hpp>
#include <asio_wheel/detail/timing_wheel.hpp>
#include <asio_wheel/detail/wait_op.hpp>
#include <asio_wheel/detail/wheel_mutex.hpp>
#include <asio_wheel/wheel_options.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/cancellation_type.hpp>
#include <boost/asio/detail/chrono_time_traits.hpp>
#include <boost/asio/detail/concurrency_hint.hpp>
#include <boost/asio/detail/scheduler.hpp>
#include <boost/asio/detail/timer_queue.hpp>
#include <boost/asio/detail/timer_scheduler.hpp>
#include <boost/asio/execution_context.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/wait_traits.hpp>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>

#if defined(BOOST_ASIO_HAS_IOCP) || defined(BOOST_ASIO_WINDOWS_RUNTIME)
# error "asio_wheel drives its wheel through Asio's scheduler and reactor; Windows is not supported yet"
#endif

namespace asio_wheel {
namespace detail {

/// The FIFO of a timer's pending waits, as its operations see the timer.
struct timer_state
{
  wait_op_queue waits;
};

/// The expiry, first in the timer's implementation (see below).
template <typename TimePoint>
struct timer_expiry
{
  TimePoint expiry{};
};

} // namespace detail

/// Keeps the pending waits of many timers in one hashed timing wheel.
/**
 * One service exists per execution context and Clock/WaitTraits pair. It is
 * created with default options by the first basic_wheel_timer of a context,
 * or beforehand with explicit options:
 * @code
 * asio_wheel::wheel_options opts;
 * opts.tick = std::chrono::milliseconds(10);
 * boost::asio::make_service<
 *     asio_wheel::wheel_timer_service<std::chrono::steady_clock>>(io, opts);
 * @endcode
 *
 * Thread safety: all members may be called concurrently for distinct timers;
 * the wheel is protected by one mutex (disabled by an io_context concurrency
 * hint of BOOST_ASIO_CONCURRENCY_HINT_UNSAFE, as Asio's own locks are).
 */
template <typename Clock,
    typename WaitTraits = boost::asio::wait_traits<Clock>>
class wheel_timer_service
  : public boost::asio::detail::execution_context_service_base<
      wheel_timer_service<Clock, WaitTraits>>
{
public:
  using clock_type = Clock;
  using duration = typename Clock::duration;
  using time_point = typename Clock::time_point;
  using traits_type = WaitTraits;

  static_assert(std::is_integral<typename duration::rep>::value,
      "the wheel counts ticks in the clock's integral representation");

  /// Per-timer state, embedded in basic_wheel_timer: the expiry, the FIFO of
  /// pending waits and the intrusive wheel entry. The entry is in the wheel
  /// while the FIFO is not empty; after its last wait was aborted it may stay
  /// there as a "ghost" (see retire), which a new wait reuses and a walk
  /// drops. The expiry and the FIFO come first so that a reschedule, which
  /// touches only them, usually touches one cache line of the timer.
  struct implementation_type
    : detail::timer_expiry<time_point>, detail::timer_state, detail::wheel_entry
  {
  };

  /// Creates the service with default wheel_options (use_service).
  explicit wheel_timer_service(boost::asio::execution_context& context)
    : wheel_timer_service(context, wheel_options())
  {
  }

  /// Creates the service with @p options (make_service).
  /// @throws std::invalid_argument naming the invalid field.
  wheel_timer_service(boost::asio::execution_context& context,
      const wheel_options& options)
    : boost::asio::detail::execution_context_service_base<
        wheel_timer_service>(context),
      options_(validate(options)),
      tick_(to_clock_tick(options.tick)),
      origin_(Clock::now()),
      wheel_(options.slots),
      scheduler_(boost::asio::use_service<boost::asio::detail::scheduler>(
          context)),
      reactor_(boost::asio::use_service<
          boost::asio::detail::timer_scheduler>(context)),
      mutex_(BOOST_ASIO_CONCURRENCY_HINT_IS_LOCKING(
          SCHEDULER, scheduler_.concurrency_hint())),
      drive_op_(this),
      slice_op_(this),
      inline_completions_(runs_on_one_thread(scheduler_.concurrency_hint()))
  {
    reactor_.init_task();
    reactor_.add_timer_queue(drive_queue_);
  }

  ~wheel_timer_service()
  {
    reactor_.remove_timer_queue(drive_queue_);
  }

  /// The options the service was made with.
  const wheel_options& options() const noexcept { return options_; }

  /// A consistent snapshot of the service's counters.
  wheel_stats stats() const
  {
    lock_type lock(mutex_);
    wheel_stats s = stats_;
    s.lazy_refilings = wheel_.lazy_refilings();
    s.round_revisits = wheel_.round_revisits();
    return s;
  }

  /// @name Implementation interface used by basic_wheel_timer.
  /// @{

  /// Initialises a new timer: no expiry, no wait.
  void construct(implementation_type& impl) { impl.expiry = time_point(); }

  /// Destroys a timer: its pending waits complete with operation_aborted.
  void destroy(implementation_type& impl)
  {
    completions done;
    {
      lock_type lock(mutex_);
      drop(impl, done);
    }
    send(done);
  }

  /// impl (new) takes over other's expiry, pending waits and wheel entry.
  void move_construct(implementation_type& impl, implementation_type& other)
  {
    lock_type lock(mutex_);
    take_over(impl, other);
  }

  /// impl aborts its own pending waits, then takes over other's.
  void move_assign(implementation_type& impl,
      wheel_timer_service& other_service, implementation_type& other)
  {
    if (&other_service == this)
    {
      completions done;
      {
        lock_type lock(mutex_);
        drop(impl, done);
        take_over(impl, other);
      }
      send(done);
    }
    else
    {
      // The object now belongs to other_service's context (io_object_impl
      // switches services after this call): drop our waits and our entry
      // (no ghost may stay behind), then take over the other timer inside
      // its own service.
      destroy(impl);
      other_service.move_construct(impl, other);
    }
  }

  /// Aborts all pending waits; returns how many.
  std::size_t cancel(implementation_type& impl)
  {
    return cancel_and_set_expiry(impl, ~std::size_t(0), nullptr);
  }

  /// Aborts the oldest pending wait; returns 0 or 1.
  std::size_t cancel_one(implementation_type& impl)
  {
    return cancel_and_set_expiry(impl, 1, nullptr);
  }

  /// The timer's expiry.
  time_point expiry(const implementation_type& impl) const
  {
    return impl.expiry;
  }

  /// Aborts all pending waits, then sets the expiry (Asio's expires_at).
  std::size_t expires_at(implementation_type& impl, const time_point& t)
  {
    return cancel_and_set_expiry(impl, ~std::size_t(0), &t);
  }

  /// Moves the expiry of the pending waits without aborting them; returns
  /// how many waits moved. Later: a store, the entry is re-filed lazily.
  std::size_t reschedule_at(implementation_type& impl, const time_point& t)
  {
    completions done;
    std::size_t moved = 0;
    {
      lock_type lock(mutex_);
      const time_point old_expiry = impl.expiry;
      impl.expiry = t;
      if (impl.waits.empty())
        return 0;
      moved = count(impl.waits);
      if (!(t < old_expiry))
        return moved;  // later: filed_tick stays <= the new due tick
      const detail::tick_type due = due_tick(t);
      if (due <= wheel_.horizon())
      {
        wheel_.erase(impl);
        expire(impl, Clock::now(),
            [&](detail::wait_op_base* op) { complete(done, op); });
        disarm_if_idle();
      }
      else if (due < impl.filed_tick)
        refile_earlier(impl, due);
    }
    send(done);
    return moved;
  }

  /// Blocks until the expiry has passed, as basic_waitable_timer::wait.
  void wait(implementation_type& impl, boost::system::error_code& ec)
  {
    ec = boost::system::error_code();
    for (time_point now = Clock::now(); now < impl.expiry; now = Clock::now())
    {
      // Sleep in bounded steps, as Asio does, so that clock adjustments and
      // traits that shorten waits are honoured.
      const auto step = WaitTraits::to_wait_duration(
          time_traits::subtract(impl.expiry, now));
      const auto longest = std::chrono::duration_cast<
          std::decay_t<decltype(step)>>(std::chrono::minutes(5));
      std::this_thread::sleep_for((std::min)(step, longest));
    }
  }

  /// Starts an asynchronous wait for the timer's current expiry.
  template <typename Handler, typename IoExecutor>
  void async_wait(implementation_type& impl,
      Handler& handler, const IoExecutor& io_ex)
  {
    // A timer whose executor is a plain io_context executor behind
    // any_io_executor (the usual case) stores that 8-byte executor in the
    // operation instead of a 56-byte polymorphic one. Behaviour is identical:
    // Asio's handler_work tracks no work for either and calls the handler in
    // place when it has no associated executor of its own.
    if constexpr (std::is_same<IoExecutor, boost::asio::any_io_executor>::value)
    {
      using native = boost::asio::io_context::executor_type;
      if (const native* ex = io_ex.template target<native>())
      {
        start_wait<Handler, native>(impl, handler, *ex);
        return;
      }
    }
    start_wait<Handler, IoExecutor>(impl, handler, io_ex);
  }

  /// @}

private:
  using lock_type = detail::wheel_mutex::scoped_lock;
  using time_traits = boost::asio::detail::chrono_time_traits<Clock, WaitTraits>;
  using drive_queue_type = boost::asio::detail::timer_queue<time_traits>;
  using tick_type = detail::tick_type;
  using rep = typename duration::rep;
  using urep = std::make_unsigned_t<rep>;

  // Operations whose result is decided, on their way to their handlers:
  // filled with the lock held, sent once it is released.
  struct completions
  {
    detail::wait_op_queue ops;  // to post one by one
    bool post_slice = false;    // the slice operation must be posted
  };

  // The one operation in the reactor's timer queue: completes at the next due
  // tick and advances the wheel.
  struct drive_op : boost::asio::detail::wait_op
  {
    explicit drive_op(wheel_timer_service* s)
      : boost::asio::detail::wait_op(&drive_op::do_complete), service(s)
    {
    }

    static void do_complete(void* owner,
        boost::asio::detail::scheduler_operation* base,
        const boost::system::error_code&, std::size_t)
    {
      drive_op* o = static_cast<drive_op*>(base);
      if (owner)  // else destroyed at shutdown: nothing to do
        o->service->on_drive(o->ec_);
    }

    wheel_timer_service* service;
  };

  // Posted to the scheduler while expired waits remain beyond one slice's
  // budget: queues the next slice after whatever became ready meanwhile.
  struct slice_op : boost::asio::detail::scheduler_operation
  {
    explicit slice_op(wheel_timer_service* s)
      : boost::asio::detail::scheduler_operation(&slice_op::do_complete),
        service(s)
    {
    }

    static void do_complete(void* owner,
        boost::asio::detail::scheduler_operation* base,
        const boost::system::error_code&, std::size_t)
    {
      slice_op* o = static_cast<slice_op*>(base);
      if (owner)
        o->service->on_slice();
    }

    wheel_timer_service* service;
  };

  // Installed in a handler's cancellation slot: aborts that one wait.
  class op_cancellation
  {
  public:
    op_cancellation(wheel_timer_service* s, detail::wait_op_base* op)
      : service_(s), op_(op)
    {
    }

    void operator()(boost::asio::cancellation_type_t type)
    {
      if (!!(type & (boost::asio::cancellation_type::terminal
              | boost::asio::cancellation_type::partial
              | boost::asio::cancellation_type::total)))
        service_->cancel_wait(op_);
    }

  private:
    wheel_timer_service* service_;
    detail::wait_op_base* op_;
  };

  static const wheel_options& validate(const wheel_options& o)
  {
    if (o.tick <= std::chrono::nanoseconds::zero())
      throw std::invalid_argument(
          "asio_wheel::wheel_options::tick must be greater than zero (got "
          + std::to_string(o.tick.count()) + " ns)");
    if (o.slots == 0 || (o.slots & (o.slots - 1)) != 0)
      throw std::invalid_argument(
          "asio_wheel::wheel_options::slots must be a non-zero power of two "
          "(got " + std::to_string(o.slots) + ")");
    if (o.max_completions_per_slice == 0)
      throw std::invalid_argument(
          "asio_wheel::wheel_options::max_completions_per_slice must be "
          "greater than zero");
    return o;
  }

  static duration to_clock_tick(std::chrono::nanoseconds tick)
  {
    const duration d = std::chrono::ceil<duration>(tick);
    return d > duration::zero() ? d : duration(1);
  }

  // t - origin_ for t >= origin_, exact over the whole range of rep (the
  // difference of two signed values always fits the unsigned type).
  urep elapsed(const time_point& t) const noexcept
  {
    return static_cast<urep>(t.time_since_epoch().count())
      - static_cast<urep>(origin_.time_since_epoch().count());
  }

  // The first tick boundary at or after t: waiting for it is never early.
  tick_type due_tick(const time_point& t) const noexcept
  {
    if (!(origin_ < t))
      return 0;
    if (t == (time_point::max)())
      return detail::never_tick;  // never due: never arms the drive timer
    const urep diff = elapsed(t);
    const urep tk = static_cast<urep>(tick_.count());
    urep q = diff / tk;
    if (q * tk != diff)
      ++q;
    return q >= static_cast<urep>(detail::never_tick)
      ? detail::never_tick : static_cast<tick_type>(q);
  }

  // The last tick boundary at or before t.
  tick_type tick_at(const time_point& t) const noexcept
  {
    if (t < origin_)
      return -1;
    const urep q = elapsed(t) / static_cast<urep>(tick_.count());
    return q >= static_cast<urep>(detail::never_tick)
      ? detail::never_tick - 1 : static_cast<tick_type>(q);
  }

  // The time of tick boundary t, saturated at time_point::max().
  time_point time_of(tick_type t) const noexcept
  {
    const rep max_rep = (std::numeric_limits<rep>::max)();
    const rep room = max_rep - (std::max)(origin_.time_since_epoch().count(), rep(0));
    if (t > room / tick_.count())
      return (time_point::max)();
    return origin_ + tick_ * t;
  }

  // Hands operations to the scheduler; work was counted in start_wait.
  void post_completions(detail::wait_op_queue& ops)
  {
    if (ops.empty())
      return;
    boost::asio::detail::op_queue<boost::asio::detail::scheduler_operation> q;
    q.push(ops);
    scheduler_.post_deferred_completions(q);
  }

  // The usual one wait is counted from the queue's ends alone: a reschedule
  // must not touch the operation, a separate block of memory (a cache miss).
  static std::size_t count(detail::wait_op_queue& q) noexcept
  {
    using access = boost::asio::detail::op_queue_access;
    detail::wait_op_base* op = q.front();
    if (!op)
      return 0;
    if (op == access::back(q))
      return 1;
    std::size_t n = 0;
    for (; op; op = access::next(op))
      ++n;
    return n;
  }

  template <typename Handler, typename IoExecutor>
  void start_wait(implementation_type& impl,
      Handler& handler, const IoExecutor& io_ex)
  {
    auto slot = boost::asio::get_associated_cancellation_slot(handler);

    using op = detail::wait_op<Handler, IoExecutor>;
    typename op::ptr p = { boost::asio::detail::addressof(handler),
      op::ptr::allocate(handler), 0 };
    p.p = new (p.v) op(handler, io_ex);

    if (slot.is_connected())
    {
      slot.template emplace<op_cancellation>(this, p.p);
      p.p->set_has_cancellation_handler();
    }

    completions done;
    {
      lock_type lock(mutex_);
      if (shutdown_)
      {
        // As Asio's reactor does after shutdown: hand the operation to the
        // scheduler, which destroys it without running it.
        lock.unlock();
        scheduler_.post_immediate_completion(p.p, false);
        p.v = p.p = 0;
        return;
      }
      scheduler_.work_started();
      const tick_type due = due_tick(impl.expiry);
      // (With waits already queued on the timer, a bounded advance has yet
      // to reach them: join them so that they all complete in order.)
      if (due <= wheel_.horizon() && impl.waits.empty())
      {
        // Already due: completes soon with success, never inside async_wait.
        ++stats_.waits_expired;
        complete(done, p.p);
      }
      else
      {
        p.p->timer = &impl;
        const bool first_wait = impl.waits.empty();
        impl.waits.push(p.p);
        ++stats_.pending_waits;
        if (first_wait)
        {
          ++stats_.timers_in_wheel;
          if (!impl.in_wheel())
          {
            wheel_.insert(impl, due);
            arm_if_earlier(due);
          }
          else if (due < impl.filed_tick)
            refile_earlier(impl, due);  // a ghost filed too late
          else
          {
            // A ghost filed at or before the new due tick: reuse it as it
            // is (the walk re-files it lazily), no list operation.
            arm_if_earlier(impl.filed_tick);
          }
        }
      }
      p.v = p.p = 0;
    }
    send(done);
  }

  std::size_t cancel_and_set_expiry(implementation_type& impl,
      std::size_t max_aborted, const time_point* new_expiry)
  {
    completions done;
    std::size_t n = 0;
    {
      lock_type lock(mutex_);
      n = abort_waits(impl, done, max_aborted);
      if (new_expiry)
        impl.expiry = *new_expiry;
    }
    send(done);
    return n;
  }

  // Aborts up to max_aborted of impl's oldest waits. Lock held.
  std::size_t abort_waits(implementation_type& impl,
      completions& done, std::size_t max_aborted)
  {
    std::size_t n = 0;
    if (inline_completions_ && max_aborted != 0)
    {
      using access = boost::asio::detail::op_queue_access;
      detail::wait_op_base*& front = access::front(impl.waits);
      detail::wait_op_base*& back = access::back(impl.waits);
      if (front && front == back)
      {
        // The usual lone wait (a re-arm on every message): unqueued from
        // the FIFO's ends alone, its operation untouched (see defer_abort).
        defer_abort(done, front);
        front = back = nullptr;
        n = 1;
      }
    }
    while (n < max_aborted)
    {
      detail::wait_op_base* op = impl.waits.front();
      if (!op)
        break;
      impl.waits.pop();
      op->timer = nullptr;
      op->set_aborted();
      complete(done, op);
      ++n;
    }
    if (n != 0)
    {
      stats_.pending_waits -= n;
      stats_.waits_cancelled += n;
      if (impl.waits.empty())
        retire(impl);
    }
    return n;
  }

  // Aborts all of impl's waits and unlinks its entry, ghost included: the
  // implementation is going away or taking over another's. Lock held.
  void drop(implementation_type& impl, completions& done)
  {
    abort_waits(impl, done, ~std::size_t(0));
    if (impl.in_wheel())
      wheel_.erase(impl);
  }

  // Moves impl's entry, in the wheel, to the earlier tick `due`. Lock held.
  void refile_earlier(implementation_type& impl, tick_type due)
  {
    wheel_.erase(impl);
    wheel_.insert(impl, due);
    arm_if_earlier(due);
  }

  // Per-operation cancellation: aborts one wait if it is still pending.
  void cancel_wait(detail::wait_op_base* target)
  {
    completions done;
    {
      lock_type lock(mutex_);
      // A deferred abort still has its timer set: mark it aborted first.
      mark_deferred_aborts();
      detail::timer_state* timer = target->timer;
      if (!timer)
        return;  // already expired or aborted
      detail::wait_op_queue others;
      while (detail::wait_op_base* op = timer->waits.front())
      {
        timer->waits.pop();
        if (op != target)
          others.push(op);
      }
      timer->waits.push(others);
      target->timer = nullptr;
      target->set_aborted();
      complete(done, target);
      --stats_.pending_waits;
      ++stats_.waits_cancelled;
      if (timer->waits.empty())
        retire(static_cast<implementation_type&>(*timer));
    }
    send(done);
  }

  // The last wait of impl was aborted. The entry stays in the wheel as a
  // ghost when it is filed after the tick the drive timer is armed for: the
  // usual next step is a new wait further out (expires_after + async_wait
  // on every message), which then reuses the entry without touching any
  // list, and a ghost that is not reused costs one visit when its slot
  // comes round. An entry at or before the armed tick is unlinked now, so
  // that the drive timer is never armed for a ghost it could skip.
  // Lock held.
  void retire(implementation_type& impl)
  {
    --stats_.timers_in_wheel;
    if (impl.filed_tick <= drive_tick_)
      wheel_.erase(impl);
    disarm_if_idle();
  }

  // impl takes over other's expiry, waits and place in the wheel. Lock held.
  void take_over(implementation_type& impl, implementation_type& other)
  {
    impl.expiry = other.expiry;
    other.expiry = time_point();  // as if constructed from its executor
    impl.waits.push(other.waits);
    for (detail::wait_op_base* op = impl.waits.front(); op;
        op = boost::asio::detail::op_queue_access::next(op))
      op->timer = &impl;
    if (other.in_wheel())
    {
      impl.filed_tick = other.filed_tick;
      impl.hook.swap_nodes(other.hook);
    }
  }

  // Completes all of impl's waits (there is at least one) with success,
  // handing each to `sink`. Lock held; impl has already left the wheel.
  template <typename Sink>
  void expire(implementation_type& impl, const time_point& now, Sink&& sink)
  {
    --stats_.timers_in_wheel;
    if (impl.expiry < now)
    {
      // Saturating: an expiry such as time_point::min() is "infinitely" late.
      const duration late = time_traits::subtract(now, impl.expiry);
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
      sink(op);
    }
  }

  // Makes sure the drive timer completes no later than tick `due`. Lock held.
  void arm_if_earlier(tick_type due)
  {
    if (drive_busy_ || due >= drive_tick_)
      return;  // a busy drive recomputes the next due tick when it completes
    if (drive_tick_ != detail::never_tick)
    {
      // Armed too late: cancel, and re-arm when the aborted drive completes.
      reactor_.cancel_timer(drive_queue_, drive_timer_);
      drive_tick_ = detail::never_tick;
      drive_busy_ = true;
      return;
    }
    drive_tick_ = due;
    reactor_.schedule_timer(drive_queue_, time_of(due), drive_timer_, &drive_op_);
  }

  // With no pending wait left, the drive timer must not keep run() from
  // returning: cancel it. Lock held.
  void disarm_if_idle()
  {
    if (stats_.pending_waits != 0 || drive_busy_
        || drive_tick_ == detail::never_tick)
      return;
    reactor_.cancel_timer(drive_queue_, drive_timer_);
    drive_tick_ = detail::never_tick;
    drive_busy_ = true;
  }

  void on_drive(const boost::system::error_code& ec)
  {
    {
      lock_type lock(mutex_);
      drive_busy_ = false;
      drive_tick_ = detail::never_tick;
      if (!ec)
      {
        ++stats_.drive_wakeups;
        const std::uint64_t expired_before = stats_.waits_expired;
        advance_wheel(tick_at(Clock::now()));
        if (stats_.waits_expired == expired_before && !wheel_.advancing())
          ++stats_.empty_wakeups;
      }
      else if (!wheel_.advancing())
        arm_for_next_due();
    }
    run_slice();
  }

  // Advances the wheel to tick `to`, or continues the advance in progress,
  // visiting at most one slice's worth of entries; expired waits go to
  // expired_. Once the advance is complete, arms the drive timer for the
  // next due tick. Lock held.
  void advance_wheel(tick_type to)
  {
    const time_point now = Clock::now();
    wheel_.advance(to,
        [this](const detail::wheel_entry& e) {
          const auto& impl = static_cast<const implementation_type&>(e);
          // A ghost is "due" where it is filed: the walk drops it.
          return impl.waits.empty() ? impl.filed_tick : due_tick(impl.expiry);
        },
        [this, &now](detail::wheel_entry& e) {
          auto& impl = static_cast<implementation_type&>(e);
          if (impl.waits.empty())
            return;
          expire(impl, now, [this](detail::wait_op_base* op) {
            expired_.push(op);
            ++stats_.queued_completions;
          });
        },
        options_.max_completions_per_slice);
    if (!wheel_.advancing())
      arm_for_next_due();
  }

  // Ghosts alone must not keep the drive timer (and so run()) going.
  // Lock held; no advance in progress.
  void arm_for_next_due()
  {
    if (stats_.pending_waits == 0)
      return;
    const tick_type next = wheel_.next_due();
    if (next != detail::never_tick)
      arm_if_earlier(next);
  }

  void on_slice()
  {
    {
      lock_type lock(mutex_);
      slice_posted_ = false;
    }
    run_slice();
  }

  // Completes the next slice: every wait of decided_ and at most
  // max_completions_per_slice of expired_ (continuing a bounded advance of
  // the wheel to find them), and makes sure the slice operation comes back
  // for the rest, after whatever else became ready meanwhile. Called from a thread running the
  // context (in the drive or the slice operation); lock not held.
  void run_slice()
  {
    detail::wait_op_queue batch;
    bool post_slice = false;
    {
      lock_type lock(mutex_);
      if (wheel_.advancing() && expired_.empty())
        advance_wheel(wheel_.horizon());  // the next part of a storm
      mark_deferred_aborts();
      std::size_t n = decided_count_;
      batch.push(decided_);
      decided_count_ = 0;
      for (std::size_t budget = options_.max_completions_per_slice; budget; --budget)
      {
        detail::wait_op_base* op = expired_.front();
        if (!op)
          break;
        expired_.pop();
        batch.push(op);
        ++n;
      }
      stats_.queued_completions -= n;
      if (!inline_completions_ && (!expired_.empty() || wheel_.advancing())
          && !slice_posted_)
        post_slice = slice_posted_ = true;
    }
    if (!inline_completions_)
    {
      // Several threads run the context: let them share the handlers.
      post_completions(batch);
      if (post_slice)
        scheduler_.post_immediate_completion(&slice_op_, false);
      return;
    }

    // One thread runs the context: call the handlers here, each exactly as
    // the scheduler would (through handler_work), and save the scheduler a
    // queue operation per handler. If a handler throws, what did not run is
    // put back and the exception leaves run() as with Asio's own timers.
    struct resume_on_exit
    {
      wheel_timer_service* service;
      detail::wait_op_queue& rest;
      ~resume_on_exit() { service->resume_slices(rest); }
    } resume{this, batch};
    while (detail::wait_op_base* op = batch.front())
    {
      batch.pop();
      // Release the wait's unit of work (counted in start_wait) once its
      // handler has returned or thrown; the running drive or slice
      // operation holds its own, so run() cannot stop in between.
      struct finish_work
      {
        boost::asio::detail::scheduler& scheduler;
        ~finish_work() { scheduler.work_finished(); }
      } finish{scheduler_};
      op->complete(&scheduler_, boost::system::error_code(), 0);
    }
  }

  // After an inline slice: puts back the waits a throwing handler left, and
  // posts the slice operation if waits remain. Lock not held.
  void resume_slices(detail::wait_op_queue& rest)
  {
    bool post_slice = false;
    {
      lock_type lock(mutex_);
      if (!rest.empty())
      {
        const std::size_t n = count(rest);
        stats_.queued_completions += n;
        decided_count_ += n;
        rest.push(decided_);
        decided_.push(rest);
      }
      if ((!decided_.empty() || deferred_count_ != 0 || !expired_.empty()
              || wheel_.advancing())
          && !slice_posted_)
        post_slice = slice_posted_ = true;
    }
    if (post_slice)
      scheduler_.post_immediate_completion(&slice_op_, false);
  }

  // Lock held.
  void complete(completions& done, detail::wait_op_base* op)
  {
    if (inline_completions_)
    {
      mark_deferred_aborts();  // keeps the order of the decisions
      decided_.push(op);
      ++decided_count_;
      ++stats_.queued_completions;
      if (!slice_posted_)
        done.post_slice = slice_posted_ = true;
    }
    else
      done.ops.push(op);
  }

  // With inline completions, aborts the lone wait `op` without writing to
  // it. The operation was allocated when its timer was last armed, usually
  // long ago, so it is out of cache: marking it here would stall the re-arm
  // on a store miss (the next lock's atomic instruction waits for it). Its
  // pointer is kept in deferred_aborts_ instead, and mark_deferred_aborts()
  // marks a whole batch at once, with prefetching, before anything else is
  // decided or the next slice runs. Until then op->timer is stale: only
  // cancel_wait reads it, and it marks the batch first. Lock held.
  void defer_abort(completions& done, detail::wait_op_base* op)
  {
    if (deferred_count_ == max_deferred_aborts)
      mark_deferred_aborts();
    deferred_aborts_[deferred_count_++] = op;
    ++stats_.queued_completions;
    if (!slice_posted_)
      done.post_slice = slice_posted_ = true;
  }

  // Marks the deferred aborts as aborted and queues them on decided_, in
  // the order they were aborted. Lock held.
  void mark_deferred_aborts()
  {
    constexpr std::size_t ahead = 8;  // prefetch distance, in operations
    const std::size_t n = deferred_count_;
    for (std::size_t i = 0; i < n; ++i)
    {
      // The first 64 bytes: what is marked here, and what the completion
      // reads next (the handler and its work follow the base). Operations
      // are not line-aligned, so that is one or two cache lines.
      if (i + ahead < n)
        detail::prefetch_for_write(deferred_aborts_[i + ahead], 64);
      detail::wait_op_base* op = deferred_aborts_[i];
      op->timer = nullptr;
      op->set_aborted();
      decided_.push(op);
    }
    decided_count_ += n;
    deferred_count_ = 0;
  }

  // Lock not held.
  void send(completions& done)
  {
    post_completions(done.ops);
    if (done.post_slice)
      scheduler_.post_immediate_completion(&slice_op_, false);
  }

  // True when at most one thread runs the context (io_context(1) or an
  // unlocked context): handlers can then be called from the slice operation
  // in a batch without losing parallelism.
  static bool runs_on_one_thread(int concurrency_hint)
  {
    return concurrency_hint == 1
      || !BOOST_ASIO_CONCURRENCY_HINT_IS_LOCKING(SCHEDULER, concurrency_hint);
  }

  void shutdown() override
  {
    detail::wait_op_queue ops;
    {
      lock_type lock(mutex_);
      shutdown_ = true;
      mark_deferred_aborts();
      wheel_.clear([&ops](detail::wheel_entry& e) {
        auto& impl = static_cast<implementation_type&>(e);
        while (detail::wait_op_base* op = impl.waits.front())
        {
          impl.waits.pop();
          op->timer = nullptr;
          ops.push(op);
        }
      });
      ops.push(decided_);
      ops.push(expired_);
      stats_.pending_waits = 0;
      stats_.timers_in_wheel = 0;
      stats_.queued_completions = 0;
    }
    // Destroyed without being invoked, as Asio does with its own timers.
    boost::asio::detail::op_queue<boost::asio::detail::scheduler_operation> base_ops;
    base_ops.push(ops);
    scheduler_.abandon_operations(base_ops);
  }

  const wheel_options options_;
  const duration tick_;
  const time_point origin_;  // tick 0
  detail::timing_wheel wheel_;

  boost::asio::detail::scheduler& scheduler_;
  boost::asio::detail::timer_scheduler& reactor_;
  mutable detail::wheel_mutex mutex_;

  // The drive timer: one entry in the reactor's timer queue.
  drive_queue_type drive_queue_;
  typename drive_queue_type::per_timer_data drive_timer_;
  drive_op drive_op_;
  tick_type drive_tick_ = detail::never_tick;  // armed for, or never
  bool drive_busy_ = false;  // cancelled or fired, not yet completed

  // Waits whose handler has not been called or posted yet. expired_: the
  // expiries a drive wakeup found, handed out at most
  // max_completions_per_slice a slice (fairness). decided_: with inline
  // completions, waits aborted or found due by a call of the user, all
  // completed by the next slice as Asio would post them all at once.
  detail::wait_op_queue expired_;
  detail::wait_op_queue decided_;
  std::size_t decided_count_ = 0;
  // Aborted lone waits not yet marked, oldest first (see defer_abort).
  static constexpr std::size_t max_deferred_aborts = 256;
  detail::wait_op_base* deferred_aborts_[max_deferred_aborts];
  std::size_t deferred_count_ = 0;
  slice_op slice_op_;
  bool slice_posted_ = false;  // slice_op_ is queued in the scheduler
  const bool inline_completions_;

  bool shutdown_ = false;
  wheel_stats stats_;
};

} // namespace asio_wheel

#endif // ASIO_WHEEL_WHEEL_TIMER_SERVICE_HPP
