//
// test/asio_wheel/detail/wheel_mutex.cpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// Unit tests of the service's lock: mutual exclusion with more threads than
// the machine has cores, so that holders are preempted and waiters go through
// the contended path (spin, then sleep on the lock word: a futex on Linux,
// WaitOnAddress on Windows) and are woken; scoped_lock's early unlock; and a
// disabled lock (BOOST_ASIO_CONCURRENCY_HINT_UNSAFE) that locks nothing.
//

#define BOOST_TEST_MODULE wheel_mutex
#include <boost/test/unit_test.hpp>

#include <asio_wheel/detail/wheel_mutex.hpp>

#include <cstdint>
#include <thread>
#include <vector>

using asio_wheel::detail::wheel_mutex;

BOOST_AUTO_TEST_CASE(threads_that_contend_lose_no_increment)
{
  wheel_mutex mutex(true);
  // Not atomic: only the lock keeps the increments apart. A read-modify-write
  // that spans a yield makes a lost update likely if two holders overlap.
  std::uint64_t counter = 0;
  constexpr int threads = 4;
  constexpr int per_thread = 200000;
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&] {
      for (int i = 0; i < per_thread; ++i)
      {
        wheel_mutex::scoped_lock lock(mutex);
        const std::uint64_t seen = counter;
        if (i % 1024 == 0)
          std::this_thread::yield();  // holders preempted: waiters sleep
        counter = seen + 1;
      }
    });
  for (auto& w : workers)
    w.join();
  BOOST_TEST(counter == std::uint64_t(threads) * per_thread);
}

BOOST_AUTO_TEST_CASE(scoped_lock_unlocks_early_and_only_once)
{
  wheel_mutex mutex(true);
  {
    wheel_mutex::scoped_lock lock(mutex);
    lock.unlock();
    // Free again: another thread takes it while this scope still lives.
    std::thread t([&] { wheel_mutex::scoped_lock other(mutex); });
    t.join();
  }  // the destructor does not unlock a second time
  wheel_mutex::scoped_lock again(mutex);
}

BOOST_AUTO_TEST_CASE(a_disabled_lock_locks_nothing)
{
  wheel_mutex mutex(false);
  mutex.lock();
  mutex.lock();  // would deadlock if it locked
  // Another thread takes it while this one holds it twice.
  bool taken = false;
  std::thread t([&] {
    wheel_mutex::scoped_lock lock(mutex);
    taken = true;
  });
  t.join();
  BOOST_TEST(taken);
  mutex.unlock();
  mutex.unlock();
}
