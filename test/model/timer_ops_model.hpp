//
// test/model/timer_ops_model.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The reference model of what basic_wheel_timer must do, and the runner that executes a
// program of operations (timer_ops_encoding.hpp) against real timers on a manual clock and
// the model side by side: run_program, which returns the first disagreement (a failure) or
// nothing, and fills a run_summary of what the program exercised.
//
// The model is exact because the io_context is run until quiescent (settle()) after every
// operation: then every wait the model calls pending is not yet due, so the counts returned by
// cancel / expires_* / reschedule_* are known exactly, and Asio's "an expired wait whose handler
// is queued is no longer cancellable" never comes into play. Where the library has a legal
// choice (a clock that is not steady, a wait with a tolerance: see settle_and_check), the model
// follows what it chose, as its handlers show after the settle, and checks that the choice was
// legal; the counts of later calls then follow from that choice.
#pragma once

#include "timer_ops_encoding.hpp"

#include "../asio_wheel/manual_clock.hpp"
#include "../test_asio.hpp"  // asio::, error_code of the flavour

#if defined(ASIO_WHEEL_STANDALONE) ? !defined(ASIO_DISABLE_TIMERFD)            \
                                   : !defined(BOOST_ASIO_DISABLE_TIMERFD)
// With a timerfd, Linux Asio learns that a timer is due from the kernel a few microseconds after
// re-arming it, so poll() right after a manual-clock advance may not see a due wait yet.
// Without it, the epoll reactor compares the timer queue with the clock on every poll(), which
// makes settle() exact and fast (no real-time waiting). The CMake targets define it, in both
// spellings (BOOST_ASIO_DISABLE_TIMERFD, and ASIO_DISABLE_TIMERFD for standalone Asio). The
// io_uring reactor has no timerfd; settle() makes it look at its timer queues first
// (look_at_timers_now, ../asio_wheel/manual_clock.hpp).
# error                                                                        \
     "timer_ops_model.hpp needs (BOOST_)ASIO_DISABLE_TIMERFD (defined by the model and fuzz targets)"
#endif

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <cstdint>
#include <deque>
#include <iterator>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace asio_wheel_model {

namespace asio = asio_wheel::asio;
using asio_wheel::error_code;
using asio_wheel_test::concurrency_hint_default;

using asio_wheel_test::manual_clock;
using asio_wheel_test::manual_wait_traits;
using asio_wheel_test::manual_wall_clock;
using asio_wheel_test::manual_wall_wait_traits;

// The timer and service of a program on either manual clock.
template <typename Clock>
using basic_timer_type = asio_wheel::basic_wheel_timer<Clock,
    asio_wheel_test::basic_manual_wait_traits<Clock>>;
template <typename Clock>
using basic_service_type = asio_wheel::wheel_timer_service<Clock,
    asio_wheel_test::basic_manual_wait_traits<Clock>>;

using timer_type = basic_timer_type<manual_clock>;
using service_type = basic_service_type<manual_clock>;
using time_point = manual_clock::time_point;
using duration =
    manual_clock::duration;  // manual_wall_clock's is the same type

// Where a program on the wall clock starts: manual_wall_clock is set here before its service is
// made, so every wall-clock program starts from the same time (runs are independent of each
// other, and the clock stays far inside int64 however many programs step it: one program moves
// it by at most 1024 ops * 2048 ticks of 1 ms, about 2e12 ns). Off any round number, as
// manual_clock's start.
inline constexpr std::int64_t wall_clock_start_ns = 1'000'000'000'000'123'457;

struct failure
{
  std::size_t op_index =
      0;  // the op after which the check failed (ops.size(): final check)
  std::string
      category;  // stable short name, so minimisation keeps the same failure
  std::string message;
};

// Results worth reporting from a passing run.
struct run_summary
{
  std::size_t ops_run = 0;
  std::size_t waits_started = 0;
  std::size_t waits_succeeded = 0;
  std::size_t waits_aborted = 0;
  // Completion minus expiry, less the wait's tolerance, in manual time, over the successful
  // waits whose expiry the clock passed in an advance_in_steps op (at most a quarter tick a
  // step): under one tick plus the step. (After a plain advance the lateness only measures how
  // far the clock jumped.)
  duration max_lateness_stepped{0};
  // Handlers the io_context's run functions said they ran: one per completed wait, as
  // they count a steady_timer's.
  std::size_t handlers_run = 0;
  // Wall clock: step_clock ops that moved the clock back, wheel_stats::clock_steps_back at the
  // last settle, and successful waits that completed before their tick boundary (decided at
  // once because their expiry had passed while the wheel was ahead of the clock).
  std::size_t clock_steps_back_made = 0;
  std::uint64_t clock_steps_back = 0;
  std::size_t waits_before_boundary = 0;
  // Tolerance: successful waits that had one (tolerance() > 0 when they completed); those of
  // them that the model saw still pending at a settle at or after their tick boundary on the
  // steady clock, held back by their tolerance; and wheel_stats::wakeups_saved at the last
  // settle, which lies between the two (check_stats).
  std::size_t tolerant_waits_succeeded = 0;
  std::size_t waits_held_by_tolerance = 0;
  std::uint64_t wakeups_saved = 0;
  // Extensions: successful waits whose expiry was an extension later than the expiry set,
  // and those of them whose ceiling (model_timer) lay beyond it: an extension had been later.
  std::size_t waits_at_extension = 0;
  std::size_t waits_under_lowered_extension = 0;
};

