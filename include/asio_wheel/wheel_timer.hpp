//
// asio_wheel/wheel_timer.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// basic_wheel_timer: a drop-in replacement for asio::basic_waitable_timer
// whose pending waits live in a hierarchical timing wheel shared by all
// timers of the execution context (wheel_timer_service), plus extend_at /
// extend_after, the idle-timeout refresh that is one store, and
// reschedule_at / reschedule_after, which move the expiry either way.
//

#ifndef ASIO_WHEEL_WHEEL_TIMER_HPP
#define ASIO_WHEEL_WHEEL_TIMER_HPP

#include <asio_wheel/detail/config.hpp>

// Without an Asio it can use, config.hpp's one line is all (see there).
#if !defined(ASIO_WHEEL_ASIO_UNUSABLE)

# include <asio_wheel/detail/asio_forward.hpp>
# include <asio_wheel/detail/asio_operation.hpp>
# include <asio_wheel/detail/prefetch.hpp>
# include <asio_wheel/wheel_timer_service.hpp>

# include <chrono>
# include <cstddef>
# include <type_traits>
# include <utility>

ASIO_WHEEL_NAMESPACE_BEGIN

/// A waitable timer whose waits are kept in a hierarchical timing wheel.
/**
 * Same members and semantics as asio::basic_waitable_timer: change
 * the type name and everything else compiles and behaves the same. A wait
 * completes with success at the first wheel tick at or after the expiry:
 * never early, at most one tick (wheel_options::tick, 1 ms by default) late
 * plus the event loop's own latency.
 *
 * The additions move the expiry of the pending waits without cancelling
 * them. extend_at() / extend_after() push it later with one store, which
 * reads nothing of the timer and takes no lock: refreshing an idle timeout
 * on every received message costs what the expert's steady_timer idiom
 * (store the time of the last input, check it when the timer fires) costs,
 * without its code:
 * @code
 * asio_wheel::wheel_timer idle(io, std::chrono::seconds(30));
 * idle.async_wait([&](boost::system::error_code ec) {
 *   if (!ec) socket.close(); // 30 s without input
 * });
 * // on every message:
 * idle.extend_after(std::chrono::seconds(30));
 * @endcode
 * reschedule_at() / reschedule_after() move it either way and return how
 * many waits they moved; they take the service's lock and read the timer.
 *
 * @par Thread Safety
 * Distinct objects: Safe. Shared objects: Unsafe.
 */
template <typename Clock, typename WaitTraits = asio::wait_traits<Clock>,
    typename Executor = asio::any_io_executor>
class basic_wheel_timer
{
private:
  class initiate_async_wait;
  using time_traits = detail::chrono_time_traits<Clock, WaitTraits>;

public:
  /// The type of the executor associated with the object.
  using executor_type = Executor;

  /// Rebinds the timer type to another executor (used by as_default_on).
  template <typename Executor1>
  struct rebind_executor
  {
    /// The timer type when rebound to the specified executor.
    using other = basic_wheel_timer<Clock, WaitTraits, Executor1>;
  };

  /// The clock type.
  using clock_type = Clock;
  /// The duration type of the clock.
  using duration = typename clock_type::duration;
  /// The time point type of the clock.
  using time_point = typename clock_type::time_point;
  /// The wait traits type.
  using traits_type = WaitTraits;
  /// The service that keeps this timer's waits.
  using service_type = wheel_timer_service<Clock, WaitTraits>;

  /// Constructs a timer without an expiry (set one before waiting).
  /// @param ex The I/O executor used, by default, to dispatch handlers.
  explicit basic_wheel_timer(const executor_type& ex)
    : impl_(detail::make_io_object_impl<impl_type>(ex))
  {}

  /// Constructs a timer without an expiry, using the context's executor.
  template <typename ExecutionContext>
  explicit basic_wheel_timer(ExecutionContext& context,
      std::enable_if_t<std::is_convertible<ExecutionContext&,
                           asio::execution_context&>::value,
          int> = 0)
    : impl_(detail::make_io_object_impl_in<impl_type>(context))
  {}

  /// Constructs a timer that expires at the absolute time @p expiry_time.
  basic_wheel_timer(const executor_type& ex, const time_point& expiry_time)
    : impl_(detail::make_io_object_impl<impl_type>(ex))
  {
    expires_at(expiry_time);
  }

