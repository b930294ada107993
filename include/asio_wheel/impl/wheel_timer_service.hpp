//
// asio_wheel/impl/wheel_timer_service.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The definitions of wheel_timer_service's members. The class is declared
// in asio_wheel/wheel_timer_service.hpp, which includes this file at its end;
// the ground rules (the states of a wait, what the lock guards, the
// invariants) are at the top of that file. In three parts:
//   the entry points   what basic_wheel_timer, cancel_after and the Beast
//                      stream call: each takes the lock once, calls the
//                      primitives, and posts and pokes once it is released;
//   the primitives     the steps under the lock that the entry points share;
//   the reactor's side what the reactor calls, with its own lock held, to
//                      learn its deadline and collect the due waits.
//

#ifndef ASIO_WHEEL_IMPL_WHEEL_TIMER_SERVICE_HPP
#define ASIO_WHEEL_IMPL_WHEEL_TIMER_SERVICE_HPP

#include <asio_wheel/wheel_timer_service.hpp>

#include <algorithm>
#include <chrono>
#include <memory>
#include <new>
#include <stdexcept>
#include <thread>
#include <type_traits>

ASIO_WHEEL_NAMESPACE_BEGIN

// ================================================================ the service

template <typename Clock, typename WaitTraits>
inline wheel_timer_service<Clock, WaitTraits>::wheel_timer_service(
    asio::execution_context& context, const wheel_options& options)
  : detail::execution_context_service_base<wheel_timer_service>(context),
    options_(detail::validated(options)), grid_(options_.tick, Clock::now()),
    wheel_(options_.slots),
    scheduler_(asio::use_service<detail::scheduler>(context)),
    mutex_(detail::scheduler_locks(context)), reactor_(context, *this)
{}

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
  s.lazy_refilings = wheel_.lazy_refilings();
  s.round_revisits = wheel_.round_revisits();
  s.cascades = wheel_.cascades();
  return s;
}

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::shutdown()
{
  detail::op_queue<detail::scheduler_operation> ops;
  {
    lock_type lock(mutex_);
    shutdown_ = true;
    shutdowns_.fetch_add(1, std::memory_order_acq_rel);  // see of()
    take_all(ops);
  }
  // Destroyed without being invoked, as Asio does with its own timers.
  scheduler_.abandon_operations(ops);
}

// ============================================================ the entry points

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::destroy(
    implementation_type& impl)
{
  aborted_waits aborted;
  {
    lock_type lock(mutex_);
    drop(impl, aborted);
  }
  post_aborted(aborted);
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
  if (&other_service != this)
  {
    // The object now belongs to other_service's context (io_object_impl
    // switches services after this call): abort our waits, then take over
    // the other timer inside its own service.
    destroy(impl);
    other_service.move_construct(impl, other);
    return;
  }
  aborted_waits aborted;
  {
    lock_type lock(mutex_);
    drop(impl, aborted);
    take_over(impl, other);
  }
  post_aborted(aborted);
}

template <typename Clock, typename WaitTraits>
inline std::size_t wheel_timer_service<Clock, WaitTraits>::cancel(
    implementation_type& impl)
{
  return abort_and_set(impl, ~std::size_t(0), false, time_point(), nullptr);
}

template <typename Clock, typename WaitTraits>
inline std::size_t wheel_timer_service<Clock, WaitTraits>::cancel_one(
    implementation_type& impl)
{
  return abort_and_set(impl, 1, false, time_point(), nullptr);
}

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
  const time_point now = now_if_tolerant(impl);
  return abort_and_set(impl, ~std::size_t(0), true, t, &now, false);
}

template <typename Clock, typename WaitTraits>
inline std::size_t wheel_timer_service<Clock, WaitTraits>::expires_at(
    implementation_type& impl, const time_point& t, const time_point& now)
{
  return abort_and_set(impl, ~std::size_t(0), true, t, &now, true);
}

template <typename Clock, typename WaitTraits>
inline std::size_t wheel_timer_service<Clock, WaitTraits>::reschedule_at(
    implementation_type& impl, const time_point& t)
{
  return reschedule_at(impl, t, Clock::now());
}

