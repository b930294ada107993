//
// asio_wheel/beast/detail/stream_timeouts.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The stream's timeouts: what Beast's op_state holds, with its steady_timer
// replaced by a wheel entry. Each of the stream's two op_states (read and
// write; connect uses the write one) embeds one timeout_op, a wheel entry
// with its wait operation: arm_timeout files it when a timed operation
// starts, end_timeout withdraws it when the operation completes and turns a
// fire that came first into boost::beast::error::timeout; a fire's upcall
// (fire_handler) closes the socket on the operation's executor.
//
// Impl is the stream's shared state (detail/stream_state.hpp): the timeouts
// use its wheel (service), its context and executors (context, stream_ex,
// is_native_stream_executor), its close() and its shared ownership.
//
// arm_timeout and end_timeout are declared inline, as the members of the
// stream's ops that they were: GCC's inliner gives inline functions more
// room (test/bench/callgrind_stream_pairs.sh counts the difference).
//

#ifndef ASIO_WHEEL_BEAST_DETAIL_STREAM_TIMEOUTS_HPP
#define ASIO_WHEEL_BEAST_DETAIL_STREAM_TIMEOUTS_HPP

#include <asio_wheel/beast/detail/executor_queries.hpp>
#include <asio_wheel/detail/asio_forward.hpp>
#include <asio_wheel/detail/asio_operation.hpp>
#include <asio_wheel/detail/wait_op.hpp>
#include <asio_wheel/wheel_timer_service.hpp>

#include <boost/asio/post.hpp>
#include <boost/assert.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/shared_ptr.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

ASIO_WHEEL_NAMESPACE_BEGIN
namespace beast {
namespace detail {

// The clock of the stream's timeouts, and the wheel that holds them (the one
// of the socket's execution context).
using timeout_clock = std::chrono::steady_clock;
using timeout_service = wheel_timer_service<timeout_clock>;

// Counts an op_state's completed timed operations: an upcall armed in an
// earlier generation is stale. (Beast calls it a tick; the wheel's ticks
// are time.)
using generation_type = std::uint64_t;

// The expiry of an op_state with no timeout.
inline timeout_clock::time_point never() noexcept
{
  return (timeout_clock::time_point::max)();
}

template <class Impl>
struct op_state;

template <class Impl>
struct fire_handler;

// One timeout: a wheel entry and its one wait operation. Each op_state
// embeds one; another is allocated only when the embedded one is still on
// its way to its upcall (a fire decided just as its operation completed)
// and the next operation already starts.
//
// While armed, the timeout needs no reference to the stream's state: the
// operation it times is pending and holds one. Once the wheel decides it,
// that operation may complete (its withdraw fails) and the stream go before
// the completion below runs, so the wheel's hook takes a reference then,
// under the wheel's lock, where it cannot race with the withdraw: arming
// and withdrawing touch no reference count.
template <class Impl>
struct timeout_op : ::asio_wheel::detail::hooked_wait_op
{
  explicit timeout_op(op_state<Impl>* s, bool on_heap) noexcept
    : hooked_wait_op(&timeout_op::do_complete, &timeout_op::on_decided),
      state(s), heap(on_heap)
  {}

  timeout_service::implementation_type entry;
  op_state<Impl>* const state;
  Impl* impl = nullptr;  // the stream's state, set when armed
  boost::shared_ptr<Impl> keep;  // taken when decided (on_decided)
  // The operation's executor when the upcall is to run there (op_state's
  // arm), from the arm to the withdraw or the upcall; empty otherwise (the
  // upcall then runs on the stream's), so that the work it may track never
  // outlives the operation (or run() would not return while the stream
  // exists).
  asio::any_io_executor fire_ex;
  generation_type generation = 0;
  std::atomic<bool> busy{false};  // armed, or its upcall on its way
  const bool heap;

  // The wheel decided the timeout (it expired, or is abandoned at
  // shutdown). The operation is still pending: its state is alive.
  static void on_decided(::asio_wheel::detail::hooked_wait_op* base) noexcept
  {
    timeout_op* o = static_cast<timeout_op*>(base);
    o->keep = o->impl->weak_from_this().lock();
    BOOST_ASSERT(o->keep);
  }

  // Ready for the next arm: the embedded one is free again, one from the
  // heap is deleted.
  void release() noexcept
  {
    if (heap)
      delete this;
    else
      busy.store(false, std::memory_order_release);
  }

  // The wheel decided the timeout (owner != 0), or the context is shutting
  // down (owner == 0). Any thread running the context; never inside the
  // wheel's lock.
  static void do_complete(void* owner,
      ::asio_wheel::detail::scheduler_operation* base,
      const ::asio_wheel::error_code&, std::size_t)
  {
    timeout_op* o = static_cast<timeout_op*>(base);
    boost::shared_ptr<Impl> sp(std::move(o->keep));
    op_state<Impl>* const st = o->state;
    const generation_type generation = o->generation;
    // Moved out (leaving it empty), also at shutdown.
    asio::any_io_executor ex(std::move(o->fire_ex));
    o->release();
    if (!owner)
      return;  // destroyed with the context: drops the stream's state
    // Close the socket where Beast's timeout handler would: on the
    // operation's executor, serialized with the operation's own steps.
    if (ex)
      asio::post(ex, fire_handler<Impl>{std::move(sp), st, generation});
    else
    {
      const auto stream_ex = sp->stream_ex;
      asio::post(stream_ex, fire_handler<Impl>{std::move(sp), st, generation});
    }
  }
};

// The timeout's upcall, on the operation's executor.
template <class Impl>
struct fire_handler
{
  boost::shared_ptr<Impl> sp;
  op_state<Impl>* st;
  generation_type generation;

