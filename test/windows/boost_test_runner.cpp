// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// boost_test_runner.cpp: Boost.Test's runner (what the unit_test_framework library holds),
// compiled from Boost's headers for the Windows cross-build, where Debian provides Boost's
// headers but no Windows build of its libraries. Linked instead of Boost::unit_test_framework,
// with BOOST_TEST_DYN_LINK undefined: it provides main(), which calls the
// init_unit_test_suite() that the test source defining BOOST_TEST_MODULE generates.
#include <boost/test/included/unit_test.hpp>
