# cmake -DMODE=<mode> -DFLAVOUR=boost|standalone -DSOURCE_DIR=... -DWORK_DIR=...
#       -DGENERATOR=... -DCXX=... -DVERSION=<major>.<minor>.<patch>
#       [-DBOOST_ASIO_INCLUDE_DIR=...] [-DSTANDALONE_ASIO_INCLUDE_DIR=...]
#       [-DIO_URING=ON] [-DSEPARATE=ON] -P run_consumer.cmake
# Builds the consumer of consumer/ (main.cpp or main_standalone.cpp, and second.cpp) one way a
# user would, then runs it. MODE:
#   find_package     asio-wheel built and installed into WORK_DIR/prefix (with SEPARATE=ON,
#                    its compiled variant), the consumer's CMake finds it there
#   add_subdirectory the consumer's CMake adds the source tree
#   fetch_content    the consumer's CMake fetches the source tree's git repository, at its
#                    HEAD commit, with FetchContent (SOURCE_DIR must be a git checkout: the
#                    test builds what is committed)
#   plain            the compiler alone, -I include and the Asio folder, nothing defined but
#                    ASIO_STANDALONE for standalone Asio: no build system, no install; with
#                    -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Werror, so that the
#                    library's code (all of it in headers, the .ipp files included) gives its
#                    users no warning
#   separate         the same, with ASIO_WHEEL_SEPARATE_COMPILATION and one more translation
#                    unit including <asio_wheel/src.hpp> (consumer/asio_wheel_src.cpp)
#   pkg_config       asio-wheel installed into WORK_DIR/prefix, the compiler given
#                    `pkg-config --cflags --libs` of its .pc file
#   meson            the same install, the consumer built by Meson (consumer/meson.build),
#                    which finds it through pkg-config
# Each compile of second.cpp checks ASIO_WHEEL_VERSION against the version the mode finds:
# find_package's asio_wheel_VERSION (find_package), `pkg-config --modversion` (pkg_config,
# meson); the other modes have none of their own and are given VERSION, the version of the
# build running the test (CMakeLists.txt reads it from the header).

function(run)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " command "${ARGV}")
    message(FATAL_ERROR "failed (${rc}): ${command}")
  endif()
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR}/consumer)
set(consumer ${SOURCE_DIR}/test/cmake_test/consumer)
if(FLAVOUR STREQUAL "standalone")
  set(sources ${consumer}/main_standalone.cpp ${consumer}/second.cpp)
else()
  set(sources ${consumer}/main.cpp ${consumer}/second.cpp)
endif()

# The same Asio as the build running this test.
set(asio_args -DASIO_WHEEL_IO_URING=${IO_URING})
if(BOOST_ASIO_INCLUDE_DIR)
  list(APPEND asio_args -DASIO_WHEEL_BOOST_ASIO_INCLUDE_DIR=${BOOST_ASIO_INCLUDE_DIR})
endif()
if(FLAVOUR STREQUAL "standalone")
  list(APPEND asio_args -DASIO_WHEEL_BUILD_STANDALONE=ON
    -DASIO_WHEEL_STANDALONE_ASIO_INCLUDE_DIR=${STANDALONE_ASIO_INCLUDE_DIR})
else()
  list(APPEND asio_args -DASIO_WHEEL_BUILD_STANDALONE=OFF)
endif()
if(SEPARATE)
  list(APPEND asio_args -DASIO_WHEEL_SEPARATE_COMPILATION=ON)
endif()

# The compiler's flags for that Asio, for the modes without CMake.
set(compile_flags -std=c++17)
set(warning_flags -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Werror)
if(FLAVOUR STREQUAL "standalone")
  list(APPEND compile_flags -DASIO_STANDALONE)
  if(IO_URING)
    list(APPEND compile_flags -DASIO_HAS_IO_URING -DASIO_DISABLE_EPOLL)
  endif()
elseif(IO_URING)
  list(APPEND compile_flags -DBOOST_ASIO_HAS_IO_URING -DBOOST_ASIO_DISABLE_EPOLL)
endif()
set(link_flags -pthread)
if(IO_URING)
  list(APPEND link_flags -luring)
endif()
# The rest of Boost (Intrusive) is the compiler's own (Debian: /usr/include).
set(asio_include_flags "")
if(FLAVOUR STREQUAL "standalone")
  set(asio_dir "${STANDALONE_ASIO_INCLUDE_DIR}")
else()
  set(asio_dir "${BOOST_ASIO_INCLUDE_DIR}")
endif()
if(asio_dir AND NOT asio_dir STREQUAL "/usr/include")
  set(asio_include_flags -isystem ${asio_dir})
endif()

# ASIO_WHEEL_EXPECTED_MAJOR, _MINOR and _PATCH of a version <major>.<minor>.<patch>, as the
# compiler's -D flags, for second.cpp's check of ASIO_WHEEL_VERSION.
function(version_flags version from out)
  if(NOT version MATCHES "^([0-9]+)\\.([0-9]+)\\.([0-9]+)$")
    message(FATAL_ERROR "asio-wheel's version '${version}' (${from}) is not "
      "<major>.<minor>.<patch>")
  endif()
  message(STATUS "asio-wheel ${version} (${from}), checked against ASIO_WHEEL_VERSION")
  set(${out} -DASIO_WHEEL_EXPECTED_MAJOR=${CMAKE_MATCH_1}
    -DASIO_WHEEL_EXPECTED_MINOR=${CMAKE_MATCH_2} -DASIO_WHEEL_EXPECTED_PATCH=${CMAKE_MATCH_3}
    PARENT_SCOPE)
