// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// The whole library included, nothing used: the compile-fail tests of the Asio the library
// cannot use (test/compile_fail/CMakeLists.txt) check that including it says why in one line
// (detail/config.hpp's #error) and nothing else.
#include <asio_wheel.hpp>

int main() {}