template <typename Clock, typename WaitTraits>
inline std::size_t wheel_timer_service<Clock, WaitTraits>::reschedule_at(
    implementation_type& impl, const time_point& t, const time_point& now)
{
  std::size_t moved = 0;
  bool poke = false;
  {
    lock_type lock(mutex_);
    record_reading(now);
    if (expire_if_decided(impl))
      return 0;  // expired already
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
    // beyond t's, which at_or_before_due tells without a division. Or unless
    // t has been reached: then they complete at once.
    if (!(t < old_expiry) && !less_tolerance
        && grid_.at_or_before_due(impl.filed_tick(), t) && now < t)
      return moved;
    poke = refile_if_earlier(impl);
  }
  if (poke)
    reactor_.poke(scheduler_);
  return moved;
}

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::tolerance(
    implementation_type& impl, const duration& d)
{
  if (d < duration::zero())
    throw std::invalid_argument(
        "asio_wheel::basic_wheel_timer::tolerance must not be negative");
  bool poke = false;
  {
    lock_type lock(mutex_);
    expire_if_decided(impl);
    const tick_type old = impl.slack.ticks();
    impl.slack.set_own(grid_.ticks_in(d));
    if (impl.slack.ticks() < old)
      poke = refile_if_earlier(impl);
  }
  if (poke)
    reactor_.poke(scheduler_);
}

template <typename Clock, typename WaitTraits>
inline auto wheel_timer_service<Clock, WaitTraits>::tolerance(
    const implementation_type& impl) const -> duration
{
  return (grid_.time_of(1) - grid_.time_of(0)) * impl.slack.ticks();
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
  // (Under no lock: the entry is its owner's, and has no wait.)
  entry.expiry = expiry;  // a timeout's entry is never extended
  entry.slack = slack;
  file_or_abandon(entry, op);
}

template <typename Clock, typename WaitTraits>
inline bool wheel_timer_service<Clock, WaitTraits>::withdraw_timeout(
    implementation_type& entry, detail::wait_op_base* op)
{
  {
    lock_type lock(mutex_);
    if (!op->timer || expire_if_decided(entry))
      return false;
    entry.waits.pop();  // op, the entry's only wait
    op->timer = nullptr;
    --stats_.pending_waits;
    --stats_.timers_in_wheel;
    ++stats_.timeouts_withdrawn;
    wheel_.erase(entry);
  }
  // The wait's unit of work (queue_wait): it will not complete.
  scheduler_.work_finished();
  return true;
}

// ------------------------------------------------- the entry points' steps

template <typename Clock, typename WaitTraits>
template <typename Handler, typename IoExecutor>
inline void wheel_timer_service<Clock, WaitTraits>::start_wait(
    implementation_type& impl, Handler& handler, const IoExecutor& io_ex)
{
#if defined(ASIO_WHEEL_ASIO_HAS_CANCELLATION_SLOT)
  auto slot = asio::get_associated_cancellation_slot(handler);
#endif

  // Everything that may throw comes first (the operation's memory, the
  // cancellation handler's): a throw leaves nothing queued or counted.
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

  detail::wait_op_base* const wait = p.p;
  p.v = p.p = 0;
  file_or_abandon(impl, wait);
}

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::file_or_abandon(
    implementation_type& impl, detail::wait_op_base* op)
{
  bool poke = false;
  bool abandon = false;
  {
    lock_type lock(mutex_);
    if (shutdown_)
      abandon = true;
    else
      poke = queue_wait(impl, op);
  }
  if (abandon)
  {
    // As Asio's reactor does after shutdown: the scheduler destroys it
    // without running it.
    op->notify_decided();
    scheduler_.post_immediate_completion(op, false);
  }
  else if (poke)
    reactor_.poke(scheduler_);
}