endfunction()

# Installs asio-wheel into WORK_DIR/prefix.
macro(install_asio_wheel)
  run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/lib -G ${GENERATOR}
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=${WORK_DIR}/prefix
      -DASIO_WHEEL_BUILD_TESTS=OFF -DASIO_WHEEL_BUILD_EXAMPLES=OFF
      -DASIO_WHEEL_BUILD_BENCHMARKS=OFF ${asio_args})
  run(${CMAKE_COMMAND} --build ${WORK_DIR}/lib)
  run(${CMAKE_COMMAND} --install ${WORK_DIR}/lib)
endmacro()

# The pkg-config name and search path of the installed flavour.
set(pc_name asio_wheel)
if(FLAVOUR STREQUAL "standalone")
  set(pc_name asio_wheel_standalone)
endif()
set(pc_env "PKG_CONFIG_PATH=${WORK_DIR}/prefix/lib/pkgconfig")

if(MODE STREQUAL "find_package")
  install_asio_wheel()
  # The consumer gets no Asio setting: the installed package config finds it.
  run(${CMAKE_COMMAND} -S ${consumer} -B ${WORK_DIR}/consumer -G ${GENERATOR}
      -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCONSUMER_MODE=find_package
      -DCONSUMER_FLAVOUR=${FLAVOUR})
  run(${CMAKE_COMMAND} --build ${WORK_DIR}/consumer)
elseif(MODE STREQUAL "add_subdirectory")
  run(${CMAKE_COMMAND} -S ${consumer} -B ${WORK_DIR}/consumer -G ${GENERATOR}
      -DCONSUMER_MODE=add_subdirectory -DCONSUMER_FLAVOUR=${FLAVOUR}
      -DCONSUMER_VERSION=${VERSION}
      -DASIO_WHEEL_SOURCE_DIR=${SOURCE_DIR} ${asio_args})
  run(${CMAKE_COMMAND} --build ${WORK_DIR}/consumer)
elseif(MODE STREQUAL "fetch_content")
  execute_process(COMMAND git -C ${SOURCE_DIR} rev-parse HEAD
    OUTPUT_VARIABLE head OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "fetch_content: ${SOURCE_DIR} is not a git checkout")
  endif()
  run(${CMAKE_COMMAND} -S ${consumer} -B ${WORK_DIR}/consumer -G ${GENERATOR}
      -DCONSUMER_MODE=fetch_content -DCONSUMER_FLAVOUR=${FLAVOUR}
      -DCONSUMER_VERSION=${VERSION}
      -DASIO_WHEEL_GIT_REPOSITORY=${SOURCE_DIR} -DASIO_WHEEL_GIT_TAG=${head} ${asio_args})
  run(${CMAKE_COMMAND} --build ${WORK_DIR}/consumer)
elseif(MODE STREQUAL "plain")
  version_flags("${VERSION}" "the project's" version_defines)
  run(${CXX} ${compile_flags} ${warning_flags} ${version_defines} -I ${SOURCE_DIR}/include
      ${asio_include_flags} ${sources}
      ${link_flags} -o ${WORK_DIR}/consumer/consumer)
elseif(MODE STREQUAL "separate")
  version_flags("${VERSION}" "the project's" version_defines)
  run(${CXX} ${compile_flags} ${warning_flags} ${version_defines}
      -DASIO_WHEEL_SEPARATE_COMPILATION -I ${SOURCE_DIR}/include ${asio_include_flags}
      ${sources} ${consumer}/asio_wheel_src.cpp
      ${link_flags} -o ${WORK_DIR}/consumer/consumer)
elseif(MODE STREQUAL "pkg_config")
  install_asio_wheel()
  execute_process(COMMAND ${CMAKE_COMMAND} -E env ${pc_env} pkg-config --cflags --libs ${pc_name}
    OUTPUT_VARIABLE pc_flags OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "pkg-config found no ${pc_name} in ${WORK_DIR}/prefix/lib/pkgconfig")
  endif()
  message(STATUS "pkg-config --cflags --libs ${pc_name}: ${pc_flags}")
  separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
  execute_process(COMMAND ${CMAKE_COMMAND} -E env ${pc_env} pkg-config --modversion ${pc_name}
    OUTPUT_VARIABLE pc_version OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "pkg-config --modversion ${pc_name} failed (${rc})")
  endif()
  version_flags("${pc_version}" "pkg-config --modversion ${pc_name}" version_defines)
  run(${CXX} -std=c++17 ${version_defines} ${sources} ${pc_flags}
      -o ${WORK_DIR}/consumer/consumer)
elseif(MODE STREQUAL "meson")
  install_asio_wheel()
  run(${CMAKE_COMMAND} -E env ${pc_env} meson setup ${WORK_DIR}/consumer ${consumer}
      -Dflavour=${FLAVOUR})
  run(ninja -C ${WORK_DIR}/consumer)
else()
  message(FATAL_ERROR "MODE=${MODE}: find_package, add_subdirectory, fetch_content, plain, "
    "separate, pkg_config or meson")
endif()
run(${WORK_DIR}/consumer/consumer)
