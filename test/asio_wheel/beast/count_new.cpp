// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// The global operator new of beast_stream_test, counting allocations while
// `counting` (wheel_only.cpp). In its own translation unit, so that no caller
// sees the replacement inlined next to its matching delete.
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

std::atomic<bool> counting{false};
std::atomic<std::size_t> allocations{0};

void* operator new(std::size_t n)
{
  if (counting.load(std::memory_order_relaxed))
    allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1))
    return p;
  throw std::bad_alloc();
}

void operator delete(void* p) noexcept
{
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept
{
  std::free(p);
}