// The runner's records, outside basic_model_run so that their default member initialisers are
// usable inside it (clang does not allow that for a class nested in one still being defined).
namespace run_detail {

enum class expected_state
{
  pending,
  succeeded,
  aborted
};

// What the library did with one wait (written by its handler).
template <typename TimePoint>
struct wait_record
{
  int calls = 0;
  error_code ec;
  TimePoint completed_at{};
  bool ran_inside_call = false;
};

// What the model says about the same wait.
template <typename TimePoint>
struct model_wait
{
  expected_state state = expected_state::pending;
  TimePoint
      expiry{};  // for succeeded waits: the (effective) expiry it completed for
  // For succeeded waits: what its lateness counts from, the later of its expiry and the highest
  // effective expiry the wheel may have filed it for (model_timer::ceiling).
  TimePoint late_from{};
  TimePoint
      completes_at{};  // for succeeded waits: the settle time it must complete at
  duration step{0};  // >0: the clock passed the expiry in steps of this size
  duration tolerance{0};  // for succeeded waits: the tolerance it had
  // For waits decided in a step_clock op in the middle of an advance: the clock before the
  // step, when the library may have decided them too (completes_at is the clock after it).
  std::optional<TimePoint> first_reading;
  bool verified = false;  // completion seen and checked
};

template <typename TimePoint>
struct model_timer
{
  // The effective expiry (what expiry() returns): the later of the expiry set (set_expiry)
  // and the extension (extend_at / extend_after), or the expiry set alone without one.
  TimePoint expiry{};
  TimePoint expiry_set{};
  std::optional<TimePoint> extension;
  // While waits are pending: the highest effective expiry since the first of them was started
  // or the expiry was last set. extend_at stores without reading the timer, so an extension
  // moved earlier than one the wheel has already filed the entry for leaves it filed there:
  // the waits may then complete as late as this ceiling's boundary (plus the tolerance).
  TimePoint ceiling{};
  std::deque<std::size_t> pending;  // wait ids, oldest first
  // The timer's own tolerance (set_tolerance, in whole ticks), which replaces the context's
  // fraction from then on; nullopt: the context's.
  std::optional<duration> own_tolerance;
  // The tolerance of the current expiry, in whole ticks: the own one, or the context's fraction
  // of the expiry's length when it was set (fixed then, as time passes).
  duration tolerance{0};
  // Steady clock: a settle at or after the pending waits' tick boundary found them still
  // pending (their tolerance held them back). Cleared when the expiry or the tolerance changes
  // or no wait is pending: see check_stats.
  bool held = false;
  // A wait started while the effective expiry had been reached (expiry <= now): the timer's
  // waits must complete at the next settle, as a steady_timer's already expired wait does,
  // not at the tick boundary. Cleared once no wait is pending.
  bool due_at_once = false;
};

}  // namespace run_detail

// Runs one program on Clock: manual_clock or manual_wall_clock (config.wall_clock says which;
// run_program picks).
template <typename Clock>
class basic_model_run
{
public:
  using clock = Clock;
  using time_point = typename Clock::time_point;
  using duration = typename Clock::duration;
  using timer_type = basic_timer_type<Clock>;
  using service_type = basic_service_type<Clock>;
  using expected_state = run_detail::expected_state;
  using wait_record = run_detail::wait_record<time_point>;
  using model_wait = run_detail::model_wait<time_point>;
  using model_timer = run_detail::model_timer<time_point>;

  explicit basic_model_run(const wheel_config& config)
    : config_(config),
      io_(config.single_thread_hint ? 1 : concurrency_hint_default)
  {
    asio_wheel::wheel_options options;
    options.tick = model_tick;
    options.slots = config.slots;
    options.max_completions_per_slice = config.max_completions_per_slice;
    const tolerance_fraction f =
        tolerance_fractions[config.tolerance % tolerance_count];
    options.tolerance = static_cast<double>(f.num) / static_cast<double>(f.den);
    // A clock that can step starts every program at the same time (wall_clock_start_ns).
    if constexpr (!Clock::is_steady)
      Clock::set(time_point(duration(wall_clock_start_ns)));
    // The service takes Clock::now() as the origin of its ticks: read it at the same manual
    // time (nothing moves the clock in between), so the model knows every tick boundary.
    origin_ = Clock::now();
    read_floor_ = origin_;
    service_ = &asio::make_service<service_type>(io_, options);
  }

  basic_model_run(const basic_model_run&) = delete;
  basic_model_run& operator=(const basic_model_run&) = delete;

  ~basic_model_run()
  {
    // Timers go before the context; handlers still queued are destroyed with it, unrun.
    for (auto& t : timers_)
      t.reset();
  }

  // Runs ops and checks every step; returns the first failure. After the last op every timer
  // is destroyed and every wait must have completed exactly once.
  std::optional<failure> run(const std::vector<timer_op>& ops)
  {
    for (std::size_t i = 0; i < ops.size(); ++i)
    {
      op_index_ = i;
      execute(ops[i]);
      if (failure_)
        return failure_;
      ++summary_.ops_run;
    }
    op_index_ = ops.size();
    for (std::size_t t = 0; t < timer_count; ++t)
      if (timers_[t])
        execute_destroy(t);
    if (!failure_)
      settle_and_check();
    for (std::size_t id = 0; id < records_.size() && !failure_; ++id)
      if (records_[id].calls != 1)
        fail("handler_not_run_once",
            "wait #" + std::to_string(id) + " ran its handler "
                + std::to_string(records_[id].calls) + " times by the end");
    return failure_;
  }

  const run_summary& summary() const { return summary_; }

private:
  static constexpr int settle_round_limit = 100'000;

  // ----- time arithmetic of the model -----

  static duration to_duration(std::int32_t amount)
  {
    if (amount == far_future)
      return (duration::max)();
    if (amount == far_past)
      return (duration::min)();
    return duration(static_cast<std::int64_t>(amount)
        * (model_tick.count() / units_per_tick));
  }

