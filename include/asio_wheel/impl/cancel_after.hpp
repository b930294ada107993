//
// asio_wheel/impl/cancel_after.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// How cancel_after and cancel_at start an operation: the initiations that
// allocate the timed operation's state, arm its timeout (a wheel entry, or a
// wait on the user's timer) and start the operation with the state's
// handler; and the async_result specializations through which Asio's
// async_initiate reaches them. asio_wheel/cancel_after.hpp, which declares
// the adapters and the functions that make them, includes this file at its
// end, as Asio's cancel_after.hpp includes its impl/cancel_after.hpp.
//

#ifndef ASIO_WHEEL_IMPL_CANCEL_AFTER_HPP
#define ASIO_WHEEL_IMPL_CANCEL_AFTER_HPP

#include <asio_wheel/cancel_after.hpp>

ASIO_WHEEL_NAMESPACE_BEGIN

namespace detail {

// What both initiations below keep: the operation's own initiation, and its
// associated executor as theirs. Each is callable as an rvalue, which moves
// the operation's initiation on, and as a const lvalue (a completion token's
// async_result may call it so), which passes it on as a const lvalue, as
// Asio's own cancel_after does.
template <typename Initiation>
class timed_initiation_base
{
public:
  using executor_type = asio::associated_executor_t<Initiation>;

  template <typename I>
  explicit timed_initiation_base(I&& initiation)
    : initiation_(std::forward<I>(initiation))
  {}

  executor_type get_executor() const noexcept
  {
    return asio::get_associated_executor(initiation_);
  }

protected:
  Initiation initiation_;
};

// Starts the timed operation: allocates its state, arms the timeout in the
// wheel of the operation's execution context, then starts the operation with
// the state's handler.
template <typename Initiation, typename Clock, typename WaitTraits,
    typename... Signatures>
class initiate_timed_cancel : public timed_initiation_base<Initiation>
{
public:
  using timed_initiation_base<Initiation>::timed_initiation_base;
  using typename timed_initiation_base<Initiation>::executor_type;

  template <typename Handler, typename... Args>
  void operator()(Handler&& handler,
      const timeout_spec<Clock, WaitTraits>& spec, Args&&... args) &&
  {
    non_const_lvalue<Handler> handler2(handler);
    start(std::move(this->initiation_), handler2.value, spec,
        std::forward<Args>(args)...);
  }

  template <typename Handler, typename... Args>
  void operator()(Handler&& handler,
      const timeout_spec<Clock, WaitTraits>& spec, Args&&... args) const&
  {
    non_const_lvalue<Handler> handler2(handler);
    start(this->initiation_, handler2.value, spec, std::forward<Args>(args)...);
  }

private:
  template <typename I, typename Handler, typename... Args>
  static void start(I&& initiation, Handler& handler,
      const timeout_spec<Clock, WaitTraits>& spec, Args&&... args)
  {
    const executor_type ex = asio::get_associated_executor(initiation);
    // A plain io_context executor behind any_io_executor (a socket's, as a
    // rule) or a wheel_executor goes into the state as itself: 8 bytes
    // instead of 56, with the same behaviour (see
    // wheel_timer_service::async_wait).
    if constexpr (may_be_native<executor_type>::value)
    {
      if (const auto* native = native_executor(ex))
      {
        start_on(*native, std::forward<I>(initiation), handler, spec,
            std::forward<Args>(args)...);
        return;
      }
    }
    start_on(ex, std::forward<I>(initiation), handler, spec,
        std::forward<Args>(args)...);
  }

  template <typename IoExecutor, typename I, typename Handler, typename... Args>
  static void start_on(const IoExecutor& io_ex, I&& initiation,
      Handler& handler, const timeout_spec<Clock, WaitTraits>& spec,
      Args&&... args)
  {
    using service_type = wheel_timer_service<Clock, WaitTraits>;
    using op =
        timed_cancel_op<Handler, IoExecutor, service_type, Signatures...>;
    // Per operation: of() spares the registry's lock use_service takes.
    service_type& service =
        service_type::of(asio::query(io_ex, asio::execution::context));
    auto op_handler = op::start(handler, io_ex, service, spec.deadline(),
        spec.slack(service), spec.cancellation_type());
    asio::async_initiate<decltype(op_handler), Signatures...>(
        std::forward<I>(initiation), op_handler, std::forward<Args>(args)...);
  }
};

// Starts an operation timed by the user's timer: sets the timer's expiry,
// allocates the state, starts the wait on the timer, then starts the
// operation with the state's handler. The timer comes as a pointer, so that
// a deferred initiation can copy its arguments.
template <typename Initiation, typename Clock, typename WaitTraits,
    typename Executor, typename... Signatures>
class initiate_timed_cancel_timer : public timed_initiation_base<Initiation>
{
public:
  using timed_initiation_base<Initiation>::timed_initiation_base;
  using timer_type = basic_wheel_timer<Clock, WaitTraits, Executor>;

  template <typename Handler, typename... Args>
  void operator()(Handler&& handler, timer_type* timer,
      const timeout_spec<Clock, WaitTraits>& spec, Args&&... args) &&
  {
    non_const_lvalue<Handler> handler2(handler);
    start(std::move(this->initiation_), handler2.value, *timer, spec,
        std::forward<Args>(args)...);
  }

