//
// asio_wheel/src.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The compiled part of asio_wheel, for separate compilation: include this in
// exactly one translation unit of the program, and define
// ASIO_WHEEL_SEPARATE_COMPILATION in every translation unit that includes an
// asio_wheel header, this one too (as BOOST_ASIO_SEPARATE_COMPILATION and
// <boost/asio/impl/src.hpp> do for Asio). Compile it once per flavour used:
// with ASIO_STANDALONE for standalone Asio. Without the macro the library is
// header-only and this file is not needed.
//

#ifndef ASIO_WHEEL_SRC_HPP
#define ASIO_WHEEL_SRC_HPP

#if !defined(ASIO_WHEEL_SEPARATE_COMPILATION)
# error                                                                        \
     "asio_wheel/src.hpp compiles asio_wheel's functions once: define ASIO_WHEEL_SEPARATE_COMPILATION here and wherever asio_wheel's headers are included (or include nothing: the library is header-only without it)"
#endif

#include <asio_wheel/detail/impl/op_pool.ipp>
#include <asio_wheel/detail/impl/timing_wheel.ipp>

#endif  // ASIO_WHEEL_SRC_HPP
