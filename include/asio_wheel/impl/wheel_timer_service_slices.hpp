//
// asio_wheel/impl/wheel_timer_service_slices.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// Delivering decided waits to their handlers: the slice operation's upcall
// (on_slice); take_slice, which takes the next slice from the completion
// slices (continuing a bounded advance of the wheel when it must) in the
// critical section of its caller (on_slice, or the drive timer's on_drive,
// so that a wakeup takes the lock once); run_slice, which calls its
// handlers with the lock released; resume_slices puts back what a
// one-thread slice, or a handler that threw, did not reach. The queues and
// the fairness rules are detail/completion_slices.hpp's. Included by
// impl/wheel_timer_service.hpp.
//

#ifndef ASIO_WHEEL_IMPL_WHEEL_TIMER_SERVICE_SLICES_HPP
#define ASIO_WHEEL_IMPL_WHEEL_TIMER_SERVICE_SLICES_HPP

#include <asio_wheel/wheel_timer_service.hpp>

ASIO_WHEEL_NAMESPACE_BEGIN

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::on_slice(void* owner)
{
  wheel_timer_service* self = static_cast<wheel_timer_service*>(owner);
  detail::wait_op_queue batch;
  slice_plan plan;
  {
    lock_type lock(self->mutex_);
    self->slices_.slice_started();
    plan = self->take_slice(batch);
  }
  self->run_slice(batch, plan);
}

template <typename Clock, typename WaitTraits>
inline typename wheel_timer_service<Clock, WaitTraits>::slice_plan
wheel_timer_service<Clock, WaitTraits>::take_slice(detail::wait_op_queue& batch)
{
  // The next part of a storm. Several threads: also when fewer than a
  // budget wait, so that half of what waits is still a full slice.
  if (wheel_.advancing()
      && (!slices_.has_expired()
          || (!slices_.one_thread()
              && slices_.queued() < options_.max_completions_per_slice)))
    advance_wheel(wheel_.horizon(), Clock::now());
  slice_plan plan;
  const std::size_t n = slices_.take_slice(
      batch, options_.max_completions_per_slice, wheel_.advancing(), plan);
  if (n != 0)
  {
    ++stats_.slices;
    stats_.sliced_completions += n;
  }
  return plan;
}

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::run_slice(
    detail::wait_op_queue& batch, const slice_plan& plan)
{
  // Several threads: the rest is handed off before this batch runs, so
  // another thread can take the next slice meanwhile.
  if (plan.post_first)
    slices_.post_slice();

  // Call the handlers here. If one throws, what did not run is put back
  // and the exception leaves run() as with Asio's own timers. One thread:
  // the slice operation is posted again afterwards if waits remain.
  struct resume_on_exit
  {
    wheel_timer_service* service;
    detail::wait_op_queue& rest;
    bool put_back;
    ~resume_on_exit()
    {
      if (put_back || !rest.empty())
        service->resume_slices(rest);
    }
  } resume{this, batch, plan.put_back_after};
  slices_.call_handlers(batch);
}

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::resume_slices(
    detail::wait_op_queue& rest)
{
  bool post_slice = false;
  {
    lock_type lock(mutex_);
    // Waits put back were not called: they count in the slice that calls them.
    stats_.sliced_completions -= detail::completion_slices::count(rest);
    post_slice = slices_.put_back(rest, wheel_.advancing());
  }
  if (post_slice)
    slices_.post_slice();
}

ASIO_WHEEL_NAMESPACE_END

#endif  // ASIO_WHEEL_IMPL_WHEEL_TIMER_SERVICE_SLICES_HPP
