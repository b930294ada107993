// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// Conformance under allocation failure (test/allocation_faults.hpp): the n-th allocation of
// the calling thread fails, for every n that the arm, re-arm and cancel paths make.
// async_wait gives the strong guarantee (the std::bad_alloc reaches the caller with nothing
// queued, counted or filed, the handler destroyed, every other timer working), cancel()
// allocates nothing, and neither does running the context while waits expire.
#include "conformance.hpp"

#include "../allocation_faults.hpp"

using namespace conformance;
using allocation_faults::failing_all;
using allocation_faults::fails_at;
using allocation_faults::max_allocations;

BOOST_AUTO_TEST_SUITE(allocation_failure)

// The first wait of a context, and a re-arm (expires_after, then async_wait), with each of
// their allocations failing in turn; then another timer's wait.
BOOST_AUTO_TEST_CASE_TEMPLATE(
    async_wait_gives_the_strong_guarantee, Timer, timer_types)
{
  for (const bool rearm : {false, true})
  {
    std::size_t failures = 0;
    for (std::size_t n = 1; n <= max_allocations; ++n)
    {
      BOOST_TEST_CONTEXT((rearm ? "re-arm" : "first wait")
          << ", allocation " << n << " fails")
      {
        test_context<Timer> io;
        Timer t(io, 1h), other(io, 5ms);
        completion_record old_wait, other_wait;
        bool destroyed = false;
        if (rearm)
          t.async_wait(recorder(old_wait, t));
        auto witness = destruction_witness(destroyed);
        const bool threw = fails_at(n, [&] {
          if (rearm)
            t.expires_after(1h);
          t.async_wait([w = std::move(witness)](error_code) {});
        });
        if (!threw)
        {
          BOOST_TEST_MESSAGE(failures << " allocations on this path");
          BOOST_TEST(t.cancel() == 1u);
          other.cancel();
          CONFORMANCE_RUN_TO_COMPLETION(io);
          break;
        }
        ++failures;
        BOOST_TEST(destroyed, "the handler of the failed wait was kept");
        BOOST_TEST(t.cancel() == 0u, "the failed wait was queued");
        BOOST_TEST(t.expires_after(10ms) == 0u);
        other.async_wait(recorder(other_wait, other));
        // Nothing counted: the context runs out of work once the other wait (and the
        // re-armed timer's old one) completed.
        CONFORMANCE_RUN_TO_COMPLETION(io);
        BOOST_TEST(other_wait.invocations == 1);
        BOOST_TEST(!other_wait.ec);
        BOOST_TEST(other_wait.ran_at_or_after_expiry);
        if (rearm)
        {
          BOOST_TEST(old_wait.invocations == 1);
          BOOST_TEST(is_aborted(old_wait.ec));
        }
        // The timer still works.
        completion_record later;
        t.expires_after(1ms);
        t.async_wait(recorder(later, t));
        CONFORMANCE_RUN_TO_COMPLETION(io);
        BOOST_TEST(later.invocations == 1);
        BOOST_TEST(!later.ec);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(cancel_allocates_nothing, Timer, timer_types)
{
  test_context<Timer> io;
  Timer t(io, 1h);
  completion_record a, b;
  t.async_wait(recorder(a, t));
  t.async_wait(recorder(b, t));
  std::size_t cancelled = 0;
  const bool threw = failing_all([&] {
    cancelled += t.cancel_one();
    cancelled += t.cancel();
  });
  BOOST_TEST(!threw);
  BOOST_TEST(cancelled == 2u);
  CONFORMANCE_RUN_TO_COMPLETION(io);
  BOOST_TEST(is_aborted(a.ec));
  BOOST_TEST(is_aborted(b.ec));
}

// Running the context while 200 waits expire, with every allocation of the running thread
// failing: nothing inside run() needs one.
BOOST_AUTO_TEST_CASE_TEMPLATE(
    running_expiring_waits_allocates_nothing, Timer, timer_types)
{
  test_context<Timer> io;
  std::vector<std::unique_ptr<Timer>> timers;
  int succeeded = 0;
  for (int i = 0; i < 200; ++i)
  {
    timers.push_back(std::make_unique<Timer>(io, (i % 20) * 1ms));
    timers.back()->async_wait([&succeeded](error_code ec) {
      if (!ec)
        ++succeeded;
    });
  }
  const bool threw = failing_all([&] { io.run_for(run_limit); });
  BOOST_TEST(!threw, "an allocation inside run() failed");
  BOOST_TEST(succeeded == 200);
  BOOST_TEST(io.stopped());
}

BOOST_AUTO_TEST_SUITE_END()