template <typename Clock, typename WaitTraits>
inline std::size_t wheel_timer_service<Clock, WaitTraits>::abort_and_set(
    implementation_type& impl, std::size_t max_aborted, bool set,
    const time_point& t, const time_point* now, bool now_is_reading)
{
  aborted_waits aborted;
  std::size_t n = 0;
  {
    lock_type lock(mutex_);
    n = abort_waits(impl, aborted, max_aborted);
    if (set)
    {
      impl.set_expiry(t);
      set_context_slack(impl, t, *now);
      if (now_is_reading)
        record_reading(*now);
    }
  }
  post_aborted(aborted);
  return n;
}

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::cancel_wait(
    detail::wait_op_base* target)
{
  aborted_waits aborted;
  {
    lock_type lock(mutex_);
    detail::timer_waits* timer = target->timer;
    if (!timer || expire_if_decided(static_cast<implementation_type&>(*timer)))
      return;  // decided already
    timer->waits.remove(target);
    target->mark_aborted();
    aborted.push(target);
    --stats_.pending_waits;
    ++stats_.waits_cancelled;
    if (timer->waits.empty())
      retire(static_cast<implementation_type&>(*timer));
  }
  post_aborted(aborted);
}

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::post_aborted(
    aborted_waits& aborted)
{
  // Each counts as outstanding work already (queue_wait), so deferred.
  if (!aborted.empty())
    scheduler_.post_deferred_completions(aborted);
}

// ================================================= the primitives, lock held

template <typename Clock, typename WaitTraits>
inline bool wheel_timer_service<Clock, WaitTraits>::queue_wait(
    implementation_type& impl, detail::wait_op_base* op)
{
  scheduler_.work_started();
  op->timer = &impl;
  const bool first_wait = impl.waits.empty();
  impl.waits.push(op);
  ++stats_.pending_waits;
  if (first_wait)
  {
    ++stats_.timers_in_wheel;
    if (!impl.in_wheel())
      return file(impl);
    // A ghost: reused where it is filed if that is at or before the new
    // due tick (the walk re-files it lazily), as a reschedule later is. The
    // reactor's deadline may have moved beyond it since it was retired.
    return refile_if_earlier(impl) || earlier_than_reported(impl.filed_tick());
  }
  // The timer is filed for its expiry already; if that has been reached,
  // the new wait completes at once, and the others with it.
  if (detail::timing_wheel::filed_due(impl))
    return false;
  const time_point expiry = impl.effective();
  if (!reached(impl, expiry, grid_.due_tick(expiry)))
    return false;
  wheel_.erase(impl);
  wheel_.insert_due(impl);
  return earlier_than_reported(now_tick);
}

template <typename Clock, typename WaitTraits>
inline bool wheel_timer_service<Clock, WaitTraits>::file(
    implementation_type& impl)
{
  const time_point expiry = impl.effective();
  const tick_type precise = grid_.due_tick(expiry);
  if (reached(impl, expiry, precise))
  {
    wheel_.insert_due(impl);
    return earlier_than_reported(now_tick);
  }
  const tick_type due = tolerant_tick(precise, impl);
  wheel_.insert(impl, due);
  return earlier_than_reported(due);
}

template <typename Clock, typename WaitTraits>
inline bool wheel_timer_service<Clock, WaitTraits>::refile_if_earlier(
    implementation_type& impl)
{
  if (impl.waits.empty() || detail::timing_wheel::filed_due(impl))
    return false;
  const time_point expiry = impl.effective();
  const tick_type precise = grid_.due_tick(expiry);
  if (!reached(impl, expiry, precise)
      && tolerant_tick(precise, impl) >= impl.filed_tick())
    return false;  // filed in time already
  wheel_.erase(impl);
  return file(impl);
}

