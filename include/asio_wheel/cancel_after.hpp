//
// asio_wheel/cancel_after.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// asio_wheel::cancel_after / cancel_at: a completion token adapter that
// times any asynchronous operation, with the semantics of Asio's own
// cancel_after (Boost 1.86+), but whose timeout is an entry in the context's
// timing wheel: no timer object and no reactor heap entry per operation, and
// an operation that completes first takes its timeout back in O(1), without
// any completion of its own. It works with every Asio the library supports
// that has per-operation cancellation (1.19 and later), including those that
// have no cancel_after; below 1.19, using it stops the compile with one line
// that names the Asio it needs. The overloads that take a
// basic_wheel_timer time the operation with a wait on that timer instead, as
// Asio's overloads that take a basic_waitable_timer do.
//
// This file holds the adapters and the functions that make them; how they
// start an operation (the initiations, and the async_result specializations
// that reach them) is in impl/cancel_after.hpp, and the timed operation's
// state in detail/timed_cancel_op.hpp.
//

#ifndef ASIO_WHEEL_CANCEL_AFTER_HPP
#define ASIO_WHEEL_CANCEL_AFTER_HPP

#include <asio_wheel/detail/config.hpp>

// Without an Asio it can use, config.hpp's one line is all (see there).
#if !defined(ASIO_WHEEL_ASIO_UNUSABLE)

# include <asio_wheel/detail/asio_forward.hpp>
# include <asio_wheel/detail/asio_operation.hpp>
# if defined(ASIO_WHEEL_ASIO_HAS_CANCELLATION_SLOT)
#  include <asio_wheel/detail/timed_cancel_op.hpp>
# endif
# include <asio_wheel/wheel_timer.hpp>
# include <asio_wheel/wheel_timer_service.hpp>

# include <chrono>
# include <stdexcept>
# include <type_traits>
# include <utility>

ASIO_WHEEL_NAMESPACE_BEGIN

/// A timeout's own tolerance, for cancel_after and cancel_at: the timeout
/// may fire up to `late` after its expiry (rounded down to whole ticks of
/// the wheel), never before. It replaces the context's fraction
/// (wheel_options::tolerance) for that operation. Made by tolerance().
struct timeout_tolerance
{
  std::chrono::nanoseconds late;
};

/// @code
/// sock.async_read_some(buf,
///     asio_wheel::cancel_after(5min, asio_wheel::tolerance(4s), handler));
/// @endcode
/// @throws std::invalid_argument if @p late is negative.
inline timeout_tolerance tolerance(std::chrono::nanoseconds late)
{
  if (late < std::chrono::nanoseconds::zero())
    throw std::invalid_argument(
        "asio_wheel::tolerance: a timeout's tolerance must not be negative");
  return timeout_tolerance{late};
}

# if !defined(ASIO_WHEEL_ASIO_HAS_CANCELLATION_SLOT)

// Below Asio 1.19 (Boost 1.77) there is no per-operation cancellation, which
// is what a timeout of cancel_after or cancel_at emits: using either stops the
// compile with the one line below. So that the line is the compile's only
// error, the expression around the call must still compile: they return the
// completion token they were given (the last argument; a handler that does
// nothing for a partial form, which has none), and the program is never
// built.
namespace detail {

template <typename...>
struct needs_per_operation_cancellation : std::false_type
{};

struct cancel_after_unavailable
{
  template <typename... Args>
  void operator()(Args&&...) const
  {}
};

// Whether T is one of the arguments that say when (a duration, a time point, a
// tolerance, a timer), rather than the completion token.
template <typename T>
struct is_timeout_argument : std::false_type
{};
template <typename Rep, typename Period>
struct is_timeout_argument<std::chrono::duration<Rep, Period>> : std::true_type
{};
template <typename Clock, typename Duration>
struct is_timeout_argument<std::chrono::time_point<Clock, Duration>>
  : std::true_type
{};
template <>
struct is_timeout_argument<timeout_tolerance> : std::true_type
{};
template <typename Clock, typename WaitTraits, typename Executor>
struct is_timeout_argument<basic_wheel_timer<Clock, WaitTraits, Executor>>
  : std::true_type
{};

template <typename Last>
cancel_after_unavailable pick_token(std::true_type, Last&&)
{
  return {};
}

template <typename Last>
Last&& pick_token(std::false_type, Last&& last)
{
  return std::forward<Last>(last);
}

// The last of args if it is a completion token.
template <typename... Args>
decltype(auto) token_of(Args&&... args)
{
  auto&& last = std::get<sizeof...(Args) - 1>(
      std::forward_as_tuple(std::forward<Args>(args)...));
  using last_type = decltype(last);
  return pick_token(is_timeout_argument<std::decay_t<last_type>>{},
      std::forward<last_type>(last));
}

}  // namespace detail

