//
// asio_wheel/detail/wait_op.hpp
//
// The operation behind one async_wait: a scheduler operation that owns the
// handler, is queued on its timer while pending, and completes itself
// through Asio's handler_work (associated executor, outstanding work). The
// memory comes from the handler's associated allocator (op_pool for the
// default one); that is the only allocation of a wait.
//

#ifndef ASIO_WHEEL_DETAIL_WAIT_OP_HPP
#define ASIO_WHEEL_DETAIL_WAIT_OP_HPP

#include <asio_wheel/detail/asio_operation.hpp>
#include <asio_wheel/detail/op_memory.hpp>

#include <memory>
#include <type_traits>

ASIO_WHEEL_NAMESPACE_BEGIN
namespace detail {

struct timer_waits;

/// The part of a wait operation the service sees.
class wait_op_base : public operation_with_flags
{
public:
  /// The timer this wait is queued on; null once it expired or was aborted.
  timer_waits* timer = nullptr;

  void set_aborted() noexcept { set_flags(aborted_bit); }
  void set_has_cancellation_handler() noexcept { set_flags(slot_bit); }

  /// The service decided this wait (it expired, was aborted, or was
  /// abandoned at shutdown): tells its owner if it is a hooked_wait_op.
  inline void decided() noexcept;

protected:
  // The result, the slot flag and the hook flag (see operation_with_flags
  // for where they live on each backend).
  static constexpr unsigned aborted_bit = 1;
  static constexpr unsigned slot_bit = 2;
  static constexpr unsigned hook_bit = 4;

  explicit wait_op_base(func_type complete) noexcept
    : operation_with_flags(complete)
  {}

  bool aborted() const noexcept { return has_flags(aborted_bit); }
  bool has_cancellation_handler() const noexcept { return has_flags(slot_bit); }
};

/// A wait whose owner is told the moment the service decides it, before its
/// completion is queued: under the service's lock when it expires or is
/// aborted (a timer's lone wait, aborted without touching its operation, when
/// the aborts are marked: completion_slices::mark_deferred_aborts), and on the
/// thread that abandons it after shutdown. Until then the
/// wait can still be withdrawn (wheel_timer_service::withdraw_timeout), so an
/// owner whose state lives as long as the operation the wait times out can
/// take, in the hook and only there, what the completion will need after that
/// operation is gone: the Beast stream takes a reference to its state there,
/// instead of one per arm.
class hooked_wait_op : public wait_op_base
{
protected:
  using hook_type = void (*)(hooked_wait_op*) noexcept;

  hooked_wait_op(func_type complete, hook_type hook) noexcept
    : wait_op_base(complete), hook_(hook)
  {
    set_flags(hook_bit);
  }

private:
  friend class wait_op_base;
  const hook_type hook_;
};

inline void wait_op_base::decided() noexcept
{
  if (has_flags(hook_bit))
  {
    hooked_wait_op* op = static_cast<hooked_wait_op*>(this);
    op->hook_(op);
  }
}

using wait_op_queue = op_queue<wait_op_base>;

template <typename Handler, typename IoExecutor>
class wait_op : public wait_op_base
{
public:
  // Owns the operation's memory and object until released, like the
  // handler_ptr Asio's operations use.
  struct ptr
  {
    Handler* h;
    void* v;
    wait_op* p;

    ~ptr() { reset(); }

    static void* allocate(Handler& handler)
    {
      return op_memory<wait_op, Handler>(handler).allocate();
    }

    void reset()
    {
      if (p)
      {
        p->~wait_op();
        p = 0;
      }
      if (v)
      {
        op_memory<wait_op, Handler>(*h).deallocate(v);
        v = 0;
      }
    }
  };

  wait_op(Handler& h, const IoExecutor& io_ex)
    : wait_op_base(&wait_op::do_complete), handler_(static_cast<Handler&&>(h)),
      work_(handler_, io_ex)
  {}

  // Called by the scheduler to run the handler (owner != 0) or, at shutdown,
  // to destroy it without running it (owner == 0).
  static void do_complete(void* owner, scheduler_operation* base,
      const error_code& /*scheduler_ec*/, std::size_t /*bytes*/)
  {
    wait_op* o = static_cast<wait_op*>(base);
    ptr p = {std::addressof(o->handler_), o, o};

#if defined(ASIO_WHEEL_ASIO_HAS_CANCELLATION_SLOT)
    // Disconnect our handler from the cancellation slot while the slot's
    // owner (the handler) is surely alive; a signal emitted later must find
    // nothing (Asio 1.81 would leave it pointing at a finished operation).
    if (o->has_cancellation_handler())
    {
      auto slot = asio::get_associated_cancellation_slot(o->handler_);
      slot.clear();
    }
#endif

    handler_work<Handler, IoExecutor> w(
        static_cast<handler_work<Handler, IoExecutor>&&>(o->work_));

    const error_code ec = o->aborted()
        ? error_code(asio::error::operation_aborted)
        : error_code();

    // Free the operation before the upcall; a sub-object of the handler may
    // own the memory, so the handler is moved out first.
    binder1<Handler, error_code> handler(o->handler_, ec);
    p.h = std::addressof(handler.handler_);
    p.reset();

    if (owner)
    {
      fenced_block b(fenced_block::half);
      w.complete(handler, handler.handler_);
    }
  }

private:
  Handler handler_;
  handler_work<Handler, IoExecutor> work_;
};

}  // namespace detail
ASIO_WHEEL_NAMESPACE_END

#endif  // ASIO_WHEEL_DETAIL_WAIT_OP_HPP
