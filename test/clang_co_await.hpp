// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// Included first in every source of a test build with clang against an Asio older than 1.26
// (cmake/asio_wheel_test_settings.cmake): those Asio releases look for clang's coroutines in
// <experimental/coroutine>, which GCC's standard library does not have, and so leave co_await
// off although the compiler has C++20 coroutines and <coroutine>. Asio's own switch turns it
// on, as a clang user of those releases would, only where the source is compiled as C++20.
#if defined(__clang__) && defined(__cpp_impl_coroutine)
# if !defined(BOOST_ASIO_HAS_CO_AWAIT)
#  define BOOST_ASIO_HAS_CO_AWAIT 1
# endif
# if !defined(ASIO_HAS_CO_AWAIT)
#  define ASIO_HAS_CO_AWAIT 1
# endif
#endif
