//
// asio_wheel/version.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The library's version, as one number in the encoding of Asio's
// BOOST_ASIO_VERSION. It is written here only: CMakeLists.txt reads the
// #define line below for the project's version, which the CMake package
// (asio_wheel-config-version.cmake) and the pkg-config files carry, and
// refuses a line whose comment does not spell the same version. A release
// changes that one line.
//

#ifndef ASIO_WHEEL_VERSION_HPP
#define ASIO_WHEEL_VERSION_HPP

// ASIO_WHEEL_VERSION % 100 is the sub-minor version
// ASIO_WHEEL_VERSION / 100 % 1000 is the minor version
// ASIO_WHEEL_VERSION / 100000 is the major version
#define ASIO_WHEEL_VERSION 100000  // 1.0.0

#endif  // ASIO_WHEEL_VERSION_HPP