  /// Constructs a timer that expires at the absolute time @p expiry_time.
  template <typename ExecutionContext>
  explicit basic_wheel_timer(ExecutionContext& context,
      const time_point& expiry_time,
      std::enable_if_t<std::is_convertible<ExecutionContext&,
                           asio::execution_context&>::value,
          int> = 0)
    : impl_(detail::make_io_object_impl_in<impl_type>(context))
  {
    expires_at(expiry_time);
  }

  /// Constructs a timer that expires @p expiry_time from now.
  basic_wheel_timer(const executor_type& ex, const duration& expiry_time)
    : impl_(detail::make_io_object_impl<impl_type>(ex))
  {
    expires_after(expiry_time);
  }

  /// Constructs a timer that expires @p expiry_time from now.
  template <typename ExecutionContext>
  explicit basic_wheel_timer(ExecutionContext& context,
      const duration& expiry_time,
      std::enable_if_t<std::is_convertible<ExecutionContext&,
                           asio::execution_context&>::value,
          int> = 0)
    : impl_(detail::make_io_object_impl_in<impl_type>(context))
  {
    expires_after(expiry_time);
  }

  /// Moves a timer: its expiry and pending waits go with it. The moved-from
  /// object is as if constructed from its executor.
  basic_wheel_timer(basic_wheel_timer&& other) : impl_(std::move(other.impl_))
  {}

  /// Move-assigns a timer: this object's own pending waits are cancelled
  /// first (operation_aborted), then it takes over @p other's expiry and
  /// pending waits.
  basic_wheel_timer& operator=(basic_wheel_timer&& other)
  {
    impl_ = std::move(other.impl_);
    return *this;
  }

  template <typename Clock1, typename WaitTraits1, typename Executor1>
  friend class basic_wheel_timer;

  /// Moves a timer that uses another executor type.
  template <typename Executor1>
  basic_wheel_timer(basic_wheel_timer<Clock, WaitTraits, Executor1>&& other,
      std::enable_if_t<std::is_convertible<Executor1, Executor>::value, int> =
          0)
    : impl_(std::move(other.impl_))
  {}

  /// Move-assigns a timer that uses another executor type.
  template <typename Executor1>
  std::enable_if_t<std::is_convertible<Executor1, Executor>::value,
      basic_wheel_timer&>
  operator=(basic_wheel_timer<Clock, WaitTraits, Executor1>&& other)
  {
    basic_wheel_timer tmp(std::move(other));
    impl_ = std::move(tmp.impl_);
    return *this;
  }

  /// Destroys the timer; pending waits complete with operation_aborted.
  ~basic_wheel_timer() = default;

  basic_wheel_timer(const basic_wheel_timer&) = delete;
  basic_wheel_timer& operator=(const basic_wheel_timer&) = delete;

  /// The executor associated with the object (returned as the Asio being
  /// compiled against returns it: a copy before Asio 1.24).
  detail::returned_executor_t<executor_type> get_executor() noexcept
  {
    return impl_.get_executor();
  }

  /// Aborts all pending waits (each completes with operation_aborted).
  /// @returns The number of waits aborted. A wait that has already expired
  /// but whose handler has not run yet is not counted and still sees success.
  std::size_t cancel() { return service().cancel(impl()); }

  /// Aborts the oldest pending wait; returns 0 or 1.
  std::size_t cancel_one() { return service().cancel_one(impl()); }

  /// The timer's expiry as an absolute time: the later of the expiry set
  /// and the extension (extend_at).
  time_point expiry() const
  {
    return impl_.get_service().expiry(impl_.get_implementation());
  }

  /// Sets the expiry; aborts all pending waits first (operation_aborted).
  /// Does not start a new wait.
  /// @returns The number of waits aborted.
  std::size_t expires_at(const time_point& expiry_time)
  {
    prefetch_object();
    // The clock first: it must not wait for the timer's lines to arrive. It
    // tells the service whether expiry_time has been reached.
    const time_point now = time_traits::now();
    return service().expires_at(impl(), expiry_time, now);
  }

  /// Sets the expiry relative to now; aborts all pending waits first.
  /// @returns The number of waits aborted.
  std::size_t expires_after(const duration& expiry_time)
  {
    prefetch_object();
    // The clock first: it must not wait for the timer's lines to arrive.
    const time_point now = time_traits::now();
    return service().expires_at(
        impl(), time_traits::add(now, expiry_time), now);
  }