  // now + d, saturating at the clock's limits exactly as Asio's chrono_time_traits::add does
  // (the library computes expires_after / reschedule_after with it).
  static time_point add(time_point t, duration d)
  {
    const time_point epoch;
    if (t >= epoch)
    {
      if ((time_point::max)() - t < d)
        return (time_point::max)();
    }
    else if (-(t - (time_point::min)()) > d)
      return (time_point::min)();
    return t + d;
  }

  time_point absolute(std::int32_t amount) const
  {
    if (amount == far_future)
      return (time_point::max)();
    if (amount == far_past)
      return (time_point::min)();
    return add(Clock::now(), to_duration(amount));
  }

  // The first tick boundary at or after `expiry`, origin + k * tick with k the ceiling of
  // (expiry - origin) / tick, negative before the origin (a clock that is not steady can step
  // back there): the wheel completes a wait when the clock has reached it. nullopt: never
  // reached (time_point::max(), or beyond the clock's range). Never below the clock's range:
  // the boundary is at or after the expiry.
  std::optional<time_point> due_boundary(time_point expiry) const
  {
    if (expiry == (time_point::max)())
      return std::nullopt;
    const __int128 diff =
        static_cast<__int128>(expiry.time_since_epoch().count())
        - origin_.time_since_epoch().count();
    const __int128 tick = model_tick.count();
    // The ceiling of diff / tick, for either sign (C++ division truncates towards zero).
    const __int128 k = diff / tick + (diff % tick > 0 ? 1 : 0);
    const __int128 boundary = origin_.time_since_epoch().count() + k * tick;
    if (boundary > (std::numeric_limits<std::int64_t>::max)())
      return std::nullopt;
    return time_point(duration(static_cast<std::int64_t>(boundary)));
  }

  // The time by which a wait that is due at tick boundary `due` and may be `tolerance` late
  // (whole ticks) has completed: the library completes it at a tick within `tolerance` of its
  // own, so at most `tolerance` after `due`, under expiry + tolerance + one tick. nullopt:
  // never reached.
  static std::optional<time_point> latest_boundary(
      std::optional<time_point> due, duration tolerance)
  {
    if (!due)
      return std::nullopt;
    const __int128 latest =
        static_cast<__int128>(due->time_since_epoch().count())
        + tolerance.count();
    if (latest > (std::numeric_limits<std::int64_t>::max)())
      return std::nullopt;
    return time_point(duration(static_cast<std::int64_t>(latest)));
  }

  // d rounded down to whole ticks (0 for d <= 0): a tolerance never grows by the rounding.
  static duration whole_ticks(duration d)
  {
    const std::int64_t tick = model_tick.count();
    return d <= duration::zero() ? duration::zero()
                                 : duration(d.count() / tick * tick);
  }

  // The context's tolerance for an expiry set at `now`: its fraction of the length, expiry -
  // now (saturated as the library's time_traits::subtract; 0 if the expiry has passed), in
  // whole ticks.
  duration context_tolerance(time_point expiry, time_point now) const
  {
    const tolerance_fraction f =
        tolerance_fractions[config_.tolerance % tolerance_count];
    const __int128 length =
        static_cast<__int128>(expiry.time_since_epoch().count())
        - now.time_since_epoch().count();
    if (f.num == 0 || length <= 0)
      return duration::zero();
    const std::int64_t tick = model_tick.count();
    const __int128 ticks =
        std::min<__int128>(length, (duration::max)().count()) / tick;
    return duration(static_cast<std::int64_t>(ticks * f.num / f.den * tick));
  }

  // The model side of setting a timer's expiry at the clock's time `now` (create with an
  // expiry, expires_*, reschedule_*): the tolerance is the timer's own, or the context's for
  // this expiry.
  void set_expiry(model_timer& m, time_point expiry, time_point now)
  {
    m.expiry = m.expiry_set = m.ceiling = expiry;
    m.extension.reset();
    m.tolerance =
        m.own_tolerance ? *m.own_tolerance : context_tolerance(expiry, now);
    m.held = false;
  }

  // The model side of extend_at: the effective expiry is the later of the expiry set and the
  // extension, the last one stored; the tolerance stays what the expiry set.
  void extend(model_timer& m, time_point extension)
  {
    m.extension = extension;
    m.expiry = (std::max)(m.expiry_set, extension);
    if (!m.pending.empty())
      m.ceiling = (std::max)(m.ceiling, m.expiry);
    m.held = false;
  }

  // ----- failure reporting -----

  void fail(const std::string& category, const std::string& message)
  {
    if (!failure_)
      failure_ = failure{op_index_, category, message};
  }

  std::string at_time(time_point t) const
  {
    if (t == time_point())
      return "time_point() (the epoch)";
    if (t == (time_point::max)())
      return "time_point::max()";
    if (t == (time_point::min)())
      return "time_point::min()";
    std::ostringstream s;
    const std::int64_t d = (t - origin_).count();
    s << "origin" << (d < 0 ? "-" : "+") << (d < 0 ? -d : d) << "ns";
    return s.str();
  }

  // ----- operations -----

  // Every library call goes through here, so a handler that runs inside a call is caught.
  template <typename F>
  auto call(F&& f)
  {
    struct guard
    {
      bool& flag;
      ~guard() { flag = false; }
    } g{inside_call_};
    inside_call_ = true;
    return f();
  }

  // The one case where a wait started after its expiry may complete at its tick boundary
  // instead of at once (doc/design.md, "Precision"): a precise wait whose expiry lies more
  // than two ticks after the library's last reading of the clock. read_floor_ is at or before
  // that reading, so the model allows at least every wait the library may treat so.
  bool may_wait_for_boundary(const model_timer& m) const
  {
    return m.tolerance == duration::zero()
        && m.expiry
        > read_floor_ + 2 * std::chrono::duration_cast<duration>(model_tick);
  }

