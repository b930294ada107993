//
// asio_wheel/wheel_timer_service.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The execution_context service that keeps the pending waits of all
// basic_wheel_timer objects of one context (and one Clock) in a single
// hierarchical timing wheel, which is one of the timer queues of the
// context's reactor, as Asio's own timer queue is. See doc/design.md for the
// algorithm, its precision and its costs.
//
// Users meet this class only to configure it (make_wheel_service with
// wheel_options) and to read options() and stats(); the rest is the
// implementation interface basic_wheel_timer calls, in the style of Asio's
// detail::deadline_timer_service. This file declares it; the definitions
// are in impl/wheel_timer_service.hpp. Its parts:
//   detail/timing_wheel.hpp    the wheel over integer ticks
//   detail/tick_grid.hpp       time points <-> ticks, and tolerances
//   detail/wait_op.hpp         a wait's operation, and a timer's FIFO of them
//   detail/asio_scheduler.hpp  the scheduler, and the wheel as a timer queue
//                              of the reactor
//
// Ground rules.
//
// A wait (one async_wait, or one per-operation timeout) is a
// detail::wait_op_base, in exactly one of these states:
//   pending   queued on its timer's FIFO (op->timer is the timer), the
//             timer's entry filed in the wheel: in a slot at or before its
//             due tick, or among the entries due already (its expiry had
//             been reached when it was filed). It counts one unit of the
//             scheduler's outstanding work, and cancel() finds it.
//   expired   due when the reactor last asked for the due waits
//             (get_ready_timers): every wait due then is decided then, as
//             Asio decides its own. The wheel visits at most
//             max_completions_per_slice entries a turn, so a wait may be
//             expired while still on its timer's FIFO, in a pass that has
//             not reached it yet (logically_decided); whatever touches that
//             timer first completes its waits (expire_if_decided). Once
//             visited it is off its timer (op->timer is null), its result
//             success, in ready_, and each turn of the reactor hands at most
//             max_completions_per_slice of them to the scheduler, one
//             operation each.
//   aborted   cancel(), cancel_one(), expires_*, the destructor, a move or
//             per-operation cancellation took it off its timer with
//             operation_aborted, and posted it to the scheduler at once, as
//             Asio's cancel does.
//   withdrawn a per-operation timeout whose operation completed first: off
//             its timer, it never completes; its unit of work is given back.
//   abandoned after shutdown: handed to the scheduler, which destroys it
//             without calling its handler, as Asio does with its timers.
// A wait leaves the pending state once, and a decided one (expired,
// aborted, withdrawn, abandoned) is never decided again: op->timer is what
// says which. Its owner's hook (a hooked_wait_op's) runs when it leaves.
//
// The lock (mutex_: Asio's own mutex, off when the context's scheduler does
// not lock, as under the concurrency hint UNSAFE) guards the wheel, ready_,
// stats_, reported_, and the expiry, slack and FIFO of every timer with a
// pending wait (the reactor's thread reads them). The reactor calls in with
// its own lock held and takes this one inside it; the service never calls
// the reactor or the scheduler with this one held, and no handler,
// allocator or executor of the user runs under it: aborted waits are
// collected and posted once it is released, and operations are allocated
// before it is taken. (A timer object itself is no more thread-safe than
// Asio's.)
//
// One field of a timer is not guarded: its extension (extend_at), a
// std::atomic that the timer's owner stores with a relaxed store and no
// lock. The service only reads it, under the lock; it is written under the
// lock only by the owner's own calls (expires_*, reschedule_* clear it, a
// move carries it). Its effective expiry, the later of expiry and
// extension, is what every decision reads. A store that races the reactor's
// walk is read by the walk or not: if not, the walk decides the timer's
// waits by the effective expiry it read, and if that has passed, they
// complete with success (as with Asio's timer when expires_after comes after
// the wait expired); if it is read, the entry is re-filed for it. Either way
// no wait is decided before the effective expiry the walk read.
//
// Invariants, whenever the lock is free:
//   - a timer with a pending wait has an entry in the wheel, filed at or
//     before its due tick (its effective expiry rounded up to a tick, later
//     by its tolerance if it has one), earlier after a lazy move (reschedule
//     later, an extension) or the reuse of a ghost, which the walk corrects
//     when it reaches the slot. A timer without one may keep its entry as a
//     ghost (retire), filed after the reactor's deadline. The one exception: extend_at reads
//     nothing, so an extension stored earlier than one the walk has already
//     re-filed the entry for (the last call wins) leaves it filed for that
//     later one, never beyond the latest effective expiry the walk read;
//   - no wait is decided expired before its expiry;
//   - the reactor's deadline is at or before the wheel's earliest due tick
//     (now, while ready_ or the due entries are not empty): reported_ is
//     the deadline the reactor was last given, and whatever files an
//     earlier one pokes the reactor once the lock is released;
//   - stats_.pending_waits and timers_in_wheel count the waits on their
//     timers' FIFOs (expired ones a pass has not reached included) and the
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
# include <asio_wheel/detail/tick_grid.hpp>
# include <asio_wheel/detail/timing_wheel.hpp>
# include <asio_wheel/detail/wait_op.hpp>
# include <asio_wheel/wheel_options.hpp>