  /// Moves the expiry of the pending waits to @p expiry_time without
  /// aborting them: they complete with success at the new expiry. Moving it
  /// later costs a store (the wheel re-files the entry lazily when its old
  /// slot comes round); earlier re-files it at once; into the past completes
  /// the waits soon. With no pending wait, only sets the expiry.
  /// @returns The number of waits moved.
  std::size_t reschedule_at(const time_point& expiry_time)
  {
    prefetch_object();
    return service().reschedule_at(impl(), expiry_time);
  }

  /// reschedule_at(now + @p expiry_time).
  /// @returns The number of waits moved.
  std::size_t reschedule_after(const duration& expiry_time)
  {
    prefetch_object();
    // The clock first: it must not wait for the timer's lines to arrive.
    const time_point now = time_traits::now();
    return service().reschedule_at(
        impl(), time_traits::add(now, expiry_time), now);
  }

  /// Extends the expiry to @p expiry_time: the timer's waits, pending and
  /// future, complete with success no earlier than the later of its expiry
  /// and @p expiry_time, and at most one tick (plus the timer's tolerance)
  /// after it. expiry() returns that later time.
  /**
   * The idle-timeout refresh at the cost of a store: one relaxed atomic
   * store into the timer, no lock, no read of the timer, nothing returned.
   * The wheel re-files the pending wait lazily, when its slot comes round.
   * A @p expiry_time at or before the expiry (as set by expires_* or
   * reschedule_*) changes nothing; those members clear the extension. A
   * move carries it; the tolerance stays what the expiry set.
   *
   * The last call wins: extend_at(t0) after extend_at(t1), t0 < t1, leaves
   * t0. extend_after() with the same duration on a steady clock only ever
   * moves later, which is the use it is made for. A call that moves the
   * extension earlier cannot re-file the wait (it reads nothing): the wait
   * still completes no earlier than expiry(), but may complete as late as
   * one tick past the latest extension the wheel saw. To move a wait
   * earlier, use reschedule_at().
   *
   * Thread safety is the object's, as for every member; the wheel's walk,
   * which may run on another thread, reads the extension under the
   * service's lock. If the walk finds the wait due before the store
   * reaches it, the wait completes with success, as Asio's timer does when
   * expires_after() comes after the wait expired.
   */
  void extend_at(const time_point& expiry_time) noexcept
  {
    service_type::extend_at(impl(), expiry_time);
  }

  /// extend_at(now + @p expiry_time): the idle-timeout refresh, a clock
  /// read and a store.
  void extend_after(const duration& expiry_time)
  {
    service_type::extend_at(
        impl(), time_traits::add(time_traits::now(), expiry_time));
  }

  /// Sets how late this timer's waits may complete: up to @p tolerance
  /// after their expiry (rounded down to whole ticks of the wheel), never
  /// before. It replaces the context's fraction (wheel_options::tolerance)
  /// for this timer, and holds until set again; zero makes the timer
  /// precise in a tolerant context. Waits whose windows overlap then share
  /// a wakeup (see doc/timeouts.md, "Tolerance"). A pending wait stays
  /// pending; it moves earlier if its place is beyond the new window.
  /// @throws std::invalid_argument if @p tolerance is negative.
  void tolerance(const duration& tolerance)
  {
    service().tolerance(impl(), tolerance);
  }

  /// A number, not a duration: a compile error that says so (a fraction of
  /// each wait's length is the context's setting, wheel_options::tolerance).
  template <typename Fraction,
      typename = std::enable_if_t<std::is_arithmetic<Fraction>::value>>
  void tolerance(Fraction)
  {
    static_assert(!std::is_arithmetic<Fraction>::value,
        "basic_wheel_timer::tolerance takes a duration, how late this "
        "timer's waits may complete (tolerance(std::chrono::seconds(4))): a "
        "fraction of each wait's length is wheel_options::tolerance");
  }

  /// How late this timer's waits may complete: its own tolerance, or under
  /// the context's fraction, that fraction of the length its current expiry
  /// had when set; in whole ticks. Zero: precise.
  duration tolerance() const
  {
    return impl_.get_service().tolerance(impl_.get_implementation());
  }

# if defined(ASIO_WHEEL_HAS_DEPRECATED_TIMER_MEMBERS)
  /// (Deprecated: use non-error_code overload.) Aborts all pending waits.
  std::size_t cancel(error_code& ec)
  {
    ec = error_code();
    return cancel();
  }

  /// (Deprecated: use non-error_code overload.) Aborts the oldest wait.
  std::size_t cancel_one(error_code& ec)
  {
    ec = error_code();
    return cancel_one();
  }

