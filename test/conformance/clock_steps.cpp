// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// Conformance under a clock that steps (a wall clock after an NTP step or a change of the
// date): the same tests run against asio::basic_waitable_timer and asio_wheel's
// basic_wheel_timer on manual_wall_clock, a manual clock that is not steady, so that a test
// decides exactly when and how far the clock steps. What Asio's timer does is the reference:
// a wait completes with success only once Clock::now() >= expiry(), it completes once the
// clock has passed its expiry (the wheel: by one tick later), nothing is lost or completed
// twice; after a backward step a new wait of d completes d later on the stepped clock, and a
// wait armed before the step completes when the clock gets back to its expiry.
#include "conformance.hpp"

#include "../asio_wheel/wheel_test_support.hpp"  // manual_wall_clock, settle()

#include <array>
#include <type_traits>
#include <vector>

using namespace conformance;

namespace {

using asio_wheel_test::manual_wall_clock;
using asio_wheel_test::manual_wall_wait_traits;
using asio_wheel_test::settle;
using time_point = manual_wall_clock::time_point;
using duration = manual_wall_clock::duration;

// The wheel a second time with its edge cases stressed (as in conformance.hpp): 2 ms ticks,
// 8 slots, one completion per slice. Its own traits give it a service of its own.
struct stressed_wall_traits : manual_wall_wait_traits
{};

using asio_wall_timer =
    asio::basic_waitable_timer<manual_wall_clock, manual_wall_wait_traits>;
using wheel_wall_timer =
    asio_wheel::basic_wheel_timer<manual_wall_clock, manual_wall_wait_traits>;
using stressed_wheel_wall_timer =
    asio_wheel::basic_wheel_timer<manual_wall_clock, stressed_wall_traits>;

using wall_timer_types =
    std::tuple<asio_wall_timer, wheel_wall_timer, stressed_wheel_wall_timer>;

// How late a wait may complete after its expiry: Asio's timer not at all (the manual clock
// does not move while the test settles), the wheel by one tick.
template <class Timer>
struct wall_profile
{
  static constexpr duration tick = duration::zero();
  static void configure(asio::io_context&) {}
};

template <>
struct wall_profile<wheel_wall_timer>
{
  static constexpr duration tick = 1ms;  // the default
  static void configure(asio::io_context&) {}
};

template <>
struct wall_profile<stressed_wheel_wall_timer>
{
  static constexpr duration tick = 2ms;
  static void configure(asio::io_context& io)
  {
    asio_wheel::wheel_options options;
    options.tick = tick;
    options.slots = 8;
    options.max_completions_per_slice = 1;
    asio::make_service<asio_wheel::wheel_timer_service<manual_wall_clock,
        stressed_wall_traits>>(io, options);
  }
};

template <class Timer>
constexpr bool is_wheel = !std::is_same_v<Timer, asio_wall_timer>;

template <class Timer>
class wall_context : public asio::io_context
{
public:
  explicit wall_context(int hint = asio_wheel_test::concurrency_hint_default)
    : asio::io_context(hint)
  {
    wall_profile<Timer>::configure(*this);
  }
};

struct step_record
{
  int calls = 0;
  error_code ec;
  time_point at{};
  time_point expiry{};
};

// Starts a wait on timer recording into r; the expiry it is for is the timer's now.
template <class Timer>
void start_wait(Timer& timer, step_record& r)
{
  r.expiry = timer.expiry();
  timer.async_wait([&r](const error_code& ec) {
    ++r.calls;
    r.ec = ec;
    r.at = manual_wall_clock::now();
  });
}

void step(duration d)
{
  manual_wall_clock::step(d);
}

// The clock moves forward to `to` (it may have been stepped back before).
void advance_to(time_point to)
{
  manual_wall_clock::set(to);
}

// Checks the record of a wait that must still be pending.
void require_pending(const step_record& r, const char* what)
{
  BOOST_TEST_REQUIRE(r.calls == 0,
      what << ": completed (" << describe(r.ec) << ") at "
           << ns_since_epoch(r.at) << " ns, before its expiry "
           << ns_since_epoch(r.expiry) << " ns");
}

// Checks the record of a wait that must have completed with success, once, not early.
void require_succeeded(const step_record& r, const char* what)
{
  BOOST_TEST_REQUIRE(r.calls == 1,
      what << ": its handler ran " << r.calls << " times, not once");
  BOOST_TEST_REQUIRE(
      !r.ec, what << ": completed with " << describe(r.ec) << ", not success");
  BOOST_TEST_REQUIRE((r.at >= r.expiry),
      what << ": completed " << (r.expiry - r.at).count()
           << " ns before its expiry");
}

// Moves the clock to just before r's expiry (the wait must stay pending), then one tick past
// it (it must have completed).
template <class Timer>
void check_completes_at_its_expiry(
    asio::io_context& io, const step_record& r, const char* what)
{
  advance_to(r.expiry - 1ns);
  settle(io);
  require_pending(r, what);
  advance_to(r.expiry + wall_profile<Timer>::tick);
  settle(io);
  require_succeeded(r, what);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(clock_steps)

BOOST_AUTO_TEST_CASE_TEMPLATE(
    new_wait_after_a_backward_step_completes_its_duration_later, Timer,
    wall_timer_types)
{
  for (const bool with_pending : {false, true})
  {
    BOOST_TEST_CONTEXT((with_pending ? "with a wait pending across the step"
                                     : "with nothing pending"))
    {
      wall_context<Timer> io;
      Timer before(io, 10s), after(io);
      step_record pending_record, record;
      if (with_pending)
        start_wait(before, pending_record);
      // The wheel has processed ticks up to now: let it (a first wait passes through it).
      Timer warm(io, 3ms);
      step_record warm_record;
      start_wait(warm, warm_record);
      advance_to(manual_wall_clock::now() + 5ms);
      settle(io);
      require_succeeded(warm_record, "the wait before the step");

      step(-2h);
      after.expires_after(100ms);
      start_wait(after, record);
      settle(io);
      require_pending(record, "a 100 ms wait armed after a 2 h backward step");
      check_completes_at_its_expiry<Timer>(
          io, record, "a 100 ms wait armed after a 2 h backward step");
      if (with_pending)
      {
        require_pending(pending_record, "the wait armed before the step");
        advance_to(pending_record.expiry + wall_profile<Timer>::tick);
        settle(io);
        require_succeeded(pending_record, "the wait armed before the step");
      }
    }
  }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    new_wait_after_a_step_to_before_the_services_creation_completes_on_time,
    Timer, wall_timer_types)
{
  wall_context<Timer> io;
  Timer timer(io, 1ms);
  step_record first;
  start_wait(timer,
      first);  // the service exists from here on, its ticks counted from now
  advance_to(manual_wall_clock::now() + 2ms);
  settle(io);
  require_succeeded(first, "the first wait");

  step(-24h * 365 * 20);  // twenty years back
  for (const duration d :
      {duration(100ms), duration(0), duration(1ns), duration(2500us)})
  {
    timer.expires_after(d);
    step_record r;
    start_wait(timer, r);
    settle(io);
    if (d == duration(0))
    {
      require_succeeded(
          r, "a wait of 0 twenty years before the service's creation");
      continue;
    }
    require_pending(
        r, "a wait armed twenty years before the service's creation");
    check_completes_at_its_expiry<Timer>(
        io, r, "a wait armed twenty years before the service's creation");
  }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    wait_armed_before_a_backward_step_completes_when_the_clock_is_back, Timer,
    wall_timer_types)
{
  wall_context<Timer> io;
  Timer timer(io, 1s);
  step_record r;
  start_wait(timer, r);
  settle(io);
  step(-1h);
  settle(io);
  require_pending(r, "a 1 s wait after a 1 h backward step");
  advance_to(manual_wall_clock::now() + 30min);
  settle(io);
  require_pending(r, "a 1 s wait, the clock half way back");
  check_completes_at_its_expiry<Timer>(
      io, r, "a 1 s wait armed before a 1 h backward step");
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    forward_step_completes_every_passed_wait_and_new_waits_keep_their_duration,
    Timer, wall_timer_types)
{
  wall_context<Timer> io;
  Timer short_timer(io, 1s), hour_timer(io, 1h), far_timer(io, 10h), fresh(io);
  step_record short_record, hour_record, far_record, fresh_record;
  start_wait(short_timer, short_record);
  start_wait(hour_timer, hour_record);
  start_wait(far_timer, far_record);
  settle(io);
  step(2h);
  settle(io);
  require_succeeded(short_record, "a 1 s wait after a 2 h forward step");
  require_succeeded(hour_record, "a 1 h wait after a 2 h forward step");
  require_pending(far_record, "a 10 h wait after a 2 h forward step");
  fresh.expires_after(100ms);
  start_wait(fresh, fresh_record);
  check_completes_at_its_expiry<Timer>(
      io, fresh_record, "a 100 ms wait armed after a forward step");
  check_completes_at_its_expiry<Timer>(
      io, far_record, "a 10 h wait armed before a forward step");
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    steps_of_centuries_and_to_the_ends_of_the_clock, Timer, wall_timer_types)
{
  const time_point start = manual_wall_clock::now();
  wall_context<Timer> io;
  Timer timer(io);
  const duration year = 24h * 365;
  // Far into the future, far into the past (before the clock's epoch), then next to each end
  // of the clock's range; a new 100 ms wait after each step completes 100 ms later.
  const time_point stops[] = {start + 150 * year, start - 60 * year,
      (time_point::min)() + 1h, (time_point::max)() - 1h, start};
  for (const time_point stop : stops)
  {
    BOOST_TEST_CONTEXT("the clock at " << ns_since_epoch(stop) << " ns")
    {
      manual_wall_clock::set(stop);
      settle(io);
      timer.expires_after(100ms);
      step_record r;
      start_wait(timer, r);
      settle(io);
      require_pending(r, "a 100 ms wait after a step");
      check_completes_at_its_expiry<Timer>(io, r, "a 100 ms wait after a step");
    }
  }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    clock_oscillating_back_and_forth, Timer, wall_timer_types)
{
  wall_context<Timer> io;
  std::array<Timer, 4> timers{Timer(io), Timer(io), Timer(io), Timer(io)};
  std::vector<step_record> records(4 * 20);
  std::array<step_record*, 4> last{};  // each timer's latest wait
  std::size_t next = 0;
  for (int round = 0; round < 20; ++round)
  {
    // Waits of 0.5 to 6 ms; the clock then steps back and forth across them.
    for (std::size_t i = 0; i < timers.size(); ++i)
    {
      if (last[i] && last[i]->calls == 0)
        continue;  // still waiting
      timers[i].expires_after(
          500us * static_cast<int>(i + 1) * (round % 3 + 1));
      last[i] = &records[next++];
      start_wait(timers[i], *last[i]);
    }
    step(round % 2 == 0 ? duration(-7ms) : duration(9ms));
    settle(io);
    for (std::size_t k = 0; k < next; ++k)
    {
      const step_record& r = records[k];
      BOOST_TEST_REQUIRE(
          r.calls <= 1, "wait #" << k << " completed " << r.calls << " times");
      if (r.calls == 1)
      {
        BOOST_TEST_REQUIRE(!r.ec, "wait #" << k << ": " << describe(r.ec));
        BOOST_TEST_REQUIRE((r.at >= r.expiry),
            "wait #" << k << " completed " << (r.expiry - r.at).count()
                     << " ns before its expiry");
      }
    }
  }
  // Forward past every expiry: all complete, once each.
  advance_to(manual_wall_clock::now() + 1s);
  settle(io);
  for (std::size_t k = 0; k < next; ++k)
    BOOST_TEST_CONTEXT("wait #" << k)
    {
      require_succeeded(records[k], "after the clock passed every expiry");
    }
}

// A storm of waits due at once, the clock stepping back while they are being completed. Asio
// collects every due timer in one look, so all of its waits are decided before the step and
// complete; the wheel decides them in slices (one wait per slice in the stressed wheel), and a
// wait it has not decided before the step must wait for the clock to get back to its expiry.
BOOST_AUTO_TEST_CASE_TEMPLATE(
    backward_step_during_a_storm_of_expiries, Timer, wall_timer_types)
{
  wall_context<Timer> io(1);
  constexpr std::size_t n = 64;
  std::vector<Timer> timers;
  timers.reserve(n);
  std::vector<step_record> records(n);
  const time_point expiry = manual_wall_clock::now() + 10ms;
  for (std::size_t i = 0; i < n; ++i)
  {
    timers.emplace_back(io, expiry);
    start_wait(timers.back(), records[i]);
  }
  advance_to(expiry + wall_profile<Timer>::tick);
  asio_wheel_test::look_at_timers_now(io);
  io.restart();
  io.run_one();  // the storm has begun: at least one handler ran
  std::size_t decided = n;
  if constexpr (is_wheel<Timer>)
  {
    auto& service = asio::use_service<typename Timer::service_type>(io);
    decided = service.stats().waits_expired;
  }
  std::size_t ran = 0;
  for (const step_record& r : records)
    ran += static_cast<std::size_t>(r.calls);
  BOOST_TEST_REQUIRE(ran >= 1u);

  step(-1h);
  settle(io);
  std::size_t ran_after_step = 0;
  std::vector<bool> decided_before_step(n);
  for (std::size_t i = 0; i < n; ++i)
  {
    BOOST_TEST_REQUIRE(records[i].calls <= 1);
    ran_after_step += static_cast<std::size_t>(records[i].calls);
    decided_before_step[i] = records[i].calls == 1;
  }
  BOOST_TEST(ran_after_step <= decided,
      ran_after_step << " waits completed with the clock 1 h before their "
                     << "expiry, but only " << decided
                     << " had been found due before the step");
  if constexpr (is_wheel<Timer>)
  {
    auto& service = asio::use_service<typename Timer::service_type>(io);
    if (decided < n)
      BOOST_TEST(service.stats().clock_steps_back >= 1u,
          "the wheel did not see the clock step back");
  }

  advance_to(expiry + wall_profile<Timer>::tick);
  settle(io);
  for (std::size_t i = 0; i < n; ++i)
  {
    BOOST_TEST_CONTEXT("wait #" << i)
    {
      // A wait found due before the step completes with success, though the clock has gone
      // back meanwhile (as Asio's do); any other only once the clock is back at its expiry.
      BOOST_TEST_REQUIRE(records[i].calls == 1);
      BOOST_TEST_REQUIRE(!records[i].ec, describe(records[i].ec));
      if (!decided_before_step[i])
        require_succeeded(records[i], "after the clock got back");
    }
  }
}

BOOST_AUTO_TEST_CASE(aliases_for_system_timer_and_high_resolution_timer)
{
  static_assert(std::is_same_v<asio_wheel::system_wheel_timer::clock_type,
      asio::system_timer::clock_type>);
  static_assert(
      std::is_same_v<asio_wheel::high_resolution_wheel_timer::clock_type,
          asio::high_resolution_timer::clock_type>);
  static_assert(std::is_same_v<asio_wheel::system_wheel_timer::traits_type,
      asio::system_timer::traits_type>);
  // A wait on the real wall clock completes, not before its expiry.
  asio::io_context io;
  asio_wheel::system_wheel_timer timer(io, 2ms);
  asio_wheel::high_resolution_wheel_timer hr_timer(io, 2ms);
  int ok = 0;
  auto check = [&ok](const auto& t) {
    using clock = typename std::decay_t<decltype(t)>::clock_type;
    return [&ok, expiry = t.expiry()](const error_code& ec) {
      if (!ec && clock::now() >= expiry)
        ++ok;
    };
  };
  timer.async_wait(check(timer));
  hr_timer.async_wait(check(hr_timer));
  CONFORMANCE_RUN_TO_COMPLETION(io);
  BOOST_TEST(ok == 2,
      ok << " of 2 waits completed with success at or after their expiry");
}

BOOST_AUTO_TEST_SUITE_END()
