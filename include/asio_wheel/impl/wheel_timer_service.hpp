//
// asio_wheel/impl/wheel_timer_service.hpp
//
// The definitions of wheel_timer_service's members, in the order of their
// declarations in asio_wheel/wheel_timer_service.hpp, which includes this
// file at its end. The ground rules (what the lock guards, the invariants,
// the service's words) are at the top of that file.
//
// Each definition is declared inline, as a member function defined in its
// class is: GCC's inliner gives such functions more room, and without it
// the inlining decisions change (an arm + withdraw pair of cancel_after
// took 26 more instructions, test/bench/callgrind_op_timeouts.sh).
//

#ifndef ASIO_WHEEL_IMPL_WHEEL_TIMER_SERVICE_HPP
#define ASIO_WHEEL_IMPL_WHEEL_TIMER_SERVICE_HPP

#include <asio_wheel/wheel_timer_service.hpp>

ASIO_WHEEL_NAMESPACE_BEGIN

template <typename Clock, typename WaitTraits>
inline auto wheel_timer_service<Clock, WaitTraits>::of(
    asio::execution_context& context) -> wheel_timer_service&
{
  last_lookup& last = last_lookup_;
  // A service that shut down (its context is being destroyed) changes the
  // generation, so a new context at the same address is never mistaken
  // for the old one.
  const std::uint64_t generation
    = shutdowns_.load(std::memory_order_acquire);
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
  s.lazy_refilings = wheel_.lazy_refilings();
  s.round_revisits = wheel_.round_revisits();
  s.cascades = wheel_.cascades();
  s.drive_arms = drive_.arms();
  s.drive_cancels = drive_.cancels();
  s.drive_arms_ahead = drive_.arms_ahead();
  return s;
}

template <typename Clock, typename WaitTraits>
inline void
wheel_timer_service<Clock, WaitTraits>::destroy(implementation_type& impl)
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
inline auto wheel_timer_service<Clock, WaitTraits>::expiry(
    const implementation_type& impl) const -> time_point
{
  return impl.expiry;
}

