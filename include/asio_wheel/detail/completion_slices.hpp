//
// asio_wheel/detail/completion_slices.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// How a wheel_timer_service hands decided waits to their handlers.
//
// A wait's result is decided with the service's lock held (it expired, or it
// was aborted); its handler must run later, outside the lock and never
// inside the call that decided it. Decided waits are queued here and a
// "slice" operation, posted to the scheduler, calls their handlers in a
// batch, each exactly as the scheduler would (through handler_work), which
// saves the scheduler one queue operation (and, with several threads, one
// lock and one wakeup) per handler. How large a slice is depends on how
// many threads may run the context:
//
// - At most one thread (scheduler_threading::one_thread): a slice takes
//   every decided wait and at most max_completions_per_slice expired ones,
//   runs them, and only then posts the slice operation again if waits remain.
// - Several threads: a slice takes at most max_completions_per_slice waits,
//   and at most half of those queued (rounded up); if any remain, the slice
//   operation is posted again *before* the batch runs, so that another
//   thread can take the next slice while this one runs. A slow handler thus
//   holds back at most the rest of its own slice (fewer than the budget,
//   and no more than the waits left for the other threads), never waits
//   that another thread could take.
//
// Fairness: the waits a drive wakeup finds expired wait in `expired`, and a
// slice takes at most max_completions_per_slice of them; if more remain, the
// slice operation is posted behind whatever became ready meanwhile, so I/O
// on the same context keeps flowing during a storm of expiries.
//
// Deferred aborts: aborting a timer's lone wait, the
// idle-timeout re-arm, does not write to the wait's operation, which was
// allocated when the timer was last armed and is out of cache. Its pointer
// goes to a fixed array, and a whole batch is marked at once, with
// prefetching, before anything else is decided or the next slice runs.
// Except where a slice would call that one handler alone (one thread, in a
// handler, slices not batching): then it is posted by itself (post_alone).
//
// All members except send(), post_slice() and call_handlers() are called
// with the service's lock held.
//

#ifndef ASIO_WHEEL_DETAIL_COMPLETION_SLICES_HPP
#define ASIO_WHEEL_DETAIL_COMPLETION_SLICES_HPP

#include <asio_wheel/detail/asio_operation.hpp>
#include <asio_wheel/detail/asio_scheduler.hpp>
#include <asio_wheel/detail/prefetch.hpp>
#include <asio_wheel/detail/wait_op.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>

ASIO_WHEEL_NAMESPACE_BEGIN
namespace detail {

class completion_slices
{
public:
  /// Runs the next slice (the service's on_slice); lock not held.
  using slice_function = void (*)(void* owner);

  /// What the waits decided under the lock ask for once it is released
  /// (send): the slice operation, if none is on its way.
  struct slice_request
  {
    bool post_slice = false;  // the slice operation must be posted
  };

  completion_slices(scheduler& s, bool one_thread, slice_function on_slice,
      void* owner) noexcept
    : scheduler_(s), one_thread_(one_thread), slice_op_(on_slice, owner)
  {}

  completion_slices(const completion_slices&) = delete;
  completion_slices& operator=(const completion_slices&) = delete;

  /// True when handlers are called by the slices, in batches.
  bool one_thread() const noexcept { return one_thread_; }

  /// Waits decided but whose handler has not been called or posted yet.
  std::size_t queued() const noexcept { return queued_; }

  /// True while waits found expired wait for a slice.
  bool has_expired() const noexcept { return !expired_.empty(); }

  /// The result of @p op is decided (success or operation_aborted already
  /// set): its handler runs after the lock is released.
  void complete(slice_request& request, wait_op_base* op)
  {
    mark_deferred_aborts();  // keeps the order of the decisions
    decided_.push(op);
    ++decided_count_;
    ++queued_;
    request_slice(request);
  }

  /// Aborts the lone wait @p op: posted by itself where that is cheaper and
  /// keeps the order of the decisions (see post_alone), else deferred
  /// without writing to it. Until marked, a deferred abort's op->timer is
  /// stale; whoever reads it (per-operation cancellation) calls
  /// mark_deferred_aborts() first.
  void abort_lone_wait(slice_request& request, wait_op_base* op)
  {
    if (post_alone(op))
      return;
    if (deferred_count_ == max_deferred_aborts)
      mark_deferred_aborts();
    // The operation was allocated when its wait started, usually long ago,
    // and is out of cache: fetching it now, while the caller goes on, makes
    // the marking find it in cache (W1 at 1M timers: about 5 % less CPU per
    // re-arm).
    prefetch_for_write(op, 64);
    deferred_aborts_[deferred_count_++] = op;
    ++queued_;
    request_slice(request);
  }

