//
// src/wheel_mutex.cpp
//
// The contended paths of detail::wheel_mutex: spin a little, then sleep on
// the lock word: a futex on Linux, WaitOnAddress on Windows (the same
// compare-and-sleep on a 32-bit word, Windows 8 and later; link
// Synchronization.lib, which CMake does), a short yield loop elsewhere.
//

#if defined(_WIN32)
// First, so that the SDK's own _WIN32_WINNT default applies (Asio's config
// would otherwise pick Windows 7, which has no WaitOnAddress), and without
// winsock.h, min, max, near and far.
# if !defined(WIN32_LEAN_AND_MEAN)
#  define WIN32_LEAN_AND_MEAN
# endif
# if !defined(NOMINMAX)
#  define NOMINMAX
# endif
# include <windows.h>
# if defined(_WIN32_WINNT) && _WIN32_WINNT < 0x0602
#  error "asio_wheel's lock sleeps with WaitOnAddress: build src/wheel_mutex.cpp with _WIN32_WINNT >= 0x0602 (Windows 8)"
# endif
# if defined(_MSC_VER)
#  include <intrin.h>
#  pragma comment(lib, "synchronization.lib")
# endif
#endif

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
#elif defined(_M_X64) || defined(_M_IX86)
  _mm_pause();  // MSVC
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

void sleep_while_equal(std::atomic<std::uint32_t>& word, std::uint32_t value) noexcept
{
#if defined(__linux__)
  ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word),
      FUTEX_WAIT_PRIVATE, value, nullptr, nullptr, 0);
#elif defined(_WIN32)
  // Returns at once if the word no longer holds value; may wake spuriously,
  // which the caller's loop tolerates as it does a futex's.
  ::WaitOnAddress(reinterpret_cast<volatile std::uint32_t*>(&word), &value,
      sizeof(value), INFINITE);
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
#elif defined(_WIN32)
  ::WakeByAddressSingle(reinterpret_cast<std::uint32_t*>(&word));
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
