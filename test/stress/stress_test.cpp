// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// stress_test.cpp: four threads in io_context::run(), strands, and wheel timers that are
// created, armed, rescheduled, cancelled, moved and destroyed from different threads at once,
// for a bounded stretch of real time. Meant to be run under ThreadSanitizer (CTest label
// `threads`, scripts/sanitize) as well as in every normal build.
//
// What it checks (the exact semantics are the model test's job, test/model/):
// - every async_wait's handler runs exactly once, also for waits aborted by destroy and move;
// - a handler runs on its timer's strand, never concurrently with another step of its actor;
// - a wait that completes with success is never early: not before the earliest expiry it had;
// - nothing is left behind: every run() returns, the service has no pending wait or timer.
// Steady clock, not a manual one: the point is real concurrency between the run() threads,
// the wheel and a thread outside run() that arms and destroys its own timers.
//
// Environment: ASIO_WHEEL_STRESS_MILLISECONDS (default 1500) sets how long actors keep going.
#define BOOST_TEST_MODULE asio_wheel_stress_test
#include <boost/test/unit_test.hpp>

#include <asio_wheel.hpp>

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <variant>
#include <vector>

namespace {

using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;
using strand_type = boost::asio::strand<boost::asio::io_context::executor_type>;
// Two timer flavours: the executor is the strand itself, or a plain io_context executor with
// the handler bound to the strand (bind_executor). Both must run handlers on the strand.
using strand_timer = asio_wheel::basic_wheel_timer<clock_type,
    boost::asio::wait_traits<clock_type>, strand_type>;
using plain_timer = asio_wheel::wheel_timer;

constexpr int run_threads = 4;
constexpr int actor_count = 24;
constexpr std::size_t max_waits =
    400'000;  // ids beyond this are not started (bounded memory)

std::chrono::milliseconds stress_duration()
{
  const char* v = std::getenv("ASIO_WHEEL_STRESS_MILLISECONDS");
  return std::chrono::milliseconds(
      v && *v ? std::strtol(v, nullptr, 10) : 1500);
}

// Everything the threads report; the main thread makes the assertions (Boost.Test is not
// thread-safe).
struct shared_state
{
  std::vector<std::atomic<int>> calls =
      std::vector<std::atomic<int>>(max_waits);
  std::atomic<std::size_t> next_wait_id{0};
  std::atomic<std::uint64_t> successes{0}, aborts{0}, other_errors{0};
  std::atomic<std::uint64_t> not_on_strand{0}, overlapping{0}, early{0};
  std::atomic<std::uint64_t> creates{0}, destroys{0}, moves{0}, reschedules{0},
      cancels{0};
  std::atomic<int> actors_done{0};
  std::mutex first_problem_mutex;
  std::string first_problem;

  void problem(const std::string& what)
  {
    std::lock_guard<std::mutex> lock(first_problem_mutex);
    if (first_problem.empty())
      first_problem = what;
  }

  std::optional<std::size_t> new_wait_id()
  {
    const std::size_t id = next_wait_id++;
    if (id >= max_waits)
      return std::nullopt;
    return id;
  }
};

// One actor: a strand, two timer slots (so that moves happen between live timers), and the
// waits it has outstanding. Touched only from its strand, whichever run() thread that is on.
class actor : public std::enable_shared_from_this<actor>
{
public:
  actor(boost::asio::io_context& io, shared_state& state, unsigned seed,
      bool strand_executor, clock_type::time_point stop_at)
    : io_(io), strand_(boost::asio::make_strand(io)), pacer_(strand_),
      state_(state), rng_(seed), strand_executor_(strand_executor),
      stop_at_(stop_at)
  {}

  void start()
  {
    boost::asio::post(strand_, [self = shared_from_this()] { self->step(); });
  }

private:
  using timer_slot = std::variant<std::monostate, strand_timer, plain_timer>;

  // The earliest expiry a wait had while outstanding: success before it is early.
  struct outstanding_wait
  {
    std::size_t id;
    clock_type::time_point not_before;
  };

  struct busy_guard
  {
    actor& a;
    explicit busy_guard(actor& owner) : a(owner)
    {
      if (a.busy_.exchange(true))
        ++a.state_.overlapping;
      if (!a.strand_.running_in_this_thread())
        ++a.state_.not_on_strand;
    }
    ~busy_guard() { a.busy_ = false; }
  };

  template <typename F>
  static void with_timer(timer_slot& slot, F&& f)
  {
    if (auto* t = std::get_if<strand_timer>(&slot))
      f(*t);
    else if (auto* t = std::get_if<plain_timer>(&slot))
      f(*t);
  }

  clock_type::duration random_delay()
  {
    // Mostly short so that many waits expire during the run, sometimes past a revolution
    // (64 slots of 1 ms), sometimes already in the past.
    switch (rng_() % 8)
    {
    case 0:
      return -std::chrono::microseconds(rng_() % 2000);
    case 1:
      return std::chrono::milliseconds(64 + rng_() % 100);
    default:
      return std::chrono::microseconds(rng_() % 5000);
    }
  }

