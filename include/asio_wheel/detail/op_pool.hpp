//
// asio_wheel/detail/op_pool.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// Memory for wait operations whose handler has no allocator of its own (the
// associated allocator is the default std::allocator<void>). A re-arm
// allocates an operation and the aborted one is freed soon after, so
// operations are recycled through a per-thread free list for each 16-byte
// size class, bounded at 4096 blocks a class (the bound Netty's Recycler
// uses per thread); beyond it, and for blocks over 256 bytes, memory goes
// back to operator new/delete. Asio's own recycling allocator keeps two
// blocks a thread, too few for a server re-arming thousands of timers
// between two turns of its event loop.
//

#ifndef ASIO_WHEEL_DETAIL_OP_POOL_HPP
#define ASIO_WHEEL_DETAIL_OP_POOL_HPP

#include <asio_wheel/detail/config.hpp>

#include <cstddef>

ASIO_WHEEL_NAMESPACE_BEGIN
namespace detail {

class op_pool
{
public:
  ASIO_WHEEL_DECL static void* allocate(std::size_t size);
  ASIO_WHEEL_DECL static void deallocate(void* p, std::size_t size) noexcept;

private:
  static constexpr std::size_t granule = 16;
  static constexpr std::size_t size_classes = 16;  // blocks of 16 .. 256 bytes
  static constexpr std::size_t max_blocks_per_class = 4096;

  struct free_block;
  struct thread_cache;
  struct thread_cache_cleanup;

  // This thread's free lists, and the registration of their cleanup when
  // the thread ends. Helpers of allocate and deallocate, inline even when
  // those are compiled once: a call to a function that a shared library
  // could interpose is not inlined.
  static inline thread_cache& cache() noexcept;
  static inline void register_cleanup() noexcept;
  static inline std::size_t class_of(std::size_t size) noexcept;
};

}  // namespace detail
ASIO_WHEEL_NAMESPACE_END

#if !defined(ASIO_WHEEL_SEPARATE_COMPILATION)
# include <asio_wheel/detail/impl/op_pool.ipp>
#endif

#endif  // ASIO_WHEEL_DETAIL_OP_POOL_HPP
