//
// asio_wheel/wheel_executor.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// wheel_executor<Executor>: an I/O executor adaptor whose one meaning is
// "the timers of this executor live in the wheel", and, in the same header,
// the partial specialization of asio::basic_waitable_timer for it, a
// basic_wheel_timer. Timers inside other libraries whose type follows their
// I/O object's executor type (Beast's basic_stream since Beast 1.81,
// websocket::stream since 1.82, steady_timer::rebind_executor<E>::other in
// any code) then become wheel timers, in those libraries' unmodified code:
//
//   using stream = boost::beast::basic_stream<tcp, asio_wheel::wheel_executor<>>;
//   boost::beast::websocket::stream<stream> ws(io);  // its timers: the wheel's
//
// Everything else the executor does is its inner executor's: it forwards
// execute, query, require and prefer (wrapping the results that are
// executors, as strand<Executor> does) and the Networking TS members where
// the inner executor has them, and compares equal by the inner executor.
//
// Why there is no ODR hazard: basic_waitable_timer<C, W, wheel_executor<E>>
// can only be named where wheel_executor is declared, and it is declared only
// here, before the specialization; so every translation unit that
// instantiates that type sees the specialization first (doc/design.md,
// "Timers inside other libraries").
//

#ifndef ASIO_WHEEL_WHEEL_EXECUTOR_HPP
#define ASIO_WHEEL_WHEEL_EXECUTOR_HPP

#include <asio_wheel/detail/config.hpp>

// Without an Asio it can use, config.hpp's one line is all (see there).
#if !defined(ASIO_WHEEL_ASIO_UNUSABLE)

# include <asio_wheel/detail/asio_forward.hpp>
# include <asio_wheel/detail/asio_operation.hpp>
# include <asio_wheel/wheel_timer.hpp>

# if defined(ASIO_WHEEL_STANDALONE)
#  include <asio/basic_waitable_timer.hpp>
#  include <asio/execution/executor.hpp>
#  include <asio/is_executor.hpp>
#  include <asio/prefer.hpp>
#  include <asio/query.hpp>
#  include <asio/require.hpp>
# else
#  include <boost/asio/basic_waitable_timer.hpp>
#  include <boost/asio/execution/executor.hpp>
#  include <boost/asio/is_executor.hpp>
#  include <boost/asio/prefer.hpp>
#  include <boost/asio/query.hpp>
#  include <boost/asio/require.hpp>
# endif

// Up to Asio 1.24 a standard executor's execute() may be private, reached through this
// customization point (which later Asio releases removed: Boost 1.87 has none).
# if !defined(ASIO_WHEEL_ASIO_EXECUTE_MEMBER_IS_PUBLIC)
#  if defined(ASIO_WHEEL_STANDALONE)
#   include <asio/execution/execute.hpp>
#  else
#   include <boost/asio/execution/execute.hpp>
#  endif
# endif

# include <exception>
# include <type_traits>
# include <utility>

ASIO_WHEEL_NAMESPACE_BEGIN

namespace detail {

/// Whether T is an executor, of either model (standard or Networking TS).
template <typename T>
struct is_some_executor
  : std::integral_constant<bool,
        asio::execution::is_executor<T>::value || asio::is_executor<T>::value>
{};

/// What require and prefer return on a wheel_executor: the inner
/// executor's result, wrapped again (by wheel_executor's implicit
/// constructor) when it is an executor.
template <typename Result, bool = is_some_executor<std::decay_t<Result>>::value>
struct rewrapped
{
  using type = wheel_executor<std::decay_t<Result>>;
};

template <typename Result>
struct rewrapped<Result, false>
{
  using type = Result;
};

template <typename Result>
using rewrapped_t = typename rewrapped<Result>::type;

/// The Networking TS members (context, on_work_started, on_work_finished,
/// dispatch, post, defer), present exactly where the inner executor has
/// them: with them on every wheel_executor, an inner any_io_executor would
/// make it look like a TS executor it is not.
template <typename Derived, typename Inner,
    bool = asio::is_executor<Inner>::value>
class wheel_executor_ts_members
{};

template <typename Derived, typename Inner>
class wheel_executor_ts_members<Derived, Inner, true>
{
public:
  /// The inner executor's execution context.
  decltype(auto) context() const noexcept { return inner().context(); }

