//
// test/asio_wheel/detail/op_pool.cpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// Unit tests of the per-thread free lists behind operations whose handler has
// no allocator of its own: a freed block is reused by the next allocation of
// its 16-byte size class (last freed, first reused), blocks of another class
// or over 256 bytes are not, a class keeps at most 4096 blocks, and each
// thread has lists of its own.
//

#define BOOST_TEST_MODULE op_pool
#include <boost/test/unit_test.hpp>

#include <asio_wheel/detail/op_pool.hpp>

#include <cstddef>
#include <cstdint>
#include <set>
#include <thread>
#include <vector>

using asio_wheel::detail::op_pool;

BOOST_AUTO_TEST_CASE(
    a_freed_block_is_reused_by_its_size_class_last_in_first_out)
{
  void* a = op_pool::allocate(40);  // class 33 .. 48 bytes
  void* b = op_pool::allocate(48);
  op_pool::deallocate(a, 40);
  op_pool::deallocate(b, 48);
  void* c = op_pool::allocate(33);
  void* d = op_pool::allocate(47);
  BOOST_TEST(c == b);
  BOOST_TEST(d == a);
  op_pool::deallocate(c, 33);
  op_pool::deallocate(d, 47);
}

BOOST_AUTO_TEST_CASE(another_size_class_gets_another_block)
{
  void* a = op_pool::allocate(40);
  op_pool::deallocate(a, 40);
  // 49 bytes is the next class: a's block stays cached for 33 .. 48.
  void* b = op_pool::allocate(49);
  BOOST_TEST(b != a);
  void* c = op_pool::allocate(40);
  BOOST_TEST(c == a);
  op_pool::deallocate(b, 49);
  op_pool::deallocate(c, 40);
}

BOOST_AUTO_TEST_CASE(blocks_are_aligned_for_any_scalar)
{
  std::vector<std::pair<void*, std::size_t>> blocks;
  for (std::size_t size = 1; size <= 300; size += 7)
  {
    void* p = op_pool::allocate(size);
    BOOST_TEST(
        reinterpret_cast<std::uintptr_t>(p) % alignof(std::max_align_t) == 0u);
    blocks.emplace_back(p, size);
  }
  for (const auto& [p, size] : blocks)
    op_pool::deallocate(p, size);
}

BOOST_AUTO_TEST_CASE(a_class_keeps_at_most_4096_blocks)
{
  constexpr std::size_t n = 5000;
  std::vector<void*> blocks;
  for (std::size_t i = 0; i < n; ++i)
    blocks.push_back(op_pool::allocate(200));
  // Freed in order: the first 4096 stay cached, the rest go to the system.
  for (void* p : blocks)
    op_pool::deallocate(p, 200);
  const std::set<void*> cached(blocks.begin(), blocks.begin() + 4096);
  std::vector<void*> again;
  for (std::size_t i = 0; i < 4096; ++i)
  {
    again.push_back(op_pool::allocate(200));
    BOOST_TEST_REQUIRE(cached.count(again.back()) == 1u);
  }
  // Last in, first out: the 4096th freed comes back first.
  BOOST_TEST(again.front() == blocks[4095]);
  BOOST_TEST(again.back() == blocks[0]);
  for (void* p : again)
    op_pool::deallocate(p, 200);
}

BOOST_AUTO_TEST_CASE(each_thread_has_lists_of_its_own)
{
  void* here = op_pool::allocate(64);
  op_pool::deallocate(here, 64);
  // Another thread does not see this thread's cached block. What it caches is
  // returned to the system when it ends (LeakSanitizer checks that in the
  // sanitizer runs).
  void* there = nullptr;
  std::thread t([&] {
    there = op_pool::allocate(64);
    op_pool::deallocate(there, 64);
    void* again = op_pool::allocate(64);
    BOOST_TEST(again == there);
    op_pool::deallocate(again, 64);
  });
  t.join();
  BOOST_TEST(there != here);
  void* mine = op_pool::allocate(64);
  BOOST_TEST(mine == here);
  op_pool::deallocate(mine, 64);
}