  // An op that reads the clock in the library and keeps the reading (expires_*, reschedule_*).
  void library_read_clock() { read_floor_ = Clock::now(); }

  void start_wait(std::size_t t, bool with_slot)
  {
    const std::size_t id = records_.size();
    records_.emplace_back();
    waits_.emplace_back();
    signals_.emplace_back();
    if (model_[t]->pending.empty())
    {
      model_[t]->ceiling = model_[t]->expiry;  // filed for it
      model_[t]->due_at_once = false;
    }
    if (model_[t]->expiry <= Clock::now() && !may_wait_for_boundary(*model_[t]))
      model_[t]->due_at_once = true;
    model_[t]->pending.push_back(id);
    ++summary_.waits_started;
    auto handler = [this, id](const error_code& ec) {
      wait_record& r = records_[id];
      ++r.calls;
      r.ec = ec;
      r.completed_at = Clock::now();
      if (inside_call_)
        r.ran_inside_call = true;
    };
    call([&] {
#if defined(ASIO_WHEEL_ASIO_HAS_CANCELLATION_SLOT)
      if (with_slot)
        timers_[t]->async_wait(asio::bind_cancellation_slot(
            signals_.back().emplace().slot(), std::move(handler)));
      else
#else
      (void)with_slot;  // no per-operation cancellation before Asio 1.19
#endif
        timers_[t]->async_wait(std::move(handler));
    });
  }

  // Per-operation cancellation: a pending wait is aborted (whatever its place in its timer's
  // FIFO); for a wait that has completed the slot was cleared, and emitting does nothing.
  void emit_cancellation(const timer_op& op)
  {
    const std::size_t back = op.other % 8 + 1;
    if (records_.size() < back)
      return;
    const std::size_t id = records_.size() - back;
    if (!signals_[id])
      return;  // started without a slot (always, before Asio 1.19)
#if defined(ASIO_WHEEL_ASIO_HAS_CANCELLATION_SLOT)
    static constexpr asio::cancellation_type types[] = {
        asio::cancellation_type::terminal, asio::cancellation_type::partial,
        asio::cancellation_type::total};
    if (waits_[id].state == expected_state::pending)
    {
      for (auto& m : model_)
        if (m)
          for (auto it = m->pending.begin(); it != m->pending.end(); ++it)
            if (*it == id)
            {
              m->pending.erase(it);
              break;
            }
      waits_[id].state = expected_state::aborted;
      ++summary_.waits_aborted;
    }
    call([&] { signals_[id]->emit(types[(op.amount % 3 + 3) % 3]); });
#endif
  }

  // The model side of cancel / cancel_one / expires_* / destroy / move-assign.
  std::size_t abort_pending(model_timer& m, std::size_t limit)
  {
    std::size_t n = 0;
    while (n < limit && !m.pending.empty())
    {
      waits_[m.pending.front()].state = expected_state::aborted;
      m.pending.pop_front();
      ++n;
      ++summary_.waits_aborted;
    }
    return n;
  }

  void expect_count(const char* what, std::size_t got, std::size_t expected)
  {
    if (got != expected)
      fail(std::string("wrong_count_") + what,
          std::string(what) + " returned " + std::to_string(got)
              + ", the model expected " + std::to_string(expected));
  }

  void execute_destroy(std::size_t t)
  {
    abort_pending(*model_[t], ~std::size_t(0));
    model_[t].reset();
    call([&] { timers_[t].reset(); });
  }