# include <atomic>
# include <chrono>
# include <cstdint>
# include <limits>

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
/// The extension (basic_wheel_timer::extend_at) is a second time, stored by
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
  void extend_at(const TimePoint& t) noexcept
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
 * or beforehand with explicit options by make_wheel_service
 * (asio_wheel/make_wheel_service.hpp), which calls Asio's make_service for
 * the timer type's service (wheel_timer's by default):
 * @code
 * asio_wheel::wheel_options opts;
 * opts.tick = std::chrono::milliseconds(10);
 * asio_wheel::make_wheel_service(io, opts);
 * @endcode
 *
 * The wheel is one of the timer queues of the context's reactor, as Asio's
 * own timer queue is: each expired wait's handler is one operation of the
 * scheduler, so run(), run_one(), poll(), stop() and their counts behave as
 * with steady_timer.
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
  /// tolerance, the FIFO of pending waits and the intrusive wheel entry,
  /// which is in the wheel while the FIFO is not empty. The expiry and the
  /// FIFO come first so that a reschedule, which touches only them, usually
  /// touches one cache line of the timer.
  struct implementation_type : detail::timer_expiry<time_point>,
                               detail::timer_waits,
                               detail::wheel_entry
  {};

  /// Creates the service with default wheel_options (use_service).
  explicit wheel_timer_service(asio::execution_context& context)
    : wheel_timer_service(context, wheel_options())
  {}

  /// Creates the service with @p options (make_service, which
  /// make_wheel_service calls).
  /// @throws std::invalid_argument naming the invalid field.
  wheel_timer_service(
      asio::execution_context& context, const wheel_options& options);

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
  /// how many waits moved. Later: a store, the entry is re-filed lazily. A
  /// time already reached completes them at the next turn of the loop.
  std::size_t reschedule_at(implementation_type& impl, const time_point& t);

  /// The same, with the clock read at @p now (reschedule_after).
  std::size_t reschedule_at(
      implementation_type& impl, const time_point& t, const time_point& now);

  /// Sets the timer's extension to @p t: its waits complete no earlier than
  /// the later of its expiry and @p t. One relaxed store, without the lock,
  /// reading nothing (not even the service: it is static); the walk re-files
  /// the entry lazily. See the ground rules at the top of this file for a
  /// store that races the walk.
  static void extend_at(implementation_type& impl, const time_point& t) noexcept
  {
    impl.extend_at(t);
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
  /// @p op completes with success like any wait; withdraw_timeout takes it
  /// back without completing it. @p slack: how late it may fire (slack_for,
  /// slack_of). If @p op is a detail::hooked_wait_op, its hook runs when the
  /// timeout leaves the pending state (expired, or abandoned at shutdown).
  void arm_timeout(implementation_type& entry, detail::wait_op_base* op,
      const time_point& expiry, detail::timer_slack slack = {});

  /// Takes back the timeout @p op armed on @p entry, without completing it:
  /// O(1), no completion, no allocation; the entry leaves the wheel. Returns
  /// false if the timeout has already been decided (it expired, or was
  /// abandoned at shutdown): then @p op completes or is destroyed as usual.
  bool withdraw_timeout(implementation_type& entry, detail::wait_op_base* op);

  /// @}

private:
  friend detail::wheel_reactor_queue<wheel_timer_service>;

  using lock_type = detail::service_mutex::scoped_lock;
  using time_traits = detail::chrono_time_traits<Clock, WaitTraits>;
  using tick_type = detail::tick_type;
  using aborted_waits = detail::op_queue<detail::scheduler_operation>;

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

  // ---- The entry points' shared steps (impl/wheel_timer_service.hpp) ----

  template <typename Handler, typename IoExecutor>
  void start_wait(
      implementation_type& impl, Handler& handler, const IoExecutor& io_ex);

  // Files op on impl (lock not held), or abandons it after shutdown.
  void file_or_abandon(implementation_type& impl, detail::wait_op_base* op);

  // Aborts up to max_aborted of impl's oldest waits, then, if `set`, sets
  // the expiry to t, set at *now (for the context's tolerance; a reading of
  // the clock if now_is_reading). Posts the aborted waits once the lock is
  // released.
  std::size_t abort_and_set(implementation_type& impl, std::size_t max_aborted,
      bool set, const time_point& t, const time_point* now,
      bool now_is_reading = false);

  // Per-operation cancellation: aborts one wait if it is still pending.
  void cancel_wait(detail::wait_op_base* target);

  // Posts aborted waits (lock not held), as Asio's cancel does.
  void post_aborted(aborted_waits& aborted);

  // ---- Primitives, lock held ----

  // Queues op on impl's FIFO and, for impl's first wait, files impl. Counts
  // the wait as outstanding work. Returns true if the reactor must be poked.
  bool queue_wait(implementation_type& impl, detail::wait_op_base* op);

  // Files impl, which has pending waits and is not in the wheel, for its
  // effective expiry: among the due entries if that has been reached, else
  // at its due tick. Returns true if the reactor must be poked.
  bool file(implementation_type& impl);

  // impl's pending waits may be due earlier than it is filed (its expiry
  // moved earlier, or its tolerance shrank): files it again if they are.
  // Returns true if the reactor must be poked.
  bool refile_if_earlier(implementation_type& impl);

  // Aborts up to max_aborted of impl's oldest waits into `aborted`; impl
  // leaves the wheel if none is left. Returns how many.
  std::size_t abort_waits(implementation_type& impl, aborted_waits& aborted,
      std::size_t max_aborted);

  // Whether impl's waits are expired already: due by the reactor's last
  // wakeup (decided_tick_), in a pass of the wheel that has not visited
  // them yet. Every wait due at a wakeup is decided then, as Asio decides
  // its own; the wheel visits a budget of entries a turn.
  bool logically_decided(const implementation_type& impl) const;

  // If impl's waits are logically decided, completes them with success now
  // (its entry leaves the wheel) and returns true.
  bool expire_if_decided(implementation_type& impl);

  // impl's last wait went (aborted, withdrawn): its entry stays in the wheel
  // as a ghost when it is filed after the reactor's deadline, for the usual
  // next step, a new wait further out (expires_after + async_wait on every
  // message), which reuses it without touching any list; the walk drops a
  // ghost nobody reuses. Others leave the wheel, so that the reactor is
  // never woken for a ghost only.
  void retire(implementation_type& impl);

  // Aborts all of impl's waits and takes its entry out of the wheel, a
  // ghost's too: impl is going away or taking over another's.
  void drop(implementation_type& impl, aborted_waits& aborted);

  // impl takes over other's expiry, waits and place in the wheel.
  void take_over(implementation_type& impl, implementation_type& other);

  // Whether the due tick @p due is earlier than the reactor's deadline;
  // if so, that deadline becomes @p due (the caller pokes).
  bool earlier_than_reported(tick_type due) noexcept;

  // Whether the clock has reached @p expiry, impl's, due at tick @p precise;
  // read only where it may have (see the definition). A clock that is not steady can step back behind
  // the ticks the wheel has processed: then the wheel is rewound to now's
  // tick, and the wait is not due.
  bool reached(const implementation_type& impl, const time_point& expiry,
      tick_type precise);

  // Takes @p now, a reading of the clock, for last_reading_.
  void record_reading(const time_point& now) const noexcept;

  // Moves the wheel back to tick @p to, behind the ticks it has processed,
  // for a clock that is not steady and stepped back: a wait can then be
  // filed at a tick the wheel had passed.
  void rewind(tick_type to);

  // The context's tolerance for impl, whose expiry was set to t at `now`.
  // Returns true if that is less than before.
  bool set_context_slack(
      implementation_type& impl, const time_point& t, const time_point& now);

  // The clock, where the context's tolerance needs the length of a wait
  // whose expiry is being set; else nothing is read (time_point()).
  time_point now_if_tolerant(const implementation_type& impl) const;

  // The ticks a wait of `length` may be late by under the context's
  // tolerance (0 without one).
  tick_type context_slack(const duration& length) const noexcept;

  // The tick where a wait due at tick `precise` on impl completes.
  static tick_type tolerant_tick(
      tick_type precise, const implementation_type& impl);

  // Completes all of impl's waits (there is at least one) with success, in
  // ready_. Lock held; impl has already left the wheel.
  void expire(implementation_type& impl, const time_point& now);

  // Takes every pending and ready wait out of the service into `ops`,
  // decided: shutdown, and the reactor's at its own shutdown.
  void take_all(detail::op_queue<detail::scheduler_operation>& ops);

  // ---- The reactor's side: called with the reactor's lock held ----

  // No pending and no ready wait.
  bool reactor_empty() const;

  // How long the reactor may sleep, at most max_duration, in units of
  // 1 / per_second s, rounded as Asio's timer queue rounds it.
  long reactor_wait_duration(long max_duration, long per_second) const;

  // The reactor woke: decides every wait that is due, and hands at most
  // max_completions_per_slice ready waits to `ops`.
  void reactor_ready(detail::op_queue<detail::scheduler_operation>& ops);

  // The reactor shuts down: every wait, to be destroyed.
  void reactor_all(detail::op_queue<detail::scheduler_operation>& ops);

  void shutdown() override;

  const wheel_options options_;
  const bool context_tolerant_ = options_.tolerance != 0.0;
  const detail::tick_grid<Clock> grid_;  // tick 0 is the service's creation
  detail::timing_wheel wheel_;
  detail::wait_op_queue ready_;  // expired, not yet handed to the reactor

  // The reactor's deadline as the wheel last gave it: a tick, or one of
  // these two.
  static constexpr tick_type now_tick = (std::numeric_limits<tick_type>::min)();
  static constexpr tick_type no_deadline = detail::never_tick;
  mutable tick_type reported_ = no_deadline;

  // The tick of the reactor's last look at the wheel: while a pass of the
  // wheel is under way (timing_wheel::advancing), every wait due by it is
  // decided, visited or not. And the count of expired waits when the pass
  // began, for the empty wakeups.
  tick_type decided_tick_ = (std::numeric_limits<tick_type>::min)();
  std::uint64_t expired_at_wakeup_ = 0;

  // The service's last reading of the clock, or its caller's (expires_at,
  // expires_after, reschedule_after): a time the clock has reached. An
  // expiry up to reach_window_ after it may have been reached too.
  mutable time_point last_reading_ = grid_.time_of(0);
  const duration reach_window_ = 2 * (grid_.time_of(1) - grid_.time_of(0));

  detail::scheduler& scheduler_;
  mutable detail::service_mutex mutex_;
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
  wheel_stats stats_;

  // Last: the reactor may call the service as soon as it is registered.
  detail::reactor_link<wheel_timer_service> reactor_;
};

ASIO_WHEEL_NAMESPACE_END

# include <asio_wheel/impl/wheel_timer_service.hpp>

#endif  // !defined(ASIO_WHEEL_ASIO_UNUSABLE)

#endif  // ASIO_WHEEL_WHEEL_TIMER_SERVICE_HPP