template <typename... Args>
decltype(auto) cancel_after(Args&&... args)
{
  static_assert(detail::needs_per_operation_cancellation<Args...>::value,
      "asio_wheel::cancel_after needs per-operation cancellation: Asio 1.19 "
      "or later (Boost 1.77, standalone Asio 1.19)");
  return detail::token_of(std::forward<Args>(args)...);
}

template <typename... Args>
decltype(auto) cancel_at(Args&&... args)
{
  static_assert(detail::needs_per_operation_cancellation<Args...>::value,
      "asio_wheel::cancel_at needs per-operation cancellation: Asio 1.19 or "
      "later (Boost 1.77, standalone Asio 1.19)");
  return detail::token_of(std::forward<Args>(args)...);
}

# else  // defined(ASIO_WHEEL_ASIO_HAS_CANCELLATION_SLOT)

/// When a timed operation's timeout is reached: a relative timeout is
/// measured from the moment the operation starts.
template <typename Clock, typename WaitTraits = asio::wait_traits<Clock>>
class timeout_spec
{
public:
  using duration = typename Clock::duration;
  using time_point = typename Clock::time_point;

  /// @p tolerance: how late the timeout may fire; negative, the context's
  /// (wheel_options::tolerance).
  static timeout_spec after(const duration& d, asio::cancellation_type_t type,
      const duration& tolerance = duration(-1))
  {
    return timeout_spec(true, d, time_point(), type, tolerance);
  }

  static timeout_spec at(const time_point& t, asio::cancellation_type_t type,
      const duration& tolerance = duration(-1))
  {
    return timeout_spec(false, duration(), t, type, tolerance);
  }

  /// The deadline of an operation starting now.
  time_point deadline() const
  {
    return relative_ ? detail::chrono_time_traits<Clock, WaitTraits>::add(
               Clock::now(), after_)
                     : at_;
  }

  /// How late the timeout may fire, in @p service's ticks: the tolerance
  /// given with it, or the context's fraction of the timeout's length.
  template <typename Service>
  detail::timer_slack slack(const Service& service) const
  {
    detail::timer_slack own;
    if (tolerance_ >= duration::zero())
      own.set_own(service.slack_of(tolerance_));
    return service.slack_for(own, [this] {
      return relative_
          ? after_
          : detail::chrono_time_traits<Clock, WaitTraits>::subtract(
              at_, Clock::now());
    });
  }

  /// Sets @p timer's expiry to the deadline of an operation starting now,
  /// with expires_after or expires_at (which abort the timer's pending
  /// waits), so that the timer's own tolerance applies as to any wait.
  template <typename Timer>
  void set_expiry(Timer& timer) const
  {
    if (relative_)
      timer.expires_after(after_);
    else
      timer.expires_at(at_);
  }

  /// The cancellation emitted when the deadline is reached.
  asio::cancellation_type_t cancellation_type() const noexcept { return type_; }

private:
  timeout_spec(bool relative, const duration& d, const time_point& t,
      asio::cancellation_type_t type, const duration& tolerance)
    : relative_(relative), after_(d), at_(t), type_(type), tolerance_(tolerance)
  {}

  bool relative_;
  duration after_;
  time_point at_;
  asio::cancellation_type_t type_;
  duration tolerance_;
};

/// A completion token adapter: the operation started with it is cancelled
/// (with the cancellation type of its timeout_spec) if it has not completed
/// by its deadline. Its result reaches the adapted token unchanged.
template <typename CompletionToken, typename Clock,
    typename WaitTraits = asio::wait_traits<Clock>>
