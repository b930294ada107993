// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// The separate-compilation consumers' one translation unit of asio-wheel's compiled part,
// built with ASIO_WHEEL_SEPARATE_COMPILATION like the rest of the program.
#include <asio_wheel/src.hpp>
