//
// test/asio_wheel/detail/op_memory.cpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// Unit tests of where an operation's memory comes from: a handler with an
// associated allocator of its own gets it from that allocator, rebound to
// the operation's type, one object at a time; a handler with none (the
// default std::allocator<void>) gets it from op_pool, with no state kept.
//

#define BOOST_TEST_MODULE op_memory
#include <boost/test/unit_test.hpp>

#include <asio_wheel/detail/op_memory.hpp>

#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>

using asio_wheel::detail::op_memory;
using asio_wheel::detail::op_pool;
using asio_wheel::detail::uses_op_pool;

namespace {

// What the allocator below was asked for: calls and bytes.
struct allocation_log
{
  int allocations = 0;
  int deallocations = 0;
  std::size_t bytes = 0;
  void* last = nullptr;
};

template <typename T>
struct logging_allocator
{
  using value_type = T;

  allocation_log* log;

  explicit logging_allocator(allocation_log* l) noexcept : log(l) {}
  template <typename U>
  logging_allocator(const logging_allocator<U>& other) noexcept : log(other.log)
  {}

  T* allocate(std::size_t n)
  {
    ++log->allocations;
    log->bytes += n * sizeof(T);
    log->last = ::operator new(n * sizeof(T));
    return static_cast<T*>(log->last);
  }
  void deallocate(T* p, std::size_t n) noexcept
  {
    ++log->deallocations;
    log->bytes -= n * sizeof(T);
    ::operator delete(p);
  }

  template <typename U>
  bool operator==(const logging_allocator<U>& other) const noexcept
  {
    return log == other.log;
  }
  template <typename U>
  bool operator!=(const logging_allocator<U>& other) const noexcept
  {
    return log != other.log;
  }
};

// A handler whose associated allocator is its own (the member form, which
// every supported Asio reads).
struct handler_with_allocator
{
  using allocator_type = logging_allocator<void>;
  allocator_type allocator;
  allocator_type get_allocator() const noexcept { return allocator; }
  void operator()() {}
};

struct plain_handler
{
  void operator()() {}
};

struct operation
{
  char bytes[72];
};

}  // namespace

BOOST_AUTO_TEST_CASE(only_a_handler_without_an_allocator_uses_the_pool)
{
  static_assert(uses_op_pool<plain_handler>);
  static_assert(!uses_op_pool<handler_with_allocator>);
}

BOOST_AUTO_TEST_CASE(the_handlers_allocator_gives_one_operation)
{
  allocation_log log;
  const handler_with_allocator handler{logging_allocator<void>(&log)};
  op_memory<operation, handler_with_allocator> memory(handler);
  void* p = memory.allocate();
  BOOST_TEST(p == log.last);
  BOOST_TEST(log.allocations == 1);
  BOOST_TEST(log.bytes == sizeof(operation));  // rebound to the operation
  ::new (p) operation();
  memory.deallocate(p);
  BOOST_TEST(log.deallocations == 1);
  BOOST_TEST(log.bytes == 0u);
}

BOOST_AUTO_TEST_CASE(a_memory_made_from_a_copy_of_the_handler_frees_it)
{
  // An operation that holds its handler makes the memory before destroying
  // itself, from its own copy: the copy's allocator frees what the first
  // one allocated.
  allocation_log log;
  const handler_with_allocator handler{logging_allocator<void>(&log)};
  void* p = op_memory<operation, handler_with_allocator>(handler).allocate();
  const handler_with_allocator copy = handler;
  op_memory<operation, handler_with_allocator>(copy).deallocate(p);
  BOOST_TEST(log.allocations == 1);
  BOOST_TEST(log.deallocations == 1);
}

BOOST_AUTO_TEST_CASE(a_handler_without_an_allocator_gets_pool_blocks)
{
  using memory_type = op_memory<operation, plain_handler>;
  static_assert(std::is_empty<memory_type>::value);

  // The block freed through op_memory is the pool's: the next allocation of
  // its size class takes it back.
  void* p = memory_type(plain_handler()).allocate();
  memory_type(plain_handler()).deallocate(p);
  void* q = op_pool::allocate(sizeof(operation));
  BOOST_TEST(q == p);
  op_pool::deallocate(q, sizeof(operation));
}
