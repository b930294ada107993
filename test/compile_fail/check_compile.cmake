# cmake -DCOMPILER=c++ -DARGS=arg1|arg2|... -DSOURCE=file.cpp
#       (-DEXPECT=regex | -DEXPECT_SUCCESS=ON)
#       [-DSYSROOT=dir -DSYSROOT_HIDE=boost/asio|boost/asio.hpp]
#       -P check_compile.cmake
#
# A compile-fail test (test/compile_fail/CMakeLists.txt): compiles SOURCE (syntax only) with
# COMPILER and ARGS, and checks what the compiler said. With EXPECT: the compile fails with
# exactly one error line (a line with "error:"; the source excerpts and the "In instantiation
# of" / "required from here" context lines GCC prints around it are not errors), and that
# line matches EXPECT: the one-line message the library promises, never a page of template
# errors. With EXPECT_SUCCESS: the compile succeeds with no error, which proves that the
# source is otherwise valid (so that the failing test cannot fail for another reason).
#
# SYSROOT: a system include tree in which some headers are missing, made here and passed as
# --sysroot: DIR/usr/include holds a link to each entry of /usr/include but the SYSROOT_HIDE
# paths (relative to /usr/include, all below one folder), so that a header installed on this
# machine is absent for this compile alone (Boost.Asio, to show the library on a machine with
# standalone Asio only).

# A script run with -P starts with every policy unset (OLD): if(... IN_LIST ...) needs CMP0057.
cmake_minimum_required(VERSION 3.16)

string(REPLACE "|" ";" args "${ARGS}")

if(SYSROOT)
  string(REPLACE "|" ";" hide "${SYSROOT_HIDE}")
  list(GET hide 0 first)
  string(REGEX REPLACE "/.*" "" parent "${first}")
  file(REMOVE_RECURSE "${SYSROOT}")
  file(MAKE_DIRECTORY "${SYSROOT}/usr/include/${parent}")
  file(GLOB entries RELATIVE /usr/include /usr/include/*)
  foreach(entry IN LISTS entries)
    if(NOT entry STREQUAL parent)
      file(CREATE_LINK "/usr/include/${entry}" "${SYSROOT}/usr/include/${entry}" SYMBOLIC)
    endif()
  endforeach()
  file(GLOB entries RELATIVE /usr/include "/usr/include/${parent}/*")
  foreach(entry IN LISTS entries)
    if(NOT entry IN_LIST hide)
      file(CREATE_LINK "/usr/include/${entry}" "${SYSROOT}/usr/include/${entry}" SYMBOLIC)
    endif()
  endforeach()
  list(APPEND args "--sysroot=${SYSROOT}")
endif()

execute_process(COMMAND ${COMPILER} ${args} -fsyntax-only ${SOURCE}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)

# The error lines: GCC's "file:line:col: error: ..." and "fatal error: ...".
string(REPLACE ";" "\\;" lines "${out}")
string(REPLACE "\n" ";" lines "${lines}")
set(errors "")
foreach(line IN LISTS lines)
  if(line MATCHES "(^|: )(fatal )?error: ")
    list(APPEND errors "${line}")
  endif()
endforeach()
list(LENGTH errors count)
get_filename_component(name "${SOURCE}" NAME)

if(EXPECT_SUCCESS)
  if(NOT rc EQUAL 0 OR NOT count EQUAL 0)
    message(FATAL_ERROR "compile: ${name} did not compile (exit ${rc}, ${count} errors):\n${out}")
  endif()
  message(STATUS "compile: ${name} compiles, as it must")
  return()
endif()

if(rc EQUAL 0)
  message(FATAL_ERROR "compile_fail: ${name} compiled, but must stop with: ${EXPECT}\n${out}")
endif()
if(NOT count EQUAL 1)
  message(FATAL_ERROR "compile_fail: ${name}: ${count} error lines, not the one line "
    "'${EXPECT}':\n${out}")
endif()
if(NOT errors MATCHES "${EXPECT}")
  message(FATAL_ERROR "compile_fail: ${name}: the one error is not '${EXPECT}':\n${out}")
endif()
message(STATUS "compile_fail: ${name} stops with one line, as it must:\n  ${errors}")
