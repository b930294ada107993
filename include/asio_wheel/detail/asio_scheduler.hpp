//
// asio_wheel/detail/asio_scheduler.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The scheduler and reactor hooks: how the service reaches the io_context's
// scheduler (to post completions and count work, and the posts of the
// handler the calling thread runs), the reactor's timer queue
// (where the one drive timer lives), and how many threads the context was
// configured for. These are the Asio internals that differ between versions;
// the version gates come from config.hpp and are used here and nowhere else.
//
//   Asio        concurrency hint and locking        reactor timer queue
//   < 1.34      scheduler::concurrency_hint()       timer_queue<TimeTraits>
//   1.34, 1.35  config service ("scheduler" keys)   timer_queue<TimeTraits>
//   >= 1.36     config service                      timer_queue<TimeTraits,
//                                                     Allocator>
//
// The reactor is whatever Asio's timer_scheduler is for the build: epoll,
// kqueue, select, or the io_uring service with BOOST_ASIO_HAS_IO_URING and
// BOOST_ASIO_DISABLE_EPOLL (ASIO_HAS_IO_URING, ASIO_DISABLE_EPOLL).
//
// On IOCP (Windows, ASIO_WHEEL_ASIO_HAS_IOCP) one service plays both parts:
// the io_context's implementation is win_iocp_io_context, which runs the
// handlers, counts the work and also owns the timer queues. There,
// use_service<asio::detail::scheduler> would still compile but would make a
// second, unrelated scheduler with a thread of its own, so `scheduler` below
// names win_iocp_io_context. Its members the service uses
// (post_immediate_completion, post_deferred_completions, work_started,
// work_finished, abandon_operations; init_task, add_timer_queue,
// schedule_timer, cancel_timer) have the same meaning as the scheduler's and
// the reactor's. What differs is when a due timer is noticed: the earliest
// deadline of all the context's timer queues is set on a Windows waitable
// timer; a thread of the context waits on it and posts a wake-up packet, and
// the next thread in run() or poll() collects the due timers. So the drive
// timer is as late as that waitable timer (the system timer resolution,
// 15.6 ms by default on Windows) plus a thread hop; see doc/design.md.
//
// Asio's Windows Runtime backend is not supported (see config.hpp).
//

#ifndef ASIO_WHEEL_DETAIL_ASIO_SCHEDULER_HPP
#define ASIO_WHEEL_DETAIL_ASIO_SCHEDULER_HPP

#include <asio_wheel/detail/asio_forward.hpp>
#include <asio_wheel/detail/asio_operation.hpp>

#include <cstdlib>

#if defined(ASIO_WHEEL_STANDALONE)
# include <asio/detail/concurrency_hint.hpp>
# if defined(ASIO_WHEEL_ASIO_HAS_IOCP)
#  include <asio/detail/win_iocp_io_context.hpp>
# else
#  include <asio/detail/call_stack.hpp>
#  include <asio/detail/scheduler.hpp>
#  include <asio/detail/scheduler_thread_info.hpp>
#  include <asio/detail/thread_context.hpp>
# endif
# include <asio/detail/timer_queue.hpp>
# include <asio/detail/timer_scheduler.hpp>
# include <asio/detail/wait_op.hpp>
# if defined(ASIO_WHEEL_ASIO_HAS_CONFIG_SERVICE)
#  include <asio/config.hpp>
# endif
# define ASIO_WHEEL_DETAIL_HINT_IS_LOCKING(facility, hint)                     \
  ASIO_CONCURRENCY_HINT_IS_LOCKING(facility, hint)
#else
# include <boost/asio/detail/concurrency_hint.hpp>
# if defined(ASIO_WHEEL_ASIO_HAS_IOCP)
#  include <boost/asio/detail/win_iocp_io_context.hpp>
# else
#  include <boost/asio/detail/call_stack.hpp>
#  include <boost/asio/detail/scheduler.hpp>
#  include <boost/asio/detail/scheduler_thread_info.hpp>
#  include <boost/asio/detail/thread_context.hpp>
# endif
# include <boost/asio/detail/timer_queue.hpp>
# include <boost/asio/detail/timer_scheduler.hpp>
# include <boost/asio/detail/wait_op.hpp>
# if defined(ASIO_WHEEL_ASIO_HAS_CONFIG_SERVICE)
#  include <boost/asio/config.hpp>
# endif
# define ASIO_WHEEL_DETAIL_HINT_IS_LOCKING(facility, hint)                     \
  BOOST_ASIO_CONCURRENCY_HINT_IS_LOCKING(facility, hint)
#endif

#if defined(ASIO_WHEEL_ASIO_WINDOWS_RUNTIME)
# error                                                                        \
     "asio_wheel does not support Asio's Windows Runtime backend (never built or tested); Windows desktop (IOCP) is supported"
#endif

