//
// asio_wheel/detail/timed_cancel_timer_op.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The state of an operation timed by cancel_after or cancel_at on a timer
// the user gave (the overloads that take a basic_wheel_timer), as Asio's own
// timer overloads do: the timeout is an async_wait on that timer, whose
// handler (timed_cancel_timer_handler) is the timeout's upcall. What it
// shares with the wheel-entry kind, timed_cancel_op, is
// detail/timed_cancel_base.hpp's.
//

#ifndef ASIO_WHEEL_DETAIL_TIMED_CANCEL_TIMER_OP_HPP
#define ASIO_WHEEL_DETAIL_TIMED_CANCEL_TIMER_OP_HPP

#include <asio_wheel/detail/asio_forward.hpp>
#include <asio_wheel/detail/kept_arguments.hpp>
#include <asio_wheel/detail/timed_cancel_base.hpp>
#include <asio_wheel/detail/timed_cancel_handlers.hpp>

#include <atomic>
#include <new>
#include <utility>

ASIO_WHEEL_NAMESPACE_BEGIN
namespace detail {

/// A timed operation whose timeout is a wait on a timer of the user's (its
/// expiry set by the caller). As with Asio's timer overloads, completing the
/// operation cancels the timer, and the user cancelling the timer, or
/// setting its expiry, fires the timeout at once.
template <typename Handler, typename Timer, typename... Signatures>
class timed_cancel_timer_op
  : public timed_cancel_base<
        timed_cancel_timer_op<Handler, Timer, Signatures...>, Handler,
        Signatures...>
{
public:
  /// Allocates the state, moves the handler in, starts the wait on @p timer
  /// and returns the handler the operation is to be started with.
  static timed_cancel_op_handler<timed_cancel_timer_op> start(
      Handler& handler, Timer& timer, asio::cancellation_type_t type)
  {
    void* memory = base::allocate(handler);
    timed_cancel_timer_op* o;
    try
    {
      o = new (memory) timed_cancel_timer_op(handler, timer, type);
    }
    catch (...)
    {
      base::deallocate(handler, memory);
      throw;
    }
    o->connect_user_slot();
    // From here the handler owns the operation's reference: if the wait
    // cannot start, both references are dropped and the state freed.
    timed_cancel_op_handler<timed_cancel_timer_op> op_handler(o);
    timer.async_wait(timed_cancel_timer_handler<timed_cancel_timer_op>(o));
    return op_handler;
  }

private:
  using base = timed_cancel_base<timed_cancel_timer_op, Handler, Signatures...>;
  friend base;

  timed_cancel_timer_op(
      Handler& h, Timer& timer, asio::cancellation_type_t type)
    : base(h, type), timer_(timer)
  {}

  ~timed_cancel_timer_op()
  {
    if (this->kept() != 0)
      args_.destroy(this->kept());
  }

  // A completed operation cancels the timer's wait, as Asio's does (all of
  // the timer's waits: it is the timeout's timer), unless the wait's upcall
  // has already run. An abandoned one leaves the timer alone: at shutdown it
  // may be gone already, and the wait's own reference frees the state.
  bool take_back_timeout(bool completed)
  {
    if (this->refs().load(std::memory_order_acquire) == 1)
      return true;
    if (completed)
      timer_.cancel();
    return false;
  }

  template <typename... Args>
  void keep(Args&&... args)
  {
    this->kept() = args_.emplace(std::forward<Args>(args)...);
  }

  kept_arguments<Signatures...>& kept_storage() noexcept { return args_; }

  kept_arguments<Signatures...> args_;  // the result, if kept
  Timer& timer_;
};

}  // namespace detail
ASIO_WHEEL_NAMESPACE_END

#endif  // ASIO_WHEEL_DETAIL_TIMED_CANCEL_TIMER_OP_HPP
