//
// A stand-in for standalone Asio 1.17, below asio_wheel's floor: its version header only, put
// before a supported standalone Asio on the include path by the compile-fail test
// compile_fail_standalone_asio_below_floor (test/compile_fail/CMakeLists.txt).
//
#ifndef ASIO_VERSION_HPP
#define ASIO_VERSION_HPP

#define ASIO_VERSION 101700  // 1.17.0

#endif  // ASIO_VERSION_HPP
