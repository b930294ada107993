//
// asio_wheel/detail/asio_scheduler.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The scheduler and reactor hooks: how the service reaches the io_context's
// scheduler (to post completions and count work), how it becomes one of the
// reactor's timer queues, and whether the context's scheduler locks. These
// are the Asio internals that differ between versions; the version gates
// come from config.hpp and are used here and nowhere else.
//
//   Asio        concurrency hint and locking        reactor timer queue
//   < 1.34      scheduler::concurrency_hint()       timer_queue<TimeTraits>
//   1.34, 1.35  config service ("scheduler" keys)   timer_queue<TimeTraits>
//   >= 1.36     config service                      timer_queue<TimeTraits,
//                                                     Allocator>
//
// The wheel is a timer queue of the reactor, as Asio's own timer queue is:
// the reactor asks it, under the reactor's lock, how long it may sleep
// (wait_duration_*) and, when it wakes, for the operations that are due
// (get_ready_timers), which it hands to the scheduler with its I/O
// completions. So a wait's completion is one scheduler operation, as a
// steady_timer's is, counted by run(), run_one() and stop() as Asio counts
// it. The reactor takes queues of its own timer_queue template only, so the
// wheel's is a specialization of it for a traits type of this library,
// which forwards to the service (wheel_reactor_queue below).
//
// The reactor learns of a new earliest deadline when schedule_timer() files
// a timer that its queue reports as the earliest. The wheel files its waits
// itself, under its own lock; when one makes its deadline earlier than the
// one it last reported, it calls schedule_timer() with an empty timer of its
// own (a "poke"): the queue files nothing and answers "earliest", and the
// reactor asks every queue for its deadline again (a timerfd, an io_uring
// timeout, a waitable timer, or an interrupt of the reactor's wait).
//
// The reactor is whatever Asio's timer_scheduler is for the build: epoll,
// kqueue, select, or the io_uring service with BOOST_ASIO_HAS_IO_URING and
// BOOST_ASIO_DISABLE_EPOLL (ASIO_HAS_IO_URING, ASIO_DISABLE_EPOLL). On IOCP
// (Windows, ASIO_WHEEL_ASIO_HAS_IOCP) one service plays both parts: the
// io_context's implementation is win_iocp_io_context, which runs the
// handlers, counts the work and also owns the timer queues; there,
// use_service<asio::detail::scheduler> would make a second, unrelated
// scheduler, so `scheduler` below names win_iocp_io_context. Its due timers
// are noticed through a Windows waitable timer, at the system timer's
// resolution, as Asio's own timers are.
//
// Asio's Windows Runtime backend is not supported (see config.hpp).
//

#ifndef ASIO_WHEEL_DETAIL_ASIO_SCHEDULER_HPP
#define ASIO_WHEEL_DETAIL_ASIO_SCHEDULER_HPP

#include <asio_wheel/detail/asio_forward.hpp>
#include <asio_wheel/detail/asio_operation.hpp>

#include <cstdlib>
#include <memory>

#if defined(ASIO_WHEEL_STANDALONE)
# include <asio/detail/concurrency_hint.hpp>
# if defined(ASIO_WHEEL_ASIO_HAS_IOCP)
#  include <asio/detail/win_iocp_io_context.hpp>
# else
#  include <asio/detail/scheduler.hpp>
# endif
# include <asio/detail/conditionally_enabled_mutex.hpp>
# include <asio/detail/mutex.hpp>
# include <asio/detail/timer_queue.hpp>
# include <asio/detail/timer_queue_base.hpp>
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
#  include <boost/asio/detail/scheduler.hpp>
# endif
# include <boost/asio/detail/conditionally_enabled_mutex.hpp>
# include <boost/asio/detail/mutex.hpp>
# include <boost/asio/detail/timer_queue.hpp>
# include <boost/asio/detail/timer_queue_base.hpp>
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

/// The lock of the service: Asio's own mutex type, on or off as the
/// context's scheduler locks or not.
#if defined(ASIO_WHEEL_ASIO_MUTEX_IS_TEMPLATE)
using service_mutex =
    asio::detail::conditionally_enabled_mutex<asio::detail::mutex>;
#else
using service_mutex = asio::detail::conditionally_enabled_mutex;
#endif

/// The traits type of the wheel's timer queue: it selects the
/// specialization of Asio's timer_queue below. Owner is the service.
template <typename Owner>
struct wheel_queue_traits
{
  using time_type = int;  // what the poke's schedule_timer is given
};

