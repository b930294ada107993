//
// asio_wheel/wheel_timer_service.hpp
//
// The execution_context service that keeps the pending waits of all
// basic_wheel_timer objects of one context (and one Clock) in a single
// hierarchical timing wheel, driven by one timer in Asio's reactor. See
// doc/design.md for the algorithm, its precision and its costs.
//
// Users meet this class only to configure it (make_service with
// wheel_options) and to read options() and stats(); the rest is the
// implementation interface basic_wheel_timer calls, in the style of Asio's
// detail::deadline_timer_service. Its parts have homes of their own:
//   detail/timing_wheel.hpp       the wheel over integer ticks
//   detail/tick_grid.hpp          time points <-> ticks
//   detail/drive_timer.hpp        the two timers in the reactor
//   detail/completion_slices.hpp  decided waits on their way to handlers
//   detail/asio_scheduler.hpp     the Asio scheduler and reactor hooks
//

#ifndef ASIO_WHEEL_WHEEL_TIMER_SERVICE_HPP
#define ASIO_WHEEL_WHEEL_TIMER_SERVICE_HPP

#include <asio_wheel/detail/asio_forward.hpp>
#include <asio_wheel/detail/asio_operation.hpp>
#include <asio_wheel/detail/asio_scheduler.hpp>
#include <asio_wheel/detail/completion_slices.hpp>
#include <asio_wheel/detail/drive_timer.hpp>
#include <asio_wheel/detail/tick_grid.hpp>
#include <asio_wheel/detail/timing_wheel.hpp>
#include <asio_wheel/detail/wait_op.hpp>
#include <asio_wheel/detail/wheel_mutex.hpp>
#include <asio_wheel/wheel_options.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>

ASIO_WHEEL_NAMESPACE_BEGIN
namespace detail {

/// The FIFO of a timer's pending waits, as its operations see the timer.
struct timer_state
{
  wait_op_queue waits;
};

/// The expiry and its tolerance, first in the timer's implementation (see
/// below).
template <typename TimePoint>
struct timer_expiry
{
  TimePoint expiry{};
  timer_slack slack;
};

} // namespace detail

/// Keeps the pending waits of many timers in one hierarchical timing wheel.
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
 * (With standalone Asio: asio::make_service.)
 *
 * Thread safety: all members may be called concurrently for distinct timers;
 * the wheel is protected by one mutex, disabled when the context's scheduler
 * does not lock (concurrency hint ..._CONCURRENCY_HINT_UNSAFE), as Asio's
 * own locks are.
 */
template <typename Clock,
    typename WaitTraits = asio::wait_traits<Clock>>
