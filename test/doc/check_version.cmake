# cmake -DFILE=<README.md> -DVERSION=<major>.<minor>.<patch> -P check_version.cmake
#
# The README's version line ("Version <major>.<minor>.<patch> ...", one of them, at the start
# of a line) says VERSION, the project's, which CMakeLists.txt reads from
# include/asio_wheel/version.hpp: a release that changes the header and not the README fails
# here, saying what each says. CTest runs it (test/doc/CMakeLists.txt, doc_version).
file(STRINGS "${FILE}" lines REGEX "^Version [0-9]+\\.[0-9]+\\.[0-9]+[ ,.;:(]")
list(LENGTH lines count)
if(NOT count EQUAL 1)
  message(FATAL_ERROR "doc_version: ${FILE} has ${count} lines 'Version <major>.<minor>.<patch>' "
    "(one is expected): ${lines}")
endif()
string(REGEX MATCH "^Version ([0-9]+\\.[0-9]+\\.[0-9]+)" found "${lines}")
if(NOT CMAKE_MATCH_1 STREQUAL VERSION)
  message(FATAL_ERROR "doc_version: ${FILE} says version ${CMAKE_MATCH_1}, "
    "include/asio_wheel/version.hpp (ASIO_WHEEL_VERSION) ${VERSION}")
endif()
message(STATUS "doc_version: ${FILE} says version ${VERSION}, as ASIO_WHEEL_VERSION")
