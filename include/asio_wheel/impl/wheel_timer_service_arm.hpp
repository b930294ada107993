//
// asio_wheel/impl/wheel_timer_service_arm.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// Starting waits: async_wait (the operation allocated before the lock is
// taken, its handler's cancellation slot connected), the blocking wait,
// and a per-operation timeout's arm_timeout, with its inverse,
// withdraw_timeout, the pair cancel_after and the Beast stream pay for each
// timed operation (test/bench/callgrind_op_timeouts.sh counts it).
// enqueue_wait files a wait in the wheel, or decides it at once if it is
// already due; after shutdown, abandon hands it to the scheduler instead.
// Included by impl/wheel_timer_service.hpp.
//

#ifndef ASIO_WHEEL_IMPL_WHEEL_TIMER_SERVICE_ARM_HPP
#define ASIO_WHEEL_IMPL_WHEEL_TIMER_SERVICE_ARM_HPP

#include <asio_wheel/wheel_timer_service.hpp>

#include <algorithm>
#include <chrono>
#include <memory>
#include <new>
#include <thread>
#include <type_traits>

ASIO_WHEEL_NAMESPACE_BEGIN

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::wait(
    implementation_type& impl, error_code& ec)
{
  ec = error_code();
  for (time_point now = Clock::now(); now < impl.effective();
       now = Clock::now())
  {
    // Sleep in bounded steps, as Asio does, so that clock adjustments and
    // traits that shorten waits are honoured.
    const auto step = WaitTraits::to_wait_duration(
        time_traits::subtract(impl.effective(), now));
    const auto longest =
        std::chrono::duration_cast<std::decay_t<decltype(step)>>(
            std::chrono::minutes(5));
    std::this_thread::sleep_for((std::min)(step, longest));
  }
}

template <typename Clock, typename WaitTraits>
template <typename Handler, typename IoExecutor>
inline void wheel_timer_service<Clock, WaitTraits>::async_wait(
    implementation_type& impl, Handler& handler, const IoExecutor& io_ex)
{
  // A timer whose executor is a plain io_context executor behind
  // any_io_executor (the usual case), or behind a wheel_executor (a routed
  // timer), stores that 8-byte executor in the operation instead of a
  // 56-byte polymorphic one. Behaviour is identical: Asio's handler_work
  // tracks no work for either and calls the handler in place when it has no
  // associated executor of its own (detail/asio_operation.hpp).
  if constexpr (detail::may_be_native<IoExecutor>::value)
  {
    if (const auto* ex = detail::native_executor(io_ex))
    {
      start_wait<Handler, detail::native_executor_type>(impl, handler, *ex);
      return;
    }
  }
  start_wait<Handler, IoExecutor>(impl, handler, io_ex);
}

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::arm_timeout(
    implementation_type& entry, detail::wait_op_base* op,
    const time_point& expiry, detail::timer_slack slack)
{
  slice_request request;
  {
    lock_type lock(mutex_);
    entry.expiry = expiry;  // a timeout's entry is never extended
    entry.slack = slack;
    if (shutdown_)
    {
      lock.unlock();
      abandon(op);
      return;
    }
    enqueue_wait(entry, op, request);
  }
  slices_.send(request);
}

template <typename Clock, typename WaitTraits>
template <bool KeepEntry>
inline bool wheel_timer_service<Clock, WaitTraits>::withdraw_timeout(
    implementation_type& entry, detail::wait_op_base* op)
{
  {
    lock_type lock(mutex_);
    if (!op->timer)
      return false;
    entry.waits.pop();  // op, the entry's only wait
    op->timer = nullptr;
    --stats_.pending_waits;
    ++stats_.timeouts_withdrawn;
    if constexpr (KeepEntry)
      retire(entry);  // a ghost, unless the drive timer is armed for it
    else
    {
      --stats_.timers_in_wheel;
      wheel_.erase(entry);
      disarm_if_idle();
    }
  }
  // The wait's unit of work (enqueue_wait): it will not complete.
  scheduler_.work_finished();
  return true;
}

template <typename Clock, typename WaitTraits>
template <typename Handler, typename IoExecutor>
inline void wheel_timer_service<Clock, WaitTraits>::start_wait(
    implementation_type& impl, Handler& handler, const IoExecutor& io_ex)
{
#if defined(ASIO_WHEEL_ASIO_HAS_CANCELLATION_SLOT)
  auto slot = asio::get_associated_cancellation_slot(handler);
#endif

  using op = detail::wait_op<Handler, IoExecutor>;
  typename op::ptr p = {std::addressof(handler), op::ptr::allocate(handler), 0};
  p.p = new (p.v) op(handler, io_ex);

#if defined(ASIO_WHEEL_ASIO_HAS_CANCELLATION_SLOT)
  if (slot.is_connected())
  {
    slot.template emplace<op_cancellation>(this, p.p);
    p.p->set_has_cancellation_handler();
  }
#endif

  slice_request request;
  {
    lock_type lock(mutex_);
    if (shutdown_)
    {
      lock.unlock();
      abandon(p.p);
      p.v = p.p = 0;
      return;
    }
    enqueue_wait(impl, p.p, request);
    p.v = p.p = 0;
  }
  slices_.send(request);
}

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::abandon(
    detail::wait_op_base* op)
{
  op->decided();
  scheduler_.post_immediate_completion(op, false);
}

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::enqueue_wait(
    implementation_type& impl, detail::wait_op_base* op, slice_request& request)
{
  scheduler_.work_started();
  const time_point expiry = impl.effective();
  const tick_type precise = grid_.due_tick(expiry);
  // (With waits already queued on the timer, a bounded advance has yet
  // to reach them: join them so that they all complete in order.)
  if (precise <= wheel_.horizon() && impl.waits.empty() && !rewound_for(expiry))
  {
    // Already due: completes soon with success, never inside async_wait.
    ++stats_.waits_expired;
    op->decided();
    slices_.complete(request, op);
    return;
  }
  op->timer = &impl;
  const bool first_wait = impl.waits.empty();
  impl.waits.push(op);
  ++stats_.pending_waits;
  if (!first_wait)
    return;
  ++stats_.timers_in_wheel;
  const tick_type due = tolerant(precise, impl);
  if (!impl.in_wheel())
  {
    wheel_.insert(impl, due);
    drive_.arm_no_later_than(due);
  }
  else if (due < impl.filed_tick())
    refile_earlier(impl, due);  // a ghost filed too late
  else
  {
    // A ghost filed at or before the new due tick: reuse it as it is
    // (the walk re-files it lazily), no list operation.
    drive_.arm_no_later_than(impl.filed_tick());
  }
}

ASIO_WHEEL_NAMESPACE_END

#endif  // ASIO_WHEEL_IMPL_WHEEL_TIMER_SERVICE_ARM_HPP