class timed_cancel_t
{
public:
  template <typename T>
  timed_cancel_t(T&& token, const timeout_spec<Clock, WaitTraits>& spec)
    : token_(std::forward<T>(token)), spec_(spec)
  {}

  CompletionToken token_;
  timeout_spec<Clock, WaitTraits> spec_;
};

/// The partial form: cancel_after(30s) as a token adapts the operation's
/// default completion token (e.g. use_awaitable or deferred).
template <typename Clock, typename WaitTraits = asio::wait_traits<Clock>>
class partial_timed_cancel
{
public:
  explicit partial_timed_cancel(const timeout_spec<Clock, WaitTraits>& spec)
    : spec_(spec)
  {}

  /// Adapts @p token.
  template <typename CompletionToken>
  timed_cancel_t<std::decay_t<CompletionToken>, Clock, WaitTraits> operator()(
      CompletionToken&& token) const
  {
    return timed_cancel_t<std::decay_t<CompletionToken>, Clock, WaitTraits>(
        std::forward<CompletionToken>(token), spec_);
  }

  timeout_spec<Clock, WaitTraits> spec_;
};

/// A completion token adapter whose timeout is a wait on a timer of the
/// user's: the operation started with it sets the timer's expiry (as
/// expires_after / expires_at do, aborting the timer's pending waits), waits
/// on the timer, and is cancelled if it has not completed when that wait
/// completes, by expiry or because the timer was cancelled. When the
/// operation completes first, the timer is cancelled. Its result reaches the
/// adapted token unchanged. The timer must outlive the operation.
template <typename CompletionToken, typename Clock, typename WaitTraits,
    typename Executor>
class timed_cancel_timer_t
{
public:
  using timer_type = basic_wheel_timer<Clock, WaitTraits, Executor>;

  template <typename T>
  timed_cancel_timer_t(
      T&& token, timer_type& timer, const timeout_spec<Clock, WaitTraits>& spec)
    : token_(std::forward<T>(token)), timer_(timer), spec_(spec)
  {}

  CompletionToken token_;
  timer_type& timer_;
  timeout_spec<Clock, WaitTraits> spec_;
};

/// The partial form of the timer overloads: adapts the operation's default
/// completion token.
template <typename Clock, typename WaitTraits, typename Executor>
class partial_timed_cancel_timer
{
public:
  using timer_type = basic_wheel_timer<Clock, WaitTraits, Executor>;

  partial_timed_cancel_timer(
      timer_type& timer, const timeout_spec<Clock, WaitTraits>& spec)
    : timer_(timer), spec_(spec)
  {}

  /// Adapts @p token.
  template <typename CompletionToken>
  timed_cancel_timer_t<std::decay_t<CompletionToken>, Clock, WaitTraits,
      Executor>
  operator()(CompletionToken&& token) const
  {
    return timed_cancel_timer_t<std::decay_t<CompletionToken>, Clock,
        WaitTraits, Executor>(
        std::forward<CompletionToken>(token), timer_, spec_);
  }

  timer_type& timer_;
  timeout_spec<Clock, WaitTraits> spec_;
};

/// Cancels the operation if it has not completed within @p timeout
/// (terminal cancellation unless @p type says otherwise). Partial form:
/// @code
/// co_await sock.async_read_some(buf, asio_wheel::cancel_after(30s));
/// @endcode
template <typename Rep, typename Period>
partial_timed_cancel<std::chrono::steady_clock> cancel_after(
    const std::chrono::duration<Rep, Period>& timeout,
    asio::cancellation_type_t type = asio::cancellation_type::terminal)
{
  using spec = timeout_spec<std::chrono::steady_clock>;
  return partial_timed_cancel<std::chrono::steady_clock>(spec::after(
      std::chrono::ceil<std::chrono::steady_clock::duration>(timeout), type));
}

