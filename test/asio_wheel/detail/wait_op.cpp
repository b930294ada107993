//
// test/asio_wheel/detail/wait_op.cpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// detail::timer_wait_list (include/asio_wheel/detail/wait_op.hpp), a timer's pending waits in
// one word: against a std::deque of the same waits, it keeps their order through pushes, pops
// and removals at every position, and says empty, lone, front and size as the deque does; a
// lone wait is never read (on Linux: lone, front, size, pop and clear with the wait's page
// unreadable), which is what lets the re-arm's abort leave the operation untouched.
//
// Part of asio_wheel_service_test (test/asio_wheel/CMakeLists.txt), so that every matrix leg
// runs it with its Asio's operation type (the next pointer the ring is made of).
#include "../wheel_test_support.hpp"

#include <asio_wheel/detail/wait_op.hpp>

#include <cstddef>
#include <deque>
#include <new>
#include <random>
#include <vector>

#if defined(__linux__)
# include <sys/mman.h>
# include <unistd.h>
#endif

namespace {

using asio_wheel::detail::timer_wait_list;
using asio_wheel::detail::wait_op_base;

// A wait that is never completed: only its place in a list matters.
struct test_wait : wait_op_base
{
  test_wait() noexcept : wait_op_base(nullptr) {}
};

std::vector<wait_op_base*> contents(const timer_wait_list& list)
{
  std::vector<wait_op_base*> seen;
  list.for_each([&seen](wait_op_base* op) { seen.push_back(op); });
  return seen;
}

// The list says what the deque holds, in the same order.
void check_same(
    const timer_wait_list& list, const std::deque<wait_op_base*>& model)
{
  BOOST_TEST_REQUIRE(list.empty() == model.empty());
  BOOST_TEST_REQUIRE(list.lone() == (model.size() == 1));
  BOOST_TEST_REQUIRE(list.size() == model.size());
  BOOST_TEST_REQUIRE(list.front() == (model.empty() ? nullptr : model.front()));
  const std::vector<wait_op_base*> expected(model.begin(), model.end());
  BOOST_TEST_REQUIRE(
      contents(list) == expected, boost::test_tools::per_element());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(timer_wait_list_tests)

BOOST_AUTO_TEST_CASE(pushes_and_pops_in_order_through_lone_and_ring)
{
  std::vector<test_wait> waits(4);
  timer_wait_list list;
  std::deque<wait_op_base*> model;
  check_same(list, model);
  for (test_wait& w : waits)
  {
    list.push(&w);
    model.push_back(&w);
    check_same(list, model);
  }
  while (!model.empty())
  {
    list.pop();
    model.pop_front();
    check_same(list, model);
  }
  // Refilled after emptying, as a timer is re-armed.
  list.push(&waits[2]);
  list.push(&waits[0]);
  check_same(list, {&waits[2], &waits[0]});
}

BOOST_AUTO_TEST_CASE(removes_a_wait_at_every_position_keeping_the_others_order)
{
  for (std::size_t n = 1; n <= 5; ++n)
    for (std::size_t k = 0; k < n; ++k)
    {
      BOOST_TEST_CONTEXT("waits " << n << ", removed " << k)
      {
        std::vector<test_wait> waits(n);
        timer_wait_list list;
        std::deque<wait_op_base*> model;
        for (test_wait& w : waits)
        {
          list.push(&w);
          model.push_back(&w);
        }
        list.remove(&waits[k]);
        model.erase(model.begin() + static_cast<std::ptrdiff_t>(k));
        check_same(list, model);
        // The removed wait can join a list again, and the rest still pops in order.
        list.push(&waits[k]);
        model.push_back(&waits[k]);
        check_same(list, model);
        while (!model.empty())
        {
          list.pop();
          model.pop_front();
          check_same(list, model);
        }
      }
    }
}

BOOST_AUTO_TEST_CASE(random_pushes_pops_and_removals_match_a_deque)
{
  std::vector<test_wait> waits(8);
  timer_wait_list list;
  std::deque<wait_op_base*> model;
  std::vector<wait_op_base*> idle;
  for (test_wait& w : waits)
    idle.push_back(&w);
  std::mt19937 random(20261129);
  for (int step = 0; step < 20000; ++step)
  {
    const unsigned choice = random() % 3;
    if (choice == 0 && !idle.empty())
    {
      const std::size_t i = random() % idle.size();
      list.push(idle[i]);
      model.push_back(idle[i]);
      idle.erase(idle.begin() + static_cast<std::ptrdiff_t>(i));
    }
    else if (choice == 1 && !model.empty())
    {
      idle.push_back(model.front());
      list.pop();
      model.pop_front();
    }
    else if (!model.empty())
    {
      const std::size_t i = random() % model.size();
      idle.push_back(model[i]);
      list.remove(model[i]);
      model.erase(model.begin() + static_cast<std::ptrdiff_t>(i));
    }
    check_same(list, model);
  }
}

BOOST_AUTO_TEST_CASE(take_moves_every_wait_and_clear_forgets_them)
{
  std::vector<test_wait> waits(3);
  timer_wait_list from, to;
  for (test_wait& w : waits)
    from.push(&w);
  to.take(from);
  check_same(from, {});
  check_same(to, {&waits[0], &waits[1], &waits[2]});
  to.clear();
  check_same(to, {});
  to.push(&waits[1]);
  check_same(to, {&waits[1]});
}

#if defined(__linux__)
// The re-arm's abort (abort_waits) asks whether the timer's one wait is alone, takes it and
// forgets it from the list, and must not read the operation: a cache miss per message, and
// the operation may belong to another thread's cache. The page holding the wait is made
// unreadable meanwhile: any read is a crash.
BOOST_AUTO_TEST_CASE(a_lone_wait_is_never_read)
{
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  void* memory = mmap(nullptr, page, PROT_READ | PROT_WRITE,
      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  BOOST_TEST_REQUIRE(memory != MAP_FAILED);
  test_wait* wait = new (memory) test_wait();
  timer_wait_list list;
  list.push(wait);
  BOOST_TEST_REQUIRE(mprotect(memory, page, PROT_NONE) == 0);
  const bool lone = list.lone();
  wait_op_base* const front = list.front();
  const std::size_t size = list.size();
  list.pop();
  const bool popped = list.empty();
  BOOST_TEST_REQUIRE(mprotect(memory, page, PROT_READ | PROT_WRITE) == 0);
  BOOST_TEST(lone);
  BOOST_TEST(front == wait);
  BOOST_TEST(size == 1u);
  BOOST_TEST(popped);
  // abort_waits' way: front, then clear.
  list.push(wait);
  BOOST_TEST_REQUIRE(mprotect(memory, page, PROT_NONE) == 0);
  wait_op_base* const taken = list.lone() ? list.front() : nullptr;
  list.clear();
  BOOST_TEST_REQUIRE(mprotect(memory, page, PROT_READ | PROT_WRITE) == 0);
  BOOST_TEST(taken == wait);
  BOOST_TEST(list.empty());
  wait->~test_wait();
  munmap(memory, page);
}
#endif

BOOST_AUTO_TEST_SUITE_END()
