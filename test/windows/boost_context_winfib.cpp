// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// boost_context_winfib.cpp: the compiled parts of Boost.Context that its Windows-fiber variant
// (BOOST_USE_WINFIB: contexts are Win32 fibers, CreateFiber / SwitchToFiber) needs, for the
// Windows cross-build, where Debian has no Windows build of Boost.Context. With it, asio::spawn
// and yield_context run in the conformance suite on Windows too. Written for these tests, not
// taken from Boost: the stack sizes Asio's spawn asks for when given no stack allocator, and
// each thread's record of the fiber it runs (the thread itself becomes a fiber on first use).
#if !defined(BOOST_USE_WINFIB)
# error "boost_context_winfib.cpp is for builds with BOOST_USE_WINFIB"
#endif

#if defined(__GNUC__)
// GCC 12 takes mingw-w64's inline read of the fiber pointer (GetCurrentFiber, a gs-relative
// load) for an access outside a zero-length array.
# pragma GCC diagnostic ignored "-Warray-bounds"
#endif

#include <boost/context/fiber.hpp>
#include <boost/context/stack_traits.hpp>

#include <windows.h>

namespace boost {
namespace context {

// A fiber's stack grows on demand up to what CreateFiber reserves: no fixed limit.
bool stack_traits::is_unbounded() noexcept
{
  return true;
}

std::size_t stack_traits::page_size() noexcept
{
  SYSTEM_INFO info;
  ::GetSystemInfo(&info);
  return info.dwPageSize;
}

std::size_t stack_traits::default_size() noexcept
{
  return 64 * 1024;
}

std::size_t stack_traits::minimum_size() noexcept
{
  return 8 * 1024;
}

// Meaningful only for a bounded stack (is_unbounded() is false): never called here.
std::size_t stack_traits::maximum_size() noexcept
{
  return std::size_t(1) << 30;
}

namespace detail {

namespace {

// The record of the fiber running on this thread; the thread's own record (the thread
// converted to a fiber) is made on first use and freed when the thread ends.
thread_local fiber_activation_record* current_record = nullptr;
thread_local std::size_t initializers = 0;

}  // namespace

fiber_activation_record_initializer::
    fiber_activation_record_initializer() noexcept
{
  if (initializers++ == 0)
    current_record = new fiber_activation_record();
}

fiber_activation_record_initializer::~fiber_activation_record_initializer()
{
  if (--initializers == 0)
  {
    BOOST_ASSERT(current_record->is_main_context());
    delete current_record;
    current_record = nullptr;
  }
}

fiber_activation_record*& fiber_activation_record::current() noexcept
{
  thread_local fiber_activation_record_initializer initializer;
  return current_record;
}

}  // namespace detail

}  // namespace context
}  // namespace boost
