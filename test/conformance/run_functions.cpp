// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// Conformance of what io_context's run functions see of the timers: each
// completion is one handler of the event loop (run_one() and poll_one() run
// one, run() and poll() count each), stop() stops between two of them, a
// wait whose expiry has been reached when it starts completes as soon as the
// loop runs (not at a wheel tick), every wait due at a wakeup is decided then
// (a cancel() from a handler of the same wakeup finds the others expired),
// and waits due together complete in the order of their expiries.
#include "conformance.hpp"

#include <algorithm>
#include <functional>
#include <thread>

using namespace conformance;

namespace {

// What a run function returns: the handlers it ran. The io_uring service also runs operations
// of its own (the submission of its queue, its timeout) that the run functions count, for
// Asio's timers as for the wheel's: there the count is at least the handlers run.
#if defined(ASIO_WHEEL_TEST_IO_URING)
# define CONFORMANCE_CHECK_RUN_COUNT(count, handlers)                          \
  BOOST_TEST((count) >= static_cast<std::size_t>(handlers))
#else
# define CONFORMANCE_CHECK_RUN_COUNT(count, handlers)                          \
  BOOST_TEST((count) == static_cast<std::size_t>(handlers))
#endif

// Timers that all expire at `expiry`, each with a wait that counts into `ran`.
template <class Timer>
struct due_together
{
  std::vector<std::unique_ptr<Timer>> timers;
  int ran = 0;

