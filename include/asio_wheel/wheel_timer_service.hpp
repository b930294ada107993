//
// asio_wheel/wheel_timer_service.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The execution_context service that keeps the pending waits of all
// basic_wheel_timer objects of one context (and one Clock) in a single
// hierarchical timing wheel, driven by one timer in Asio's reactor. See
// doc/design.md for the algorithm, its precision and its costs.
//
// Users meet this class only to configure it (make_service with
// wheel_options) and to read options() and stats(); the rest is the
// implementation interface basic_wheel_timer calls, in the style of Asio's
// detail::deadline_timer_service. This file declares it; the definitions
// are in impl/wheel_timer_service.hpp. Its parts have homes of their own:
//   detail/timing_wheel.hpp       the wheel over integer ticks
//   detail/tick_grid.hpp          time points <-> ticks
//   detail/drive_timer.hpp        the two timers in the reactor
//   detail/completion_slices.hpp  decided waits on their way to handlers
//   detail/asio_scheduler.hpp     the Asio scheduler and reactor hooks
//
// Ground rules.
//
// The words:
//   wait      one async_wait (or one per-operation timeout), a
//             detail::wait_op_base queued on its timer's FIFO while pending.
//   decided   a wait's result is fixed, success (it expired) or
//             operation_aborted, and it has left its timer (op->timer is
//             null; decided() was called). Its handler has not run yet: it
//             goes to the completion slices, which call it after the lock is
//             released. Nothing undoes a decision.
//   ghost     a timer's entry left in the wheel after its last wait was
//             aborted (retire): a new wait of the timer reuses it without a
//             list operation, and a walk that finds it drops it.
//   retire    what happens to a timer whose last wait is aborted: its entry
//             stays as a ghost, or is unlinked if it is filed at or before
//             the drive timer's tick.
//   drop      abort every wait of a timer and unlink its entry, ghost
//             included: the timer is going away or being moved over.
//   withdraw  take back a per-operation timeout whose operation completed
//             first: the wait is unlinked without being decided, and never
//             completes; its entry is unlinked, or retired (the Beast
//             stream's, which lives on with the stream).
//   abandon   after shutdown, a new wait is decided and handed to the
//             scheduler, which destroys it without calling its handler, as
//             Asio does with its own timers.
//
// The lock (mutex_, a detail::wheel_mutex; no lock at all under a
// concurrency hint that disables the scheduler's) guards the wheel, the
// expiry, slack and FIFO of every timer (a walk on another thread reads
// them), the drive timer, the slices' queues and stats_. (A timer object
// itself is no more thread-safe than Asio's.) No handler, allocator or
// executor of the user runs under it: decisions are collected in a
// slice_request and sent once it is released, and operations are allocated
// before it is taken.
//
// One field of a timer is not guarded: its extension (extend_to), a
// std::atomic that the timer's owner stores with a relaxed store and no
// lock. The service only reads it, under the lock; it is written under the
// lock only by the owner's own calls (expires_*, reschedule_* clear it, a
// move carries it). Its effective expiry, the later of expiry and
// extension, is what every decision reads. A store that races a walk on
// another thread is read by the walk or not: if not, the walk decides the
// timer's waits by the effective expiry it read, and if that has passed,
// they complete with success (as with Asio's timer when expires_after
// comes after the wait expired); if it is read, the entry is re-filed for
// it. Either way no wait is decided before the effective expiry the walk
// read. The store orders nothing else: it publishes no other data.
//
// Invariants, whenever the lock is free:
//   - a timer with pending waits is filed in the wheel at or before its due
//     tick (its effective expiry rounded up to a tick, later by its
//     tolerance if it has one); a ghost or a lazily moved entry may be filed
//     earlier than that, never later. The one exception: extend_to reads
//     nothing, so an extension stored earlier than one the walk has already
//     re-filed the entry for (the last call wins) leaves it filed for that
//     later one, never beyond the latest effective expiry the walk read;
//   - no wait is decided before its expiry: one whose tick is due when it
//     is armed is decided at once, with success, and completes through the
//     slices, never inside async_wait;
//   - while any wait is pending, a drive timer is armed, in the reactor, at
//     or before the earliest filed tick, or is being cancelled and re-arms
//     when that completes, or a bounded advance is under way and a slice
//     will continue it; with none pending, the drive timers are parked so
//     that run() can return;
//   - each pending wait counts one unit of the scheduler's outstanding work,
//     until its handler has run (or it is withdrawn, or destroyed);
//   - stats_.pending_waits and timers_in_wheel count the waits and the
//     timers that have at least one.
//