ASIO_WHEEL_NAMESPACE_BEGIN
namespace detail {

/// The io_context's implementation: runs handlers, counts outstanding work.
#if defined(ASIO_WHEEL_ASIO_HAS_IOCP)
using scheduler = asio::detail::win_iocp_io_context;
#else
using scheduler = asio::detail::scheduler;
#endif

/// The reactor that owns the context's timer queues (epoll, io_uring, ...;
/// on IOCP the same win_iocp_io_context as `scheduler`).
using reactor = asio::detail::timer_scheduler;

/// The operation a reactor timer completes.
using reactor_wait_op = asio::detail::wait_op;

/// A timer queue in the reactor, for timers of TimeTraits.
#if defined(ASIO_WHEEL_ASIO_TIMER_QUEUE_HAS_ALLOCATOR)
template <typename TimeTraits>
class reactor_timer_queue : public asio::detail::timer_queue<TimeTraits,
                                asio::execution_context::allocator<void>>
{
public:
  explicit reactor_timer_queue(asio::execution_context& context)
    : asio::detail::timer_queue<TimeTraits,
        asio::execution_context::allocator<void>>(
        asio::execution_context::allocator<void>(context),
        1)  // heap reserve: the queue holds one timer, the drive timer
  {}
};
#else
template <typename TimeTraits>
class reactor_timer_queue : public asio::detail::timer_queue<TimeTraits>
{
public:
  explicit reactor_timer_queue(asio::execution_context&) {}
};
#endif

/// How the threads of a context may use it, as its scheduler was told.
struct scheduler_threading
{
  /// The scheduler locks: other threads may call into the context. The
  /// service's own lock follows it (off for ..._CONCURRENCY_HINT_UNSAFE).
  bool locking;

  /// At most one thread runs the context at a time (io_context(1) and the
  /// special hints that promise it), so the service may call handlers from
  /// its own operation in batches without taking work from other threads.
  bool one_thread;
};

/// The operations that the handler the calling thread runs for @p s has
/// posted so far, queued by the scheduler once that handler returns (the
/// thread's private queue, where the scheduler puts what a handler posts
/// with one thread or as a continuation); null when the calling thread runs
/// no handler of @p s, and on IOCP, which has no such queue. An operation
/// pushed there must already count as outstanding work.
inline op_queue<scheduler_operation>* running_handler_posts(
    scheduler& s) noexcept
{
#if defined(ASIO_WHEEL_ASIO_HAS_IOCP)
  (void)s;
  return nullptr;
#else
  // thread_context::thread_call_stack, a protected name since Asio 1.20.
  using call_stack = asio::detail::call_stack<asio::detail::thread_context,
      asio::detail::thread_info_base>;
  asio::detail::thread_info_base* info = call_stack::contains(&s);
  return info ? &static_cast<asio::detail::scheduler_thread_info*>(info)
                     ->private_op_queue
              : nullptr;
#endif
}

/// Reads the threading configuration of @p context, whose scheduler exists.
inline scheduler_threading threading_of(asio::execution_context& context)
{
#if defined(ASIO_WHEEL_ASIO_HAS_CONFIG_SERVICE)
  // The values are read as text: in Asio 1.34 and 1.35, config::get<int>
  // reads integers through a one-byte buffer and always returns 0. The keys
  // and their meaning are those of Asio's own scheduler; the special hints
  // reach it through config_from_concurrency_hint, which reports UNSAFE and
  // UNSAFE_IO as concurrency_hint 1 (UNSAFE also as locking 0), and SAFE as
  // 1 in Asio 1.34 and 1.35, as -1 from 1.36 on.
  const asio::config_service& config =
      asio::use_service<asio::config_service>(context);
  char hint_text[32];
  const char* hint = config.get_value(
      "scheduler", "concurrency_hint", hint_text, sizeof(hint_text));
  char locking_text[32];
  const char* locking = config.get_value(
      "scheduler", "locking", locking_text, sizeof(locking_text));
  scheduler_threading t;
  t.locking = !locking || std::strtol(locking, nullptr, 0) != 0;
  t.one_thread = (hint && std::strtol(hint, nullptr, 0) == 1) || !t.locking;
  return t;
#else
  // As the scheduler of these versions decides its own one_thread_. On IOCP,
  // win_iocp_io_context keeps the hint too (it hands it to the completion
  // port and locks regardless); reading it the scheduler's way keeps the
  // promise the hint makes: UNSAFE still means no other thread calls in.
  const int hint = asio::use_service<scheduler>(context).concurrency_hint();
  scheduler_threading t;
  t.locking = ASIO_WHEEL_DETAIL_HINT_IS_LOCKING(SCHEDULER, hint);
  t.one_thread = hint == 1 || !t.locking
      || !ASIO_WHEEL_DETAIL_HINT_IS_LOCKING(REACTOR_IO, hint);
  return t;
#endif
}

}  // namespace detail
ASIO_WHEEL_NAMESPACE_END

#endif  // ASIO_WHEEL_DETAIL_ASIO_SCHEDULER_HPP
