//
// asio_wheel/beast.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The Boost.Beast integration: asio_wheel::beast::basic_stream and
// asio_wheel::beast::tcp_stream. Boost.Asio flavour only (not included by
// asio_wheel.hpp, which does not need Beast).
//

#ifndef ASIO_WHEEL_BEAST_HPP
#define ASIO_WHEEL_BEAST_HPP

#include <asio_wheel/beast/basic_stream.hpp>
#include <asio_wheel/beast/tcp_stream.hpp>

#endif  // ASIO_WHEEL_BEAST_HPP