#ifndef ASIO_WHEEL_WHEEL_TIMER_SERVICE_HPP
#define ASIO_WHEEL_WHEEL_TIMER_SERVICE_HPP

#include <asio_wheel/detail/config.hpp>

// Without an Asio it can use, config.hpp's one line is all (see there).
#if !defined(ASIO_WHEEL_ASIO_UNUSABLE)

# include <asio_wheel/detail/asio_forward.hpp>
# include <asio_wheel/detail/asio_operation.hpp>
# include <asio_wheel/detail/asio_scheduler.hpp>
# include <asio_wheel/detail/completion_slices.hpp>
# include <asio_wheel/detail/drive_timer.hpp>
# include <asio_wheel/detail/tick_grid.hpp>
# include <asio_wheel/detail/timing_wheel.hpp>
# include <asio_wheel/detail/wait_op.hpp>
# include <asio_wheel/detail/wheel_mutex.hpp>
# include <asio_wheel/wheel_options.hpp>

# include <algorithm>
# include <atomic>
# include <chrono>
# include <limits>
# include <memory>
# include <stdexcept>
# include <thread>
# include <type_traits>

ASIO_WHEEL_NAMESPACE_BEGIN
namespace detail {

/// The FIFO of a timer's pending waits, as its operations see the timer.
struct timer_waits
{
  timer_wait_list waits;
};

/// The expiry, its extension and its tolerance, first in the timer's
/// implementation (see below).
///
/// The extension (basic_wheel_timer::extend_to) is a second time, stored by
/// the timer's owner with one relaxed store, without the lock and without
/// reading anything of the timer: the timer's effective expiry is the later
/// of the two. Everything that decides or files a wait reads effective(),
/// under the lock; setting the expiry (expires_*, reschedule_*) clears the
/// extension. No extension is the smallest representable time, which is
/// never later than the expiry.
template <typename TimePoint>
struct timer_expiry
{
  using rep = typename TimePoint::rep;
  using duration = typename TimePoint::duration;

  static constexpr rep no_extension = (std::numeric_limits<rep>::min)();

  TimePoint expiry{};
  std::atomic<rep> extension{no_extension};
  timer_slack slack;

  /// The later of the expiry and the extension.
  TimePoint effective() const noexcept
  {
    const rep e = extension.load(std::memory_order_relaxed);
    return e > expiry.time_since_epoch().count() ? TimePoint(duration(e))
                                                 : expiry;
  }

  /// Sets the extension: one relaxed store (see the ground rules above).
  void extend_to(const TimePoint& t) noexcept
  {
    extension.store(t.time_since_epoch().count(), std::memory_order_relaxed);
  }

