//
// asio_wheel/detail/op_pool.hpp
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

struct op_pool
{
  static void* allocate(std::size_t size);
  static void deallocate(void* p, std::size_t size) noexcept;
};

} // namespace detail
ASIO_WHEEL_NAMESPACE_END

#endif // ASIO_WHEEL_DETAIL_OP_POOL_HPP
