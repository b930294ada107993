//
// asio_wheel/impl/wheel_timer_service_expiry.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// Setting a timer's expiry: expires_at (Asio's: its pending waits are
// aborted first) and reschedule_at (ours: they move with it); both clear
// the extension (extend_to, one relaxed store without the lock, declared in
// the class). Moving them later is one store under the lock, the wheel
// entry is re-filed lazily by the walk;
// earlier, refile_pending completes them if they are due by then, else
// moves the entry earlier if it must (refile_earlier, which a smaller
// tolerance and a new wait on a ghost filed too late use too). Included by
// impl/wheel_timer_service.hpp.
//

#ifndef ASIO_WHEEL_IMPL_WHEEL_TIMER_SERVICE_EXPIRY_HPP
#define ASIO_WHEEL_IMPL_WHEEL_TIMER_SERVICE_EXPIRY_HPP

#include <asio_wheel/wheel_timer_service.hpp>

ASIO_WHEEL_NAMESPACE_BEGIN

template <typename Clock, typename WaitTraits>
inline auto wheel_timer_service<Clock, WaitTraits>::expiry(
    const implementation_type& impl) const -> time_point
{
  return impl.effective();
}

template <typename Clock, typename WaitTraits>
inline std::size_t wheel_timer_service<Clock, WaitTraits>::expires_at(
    implementation_type& impl, const time_point& t)
{
  return cancel_and_set_expiry(impl, ~std::size_t(0), t, now_if_tolerant(impl));
}

template <typename Clock, typename WaitTraits>
inline std::size_t wheel_timer_service<Clock, WaitTraits>::expires_at(
    implementation_type& impl, const time_point& t, const time_point& now)
{
  return cancel_and_set_expiry(impl, ~std::size_t(0), t, now);
}

template <typename Clock, typename WaitTraits>
inline std::size_t wheel_timer_service<Clock, WaitTraits>::reschedule_at(
    implementation_type& impl, const time_point& t)
{
  return move_expiry(impl, t, now_if_tolerant(impl));
}

template <typename Clock, typename WaitTraits>
inline std::size_t wheel_timer_service<Clock, WaitTraits>::reschedule_at(
    implementation_type& impl, const time_point& t, const time_point& now)
{
  return move_expiry(impl, t, now);
}

template <typename Clock, typename WaitTraits>
inline std::size_t
wheel_timer_service<Clock, WaitTraits>::cancel_and_set_expiry(
    implementation_type& impl, std::size_t max_aborted, const time_point& t,
    const time_point& now)
{
  slice_request request;
  std::size_t n = 0;
  {
    lock_type lock(mutex_);
    n = abort_waits(impl, request, max_aborted);
    impl.set_expiry(t);
    set_context_slack(impl, t, now);
  }
  slices_.send(request);
  return n;
}

template <typename Clock, typename WaitTraits>
inline std::size_t wheel_timer_service<Clock, WaitTraits>::move_expiry(
    implementation_type& impl, const time_point& t, const time_point& now)
{
  slice_request request;
  std::size_t moved = 0;
  {
    lock_type lock(mutex_);
    // The effective expiry, extension included: the entry may be filed for
    // it.
    const time_point old_expiry = impl.effective();
    impl.set_expiry(t);
    const bool less_tolerance = set_context_slack(impl, t, now);
    if (impl.waits.empty())
      return 0;
    moved = impl.waits.size();
    // Later, with no less tolerance: the due tick can only be later too,
    // so filed_tick stays <= it and the entry is re-filed lazily. Unless an
    // extension moved earlier after the walk had filed the entry for a
    // later one (see the ground rules): then the tick it is filed at may lie
    // beyond t's, which at_or_before_due tells without a division.
    if (!(t < old_expiry) && !less_tolerance
        && grid_.at_or_before_due(impl.filed_tick(), t))
      return moved;
    refile_pending(impl, request);
  }
  slices_.send(request);
  return moved;
}

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::refile_pending(
    implementation_type& impl, slice_request& request)
{
  if (impl.waits.empty())
    return;
  const time_point expiry = impl.effective();
  const tick_type precise = grid_.due_tick(expiry);
  if (precise <= wheel_.horizon() && !rewound_for(expiry))
  {
    wheel_.erase(impl);
    expire(impl, Clock::now(),
        [&](detail::wait_op_base* op) { slices_.complete(request, op); });
    disarm_if_idle();
    return;
  }
  const tick_type due = tolerant(precise, impl);
  if (due < impl.filed_tick())
    refile_earlier(impl, due);
}

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::refile_earlier(
    implementation_type& impl, tick_type due)
{
  wheel_.erase(impl);
  wheel_.insert(impl, due);
  drive_.arm_no_later_than(due);
}

ASIO_WHEEL_NAMESPACE_END

#endif  // ASIO_WHEEL_IMPL_WHEEL_TIMER_SERVICE_EXPIRY_HPP
