//
// example/timeouts/net.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The Asio this build uses, as `net`: Boost.Asio (boost::system::error_code), or standalone
// Asio (std::error_code) in a program built for it (ASIO_WHEEL_STANDALONE, the matrix's
// standalone legs). With Boost.Asio alone, write boost::asio and drop this header.
//

#ifndef ASIO_WHEEL_EXAMPLE_TIMEOUTS_NET_HPP
#define ASIO_WHEEL_EXAMPLE_TIMEOUTS_NET_HPP

#include <asio_wheel/detail/config.hpp>

#if defined(ASIO_WHEEL_STANDALONE)
# include <asio.hpp>
#else
# include <boost/asio.hpp>
#endif

#include <asio_wheel.hpp>

namespace net = asio_wheel::asio;
using asio_wheel::error_code;
using asio_wheel::system_error;
using tcp = net::ip::tcp;

#endif  // ASIO_WHEEL_EXAMPLE_TIMEOUTS_NET_HPP