  void execute(const timer_op& op)
  {
    const std::size_t t = op.timer % timer_count;
    const std::size_t o = op.other % timer_count;
    const bool exists = timers_[t].has_value();
    switch (op.kind)
    {
    case op_kind::create:
      if (exists)
        return;  // skipped: the slot holds a timer
      switch (op.other % 3)
      {
      case 0:
        call([&] { timers_[t].emplace(io_.get_executor()); });
        model_[t].emplace();
        break;
      case 1:
      {
        const time_point tp = absolute(op.amount);
        call([&] { timers_[t].emplace(io_, tp); });
        set_expiry(model_[t].emplace(), tp, Clock::now());
        break;
      }
      default:
      {
        const duration d = to_duration(op.amount);
        call([&] { timers_[t].emplace(io_.get_executor(), d); });
        set_expiry(model_[t].emplace(), add(Clock::now(), d), Clock::now());
        break;
      }
      }
      break;
    case op_kind::async_wait:
      if (!exists)
        return;
      start_wait(t, (op.other & 1) != 0);
      break;
    case op_kind::cancel:
      if (!exists)
        return;
      expect_count("cancel", call([&] { return timers_[t]->cancel(); }),
          abort_pending(*model_[t], ~std::size_t(0)));
      break;
    case op_kind::cancel_one:
      if (!exists)
        return;
      expect_count("cancel_one", call([&] { return timers_[t]->cancel_one(); }),
          abort_pending(*model_[t], 1));
      break;
    case op_kind::expires_at:
    case op_kind::expires_after:
    {
      if (!exists)
        return;
      const bool at = op.kind == op_kind::expires_at;
      const time_point tp =
          at ? absolute(op.amount) : add(Clock::now(), to_duration(op.amount));
      const std::size_t got = call([&] {
        return at ? timers_[t]->expires_at(tp)
                  : timers_[t]->expires_after(to_duration(op.amount));
      });
      expect_count(at ? "expires_at" : "expires_after", got,
          abort_pending(*model_[t], ~std::size_t(0)));
      set_expiry(*model_[t], tp, Clock::now());
      library_read_clock();
      break;
    }
    case op_kind::reschedule_at:
    case op_kind::reschedule_after:
    {
      if (!exists)
        return;
      const bool at = op.kind == op_kind::reschedule_at;
      const time_point tp =
          at ? absolute(op.amount) : add(Clock::now(), to_duration(op.amount));
      const std::size_t got = call([&] {
        return at ? timers_[t]->reschedule_at(tp)
                  : timers_[t]->reschedule_after(to_duration(op.amount));
      });
      // The pending waits are those the library has not completed: where it had a choice, the
      // model followed it at the last settle.
      expect_count(at ? "reschedule_at" : "reschedule_after", got,
          model_[t]->pending.size());
      set_expiry(*model_[t], tp, Clock::now());
      library_read_clock();
      break;
    }
    case op_kind::extend_at:
    case op_kind::extend_after:
    {
      if (!exists)
        return;
      const bool to = op.kind == op_kind::extend_at;
      const time_point tp =
          to ? absolute(op.amount) : add(Clock::now(), to_duration(op.amount));
      call([&] {
        if (to)
          timers_[t]->extend_at(tp);
        else
          timers_[t]->extend_after(to_duration(op.amount));
      });
      extend(*model_[t], tp);
      break;
    }
    case op_kind::move_construct:
      if (exists || t == o || !timers_[o])
        return;
      call([&] { timers_[t].emplace(std::move(*timers_[o])); });
      model_[t].emplace(std::move(*model_[o]));
      // As Asio's basic_waitable_timer: the moved-from object is left as if constructed from
      // its executor (no expiry, no waits) and stays usable.
      *model_[o] = model_timer{};
      break;
    case op_kind::move_assign:
      if (!exists || t == o || !timers_[o])
        return;
      abort_pending(*model_[t], ~std::size_t(0));
      call([&] { *timers_[t] = std::move(*timers_[o]); });
      *model_[t] = std::move(*model_[o]);
      *model_[o] = model_timer{};
#if !defined(ASIO_WHEEL_TEST_MOVED_FROM_KEEPS_EXECUTOR)
      // This Asio moved the executor out too, leaving the moved-from timer unusable: it is
      // made again, as it would be left by a later Asio (no expiry, no waits).
      call([&] { timers_[o].emplace(io_.get_executor()); });
#endif
      break;
    case op_kind::destroy:
      if (!exists)
        return;
      execute_destroy(t);
      break;
    case op_kind::advance:
      // A plain count of sixteenths: far_future here is 32767 of them, not duration::max(),
      // which would overflow the (process-wide) manual clock.
      Clock::advance(duration(std::abs(static_cast<std::int64_t>(op.amount))
          * (model_tick.count() / units_per_tick)));
      break;
    case op_kind::advance_in_steps:
    {
      const std::int64_t step_units = op.other % 4 + 1;
      const std::int64_t limit = max_stepped_revolutions
          * static_cast<std::int64_t>(config_.slots) * units_per_tick;
      std::int64_t total =
          op.amount < 0 ? -static_cast<std::int64_t>(op.amount) : op.amount;
      if (total > limit)
        total = limit;
      stepping_ = true;
      stepping_from_ = Clock::now();
      step_ = to_duration(static_cast<std::int32_t>(step_units));
      while (total > 0 && !failure_)
      {
        const std::int64_t step = total < step_units ? total : step_units;
        Clock::advance(to_duration(static_cast<std::int32_t>(step)));
        total -= step;
        settle_and_check();
      }
      stepping_ = false;
      return;  // settled after each step
    }
    case op_kind::emit_cancellation:
      emit_cancellation(op);
      break;
    case op_kind::step_clock:
      if constexpr (Clock::is_steady)
        return;  // skipped: a steady clock does not step
      else
      {
        std::optional<time_point> first_reading;
        if (op.other % 4 == 3)
        {
          Clock::advance(std::chrono::duration_cast<duration>(model_tick)
              * (4 * ((op.other >> 2) % 4 + 1)));
          // One handler, after the wakeup that decides every due wait (io_uring and IOCP may
          // run more to see them, all at this same time).
          summary_.handlers_run += asio_wheel_test::look_at_timers_now(io_);
          io_.restart();
          summary_.handlers_run += io_.poll_one();
          first_reading = Clock::now();
          // Waits decided so far in this op (the counts agreed at the last settle).
          decided_before_step_ =
              service_->stats().waits_expired - summary_.waits_succeeded;
        }
        const time_point before = Clock::now();
        if (op.amount == far_past)
          Clock::set(origin_ - duration(1));
        else if (op.amount == far_future)
          Clock::set(origin_
              + std::chrono::duration_cast<duration>(model_tick)
                  * (far_step_revolutions
                      * static_cast<std::int64_t>(config_.slots)));
        else
          Clock::step(to_duration(op.amount));
        if (Clock::now() < before)
          ++summary_.clock_steps_back_made;
        // A reading the library takes from now on may be earlier than the last one.
        if (Clock::now() < read_floor_)
          read_floor_ = Clock::now();
        std::size_t waited_after_step = timer_count;
        if (first_reading && (op.other & 16) != 0 && exists
            && model_[t]->pending.empty())
        {
          start_wait(t, false);
          waited_after_step = t;
        }
        if (!failure_)
          settle_and_check(first_reading, waited_after_step);
        return;
      }
    case op_kind::set_tolerance:
      if (!exists)
        return;
      if (op.amount == far_past)
      {
        // A negative tolerance is refused, and leaves the timer as it was (check_timer).
        bool threw = false;
        try
        {
          call([&] { timers_[t]->tolerance(duration(-1)); });
        }
        catch (const std::invalid_argument&)
        {
          threw = true;
        }
        if (!threw)
          fail("negative_tolerance_accepted",
              "t" + std::to_string(t)
                  + ".tolerance(-1ns) did not throw std::invalid_argument");
      }
      else
      {
        const duration d = op.amount == far_future
            ? (duration::max)()
            : to_duration(static_cast<std::int32_t>(std::abs(op.amount)));
        call([&] { timers_[t]->tolerance(d); });
        // Pending waits stay pending (their new window is checked from the settle on: those
        // beyond it are due now).
        model_timer& m = *model_[t];
        m.own_tolerance = whole_ticks(d);
        m.tolerance = *m.own_tolerance;
        m.held = false;
      }
      break;
    default:
      return;
    }
    if (!failure_)
      settle_and_check();
  }