  /// Forwarded to the inner executor.
  void on_work_started() const noexcept { inner().on_work_started(); }

  /// Forwarded to the inner executor.
  void on_work_finished() const noexcept { inner().on_work_finished(); }

  /// Forwarded to the inner executor.
  template <typename Function, typename Allocator>
  void dispatch(Function&& f, const Allocator& a) const
  {
    inner().dispatch(std::forward<Function>(f), a);
  }

  /// Forwarded to the inner executor.
  template <typename Function, typename Allocator>
  void post(Function&& f, const Allocator& a) const
  {
    inner().post(std::forward<Function>(f), a);
  }

  /// Forwarded to the inner executor.
  template <typename Function, typename Allocator>
  void defer(Function&& f, const Allocator& a) const
  {
    inner().defer(std::forward<Function>(f), a);
  }

private:
  const Inner& inner() const noexcept
  {
    return static_cast<const Derived&>(*this).get_inner_executor();
  }
};

}  // namespace detail

/// An I/O executor whose timers live in the wheel.
/**
 * Behaves as its inner executor in every respect (it runs functions on it,
 * answers its queries, and compares equal when the inner executors do); only
 * its type differs. An I/O object on it whose timer type follows the
 * executor type (asio::basic_waitable_timer<Clock, WaitTraits, Executor>,
 * which is what Beast's basic_stream and websocket::stream hold) gets the
 * specialization below: a basic_wheel_timer.
 * @code
 * boost::beast::websocket::stream<
 *     boost::beast::basic_stream<tcp, asio_wheel::wheel_executor<>>> ws(io);
 * @endcode
 * Type erasure ends it: an any_io_executor holding a wheel_executor is an
 * any_io_executor, whose timers are Asio's.
 *
 * @tparam Executor The inner executor: any_io_executor by default, or any
 * executor (an io_context's, a strand).
 */
template <typename Executor = asio::any_io_executor>
class wheel_executor
  : public detail::wheel_executor_ts_members<wheel_executor<Executor>, Executor>
{
public:
  /// The executor this one runs functions on.
  using inner_executor_type = Executor;

  /// Default-constructs the inner executor (where it can be).
  wheel_executor() = default;

  /// Wraps an executor convertible to the inner executor type; implicit, as
  /// any_io_executor's is, so that whatever makes an I/O object from an
  /// executor (a socket from make_strand(io)) makes one from it.
  /// (std::conjunction, not &&: it does not instantiate the convertibility
  /// for a wheel_executor. That would ask, while Asio's is_executor is still
  /// deciding whether this type is nothrow copyable, whether it converts to
  /// an any_io_executor, whose constructor asks is_executor again: clang
  /// then finds is_executor without a value.)
  template <typename Executor1,
      typename = std::enable_if_t<
          std::conjunction<std::negation<detail::is_wheel_executor<Executor1>>,
              std::is_convertible<const Executor1&, Executor>>::value>>
  wheel_executor(const Executor1& ex) noexcept(
      std::is_nothrow_constructible<Executor, const Executor1&>::value)
    : inner_(ex)
  {}

  /// Wraps the executor of an execution context.
  template <typename ExecutionContext,
      typename = std::enable_if_t<std::is_convertible<ExecutionContext&,
          asio::execution_context&>::value>,
      typename = decltype(Executor(
          std::declval<ExecutionContext&>().get_executor()))>
  explicit wheel_executor(ExecutionContext& context)
    : inner_(context.get_executor())
  {}

  /// Converts from a wheel_executor whose inner executor converts.
  template <typename OtherExecutor,
      typename = std::enable_if_t<!std::is_same<OtherExecutor, Executor>::value
          && std::is_convertible<const OtherExecutor&, Executor>::value>>
  wheel_executor(const wheel_executor<OtherExecutor>& other) noexcept(
      std::is_nothrow_constructible<Executor, const OtherExecutor&>::value)
    : inner_(other.get_inner_executor())
  {}

  /// Converts from a wheel_executor whose inner executor converts.
  template <typename OtherExecutor,
      typename = std::enable_if_t<!std::is_same<OtherExecutor, Executor>::value
          && std::is_convertible<OtherExecutor&&, Executor>::value>>
  wheel_executor(wheel_executor<OtherExecutor>&& other) noexcept(
      std::is_nothrow_constructible<Executor, OtherExecutor&&>::value)
    : inner_(std::move(other).release_inner_executor())
  {}

  /// The inner executor.
  const inner_executor_type& get_inner_executor() const noexcept
  {
    return inner_;
  }

  /// Runs @p f on the inner executor, as it would.
  template <typename Function>
  auto execute(Function&& f) const
# if defined(ASIO_WHEEL_ASIO_EXECUTE_MEMBER_IS_PUBLIC)
      -> decltype(std::declval<const Executor&>().execute(
          std::forward<Function>(f)))
  {
    return inner_.execute(std::forward<Function>(f));
  }
# else
      -> decltype(asio::execution::execute(
          std::declval<const Executor&>(), std::forward<Function>(f)))
  {
    return asio::execution::execute(inner_, std::forward<Function>(f));
  }
# endif

  /// The inner executor's answer. (Called through asio::query.)
  template <typename Property>
  auto query(const Property& p) const
      noexcept(asio::is_nothrow_query<const Executor&, Property>::value)
          -> std::enable_if_t<asio::can_query<const Executor&, Property>::value,
              typename asio::query_result<const Executor&, Property>::type>
  {
    return asio::query(inner_, p);
  }

  /// The inner executor with the property, wrapped again. (Called through
  /// asio::require.)
  template <typename Property>
  auto require(const Property& p) const noexcept(
      asio::is_nothrow_require<const Executor&, Property>::value)
      -> std::enable_if_t<asio::can_require<const Executor&, Property>::value,
          detail::rewrapped_t<
              typename asio::require_result<const Executor&, Property>::type>>
  {
    return asio::require(inner_, p);
  }

  /// The inner executor with the property preferred, wrapped again.
  /// (Called through asio::prefer.)
  template <typename Property>
  auto prefer(const Property& p) const noexcept(
      asio::is_nothrow_prefer<const Executor&, Property>::value)
      -> std::enable_if_t<asio::can_prefer<const Executor&, Property>::value,
          detail::rewrapped_t<
              typename asio::prefer_result<const Executor&, Property>::type>>
  {
    return asio::prefer(inner_, p);
  }

private:
  template <typename>
  friend class wheel_executor;

  Executor&& release_inner_executor() && noexcept { return std::move(inner_); }

  Executor inner_;
};