class wheel_timer_service
  : public detail::execution_context_service_base<
      wheel_timer_service<Clock, WaitTraits>>
{
public:
  using clock_type = Clock;
  using duration = typename Clock::duration;
  using time_point = typename Clock::time_point;
  using traits_type = WaitTraits;

  /// Per-timer state, embedded in basic_wheel_timer: the expiry and its
  /// tolerance, the FIFO of pending waits and the intrusive wheel entry. The
  /// entry is in the wheel while the FIFO is not empty; after its last wait
  /// was aborted it may stay there as a "ghost" (see retire), which a new
  /// wait reuses and a walk drops. The expiry and the FIFO come first so
  /// that a reschedule, which touches only them, usually touches one cache
  /// line of the timer.
  struct implementation_type
    : detail::timer_expiry<time_point>, detail::timer_state, detail::wheel_entry
  {
  };

  /// Creates the service with default wheel_options (use_service).
  explicit wheel_timer_service(asio::execution_context& context)
    : wheel_timer_service(context, wheel_options())
  {
  }

  /// Creates the service with @p options (make_service).
  /// @throws std::invalid_argument naming the invalid field.
  wheel_timer_service(asio::execution_context& context,
      const wheel_options& options)
    : wheel_timer_service(context, validate(options),
        asio::use_service<detail::scheduler>(context))
  {
  }

  /// The options the service was made with.
  const wheel_options& options() const noexcept { return options_; }

  /// The service of @p context, as asio::use_service finds or makes it, but
  /// without the registry's lock on every call: each thread remembers the
  /// last context it asked for. For what looks the service up per operation
  /// (cancel_after); a stream or timer keeps its service from construction.
  static wheel_timer_service& of(asio::execution_context& context)
  {
    last_lookup& last = last_lookup_;
    // A service that shut down (its context is being destroyed) changes the
    // generation, so a new context at the same address is never mistaken
    // for the old one.
    const std::uint64_t generation
      = shutdowns_.load(std::memory_order_acquire);
    if (last.context != &context || last.generation != generation)
    {
      last.service = &asio::use_service<wheel_timer_service>(context);
      last.context = &context;
      last.generation = generation;
    }
    return *last.service;
  }

  /// A consistent snapshot of the service's counters.
  wheel_stats stats() const
  {
    lock_type lock(mutex_);
    wheel_stats s = stats_;
    s.queued_completions = slices_.queued();
    s.lazy_refilings = wheel_.lazy_refilings();
    s.round_revisits = wheel_.round_revisits();
    s.cascades = wheel_.cascades();
    s.drive_arms = drive_.arms();
    s.drive_cancels = drive_.cancels();
    s.drive_arms_ahead = drive_.arms_ahead();
    return s;
  }

  /// @name Implementation interface used by basic_wheel_timer.
  /// @{

  /// Initialises a new timer: no expiry, no wait.
  void construct(implementation_type& impl) { impl.expiry = time_point(); }

  /// Destroys a timer: its pending waits complete with operation_aborted.
  void destroy(implementation_type& impl)
  {
    decided_waits done;
    {
      lock_type lock(mutex_);
      drop(impl, done);
    }
    slices_.send(done);
  }

  /// impl (new) takes over other's expiry, pending waits and wheel entry.
  void move_construct(implementation_type& impl, implementation_type& other)
  {
    lock_type lock(mutex_);
    take_over(impl, other);
  }

  /// The same, for a timer moved from one of another executor type (its
  /// service is this one: io_object_impl finds it from the same context).
  void converting_move_construct(implementation_type& impl,
      wheel_timer_service&, implementation_type& other)
  {
    move_construct(impl, other);
  }

  /// impl aborts its own pending waits, then takes over other's.
  void move_assign(implementation_type& impl,
      wheel_timer_service& other_service, implementation_type& other)
  {
    if (&other_service == this)
    {
      decided_waits done;
      {
        lock_type lock(mutex_);
        drop(impl, done);
        take_over(impl, other);
      }
      slices_.send(done);
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
    return cancel_and_set_expiry(impl, ~std::size_t(0));
  }

  /// Aborts the oldest pending wait; returns 0 or 1.
  std::size_t cancel_one(implementation_type& impl)
  {
    return cancel_and_set_expiry(impl, 1);
  }

  /// The timer's expiry.
  time_point expiry(const implementation_type& impl) const
  {
    return impl.expiry;
  }

  /// Aborts all pending waits, then sets the expiry (Asio's expires_at).
  std::size_t expires_at(implementation_type& impl, const time_point& t)
  {
    return cancel_and_set_expiry(impl, ~std::size_t(0), t,
        now_if_tolerant(impl));
  }

  /// The same, for an expiry set at @p now (expires_after: the length of
  /// the wait is t - now, for the context's tolerance).
  std::size_t expires_at(implementation_type& impl, const time_point& t,
      const time_point& now)
  {
    return cancel_and_set_expiry(impl, ~std::size_t(0), t, now);
  }

  /// Moves the expiry of the pending waits without aborting them; returns
  /// how many waits moved. Later: a store, the entry is re-filed lazily.
  std::size_t reschedule_at(implementation_type& impl, const time_point& t)
  {
    return move_expiry(impl, t, now_if_tolerant(impl));
  }

  /// The same, for an expiry set at @p now (reschedule_after).
  std::size_t reschedule_at(implementation_type& impl, const time_point& t,
      const time_point& now)
  {
    return move_expiry(impl, t, now);
  }

  /// Sets the timer's own tolerance, which replaces the context's
  /// (wheel_options::tolerance): its waits may complete up to @p d late,
  /// rounded down to whole ticks. Pending waits keep their place if it is
  /// still within the new window, else move earlier (or complete, if due).
  /// @throws std::invalid_argument if @p d is negative.
  void tolerance(implementation_type& impl, const duration& d)
  {
    if (d < duration::zero())
      throw std::invalid_argument(
          "asio_wheel::basic_wheel_timer::tolerance must not be negative");
    decided_waits done;
    {
      lock_type lock(mutex_);
      const tick_type old = impl.slack.ticks();
      impl.slack.set_own(grid_.ticks_in(d));
      if (impl.slack.ticks() < old)
        refile_pending(impl, done);
    }
    slices_.send(done);
  }

  /// How late the timer's waits may complete: its own tolerance, or the
  /// context's fraction of the length of its current expiry; whole ticks.
  duration tolerance(const implementation_type& impl) const
  {
    return tick_duration() * impl.slack.ticks();
  }

  /// The tolerance of a per-operation timeout: @p slack if it is the
  /// operation's own (timer_slack::own()), else the context's fraction of
  /// the timeout's length, @p length(), which is called (it may read the
  /// clock) only when the context has a tolerance.
  template <typename Length>
  detail::timer_slack slack_for(detail::timer_slack slack,
      Length&& length) const
  {
    if (!slack.own() && context_tolerant_)
      slack.set_from_context(context_slack(length()));
    return slack;
  }

  /// The ticks of a tolerance given in time. For per-operation timeouts.
  detail::tick_type slack_of(const duration& tolerance) const noexcept
  {
    return grid_.ticks_in(tolerance);
  }

  /// Blocks until the expiry has passed, as basic_waitable_timer::wait.
  void wait(implementation_type& impl, error_code& ec)
  {
    ec = error_code();
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
    if constexpr (std::is_same<IoExecutor, asio::any_io_executor>::value)
    {
      if (const auto* ex = detail::native_executor(io_ex))
      {
        start_wait<Handler, asio::io_context::executor_type>(impl, handler, *ex);
        return;
      }
    }
    start_wait<Handler, IoExecutor>(impl, handler, io_ex);
  }

  /// Per-operation timeouts (asio_wheel::cancel_after, the Beast stream): a
  /// timeout is an implementation_type with one wait whose operation the
  /// caller owns. arm_timeout files it for @p expiry; if that is reached,
  /// @p op completes with success like any wait (through the slices);
  /// withdraw_timeout takes it back without completing it. @p slack: how
  /// late it may fire (slack_for, slack_of). If @p op is a
  /// detail::hooked_wait_op, its hook runs when the timeout is decided.
  void arm_timeout(implementation_type& entry, detail::wait_op_base* op,
      const time_point& expiry, detail::timer_slack slack = {})
  {
    decided_waits done;
    {
      lock_type lock(mutex_);
      entry.expiry = expiry;
      entry.slack = slack;
      if (shutdown_)
      {
        lock.unlock();
        abandon(op);
        return;
      }
      enqueue_wait(entry, op, done);
    }
    slices_.send(done);
  }

  /// Takes back the timeout @p op armed on @p entry, without completing it,
  /// and unlinks the entry: O(1), no completion, no allocation. Returns
  /// false if the timeout has already been decided (it fired, or was
  /// abandoned at shutdown): then @p op completes or is destroyed as usual.
  bool withdraw_timeout(implementation_type& entry, detail::wait_op_base* op)
  {
    {
      lock_type lock(mutex_);
      if (!op->timer)
        return false;
      entry.waits.pop();  // op, the entry's only wait
      op->timer = nullptr;
      --stats_.pending_waits;
      --stats_.timers_in_wheel;
      ++stats_.timeouts_withdrawn;
      wheel_.erase(entry);
      disarm_if_idle();
    }
    // The wait's unit of work (enqueue_wait): it will not complete.
    scheduler_.work_finished();
    return true;
  }

  /// @}

private:
  using lock_type = detail::wheel_mutex::scoped_lock;
  using time_traits = detail::chrono_time_traits<Clock, WaitTraits>;
  using tick_type = detail::tick_type;
  using decided_waits = detail::completion_slices::decided_waits;

  wheel_timer_service(asio::execution_context& context,
      const wheel_options& options, detail::scheduler& scheduler)
    : detail::execution_context_service_base<
        wheel_timer_service>(context),
      options_(options),
      grid_(options.tick, Clock::now()),
      wheel_(options.slots),
      scheduler_(scheduler),
      threading_(detail::threading_of(context)),
      mutex_(threading_.locking),
      drive_(context, scheduler, grid_, &wheel_timer_service::on_drive, this),
      slices_(scheduler, threading_.one_thread,
          &wheel_timer_service::on_slice, this)
  {
  }

  // Installed in a handler's cancellation slot: aborts that one wait.
  class op_cancellation
  {
  public:
    op_cancellation(wheel_timer_service* s, detail::wait_op_base* op)
      : service_(s), op_(op)
    {
    }

    void operator()(asio::cancellation_type_t type)
    {
      if (!!(type & (asio::cancellation_type::terminal
              | asio::cancellation_type::partial
              | asio::cancellation_type::total)))
        service_->cancel_wait(op_);
    }

  private:
    wheel_timer_service* service_;
    detail::wait_op_base* op_;
  };

  static const wheel_options& validate(const wheel_options& o)
  {
    // (Written so that NaN fails too.)
    if (!(o.tolerance >= 0.0 && o.tolerance <= 1.0))
      throw std::invalid_argument(
          "asio_wheel::wheel_options::tolerance must be a fraction of each "
          "wait's length in [0, 1] (got " + std::to_string(o.tolerance) + ")");
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

  template <typename Handler, typename IoExecutor>
  void start_wait(implementation_type& impl,
      Handler& handler, const IoExecutor& io_ex)
  {
    auto slot = asio::get_associated_cancellation_slot(handler);

    using op = detail::wait_op<Handler, IoExecutor>;
    typename op::ptr p = { std::addressof(handler),
      op::ptr::allocate(handler), 0 };
    p.p = new (p.v) op(handler, io_ex);

    if (slot.is_connected())
    {
      slot.template emplace<op_cancellation>(this, p.p);
      p.p->set_has_cancellation_handler();
    }

    decided_waits done;
    {
      lock_type lock(mutex_);
      if (shutdown_)
      {
        lock.unlock();
        abandon(p.p);
        p.v = p.p = 0;
        return;
      }
      enqueue_wait(impl, p.p, done);
      p.v = p.p = 0;
    }
    slices_.send(done);
  }

  // After shutdown, as Asio's reactor does: hands the operation to the
  // scheduler, which destroys it without running it. Lock not held.
  void abandon(detail::wait_op_base* op)
  {
    op->decided();
    scheduler_.post_immediate_completion(op, false);
  }

  // Queues op on impl's FIFO and files impl in the wheel, or decides op at
  // once if impl's expiry is due. Counts the wait as outstanding work of the
  // scheduler until its handler has run. Lock held.
  void enqueue_wait(implementation_type& impl, detail::wait_op_base* op,
      decided_waits& done)
  {
    scheduler_.work_started();
    const tick_type precise = grid_.due_tick(impl.expiry);
    // (With waits already queued on the timer, a bounded advance has yet
    // to reach them: join them so that they all complete in order.)
    if (precise <= wheel_.horizon() && impl.waits.empty()
        && !rewound_for(impl.expiry))
    {
      // Already due: completes soon with success, never inside async_wait.
      ++stats_.waits_expired;
      op->decided();
      slices_.complete(done, op);
      return;
    }
    op->timer = &impl;
    const bool first_wait = impl.waits.empty();
    impl.waits.push(op);
    ++stats_.pending_waits;
    if (!first_wait)
      return;
    ++stats_.timers_in_wheel;
    const tick_type due = tolerant(precise, impl);
    if (!impl.in_wheel())
    {
      wheel_.insert(impl, due);
      drive_.arm_no_later_than(due);
    }
    else if (due < impl.filed_tick())
      refile_earlier(impl, due);  // a ghost filed too late
    else
    {
      // A ghost filed at or before the new due tick: reuse it as it is
      // (the walk re-files it lazily), no list operation.
      drive_.arm_no_later_than(impl.filed_tick());
    }
  }

  std::size_t cancel_and_set_expiry(implementation_type& impl,
      std::size_t max_aborted)
  {
    decided_waits done;
    std::size_t n = 0;
    {
      lock_type lock(mutex_);
      n = abort_waits(impl, done, max_aborted);
    }
    slices_.send(done);
    return n;
  }

  // Aborts the pending waits, then sets the expiry to t, set at `now`.
  std::size_t cancel_and_set_expiry(implementation_type& impl,
      std::size_t max_aborted, const time_point& t, const time_point& now)
  {
    decided_waits done;
    std::size_t n = 0;
    {
      lock_type lock(mutex_);
      n = abort_waits(impl, done, max_aborted);
      impl.expiry = t;
      set_context_slack(impl, t, now);
    }
    slices_.send(done);
    return n;
  }

  // The clock, where the context's tolerance needs the length of a wait
  // whose expiry is being set; else nothing is read (time_point()).
  time_point now_if_tolerant(const implementation_type& impl) const
  {
    return context_tolerant_ && !impl.slack.own()
      ? Clock::now() : time_point();
  }

  // impl's expiry was set to t at `now`: under the context's tolerance, its
  // waits may be late by a fraction of t - now. Returns true if that is less
  // than before. Lock held.
  bool set_context_slack(implementation_type& impl, const time_point& t,
      const time_point& now)
  {
    if (!context_tolerant_ || impl.slack.own())
      return false;  // the default: one flag read
    const tick_type old = impl.slack.ticks();
    impl.slack.set_from_context(context_slack(time_traits::subtract(t, now)));
    return impl.slack.ticks() < old;
  }

  // The ticks a wait of `length` may be late by under the context's
  // tolerance (0 without one).
  tick_type context_slack(const duration& length) const noexcept
  {
    if (!context_tolerant_ || length <= duration::zero())
      return 0;
    // The fraction of the length, then whole ticks. The product is at most
    // the length, but rounded: capped at it.
    const double part =
      static_cast<double>(length.count()) * options_.tolerance;
    return grid_.ticks_in(part < static_cast<double>(length.count())
        ? duration(static_cast<typename duration::rep>(part)) : length);
  }

  // The tick where a wait due at tick `precise` on impl completes.
  static tick_type tolerant(tick_type precise, const implementation_type& impl)
  {
    return detail::coalesced_tick(precise, impl.slack.ticks());
  }

  duration tick_duration() const noexcept
  {
    return grid_.time_of(1) - grid_.time_of(0);
  }

  // reschedule_at: the pending waits get expiry t, set at `now`.
  std::size_t move_expiry(implementation_type& impl, const time_point& t,
      const time_point& now)
  {
    decided_waits done;
    std::size_t moved = 0;
    {
      lock_type lock(mutex_);
      const time_point old_expiry = impl.expiry;
      impl.expiry = t;
      const bool less_tolerance = set_context_slack(impl, t, now);
      if (impl.waits.empty())
        return 0;
      moved = detail::completion_slices::count(impl.waits);
      // Later, with no less tolerance: the due tick can only be later too,
      // so filed_tick stays <= it and the entry is re-filed lazily.
      if (!(t < old_expiry) && !less_tolerance)
        return moved;
      refile_pending(impl, done);
    }
    slices_.send(done);
    return moved;
  }

  // impl's pending waits may now be due earlier than it is filed: completes
  // them if due, else moves the entry earlier if it must. Lock held.
  void refile_pending(implementation_type& impl, decided_waits& done)
  {
    if (impl.waits.empty())
      return;
    const tick_type precise = grid_.due_tick(impl.expiry);
    if (precise <= wheel_.horizon() && !rewound_for(impl.expiry))
    {
      wheel_.erase(impl);
      expire(impl, Clock::now(),
          [&](detail::wait_op_base* op) { slices_.complete(done, op); });
      disarm_if_idle();
      return;
    }
    const tick_type due = tolerant(precise, impl);
    if (due < impl.filed_tick())
      refile_earlier(impl, due);
  }

  // Aborts up to max_aborted of impl's oldest waits. Lock held.
  std::size_t abort_waits(implementation_type& impl,
      decided_waits& done, std::size_t max_aborted)
  {
    std::size_t n = 0;
    if (max_aborted != 0)
    {
      detail::wait_op_base*& front = detail::op_queue_access::front(impl.waits);
      detail::wait_op_base*& back = detail::op_queue_access::back(impl.waits);
      if (front && front == back)
      {
        // The usual lone wait (a re-arm on every message): unqueued from
        // the FIFO's ends alone, its operation untouched (see defer_abort).
        front->decided();
        slices_.defer_abort(done, front);
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
      op->decided();
      slices_.complete(done, op);
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
  void drop(implementation_type& impl, decided_waits& done)
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
    drive_.arm_no_later_than(due);
  }

  // Per-operation cancellation: aborts one wait if it is still pending.
  void cancel_wait(detail::wait_op_base* target)
  {
    decided_waits done;
    {
      lock_type lock(mutex_);
      // A deferred abort still has its timer set: mark it aborted first.
      slices_.mark_deferred_aborts();
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
      target->decided();
      slices_.complete(done, target);
      --stats_.pending_waits;
      ++stats_.waits_cancelled;
      if (timer->waits.empty())
        retire(static_cast<implementation_type&>(*timer));
    }
    slices_.send(done);
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
    if (impl.filed_tick() <= drive_.armed_tick())
      wheel_.erase(impl);
    disarm_if_idle();
  }

  // impl takes over other's expiry, waits and place in the wheel. Lock held.
  void take_over(implementation_type& impl, implementation_type& other)
  {
    impl.expiry = other.expiry;
    other.expiry = time_point();  // as if constructed from its executor
    impl.slack = other.slack;
    other.slack = detail::timer_slack();
    impl.waits.push(other.waits);
    for (detail::wait_op_base* op = impl.waits.front(); op;
        op = detail::op_queue_access::next(op))
      op->timer = &impl;
    if (other.in_wheel())
      impl.take_place_of(other);
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
      op->decided();
      sink(op);
    }
  }

  // With no pending wait left, the drive timer must not keep run() from
  // returning (it is parked, see drive_timer.hpp). Lock held.
  void disarm_if_idle()
  {
    if (stats_.pending_waits == 0)
      drive_.disarm();
  }

  // The drive timer fired (or its cancellation completed). Lock not held.
  static void on_drive(void* owner, const error_code& ec, unsigned which)
  {
    wheel_timer_service* self = static_cast<wheel_timer_service*>(owner);
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
    }
    self->run_slice();
  }

  // Advances the wheel to tick `to`, or continues the advance in progress,
  // visiting at most one slice's worth of entries; expired waits go to the
  // slices. Once the advance is complete, arms the drive timer for the next
  // due tick. `now` is the clock's time at `to` or later. Lock held.
  void advance_wheel(tick_type to, const time_point& now)
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
    wheel_.advance(to,
        [this](const detail::wheel_entry& e) {
          const auto& impl = static_cast<const implementation_type&>(e);
          // A ghost is "due" where it is filed: the walk drops it.
          return impl.waits.empty()
            ? impl.filed_tick() : tolerant(grid_.due_tick(impl.expiry), impl);
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
            const tick_type precise = grid_.due_tick(impl.expiry);
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

  // A clock that is not steady can step back. The wheel then holds ticks
  // it has processed that lie ahead of the clock: a new wait due there is
  // due by the wheel's count, not by the clock's. So where a wait looks due
  // (`expiry` at or before horizon()), a clock that is not steady is read
  // to confirm it; if now < expiry, the wheel is rewound to now's tick and
  // the wait is filed. Pending entries keep their ticks: they complete when
  // the clock gets back to them, as Asio's timers do. A steady clock reads
  // nothing here. Lock held.
  bool rewound_for([[maybe_unused]] const time_point& expiry)
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

  // Moves the wheel back to now's tick. The caller arms the drive timer:
  // advance_wheel once its advance is done, rewound_for at once.
  void rewind(tick_type now_tick)
  {
    wheel_.rewind(now_tick);
    ++stats_.clock_steps_back;
  }

  // Arms the drive timer for the next due tick, and its other timer, if
  // idle, for the one after (see drive_timer.hpp). Ghosts alone must not
  // keep the drive timer (and so run()) going, nor must the timer armed
  // ahead once the last wait has expired: it is parked. Lock held; no
  // advance in progress.
  void arm_for_next_due()
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

  // The slice operation runs. Lock not held.
  static void on_slice(void* owner)
  {
    wheel_timer_service* self = static_cast<wheel_timer_service*>(owner);
    {
      lock_type lock(self->mutex_);
      self->slices_.slice_started();
    }
    self->run_slice();
  }

  // Completes the next slice (see detail/completion_slices.hpp), continuing
  // a bounded advance of the wheel to find its expired waits. Called from a
  // thread running the context, in the drive or the slice operation; lock
  // not held.
  void run_slice()
  {
    detail::wait_op_queue batch;
    bool post_slice = false;
    {
      lock_type lock(mutex_);
      // The next part of a storm. Several threads: also when fewer than a
      // budget wait, so that half of what waits is still a full slice.
      if (wheel_.advancing() && (!slices_.has_expired()
            || (!slices_.one_thread()
              && slices_.queued() < options_.max_completions_per_slice)))
        advance_wheel(wheel_.horizon(), Clock::now());
      const std::size_t n = slices_.take_slice(batch,
          options_.max_completions_per_slice, wheel_.advancing(), post_slice);
      if (n != 0)
      {
        ++stats_.slices;
        stats_.sliced_completions += n;
      }
    }
    // Several threads: the rest is handed off before this batch runs, so
    // another thread can take the next slice meanwhile.
    if (post_slice)
      slices_.post_slice();

    // Call the handlers here. If one throws, what did not run is put back
    // and the exception leaves run() as with Asio's own timers. One thread:
    // the slice operation is posted again afterwards if waits remain.
    struct resume_on_exit
    {
      wheel_timer_service* service;
      detail::wait_op_queue& rest;
      ~resume_on_exit()
      {
        if (service->slices_.one_thread() || !rest.empty())
          service->resume_slices(rest);
      }
    } resume{this, batch};
    slices_.call_handlers(batch);
  }

  // After a one-thread slice, or a handler that threw: puts back the waits
  // the batch did not reach, and posts the slice operation if waits remain.
  // Lock not held.
  void resume_slices(detail::wait_op_queue& rest)
  {
    bool post_slice = false;
    {
      lock_type lock(mutex_);
      // Waits put back were not called: they count in the slice that calls them.
      stats_.sliced_completions -= detail::completion_slices::count(rest);
      post_slice = slices_.put_back(rest, wheel_.advancing());
    }
    if (post_slice)
      slices_.post_slice();
  }

  void shutdown() override
  {
    detail::wait_op_queue ops;
    {
      lock_type lock(mutex_);
      shutdown_ = true;
      shutdowns_.fetch_add(1, std::memory_order_acq_rel);  // see of()
      slices_.take_all(ops);
      wheel_.clear([&ops](detail::wheel_entry& e) {
        auto& impl = static_cast<implementation_type&>(e);
        while (detail::wait_op_base* op = impl.waits.front())
        {
          impl.waits.pop();
          op->timer = nullptr;
          op->decided();
          ops.push(op);
        }
      });
      stats_.pending_waits = 0;
      stats_.timers_in_wheel = 0;
    }
    // Destroyed without being invoked, as Asio does with its own timers.
    detail::op_queue<detail::scheduler_operation> base_ops;
    base_ops.push(ops);
    scheduler_.abandon_operations(base_ops);
  }

  const wheel_options options_;
  const bool context_tolerant_ = options_.tolerance != 0.0;
  const detail::tick_grid<Clock> grid_;  // tick 0 is the service's creation
  detail::timing_wheel wheel_;

  detail::scheduler& scheduler_;
  const detail::scheduler_threading threading_;
  mutable detail::wheel_mutex mutex_;

  detail::drive_timer<Clock, WaitTraits> drive_;
  detail::completion_slices slices_;

  bool shutdown_ = false;

  // of(): the last lookup of each thread, valid while no service of this
  // type has shut down since.
  struct last_lookup
  {
    const asio::execution_context* context = nullptr;
    wheel_timer_service* service = nullptr;
    std::uint64_t generation = 0;
  };
  static inline thread_local last_lookup last_lookup_;
  static inline std::atomic<std::uint64_t> shutdowns_{0};
  wheel_stats stats_;  // queued_completions: see stats()
};

ASIO_WHEEL_NAMESPACE_END

#endif // ASIO_WHEEL_WHEEL_TIMER_SERVICE_HPP