  // ----- settling and checking -----

  bool settle()
  {
    // io_uring looks at the timer queues only when told (manual_clock.hpp); epoll on every poll.
    summary_.handlers_run += asio_wheel_test::look_at_timers_now(io_);
    io_.restart();
    for (int round = 0; round < settle_round_limit; ++round)
    {
      std::size_t n = io_.poll();
#if defined(ASIO_WHEEL_ASIO_HAS_IOCP)
      // poll() does not look at the timer queues on IOCP (see manual_clock.hpp).
      if (n == 0)
        n = asio_wheel_test::look_at_timers_now(io_);
#endif
      if (n == 0)
        return true;
      summary_.handlers_run += n;
    }
    return false;
  }

  // first_reading: the clock read earlier in the same op, before a step (step_clock in the
  // middle of an advance); the library may have decided waits then, too, except those of
  // timer `waited_after_step`, whose wait began after the step.
  void settle_and_check(std::optional<time_point> first_reading = std::nullopt,
      std::size_t waited_after_step = timer_count)
  {
    if (!settle())
    {
      fail("settle_unbounded",
          "the io_context still had handlers to run after "
              + std::to_string(settle_round_limit) + " poll rounds");
      return;
    }
    const time_point now = Clock::now();

    // The model's side of the settle: every pending wait whose due boundary has been reached
    // has completed, now, with success; so has every wait that started when its timer's
    // expiry had been reached (model_timer::due_at_once), as a steady_timer's does.
    //
    // Between the expiry and the boundary the library has a legal choice (Asio's semantics: a
    // wait completes with success once Clock::now() >= its expiry): a wait whose expiry has
    // passed (expiry <= now) while its tick boundary has not (boundary > now) may complete at
    // once, in the settle after the call, instead of at its boundary: one rescheduled to a
    // time already reached, or, after a clock that is not steady stepped back, one armed in
    // ticks the wheel had processed ahead of the clock. So where expiry <= now < boundary the
    // model follows the library: if it completed the timer's waits in this settle they
    // succeeded now (and check_wait checks they did so with success, once, at this settle's
    // time), otherwise they stay pending. A completion at a settle where now < expiry is never
    // accepted (check_wait: completed_early), and from the first settle where now >= boundary
    // on it is required. All the pending waits of a timer share its expiry and complete
    // together (a new wait joins those already filed): a timer with some of them completed and
    // some not is a failure. With a first reading (a step in the middle of an advance) a wait
    // may also have been decided at that reading: before the step its expiry, or its
    // boundary, may have passed.
    //
    // A tolerance widens the choice, on either clock: the library completes a wait at a tick of
    // its choosing within the tolerance (whole ticks) after the wait's own, so the completion
    // is required only from boundary + tolerance on (latest_boundary), under expiry + tolerance
    // + one tick; before that the model follows the library as above, from the boundary on
    // for the steady clock and from the expiry on for one that is not steady.
    std::uint64_t decided_before_now =
        0;  // with a first reading: succeeded, expiry > now
    for (std::size_t i = 0; i < timer_count; ++i)
    {
      auto& m = model_[i];
      if (!m)
        continue;
      if (m->pending.empty())
      {
        m->held = false;  // a later wait starts afresh
        m->due_at_once = false;
        continue;
      }
      const std::optional<time_point> first =
          i == waited_after_step ? std::nullopt : first_reading;
      const auto due = due_boundary(m->expiry);
      const time_point late_from = (std::max)(m->expiry, m->ceiling);
      const auto latest =
          latest_boundary(due_boundary(late_from), m->tolerance);
      const bool at_once = m->due_at_once && m->expiry <= now;
      if ((!latest || *latest > now) && !at_once)
      {
        const bool may_complete =
            m->expiry <= now || (first && m->expiry <= *first);
        if (!may_complete)
          continue;
        std::size_t completed = 0;
        for (std::size_t id : m->pending)
          if (records_[id].calls != 0)
            ++completed;
        if (completed == 0)
        {
          // Filed: completes at its boundary, or within its tolerance after it. On the steady
          // clock a settle past the boundary finds it pending only if the tolerance chose a
          // later tick (the wheel has processed every tick up to now's).
          if (Clock::is_steady && due && *due <= now && late_from == m->expiry)
            m->held = true;
          continue;
        }
        if (completed != m->pending.size())
        {
          fail("completed_partially",
              std::to_string(completed) + " of the "
                  + std::to_string(m->pending.size())
                  + " pending waits of a timer with expiry "
                  + at_time(m->expiry) + " completed at " + at_time(now)
                  + ", before they had to (at "
                  + (latest ? at_time(*latest) : "never")
                  + "); the others did not");
          return;
        }
      }
      for (std::size_t id : m->pending)
      {
        model_wait& w = waits_[id];
        w.state = expected_state::succeeded;
        w.expiry = m->expiry;
        w.late_from = late_from;
        w.tolerance = m->tolerance;
        w.completes_at = now;
        w.first_reading = first;
        if (stepping_ && m->expiry > stepping_from_)
          w.step = step_;
        ++summary_.waits_succeeded;
        if ((!due || *due > now) && !first_reading)
          ++summary_.waits_before_boundary;
        if (m->tolerance > duration::zero())
          ++summary_.tolerant_waits_succeeded;
        if (m->held)
          ++summary_.waits_held_by_tolerance;
        if (m->expiry > m->expiry_set)
          ++summary_.waits_at_extension;
        if (late_from > m->expiry)
          ++summary_.waits_under_lowered_extension;
        if (m->expiry > now)
          ++decided_before_now;
      }
      m->pending.clear();
      m->held = false;
      m->due_at_once = false;
    }
    // A wait whose expiry lies after the clock read after the step can only have been decided
    // before the step: no more of them than the library had decided then (wheel_stats counts a
    // wait as expired when it decides it). More means that the library went on with a pass
    // over ticks the clock had stepped back from.
    if (first_reading && decided_before_now > decided_before_step_)
    {
      fail("decided_after_step_back",
          std::to_string(decided_before_now) + " waits with an"
              + " expiry after the clock (" + at_time(now)
              + ") completed, but only " + std::to_string(decided_before_step_)
              + " had been decided before the clock stepped" + " back from "
              + at_time(*first_reading));
      return;
    }

    for (std::size_t id = 0; id < records_.size() && !failure_; ++id)
      check_wait(id, now);
    for (std::size_t t = 0; t < timer_count && !failure_; ++t)
      check_timer(t);
    if (!failure_)
      check_stats();
  }