/// Equal when the inner executors are. (Templates, not hidden friends:
/// deduction takes no conversion, so that the implicit constructor from any
/// executor does not make everything that converts to the inner executor
/// comparable with it, or ask, while Asio is still deciding whether a
/// strand<wheel_executor<>> is an executor, whether it converts.)
template <typename Executor>
bool operator==(const wheel_executor<Executor>& a,
    const wheel_executor<Executor>& b) noexcept
{
  return a.get_inner_executor() == b.get_inner_executor();
}

/// Unequal when the inner executors are.
template <typename Executor>
bool operator!=(const wheel_executor<Executor>& a,
    const wheel_executor<Executor>& b) noexcept
{
  return !(a.get_inner_executor() == b.get_inner_executor());
}

namespace detail {

/// What stops the compile where Asio's own basic_waitable_timer would take
/// over a routed timer: Asio's converting move (its constructor and
/// assignment from a timer of another executor type) reads the other
/// timer's io_object_impl, `other.impl_`, which a routed timer does not
/// have. This is what it finds instead; converting it to anything fails with
/// the message below. Asio 1.86's cancel_after(duration, token) does this
/// conversion for every operation (it builds a timer of the operation's
/// executor type, then moves it into a basic_waitable_timer<Clock,
/// WaitTraits>).
template <typename Timer>
struct not_an_asio_timer_implementation
{
  template <typename T>
  [[noreturn]] operator T() const
  {
    static_assert(sizeof(T) == 0,
        "asio_wheel: Asio's own basic_waitable_timer cannot take over a "
        "routed timer (a basic_waitable_timer of an asio_wheel::"
        "wheel_executor, whose waits live in the wheel): an operation's "
        "timeout on a wheel_executor takes asio_wheel::cancel_after / "
        "cancel_at instead of asio::cancel_after / cancel_at, and a routed "
        "timer moves into an asio_wheel::basic_wheel_timer or a routed timer "
        "of another wheel_executor");
    std::terminate();
  }
};

}  // namespace detail

