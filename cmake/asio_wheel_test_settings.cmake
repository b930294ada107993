# The settings of this repository's own tests, examples, benchmarks and matrix legs, not of
# the library's users: included by the top-level CMakeLists.txt when it builds any of them,
# before the libraries are made. asio_wheel_apply_test_settings() runs after.
#
# Options (cache variables):
#   ASIO_WHEEL_WERROR                     -Werror on everything this project compiles (the
#                                         library's compiled variant, tests, examples,
#                                         benchmarks): a warning fails the build.
#                                         scripts/test sets it
#   ASIO_WHEEL_MATRIX_LEG                 build only what a leg of scripts/matrix tests (the
#                                         Beast stream's suite and the HTTP example only when
#                                         ASIO_WHEEL_BEAST_INCLUDE_DIR names a Beast tree)
#   ASIO_WHEEL_TEST_FLAVOUR               boost | standalone: the library the tests link
#   ASIO_WHEEL_BEAST_INCLUDE_DIR          a Boost.Beast header tree (the folder holding
#                                         boost/beast.hpp) for the Beast stream's tests and the
#                                         HTTP example, put before the system Boost next to the
#                                         Boost.Asio tree; empty: the system Boost's Beast
#   ASIO_WHEEL_BOOST_CORE_INCLUDE_DIR     a Boost.Core header tree put there too (Beast 1.90
#                                         needs a newer Core than Boost 1.81's); empty: none
#   ASIO_WHEEL_MATRIX_WHOLE_BOOST         a leg whose Boost, found by find_package(Boost), is a
#                                         whole Boost release other than the system's (leg
#                                         boost-1.74: Debian's 1.74 unpacked beside 1.81): the
#                                         leg builds its Beast's tests too, and asio_headers
#                                         fails an object that included any Boost header from
#                                         elsewhere
#   ASIO_WHEEL_MATRIX_CHAT                a leg also builds the chat example and runs its
#                                         loopback tests (legs boost-1.74, 1.77, 1.80)
#   ASIO_WHEEL_TEST_RUNNER_FROM_HEADERS   the tests' Boost.Test runner compiled from Boost's
#                                         headers (boost/test/included/unit_test.hpp), not
#                                         linked from its unit_test_framework library
#   ASIO_WHEEL_TEST_SPAWN_LIBRARIES       the library files yield_context (asio::spawn) links in
#                                         the tests; empty: Boost.Context, and Boost.Coroutine
#                                         where that Asio's spawn runs on it, from find_package
#   ASIO_WHEEL_TEST_HEADERS_ALONE         build asio_wheel_headers_alone (test/headers): every
#                                         header compiles alone; ON but in the ASan+UBSan build
#                                         of scripts/sanitize

option(ASIO_WHEEL_MATRIX_LEG
  "Build only a leg of scripts/matrix: the library, the conformance, service and model tests, idle_timeouts (and, given a Beast tree, the Beast and HTTP tests)" OFF)
option(ASIO_WHEEL_WERROR
  "Turn warnings into errors (-Werror) in everything this project compiles; for CI, not for consumers" OFF)
set(ASIO_WHEEL_BEAST_INCLUDE_DIR "" CACHE PATH
  "A Boost.Beast header tree (the folder holding boost/beast.hpp) for the Beast tests and the HTTP example, before the system Boost")
set(ASIO_WHEEL_BOOST_CORE_INCLUDE_DIR "" CACHE PATH
  "A Boost.Core header tree (the folder holding boost/core/) put before the system Boost, for a Beast tree that needs a newer Core")
option(ASIO_WHEEL_MATRIX_WHOLE_BOOST
  "A matrix leg on a whole Boost of its own (find_package(Boost)): its Beast's tests too, and no Boost header from elsewhere" OFF)
option(ASIO_WHEEL_MATRIX_CHAT "A matrix leg also builds the chat example and runs its loopback tests" OFF)
option(ASIO_WHEEL_TEST_RUNNER_FROM_HEADERS
  "Compile the tests' Boost.Test runner from Boost's headers instead of linking unit_test_framework" OFF)
set(ASIO_WHEEL_TEST_SPAWN_LIBRARIES "" CACHE STRING
  "The library files yield_context links in the tests (empty: Boost.Context and, where Asio's spawn needs it, Boost.Coroutine from find_package)")
option(ASIO_WHEEL_TEST_HEADERS_ALONE
  "Build asio_wheel_headers_alone (test/headers): every header of include/ compiles alone" ON)
set(ASIO_WHEEL_TEST_FLAVOUR boost CACHE STRING
  "The library the tests and examples link: boost (asio_wheel) or standalone (asio_wheel_standalone)")
set_property(CACHE ASIO_WHEEL_TEST_FLAVOUR PROPERTY STRINGS boost standalone)