  void check_wait(std::size_t id, time_point now)
  {
    const wait_record& r = records_[id];
    model_wait& w = waits_[id];
    const std::string name = "wait #" + std::to_string(id);
    if (r.calls > 1)
      return fail("handler_ran_twice",
          name + " ran its handler " + std::to_string(r.calls) + " times");
    if (r.ran_inside_call)
      return fail("handler_inside_call",
          name + "'s handler ran inside a timer member call");
    if (w.verified)
      return;
    switch (w.state)
    {
    case expected_state::pending:
      if (r.calls != 0)
      {
        std::string expiry = "?";
        for (const auto& m : model_)
          if (m)
            for (std::size_t pending_id : m->pending)
              if (pending_id == id)
                expiry = at_time(m->expiry);
        fail(r.ec ? "aborted_while_pending" : "completed_early",
            name + " completed with '" + r.ec.message() + "' at "
                + at_time(r.completed_at)
                + " while the model has it pending with expiry " + expiry
                + " (tick boundaries at" + " origin + k * "
                + std::to_string(model_tick.count()) + "ns)");
      }
      return;
    case expected_state::aborted:
      if (r.calls == 0)
        return fail("abort_not_delivered",
            name + " was aborted but its handler has not run");
      if (r.ec != asio::error::operation_aborted)
        return fail("abort_wrong_error",
            name + " should complete with operation_aborted, got '"
                + r.ec.message() + "'");
      w.verified = true;
      return;
    case expected_state::succeeded:
    {
      if (r.calls == 0)
        return fail("expiry_missed",
            name + " with expiry " + at_time(w.expiry) + " and tolerance "
                + std::to_string(w.tolerance.count()) + "ns should have"
                + " completed by " + at_time(now) + " (its tick boundary"
                + (w.tolerance > duration::zero() ? " plus its tolerance" : "")
                + " has passed)");
      if (r.ec)
        return fail("expiry_wrong_error",
            name + " should complete with success, got '" + r.ec.message()
                + "'");
      if (w.first_reading)
      {
        // Decided before the step (at the first reading, when the expiry had passed: its
        // handler ran then or after the step) or after it (at completes_at: when the expiry
        // had passed at either reading).
        const time_point first = *w.first_reading;
        const bool before_step = w.expiry <= first
            && (r.completed_at == first || r.completed_at == w.completes_at);
        const bool after_step =
            r.completed_at == w.completes_at && w.expiry <= w.completes_at;
        if (!before_step && !after_step)
          return fail(
              r.completed_at < w.expiry ? "completed_early" : "completed_late",
              name + " with expiry " + at_time(w.expiry) + " completed at "
                  + at_time(r.completed_at) + "; the clock read "
                  + at_time(first) + " before the step and "
                  + at_time(w.completes_at) + " after it");
        w.verified = true;
        return;
      }
      if (r.completed_at < w.expiry)
        return fail("completed_early",
            name + " completed at " + at_time(r.completed_at)
                + ", before its expiry " + at_time(w.expiry));
      // The first settle at or after the wait's tick boundary: the boundary is less than one
      // tick after the expiry, so the lateness is under one tick plus the last clock step
      // (counted from the ceiling, see model_timer, after an extension moved earlier).
      if (r.completed_at != w.completes_at)
        return fail("completed_late",
            name + " completed at " + at_time(r.completed_at)
                + ", the model expected " + at_time(w.completes_at));
      if (w.step > duration::zero())
      {
        // "At most one tick (plus the tolerance) late", stated directly for a clock that moves
        // in small steps (the checks above imply it): the tick boundary is under one tick
        // after the expiry, the completion at most the tolerance after that boundary, and the
        // first settle at or after the completion's tick under one step after it.
        const duration late = r.completed_at - w.late_from - w.tolerance;
        if (late >= std::chrono::duration_cast<duration>(model_tick) + w.step)
          return fail("completed_late",
              name + " completed " + std::to_string(late.count())
                  + " ns after its expiry plus its tolerance of "
                  + std::to_string(w.tolerance.count())
                  + " ns, not within one tick plus the" + " clock step of "
                  + std::to_string(w.step.count()) + " ns");
        if (late > summary_.max_lateness_stepped)
          summary_.max_lateness_stepped = late;
      }
      w.verified = true;
      return;
    }
    }
  }

