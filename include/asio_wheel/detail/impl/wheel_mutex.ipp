//
// asio_wheel/detail/impl/wheel_mutex.ipp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The contended paths of detail::wheel_mutex: spin a little, then sleep on
// the lock word: a futex on Linux, WaitOnAddress on Windows (the same
// compare-and-sleep on a 32-bit word, Windows 8 and later; link
// Synchronization.lib, which CMake does), a short yield loop elsewhere.
// Included at the end of wheel_mutex.hpp (header-only, the default), or
// compiled once through asio_wheel/src.hpp (ASIO_WHEEL_SEPARATE_COMPILATION).
//

#ifndef ASIO_WHEEL_DETAIL_IMPL_WHEEL_MUTEX_IPP
#define ASIO_WHEEL_DETAIL_IMPL_WHEEL_MUTEX_IPP

#include <asio_wheel/detail/wheel_mutex.hpp>

#include <thread>

#if defined(_WIN32)
// winsock2.h before windows.h, as Asio includes them: windows.h alone would
// bring in winsock.h, which Asio's sockets cannot be compiled after. Neither
// WIN32_LEAN_AND_MEAN nor NOMINMAX is defined here: in a header-only build
// these headers are the user's, and Asio includes them the same way.
# include <winsock2.h>
# include <windows.h>
# if !defined(_WIN32_WINNT) || _WIN32_WINNT < 0x0602
#  error                                                                       \
      "asio_wheel's lock sleeps with WaitOnAddress (Windows 8): define _WIN32_WINNT as 0x0602 or more (Asio asks for _WIN32_WINNT to be defined, and assumes Windows 7 without it)"
# endif
# if defined(_MSC_VER)
#  include <intrin.h>
#  pragma comment(lib, "synchronization.lib")
# endif
#endif

#if defined(__linux__)
# include <linux/futex.h>
# include <sys/syscall.h>
# include <unistd.h>
#endif

ASIO_WHEEL_NAMESPACE_BEGIN
namespace detail {

void wheel_mutex::cpu_relax() noexcept
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(_M_X64) || defined(_M_IX86)
  _mm_pause();  // MSVC
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

void wheel_mutex::sleep_while_equal(
    std::atomic<std::uint32_t>& word, std::uint32_t value) noexcept
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

void wheel_mutex::lock_contended() noexcept
{
  // Spinning covers the common case of a holder that is about to unlock
  // (the critical sections are a few dozen instructions) without a system
  // call.
  constexpr int spin_limit = 100;
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
#if defined(__linux__)
  ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&state_),
      FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
#elif defined(_WIN32)
  ::WakeByAddressSingle(reinterpret_cast<std::uint32_t*>(&state_));
#endif
}

}  // namespace detail
ASIO_WHEEL_NAMESPACE_END

#endif  // ASIO_WHEEL_DETAIL_IMPL_WHEEL_MUTEX_IPP