# Precompiled Asio and Beast for the multi-source tests, examples and benchmarks, and the
# option ASIO_WHEEL_PRECOMPILE_HEADERS: asio_wheel_precompile_headers().
include(${CMAKE_CURRENT_LIST_DIR}/asio_wheel_pch.cmake)

# Each target chooses its own warnings (-Wall -Wextra, the compiled library also -Wpedantic;
# GCC and clang flags, as everywhere here); this makes any of them fail the build, in every
# target made below this point.
if(ASIO_WHEEL_WERROR)
  add_compile_options(-Werror)
endif()

if(NOT ASIO_WHEEL_TEST_FLAVOUR MATCHES "^(boost|standalone)$")
  message(FATAL_ERROR "ASIO_WHEEL_TEST_FLAVOUR is '${ASIO_WHEEL_TEST_FLAVOUR}': boost or standalone")
endif()
if(ASIO_WHEEL_TEST_FLAVOUR STREQUAL "standalone" AND NOT ASIO_WHEEL_MATRIX_LEG
   AND (ASIO_WHEEL_BUILD_TESTS OR ASIO_WHEEL_BUILD_EXAMPLES))
  message(FATAL_ERROR "ASIO_WHEEL_TEST_FLAVOUR=standalone needs ASIO_WHEEL_MATRIX_LEG=ON: "
    "the tests and examples outside a leg's subset (keepalive_chat, benchmarks, stress, fuzz) "
    "are Boost.Asio only")
endif()
# The standalone tests need the standalone library.
if(ASIO_WHEEL_TEST_FLAVOUR STREQUAL "standalone" AND ASIO_WHEEL_BUILD_STANDALONE STREQUAL "AUTO")
  set(ASIO_WHEEL_BUILD_STANDALONE ON)
endif()

# Boost.Beast, for the Beast stream's suite and the HTTP example and its tests; the
# library's compiled variant does not use it:
# the system Boost's, or the tree named by ASIO_WHEEL_BEAST_INCLUDE_DIR, which goes with the
# Boost.Asio tree of the same release (scripts/matrix: boost-1.87, boost-1.90), and with
# ASIO_WHEEL_BOOST_CORE_INCLUDE_DIR when that Beast needs a newer Boost.Core than the system's.
# Both are put before the system Boost, next to the Boost.Asio tree, for every Boost.Asio
# target of the build (the library's interface, below): a Beast tree adds nothing but
# boost/beast to the targets that do not use Beast, and every object of a program of the
# build, the library's included, sees the same Boost.Core.
foreach(var ASIO_WHEEL_BEAST_INCLUDE_DIR ASIO_WHEEL_BOOST_CORE_INCLUDE_DIR)
  if(${var})
    get_filename_component(${var} "${${var}}" ABSOLUTE BASE_DIR "${CMAKE_BINARY_DIR}")
  endif()
  # The system Boost's own folder (a build directory configured before these variables
  # existed has the Beast folder found there cached under this name) is no tree of its own.
  if(${var} AND "${${var}}" IN_LIST Boost_INCLUDE_DIRS)
    set(${var} "")
  endif()
endforeach()
asio_wheel_boost_tree("${ASIO_WHEEL_BEAST_INCLUDE_DIR}" boost/beast/version.hpp
  asio_wheel_beast_root)
set(asio_wheel_beast_version "")
if(asio_wheel_beast_root)
  file(STRINGS "${asio_wheel_beast_root}/boost/beast/version.hpp" line
    REGEX "^#define BOOST_BEAST_VERSION [0-9]+")
  if(line MATCHES "^#define BOOST_BEAST_VERSION ([0-9]+)")
    set(asio_wheel_beast_version ${CMAKE_MATCH_1})
  endif()
endif()
if(ASIO_WHEEL_BEAST_INCLUDE_DIR AND NOT asio_wheel_beast_version)
  message(FATAL_ERROR "asio_wheel: no Boost.Beast in ASIO_WHEEL_BEAST_INCLUDE_DIR "
    "'${ASIO_WHEEL_BEAST_INCLUDE_DIR}' (boost/beast/version.hpp missing): name the folder holding boost/beast.hpp")
endif()
if(ASIO_WHEEL_BOOST_CORE_INCLUDE_DIR AND NOT IS_DIRECTORY "${ASIO_WHEEL_BOOST_CORE_INCLUDE_DIR}/boost/core")
  message(FATAL_ERROR "asio_wheel: no Boost.Core in ASIO_WHEEL_BOOST_CORE_INCLUDE_DIR "
    "'${ASIO_WHEEL_BOOST_CORE_INCLUDE_DIR}' (boost/core/ missing)")