  template <typename Handler, typename... Args>
  void operator()(Handler&& handler, timer_type* timer,
      const timeout_spec<Clock, WaitTraits>& spec, Args&&... args) const&
  {
    non_const_lvalue<Handler> handler2(handler);
    start(this->initiation_, handler2.value, *timer, spec,
        std::forward<Args>(args)...);
  }

private:
  template <typename I, typename Handler, typename... Args>
  static void start(I&& initiation, Handler& handler, timer_type& timer,
      const timeout_spec<Clock, WaitTraits>& spec, Args&&... args)
  {
    using op = timed_cancel_timer_op<Handler, timer_type, Signatures...>;
    spec.set_expiry(timer);
    auto op_handler = op::start(handler, timer, spec.cancellation_type());
    asio::async_initiate<decltype(op_handler), Signatures...>(
        std::forward<I>(initiation), op_handler, std::forward<Args>(args)...);
  }
};

// The async_result of a partial adapter (cancel_after(30s) given as the
// token, with or without the user's timer): the operation's default
// completion token, adapted by the partial adapter's operator(), starts the
// operation as the full adapter does.
template <typename Partial, typename... Signatures>
struct partial_timed_result
{
  template <typename Initiation>
  using full_token = decltype(std::declval<const Partial&>()(
      default_token_t<asio::associated_executor_t<Initiation>>{}));

  template <typename Initiation, typename RawCompletionToken, typename... Args>
  static auto initiate(
      Initiation&& initiation, RawCompletionToken&& token, Args&&... args)
      -> decltype(asio::async_initiate<const full_token<Initiation>&,
          Signatures...>(std::forward<Initiation>(initiation),
          std::declval<full_token<Initiation>>(), std::forward<Args>(args)...))
  {
    return asio::async_initiate<const full_token<Initiation>&, Signatures...>(
        std::forward<Initiation>(initiation),
        token(default_token_t<asio::associated_executor_t<Initiation>>{}),
        std::forward<Args>(args)...);
  }
};

}  // namespace detail

ASIO_WHEEL_NAMESPACE_END

ASIO_WHEEL_ASIO_NAMESPACE_BEGIN

template <typename CompletionToken, typename Clock, typename WaitTraits,
    typename... Signatures>
struct async_result<
    ::asio_wheel::timed_cancel_t<CompletionToken, Clock, WaitTraits>,
    Signatures...> : async_result<CompletionToken, Signatures...>
{
  template <typename Initiation, typename RawCompletionToken, typename... Args>
  static auto initiate(
      Initiation&& initiation, RawCompletionToken&& token, Args&&... args)
      -> decltype(async_initiate<
          std::conditional_t<
              std::is_const<std::remove_reference_t<RawCompletionToken>>::value,
              const CompletionToken, CompletionToken>,
          Signatures...>(
          std::declval<::asio_wheel::detail::initiate_timed_cancel<
              std::decay_t<Initiation>, Clock, WaitTraits, Signatures...>>(),
          token.token_, token.spec_, std::forward<Args>(args)...))
  {
    return async_initiate<
        std::conditional_t<
            std::is_const<std::remove_reference_t<RawCompletionToken>>::value,
            const CompletionToken, CompletionToken>,
        Signatures...>(
        ::asio_wheel::detail::initiate_timed_cancel<std::decay_t<Initiation>,
            Clock, WaitTraits, Signatures...>(
            std::forward<Initiation>(initiation)),
        token.token_, token.spec_, std::forward<Args>(args)...);
  }
};

template <typename Clock, typename WaitTraits, typename... Signatures>
struct async_result<::asio_wheel::partial_timed_cancel<Clock, WaitTraits>,
    Signatures...>
  : ::asio_wheel::detail::partial_timed_result<
        ::asio_wheel::partial_timed_cancel<Clock, WaitTraits>, Signatures...>
{};

template <typename CompletionToken, typename Clock, typename WaitTraits,
    typename Executor, typename... Signatures>
struct async_result<::asio_wheel::timed_cancel_timer_t<CompletionToken, Clock,
                        WaitTraits, Executor>,
    Signatures...> : async_result<CompletionToken, Signatures...>
{
  template <typename Initiation, typename RawCompletionToken, typename... Args>
  static auto initiate(
      Initiation&& initiation, RawCompletionToken&& token, Args&&... args)
      -> decltype(async_initiate<
          std::conditional_t<
              std::is_const<std::remove_reference_t<RawCompletionToken>>::value,
              const CompletionToken, CompletionToken>,
          Signatures...>(
          std::declval<::asio_wheel::detail::initiate_timed_cancel_timer<
              std::decay_t<Initiation>, Clock, WaitTraits, Executor,
              Signatures...>>(),
          token.token_, &token.timer_, token.spec_,
          std::forward<Args>(args)...))
  {
    return async_initiate<
        std::conditional_t<
            std::is_const<std::remove_reference_t<RawCompletionToken>>::value,
            const CompletionToken, CompletionToken>,
        Signatures...>(
        ::asio_wheel::detail::initiate_timed_cancel_timer<
            std::decay_t<Initiation>, Clock, WaitTraits, Executor,
            Signatures...>(std::forward<Initiation>(initiation)),
        token.token_, &token.timer_, token.spec_, std::forward<Args>(args)...);
  }
};

template <typename Clock, typename WaitTraits, typename Executor,
    typename... Signatures>
struct async_result<
    ::asio_wheel::partial_timed_cancel_timer<Clock, WaitTraits, Executor>,
    Signatures...>
  : ::asio_wheel::detail::partial_timed_result<
        ::asio_wheel::partial_timed_cancel_timer<Clock, WaitTraits, Executor>,
        Signatures...>
{};

ASIO_WHEEL_ASIO_NAMESPACE_END

#endif  // ASIO_WHEEL_IMPL_CANCEL_AFTER_HPP