template <typename Clock, typename WaitTraits>
inline std::size_t wheel_timer_service<Clock, WaitTraits>::expires_at(
    implementation_type& impl, const time_point& t)
{
  return cancel_and_set_expiry(impl, ~std::size_t(0), t,
      now_if_tolerant(impl));
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
inline void wheel_timer_service<Clock, WaitTraits>::wait(
    implementation_type& impl, error_code& ec)
{
  ec = error_code();
  for (time_point now = Clock::now(); now < impl.expiry; now = Clock::now())
  {
    // Sleep in bounded steps, as Asio does, so that clock adjustments and
    // traits that shorten waits are honoured.
    const auto step = WaitTraits::to_wait_duration(
        time_traits::subtract(impl.expiry, now));
    const auto longest = std::chrono::duration_cast<
        std::decay_t<decltype(step)>>(std::chrono::minutes(5));
    std::this_thread::sleep_for((std::min)(step, longest));
  }
}

template <typename Clock, typename WaitTraits>
template <typename Handler, typename IoExecutor>
inline void wheel_timer_service<Clock, WaitTraits>::async_wait(
    implementation_type& impl, Handler& handler, const IoExecutor& io_ex)
{
  // A timer whose executor is a plain io_context executor behind
  // any_io_executor (the usual case) stores that 8-byte executor in the
  // operation instead of a 56-byte polymorphic one. Behaviour is identical:
  // Asio's handler_work tracks no work for either and calls the handler in
  // place when it has no associated executor of its own.
  if constexpr (std::is_same<IoExecutor, asio::any_io_executor>::value)
  {
    if (const auto* ex = detail::native_executor(io_ex))
    {
      start_wait<Handler, asio::io_context::executor_type>(impl, handler, *ex);
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
  slice_request request;
  {
    lock_type lock(mutex_);
    entry.expiry = expiry;
    entry.slack = slack;
    if (shutdown_)
    {
      lock.unlock();
      abandon(op);
      return;
    }
    enqueue_wait(entry, op, request);
  }
  slices_.send(request);
}

template <typename Clock, typename WaitTraits>
inline bool wheel_timer_service<Clock, WaitTraits>::withdraw_timeout(
    implementation_type& entry, detail::wait_op_base* op)
{
  {
    lock_type lock(mutex_);
    if (!op->timer)
      return false;
    entry.waits.pop();  // op, the entry's only wait
    op->timer = nullptr;
    --stats_.pending_waits;
    --stats_.timers_in_wheel;
    ++stats_.timeouts_withdrawn;
    wheel_.erase(entry);
    disarm_if_idle();
  }
  // The wait's unit of work (enqueue_wait): it will not complete.
  scheduler_.work_finished();
  return true;
}

template <typename Clock, typename WaitTraits>
template <typename Handler, typename IoExecutor>
inline void wheel_timer_service<Clock, WaitTraits>::start_wait(
    implementation_type& impl, Handler& handler, const IoExecutor& io_ex)
{
  auto slot = asio::get_associated_cancellation_slot(handler);

  using op = detail::wait_op<Handler, IoExecutor>;
  typename op::ptr p = { std::addressof(handler),
    op::ptr::allocate(handler), 0 };
  p.p = new (p.v) op(handler, io_ex);

  if (slot.is_connected())
  {
    slot.template emplace<op_cancellation>(this, p.p);
    p.p->set_has_cancellation_handler();
  }

  slice_request request;
  {
    lock_type lock(mutex_);
    if (shutdown_)
    {
      lock.unlock();
      abandon(p.p);
      p.v = p.p = 0;
      return;
    }
    enqueue_wait(impl, p.p, request);
    p.v = p.p = 0;
  }
  slices_.send(request);
}

template <typename Clock, typename WaitTraits>
inline void
wheel_timer_service<Clock, WaitTraits>::abandon(detail::wait_op_base* op)
{
  op->decided();
  scheduler_.post_immediate_completion(op, false);
}

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::enqueue_wait(
    implementation_type& impl, detail::wait_op_base* op, slice_request& request)
{
  scheduler_.work_started();
  const tick_type precise = grid_.due_tick(impl.expiry);
  // (With waits already queued on the timer, a bounded advance has yet
  // to reach them: join them so that they all complete in order.)
  if (precise <= wheel_.horizon() && impl.waits.empty()
      && !rewound_for(impl.expiry))
  {
    // Already due: completes soon with success, never inside async_wait.
    ++stats_.waits_expired;
    op->decided();
    slices_.complete(request, op);
    return;
  }
  op->timer = &impl;
  const bool first_wait = impl.waits.empty();
  impl.waits.push(op);
  ++stats_.pending_waits;
  if (!first_wait)
    return;
  ++stats_.timers_in_wheel;
  const tick_type due = tolerant(precise, impl);
  if (!impl.in_wheel())
  {
    wheel_.insert(impl, due);
    drive_.arm_no_later_than(due);
  }
  else if (due < impl.filed_tick())
    refile_earlier(impl, due);  // a ghost filed too late
  else
  {
    // A ghost filed at or before the new due tick: reuse it as it is
    // (the walk re-files it lazily), no list operation.
    drive_.arm_no_later_than(impl.filed_tick());
  }
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
    impl.expiry = t;
    set_context_slack(impl, t, now);
  }
  slices_.send(request);
  return n;
}

template <typename Clock, typename WaitTraits>
inline auto wheel_timer_service<Clock, WaitTraits>::now_if_tolerant(
    const implementation_type& impl) const -> time_point
{
  return context_tolerant_ && !impl.slack.own()
    ? Clock::now() : time_point();
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
  const double part =
    static_cast<double>(length.count()) * options_.tolerance;
  return grid_.ticks_in(part < static_cast<double>(length.count())
      ? duration(static_cast<typename duration::rep>(part)) : length);
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

template <typename Clock, typename WaitTraits>
inline std::size_t wheel_timer_service<Clock, WaitTraits>::move_expiry(
    implementation_type& impl, const time_point& t, const time_point& now)
{
  slice_request request;
  std::size_t moved = 0;
  {
    lock_type lock(mutex_);
    const time_point old_expiry = impl.expiry;
    impl.expiry = t;
    const bool less_tolerance = set_context_slack(impl, t, now);
    if (impl.waits.empty())
      return 0;
    moved = detail::completion_slices::count(impl.waits);
    // Later, with no less tolerance: the due tick can only be later too,
    // so filed_tick stays <= it and the entry is re-filed lazily.
    if (!(t < old_expiry) && !less_tolerance)
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
  const tick_type precise = grid_.due_tick(impl.expiry);
  if (precise <= wheel_.horizon() && !rewound_for(impl.expiry))
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
inline std::size_t wheel_timer_service<Clock, WaitTraits>::abort_waits(
    implementation_type& impl, slice_request& request, std::size_t max_aborted)
{
  std::size_t n = 0;
  if (max_aborted != 0)
  {
    detail::wait_op_base*& front = detail::op_queue_access::front(impl.waits);
    detail::wait_op_base*& back = detail::op_queue_access::back(impl.waits);
    if (front && front == back)
    {
      // The usual lone wait (a re-arm on every message): unqueued from
      // the FIFO's ends alone, its operation untouched (see defer_abort).
      front->decided();
      slices_.defer_abort(request, front);
      front = back = nullptr;
      n = 1;
    }
  }
  while (n < max_aborted)
  {
    detail::wait_op_base* op = impl.waits.front();
    if (!op)
      break;
    impl.waits.pop();
    op->timer = nullptr;
    op->set_aborted();
    op->decided();
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
inline void wheel_timer_service<Clock, WaitTraits>::drop(
    implementation_type& impl, slice_request& request)
{
  abort_waits(impl, request, ~std::size_t(0));
  if (impl.in_wheel())
    wheel_.erase(impl);
}

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::refile_earlier(
    implementation_type& impl, tick_type due)
{
  wheel_.erase(impl);
  wheel_.insert(impl, due);
  drive_.arm_no_later_than(due);
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
    detail::wait_op_queue others;
    while (detail::wait_op_base* op = timer->waits.front())
    {
      timer->waits.pop();
      if (op != target)
        others.push(op);
    }
    timer->waits.push(others);
    target->timer = nullptr;
    target->set_aborted();
    target->decided();
    slices_.complete(request, target);
    --stats_.pending_waits;
    ++stats_.waits_cancelled;
    if (timer->waits.empty())
      retire(static_cast<implementation_type&>(*timer));
  }
  slices_.send(request);
}

template <typename Clock, typename WaitTraits>
inline void
wheel_timer_service<Clock, WaitTraits>::retire(implementation_type& impl)
{
  --stats_.timers_in_wheel;
  if (impl.filed_tick() <= drive_.armed_tick())
    wheel_.erase(impl);
  disarm_if_idle();
}

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::take_over(
    implementation_type& impl, implementation_type& other)
{
  impl.expiry = other.expiry;
  other.expiry = time_point();  // as if constructed from its executor
  impl.slack = other.slack;
  other.slack = detail::timer_slack();
  impl.waits.push(other.waits);
  for (detail::wait_op_base* op = impl.waits.front(); op;
      op = detail::op_queue_access::next(op))
    op->timer = &impl;
  if (other.in_wheel())
    impl.take_place_of(other);
}

template <typename Clock, typename WaitTraits>
template <typename Sink>
inline void wheel_timer_service<Clock, WaitTraits>::expire(
    implementation_type& impl, const time_point& now, Sink&& sink)
{
  --stats_.timers_in_wheel;
  if (impl.expiry < now)
  {
    // Saturating: an expiry such as time_point::min() is "infinitely" late.
    const duration late = time_traits::subtract(now, impl.expiry);
    const auto late_ns = late >= std::chrono::duration_cast<duration>(
          (std::chrono::nanoseconds::max)())
      ? (std::chrono::nanoseconds::max)()
      : std::chrono::duration_cast<std::chrono::nanoseconds>(late);
    if (late_ns > stats_.max_lateness)
      stats_.max_lateness = late_ns;
  }
  while (detail::wait_op_base* op = impl.waits.front())
  {
    impl.waits.pop();
    op->timer = nullptr;
    --stats_.pending_waits;
    ++stats_.waits_expired;
    op->decided();
    sink(op);
  }
}

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::disarm_if_idle()
{
  if (stats_.pending_waits == 0)
    drive_.disarm();
}

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::on_drive(
    void* owner, const error_code& ec, unsigned which)
{
  wheel_timer_service* self = static_cast<wheel_timer_service*>(owner);
  {
    lock_type lock(self->mutex_);
    self->drive_.completed(which);
    if (!ec)
    {
      ++self->stats_.drive_wakeups;
      const std::uint64_t expired_before = self->stats_.waits_expired;
      const time_point now = Clock::now();
      self->advance_wheel(self->grid_.tick_at(now), now);
      if (self->stats_.waits_expired == expired_before
          && !self->wheel_.advancing())
        ++self->stats_.empty_wakeups;
    }
    else if (!self->wheel_.advancing())
      self->arm_for_next_due();
  }
  self->run_slice();
}

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::advance_wheel(
    tick_type to, const time_point& now)
{
  if constexpr (!Clock::is_steady)
  {
    // The clock stepped back behind the ticks the wheel has processed, or
    // is processing: the entries not yet decided wait for it to get back.
    const tick_type now_tick = grid_.tick_at(now);
    if (now_tick < wheel_.horizon())
    {
      rewind(now_tick);
      to = now_tick;
    }
  }
  wheel_.advance(to,
      [this](const detail::wheel_entry& e) {
        const auto& impl = static_cast<const implementation_type&>(e);
        // A ghost is "due" where it is filed: the walk drops it.
        return impl.waits.empty()
          ? impl.filed_tick() : tolerant(grid_.due_tick(impl.expiry), impl);
      },
      [this, &now](detail::wheel_entry& e) {
        auto& impl = static_cast<implementation_type&>(e);
        if (impl.waits.empty())
          return;
        // Completed later than their own tick, at one their tolerance
        // chose: each wait counts as a wakeup saved.
        bool deferred = false;
        if (impl.slack.ticks() != 0)
        {
          const tick_type precise = grid_.due_tick(impl.expiry);
          deferred = precise < tolerant(precise, impl);
        }
        expire(impl, now, [this, deferred](detail::wait_op_base* op) {
          stats_.wakeups_saved += deferred;
          slices_.push_expired(op);
        });
      },
      options_.max_completions_per_slice);
  if (!wheel_.advancing())
    arm_for_next_due();
}

template <typename Clock, typename WaitTraits>
inline bool wheel_timer_service<Clock, WaitTraits>::rewound_for(
    [[maybe_unused]] const time_point& expiry)
{
  if constexpr (!Clock::is_steady)
  {
    const time_point now = Clock::now();
    if (now < expiry)
    {
      rewind(grid_.tick_at(now));
      // A pass the rewind abandoned put its undecided entries back, some
      // perhaps due by now's tick, and no advance follows here: the drive
      // timer must come for them.
      arm_for_next_due();
      return true;
    }
  }
  return false;
}

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::rewind(tick_type now_tick)
{
  wheel_.rewind(now_tick);
  ++stats_.clock_steps_back;
}

template <typename Clock, typename WaitTraits>
inline void wheel_timer_service<Clock, WaitTraits>::arm_for_next_due()
{
  if (stats_.pending_waits == 0)
  {
    drive_.disarm();
    return;
  }
  const tick_type next = wheel_.next_due();
  if (next == detail::never_tick)
    return;
  drive_.arm_no_later_than(next);
  if (drive_.wants_ahead(next))
    drive_.arm_ahead(wheel_.next_due_after(next));
}

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
    if (wheel_.advancing() && (!slices_.has_expired()
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

#endif // ASIO_WHEEL_IMPL_WHEEL_TIMER_SERVICE_HPP
