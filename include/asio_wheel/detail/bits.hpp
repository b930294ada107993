//
// asio_wheel/detail/bits.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The bit operations the wheel needs, on the compiler's intrinsic where it
// has one (GCC, clang, MSVC) and in plain C++ elsewhere. C++20's <bit> has
// them all; the library is C++17.
//

#ifndef ASIO_WHEEL_DETAIL_BITS_HPP
#define ASIO_WHEEL_DETAIL_BITS_HPP

#include <asio_wheel/detail/config.hpp>

#include <cstdint>

#if defined(_MSC_VER) && !defined(__clang__)
# include <intrin.h>
#endif

ASIO_WHEEL_NAMESPACE_BEGIN
namespace detail {

/// Index of the lowest set bit of @p w, which is not zero.
inline unsigned lowest_bit(std::uint64_t w) noexcept
{
#if defined(__GNUC__) || defined(__clang__)
  return static_cast<unsigned>(__builtin_ctzll(w));
#elif defined(_MSC_VER) && (defined(_M_X64) || defined(_M_ARM64))
  unsigned long i;
  _BitScanForward64(&i, w);
  return static_cast<unsigned>(i);
#else
  unsigned i = 0;
  while (!(w & 1))
  {
    w >>= 1;
    ++i;
  }
  return i;
#endif
}

/// Index of the highest set bit of @p w, which is not zero.
inline unsigned highest_bit(std::uint64_t w) noexcept
{
#if defined(__GNUC__) || defined(__clang__)
  return 63u - static_cast<unsigned>(__builtin_clzll(w));
#elif defined(_MSC_VER) && (defined(_M_X64) || defined(_M_ARM64))
  unsigned long i;
  _BitScanReverse64(&i, w);
  return static_cast<unsigned>(i);
#else
  unsigned i = 0;
  while (w >>= 1)
    ++i;
  return i;
#endif
}

/// The 64 bits of @p w rotated right by @p r (0 .. 63): bit r comes first.
inline std::uint64_t rotate_right(std::uint64_t w, unsigned r) noexcept
{
  return r == 0 ? w : (w >> r) | (w << (64 - r));
}

}  // namespace detail
ASIO_WHEEL_NAMESPACE_END

#endif  // ASIO_WHEEL_DETAIL_BITS_HPP