/// Whether the scheduler of @p context locks: other threads may call into
/// the context. The service's own lock follows it (off for
/// ..._CONCURRENCY_HINT_UNSAFE), as the reactor's does.
inline bool scheduler_locks(asio::execution_context& context)
{
#if defined(ASIO_WHEEL_ASIO_HAS_CONFIG_SERVICE)
  // Read as text: in Asio 1.34 and 1.35, config::get<int> reads integers
  // through a one-byte buffer and always returns 0. The key is that of
  // Asio's own scheduler; UNSAFE reaches it as locking 0.
  const asio::config_service& config =
      asio::use_service<asio::config_service>(context);
  char text[32];
  const char* locking =
      config.get_value("scheduler", "locking", text, sizeof(text));
  return !locking || std::strtol(locking, nullptr, 0) != 0;
#else
  // As the scheduler of these versions decides it. On IOCP,
  // win_iocp_io_context keeps the hint too (it hands it to the completion
  // port and locks regardless); reading it the scheduler's way keeps the
  // promise the hint makes: UNSAFE still means no other thread calls in.
  const int hint = asio::use_service<scheduler>(context).concurrency_hint();
  return ASIO_WHEEL_DETAIL_HINT_IS_LOCKING(SCHEDULER, hint);
#endif
}

}  // namespace detail
ASIO_WHEEL_NAMESPACE_END

ASIO_WHEEL_ASIO_NAMESPACE_BEGIN
namespace detail {

/// The wheel as one of the reactor's timer queues: every call is the
/// service's (Owner's), made with the reactor's lock held. The one timer
/// filed through it is the poke's (see the top of this file).
#if defined(ASIO_WHEEL_ASIO_TIMER_QUEUE_HAS_ALLOCATOR)
template <typename Owner, typename Allocator>
class timer_queue<::asio_wheel::detail::wheel_queue_traits<Owner>, Allocator>
#else
template <typename Owner>
class timer_queue<::asio_wheel::detail::wheel_queue_traits<Owner>>
#endif
  : public timer_queue_base
{
public:
  /// The poke's timer: nothing is filed.
  struct per_timer_data
  {};

  explicit timer_queue(Owner& owner) noexcept : owner_(owner) {}

  /// The poke: files nothing, and is "the earliest", so that the reactor
  /// asks every queue for its deadline again.
  bool enqueue_timer(const int&, per_timer_data&, wait_op*) noexcept
  {
    return true;
  }

  bool empty() const override { return owner_.reactor_empty(); }

  long wait_duration_msec(long max_duration) const override
  {
    return owner_.reactor_wait_duration(max_duration, 1000);
  }

  long wait_duration_usec(long max_duration) const override
  {
    return owner_.reactor_wait_duration(max_duration, 1000000);
  }

  void get_ready_timers(op_queue<operation>& ops) override
  {
    owner_.reactor_ready(ops);
  }

  void get_all_timers(op_queue<operation>& ops) override
  {
    owner_.reactor_all(ops);
  }

private:
  Owner& owner_;
};

}  // namespace detail
ASIO_WHEEL_ASIO_NAMESPACE_END

ASIO_WHEEL_NAMESPACE_BEGIN
namespace detail {

/// The specialization above, for the service Owner.
#if defined(ASIO_WHEEL_ASIO_TIMER_QUEUE_HAS_ALLOCATOR)
template <typename Owner>
using wheel_reactor_queue =
    asio::detail::timer_queue<wheel_queue_traits<Owner>, std::allocator<void>>;
#else
template <typename Owner>
using wheel_reactor_queue =
    asio::detail::timer_queue<wheel_queue_traits<Owner>>;
#endif

/// The service's place among the reactor's timer queues: registered while
/// it lives, and the poke.
template <typename Owner>
class reactor_link
{
public:
  reactor_link(asio::execution_context& context, Owner& owner)
    : reactor_(asio::use_service<reactor>(context)), queue_(owner)
  {
    reactor_.init_task();
    reactor_.add_timer_queue(queue_);
  }

  ~reactor_link() { reactor_.remove_timer_queue(queue_); }

  reactor_link(const reactor_link&) = delete;
  reactor_link& operator=(const reactor_link&) = delete;

  /// Makes the reactor ask the queues for their deadlines again. Not with
  /// the service's lock held (the reactor takes its own, then calls the
  /// queue, which takes the service's), and never after the service shut
  /// down (a reactor that shut down would post poke_op_). The reactor counts
  /// the poke as work started, which is given back at once: the caller has
  /// pending waits, so the count does not reach zero.
  void poke(scheduler& s)
  {
    reactor_.schedule_timer(queue_, 0, poke_timer_, &poke_op_);
    s.work_finished();
  }

private:
  // Never queued: the queue files nothing (see poke()).
  struct poke_op : asio::detail::wait_op
  {
    poke_op() : asio::detail::wait_op(&poke_op::do_complete) {}
    static void do_complete(
        void*, scheduler_operation*, const error_code&, std::size_t) noexcept
    {}
  };

  reactor& reactor_;
  wheel_reactor_queue<Owner> queue_;
  typename wheel_reactor_queue<Owner>::per_timer_data poke_timer_;
  poke_op poke_op_;
};

}  // namespace detail
ASIO_WHEEL_NAMESPACE_END

#endif  // ASIO_WHEEL_DETAIL_ASIO_SCHEDULER_HPP