ASIO_WHEEL_NAMESPACE_END

ASIO_WHEEL_ASIO_NAMESPACE_BEGIN

/// A timer of a wheel_executor: a basic_wheel_timer, with every member of
/// basic_waitable_timer (and reschedule_at / reschedule_after, tolerance).
/// What the library whose timer this is wrote as asio::steady_timer
/// rebound to its I/O executor is, on a wheel_executor, a timer of the
/// wheel.
template <typename Clock, typename WaitTraits, typename Executor>
class basic_waitable_timer<Clock, WaitTraits,
    ::asio_wheel::ASIO_WHEEL_FLAVOUR_NAMESPACE::wheel_executor<Executor>>
  : public ::asio_wheel::ASIO_WHEEL_FLAVOUR_NAMESPACE::basic_wheel_timer<Clock,
        WaitTraits,
        ::asio_wheel::ASIO_WHEEL_FLAVOUR_NAMESPACE::wheel_executor<Executor>>
{
  using wheel_executor_type =
      ::asio_wheel::ASIO_WHEEL_FLAVOUR_NAMESPACE::wheel_executor<Executor>;
  using base_type =
      ::asio_wheel::ASIO_WHEEL_FLAVOUR_NAMESPACE::basic_wheel_timer<Clock,
          WaitTraits, wheel_executor_type>;

public:
  /// Rebinds the timer type to another executor, as Asio's does: the timer
  /// of that executor type, routed again if it is a wheel_executor or one
  /// derived from it (as_default_on's executor_with_default).
  template <typename Executor1>
  struct rebind_executor
  {
    /// The timer type when rebound to the specified executor.
    using other =
        std::conditional_t<::asio_wheel::ASIO_WHEEL_FLAVOUR_NAMESPACE::detail::
                               is_derived_from_wheel_executor<Executor1>::value
                && !::asio_wheel::ASIO_WHEEL_FLAVOUR_NAMESPACE::detail::
                       is_wheel_executor<Executor1>::value,
            ::asio_wheel::ASIO_WHEEL_FLAVOUR_NAMESPACE::basic_wheel_timer<Clock,
                WaitTraits, Executor1>,
            basic_waitable_timer<Clock, WaitTraits, Executor1>>;
  };

  // Constructors from an executor or an execution context (with an expiry
  // or without), and the converting move from a basic_wheel_timer or a
  // routed timer of another executor type: basic_wheel_timer's.
  using base_type::base_type;
  using base_type::operator=;

  /// Moves a timer: its expiry and pending waits go with it.
  basic_waitable_timer(basic_waitable_timer&&) = default;

  /// (Not possible: stops the compile with a message.) The waits of Asio's
  /// own timer live in Asio's timer queue, which the wheel cannot take over.
  template <typename Executor1,
      typename = std::enable_if_t<
          !::asio_wheel::ASIO_WHEEL_FLAVOUR_NAMESPACE::detail::
              is_wheel_executor<Executor1>::value
          && std::is_convertible<const Executor1&, wheel_executor_type>::value>>
  basic_waitable_timer(
      basic_waitable_timer<Clock, WaitTraits, Executor1>&& other)
    : base_type(other.get_executor())
  {
    static_assert(sizeof(Executor1) == 0,
        "asio_wheel: a routed timer (a basic_waitable_timer of an "
        "asio_wheel::wheel_executor) cannot take over Asio's own timer: its "
        "waits live in Asio's timer queue. Construct the routed timer from "
        "the executor instead");
  }

  /// Move-assigns a timer: this object's own waits are aborted first.
  basic_waitable_timer& operator=(basic_waitable_timer&&) = default;

private:
  // Asio's own timer reaches into another timer's `impl_` when it converts
  // it (see not_an_asio_timer_implementation).
  template <typename, typename, typename>
  friend class basic_waitable_timer;

  static constexpr ::asio_wheel::ASIO_WHEEL_FLAVOUR_NAMESPACE::detail::
      not_an_asio_timer_implementation<basic_waitable_timer>
          impl_{};
};

ASIO_WHEEL_ASIO_NAMESPACE_END

#endif  // !defined(ASIO_WHEEL_ASIO_UNUSABLE)

#endif  // ASIO_WHEEL_WHEEL_EXECUTOR_HPP
