//
// asio_wheel/impl/wheel_timer_service_cancel.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// Aborting waits before their expiry: cancel and cancel_one, abort_waits
// (which expires_at and a timer's destruction use too), the per-operation
// cancellation of one wait through its handler's slot (cancel_wait), and
// retire, which decides what becomes of the wheel entry of a timer whose
// last wait was aborted: a ghost, or unlinked. Aborted waits complete with
// operation_aborted through the completion slices, after the lock is
// released. Included by impl/wheel_timer_service.hpp.
//

#ifndef ASIO_WHEEL_IMPL_WHEEL_TIMER_SERVICE_CANCEL_HPP
#define ASIO_WHEEL_IMPL_WHEEL_TIMER_SERVICE_CANCEL_HPP

#include <asio_wheel/wheel_timer_service.hpp>

ASIO_WHEEL_NAMESPACE_BEGIN

template <typename Clock, typename WaitTraits>
inline std::size_t wheel_timer_service<Clock, WaitTraits>::cancel(
    implementation_type& impl)
{
  return cancel_and_set_expiry(impl, ~std::size_t(0));
}

template <typename Clock, typename WaitTraits>
inline std::size_t wheel_timer_service<Clock, WaitTraits>::cancel_one(
    implementation_type& impl)
{
  return cancel_and_set_expiry(impl, 1);
}

template <typename Clock, typename WaitTraits>
inline std::size_t
wheel_timer_service<Clock, WaitTraits>::cancel_and_set_expiry(
    implementation_type& impl, std::size_t max_aborted)
{
  slice_request request;
  std::size_t n = 0;
  {
    lock_type lock(mutex_);
    n = abort_waits(impl, request, max_aborted);
  }
  slices_.send(request);
  return n;
}

template <typename Clock, typename WaitTraits>
inline std::size_t wheel_timer_service<Clock, WaitTraits>::abort_waits(
    implementation_type& impl, slice_request& request, std::size_t max_aborted)
{
  std::size_t n = 0;
  if (max_aborted != 0 && impl.waits.lone())
  {
    // The usual lone wait (a re-arm on every message): unqueued from the
    // timer alone; its operation is posted by itself or left untouched, not
    // even read, until the marking tells its owner, if it has a hook (see
    // abort_lone_wait).
    slices_.abort_lone_wait(request, impl.waits.front());
    impl.waits.clear();
    n = 1;
  }
  while (n < max_aborted)
  {
    detail::wait_op_base* op = impl.waits.front();
    if (!op)
      break;
    impl.waits.pop();
    op->mark_aborted();
    slices_.complete(request, op);
    ++n;
  }
  if (n != 0)
  {
    stats_.pending_waits -= n;
    stats_.waits_cancelled += n;
    if (impl.waits.empty())
      retire(impl);
  }
  return n;
}

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::cancel_wait(
    detail::wait_op_base* target)
{
  slice_request request;
  {
    lock_type lock(mutex_);
    // A deferred abort still has its timer set: mark it aborted first.
    slices_.mark_deferred_aborts();
    detail::timer_waits* timer = target->timer;
    if (!timer)
      return;  // already expired or aborted
    timer->waits.remove(target);
    target->mark_aborted();
    slices_.complete(request, target);
    --stats_.pending_waits;
    ++stats_.waits_cancelled;
    if (timer->waits.empty())
      retire(static_cast<implementation_type&>(*timer));
  }
  slices_.send(request);
}

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::retire(
    implementation_type& impl)
{
  --stats_.timers_in_wheel;
  if (impl.filed_tick() <= drive_.armed_tick())
    wheel_.erase(impl);
  disarm_if_idle();
}

ASIO_WHEEL_NAMESPACE_END

#endif  // ASIO_WHEEL_IMPL_WHEEL_TIMER_SERVICE_CANCEL_HPP