endif()
if((ASIO_WHEEL_BEAST_INCLUDE_DIR OR ASIO_WHEEL_BOOST_CORE_INCLUDE_DIR)
   AND ASIO_WHEEL_TEST_FLAVOUR STREQUAL "standalone")
  message(FATAL_ERROR "asio_wheel: ASIO_WHEEL_BEAST_INCLUDE_DIR and ASIO_WHEEL_BOOST_CORE_INCLUDE_DIR "
    "are for the Boost.Asio flavour (Beast needs Boost.Asio); ASIO_WHEEL_TEST_FLAVOUR is standalone")
endif()
# A matrix leg builds the Beast stream's suite and the HTTP example with its tests only when
# it names a Beast tree, or compiles against a whole Boost of its own: its Beast must be the
# release of its Asio.
set(asio_wheel_leg_beast OFF)
if(ASIO_WHEEL_MATRIX_LEG AND (ASIO_WHEEL_BEAST_INCLUDE_DIR OR ASIO_WHEEL_MATRIX_WHOLE_BOOST))
  set(asio_wheel_leg_beast ON)
endif()
# The WebSocket chat example (example/websocket_chat) and its tests need Beast 345 (Boost
# 1.81), the first whose stream timers follow the I/O executor's type (what the example
# routes to the wheel); its load client also uses as_tuple (Boost 1.80). On the legs with an
# older Beast (boost-1.74, 1.77, 1.80) it is not built.
set(asio_wheel_leg_websocket_chat OFF)
if(asio_wheel_leg_beast AND asio_wheel_beast_version AND asio_wheel_beast_version GREATER_EQUAL 345)
  set(asio_wheel_leg_websocket_chat ON)
endif()


# After the libraries are made: the Beast and Boost.Core trees on the Boost.Asio target (for
# the build tree only: not recorded in the installed package, whose users compile the Beast
# stream with their own Boost), the library the tests and examples link
# (ASIO_WHEEL_TEST_LIBRARY) and the version of its Asio (asio_wheel_test_asio_version), and
# the configure report of the Beast used.
macro(asio_wheel_apply_test_settings)
  foreach(dir ASIO_WHEEL_BOOST_CORE_INCLUDE_DIR ASIO_WHEEL_BEAST_INCLUDE_DIR)
    if(${dir})
      get_target_property(asio_wheel_type asio_wheel TYPE)
      if(asio_wheel_type STREQUAL "INTERFACE_LIBRARY")
        target_include_directories(asio_wheel SYSTEM BEFORE INTERFACE $<BUILD_INTERFACE:${${dir}}>)
      else()
        target_include_directories(asio_wheel SYSTEM BEFORE PUBLIC $<BUILD_INTERFACE:${${dir}}>)
      endif()
    endif()
  endforeach()
  if(ASIO_WHEEL_TEST_FLAVOUR STREQUAL "standalone" AND NOT asio_wheel_standalone)
    message(FATAL_ERROR "ASIO_WHEEL_TEST_FLAVOUR=standalone needs the standalone library "
      "(ASIO_WHEEL_BUILD_STANDALONE is ${ASIO_WHEEL_BUILD_STANDALONE})")
  endif()
  if(ASIO_WHEEL_TEST_FLAVOUR STREQUAL "standalone")
    set(ASIO_WHEEL_TEST_LIBRARY asio_wheel::asio_wheel_standalone)
    set(asio_wheel_test_asio_version "${asio_wheel_standalone_asio_version}")
  else()
    set(ASIO_WHEEL_TEST_LIBRARY asio_wheel::asio_wheel)
    set(asio_wheel_test_asio_version "${asio_wheel_boost_asio_version}")
  endif()
  # The Asio the tests and examples are compiled against, as 1.26.0: not every Asio has all
  # they use (per-operation cancellation and with it cancel_after came with 1.19, asio::spawn
  # moved from Boost.Coroutine to Boost.Context in 1.23; include/asio_wheel/detail/config.hpp).
  string(REGEX MATCH "^[0-9.]+" asio_wheel_test_asio_version "${asio_wheel_test_asio_version}")
  # clang with GCC's standard library gets no co_await from an Asio older than 1.26, which
  # looks for <experimental/coroutine>; the tests use coroutines, so Asio's switch is set as a
  # clang user of those releases would (test/clang_co_await.hpp, C++20 sources only).
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang" AND asio_wheel_test_asio_version VERSION_LESS 1.26)
    add_compile_options(-include ${PROJECT_SOURCE_DIR}/test/clang_co_await.hpp)
  endif()
  if(asio_wheel_beast_version)
    set(asio_wheel_core_note "")
    if(ASIO_WHEEL_BOOST_CORE_INCLUDE_DIR)
      set(asio_wheel_core_note ", Boost.Core from ${ASIO_WHEEL_BOOST_CORE_INCLUDE_DIR}")
    endif()
    message(STATUS "asio_wheel: Boost.Beast ${asio_wheel_beast_version} (BOOST_BEAST_VERSION) "
      "from ${asio_wheel_beast_root}${asio_wheel_core_note}")
  endif()
endmacro()
