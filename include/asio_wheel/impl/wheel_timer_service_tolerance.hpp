//
// asio_wheel/impl/wheel_timer_service_tolerance.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// How late a wait may complete, in whole ticks: a timer's own tolerance
// (tolerance), a per-operation timeout's (slack_for, slack_of), or the
// context's fraction of the length of the wait (wheel_options::tolerance;
// context_slack, set_context_slack, and now_if_tolerant, which reads the
// clock only when that is needed), and the tick where a wait due at a
// given tick completes under it (tolerant). Included by
// impl/wheel_timer_service.hpp.
//

#ifndef ASIO_WHEEL_IMPL_WHEEL_TIMER_SERVICE_TOLERANCE_HPP
#define ASIO_WHEEL_IMPL_WHEEL_TIMER_SERVICE_TOLERANCE_HPP

#include <asio_wheel/wheel_timer_service.hpp>

#include <stdexcept>

ASIO_WHEEL_NAMESPACE_BEGIN

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::tolerance(
    implementation_type& impl, const duration& d)
{
  if (d < duration::zero())
    throw std::invalid_argument(
        "asio_wheel::basic_wheel_timer::tolerance must not be negative");
  slice_request request;
  {
    lock_type lock(mutex_);
    const tick_type old = impl.slack.ticks();
    impl.slack.set_own(grid_.ticks_in(d));
    if (impl.slack.ticks() < old)
      refile_pending(impl, request);
  }
  slices_.send(request);
}

template <typename Clock, typename WaitTraits>
inline auto wheel_timer_service<Clock, WaitTraits>::tolerance(
    const implementation_type& impl) const -> duration
{
  return tick_duration() * impl.slack.ticks();
}

template <typename Clock, typename WaitTraits>
template <typename Length>
inline detail::timer_slack wheel_timer_service<Clock, WaitTraits>::slack_for(
    detail::timer_slack slack, Length&& length) const
{
  if (!slack.own() && context_tolerant_)
    slack.set_from_context(context_slack(length()));
  return slack;
}

template <typename Clock, typename WaitTraits>
inline detail::tick_type wheel_timer_service<Clock, WaitTraits>::slack_of(
    const duration& tolerance) const noexcept
{
  return grid_.ticks_in(tolerance);
}

template <typename Clock, typename WaitTraits>
inline auto wheel_timer_service<Clock, WaitTraits>::now_if_tolerant(
    const implementation_type& impl) const -> time_point
{
  return context_tolerant_ && !impl.slack.own() ? Clock::now() : time_point();
}

template <typename Clock, typename WaitTraits>
inline bool wheel_timer_service<Clock, WaitTraits>::set_context_slack(
    implementation_type& impl, const time_point& t, const time_point& now)
{
  if (!context_tolerant_ || impl.slack.own())
    return false;  // the default: one flag read
  const tick_type old = impl.slack.ticks();
  impl.slack.set_from_context(context_slack(time_traits::subtract(t, now)));
  return impl.slack.ticks() < old;
}

template <typename Clock, typename WaitTraits>
inline auto wheel_timer_service<Clock, WaitTraits>::context_slack(
    const duration& length) const noexcept -> tick_type
{
  if (!context_tolerant_ || length <= duration::zero())
    return 0;
  // The fraction of the length, then whole ticks. The product is at most
  // the length, but rounded: capped at it.
  const double part = static_cast<double>(length.count()) * options_.tolerance;
  return grid_.ticks_in(part < static_cast<double>(length.count())
          ? duration(static_cast<typename duration::rep>(part))
          : length);
}

template <typename Clock, typename WaitTraits>
inline auto wheel_timer_service<Clock, WaitTraits>::tolerant(
    tick_type precise, const implementation_type& impl) -> tick_type
{
  return detail::coalesced_tick(precise, impl.slack.ticks());
}

template <typename Clock, typename WaitTraits>
inline auto
wheel_timer_service<Clock, WaitTraits>::tick_duration() const noexcept
    -> duration
{
  return grid_.time_of(1) - grid_.time_of(0);
}

ASIO_WHEEL_NAMESPACE_END

#endif  // ASIO_WHEEL_IMPL_WHEEL_TIMER_SERVICE_TOLERANCE_HPP
