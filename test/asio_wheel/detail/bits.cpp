//
// test/asio_wheel/detail/bits.cpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// Unit tests of the wheel's bit operations: lowest_bit and highest_bit of
// every single bit and of random words, and rotate_right by every amount,
// each against a plain loop. The intrinsics they use (GCC and clang's
// __builtin_ctzll and __builtin_clzll, MSVC's _BitScan*64) and the plain C++
// they fall back to must give the same answers.
//

#define BOOST_TEST_MODULE bits
#include <boost/test/unit_test.hpp>

#include <asio_wheel/detail/bits.hpp>

#include <cstdint>
#include <random>

using asio_wheel::detail::highest_bit;
using asio_wheel::detail::lowest_bit;
using asio_wheel::detail::rotate_right;

namespace {

unsigned lowest_by_loop(std::uint64_t w)
{
  unsigned i = 0;
  while (!(w & (std::uint64_t(1) << i)))
    ++i;
  return i;
}

unsigned highest_by_loop(std::uint64_t w)
{
  unsigned i = 63;
  while (!(w & (std::uint64_t(1) << i)))
    --i;
  return i;
}

std::uint64_t rotate_by_loop(std::uint64_t w, unsigned r)
{
  for (unsigned k = 0; k < r; ++k)
    w = (w >> 1) | ((w & 1) << 63);
  return w;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_single_bit_is_its_own_lowest_and_highest)
{
  for (unsigned i = 0; i < 64; ++i)
  {
    const std::uint64_t w = std::uint64_t(1) << i;
    BOOST_TEST(lowest_bit(w) == i);
    BOOST_TEST(highest_bit(w) == i);
  }
}

BOOST_AUTO_TEST_CASE(random_words_agree_with_a_loop)
{
  std::mt19937_64 random(7);
  for (int n = 0; n < 100000; ++n)
  {
    // Sparse and dense words alike: an AND of up to four random words.
    std::uint64_t w = random();
    for (int k = n % 4; k > 0; --k)
      w &= random();
    if (w == 0)
      continue;
    BOOST_TEST_REQUIRE(lowest_bit(w) == lowest_by_loop(w));
    BOOST_TEST_REQUIRE(highest_bit(w) == highest_by_loop(w));
  }
  BOOST_TEST(lowest_bit(~std::uint64_t(0)) == 0u);
  BOOST_TEST(highest_bit(~std::uint64_t(0)) == 63u);
}

BOOST_AUTO_TEST_CASE(rotate_right_by_every_amount)
{
  std::mt19937_64 random(11);
  for (int n = 0; n < 1000; ++n)
  {
    const std::uint64_t w = random();
    for (unsigned r = 0; r < 64; ++r)
      BOOST_TEST_REQUIRE(rotate_right(w, r) == rotate_by_loop(w, r));
  }
  // Bit r comes first: the rotation the wheel's upper-level search uses to
  // look at the slots from its position on.
  for (unsigned r = 0; r < 64; ++r)
    BOOST_TEST(rotate_right(std::uint64_t(1) << r, r) == 1u);
}
