//
// asio_wheel/detail/wheel_mutex.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The lock of one wheel_timer_service. Every async_wait, cancel and
// reschedule takes it once, so its uncontended cost is the cost of the
// library: one compare-and-swap to lock and one exchange to unlock
// (pthread_mutex costs several times that in instructions). Contended, it
// spins briefly and then sleeps in the kernel (a futex on Linux,
// WaitOnAddress on Windows), so it behaves like a mutex, not a spinlock,
// when run() is on several threads.
//
// It is disabled, as Asio's own locks are, when the io_context was created
// with BOOST_ASIO_CONCURRENCY_HINT_UNSAFE.
//
// Contention counters (benchmarks only): compiled with ASIO_WHEEL_MUTEX_STATS
// defined, every lock() of an enabled mutex counts, in the calling thread's
// wheel_mutex_thread_counters, one acquisition; one that found the lock held
// also counts as contended and adds the steady_clock time until it got the
// lock. Without the macro (every normal build) none of this exists. The
// macro must be the same in every translation unit of a program, the
// library's compiled part included when there is one
// (ASIO_WHEEL_SEPARATE_COMPILATION).
//

#ifndef ASIO_WHEEL_DETAIL_WHEEL_MUTEX_HPP
#define ASIO_WHEEL_DETAIL_WHEEL_MUTEX_HPP

#include <asio_wheel/detail/config.hpp>

#include <atomic>
#include <cstdint>
#if defined(ASIO_WHEEL_MUTEX_STATS)
# include <chrono>
#endif

ASIO_WHEEL_NAMESPACE_BEGIN
namespace detail {

#if defined(ASIO_WHEEL_MUTEX_STATS)
/// Lock acquisitions of the calling thread (see the top of the file).
struct wheel_mutex_counters
{
  std::uint64_t acquisitions = 0;
  std::uint64_t contended = 0;  // found the lock held
  std::uint64_t wait_ns = 0;  // time those waited for it
};

inline thread_local wheel_mutex_counters wheel_mutex_thread_counters;
#endif

class wheel_mutex
{
public:
  explicit wheel_mutex(bool enabled) noexcept : enabled_(enabled) {}

  wheel_mutex(const wheel_mutex&) = delete;
  wheel_mutex& operator=(const wheel_mutex&) = delete;

  void lock() noexcept
  {
    if (!enabled_)
      return;
    std::uint32_t expected = unlocked;
#if defined(ASIO_WHEEL_MUTEX_STATS)
    wheel_mutex_counters& counters = wheel_mutex_thread_counters;
    ++counters.acquisitions;
    if (!state_.compare_exchange_strong(expected, locked,
            std::memory_order_acquire, std::memory_order_relaxed))
    {
      ++counters.contended;
      const auto start = std::chrono::steady_clock::now();
      lock_contended();
      counters.wait_ns += static_cast<std::uint64_t>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(
              std::chrono::steady_clock::now() - start)
              .count());
    }
#else
    if (!state_.compare_exchange_strong(expected, locked,
            std::memory_order_acquire, std::memory_order_relaxed))
      lock_contended();
#endif
  }

  void unlock() noexcept
  {
    if (!enabled_)
      return;
    if (state_.exchange(unlocked, std::memory_order_release) == contended)
      wake_one();
  }

  class scoped_lock
  {
  public:
    explicit scoped_lock(wheel_mutex& m) noexcept : mutex_(m) { mutex_.lock(); }
    ~scoped_lock()
    {
      if (locked_)
        mutex_.unlock();
    }
    scoped_lock(const scoped_lock&) = delete;
    scoped_lock& operator=(const scoped_lock&) = delete;

    void unlock() noexcept
    {
      mutex_.unlock();
      locked_ = false;
    }

  private:
    wheel_mutex& mutex_;
    bool locked_ = true;
  };

private:
  // 0: unlocked; 1: locked, nobody sleeps; 2: locked, sleepers may exist
  // (Drepper, "Futexes Are Tricky", mutex 3).
  static constexpr std::uint32_t unlocked = 0;
  static constexpr std::uint32_t locked = 1;
  static constexpr std::uint32_t contended = 2;

  // The contended paths, and the platform's sleep and wake on the lock word
  // (impl/wheel_mutex.ipp).
  ASIO_WHEEL_DECL void lock_contended() noexcept;
  ASIO_WHEEL_DECL void wake_one() noexcept;
  static inline void cpu_relax() noexcept;
  static inline void sleep_while_equal(
      std::atomic<std::uint32_t>& word, std::uint32_t value) noexcept;

  std::atomic<std::uint32_t> state_{unlocked};
  const bool enabled_;
};

}  // namespace detail
ASIO_WHEEL_NAMESPACE_END

#if !defined(ASIO_WHEEL_SEPARATE_COMPILATION)
# include <asio_wheel/detail/impl/wheel_mutex.ipp>
#endif

#endif  // ASIO_WHEEL_DETAIL_WHEEL_MUTEX_HPP