  /// Sets the expiry exactly: no extension any more.
  void set_expiry(const TimePoint& t) noexcept
  {
    expiry = t;
    extension.store(no_extension, std::memory_order_relaxed);
  }
};

}  // namespace detail

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
template <typename Clock, typename WaitTraits = asio::wait_traits<Clock>>
class wheel_timer_service : public detail::execution_context_service_base<
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
  struct implementation_type : detail::timer_expiry<time_point>,
                               detail::timer_waits,
                               detail::wheel_entry
  {};

  /// Creates the service with default wheel_options (use_service).
  explicit wheel_timer_service(asio::execution_context& context)
    : wheel_timer_service(context, wheel_options())
  {}

  /// Creates the service with @p options (make_service).
  /// @throws std::invalid_argument naming the invalid field.
  wheel_timer_service(
      asio::execution_context& context, const wheel_options& options)
    : wheel_timer_service(context, detail::validated(options),
        asio::use_service<detail::scheduler>(context))
  {}

  /// The options the service was made with.
  const wheel_options& options() const noexcept { return options_; }

  /// The service of @p context, as asio::use_service finds or makes it, but
  /// without the registry's lock on every call: each thread remembers the
  /// last context it asked for. For what looks the service up per operation
  /// (cancel_after); a stream or timer keeps its service from construction.
  static wheel_timer_service& of(asio::execution_context& context);

  /// A consistent snapshot of the service's counters.
  wheel_stats stats() const;

  /// @name Implementation interface used by basic_wheel_timer.
  /// @{

  /// Initialises a new timer: no expiry, no wait.
  void construct(implementation_type& impl) { impl.set_expiry(time_point()); }

  /// Destroys a timer: its pending waits complete with operation_aborted.
  void destroy(implementation_type& impl);

  /// impl (new) takes over other's expiry, pending waits and wheel entry.
  void move_construct(implementation_type& impl, implementation_type& other);

  /// The same, for a timer moved from one of another executor type (its
  /// service is this one: io_object_impl finds it from the same context).
  void converting_move_construct(implementation_type& impl,
      wheel_timer_service&, implementation_type& other);

  /// impl aborts its own pending waits, then takes over other's.
  void move_assign(implementation_type& impl,
      wheel_timer_service& other_service, implementation_type& other);

  /// Aborts all pending waits; returns how many.
  std::size_t cancel(implementation_type& impl);

  /// Aborts the oldest pending wait; returns 0 or 1.
  std::size_t cancel_one(implementation_type& impl);

  /// The timer's effective expiry: the later of its expiry and its
  /// extension.
  time_point expiry(const implementation_type& impl) const;

  /// Aborts all pending waits, then sets the expiry (Asio's expires_at).
  std::size_t expires_at(implementation_type& impl, const time_point& t);

  /// The same, for an expiry set at @p now (expires_after: the length of
  /// the wait is t - now, for the context's tolerance).
  std::size_t expires_at(
      implementation_type& impl, const time_point& t, const time_point& now);

  /// Moves the expiry of the pending waits without aborting them; returns
  /// how many waits moved. Later: a store, the entry is re-filed lazily.
  std::size_t reschedule_at(implementation_type& impl, const time_point& t);

  /// The same, for an expiry set at @p now (reschedule_after).
  std::size_t reschedule_at(
      implementation_type& impl, const time_point& t, const time_point& now);

  /// Sets the timer's extension to @p t: its waits complete no earlier than
  /// the later of its expiry and @p t. One relaxed store, without the lock,
  /// reading nothing (not even the service: it is static); the walk re-files
  /// the entry lazily. See the ground rules at the top of this file for a
  /// store that races the walk.
  static void extend_to(implementation_type& impl, const time_point& t) noexcept
  {
    impl.extend_to(t);
  }

  /// Sets the timer's own tolerance, which replaces the context's
  /// (wheel_options::tolerance): its waits may complete up to @p d late,
  /// rounded down to whole ticks. Pending waits keep their place if it is
  /// still within the new window, else move earlier (or complete, if due).
  /// @throws std::invalid_argument if @p d is negative.
  void tolerance(implementation_type& impl, const duration& d);

  /// How late the timer's waits may complete: its own tolerance, or the
  /// context's fraction of the length of its current expiry; whole ticks.
  duration tolerance(const implementation_type& impl) const;

  /// The tolerance of a per-operation timeout: @p slack if it is the
  /// operation's own (timer_slack::own()), else the context's fraction of
  /// the timeout's length, @p length(), which is called (it may read the
  /// clock) only when the context has a tolerance.
  template <typename Length>
  detail::timer_slack slack_for(
      detail::timer_slack slack, Length&& length) const;

  /// The ticks of a tolerance given in time. For per-operation timeouts.
  detail::tick_type slack_of(const duration& tolerance) const noexcept;

  /// Blocks until the expiry has passed, as basic_waitable_timer::wait.
  void wait(implementation_type& impl, error_code& ec);

  /// Starts an asynchronous wait for the timer's current expiry.
  template <typename Handler, typename IoExecutor>
  void async_wait(
      implementation_type& impl, Handler& handler, const IoExecutor& io_ex);

  /// Per-operation timeouts (asio_wheel::cancel_after, the Beast stream): a
  /// timeout is an implementation_type with one wait whose operation the
  /// caller owns. arm_timeout files it for @p expiry; if that is reached,
  /// @p op completes with success like any wait (through the slices);
  /// withdraw_timeout takes it back without completing it. @p slack: how
  /// late it may fire (slack_for, slack_of). If @p op is a
  /// detail::hooked_wait_op, its hook runs when the timeout is decided.
  void arm_timeout(implementation_type& entry, detail::wait_op_base* op,
      const time_point& expiry, detail::timer_slack slack = {});

  /// Takes back the timeout @p op armed on @p entry, without completing it:
  /// O(1), no completion, no allocation. The entry is unlinked, or, with
  /// KeepEntry, may stay in the wheel as a ghost (retire), which the next
  /// arm_timeout on it reuses without a list operation: for an entry that
  /// lives on and times one operation after another (the Beast stream's),
  /// whose owner then calls destroy(entry) before it goes away. (A template
  /// parameter, so that cancel_after's withdraw has no branch to inline.)
  /// Returns false if the timeout has already been decided (it fired, or
  /// was abandoned at shutdown): then @p op completes or is destroyed as
  /// usual.
  template <bool KeepEntry = false>
  bool withdraw_timeout(implementation_type& entry, detail::wait_op_base* op);

  /// @}

