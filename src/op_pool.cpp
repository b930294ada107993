//
// src/op_pool.cpp
//
// The per-thread free lists behind detail::op_pool.
//

#include <asio_wheel/detail/op_pool.hpp>

#include <new>

ASIO_WHEEL_NAMESPACE_BEGIN
namespace detail {

namespace {

constexpr std::size_t granule = 16;
constexpr std::size_t size_classes = 16;          // blocks of 16 .. 256 bytes
constexpr std::size_t max_blocks_per_class = 4096;

struct free_block
{
  free_block* next;
};

// Trivially destructible, so it stays usable until the thread is gone: an
// operation freed after the thread's cleanup (say by a static io_context
// destroyed after main returned) goes straight to operator delete.
struct pool_state
{
  free_block* heads[size_classes];
  std::size_t counts[size_classes];
  bool closed;
};

thread_local pool_state state;

// Returns the cached blocks to the system when the thread ends.
struct pool_cleanup
{
  ~pool_cleanup()
  {
    for (std::size_t c = 0; c < size_classes; ++c)
      while (free_block* b = state.heads[c])
      {
        state.heads[c] = b->next;
        ::operator delete(b);
      }
    state.closed = true;
  }
};

thread_local pool_cleanup cleanup;

std::size_t class_of(std::size_t size) noexcept
{
  return (size + granule - 1) / granule - 1;
}

} // namespace

void* op_pool::allocate(std::size_t size)
{
  const std::size_t c = class_of(size);
  if (c >= size_classes)
    return ::operator new(size);
  (void)&cleanup;  // registers the cleanup of this thread's cache
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
  if (c >= size_classes || state.closed
      || state.counts[c] == max_blocks_per_class)
  {
    ::operator delete(p);
    return;
  }
  (void)&cleanup;
  free_block* b = static_cast<free_block*>(p);
  b->next = state.heads[c];
  state.heads[c] = b;
  ++state.counts[c];
}

} // namespace detail
ASIO_WHEEL_NAMESPACE_END