/// Cancels the operation if it has not completed within @p timeout:
/// @code
/// sock.async_read_some(buf, asio_wheel::cancel_after(30s, handler));
/// @endcode
template <typename Rep, typename Period, typename CompletionToken>
timed_cancel_t<std::decay_t<CompletionToken>, std::chrono::steady_clock>
cancel_after(
    const std::chrono::duration<Rep, Period>& timeout, CompletionToken&& token)
{
  // Qualified: Asio 1.31+ has its own cancel_after, found by ADL.
  return ::asio_wheel::cancel_after(timeout, asio::cancellation_type::terminal)(
      std::forward<CompletionToken>(token));
}

/// As above, with the cancellation type to emit.
template <typename Rep, typename Period, typename CompletionToken>
timed_cancel_t<std::decay_t<CompletionToken>, std::chrono::steady_clock>
cancel_after(const std::chrono::duration<Rep, Period>& timeout,
    asio::cancellation_type_t type, CompletionToken&& token)
{
  return ::asio_wheel::cancel_after(timeout, type)(
      std::forward<CompletionToken>(token));
}

/// cancel_after with the timeout's own tolerance (see tolerance()).
template <typename Rep, typename Period>
partial_timed_cancel<std::chrono::steady_clock> cancel_after(
    const std::chrono::duration<Rep, Period>& timeout,
    const timeout_tolerance& tolerance,
    asio::cancellation_type_t type = asio::cancellation_type::terminal)
{
  using spec = timeout_spec<std::chrono::steady_clock>;
  return partial_timed_cancel<std::chrono::steady_clock>(spec::after(
      std::chrono::ceil<std::chrono::steady_clock::duration>(timeout), type,
      std::chrono::floor<std::chrono::steady_clock::duration>(tolerance.late)));
}

/// As above, adapting @p token.
template <typename Rep, typename Period, typename CompletionToken>
timed_cancel_t<std::decay_t<CompletionToken>, std::chrono::steady_clock>
cancel_after(const std::chrono::duration<Rep, Period>& timeout,
    const timeout_tolerance& tolerance, CompletionToken&& token)
{
  return ::asio_wheel::cancel_after(timeout, tolerance,
      asio::cancellation_type::terminal)(std::forward<CompletionToken>(token));
}

/// As above, with the cancellation type to emit.
template <typename Rep, typename Period, typename CompletionToken>
timed_cancel_t<std::decay_t<CompletionToken>, std::chrono::steady_clock>
cancel_after(const std::chrono::duration<Rep, Period>& timeout,
    const timeout_tolerance& tolerance, asio::cancellation_type_t type,
    CompletionToken&& token)
{
  return ::asio_wheel::cancel_after(timeout, tolerance, type)(
      std::forward<CompletionToken>(token));
}

/// Cancels the operation if it has not completed by @p deadline, a time
/// point of any clock (the wheel of that clock times it).
template <typename Clock, typename Duration>
partial_timed_cancel<Clock> cancel_at(
    const std::chrono::time_point<Clock, Duration>& deadline,
    asio::cancellation_type_t type = asio::cancellation_type::terminal)
{
  return partial_timed_cancel<Clock>(timeout_spec<Clock>::at(
      std::chrono::time_point_cast<typename Clock::duration>(deadline), type));
}

/// As above, adapting @p token.
template <typename Clock, typename Duration, typename CompletionToken>
timed_cancel_t<std::decay_t<CompletionToken>, Clock> cancel_at(
    const std::chrono::time_point<Clock, Duration>& deadline,
    CompletionToken&& token)
{
  return ::asio_wheel::cancel_at(deadline, asio::cancellation_type::terminal)(
      std::forward<CompletionToken>(token));
}

/// As above, with the cancellation type to emit.
template <typename Clock, typename Duration, typename CompletionToken>
timed_cancel_t<std::decay_t<CompletionToken>, Clock> cancel_at(
    const std::chrono::time_point<Clock, Duration>& deadline,
    asio::cancellation_type_t type, CompletionToken&& token)
{
  return ::asio_wheel::cancel_at(deadline, type)(
      std::forward<CompletionToken>(token));
}