  due_together(
      asio::io_context& io, std::size_t n, typename Timer::time_point expiry)
  {
    for (std::size_t i = 0; i < n; ++i)
    {
      timers.push_back(std::make_unique<Timer>(io, expiry));
      timers.back()->async_wait([this](error_code) { ++ran; });
    }
  }
};

template <class Timer>
typename Timer::time_point soon()
{
  return Timer::clock_type::now() + 5ms;
}

// Sleeps until every timer made with soon() has expired.
void until_due()
{
  std::this_thread::sleep_for(20ms);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(run_functions)

BOOST_AUTO_TEST_CASE_TEMPLATE(
    run_one_runs_one_handler_of_many_due_waits, Timer, timer_types)
{
  test_context<Timer> io;
  due_together<Timer> waits(io, 100, soon<Timer>());
  until_due();
  // (On io_uring run_one() may run an operation of the service's own first.)
  std::size_t n = 0;
  for (int i = 0; i < 100 && waits.ran == 0; ++i)
  {
    BOOST_TEST(io.run_one() == 1u);
    BOOST_TEST(waits.ran <= 1, waits.ran << " handlers ran in one run_one()");
    ++n;
  }
  BOOST_TEST(waits.ran == 1);
  CONFORMANCE_CHECK_RUN_COUNT(n, 1);
  CONFORMANCE_CHECK_RUN_COUNT(io.run(), 99);
  BOOST_TEST(waits.ran == 100);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    poll_one_and_poll_count_each_handler, Timer, timer_types)
{
  test_context<Timer> io;
  due_together<Timer> waits(io, 50, soon<Timer>());
  until_due();
  std::size_t counted = 0;
  for (int round = 0; round < 10000 && waits.ran < 50; ++round)
  {
    const int before = waits.ran;
    // (poll_one() and poll() do not wait: until the reactor has seen the due timers, which
    // with a timerfd it learns from the kernel, they may find nothing.)
    const std::size_t n = round % 3 == 0 ? io.run_one_for(10ms)
        : round % 3 == 1                 ? io.poll_one()
                                         : io.poll();
    CONFORMANCE_CHECK_RUN_COUNT(n, waits.ran - before);
    if (round % 3 != 2)
      BOOST_TEST(waits.ran - before <= 1);
    counted += n;
  }
  BOOST_TEST(waits.ran == 50);
  CONFORMANCE_CHECK_RUN_COUNT(counted, 50);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    run_for_and_run_until_count_each_handler, Timer, timer_types)
{
  test_context<Timer> io;
  due_together<Timer> first(io, 30, soon<Timer>());
  until_due();
  CONFORMANCE_CHECK_RUN_COUNT(io.run_for(run_limit), 30);
  io.restart();
  due_together<Timer> second(io, 20, soon<Timer>());
  CONFORMANCE_CHECK_RUN_COUNT(
      io.run_until(std::chrono::steady_clock::now() + run_limit), 20);
  BOOST_TEST(first.ran + second.ran == 50);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    no_handler_runs_after_stop_until_restart, Timer, timer_types)
{
  test_context<Timer> io;
  std::vector<std::unique_ptr<Timer>> timers;
  std::vector<int> calls(300, 0);
  int ran = 0;
  const auto expiry = soon<Timer>();
  for (std::size_t i = 0; i < calls.size(); ++i)
  {
    timers.push_back(std::make_unique<Timer>(io, expiry));
    timers.back()->async_wait([&, i](error_code ec) {
      BOOST_TEST(!ec);
      ++calls[i];
      if (++ran == 10)
        io.stop();
    });
  }
  until_due();
#if defined(ASIO_WHEEL_ASIO_HAS_IOCP)
  // On IOCP stop() posts a packet to the completion port behind the completions queued there
  // already, and run() runs those first (win_iocp_io_context::do_one), Asio's timers' as the
  // wheel's: how many depends on how many the port held when stop() came.
  const std::size_t n = io.run();
  BOOST_TEST(ran >= 10);
  BOOST_TEST(n == static_cast<std::size_t>(ran));
#else
  CONFORMANCE_CHECK_RUN_COUNT(io.run(), 10);
  BOOST_TEST(ran == 10, ran << " handlers ran, stop() came at the 10th");
#endif
  io.restart();
  CONFORMANCE_RUN_TO_COMPLETION(io);
  BOOST_TEST(ran == 300);
  BOOST_TEST(
      std::all_of(calls.begin(), calls.end(), [](int c) { return c == 1; }));
}

// A zero-length wait (a common way to yield to the event loop) completes at the next turn of
// the loop. The wheel timers here have a tick of 10 s: a wait that waited for a tick would
// take that long, where each round takes microseconds.
BOOST_AUTO_TEST_CASE_TEMPLATE(
    a_reached_expiry_completes_at_the_next_turn_of_the_loop, Timer, timer_types)
{
  test_context<Timer> io(std::chrono::seconds(10));
  Timer t(io);
  int rounds = 0;
  std::function<void(error_code)> again = [&](error_code ec) {
    BOOST_TEST(!ec);
    if (++rounds < 20)
    {
      t.expires_after(Timer::duration::zero());
      t.async_wait(again);
    }
  };
  t.expires_after(Timer::duration::zero());
  t.async_wait(again);
  io.run_for(2s);
  BOOST_TEST(rounds == 20, rounds << " of 20 zero-length waits in 2 s");

  // So does one whose expiry lies in the past, and a second wait on a timer whose first one
  // is due already.
  io.restart();
  completion_record past, second;
  t.expires_at(Timer::clock_type::now() - 1ms);
  t.async_wait(recorder(past, t));
  t.async_wait(recorder(second, t));
  io.run_for(2s);
  BOOST_TEST(past.invocations == 1);
  BOOST_TEST(second.invocations == 1);
  BOOST_TEST(!past.ec);
  BOOST_TEST(!second.ec);
}

// Asio moves every wait that is due to the completion queue when it wakes: a handler of that
// wakeup that cancels the others finds them expired (cancel() returns 0, each completes with
// success), whatever the fairness budget of the wheel.
BOOST_AUTO_TEST_CASE_TEMPLATE(
    waits_due_at_a_wakeup_can_no_longer_be_cancelled, Timer, timer_types)
{
  test_context<Timer> io;
  constexpr std::size_t n = 1000;
  std::vector<std::unique_ptr<Timer>> timers;
  std::size_t succeeded = 0, aborted = 0, cancelled = 0;
  const auto expiry = soon<Timer>();
  for (std::size_t i = 0; i < n; ++i)
    timers.push_back(std::make_unique<Timer>(io, expiry));
  for (std::size_t i = 0; i < n; ++i)
    timers[i]->async_wait([&](error_code ec) {
      if (succeeded + aborted == 0)  // the first handler cancels every timer
        for (auto& t : timers)
          cancelled += t->cancel();
      (ec ? aborted : succeeded) += 1;
    });
  until_due();
  CONFORMANCE_RUN_TO_COMPLETION(io);
  BOOST_TEST(cancelled == 0u);
  BOOST_TEST(aborted == 0u);
  BOOST_TEST(succeeded == n);
}

// Waits due at one wakeup complete in the order of their expiries, whatever the order they
// were armed in: 40 timers 20 us apart, armed latest first.
BOOST_AUTO_TEST_CASE_TEMPLATE(
    waits_due_together_complete_in_expiry_order, Timer, timer_types)
{
  test_context<Timer> io;
  std::vector<std::unique_ptr<Timer>> timers;
  std::vector<int> order;
  const auto base = soon<Timer>();
  for (int i = 39; i >= 0; --i)
  {
    timers.push_back(std::make_unique<Timer>(io, base + i * 20us));
    timers.back()->async_wait([&order, i](error_code) { order.push_back(i); });
  }
  until_due();
  CONFORMANCE_RUN_TO_COMPLETION(io);
  BOOST_TEST_REQUIRE(order.size() == 40u);
  BOOST_TEST(std::is_sorted(order.begin(), order.end()));
}

BOOST_AUTO_TEST_SUITE_END()
