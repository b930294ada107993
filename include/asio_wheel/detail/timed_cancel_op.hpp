//
// asio_wheel/detail/timed_cancel_op.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The state of one operation started with asio_wheel::cancel_after or
// cancel_at whose timeout is an entry of the context's wheel with one wait
// operation, this object itself (timed_cancel_op): no timer object, no
// reactor heap entry. The entry and the kept result share its memory: a
// result is kept only once the entry has left the wheel for good.
//
// The rest of the family, each in its file:
//   detail/timed_cancel_base.hpp      what both kinds of timed operation
//                                     share, and the protocol between the
//                                     operation's completion and the
//                                     timeout's upcall
//   detail/kept_arguments.hpp         a result kept until that upcall
//   detail/timed_cancel_handlers.hpp  the handlers that reach the state
//   detail/timed_cancel_timer_op.hpp  the other kind: the timeout is a wait
//                                     on a timer the user gave
// This file includes them all for asio_wheel/cancel_after.hpp, whose
// initiations (impl/cancel_after.hpp) start both kinds.
//

#ifndef ASIO_WHEEL_DETAIL_TIMED_CANCEL_OP_HPP
#define ASIO_WHEEL_DETAIL_TIMED_CANCEL_OP_HPP

#include <asio_wheel/detail/asio_forward.hpp>
#include <asio_wheel/detail/asio_operation.hpp>
#include <asio_wheel/detail/kept_arguments.hpp>
#include <asio_wheel/detail/tick_grid.hpp>
#include <asio_wheel/detail/timed_cancel_base.hpp>
#include <asio_wheel/detail/timed_cancel_handlers.hpp>
#include <asio_wheel/detail/timed_cancel_timer_op.hpp>
#include <asio_wheel/detail/wait_op.hpp>

#include <atomic>
#include <cstddef>
#include <new>
#include <utility>

ASIO_WHEEL_NAMESPACE_BEGIN
namespace detail {

/// A timed operation whose timeout is an entry of the context's wheel: the
/// entry (an implementation_type of the service) and its one wait, this
/// object.
template <typename Handler, typename IoExecutor, typename Service,
    typename... Signatures>
class timed_cancel_op
  : public wait_op_base,
    public timed_cancel_base<
        timed_cancel_op<Handler, IoExecutor, Service, Signatures...>, Handler,
        Signatures...>
{
public:
  using time_point = typename Service::time_point;

  /// Allocates the state, moves the handler in, arms the timeout and returns
  /// the handler the operation is to be started with.
  static timed_cancel_op_handler<timed_cancel_op> start(Handler& handler,
      const IoExecutor& io_ex, Service& service, const time_point& deadline,
      timer_slack slack, asio::cancellation_type_t type)
  {
    void* memory = base::allocate(handler);
    timed_cancel_op* o;
    try
    {
      o = new (memory) timed_cancel_op(handler, io_ex, service, type);
    }
    catch (...)
    {
      base::deallocate(handler, memory);
      throw;
    }
    o->connect_user_slot();
    service.arm_timeout(o->entry_, o, deadline, slack);
    return timed_cancel_op_handler<timed_cancel_op>(o);
  }

private:
  using base = timed_cancel_base<timed_cancel_op, Handler, Signatures...>;
  friend base;

  timed_cancel_op(Handler& h, const IoExecutor& io_ex, Service& service,
      asio::cancellation_type_t type)
    : wait_op_base(&timed_cancel_op::do_complete), base(h, type), entry_(),
      work_(this->handler(), io_ex), service_(service)
  {}

  ~timed_cancel_op()
  {
    if (this->kept() != 0)
      args_.destroy(this->kept());
    else
      entry_.~entry_type();
  }

  // Withdraws the timeout: O(1), no completion of its own. Fails if it has
  // already been decided (it fired, or was abandoned at shutdown).
  bool take_back_timeout(bool)
  {
    if (!service_.withdraw_timeout(entry_, this))
      return false;
    // The timeout's reference is dropped.
    this->refs().store(1, std::memory_order_relaxed);
    return true;
  }

  // Only after a failed withdraw: the entry has left the wheel then, and the
  // service does not touch it again, so the result takes its place.
  template <typename... Args>
  void keep(Args&&... args)
  {
    entry_.~entry_type();
    this->kept() = args_.emplace(std::forward<Args>(args)...);
  }

  kept_arguments<Signatures...>& kept_storage() noexcept { return args_; }

  // The timeout fired (owner != 0) or is destroyed at shutdown (owner == 0).
  static void do_complete(
      void* owner, scheduler_operation* op, const error_code&, std::size_t)
  {
    timed_cancel_op* o = static_cast<timed_cancel_op*>(op);
    if (!owner)
    {
      o->timeout_abandoned();
      return;
    }
    // Emit where a timer's handler would run: on the user's handler's
    // associated executor (a strand, say), never inside the wheel's lock.
    handler_work<Handler, IoExecutor> w(
        static_cast<handler_work<Handler, IoExecutor>&&>(o->work_));
    fire f{o};
    fenced_block b(fenced_block::half);
    w.complete(f, o->handler());
  }

  // The timeout's upcall.
  struct fire
  {
    timed_cancel_op* o;

    void operator()() { o->timeout_fired(); }
  };

  using entry_type = typename Service::implementation_type;

  union
  {
    entry_type entry_;  // the timeout in the wheel, until it is decided
    kept_arguments<Signatures...> args_;  // then the result, if kept
  };
  handler_work<Handler, IoExecutor> work_;
  Service& service_;
};

}  // namespace detail
ASIO_WHEEL_NAMESPACE_END

#endif  // ASIO_WHEEL_DETAIL_TIMED_CANCEL_OP_HPP
