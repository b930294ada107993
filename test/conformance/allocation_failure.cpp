// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// Conformance under allocation failure: this program's operator new fails the
// n-th allocation of the calling thread when told to (fail_allocation), for
// every n that the arm, re-arm and cancel paths make. async_wait gives the
// strong guarantee (the std::bad_alloc reaches the caller with nothing
// queued, counted or filed, the handler destroyed, every other timer
// working), cancel() allocates nothing, and neither does running the
// context while waits expire. Run under ASan and LeakSanitizer by
// scripts/sanitize: a wait freed while still queued, or one never freed,
// fails there.
#include "conformance.hpp"

#include <cstdlib>

namespace {

// The allocation of this thread that fails next: 0 none, 1 the next, ... and
// whether every allocation fails (inside run()).
thread_local std::size_t fail_at = 0;
thread_local bool fail_all = false;

void* allocate(std::size_t size)
{
  if (fail_all || (fail_at != 0 && --fail_at == 0))
    throw std::bad_alloc();
  if (void* p = std::malloc(size != 0 ? size : 1))
    return p;
  throw std::bad_alloc();
}

}  // namespace

void* operator new(std::size_t size)
{
  return allocate(size);
}

void* operator new[](std::size_t size)
{
  return allocate(size);
}

void operator delete(void* p) noexcept
{
  std::free(p);
}

void operator delete[](void* p) noexcept
{
  std::free(p);
}

void operator delete(void* p, std::size_t) noexcept
{
  std::free(p);
}

void operator delete[](void* p, std::size_t) noexcept
{
  std::free(p);
}

using namespace conformance;

namespace {

// Calls f with the n-th allocation of this thread failing; true if it threw
// std::bad_alloc (then that allocation was made), false if it returned (f
// makes fewer than n allocations).
template <class F>
bool fails_at(std::size_t n, F&& f)
{
  fail_at = n;
  bool threw = false;
  try
  {
    f();
  }
  catch (const std::bad_alloc&)
  {
    threw = true;
  }
  fail_at = 0;
  return threw;
}

// The most allocations any path here makes, with room to spare: the loops
// below stop at the first n that does not fail.
constexpr std::size_t max_allocations = 32;

}  // namespace

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
  fail_all = true;
  std::size_t cancelled = 0;
  bool threw = false;
  try
  {
    cancelled += t.cancel_one();
    cancelled += t.cancel();
  }
  catch (const std::bad_alloc&)
  {
    threw = true;
  }
  fail_all = false;
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
  bool threw = false;
  fail_all = true;
  try
  {
    io.run_for(run_limit);
  }
  catch (const std::bad_alloc&)
  {
    threw = true;
  }
  fail_all = false;
  BOOST_TEST(!threw, "an allocation inside run() failed");
  BOOST_TEST(succeeded == 200);
  BOOST_TEST(io.stopped());
}

BOOST_AUTO_TEST_SUITE_END()