  void operator()()
  {
    // Stale: the operation it was armed for has completed.
    if (generation < st->generation)
      return;
    st->timeout = true;
    sp->close();
  }
};

// What Beast's op_state holds, with the timer replaced by a wheel entry.
template <class Impl>
struct op_state
{
  using time_point = timeout_clock::time_point;

  timeout_op<Impl> embedded{this, false};
  timeout_op<Impl>* armed = nullptr;  // the armed timeout, if any
  time_point expiry = never();
  ::asio_wheel::detail::timer_slack slack;  // how late it may fire
  generation_type generation = 0;  // of the operation pending or next
  bool pending = false;  // an operation of this kind is pending
  bool timeout = false;  // the timeout closed the socket

  op_state() = default;
  op_state(const op_state&) = delete;
  op_state& operator=(const op_state&) = delete;

  // Arms the timeout for the operation starting now, whose handler has no
  // executor of its own: its upcall runs on the stream's executor.
  void arm(Impl& impl) { file(impl, take(impl)); }

  // Arms the timeout for the operation starting now, whose executor is
  // @p op_ex (its handler's associated executor). The handler has one of
  // its own (a strand bound with bind_executor, say): the upcall runs
  // there, as Beast's timeout handler does, provided it is an executor of
  // the stream's own context. Others (use_future's, which runs functions
  // on the system executor's threads) would touch the socket from a thread
  // of another context: the upcall then runs on the stream's executor.
  //
  // The executor is kept as it comes (moved in, neither converted nor
  // compared: with a strand each would be a reference-counted heap
  // object), work tracking and all, as Beast binds its timer's handler to
  // it. It lives only while the operation is pending, which tracks that
  // work anyway: the withdraw drops it, or the upcall.
  template <class OpExecutor>
  void arm(Impl& impl, OpExecutor op_ex)
  {
    timeout_op<Impl>* o = take(impl);
    if constexpr (std::is_convertible<OpExecutor, asio::any_io_executor>::value)
    {
      if (!impl.is_native_stream_executor(op_ex)
          && &detail::context_of(op_ex) == impl.context)
      {
        o->fire_ex = std::move(op_ex);
      }
    }
    file(impl, o);
  }

  // The operation completed: withdraws its timeout. True if the timeout
  // fired first (its upcall is on its way or has run).
  bool disarm(Impl& impl)
  {
    timeout_op<Impl>* o = std::exchange(armed, nullptr);
    ++generation;
    if (!impl.service.withdraw_timeout(o->entry, o))
      return true;
    if (o->fire_ex)
      o->fire_ex = asio::any_io_executor();
    o->release();
    return false;
  }

private:
  // The embedded timeout, or a new one while the embedded one is still on
  // its way to its upcall.
  timeout_op<Impl>* take(Impl& impl)
  {
    timeout_op<Impl>* o = &embedded;
    if (o->busy.load(std::memory_order_acquire))
      o = new timeout_op<Impl>(this, true);
    o->busy.store(true, std::memory_order_relaxed);
    o->generation = generation;
    o->impl = &impl;
    return o;
  }

  void file(Impl& impl, timeout_op<Impl>* o)
  {
    armed = o;
    impl.service.arm_timeout(o->entry, o, expiry, slack);
  }
};

// Arms st's timeout for op, an operation starting now whose handler is of
// type Handler: op's executor is the stream's unless the handler has one
// of its own, so without one it is neither asked for (a copy) nor
// compared. With one, it is the handler's: asked of the handler directly,
// which spares the copy of op's own fallback that op.get_executor() makes
// (each layer of Beast's composed operations makes one more).
template <class Handler, class Impl, class Op>
inline void arm_timeout(Impl& impl, op_state<Impl>& st, const Op& op)
{
  if constexpr (has_executor_of_its_own<Handler>::value)
    st.arm(impl, asio::get_associated_executor(op.handler(), impl.stream_ex));
  else
    st.arm(impl);
}

// The operation is over: withdraws its timeout, if one is armed. If the
// timeout fired first and closed the socket, the result is timeout. The
// last step of every timed operation (reads, writes and connects alike).
template <class Impl>
inline void end_timeout(
    Impl& impl, op_state<Impl>& st, ::boost::beast::error_code& ec)
{
  if (!st.armed)
    return;
  if (st.disarm(impl) && st.timeout)
  {
    ec = ::boost::beast::error::timeout;
    st.timeout = false;
  }
}

}  // namespace detail
}  // namespace beast
ASIO_WHEEL_NAMESPACE_END

#endif  // ASIO_WHEEL_BEAST_DETAIL_STREAM_TIMEOUTS_HPP
