//
// src/wheel_mutex.cpp
//
// The contended paths of detail::wheel_mutex: spin a little, then sleep on
// the lock word (a futex on Linux; a short yield loop elsewhere).
//

#include <asio_wheel/detail/wheel_mutex.hpp>

#include <thread>

#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

ASIO_WHEEL_NAMESPACE_BEGIN
namespace detail {

namespace {

// Spinning covers the common case of a holder that is about to unlock (the
// critical sections are a few dozen instructions) without a system call.
constexpr int spin_limit = 100;

inline void cpu_relax() noexcept
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

void sleep_while_equal(std::atomic<std::uint32_t>& word, std::uint32_t value) noexcept
{
#if defined(__linux__)
  ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word),
      FUTEX_WAIT_PRIVATE, value, nullptr, nullptr, 0);
#else
  if (word.load(std::memory_order_relaxed) == value)
    std::this_thread::yield();
#endif
}

void wake_one_sleeper(std::atomic<std::uint32_t>& word) noexcept
{
#if defined(__linux__)
  ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word),
      FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
#else
  (void)word;
#endif
}

} // namespace

void wheel_mutex::lock_contended() noexcept
{
  for (int i = 0; i < spin_limit; ++i)
  {
    std::uint32_t expected = unlocked;
    if (state_.load(std::memory_order_relaxed) == unlocked
        && state_.compare_exchange_weak(expected, locked,
          std::memory_order_acquire, std::memory_order_relaxed))
      return;
    cpu_relax();
  }
  // Announce a sleeper; whoever unlocks from state 2 wakes one.
  while (state_.exchange(contended, std::memory_order_acquire) != unlocked)
    sleep_while_equal(state_, contended);
}

void wheel_mutex::wake_one() noexcept
{
  wake_one_sleeper(state_);
}

} // namespace detail
ASIO_WHEEL_NAMESPACE_END
