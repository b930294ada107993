//
// asio_wheel/beast/detail/any_endpoint.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The connect condition that accepts every endpoint: what the stream's
// range and iterator async_connect overloads without a condition pass on to
// asio::async_connect (Beast's detail::any_endpoint).
//

#ifndef ASIO_WHEEL_BEAST_DETAIL_ANY_ENDPOINT_HPP
#define ASIO_WHEEL_BEAST_DETAIL_ANY_ENDPOINT_HPP

#include <asio_wheel/detail/config.hpp>

ASIO_WHEEL_NAMESPACE_BEGIN
namespace beast {
namespace detail {

// Always true: the connect condition of the overloads without one.
struct any_endpoint
{
  template <class Error, class Endpoint>
  bool operator()(const Error&, const Endpoint&) const noexcept
  {
    return true;
  }
};

}  // namespace detail
}  // namespace beast
ASIO_WHEEL_NAMESPACE_END

#endif  // ASIO_WHEEL_BEAST_DETAIL_ANY_ENDPOINT_HPP