  /// (Deprecated: use expiry().) The timer's expiry.
  time_point expires_at() const { return expiry(); }

  /// (Deprecated: use non-error_code overload.) Sets the expiry.
  std::size_t expires_at(const time_point& expiry_time, error_code& ec)
  {
    ec = error_code();
    return expires_at(expiry_time);
  }

  /// (Deprecated: use expiry().) The expiry relative to now.
  duration expires_from_now() const
  {
    return time_traits::subtract(expiry(), time_traits::now());
  }

  /// (Deprecated: use expires_after().) Sets the expiry relative to now.
  std::size_t expires_from_now(const duration& expiry_time)
  {
    return expires_after(expiry_time);
  }

  /// (Deprecated: use expires_after().) Sets the expiry relative to now.
  std::size_t expires_from_now(const duration& expiry_time, error_code& ec)
  {
    ec = error_code();
    return expires_after(expiry_time);
  }
# endif  // defined(ASIO_WHEEL_HAS_DEPRECATED_TIMER_MEMBERS)

  /// Blocks until the timer has expired.
  void wait()
  {
    error_code ec;
    service().wait(impl(), ec);
    detail::throw_error(ec, "wait");
  }

  /// Blocks until the timer has expired.
  void wait(error_code& ec) { service().wait(impl(), ec); }

  /// Starts an asynchronous wait on the timer.
  /**
   * Completion signature: void(error_code). The handler runs
   * exactly once, never from inside this function: with success when the
   * expiry is reached, with operation_aborted when cancelled. Any completion
   * token works; the handler's associated executor, allocator and
   * cancellation slot are honoured (terminal, partial and total
   * cancellation).
   */
  template <
      typename WaitToken = asio::default_completion_token_t<executor_type>>
  auto async_wait(
      WaitToken&& token = asio::default_completion_token_t<executor_type>())
      -> decltype(asio::async_initiate<WaitToken, void(error_code)>(
          std::declval<initiate_async_wait>(), token))
  {
    return asio::async_initiate<WaitToken, void(error_code)>(
        initiate_async_wait(this), token);
  }

private:
  service_type& service() { return impl_.get_service(); }
  typename service_type::implementation_type& impl()
  {
    return impl_.get_implementation();
  }

  // A re-arm reads the service pointer and the implementation, and the next
  // async_wait the executor: with 120-byte timers these straddle two or
  // three cache lines, and the service's lock (an atomic instruction between
  // the first read and the rest) would make a timer out of cache pay one
  // miss after the other. Prefetching every line first overlaps them. The
  // *_after members read the clock after the prefetch and before any read of
  // the timer: the clock read (an ordered TSC read) waits for earlier loads,
  // not for prefetches, so the misses overlap the clock read too.
  void prefetch_object() const noexcept
  {
    detail::prefetch_for_write(this, sizeof(*this));
  }

  class initiate_async_wait
  {
  public:
    using executor_type = Executor;

    explicit initiate_async_wait(basic_wheel_timer* self) : self_(self) {}

    detail::returned_executor_t<executor_type> get_executor() const noexcept
    {
      return self_->get_executor();
    }

    template <typename WaitHandler>
    void operator()(WaitHandler&& handler) const
    {
      ASIO_WHEEL_WAIT_HANDLER_CHECK(WaitHandler, handler) type_check;
      detail::non_const_lvalue<WaitHandler> handler2(handler);
      self_->impl_.get_service().async_wait(self_->impl_.get_implementation(),
          handler2.value, self_->impl_.get_executor());
    }

  private:
    basic_wheel_timer* self_;
  };

  using impl_type = detail::io_object_impl<service_type, executor_type>;
  impl_type impl_;
};

/// The drop-in for asio::steady_timer.
using wheel_timer = basic_wheel_timer<std::chrono::steady_clock>;

/// The drop-in for asio::system_timer: a wall clock, which can step. A wait
/// still completes only once the clock has reached its expiry, whatever
/// steps the clock takes (see doc/design.md, "Clocks that step").
using system_wheel_timer = basic_wheel_timer<std::chrono::system_clock>;

/// The drop-in for asio::high_resolution_timer (on most standard libraries
/// the same clock as system_clock or steady_clock).
using high_resolution_wheel_timer =
    basic_wheel_timer<std::chrono::high_resolution_clock>;

ASIO_WHEEL_NAMESPACE_END

#endif  // !defined(ASIO_WHEEL_ASIO_UNUSABLE)

#endif  // ASIO_WHEEL_WHEEL_TIMER_HPP
