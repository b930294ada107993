//
// asio_wheel/impl/wheel_timer_service_slices.hpp
//
// Delivering decided waits to their handlers: the slice operation's upcall
// (on_slice) and run_slice, which takes the next slice from the completion
// slices (continuing a bounded advance of the wheel when it must) and calls
// its handlers with the lock released; resume_slices puts back what a
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
  {
    lock_type lock(self->mutex_);
    self->slices_.slice_started();
  }
  self->run_slice();
}

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::run_slice()
{
  detail::wait_op_queue batch;
  bool post_slice = false;
  {
    lock_type lock(mutex_);
    // The next part of a storm. Several threads: also when fewer than a
    // budget wait, so that half of what waits is still a full slice.
    if (wheel_.advancing()
        && (!slices_.has_expired()
            || (!slices_.one_thread()
                && slices_.queued() < options_.max_completions_per_slice)))
      advance_wheel(wheel_.horizon(), Clock::now());
    const std::size_t n = slices_.take_slice(batch,
        options_.max_completions_per_slice, wheel_.advancing(), post_slice);
    if (n != 0)
    {
      ++stats_.slices;
      stats_.sliced_completions += n;
    }
  }
  // Several threads: the rest is handed off before this batch runs, so
  // another thread can take the next slice meanwhile.
  if (post_slice)
    slices_.post_slice();

  // Call the handlers here. If one throws, what did not run is put back
  // and the exception leaves run() as with Asio's own timers. One thread:
  // the slice operation is posted again afterwards if waits remain.
  struct resume_on_exit
  {
    wheel_timer_service* service;
    detail::wait_op_queue& rest;
    ~resume_on_exit()
    {
      if (service->slices_.one_thread() || !rest.empty())
        service->resume_slices(rest);
    }
  } resume{this, batch};
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
