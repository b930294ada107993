# cmake -DGENERATOR=... -DMAKE_PROGRAM=ninja -DBUILD_DIR=... -DSOURCE_DIR=...
#       -DBOOST_ASIO_ROOT=dir -DSTANDALONE_ASIO_ROOT=dir
#       -DBOOST_TARGETS=t1,t2 -DSTANDALONE_TARGETS=t3,t4 -P check_asio_headers.cmake
#
# Reads the headers each object file was compiled with from Ninja's dependency log
# (`ninja -t deps`, the compiler's own -MD output) and checks, for every object of the
# named targets:
#   Boost flavour:      every Boost.Asio header it included came from
#                       BOOST_ASIO_ROOT/boost/asio (the system Boost's Asio or the tree of a
#                       matrix leg), none from another Boost.Asio;
#   standalone flavour: every standalone Asio header it included came from
#                       STANDALONE_ASIO_ROOT/asio, and it included no boost/asio or
#                       boost/system header at all;
# and that every target was built and each flavour checked had objects including its Asio.
# So a matrix leg cannot pass while compiled against another Asio than the one it names,
# and the standalone flavour keeps its promise of no Boost.Asio and no Boost.System.
# Prints "asio_headers: SKIPPED" (CTest: skipped) when the build is not a Ninja build.

if(NOT GENERATOR MATCHES "Ninja")
  message("asio_headers: SKIPPED: the check reads Ninja's dependency log; "
    "this build uses '${GENERATOR}'")
  return()
endif()

string(REPLACE "," ";" boost_targets "${BOOST_TARGETS}")
string(REPLACE "," ";" standalone_targets "${STANDALONE_TARGETS}")
if(NOT boost_targets AND NOT standalone_targets)
  message(FATAL_ERROR "asio_headers: no target to check")
endif()

execute_process(COMMAND ${MAKE_PROGRAM} -C ${BUILD_DIR} -t deps
  OUTPUT_VARIABLE log RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "asio_headers: ${MAKE_PROGRAM} -t deps failed (${rc}): ${err}")
endif()
string(REPLACE ";" "\\;" log "${log}")
string(REPLACE "\n" ";" lines "${log}")

function(target_regex out)
  list(JOIN ARGN "|" alternatives)
  string(REPLACE "+" "\\+" alternatives "${alternatives}")
  set(${out} "(^|/)CMakeFiles/(${alternatives})\\.dir/" PARENT_SCOPE)
endfunction()
target_regex(boost_regex ${boost_targets})
target_regex(standalone_regex ${standalone_targets})

# The folder a Boost.Asio header must come from, with any link in the path resolved: the
# compiler may record the resolved path (the mingw-w64 build sees /usr/include/boost through
# a link, cmake/mingw-w64.cmake).
get_filename_component(boost_asio_dir "${BOOST_ASIO_ROOT}/boost/asio" REALPATH)

set(failures "")
set(object "")
set(flavour "")
set(checked_objects "")

# Closes the record of the current object. An object may include no Asio header at all
# (e.g. the chat tests, which talk to the server over sockets); each flavour checked must
# have objects that did (asio_users_boost, asio_users_standalone).
set(asio_users_boost 0)
set(asio_users_standalone 0)
macro(finish_object)
  if(flavour)
    if(asio_count EQUAL 0)
      message(STATUS "${object}: ${flavour} flavour, no Asio header")
    else()
      math(EXPR asio_users_${flavour} "${asio_users_${flavour}} + 1")
      message(STATUS "${object}: ${flavour} flavour, ${asio_count} Asio headers, all from ${root}")
    endif()
  endif()
  set(flavour "")
endmacro()

foreach(line IN LISTS lines)
  if(line MATCHES "^([^ ].*): #deps")
    finish_object()
    set(object "${CMAKE_MATCH_1}")
    set(asio_count 0)
    if(boost_targets AND object MATCHES "${boost_regex}")
      set(flavour boost)
      set(root "${boost_asio_dir}/")
      list(APPEND checked_objects "${object}")
    elseif(standalone_targets AND object MATCHES "${standalone_regex}")
      set(flavour standalone)
      set(root "${STANDALONE_ASIO_ROOT}/asio/")
      list(APPEND checked_objects "${object}")
    endif()
  elseif(flavour AND line MATCHES "^ +(.+)$")
    set(dep "${CMAKE_MATCH_1}")
    string(FIND "${dep}" "${root}" at)
    if(at EQUAL 0)
      math(EXPR asio_count "${asio_count} + 1")
    elseif(flavour STREQUAL "boost")
      # Every Boost.Asio header includes boost/asio/detail/config.hpp.
      if(dep MATCHES "(^|/)boost/asio/(version|detail/config)\\.hpp$")
        list(APPEND failures "${object}: Boost.Asio from elsewhere: ${dep}")
      endif()
    else()
      if(dep MATCHES "(^|/)boost/(asio|system)(/|\\.hpp$)")
        list(APPEND failures "${object}: includes a Boost.Asio/Boost.System header: ${dep}")
      elseif(dep MATCHES "(^|/)asio/(version|detail/config)\\.hpp$")
        list(APPEND failures "${object}: standalone Asio from elsewhere: ${dep}")
      endif()
    endif()
  endif()
endforeach()
finish_object()

# Every target must have been built and recorded.
foreach(target IN LISTS boost_targets standalone_targets)
  set(found OFF)
  foreach(object IN LISTS checked_objects)
    if(object MATCHES "(^|/)CMakeFiles/${target}\\.dir/")
      set(found ON)
      break()
    endif()
  endforeach()
  if(NOT found)
    list(APPEND failures "target ${target}: no object in Ninja's dependency log (not built?)")
  endif()
endforeach()

if(boost_targets AND asio_users_boost EQUAL 0)
  list(APPEND failures "no object of the Boost flavour included Boost.Asio from ${BOOST_ASIO_ROOT}")
endif()
if(standalone_targets AND asio_users_standalone EQUAL 0)
  list(APPEND failures "no object of the standalone flavour included Asio from ${STANDALONE_ASIO_ROOT}")
endif()

list(LENGTH checked_objects n)
if(failures)
  list(JOIN failures "\n  " text)
  message(FATAL_ERROR "asio_headers: FAILED:\n  ${text}")
endif()
message(STATUS "asio_headers: passed, ${n} objects checked")
if(boost_targets)
  message(STATUS "  Boost flavour (${BOOST_TARGETS}): Boost.Asio from ${BOOST_ASIO_ROOT}/boost/asio only")
endif()
if(standalone_targets)
  message(STATUS "  standalone flavour (${STANDALONE_TARGETS}): standalone Asio from "
    "${STANDALONE_ASIO_ROOT}/asio only, no boost/asio or boost/system header")
endif()
