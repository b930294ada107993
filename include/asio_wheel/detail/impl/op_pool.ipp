//
// asio_wheel/detail/impl/op_pool.ipp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The per-thread free lists behind detail::op_pool. Included at the end of
// op_pool.hpp (header-only, the default), or compiled once through
// asio_wheel/src.hpp (ASIO_WHEEL_SEPARATE_COMPILATION).
//

#ifndef ASIO_WHEEL_DETAIL_IMPL_OP_POOL_IPP
#define ASIO_WHEEL_DETAIL_IMPL_OP_POOL_IPP

#include <asio_wheel/detail/op_pool.hpp>

#include <new>

ASIO_WHEEL_NAMESPACE_BEGIN
namespace detail {

struct op_pool::free_block
{
  free_block* next;
};

// Trivially destructible, so it stays usable until the thread is gone: an
// operation freed after the thread's cleanup (say by a static io_context
// destroyed after main returned) goes straight to operator delete.
struct op_pool::thread_cache
{
  free_block* heads[size_classes];
  std::size_t counts[size_classes];
  bool cleanup_registered;
  bool closed;
};

// Returns the cached blocks to the system when the thread ends.
struct op_pool::thread_cache_cleanup
{
  ~thread_cache_cleanup()
  {
    thread_cache& state = cache();
    for (std::size_t c = 0; c < size_classes; ++c)
      while (free_block* b = state.heads[c])
      {
        state.heads[c] = b->next;
        ::operator delete(b);
      }
    state.closed = true;
  }
};

op_pool::thread_cache& op_pool::cache() noexcept
{
  // Zero-initialized, with no constructor or destructor to run: no guard.
  static thread_local thread_cache state;
  return state;
}

void op_pool::register_cleanup() noexcept
{
  // Constructing it registers its destructor, which runs when the thread
  // ends. Called once a thread: the flag saves the guard of a thread_local
  // with a destructor on every allocation.
  static thread_local thread_cache_cleanup cleanup;
  (void)cleanup;
  cache().cleanup_registered = true;
}

std::size_t op_pool::class_of(std::size_t size) noexcept
{
  return (size + granule - 1) / granule - 1;
}

void* op_pool::allocate(std::size_t size)
{
  const std::size_t c = class_of(size);
  if (c >= size_classes)
    return ::operator new(size);
  thread_cache& state = cache();
  if (!state.cleanup_registered)
    register_cleanup();
  if (free_block* b = state.heads[c])
  {
    state.heads[c] = b->next;
    --state.counts[c];
    return b;
  }
  return ::operator new((c + 1) * granule);
}

void op_pool::deallocate(void* p, std::size_t size) noexcept
{
  const std::size_t c = class_of(size);
  thread_cache& state = cache();
  if (c >= size_classes || state.closed
      || state.counts[c] == max_blocks_per_class)
  {
    ::operator delete(p);
    return;
  }
  if (!state.cleanup_registered)
    register_cleanup();
  free_block* b = static_cast<free_block*>(p);
  b->next = state.heads[c];
  state.heads[c] = b;
  ++state.counts[c];
}

}  // namespace detail
ASIO_WHEEL_NAMESPACE_END

#endif  // ASIO_WHEEL_DETAIL_IMPL_OP_POOL_IPP
