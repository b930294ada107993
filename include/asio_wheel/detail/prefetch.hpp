//
// asio_wheel/detail/prefetch.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// A hint to start loading memory the caller is about to write: used where a
// re-arm or a batch of completions would otherwise wait for one cache miss
// after another (see basic_wheel_timer and wheel_timer_service).
//

#ifndef ASIO_WHEEL_DETAIL_PREFETCH_HPP
#define ASIO_WHEEL_DETAIL_PREFETCH_HPP

#include <asio_wheel/detail/config.hpp>

#include <cstddef>

ASIO_WHEEL_NAMESPACE_BEGIN
namespace detail {

/// Prefetches, for writing, every cache line of the @p bytes at @p p. Only a
/// hint: no effect on behaviour, none at all where the compiler has no
/// prefetch builtin.
inline void prefetch_for_write(const void* p, std::size_t bytes) noexcept
{
#if defined(__GNUC__)
  constexpr std::size_t line = 64;
  const char* first = static_cast<const char*>(p);
  for (std::size_t offset = 0; offset < bytes; offset += line)
    __builtin_prefetch(first + offset, 1);
  __builtin_prefetch(first + bytes - 1, 1);  // the last line, if unaligned
#else
  (void)p;
  (void)bytes;
#endif
}

}  // namespace detail
ASIO_WHEEL_NAMESPACE_END

#endif  // ASIO_WHEEL_DETAIL_PREFETCH_HPP