/// cancel_at with the timeout's own tolerance (see tolerance()).
template <typename Clock, typename Duration>
partial_timed_cancel<Clock> cancel_at(
    const std::chrono::time_point<Clock, Duration>& deadline,
    const timeout_tolerance& tolerance,
    asio::cancellation_type_t type = asio::cancellation_type::terminal)
{
  return partial_timed_cancel<Clock>(timeout_spec<Clock>::at(
      std::chrono::time_point_cast<typename Clock::duration>(deadline), type,
      std::chrono::floor<typename Clock::duration>(tolerance.late)));
}

/// As above, adapting @p token.
template <typename Clock, typename Duration, typename CompletionToken>
timed_cancel_t<std::decay_t<CompletionToken>, Clock> cancel_at(
    const std::chrono::time_point<Clock, Duration>& deadline,
    const timeout_tolerance& tolerance, CompletionToken&& token)
{
  return ::asio_wheel::cancel_at(deadline, tolerance,
      asio::cancellation_type::terminal)(std::forward<CompletionToken>(token));
}

/// As above, with the cancellation type to emit.
template <typename Clock, typename Duration, typename CompletionToken>
timed_cancel_t<std::decay_t<CompletionToken>, Clock> cancel_at(
    const std::chrono::time_point<Clock, Duration>& deadline,
    const timeout_tolerance& tolerance, asio::cancellation_type_t type,
    CompletionToken&& token)
{
  return ::asio_wheel::cancel_at(deadline, tolerance, type)(
      std::forward<CompletionToken>(token));
}

/// The timer overloads, as Asio's (Boost 1.86+) for basic_waitable_timer:
/// the operation's timeout is a wait on @p timer, whose expiry the operation
/// sets to @p timeout from its start (see timed_cancel_timer_t). Partial
/// form:
/// @code
/// co_await sock.async_read_some(buf, asio_wheel::cancel_after(timer, 30s));
/// @endcode
template <typename Clock, typename WaitTraits, typename Executor, typename Rep,
    typename Period>
partial_timed_cancel_timer<Clock, WaitTraits, Executor> cancel_after(
    basic_wheel_timer<Clock, WaitTraits, Executor>& timer,
    const std::chrono::duration<Rep, Period>& timeout,
    asio::cancellation_type_t type = asio::cancellation_type::terminal)
{
  using spec = timeout_spec<Clock, WaitTraits>;
  return partial_timed_cancel_timer<Clock, WaitTraits, Executor>(timer,
      spec::after(std::chrono::ceil<typename Clock::duration>(timeout), type));
}

/// As above, adapting @p token.
template <typename Clock, typename WaitTraits, typename Executor, typename Rep,
    typename Period, typename CompletionToken>
timed_cancel_timer_t<std::decay_t<CompletionToken>, Clock, WaitTraits, Executor>
cancel_after(basic_wheel_timer<Clock, WaitTraits, Executor>& timer,
    const std::chrono::duration<Rep, Period>& timeout, CompletionToken&& token)
{
  return ::asio_wheel::cancel_after(timer, timeout,
      asio::cancellation_type::terminal)(std::forward<CompletionToken>(token));
}

/// As above, with the cancellation type to emit.
template <typename Clock, typename WaitTraits, typename Executor, typename Rep,
    typename Period, typename CompletionToken>
timed_cancel_timer_t<std::decay_t<CompletionToken>, Clock, WaitTraits, Executor>
cancel_after(basic_wheel_timer<Clock, WaitTraits, Executor>& timer,
    const std::chrono::duration<Rep, Period>& timeout,
    asio::cancellation_type_t type, CompletionToken&& token)
{
  return ::asio_wheel::cancel_after(timer, timeout, type)(
      std::forward<CompletionToken>(token));
}

/// The timer overloads of cancel_at: the operation's timeout is a wait on
/// @p timer, whose expiry the operation sets to @p deadline.
template <typename Clock, typename WaitTraits, typename Executor,
    typename Duration>
partial_timed_cancel_timer<Clock, WaitTraits, Executor> cancel_at(
    basic_wheel_timer<Clock, WaitTraits, Executor>& timer,
    const std::chrono::time_point<Clock, Duration>& deadline,
    asio::cancellation_type_t type = asio::cancellation_type::terminal)
{
  using spec = timeout_spec<Clock, WaitTraits>;
  return partial_timed_cancel_timer<Clock, WaitTraits, Executor>(timer,
      spec::at(std::chrono::time_point_cast<typename Clock::duration>(deadline),
          type));
}