template <typename Clock, typename WaitTraits>
inline std::size_t wheel_timer_service<Clock, WaitTraits>::abort_waits(
    implementation_type& impl, aborted_waits& aborted, std::size_t max_aborted)
{
  if (expire_if_decided(impl))
    return 0;  // expired already: they complete with success
  std::size_t n = 0;
  while (n < max_aborted)
  {
    detail::wait_op_base* op = impl.waits.front();
    if (!op)
      break;
    impl.waits.pop();
    op->mark_aborted();
    aborted.push(op);
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
inline bool wheel_timer_service<Clock, WaitTraits>::logically_decided(
    const implementation_type& impl) const
{
  return wheel_.advancing() && !impl.waits.empty()
      && !detail::timing_wheel::filed_due(impl)
      && impl.filed_tick() <= decided_tick_
      && tolerant_tick(grid_.due_tick(impl.effective()), impl) <= decided_tick_;
}

template <typename Clock, typename WaitTraits>
inline bool wheel_timer_service<Clock, WaitTraits>::expire_if_decided(
    implementation_type& impl)
{
  if (!logically_decided(impl))
    return false;
  wheel_.erase(impl);
  expire(impl, last_reading_);
  return true;
}

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::retire(
    implementation_type& impl)
{
  --stats_.timers_in_wheel;
  if (detail::timing_wheel::filed_due(impl) || impl.filed_tick() <= reported_)
    wheel_.erase(impl);
}

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::drop(
    implementation_type& impl, aborted_waits& aborted)
{
  abort_waits(impl, aborted, ~std::size_t(0));
  if (impl.in_wheel())
    wheel_.erase(impl);
}

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::take_over(
    implementation_type& impl, implementation_type& other)
{
  // The extension too: the place in the wheel may be filed for it.
  impl.set_expiry(other.expiry);
  impl.extend_at(
      time_point(duration(other.extension.load(std::memory_order_relaxed))));
  other.set_expiry(time_point());  // as if constructed from its executor
  impl.slack = other.slack;
  other.slack = detail::timer_slack();
  impl.waits.take(other.waits);
  impl.waits.for_each([&impl](detail::wait_op_base* op) { op->timer = &impl; });
  if (other.in_wheel())
    impl.take_place_of(other);
}

template <typename Clock, typename WaitTraits>
inline bool wheel_timer_service<Clock, WaitTraits>::earlier_than_reported(
    tick_type due) noexcept
{
  if (due >= reported_)
    return false;
  reported_ = due;
  return true;
}

template <typename Clock, typename WaitTraits>
inline bool wheel_timer_service<Clock, WaitTraits>::reached(
    const implementation_type& impl, const time_point& expiry,
    tick_type precise)
{
  // Reached at the last reading of the clock (the usual expires_after(0),
  // or an expiry in the past). (A clock that is not steady may have stepped
  // back since: the reactor checks again when it collects the wait.)
  if (!(last_reading_ < expiry))
    return true;
  // A precise wait due after the reactor's deadline, whose expiry lies more
  // than two ticks after that reading, is taken for one in the future
  // without a reading of the clock, which would cost a re-arm half its time:
  // the reactor comes at its deadline anyway (see doc/design.md,
  // "Precision"). A wait that moves the deadline earlier pokes the reactor,
  // a system call, beside which a reading costs little; a tolerant wait
  // reads it: the tick it would be filed at may be far beyond its expiry.
  if (impl.slack.ticks() == 0 && precise > reported_
      && time_traits::less_than(
          time_traits::add(last_reading_, reach_window_), expiry)
      && (Clock::is_steady || precise > wheel_.horizon()))
    return false;
  const time_point now = Clock::now();
  record_reading(now);
  if (!(now < expiry))
    return true;
  if constexpr (!Clock::is_steady)
  {
    // The clock stepped back behind the ticks the wheel has processed: a
    // wait due there by the wheel's count is not due by the clock's. The
    // wheel moves back to the clock; pending entries keep their ticks, and
    // complete when the clock gets back to them, as Asio's timers do.
    if (precise <= wheel_.horizon())
      rewind(grid_.tick_at(now));
  }
  return false;
}

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::record_reading(
    const time_point& now) const noexcept
{
  // A steady clock's readings only grow, whatever order they arrive in, and
  // the reactor's, at each of its looks, keeps last_reading_ at or after the
  // tick the wheel has processed. Another clock's latest reading is taken
  // as it is: it may have stepped back.
  if (!Clock::is_steady || last_reading_ < now)
    last_reading_ = now;
}

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::rewind(tick_type to)
{
  wheel_.rewind(to);
  decided_tick_ = (std::min)(decided_tick_, to);
  ++stats_.clock_steps_back;
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
inline auto wheel_timer_service<Clock, WaitTraits>::tolerant_tick(
    tick_type precise, const implementation_type& impl) -> tick_type
{
  return detail::coalesced_tick(precise, impl.slack.ticks());
}

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::expire(
    implementation_type& impl, const time_point& now)
{
  --stats_.timers_in_wheel;
  const time_point expiry = impl.effective();
  if (expiry < now)
  {
    // Saturating: an expiry such as time_point::min() is "infinitely" late.
    const duration late = time_traits::subtract(now, expiry);
    const auto late_ns = late >= std::chrono::duration_cast<duration>(
                             (std::chrono::nanoseconds::max)())
        ? (std::chrono::nanoseconds::max)()
        : std::chrono::duration_cast<std::chrono::nanoseconds>(late);
    if (late_ns > stats_.max_lateness)
      stats_.max_lateness = late_ns;
  }
  // Completed later than their own tick, at one their tolerance chose: each
  // wait counts as a wakeup saved.
  bool deferred = false;
  if (impl.slack.ticks() != 0)
  {
    const tick_type precise = grid_.due_tick(expiry);
    deferred = precise < tolerant_tick(precise, impl);
  }
  while (detail::wait_op_base* op = impl.waits.front())
  {
    impl.waits.pop();
    op->timer = nullptr;
    --stats_.pending_waits;
    ++stats_.waits_expired;
    stats_.wakeups_saved += deferred;
    op->notify_decided();
    ready_.push(op);
  }
}

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::take_all(
    detail::op_queue<detail::scheduler_operation>& ops)
{
  wheel_.clear([&ops](detail::wheel_entry& e) {
    auto& impl = static_cast<implementation_type&>(e);
    while (detail::wait_op_base* op = impl.waits.front())
    {
      impl.waits.pop();
      op->timer = nullptr;
      op->notify_decided();
      ops.push(op);
    }
  });
  ops.push(ready_);
  stats_.pending_waits = 0;
  stats_.timers_in_wheel = 0;
}

// ======================================= the reactor's side, its lock held

template <typename Clock, typename WaitTraits>
inline bool wheel_timer_service<Clock, WaitTraits>::reactor_empty() const
{
  lock_type lock(mutex_);
  return stats_.pending_waits == 0 && ready_.empty();
}

template <typename Clock, typename WaitTraits>
inline long wheel_timer_service<Clock, WaitTraits>::reactor_wait_duration(
    long max_duration, long per_second) const
{
  lock_type lock(mutex_);
  if (!ready_.empty() || wheel_.has_due() || wheel_.advancing())
  {
    reported_ = now_tick;
    return 0;
  }
  if (stats_.pending_waits == 0)
  {
    reported_ = no_deadline;
    return max_duration;
  }
  const tick_type next = wheel_.next_due();
  reported_ = next;
  if (next == detail::never_tick)
    return max_duration;
  // Rounded as Asio's timer_queue rounds its own timer's wait: down, but
  // never to 0 before the time.
  const time_point now = time_traits::now();
  record_reading(now);
  const auto d = time_traits::to_posix_duration(
      time_traits::subtract(grid_.time_of(next), now));
  if (d.ticks() <= 0)
    return 0;
  const auto n =
      per_second == 1000 ? d.total_milliseconds() : d.total_microseconds();
  if (n == 0)
    return 1;
  return n > max_duration ? max_duration : static_cast<long>(n);
}

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::reactor_ready(
    detail::op_queue<detail::scheduler_operation>& ops)
{
  lock_type lock(mutex_);
  // Read at every look, busy or idle: it keeps last_reading_ fresh.
  const time_point now = Clock::now();
  record_reading(now);
  if (stats_.pending_waits != 0 || wheel_.advancing())
  {
    const tick_type to = grid_.tick_at(now);
    if constexpr (!Clock::is_steady)
    {
      // The clock stepped back behind a pass under way: the pass is
      // abandoned, and the waits it has not visited wait for the clock.
      if (wheel_.advancing() && to < wheel_.horizon())
        rewind(to);
    }
    if (wheel_.has_due() || wheel_.advancing() || to >= wheel_.next_due())
    {
      if (!wheel_.advancing())
      {
        ++stats_.wakeups;
        expired_at_wakeup_ = stats_.waits_expired;
      }
      // Every wait due now is decided now (decided_tick_, logically_decided);
      // the wheel visits at most a budget of entries a turn.
      decided_tick_ = (std::max)(decided_tick_, to);
      detail::timing_wheel::entry_list due;
      wheel_.take_due([&](detail::wheel_entry& e) {
        auto& impl = static_cast<implementation_type&>(e);
        if (now < impl.effective())
        {
          // Reached when it was filed, but its expiry moved later since
          // (reschedule_at, extend_at: lazily, as in a slot), or the clock
          // stepped back, behind ticks the wheel has processed too, perhaps.
          const tick_type due_tick =
              tolerant_tick(grid_.due_tick(impl.effective()), impl);
          if (due_tick <= wheel_.horizon())
            rewind(to);
          wheel_.insert(impl, due_tick);
          return;
        }
        due.push_back(e);
      });
      // Precise waits in the order of their expiries: a tick's slot as it is
      // taken out, and with the entries due already (a slot holds a tick's
      // entries in the order they were filed). Waits with a tolerance come
      // after them, in the order they were filed: they complete together
      // at a tick their tolerance chose.
      const auto order_key = [](const detail::wheel_entry& e) {
        const auto& impl = static_cast<const implementation_type&>(e);
        return impl.slack.ticks() == 0 ? impl.effective() : (time_point::max)();
      };
      const auto earlier = [&order_key](const detail::wheel_entry& a,
                               const detail::wheel_entry& b) {
        return order_key(a) < order_key(b);
      };
      const auto in_order = [&earlier](detail::timing_wheel::entry_list& l) {
        if (!std::is_sorted(l.begin(), l.end(), earlier))
          l.sort(earlier);  // stable
      };
      // A budget of entries at a time; again while that completed no wait
      // and the pass goes on, so that each turn hands some handler to the
      // loop while any is decided (poll() runs what is due, as with Asio).
      const std::uint64_t expired_before = stats_.waits_expired;
      do
      {
        wheel_.advance(
            to,
            [this](const detail::wheel_entry& e) {
              const auto& impl = static_cast<const implementation_type&>(e);
              // A ghost is "due" where it is filed: the walk drops it.
              return impl.waits.empty()
                  ? impl.filed_tick()
                  : tolerant_tick(grid_.due_tick(impl.effective()), impl);
            },
            [&due](detail::wheel_entry& e) { due.push_back(e); }, in_order,
            options_.max_completions_per_slice);
        in_order(due);
        while (!due.empty())
        {
          auto& impl = static_cast<implementation_type&>(due.front());
          due.pop_front();
          if (!impl.waits.empty())  // else a ghost, dropped
            expire(impl, now);
        }
      } while (stats_.waits_expired == expired_before && wheel_.advancing());
      if (!wheel_.advancing() && stats_.waits_expired == expired_at_wakeup_)
        ++stats_.empty_wakeups;
    }
  }
  // At most a budget of handlers each turn: the reactor comes back for the
  // rest (reactor_wait_duration is 0 meanwhile) after the I/O completions
  // and handlers that became ready meanwhile.
  for (std::size_t n = options_.max_completions_per_slice;
       n != 0 && !ready_.empty(); --n)
  {
    detail::wait_op_base* op = ready_.front();
    ready_.pop();
    ops.push(op);
  }
}

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::reactor_all(
    detail::op_queue<detail::scheduler_operation>& ops)
{
  lock_type lock(mutex_);
  take_all(ops);
}

ASIO_WHEEL_NAMESPACE_END

#endif  // ASIO_WHEEL_IMPL_WHEEL_TIMER_SERVICE_HPP
