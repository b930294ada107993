//
// asio_wheel/beast/detail/rate_policy_access.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The stream's way to Beast's rate policies, whose members are private to
// all but boost::beast::rate_policy_access: a specialization of
// boost::beast::basic_stream (every one of which that class befriends) on a
// key type of ours, named rate_access. The Beast stream's test
// rate_policy.cpp checks that this still holds for the Beast compiled with.
//

#ifndef ASIO_WHEEL_BEAST_DETAIL_RATE_POLICY_ACCESS_HPP
#define ASIO_WHEEL_BEAST_DETAIL_RATE_POLICY_ACCESS_HPP

#include <asio_wheel/detail/config.hpp>

#include <boost/beast/core/basic_stream.hpp>
#include <boost/beast/core/rate_policy.hpp>

#include <cstddef>

ASIO_WHEEL_NAMESPACE_BEGIN
namespace beast {
namespace detail {

// The key of the one specialization of boost::beast::basic_stream below: the
// rate policies' members are private, reachable only through
// boost::beast::rate_policy_access, whose friend is basic_stream.
struct rate_policy_key;

}  // namespace detail
}  // namespace beast
ASIO_WHEEL_NAMESPACE_END

namespace boost {
namespace beast {

// Not a stream: forwards to rate_policy_access (a friend of every
// specialization of basic_stream) so that asio_wheel::beast::basic_stream
// honours Beast's rate policies, and user-written ones, exactly as Beast's
// own stream does.
template <>
class basic_stream<::asio_wheel::beast::detail::rate_policy_key, void, void>
{
public:
  template <class Policy>
  static std::size_t available_read_bytes(Policy& p)
  {
    return rate_policy_access::available_read_bytes(p);
  }

  template <class Policy>
  static std::size_t available_write_bytes(Policy& p)
  {
    return rate_policy_access::available_write_bytes(p);
  }

  template <class Policy>
  static void transfer_read_bytes(Policy& p, std::size_t n)
  {
    rate_policy_access::transfer_read_bytes(p, n);
  }

  template <class Policy>
  static void transfer_write_bytes(Policy& p, std::size_t n)
  {
    rate_policy_access::transfer_write_bytes(p, n);
  }

  template <class Policy>
  static void on_timer(Policy& p)
  {
    rate_policy_access::on_timer(p);
  }
};

}  // namespace beast
}  // namespace boost

ASIO_WHEEL_NAMESPACE_BEGIN
namespace beast {
namespace detail {

using rate_access = ::boost::beast::basic_stream<rate_policy_key, void, void>;

}  // namespace detail
}  // namespace beast
ASIO_WHEEL_NAMESPACE_END

#endif  // ASIO_WHEEL_BEAST_DETAIL_RATE_POLICY_ACCESS_HPP
