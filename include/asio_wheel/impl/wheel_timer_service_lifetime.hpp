//
// asio_wheel/impl/wheel_timer_service_lifetime.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The end and the moves of a timer object (basic_wheel_timer's destructor,
// move constructors and move assignment): destroy and drop abort its waits
// and unlink its wheel entry, ghost included; take_over hands another
// timer's expiry and extension, waits and place in the wheel (its hook's
// node swapped, not re-filed) to it. Included by impl/wheel_timer_service.hpp.
//

#ifndef ASIO_WHEEL_IMPL_WHEEL_TIMER_SERVICE_LIFETIME_HPP
#define ASIO_WHEEL_IMPL_WHEEL_TIMER_SERVICE_LIFETIME_HPP

#include <asio_wheel/wheel_timer_service.hpp>

ASIO_WHEEL_NAMESPACE_BEGIN

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::destroy(
    implementation_type& impl)
{
  slice_request request;
  {
    lock_type lock(mutex_);
    drop(impl, request);
  }
  slices_.send(request);
}

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::move_construct(
    implementation_type& impl, implementation_type& other)
{
  lock_type lock(mutex_);
  take_over(impl, other);
}

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::converting_move_construct(
    implementation_type& impl, wheel_timer_service&, implementation_type& other)
{
  move_construct(impl, other);
}

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::move_assign(
    implementation_type& impl, wheel_timer_service& other_service,
    implementation_type& other)
{
  if (&other_service == this)
  {
    slice_request request;
    {
      lock_type lock(mutex_);
      drop(impl, request);
      take_over(impl, other);
    }
    slices_.send(request);
  }
  else
  {
    // The object now belongs to other_service's context (io_object_impl
    // switches services after this call): drop our waits and our entry
    // (no ghost may stay behind), then take over the other timer inside
    // its own service.
    destroy(impl);
    other_service.move_construct(impl, other);
  }
}

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::drop(
    implementation_type& impl, slice_request& request)
{
  abort_waits(impl, request, ~std::size_t(0));
  if (impl.in_wheel())
    wheel_.erase(impl);
}

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::take_over(
    implementation_type& impl, implementation_type& other)
{
  // The extension too: the place in the wheel may be filed for it.
  impl.set_expiry(other.expiry);
  impl.extend_to(
      time_point(duration(other.extension.load(std::memory_order_relaxed))));
  other.set_expiry(time_point());  // as if constructed from its executor
  impl.slack = other.slack;
  other.slack = detail::timer_slack();
  impl.waits.take(other.waits);
  impl.waits.for_each([&impl](detail::wait_op_base* op) { op->timer = &impl; });
  if (other.in_wheel())
    impl.take_place_of(other);
}

ASIO_WHEEL_NAMESPACE_END

#endif  // ASIO_WHEEL_IMPL_WHEEL_TIMER_SERVICE_LIFETIME_HPP
