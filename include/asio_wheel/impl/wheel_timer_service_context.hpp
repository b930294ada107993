//
// asio_wheel/impl/wheel_timer_service_context.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// wheel_timer_service as its execution context sees it: of(), the lookup
// of a context's service that cancel_after makes per operation, with a
// per-thread memory of the last context in place of the registry's lock;
// stats(), the counters the lock guards, with those its parts keep; and
// shutdown(), after which every pending wait is destroyed without its
// handler being called, as Asio's timers are, and a new one is abandoned.
// Included by impl/wheel_timer_service.hpp.
//

#ifndef ASIO_WHEEL_IMPL_WHEEL_TIMER_SERVICE_CONTEXT_HPP
#define ASIO_WHEEL_IMPL_WHEEL_TIMER_SERVICE_CONTEXT_HPP

#include <asio_wheel/wheel_timer_service.hpp>

#include <atomic>
#include <cstdint>

ASIO_WHEEL_NAMESPACE_BEGIN

template <typename Clock, typename WaitTraits>
inline auto wheel_timer_service<Clock, WaitTraits>::of(
    asio::execution_context& context) -> wheel_timer_service&
{
  last_lookup& last = last_lookup_;
  // A service that shut down (its context is being destroyed) changes the
  // generation, so a new context at the same address is never mistaken
  // for the old one.
  const std::uint64_t generation = shutdowns_.load(std::memory_order_acquire);
  if (last.context != &context || last.generation != generation)
  {
    last.service = &asio::use_service<wheel_timer_service>(context);
    last.context = &context;
    last.generation = generation;
  }
  return *last.service;
}

template <typename Clock, typename WaitTraits>
inline wheel_stats wheel_timer_service<Clock, WaitTraits>::stats() const
{
  lock_type lock(mutex_);
  wheel_stats s = stats_;
  s.queued_completions = slices_.queued();
  s.posted_completions = slices_.posted_alone();
  s.lazy_refilings = wheel_.lazy_refilings();
  s.round_revisits = wheel_.round_revisits();
  s.cascades = wheel_.cascades();
  s.drive_arms = drive_.arms();
  s.drive_cancels = drive_.cancels();
  s.drive_arms_ahead = drive_.arms_ahead();
  return s;
}

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::shutdown()
{
  detail::wait_op_queue ops;
  {
    lock_type lock(mutex_);
    shutdown_ = true;
    shutdowns_.fetch_add(1, std::memory_order_acq_rel);  // see of()
    slices_.take_all(ops);
    wheel_.clear([&ops](detail::wheel_entry& e) {
      auto& impl = static_cast<implementation_type&>(e);
      while (detail::wait_op_base* op = impl.waits.front())
      {
        impl.waits.pop();
        op->timer = nullptr;
        op->decided();
        ops.push(op);
      }
    });
    stats_.pending_waits = 0;
    stats_.timers_in_wheel = 0;
  }
  // Destroyed without being invoked, as Asio does with its own timers.
  detail::op_queue<detail::scheduler_operation> base_ops;
  base_ops.push(ops);
  scheduler_.abandon_operations(base_ops);
}

ASIO_WHEEL_NAMESPACE_END

#endif  // ASIO_WHEEL_IMPL_WHEEL_TIMER_SERVICE_CONTEXT_HPP