  void create(timer_slot& slot)
  {
    const auto expiry = clock_type::now() + random_delay();
    if (strand_executor_)
      slot.emplace<strand_timer>(strand_, expiry);
    else
      slot.emplace<plain_timer>(io_.get_executor(), expiry);
    ++state_.creates;
  }

  void start_wait(timer_slot& slot, std::deque<outstanding_wait>& waits)
  {
    const auto id = state_.new_wait_id();
    if (!id)
      return;
    with_timer(slot, [&](auto& timer) {
      waits.push_back({*id, timer.expiry()});
      auto handler = [self = shared_from_this(), id = *id](
                         const boost::system::error_code& ec) {
        self->on_complete(id, ec);
      };
      if constexpr (std::is_same_v<std::decay_t<decltype(timer)>, strand_timer>)
        timer.async_wait(std::move(handler));
      else
        timer.async_wait(
            boost::asio::bind_executor(strand_, std::move(handler)));
    });
  }

  void on_complete(std::size_t id, const boost::system::error_code& ec)
  {
    busy_guard guard(*this);
    const auto now = clock_type::now();
    if (state_.calls[id].fetch_add(1) != 0)
      state_.problem(
          "wait " + std::to_string(id) + " completed more than once");
    // Find the record wherever it is (it moved with its timer between the two slots).
    std::optional<outstanding_wait> record;
    for (auto* waits : {&waits_[0], &waits_[1]})
      for (auto it = waits->begin(); it != waits->end(); ++it)
        if (it->id == id)
        {
          record = *it;
          waits->erase(it);
          break;
        }
    if (!ec)
    {
      ++state_.successes;
      if (record && now < record->not_before)
      {
        ++state_.early;
        state_.problem("wait " + std::to_string(id) + " succeeded "
            + std::to_string((record->not_before - now).count())
            + " ns before its expiry");
      }
    }
    else if (ec == boost::asio::error::operation_aborted)
      ++state_.aborts;
    else
    {
      ++state_.other_errors;
      state_.problem(
          "wait " + std::to_string(id) + " completed with " + ec.message());
    }
  }

  // Waits moved by reschedule may now complete as early as the new expiry.
  static void lower_not_before(
      std::deque<outstanding_wait>& waits, clock_type::time_point t)
  {
    for (auto& w : waits)
      if (t < w.not_before)
        w.not_before = t;
  }

  void step()
  {
    busy_guard guard(*this);
    if (clock_type::now() >= stop_at_)
    {
      // Destroying the timers aborts whatever is still pending; those handlers still run.
      for (auto& slot : slots_)
        if (!std::holds_alternative<std::monostate>(slot))
        {
          slot.emplace<std::monostate>();
          ++state_.destroys;
        }
      ++state_.actors_done;
      return;
    }

    const std::size_t s = rng_() % 2;
    timer_slot& slot = slots_[s];
    auto& waits = waits_[s];
    if (std::holds_alternative<std::monostate>(slot))
      create(slot);
    else
      switch (rng_() % 16)
      {
      case 0:
      case 1:
      case 2:
      case 3:
      case 4:
      case 5:
        start_wait(slot, waits);
        break;
      case 6:
      case 7:
        with_timer(slot, [&](auto& t) {
          const auto d = random_delay();
          t.reschedule_after(d);
          lower_not_before(waits, t.expiry());
        });
        ++state_.reschedules;
        break;
      case 8:
        with_timer(slot, [&](auto& t) { t.expires_after(random_delay()); });
        ++state_.cancels;
        break;
      case 9:
        with_timer(
            slot, [&](auto& t) { rng_() % 2 ? t.cancel() : t.cancel_one(); });
        ++state_.cancels;
        break;
      case 10:
        slot.emplace<std::monostate>();
        ++state_.destroys;
        break;
      case 11:
      {
        // Move this slot's timer into the other slot (move-assign when both hold the same
        // flavour: the target's own waits are aborted first).
        timer_slot& target = slots_[1 - s];
        if (target.index() == slot.index())
          with_timer(slot, [&](auto& t) {
            using T = std::decay_t<decltype(t)>;
            std::get<T>(target) = std::move(t);
          });
        else
          with_timer(slot, [&](auto& t) {
            using T = std::decay_t<decltype(t)>;
            target.template emplace<T>(std::move(t));
          });
        // Records follow their waits; the moved-from timer keeps none.
        for (auto& w : waits)
          waits_[1 - s].push_back(w);
        waits.clear();
        ++state_.moves;
        break;
      }
      default:
        with_timer(slot, [&](auto& t) {
          t.reschedule_at(
              clock_type::now() + std::chrono::microseconds(rng_() % 3000));
          lower_not_before(waits, t.expiry());
        });
        ++state_.reschedules;
        break;
      }
    // The next step: half the time at once (bursts from all run() threads), otherwise after a
    // pause on a wheel timer of its own, so that waits get the time to expire.
    if (rng_() % 2)
      boost::asio::post(strand_, [self = shared_from_this()] { self->step(); });
    else
    {
      pacer_.expires_after(std::chrono::microseconds(rng_() % 1500));
      pacer_.async_wait(
          [self = shared_from_this()](
              const boost::system::error_code&) { self->step(); });
    }
  }

