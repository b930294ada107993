//
// asio_wheel/detail/op_memory.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// Where the memory of an operation (a wait, a timed cancellation's state)
// comes from, decided once for both: the handler's associated allocator,
// rebound to the operation's type, or op_pool when that allocator is the
// default std::allocator<void>.
//

#ifndef ASIO_WHEEL_DETAIL_OP_MEMORY_HPP
#define ASIO_WHEEL_DETAIL_OP_MEMORY_HPP

#include <asio_wheel/detail/asio_forward.hpp>
#include <asio_wheel/detail/op_pool.hpp>

#include <memory>
#include <type_traits>

ASIO_WHEEL_NAMESPACE_BEGIN
namespace detail {

template <typename Handler>
inline constexpr bool uses_op_pool =
    std::is_same<asio::associated_allocator_t<Handler>,
        std::allocator<void>>::value;

/// The memory of one Op for @p Handler. Made from the handler; for an
/// operation that holds its handler, make it before destroying the
/// operation, then free the memory with it.
template <typename Op, typename Handler, bool Pooled = uses_op_pool<Handler>>
class op_memory
{
public:
  explicit op_memory(const Handler& handler)
    : allocator_(asio::get_associated_allocator(handler))
  {}

  void* allocate() { return allocator_.allocate(1); }

  void deallocate(void* p) noexcept
  {
    allocator_.deallocate(static_cast<Op*>(p), 1);
  }

private:
  typename std::allocator_traits<
      asio::associated_allocator_t<Handler>>::template rebind_alloc<Op>
      allocator_;
};

template <typename Op, typename Handler>
class op_memory<Op, Handler, true>
{
public:
  explicit op_memory(const Handler&) noexcept {}

  static void* allocate() { return op_pool::allocate(sizeof(Op)); }

  static void deallocate(void* p) noexcept
  {
    op_pool::deallocate(p, sizeof(Op));
  }
};

}  // namespace detail
ASIO_WHEEL_NAMESPACE_END

#endif  // ASIO_WHEEL_DETAIL_OP_MEMORY_HPP