/// As above, adapting @p token.
template <typename Clock, typename WaitTraits, typename Executor,
    typename Duration, typename CompletionToken>
timed_cancel_timer_t<std::decay_t<CompletionToken>, Clock, WaitTraits, Executor>
cancel_at(basic_wheel_timer<Clock, WaitTraits, Executor>& timer,
    const std::chrono::time_point<Clock, Duration>& deadline,
    CompletionToken&& token)
{
  return ::asio_wheel::cancel_at(timer, deadline,
      asio::cancellation_type::terminal)(std::forward<CompletionToken>(token));
}

/// As above, with the cancellation type to emit.
template <typename Clock, typename WaitTraits, typename Executor,
    typename Duration, typename CompletionToken>
timed_cancel_timer_t<std::decay_t<CompletionToken>, Clock, WaitTraits, Executor>
cancel_at(basic_wheel_timer<Clock, WaitTraits, Executor>& timer,
    const std::chrono::time_point<Clock, Duration>& deadline,
    asio::cancellation_type_t type, CompletionToken&& token)
{
  return ::asio_wheel::cancel_at(timer, deadline, type)(
      std::forward<CompletionToken>(token));
}

namespace detail {

// Another library's timer (a steady_timer, a basic_waitable_timer): it has
// the members of a waitable timer but is no basic_wheel_timer.
template <typename Timer>
struct is_wheel_timer : std::false_type
{};
template <typename Clock, typename WaitTraits, typename Executor>
struct is_wheel_timer<basic_wheel_timer<Clock, WaitTraits, Executor>>
  : std::true_type
{};
template <typename Timer, typename = void>
struct is_other_timer : std::false_type
{};
template <typename Timer>
struct is_other_timer<Timer,
    std::void_t<typename Timer::clock_type, typename Timer::traits_type>>
  : std::negation<is_wheel_timer<Timer>>
{};

}  // namespace detail

/// With another timer than a basic_wheel_timer: a compile error that says
/// what to use instead, not a page of candidates (the call then stands for
/// the form without a timer, so that the one error is all).
template <typename Timer, typename Rep, typename Period, typename... Args,
    typename = std::enable_if_t<detail::is_other_timer<Timer>::value>>
auto cancel_after(
    Timer&, const std::chrono::duration<Rep, Period>& timeout, Args&&... args)
{
  static_assert(!detail::is_other_timer<Timer>::value,
      "asio_wheel::cancel_after(timer, ...) takes a basic_wheel_timer: with "
      "another timer use Asio's own cancel_after (Boost 1.86, Asio 1.31), or "
      "asio_wheel::cancel_after(timeout, token) without a timer");
  return ::asio_wheel::cancel_after(timeout, std::forward<Args>(args)...);
}

/// As above, for cancel_at.
template <typename Timer, typename Clock, typename Duration, typename... Args,
    typename = std::enable_if_t<detail::is_other_timer<Timer>::value>>
auto cancel_at(Timer&, const std::chrono::time_point<Clock, Duration>& deadline,
    Args&&... args)
{
  static_assert(!detail::is_other_timer<Timer>::value,
      "asio_wheel::cancel_at(timer, ...) takes a basic_wheel_timer: with "
      "another timer use Asio's own cancel_at (Boost 1.86, Asio 1.31), or "
      "asio_wheel::cancel_at(deadline, token) without a timer");
  return ::asio_wheel::cancel_at(deadline, std::forward<Args>(args)...);
}

# endif  // defined(ASIO_WHEEL_ASIO_HAS_CANCELLATION_SLOT)

ASIO_WHEEL_NAMESPACE_END

# if defined(ASIO_WHEEL_ASIO_HAS_CANCELLATION_SLOT)
#  include <asio_wheel/impl/cancel_after.hpp>
# endif

#endif  // !defined(ASIO_WHEEL_ASIO_UNUSABLE)

#endif  // ASIO_WHEEL_CANCEL_AFTER_HPP