  /// Marks the deferred aborts as aborted and queues them, in the order they
  /// were aborted.
  void mark_deferred_aborts() noexcept
  {
    constexpr std::size_t ahead = 8;  // prefetch distance, in operations
    const std::size_t n = deferred_count_;
    for (std::size_t i = 0; i < n; ++i)
    {
      // The first 64 bytes: what is marked here, and what the completion
      // reads next (the handler and its work follow the base). Operations
      // are not line-aligned, so that is one or two cache lines. (Fetched
      // already by abort_lone_wait; again here in case they left the cache.)
      if (i + ahead < n)
        prefetch_for_write(deferred_aborts_[i + ahead], 64);
      wait_op_base* op = deferred_aborts_[i];
      // Its owner's hook, if any, runs here rather than when it was
      // aborted: reading the operation then would be a cache miss per
      // re-arm (W1 at 100k timers: 120 -> 190 ns per re-arm).
      op->mark_aborted();
      decided_.push(op);
    }
    decided_count_ += n;
    deferred_count_ = 0;
  }

  /// A drive wakeup found @p op expired: it waits for a slice (fairness).
  void push_expired(wait_op_base* op)
  {
    expired_.push(op);
    ++queued_;
  }

  /// The slice operation is running: it may be posted again.
  void slice_started() noexcept { slice_posted_ = false; }

  /// What the caller of take_slice must do around its batch, the lock
  /// released.
  struct slice_plan
  {
    bool post_first = false;  // post the slice operation, then run the batch
    bool put_back_after = false;  // call put_back once the batch has run
  };

  /// Takes the next slice into @p batch and returns how many waits it took.
  /// One thread: every decided wait and at most @p budget expired ones.
  /// Several threads: at most @p budget waits, decided ones first, and at
  /// most half of the queued ones (rounded up).
  /// @p more_to_expire: the wheel has not finished finding the waits of the
  /// current wakeup. Sets @p plan.post_first when the caller must post the
  /// slice operation before running the batch (several threads), and
  /// @p plan.put_back_after when it must call put_back after it (one thread,
  /// expired waits remain: the slice operation is posted behind what the
  /// batch made ready). A one-thread batch that leaves nothing queued needs
  /// no put_back (nor its lock) unless a handler throws: a wait decided
  /// meanwhile has asked for the slice operation itself.
  std::size_t take_slice(wait_op_queue& batch, std::size_t budget,
      bool more_to_expire, slice_plan& plan)
  {
    mark_deferred_aborts();
    std::size_t n = 0;
    if (one_thread_)
    {
      n = decided_count_;
      batch.push(decided_);
      decided_count_ = 0;
    }
    else
    {
      // Half of what waits, rounded up (queued_ is decided_ plus expired_
      // here: the deferred aborts were just marked), so that the other half is there for
      // another thread while this batch runs.
      budget = (std::min)(budget, queued_ - queued_ / 2);
      for (; n < budget; ++n)
      {
        wait_op_base* op = decided_.front();
        if (!op)
          break;
        decided_.pop();
        batch.push(op);
      }
      decided_count_ -= n;
      budget -= n;
    }
    for (; budget; --budget)
    {
      wait_op_base* op = expired_.front();
      if (!op)
        break;
      expired_.pop();
      batch.push(op);
      ++n;
    }
    queued_ -= n;
    if (n != 0)
    {
      last_slice_size_ = n;
      posted_since_slice_ = 0;
    }
    const bool more = !expired_.empty() || more_to_expire;
    plan.post_first =
        !one_thread_ && (!decided_.empty() || more) && claim_slice();
    plan.put_back_after = one_thread_ && more;
    return n;
  }

  /// After a batch that take_slice said needs it (one thread), or when a
  /// handler threw: puts back the waits a throwing handler left uncalled
  /// (first in line), and returns true when the caller must post the slice
  /// operation because waits remain.
  bool put_back(wait_op_queue& rest, bool more_to_expire)
  {
    if (!rest.empty())
    {
      const std::size_t n = count(rest);
      queued_ += n;
      decided_count_ += n;
      rest.push(decided_);
      decided_.push(rest);
    }
    return (!decided_.empty() || deferred_count_ != 0 || !expired_.empty()
               || more_to_expire)
        && claim_slice();
  }

  /// Shutdown: every queued wait, to be destroyed without being invoked.
  void take_all(wait_op_queue& ops)
  {
    mark_deferred_aborts();
    ops.push(decided_);
    ops.push(expired_);
    decided_count_ = 0;
    queued_ = 0;
  }

  /// Sends what was decided under the lock. Lock not held.
  void send(slice_request& request)
  {
    if (request.post_slice)
      post_slice();
  }

  /// Aborted waits posted by themselves (abort_lone_wait), not by a slice.
  std::uint64_t posted_alone() const noexcept { return posted_alone_; }

  /// Queues the slice operation in the scheduler. Lock not held. One
  /// thread: as a continuation, which is where the scheduler puts every post
  /// of that thread's handlers anyway (unless configured otherwise from Asio
  /// 1.38 on), and where abort_lone_wait posts, so the two keep their order.
  void post_slice()
  {
    scheduler_.post_immediate_completion(&slice_op_, one_thread_);
  }