  boost::asio::io_context& io_;
  strand_type strand_;
  strand_timer pacer_;
  shared_state& state_;
  std::minstd_rand rng_;
  const bool strand_executor_;
  const clock_type::time_point stop_at_;
  std::atomic<bool> busy_{false};
  timer_slot slots_[2];
  std::deque<outstanding_wait> waits_[2];
};

}  // namespace

BOOST_AUTO_TEST_CASE(
    four_run_threads_create_arm_move_and_destroy_timers_concurrently)
{
  boost::asio::io_context io(run_threads);
  asio_wheel::wheel_options options;
  options.tick = 1ms;
  options.slots = 64;  // a revolution every 64 ms: many wrap-arounds
  options.max_completions_per_slice = 8;  // storms are cut into slices
  auto& service =
      boost::asio::make_service<asio_wheel::wheel_timer_service<clock_type>>(
          io, options);

  shared_state state;
  const auto duration = stress_duration();
  const auto stop_at = clock_type::now() + duration;
  for (int i = 0; i < actor_count; ++i)
    std::make_shared<actor>(io, state, 7919u * (i + 1), i % 2 == 0, stop_at)
        ->start();

  std::vector<std::future<void>> runs;
  for (int i = 0; i < run_threads; ++i)
    runs.push_back(std::async(std::launch::async, [&io] { io.run(); }));

  // Meanwhile, a thread outside run() arms and destroys timers of its own (distinct objects
  // may be used from any thread), so the wheel is changed from five threads at once.
  std::atomic<std::uint64_t> outside_waits{0}, outside_calls{0};
  {
    std::minstd_rand rng(4242);
    while (clock_type::now() < stop_at)
    {
      std::vector<plain_timer> batch;
      for (int i = 0; i < 16; ++i)
      {
        batch.emplace_back(io, std::chrono::microseconds(rng() % 3000));
        batch.back().async_wait(
            [&outside_calls](
                const boost::system::error_code&) { ++outside_calls; });
        ++outside_waits;
      }
      for (auto& t : batch)
        if (rng() % 2)
          t.reschedule_after(std::chrono::microseconds(rng() % 3000));
      std::this_thread::sleep_for(std::chrono::microseconds(rng() % 2000));
      if (rng() % 3 == 0)
        batch.front().cancel();
      // batch goes out of scope: destroyed here, while run() threads may be expiring it.
    }
  }

  // run() returns on every thread once nothing is pending. Bounded: a lost wait would keep
  // run() from returning, and must fail the test rather than hang it.
  const auto finish_by = clock_type::now() + 30s;
  bool all_returned = true;
  for (auto& r : runs)
    if (r.wait_until(finish_by) != std::future_status::ready)
      all_returned = false;
  if (!all_returned)
  {
    const auto s = service.stats();
    BOOST_ERROR(
        "run() did not return on every thread 30 s after the actors stopped ("
        << state.actors_done.load() << " of " << actor_count << " actors done, "
        << s.pending_waits
        << " waits pending): a wait was lost or run() hangs");
    io.stop();
    for (auto& r : runs)
      r.wait();
  }

  const std::size_t started = std::min(state.next_wait_id.load(), max_waits);
  std::size_t not_once = 0;
  for (std::size_t id = 0; id < started; ++id)
    if (state.calls[id].load() != 1)
      ++not_once;
  const auto s = service.stats();
  BOOST_TEST_MESSAGE(duration.count()
      << " ms, " << run_threads << " run() threads, " << actor_count
      << " actors: " << started << " waits (" << state.successes << " expired, "
      << state.aborts << " aborted), " << state.creates << " creates, "
      << state.destroys << " destroys, " << state.moves << " moves, "
      << state.reschedules << " reschedules, " << state.cancels
      << " cancels; outside thread: " << outside_waits
      << " waits; service: " << s.wakeups << " wakeups, max lateness "
      << s.max_lateness.count() << " ns");

  BOOST_TEST(state.first_problem.empty(), state.first_problem);
  BOOST_TEST(not_once == 0u,
      not_once << " of " << started << " waits did not run exactly once");
  BOOST_TEST(state.not_on_strand.load() == 0u,
      "handlers or steps ran off their strand");
  BOOST_TEST(state.overlapping.load() == 0u,
      "an actor ran two things at once on its strand");
  BOOST_TEST(state.early.load() == 0u);
  BOOST_TEST(state.other_errors.load() == 0u);
  BOOST_TEST(outside_calls.load() == outside_waits.load(),
      "outside thread: " << outside_calls << " handlers ran for "
                         << outside_waits << " waits");
  BOOST_TEST(state.actors_done.load() == actor_count);
  BOOST_TEST(s.pending_waits == 0u);
  BOOST_TEST(s.timers_in_wheel == 0u);
  // The run must have done what it claims, or it proves nothing.
  BOOST_TEST(state.successes.load() > 0u);
  BOOST_TEST(state.aborts.load() > 0u);
  BOOST_TEST(state.moves.load() > 0u);
  BOOST_TEST(started < max_waits,
      "wait ids ran out; raise max_waits or shorten the run");
}
