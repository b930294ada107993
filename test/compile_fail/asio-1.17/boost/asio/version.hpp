//
// A stand-in for Boost.Asio 1.17 (Boost 1.73), below asio_wheel's floor: its version header
// only, put before a supported Boost.Asio on the include path by the compile-fail test
// compile_fail_asio_below_floor (test/compile_fail/CMakeLists.txt). Every other Asio header
// comes from that Asio; the library must stop at its version alone, with one line.
//
#ifndef BOOST_ASIO_VERSION_HPP
#define BOOST_ASIO_VERSION_HPP

#define BOOST_ASIO_VERSION 101700  // 1.17.0

#endif  // BOOST_ASIO_VERSION_HPP