  /// Calls the handlers of @p batch in order, each exactly as the scheduler
  /// would. If a handler throws, the exception leaves here
  /// with the rest still in @p batch (see put_back). Lock not held.
  void call_handlers(wait_op_queue& batch)
  {
    while (wait_op_base* op = batch.front())
    {
      batch.pop();
      // Release the wait's unit of work (counted when it started) once its
      // handler has returned or thrown; the running drive or slice
      // operation holds its own, so run() cannot stop in between.
      struct finish_work
      {
        scheduler& s;
        ~finish_work() { s.work_finished(); }
      } finish{scheduler_};
      op->complete(&scheduler_, error_code(), 0);
    }
  }

  /// The number of operations in @p q; the usual one wait is counted from
  /// the queue's ends alone, without touching the operation (a cache miss).
  static std::size_t count(wait_op_queue& q) noexcept
  {
    wait_op_base* op = q.front();
    if (!op)
      return 0;
    if (op == op_queue_access::back(q))
      return 1;
    std::size_t n = 0;
    for (; op; op = op_queue_access::next(op))
      ++n;
    return n;
  }

private:
  // Posted to the scheduler to run the next slice.
  struct slice_op : scheduler_operation
  {
    slice_op(slice_function f, void* o)
      : scheduler_operation(&slice_op::do_complete), on_slice(f), owner(o)
    {}

    static void do_complete(void* scheduler_owner, scheduler_operation* base,
        const error_code&, std::size_t)
    {
      slice_op* o = static_cast<slice_op*>(base);
      if (scheduler_owner)  // else destroyed at shutdown: nothing to do
        o->on_slice(o->owner);
    }

    slice_function on_slice;
    void* owner;
  };

  // Posts the aborted lone wait @p op to the scheduler by itself, as Asio's
  // cancel posts it, and returns true, where a slice would call that one
  // handler alone: one thread, nothing else queued, and the last slice
  // called one handler (an idle-timeout re-arm per message of a lightly
  // loaded server: W11, where a slice of one costs about 200 instructions
  // more than the post). Where slices batch (a busy server, W9: the aborts
  // of many connections' handlers in one slice) they are kept, and while
  // aborts are posted alone, the one after probe_every of them takes a slice
  // to see whether slices would batch now. The post is the running
  // handler's continuation, where the slice operation goes too
  // (post_slice), so nothing decided later overtakes it; never right behind
  // the last wait posted alone: a loop of re-arms in one handler (W1's)
  // posts its first abort alone and defers the rest, which are not read
  // until marked.
  bool post_alone(wait_op_base* op)
  {
    if (!one_thread_ || queued_ != 0 || last_slice_size_ > 1
        || posted_since_slice_ == probe_every)
      return false;
    auto* posts = running_handler_posts(scheduler_);
    if (!posts
        || (!posts->empty() && op_queue_access::back(*posts) == last_posted_))
      return false;
    op->mark_aborted();
    posts->push(op);  // the wait's unit of work, counted when it started
    last_posted_ = op;
    ++posted_since_slice_;
    ++posted_alone_;
    return true;
  }

  void request_slice(slice_request& request) noexcept
  {
    if (claim_slice())
      request.post_slice = true;
  }

  // True if the slice operation was not queued and now must be.
  bool claim_slice() noexcept
  {
    if (slice_posted_)
      return false;
    slice_posted_ = true;
    return true;
  }

  scheduler& scheduler_;
  const bool one_thread_;

  // expired_: found by a drive wakeup, handed out at most a budget a slice.
  // decided_: waits aborted or found due by a call of the user, in the order
  // they were decided (one thread: all completed by the next slice, as Asio
  // would post them all at once).
  wait_op_queue expired_;
  wait_op_queue decided_;
  std::size_t decided_count_ = 0;
  std::size_t queued_ = 0;

  // Aborted lone waits not yet marked, oldest first (see abort_lone_wait).
  static constexpr std::size_t max_deferred_aborts = 256;
  wait_op_base* deferred_aborts_[max_deferred_aborts];
  std::size_t deferred_count_ = 0;
  // Waits posted alone (post_alone): how many in all, and since the last
  // slice; the size of that slice; the last one posted, only compared,
  // never read through (it may have completed since).
  static constexpr unsigned probe_every = 32;
  std::uint64_t posted_alone_ = 0;
  unsigned posted_since_slice_ = 0;
  std::size_t last_slice_size_ = 0;
  const wait_op_base* last_posted_ = nullptr;

  slice_op slice_op_;
  bool slice_posted_ = false;  // slice_op_ is queued in the scheduler
};

}  // namespace detail
ASIO_WHEEL_NAMESPACE_END

#endif  // ASIO_WHEEL_DETAIL_COMPLETION_SLICES_HPP
