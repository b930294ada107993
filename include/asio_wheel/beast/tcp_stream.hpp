//
// asio_wheel/beast/tcp_stream.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// asio_wheel::beast::tcp_stream: a drop-in replacement for
// boost::beast::tcp_stream whose timeouts are entries of the context's
// timing wheel (see basic_stream.hpp). Boost.Asio flavour only.
//

#ifndef ASIO_WHEEL_BEAST_TCP_STREAM_HPP
#define ASIO_WHEEL_BEAST_TCP_STREAM_HPP

#include <asio_wheel/detail/config.hpp>

// Without an Asio it can use, config.hpp's one line is all (see there).
#if !defined(ASIO_WHEEL_ASIO_UNUSABLE)

# include <asio_wheel/beast/basic_stream.hpp>

# include <boost/asio/ip/tcp.hpp>

ASIO_WHEEL_NAMESPACE_BEGIN
namespace beast {

/// A TCP/IP stream socket with timeouts in the context's timing wheel and
/// no rate limit: the drop-in for boost::beast::tcp_stream.
using tcp_stream = basic_stream<asio::ip::tcp>;

}  // namespace beast
ASIO_WHEEL_NAMESPACE_END

#endif  // !defined(ASIO_WHEEL_ASIO_UNUSABLE)

#endif  // ASIO_WHEEL_BEAST_TCP_STREAM_HPP
