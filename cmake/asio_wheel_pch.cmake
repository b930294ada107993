# Precompiled headers for this repository's own tests, examples and benchmarks (issue 34):
# parsing Boost.Asio (and Boost.Beast) is most of the compile time of a test source (some 7 s
# of a TU at -O0 -g1, 11 s with Beast), paid again by every source of every target in each of
# the builds of scripts/test. A target whose sources include them gets them precompiled once
# (CMake's target_precompile_headers; Ninja builds the .gch per compiler and flags), or reuses
# the precompiled header of a target compiled with the same flags (REUSE_FROM: one .gch for
# the group). Included by cmake/asio_wheel_test_settings.cmake; the library's users never see it.
#
# What goes in: third-party headers only, so a library header that forgets an include still
# fails to compile (in the targets without a precompiled header, and with the option OFF):
#   the flavour's Asio, <boost/asio.hpp> or <asio.hpp> (a standalone object includes no
#   Boost.Asio header: the test asio_headers checks it), and <boost/beast.hpp> for the
#   targets that use Beast. Not Boost.Test: each test's module source defines
#   BOOST_TEST_MODULE before including <boost/test/unit_test.hpp>, which then defines the
#   test's main(); a precompiled unit_test.hpp would have been included without it.
# What does not get one: sources that define a macro changing what Asio or Beast declare
# (conformance_no_deprecated_test: BOOST_ASIO_NO_DEPRECATED), sources that include no Asio
# (the wheel's detail tests, the chat tests' process helpers), the compile-fail tests (their
# own compiler command lines), and single-source targets that would generate a .gch of their
# own (10 to 16 s, more than the parse they save) rather than reuse one: http_keepalive_test
# and websocket_chat_test each have one source that includes Asio, and cannot share a .gch
# (each defines a macro, the server programs' paths, that the other lacks: GCC refuses it).
#
# Options (cache variables):
#   ASIO_WHEEL_PRECOMPILE_HEADERS   ON (default): precompiled Asio and Beast for the targets
#                                   that call asio_wheel_precompile_headers(); OFF: none
option(ASIO_WHEEL_PRECOMPILE_HEADERS
  "Precompile Boost.Asio / standalone Asio (and Boost.Beast) for this repository's multi-source tests, examples and benchmarks" ON)

# asio_wheel_precompile_headers(TARGET FLAVOUR [BEAST] [REUSE_FROM DONOR]): TARGET (compiled
# in FLAVOUR, boost|standalone) gets its flavour's Asio precompiled, and Beast with BEAST; or,
# with REUSE_FROM, DONOR's precompiled header, which must hold the same (checked here) and be
# built with the same compile options, standard and build type as TARGET (GCC uses a .gch
# only when every macro defined at its making is defined alike: DONOR's definitions must be a
# subset of TARGET's). DONOR must be defined before TARGET.
function(asio_wheel_precompile_headers target flavour)
  if(NOT ASIO_WHEEL_PRECOMPILE_HEADERS)
    return()
  endif()
  cmake_parse_arguments(PARSE_ARGV 2 arg "BEAST" "REUSE_FROM" "")
  if(NOT flavour MATCHES "^(boost|standalone)$" OR arg_UNPARSED_ARGUMENTS
     OR (arg_BEAST AND flavour STREQUAL "standalone"))
    message(FATAL_ERROR "asio_wheel_precompile_headers(${target} ${flavour} ${ARGN}): "
      "FLAVOUR is boost or standalone, BEAST only with boost")
  endif()
  set(content ${flavour})
  if(arg_BEAST)
    string(APPEND content "+beast")
  endif()
  if(arg_REUSE_FROM)
    get_target_property(donor_content ${arg_REUSE_FROM} ASIO_WHEEL_PCH_CONTENT)
    if(NOT donor_content STREQUAL content)
      message(FATAL_ERROR "asio_wheel_precompile_headers: ${target} (${content}) cannot reuse the "
        "precompiled header of ${arg_REUSE_FROM} (${donor_content})")
    endif()
    target_precompile_headers(${target} REUSE_FROM ${arg_REUSE_FROM})
  else()
    if(flavour STREQUAL "standalone")
      set(headers <asio.hpp>)
    else()
      set(headers <boost/asio.hpp>)
    endif()
    if(arg_BEAST)
      list(APPEND headers <boost/beast.hpp>)
    endif()
    target_precompile_headers(${target} PRIVATE ${headers})
  endif()
  set_target_properties(${target} PROPERTIES ASIO_WHEEL_PCH_CONTENT ${content})
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # -fpch-deps: an object's dependency record (Ninja's, which asio_headers reads) lists the
    # headers inside the .gch, as Clang's does by default. CMake adds -Winvalid-pch: a .gch
    # that GCC cannot use (made with other flags) is named in the build's output rather than
    # silently replaced by parsing the headers; a warning even under -Werror, for it costs
    # time, not correctness.
    target_compile_options(${target} PRIVATE -fpch-deps -Wno-error=invalid-pch)
  endif()
endfunction()
