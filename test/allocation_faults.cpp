// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// The global operator new of allocation_faults.hpp. In its own translation unit, so that no
// caller sees the replacement inlined next to its matching delete.
#include "allocation_faults.hpp"

#include <cstdlib>

thread_local std::size_t allocation_faults::fail_at = 0;
thread_local bool allocation_faults::fail_all = false;
std::atomic<bool> allocation_faults::counting{false};
std::atomic<std::size_t> allocation_faults::allocations{0};

namespace {

void* allocate(std::size_t size)
{
  using namespace allocation_faults;
  if (fail_all || (fail_at != 0 && --fail_at == 0))
    throw std::bad_alloc();
  if (counting.load(std::memory_order_relaxed))
    allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size != 0 ? size : 1))
    return p;
  throw std::bad_alloc();
}

}  // namespace

void* operator new(std::size_t size)
{
  return allocate(size);
}

void* operator new[](std::size_t size)
{
  return allocate(size);
}

void operator delete(void* p) noexcept
{
  std::free(p);
}

void operator delete[](void* p) noexcept
{
  std::free(p);
}

void operator delete(void* p, std::size_t) noexcept
{
  std::free(p);
}

void operator delete[](void* p, std::size_t) noexcept
{
  std::free(p);
}
