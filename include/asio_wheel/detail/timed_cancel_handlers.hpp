//
// asio_wheel/detail/timed_cancel_handlers.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The handlers through which Asio reaches the state of an operation timed
// by cancel_after or cancel_at (detail/timed_cancel_base.hpp): the one the
// operation is started with (timed_cancel_op_handler), and the one of the
// wait on the user's timer (timed_cancel_timer_handler). Each holds a
// pointer to the state alone, has a cancellation slot of its own, and shows
// Asio the user's handler's associated executor, allocator and other
// characteristics (user_handler_associator, and Asio's associator
// specialized for both at the end).
//

#ifndef ASIO_WHEEL_DETAIL_TIMED_CANCEL_HANDLERS_HPP
#define ASIO_WHEEL_DETAIL_TIMED_CANCEL_HANDLERS_HPP

#include <asio_wheel/detail/asio_forward.hpp>

#include <utility>

ASIO_WHEEL_NAMESPACE_BEGIN
namespace detail {

/// The handler the timed operation is started with: completes the state.
/// Its executor and allocator are those of the user's handler (associator
/// below); its cancellation slot is the state's signal.
template <typename Op>
class timed_cancel_op_handler
{
public:
  using cancellation_slot_type = asio::cancellation_slot;

  explicit timed_cancel_op_handler(Op* op) noexcept : op_(op) {}

  timed_cancel_op_handler(timed_cancel_op_handler&& other) noexcept
    : op_(std::exchange(other.op_, nullptr))
  {}

  timed_cancel_op_handler(const timed_cancel_op_handler&) = delete;
  timed_cancel_op_handler& operator=(const timed_cancel_op_handler&) = delete;

  ~timed_cancel_op_handler()
  {
    if (op_)
      op_->abandon_operation();
  }

  cancellation_slot_type get_cancellation_slot() const noexcept
  {
    return op_->slot();
  }

  template <typename... Args>
  void operator()(Args&&... args)
  {
    std::exchange(op_, nullptr)
        ->complete_operation(std::forward<Args>(args)...);
  }

  /// The state (for the associator).
  const Op* op() const noexcept { return op_; }

private:
  Op* op_;
};

/// The handler of the wait on the user's timer: the timeout's upcall,
/// whatever the wait's result (a cancelled timer fires the timeout too, as
/// with Asio's). Its executor and allocator are those of the user's handler;
/// it has no cancellation slot (the user's must not cancel the wait).
template <typename Op>
class timed_cancel_timer_handler
{
public:
  using cancellation_slot_type = asio::cancellation_slot;

  explicit timed_cancel_timer_handler(Op* op) noexcept : op_(op) {}

  timed_cancel_timer_handler(timed_cancel_timer_handler&& other) noexcept
    : op_(std::exchange(other.op_, nullptr))
  {}

  timed_cancel_timer_handler(const timed_cancel_timer_handler&) = delete;
  timed_cancel_timer_handler& operator=(
      const timed_cancel_timer_handler&) = delete;

  ~timed_cancel_timer_handler()
  {
    if (op_)
      op_->timeout_abandoned();
  }

  cancellation_slot_type get_cancellation_slot() const noexcept
  {
    return cancellation_slot_type();
  }

  void operator()(const error_code&)
  {
    std::exchange(op_, nullptr)->timeout_fired();
  }

  /// The state (for the associator).
  const Op* op() const noexcept { return op_; }

private:
  Op* op_;
};

/// The associator of both handlers above: the user's handler's associated
/// executor, allocator and other characteristics (but their own
/// cancellation slots, given by the nested cancellation_slot_type, which
/// takes precedence).
template <template <typename, typename> class Associator, typename Op,
    typename DefaultCandidate>
struct user_handler_associator
  : Associator<typename Op::handler_type, DefaultCandidate>
{
  template <typename StateHandler>
  static typename Associator<typename Op::handler_type, DefaultCandidate>::type
  get(const StateHandler& h) noexcept
  {
    return Associator<typename Op::handler_type, DefaultCandidate>::get(
        h.op()->handler());
  }

  template <typename StateHandler>
  static auto get(const StateHandler& h, const DefaultCandidate& c) noexcept
      -> decltype(Associator<typename Op::handler_type, DefaultCandidate>::get(
          h.op()->handler(), c))
  {
    return Associator<typename Op::handler_type, DefaultCandidate>::get(
        h.op()->handler(), c);
  }
};

}  // namespace detail
ASIO_WHEEL_NAMESPACE_END

ASIO_WHEEL_ASIO_NAMESPACE_BEGIN

template <template <typename, typename> class Associator, typename Op,
    typename DefaultCandidate>
struct associator<Associator, ::asio_wheel::detail::timed_cancel_op_handler<Op>,
    DefaultCandidate>
  : ::asio_wheel::detail::user_handler_associator<Associator, Op,
        DefaultCandidate>
{};

template <template <typename, typename> class Associator, typename Op,
    typename DefaultCandidate>
struct associator<Associator,
    ::asio_wheel::detail::timed_cancel_timer_handler<Op>, DefaultCandidate>
  : ::asio_wheel::detail::user_handler_associator<Associator, Op,
        DefaultCandidate>
{};

ASIO_WHEEL_ASIO_NAMESPACE_END

#endif  // ASIO_WHEEL_DETAIL_TIMED_CANCEL_HANDLERS_HPP
