# Helpers of the top-level CMakeLists.txt for the two Asio flavours (not installed).

# asio_wheel_asio_version(FILE MACRO OUT): OUT = "1.28.2 (102802)" read from the version
# header FILE (MACRO: BOOST_ASIO_VERSION or ASIO_VERSION), or "" when FILE has none.
function(asio_wheel_asio_version file macro out)
  set(result "")
  if(EXISTS "${file}")
    file(STRINGS "${file}" line REGEX "^#define ${macro} [0-9]+")
    if(line MATCHES "^#define ${macro} ([0-9]+)")
      set(v ${CMAKE_MATCH_1})
      math(EXPR major "${v} / 100000")
      math(EXPR minor "${v} / 100 % 1000")
      math(EXPR patch "${v} % 100")
      set(result "${major}.${minor}.${patch} (${v})")
    endif()
  endif()
  set(${out} "${result}" PARENT_SCOPE)
endfunction()

# asio_wheel_boost_tree(NAMED HEADER OUT): OUT = NAMED (a header tree the user named), or
# else the folder of the system Boost (Boost_INCLUDE_DIRS) holding HEADER, or "".
function(asio_wheel_boost_tree named header out)
  set(result "${named}")
  if(NOT result)
    foreach(dir IN LISTS Boost_INCLUDE_DIRS)
      if(EXISTS "${dir}/${header}")
        set(result "${dir}")
        break()
      endif()
    endforeach()
  endif()
  set(${out} "${result}" PARENT_SCOPE)
endfunction()

# asio_wheel_register_flavour(TARGET FLAVOUR): TARGET's objects are compiled in FLAVOUR
# (boost|standalone); the test `asio_headers` checks which Asio headers they included.
function(asio_wheel_register_flavour target flavour)
  set_property(GLOBAL APPEND PROPERTY ASIO_WHEEL_${flavour}_FLAVOUR_TARGETS ${target})
endfunction()

# asio_wheel_beast_target(TARGET): TARGET compiles Boost.Beast (the Beast stream's suite, the
# HTTP example's programs): `asio_headers` checks that its objects took Beast from the
# configured Beast (ASIO_WHEEL_BEAST_INCLUDE_DIR's tree or the system Boost's).
function(asio_wheel_beast_target target)
  set_property(GLOBAL APPEND PROPERTY ASIO_WHEEL_BEAST_TARGETS ${target})
endfunction()

# The test `asio_headers` (test/flavours/check_asio_headers.cmake): from the compiler's
# dependency records (Ninja's), every object of a Boost-flavour target took its Boost.Asio
# headers from the configured Boost.Asio (the system Boost's, or the tree of a matrix leg),
# and every object of a standalone-flavour target took standalone Asio from the configured
# folder and included no boost/asio or boost/system header at all. The objects of the
# targets registered as Beast users took every Boost.Beast header from the configured Beast,
# and, with a Boost.Core tree (ASIO_WHEEL_BOOST_CORE_INCLUDE_DIR), every Boost-flavour object
# took from it each Boost.Core header that it holds. In a leg on a whole Boost of its own
# (ASIO_WHEEL_MATRIX_WHOLE_BOOST), every Boost header of every object came from that Boost.
function(asio_wheel_add_asio_headers_test)
  get_property(boost_targets GLOBAL PROPERTY ASIO_WHEEL_boost_FLAVOUR_TARGETS)
  get_property(standalone_targets GLOBAL PROPERTY ASIO_WHEEL_standalone_FLAVOUR_TARGETS)
  get_property(beast_targets GLOBAL PROPERTY ASIO_WHEEL_BEAST_TARGETS)
  if(ASIO_WHEEL_MATRIX_LEG)
    # Only the flavour the leg builds.
    set(${ASIO_WHEEL_TEST_FLAVOUR}_keep ON)
    if(NOT boost_keep)
      set(boost_targets "")
    endif()
    if(NOT standalone_keep)
      set(standalone_targets "")
    endif()
  endif()
  # A leg on a whole Boost of its own: no object may include a Boost header from elsewhere.
  set(asio_wheel_whole_boost_root "")
  if(ASIO_WHEEL_MATRIX_WHOLE_BOOST)
    set(asio_wheel_whole_boost_root "${Boost_INCLUDE_DIRS}")
  endif()
  string(REPLACE ";" "," boost_targets "${boost_targets}")
  string(REPLACE ";" "," standalone_targets "${standalone_targets}")
  string(REPLACE ";" "," beast_targets "${beast_targets}")
  add_test(NAME asio_headers
    COMMAND ${CMAKE_COMMAND}
      -DGENERATOR=${CMAKE_GENERATOR}
      -DMAKE_PROGRAM=${CMAKE_MAKE_PROGRAM}
      -DBUILD_DIR=${PROJECT_BINARY_DIR}
      -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
      -DBOOST_ASIO_ROOT=${asio_wheel_boost_asio_root}
      -DSTANDALONE_ASIO_ROOT=${ASIO_WHEEL_STANDALONE_ASIO_INCLUDE_DIR}
      -DBOOST_TARGETS=${boost_targets}
      -DSTANDALONE_TARGETS=${standalone_targets}
      -DBEAST_ROOT=${asio_wheel_beast_root}
      -DBEAST_VERSION=${asio_wheel_beast_version}
      -DBEAST_TARGETS=${beast_targets}
      -DCORE_ROOT=${ASIO_WHEEL_BOOST_CORE_INCLUDE_DIR}
      -DWHOLE_BOOST_ROOT=${asio_wheel_whole_boost_root}
      -P ${PROJECT_SOURCE_DIR}/test/flavours/check_asio_headers.cmake)
  # Without Ninja's dependency log there is nothing to read: reported as skipped by CTest.
  set_tests_properties(asio_headers PROPERTIES
    SKIP_REGULAR_EXPRESSION "asio_headers: SKIPPED" TIMEOUT 120)
endfunction()