private:
  using lock_type = detail::wheel_mutex::scoped_lock;
  using time_traits = detail::chrono_time_traits<Clock, WaitTraits>;
  using tick_type = detail::tick_type;
  using slice_request = detail::completion_slices::slice_request;
  using slice_plan = detail::completion_slices::slice_plan;

  wheel_timer_service(asio::execution_context& context,
      const wheel_options& options, detail::scheduler& scheduler)
    : detail::execution_context_service_base<wheel_timer_service>(context),
      options_(options), grid_(options.tick, Clock::now()),
      wheel_(options.slots), scheduler_(scheduler),
      threading_(detail::threading_of(context)), mutex_(threading_.locking),
      drive_(context, scheduler, grid_, &wheel_timer_service::on_drive, this),
      slices_(scheduler, threading_.one_thread, &wheel_timer_service::on_slice,
          this)
  {}

# if defined(ASIO_WHEEL_ASIO_HAS_CANCELLATION_SLOT)
  // Installed in a handler's cancellation slot: aborts that one wait.
  class op_cancellation
  {
  public:
    op_cancellation(wheel_timer_service* s, detail::wait_op_base* op)
      : service_(s), op_(op)
    {}

    void operator()(asio::cancellation_type_t type)
    {
      if (!!(type
              & (asio::cancellation_type::terminal
                  | asio::cancellation_type::partial
                  | asio::cancellation_type::total)))
        service_->cancel_wait(op_);
    }

  private:
    wheel_timer_service* service_;
    detail::wait_op_base* op_;
  };
