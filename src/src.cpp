//
// src/src.cpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The one translation unit of the CMake targets' compiled variant
// (ASIO_WHEEL_SEPARATE_COMPILATION=ON): asio_wheel's functions that are not
// templates, compiled once for the flavour of the target.
//

#if defined(_WIN32)
// First, so that the SDK's own _WIN32_WINNT default (Windows 10 in current
// SDKs) applies rather than the Windows 7 that Asio's config assumes when
// none is defined, which has no WaitOnAddress for the lock; lean, so that
// windows.h leaves out winsock.h. Only this file sees these macros.
# if !defined(WIN32_LEAN_AND_MEAN)
#  define WIN32_LEAN_AND_MEAN
# endif
# if !defined(NOMINMAX)
#  define NOMINMAX
# endif
# include <windows.h>
#endif

#include <asio_wheel/src.hpp>