  void check_timer(std::size_t t)
  {
    if (!timers_[t])
      return;
    const time_point got = timers_[t]->expiry();
    if (got != model_[t]->expiry)
      fail("wrong_expiry",
          "t" + std::to_string(t) + ".expiry() is " + at_time(got)
              + ", the model expected " + at_time(model_[t]->expiry));
    const duration tolerance = timers_[t]->tolerance();
    if (tolerance != model_[t]->tolerance)
      fail("wrong_tolerance",
          "t" + std::to_string(t) + ".tolerance() is "
              + std::to_string(tolerance.count()) + "ns, the model expected "
              + std::to_string(model_[t]->tolerance.count()) + "ns ("
              + (model_[t]->own_tolerance
                      ? "its own"
                      : "the context's fraction of its expiry's length")
              + ", whole ticks)");
  }

  void check_stats()
  {
    const asio_wheel::wheel_stats s = service_->stats();
    std::size_t pending = 0, timers_waiting = 0;
    for (const auto& m : model_)
      if (m && !m->pending.empty())
      {
        pending += m->pending.size();
        ++timers_waiting;
      }
    auto expect = [this](const char* field, std::uint64_t got,
                      std::uint64_t expected) {
      if (got != expected)
        fail(std::string("wrong_stats_") + field,
            std::string("wheel_stats::") + field + " is " + std::to_string(got)
                + ", the model expected " + std::to_string(expected));
    };
    expect("pending_waits", s.pending_waits, pending);
    // The wheel moves back at most once for each step back of the clock (afterwards it is no
    // longer ahead of the clock until the clock steps back again), never for a steady clock.
    if (s.clock_steps_back > summary_.clock_steps_back_made)
      fail("wrong_stats_clock_steps_back",
          "wheel_stats::clock_steps_back is "
              + std::to_string(s.clock_steps_back) + " after "
              + std::to_string(summary_.clock_steps_back_made)
              + " steps back of the clock");
    summary_.clock_steps_back = s.clock_steps_back;
    expect("timers_in_wheel", s.timers_in_wheel, timers_waiting);
    expect("waits_expired", s.waits_expired, summary_.waits_succeeded);
    expect("waits_cancelled", s.waits_cancelled, summary_.waits_aborted);
    // Each completed wait is one handler of the io_context, as Asio's run functions count
    // a steady_timer's: none batched, none run twice. (The io_uring service runs, and the run
    // functions count, operations of its own too.)
#if !defined(ASIO_WHEEL_TEST_IO_URING)
    expect("handlers_run", summary_.handlers_run,
        summary_.waits_succeeded + summary_.waits_aborted);
#endif
    // wakeups_saved counts the waits that completed at a later tick than their own because of
    // their tolerance: at most those that had one (none in a program without tolerance), at
    // least those the model saw held back past their tick boundary and that then completed
    // (steady clock: model_timer::held).
    if (s.wakeups_saved > summary_.tolerant_waits_succeeded
        || s.wakeups_saved < summary_.waits_held_by_tolerance)
      fail("wrong_stats_wakeups_saved",
          "wheel_stats::wakeups_saved is " + std::to_string(s.wakeups_saved)
              + "; " + std::to_string(summary_.waits_held_by_tolerance)
              + " waits completed after a"
              + " settle past their tick boundary had found them pending, "
              + std::to_string(summary_.tolerant_waits_succeeded)
              + " with a tolerance in all");
    summary_.wakeups_saved = s.wakeups_saved;
  }

  const wheel_config config_;
  std::vector<wait_record>
      records_;  // declared before io_: handlers refer to it
  std::vector<model_wait> waits_;
  // One signal per wait started with a slot; a deque, so a signal never moves while a handler
  // is attached to it. Declared before io_: outlives the operations that point into it.
#if defined(ASIO_WHEEL_ASIO_HAS_CANCELLATION_SLOT)
  std::deque<std::optional<asio::cancellation_signal>> signals_;
#else
  struct no_signal  // no per-operation cancellation before Asio 1.19
  {};
  std::deque<std::optional<no_signal>> signals_;
#endif
  asio::io_context io_;
  service_type* service_ = nullptr;
  std::array<std::optional<timer_type>, timer_count> timers_;
  std::array<std::optional<model_timer>, timer_count> model_;
  time_point origin_{};
  // At or before the library's last reading of the clock: see may_wait_for_boundary.
  time_point read_floor_{};
  bool inside_call_ = false;
  std::uint64_t decided_before_step_ = 0;  // see step_clock
  bool stepping_ = false;
  time_point stepping_from_{};  // clock when the current advance_in_steps began
  duration step_{0};  // its step
  std::size_t op_index_ = 0;
  std::optional<failure> failure_;
  run_summary summary_;
};

using model_run = basic_model_run<manual_clock>;
using wall_model_run = basic_model_run<manual_wall_clock>;

// Runs one program from a fresh io_context and service, on the clock config.wall_clock picks.
template <typename Run>
std::optional<failure> run_program_on(const wheel_config& config,
    const std::vector<timer_op>& ops, run_summary* summary)
{
  Run run(config);
  auto result = run.run(ops);
  if (summary)
    *summary = run.summary();
  return result;
}

inline std::optional<failure> run_program(const wheel_config& config,
    const std::vector<timer_op>& ops, run_summary* summary = nullptr)
{
  return config.wall_clock
      ? run_program_on<wall_model_run>(config, ops, summary)
      : run_program_on<model_run>(config, ops, summary);
}

}  // namespace asio_wheel_model