# endif

  template <typename Handler, typename IoExecutor>
  void start_wait(
      implementation_type& impl, Handler& handler, const IoExecutor& io_ex);

  // After shutdown, as Asio's reactor does: hands the operation to the
  // scheduler, which destroys it without running it. Lock not held.
  void abandon(detail::wait_op_base* op);

  // Queues op on impl's FIFO and files impl in the wheel, or decides op at
  // once if impl's expiry is due. Counts the wait as outstanding work of the
  // scheduler until its handler has run. Lock held.
  void enqueue_wait(implementation_type& impl, detail::wait_op_base* op,
      slice_request& request);

  std::size_t cancel_and_set_expiry(
      implementation_type& impl, std::size_t max_aborted);

  // Aborts the pending waits, then sets the expiry to t, set at `now`.
  std::size_t cancel_and_set_expiry(implementation_type& impl,
      std::size_t max_aborted, const time_point& t, const time_point& now);

  // The clock, where the context's tolerance needs the length of a wait
  // whose expiry is being set; else nothing is read (time_point()).
  time_point now_if_tolerant(const implementation_type& impl) const;

  // impl's expiry was set to t at `now`: under the context's tolerance, its
  // waits may be late by a fraction of t - now. Returns true if that is less
  // than before. Lock held.
  bool set_context_slack(
      implementation_type& impl, const time_point& t, const time_point& now);

  // The ticks a wait of `length` may be late by under the context's
  // tolerance (0 without one).
  tick_type context_slack(const duration& length) const noexcept;

  // The tick where a wait due at tick `precise` on impl completes.
  static tick_type tolerant(tick_type precise, const implementation_type& impl);

  duration tick_duration() const noexcept;

  // reschedule_at: the pending waits get expiry t, set at `now`.
  std::size_t move_expiry(
      implementation_type& impl, const time_point& t, const time_point& now);

  // impl's pending waits may now be due earlier than it is filed: completes
  // them if due, else moves the entry earlier if it must. Lock held.
  void refile_pending(implementation_type& impl, slice_request& request);

  // Aborts up to max_aborted of impl's oldest waits. Lock held.
  std::size_t abort_waits(implementation_type& impl, slice_request& request,
      std::size_t max_aborted);

  // Aborts all of impl's waits and unlinks its entry, ghost included: the
  // implementation is going away or taking over another's. Lock held.
  void drop(implementation_type& impl, slice_request& request);

  // Moves impl's entry, in the wheel, to the earlier tick `due`. Lock held.
  void refile_earlier(implementation_type& impl, tick_type due);

  // Per-operation cancellation: aborts one wait if it is still pending.
  void cancel_wait(detail::wait_op_base* target);

  // The last wait of impl was aborted. The entry stays in the wheel as a
  // ghost when it is filed after the tick the drive timer is armed for: the
  // usual next step is a new wait further out (expires_after + async_wait
  // on every message), which then reuses the entry without touching any
  // list, and a ghost that is not reused costs one visit when its slot
  // comes round. An entry at or before the armed tick is unlinked now, so
  // that the drive timer is never armed for a ghost it could skip.
  // Lock held.
  void retire(implementation_type& impl);

  // impl takes over other's expiry, waits and place in the wheel. Lock held.
  void take_over(implementation_type& impl, implementation_type& other);

  // Completes all of impl's waits (there is at least one) with success,
  // handing each to `sink`. Lock held; impl has already left the wheel.
  template <typename Sink>
  void expire(implementation_type& impl, const time_point& now, Sink&& sink);

  // With no pending wait left, the drive timer must not keep run() from
  // returning (it is parked, see drive_timer.hpp). Lock held.
  void disarm_if_idle();

  // The drive timer fired (or its cancellation completed). Lock not held.
  static void on_drive(void* owner, const error_code& ec, unsigned which);

  // Advances the wheel to tick `to`, or continues the advance in progress,
  // visiting at most one slice's worth of entries; expired waits go to the
  // slices. Once the advance is complete, arms the drive timer for the next
  // due tick. `now` is the clock's time at `to` or later. Lock held.
  void advance_wheel(tick_type to, const time_point& now);

  // A clock that is not steady can step back. The wheel then holds ticks
  // it has processed that lie ahead of the clock: a new wait due there is
  // due by the wheel's count, not by the clock's. So where a wait looks due
  // (`expiry` at or before horizon()), a clock that is not steady is read
  // to confirm it; if now < expiry, the wheel is rewound to now's tick and
  // the wait is filed. Pending entries keep their ticks: they complete when
  // the clock gets back to them, as Asio's timers do. A steady clock reads
  // nothing here. Lock held.
  bool rewound_for(const time_point& expiry);

  // Moves the wheel back to now's tick. The caller arms the drive timer:
  // advance_wheel once its advance is done, rewound_for at once.
  void rewind(tick_type now_tick);

  // Arms the drive timer for the next due tick, and its other timer, if
  // idle, for the one after (see drive_timer.hpp). Ghosts alone must not
  // keep the drive timer (and so run()) going, nor must the timer armed
  // ahead once the last wait has expired: it is parked. Lock held; no
  // advance in progress.
  void arm_for_next_due();

  // The slice operation runs. Lock not held.
  static void on_slice(void* owner);

  // Takes the next slice (see detail/completion_slices.hpp) into batch,
  // continuing a bounded advance of the wheel to find its expired waits.
  // Called in the drive or the slice operation, in the critical section
  // that began it; lock held.
  slice_plan take_slice(detail::wait_op_queue& batch);

  // Calls the handlers of a batch take_slice took, posting the slice
  // operation before or after as its plan says. Lock not held.
  void run_slice(detail::wait_op_queue& batch, const slice_plan& plan);

  // After a one-thread slice that left waits queued, or a handler that
  // threw: puts back the waits the batch did not reach, and posts the slice
  // operation if waits remain. Lock not held.
  void resume_slices(detail::wait_op_queue& rest);

  void shutdown() override;

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

# include <asio_wheel/impl/wheel_timer_service.hpp>

#endif  // !defined(ASIO_WHEEL_ASIO_UNUSABLE)

#endif  // ASIO_WHEEL_WHEEL_TIMER_SERVICE_HPP
