//
// asio_wheel/detail/wait_op.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
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

#include <cassert>
#include <cstddef>
#include <cstdint>
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
  inline void notify_decided() noexcept;

  /// The service aborted this wait: off its timer, its result
  /// operation_aborted, its owner told (decided). Lock held.
  void mark_aborted() noexcept
  {
    timer = nullptr;
    set_aborted();
    notify_decided();
  }

protected:
  // The result, the slot flag and the hook flag (operation_with_flags).
  static constexpr unsigned aborted_bit = 1;
  static constexpr unsigned slot_bit = 2;
  static constexpr unsigned hook_bit = 4;

  explicit wait_op_base(func_type complete_fn) noexcept
    : operation_with_flags(complete_fn)
  {}

  bool aborted() const noexcept { return has_flags(aborted_bit); }
  bool has_cancellation_handler() const noexcept { return has_flags(slot_bit); }
};

/// A wait whose owner is told the moment the service decides it, before its
/// completion is queued: under the service's lock when it expires or is
/// aborted, and on the thread that abandons it after shutdown. Until then the
/// wait can still be withdrawn (wheel_timer_service::withdraw_timeout), so an
/// owner whose state lives as long as the operation the wait times out can
/// take, in the hook and only there, what the completion will need after that
/// operation is gone: the Beast stream takes a reference to its state there,
/// instead of one per arm.
class hooked_wait_op : public wait_op_base
{
protected:
  using hook_type = void (*)(hooked_wait_op*) noexcept;

  hooked_wait_op(func_type complete_fn, hook_type hook) noexcept
    : wait_op_base(complete_fn), hook_(hook)
  {
    set_flags(hook_bit);
  }

private:
  friend class wait_op_base;
  const hook_type hook_;
};

inline void wait_op_base::notify_decided() noexcept
{
  if (has_flags(hook_bit))
  {
    hooked_wait_op* op = static_cast<hooked_wait_op*>(this);
    op->hook_(op);
  }
}

using wait_op_queue = op_queue<wait_op_base>;

/// The pending waits of one timer, oldest first, in one word. Every timer
/// carries one, and most have no wait or one: a second pointer, the back of
/// Asio's op_queue, would cost 8 bytes on each of them. Empty: 0. One wait:
/// its address, and the wait itself is never read (the lone wait's abort, a
/// re-arm's hot path, stays within the timer). More: the newest wait's
/// address with the low bit set, the waits linked in a ring through their
/// next pointers (newest, oldest, ..., newest), so that push at the back and
/// pop at the front stay O(1).
class timer_wait_list
{
public:
  timer_wait_list() noexcept = default;
  timer_wait_list(const timer_wait_list&) = delete;
  timer_wait_list& operator=(const timer_wait_list&) = delete;

  bool empty() const noexcept { return word_ == 0; }

  /// Exactly one wait.
  bool lone() const noexcept { return word_ != 0 && !ring(); }

  /// The oldest wait, or null; read from the list alone when lone().
  wait_op_base* front() const noexcept
  {
    return ring() ? next(newest()) : op_of(word_);
  }

  /// Appends @p op, which is in no list.
  void push(wait_op_base* op) noexcept
  {
    if (word_ == 0)
    {
      become_lone(op);
      return;
    }
    wait_op_base* last = newest();
    link(op, ring() ? next(last) : last);
    link(last, op);
    word_ = word_of(op) | ring_bit;
  }

  /// Removes the oldest wait; the list is not empty.
  void pop() noexcept
  {
    if (!ring())
    {
      word_ = 0;
      return;
    }
    wait_op_base* last = newest();
    wait_op_base* first = next(last);
    wait_op_base* second = next(first);
    link(first, nullptr);
    if (second == last)
      become_lone(last);
    else
      link(last, second);
  }

  /// Removes @p op, which is in the list, keeping the others' order.
  void remove(wait_op_base* op) noexcept
  {
    if (!ring())
    {
      word_ = 0;
      return;
    }
    wait_op_base* last = newest();
    wait_op_base* before = last;
    while (next(before) != op)
      before = next(before);
    wait_op_base* after = next(op);
    link(op, nullptr);
    if (after == before)
      become_lone(before);  // two waits: the other one stays
    else
    {
      link(before, after);
      if (op == last)
        word_ = word_of(before) | ring_bit;
    }
  }

  /// Forgets every wait without reading any (for the lone one: abort_waits).
  void clear() noexcept { word_ = 0; }

  /// Takes all of @p other's waits; this list is empty.
  void take(timer_wait_list& other) noexcept
  {
    assert(word_ == 0);
    word_ = other.word_;
    other.word_ = 0;
  }

  /// The number of waits; a lone one is counted without reading it.
  std::size_t size() const noexcept
  {
    std::size_t n = 0;
    for_each([&n](wait_op_base*) noexcept { ++n; });
    return n;
  }

  /// Calls @p f with each wait, oldest first; @p f leaves the list alone.
  template <typename F>
  void for_each(F f) const
  {
    if (!ring())
    {
      if (word_ != 0)
        f(op_of(word_));
      return;
    }
    wait_op_base* last = newest();
    wait_op_base* op = next(last);
    for (;;)
    {
      f(op);
      if (op == last)
        return;
      op = next(op);
    }
  }

private:
  static constexpr std::uintptr_t ring_bit = 1;
  static_assert(alignof(wait_op_base) > ring_bit,
      "a wait's address leaves the ring bit free");

  bool ring() const noexcept { return (word_ & ring_bit) != 0; }
  wait_op_base* newest() const noexcept { return op_of(word_ & ~ring_bit); }
  void become_lone(wait_op_base* op) noexcept
  {
    link(op, nullptr);
    word_ = word_of(op);
  }

  static wait_op_base* op_of(std::uintptr_t word) noexcept
  {
    return reinterpret_cast<wait_op_base*>(word);
  }
  static std::uintptr_t word_of(wait_op_base* op) noexcept
  {
    return reinterpret_cast<std::uintptr_t>(op);
  }
  static wait_op_base* next(wait_op_base* op) noexcept
  {
    return op_queue_access::next(op);
  }
  static void link(wait_op_base* op, wait_op_base* to) noexcept
  {
    op_queue_access::next(op, to);
  }

  std::uintptr_t word_ = 0;
};

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
