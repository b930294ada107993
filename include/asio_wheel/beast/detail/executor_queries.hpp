//
// asio_wheel/beast/detail/executor_queries.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// What the stream asks of an executor or a handler to find where a timeout's
// upcall runs and which wheel holds its timeouts: the execution context of
// an executor (old or new style), whether an executor is a plain io_context
// one, and, at compile time, whether a handler has an associated executor of
// its own.
//

#ifndef ASIO_WHEEL_BEAST_DETAIL_EXECUTOR_QUERIES_HPP
#define ASIO_WHEEL_BEAST_DETAIL_EXECUTOR_QUERIES_HPP

#include <asio_wheel/detail/asio_forward.hpp>
#include <asio_wheel/detail/asio_operation.hpp>

#include <type_traits>

ASIO_WHEEL_NAMESPACE_BEGIN
namespace beast {
namespace detail {

// The execution context of an executor, old or new style.
template <class Ex>
asio::execution_context& context_of(const Ex& ex)
{
  if constexpr (asio::execution::is_executor<Ex>::value)
    return asio::query(ex, asio::execution::context);
  else
    return ex.context();
}

// Whether ex is a plain io_context executor (behind any_io_executor or a
// wheel_executor, or not).
template <class Ex>
bool is_native(const Ex& ex) noexcept
{
  return ::asio_wheel::detail::native_executor(ex) != nullptr;
}

// The fallback executor of the question below: a type no executor has.
struct no_executor_of_its_own
{};

// Whether a handler of type Handler has an associated executor of its own,
// decided at compile time: asked with a fallback of a type no executor has,
// a handler without one can only answer with the fallback's type. (A handler
// whose executor type is fixed, as Beast's composed operations have, counts
// as having one: its value is then compared when armed.)
template <class Handler>
using has_executor_of_its_own = std::integral_constant<bool,
    !std::is_same<asio::associated_executor_t<Handler, no_executor_of_its_own>,
        no_executor_of_its_own>::value>;

}  // namespace detail
}  // namespace beast
ASIO_WHEEL_NAMESPACE_END

#endif  // ASIO_WHEEL_BEAST_DETAIL_EXECUTOR_QUERIES_HPP
