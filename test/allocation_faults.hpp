// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// Allocation failure on demand, for the tests of the strong guarantee: a program linked with
// allocation_faults.cpp has a global operator new that fails the n-th allocation of the
// calling thread when told to (fails_at), or every one (failing_all), counts allocations
// while told to (counting), and is malloc otherwise. Run under ASan and LeakSanitizer by scripts/sanitize: a wait freed while still
// queued, or one never freed, fails there.
#ifndef ASIO_WHEEL_TEST_ALLOCATION_FAULTS_HPP
#define ASIO_WHEEL_TEST_ALLOCATION_FAULTS_HPP

#include <atomic>
#include <cstddef>
#include <memory>
#include <new>

namespace allocation_faults {

// The allocation of this thread that fails next: 0 none, 1 the next, ...
extern thread_local std::size_t fail_at;
// Whether every allocation of this thread fails.
extern thread_local bool fail_all;

// While counting, every allocation of the program adds one to allocations.
extern std::atomic<bool> counting;
extern std::atomic<std::size_t> allocations;

// The most allocations any path the tests try makes, with room to spare: a test's loop stops
// at the first n that does not fail.
constexpr std::size_t max_allocations = 32;

// Calls f with the n-th allocation of this thread failing; true if it threw std::bad_alloc
// (then that allocation was made), false if it returned (f makes fewer than n allocations).
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

// Calls f with every allocation of this thread failing; true if it threw std::bad_alloc.
template <class F>
bool failing_all(F&& f)
{
  fail_all = true;
  bool threw = false;
  try
  {
    f();
  }
  catch (const std::bad_alloc&)
  {
    threw = true;
  }
  fail_all = false;
  return threw;
}

// Allocates with operator new every time, so that each allocation of an operation is one
// that can fail (with the default allocator, Asio and the library reuse the memory of
// earlier operations of the thread).
template <class T>
struct plain_allocator
{
  using value_type = T;
  plain_allocator() = default;
  template <class U>
  plain_allocator(const plain_allocator<U>&) noexcept
  {}
  T* allocate(std::size_t n)
  {
    return static_cast<T*>(::operator new(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t) noexcept { ::operator delete(p); }
  friend bool operator==(plain_allocator, plain_allocator) noexcept
  {
    return true;
  }
  friend bool operator!=(plain_allocator, plain_allocator) noexcept
  {
    return false;
  }
};

// A read's handler that says whether it ran and, through its witness, when it is destroyed;
// with Plain, its associated allocator is a plain_allocator.
template <class ErrorCode, bool Plain>
struct witnessed_read_handler
{
  witnessed_read_handler(bool& ran, bool& destroyed)
    : ran(&ran), witness(new int(0), [&destroyed](int* p) {
        delete p;
        destroyed = true;
      })
  {}
  void operator()(ErrorCode, std::size_t) { *ran = true; }
  bool* ran;
  std::shared_ptr<int> witness;
};
template <class ErrorCode>
struct witnessed_read_handler<ErrorCode, true>
  : witnessed_read_handler<ErrorCode, false>
{
  using witnessed_read_handler<ErrorCode, false>::witnessed_read_handler;
  using allocator_type = plain_allocator<void>;
  allocator_type get_allocator() const noexcept { return {}; }
};

}  // namespace allocation_faults

#endif  // ASIO_WHEEL_TEST_ALLOCATION_FAULTS_HPP
