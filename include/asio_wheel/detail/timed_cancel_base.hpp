//
// asio_wheel/detail/timed_cancel_base.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// What the two kinds of operation timed by cancel_after or cancel_at share
// (timed_cancel_op, whose timeout is a wheel entry of its own, and
// timed_cancel_timer_op, whose timeout is a wait on the user's timer): the
// user's handler, the cancellation signal the operation listens to, the
// flags and the reference count, in one allocation with the handler's
// associated allocator (op_pool for the default one); and the protocol
// between the operation's completion and the timeout's upcall.
//
// Two things may happen, in either order, and the state lives until both
// have (a reference count of 2):
// - The operation completes: the timeout is taken back, and the user's
//   handler is called with the operation's result, unchanged: at once if
//   the timeout is gone without a trace (a withdrawn wheel entry, or a timer
//   wait whose upcall has already run); otherwise the result is kept in the
//   state and the handler is called when the timeout's upcall has run (as
//   Asio's own cancel_after does).
// - The timeout fires: through the user's handler's associated executor (as
//   a timer's handler would run), the cancellation signal is emitted with the
//   requested type, unless the operation has completed meanwhile.
//
// A cancellation slot the user bound to the handler keeps working: a proxy in
// it forwards each signal to the operation.
//

#ifndef ASIO_WHEEL_DETAIL_TIMED_CANCEL_BASE_HPP
#define ASIO_WHEEL_DETAIL_TIMED_CANCEL_BASE_HPP

#include <asio_wheel/detail/asio_forward.hpp>
#include <asio_wheel/detail/kept_arguments.hpp>
#include <asio_wheel/detail/op_memory.hpp>

#include <atomic>
#include <tuple>
#include <utility>

ASIO_WHEEL_NAMESPACE_BEGIN
namespace detail {

// What the two kinds of timed operation share: the handler, the signal, the
// flags and the reference count, and the protocol between the operation's
// completion and the timeout's upcall described at the top. Op, the derived
// class, provides:
//   bool take_back_timeout(bool completed)  the operation is done (completed,
//       or abandoned without completing): stops the timeout if it can; true
//       if the caller now holds the last reference (the timeout's is gone)
//   template <typename... Args> void keep(Args&&...)  keeps the result:
//       constructs the arguments in kept_storage() and sets kept()
//   kept_arguments<Signatures...>& kept_storage()
//   a destructor that destroys the kept arguments, if kept() says so.
template <typename Op, typename Handler, typename... Signatures>
class timed_cancel_base
{
public:
  using handler_type = Handler;

  /// The slot the operation listens to.
  asio::cancellation_slot slot() noexcept { return signal_.slot(); }

  const Handler& handler() const noexcept { return handler_; }

  /// The operation completed: takes the timeout back and calls the user's
  /// handler with @p args, now or, if the timeout's upcall is on its way,
  /// when that has run.
  template <typename... Args>
  void complete_operation(Args&&... args)
  {
    stop_cancellation();
    if (op().take_back_timeout(true))
    {
      // Ours is the last reference: nothing to keep. Free the memory before
      // the upcall, as Asio's operations do.
      Handler handler(static_cast<Handler&&>(handler_));
      destroy(handler);
      static_cast<Handler&&>(handler)(std::forward<Args>(args)...);
      return;
    }
    op().keep(std::forward<Args>(args)...);
    release();
  }

  /// The operation was destroyed without completing (its context is shutting
  /// down): the handler is destroyed, not called.
  void abandon_operation()
  {
    stop_cancellation();
    if (op().take_back_timeout(false))
      destroy(handler_);
    else
      release();
  }

  /// The timeout's upcall, on the handler's associated executor.
  void timeout_fired()
  {
    if (!operation_done_.load(std::memory_order_acquire))
      signal_.emit(type_);
    release();  // calls the handler if the operation completed meanwhile
  }

  /// The timeout was destroyed without its upcall (at shutdown).
  void timeout_abandoned() { release(false); }

protected:
  // The memory of an Op, from the allocator associated with the handler.
  static void* allocate(Handler& handler)
  {
    return op_memory<Op, Handler>(handler).allocate();
  }

  // Frees @p p, whose Op was not constructed.
  static void deallocate(const Handler& handler, void* p) noexcept
  {
    op_memory<Op, Handler>(handler).deallocate(p);
  }

  timed_cancel_base(Handler& handler, asio::cancellation_type_t type)
    : handler_(static_cast<Handler&&>(handler)), type_(type)
  {}

  ~timed_cancel_base() = default;

  Handler& handler() noexcept { return handler_; }

  // Forwards the user's cancellation signals to the operation. The user's
  // slot is cleared, which destroys the proxy, once the operation is done.
  struct user_slot_proxy
  {
    explicit user_slot_proxy(timed_cancel_base* s) : state(s) {}

    void operator()(asio::cancellation_type_t type)
    {
      state->signal_.emit(type);
    }

    timed_cancel_base* state;
  };

  void connect_user_slot()
  {
    auto user_slot = asio::get_associated_cancellation_slot(handler_);
    if (user_slot.is_connected())
    {
      user_slot.template emplace<user_slot_proxy>(this);
      user_slot_ = true;
    }
  }

  std::atomic<unsigned char>& refs() noexcept { return refs_; }
  unsigned char& kept() noexcept { return kept_; }

private:
  Op& op() noexcept { return static_cast<Op&>(*this); }

  // Common to both ends of the operation: no more cancellation reaches it.
  void stop_cancellation()
  {
    operation_done_.store(true, std::memory_order_release);
    if (user_slot_)
    {
      // The slot belongs to the user's handler: disconnect it while the
      // handler is surely alive, so that a later signal finds nothing.
      asio::get_associated_cancellation_slot(handler_).clear();
      user_slot_ = false;
    }
  }

  // Drops one reference. The last one calls the user's handler with the
  // kept result, if there is one and @p may_invoke (not at shutdown), and
  // frees the state.
  void release(bool may_invoke = true)
  {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) != 1)
      return;
    if (!may_invoke || kept_ == 0)
    {
      destroy(handler_);
      return;
    }
    op().kept_storage().visit(kept_, [this](auto& args) {
      // Free the memory before the upcall, as Asio's operations do: the
      // handler and the arguments move out first. Nothing of the state
      // is touched after destroy(), `this` and `args` included.
      Handler handler(static_cast<Handler&&>(handler_));
      auto local_args(std::move(args));
      destroy(handler);
      std::apply(static_cast<Handler&&>(handler), std::move(local_args));
    });
  }

  // Destroys the state and frees its memory, with the allocator associated
  // with @p handler (handler_, or the handler moved out of it).
  void destroy(const Handler& handler) noexcept
  {
    Op* o = &op();
    op_memory<Op, Handler> memory(handler);  // before handler_ is destroyed
    o->~Op();
    memory.deallocate(o);
  }

  Handler handler_;
  asio::cancellation_signal signal_;
  const asio::cancellation_type_t type_;
  std::atomic<unsigned char> refs_{2};  // the operation's handler, the timeout
  std::atomic<bool> operation_done_{false};
  bool user_slot_ = false;  // a proxy is in the user's slot
  unsigned char kept_ = 0;  // the kept result's signature, 1-based; 0: none
};

}  // namespace detail
ASIO_WHEEL_NAMESPACE_END

#endif  // ASIO_WHEEL_DETAIL_TIMED_CANCEL_BASE_HPP
