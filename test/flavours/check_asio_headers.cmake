# cmake -DGENERATOR=... -DMAKE_PROGRAM=ninja -DBUILD_DIR=... -DSOURCE_DIR=...
#       -DBOOST_ASIO_ROOT=dir -DSTANDALONE_ASIO_ROOT=dir
#       -DBOOST_TARGETS=t1,t2 -DSTANDALONE_TARGETS=t3,t4
#       [-DBEAST_ROOT=dir -DBEAST_VERSION=n -DBEAST_TARGETS=t5,t6] [-DCORE_ROOT=dir]
#       [-DWHOLE_BOOST_ROOT=dir] -P check_asio_headers.cmake
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
#   Beast targets:      every Boost.Beast header it included came from BEAST_ROOT/boost/beast
#                       (the system Boost's Beast or the tree of a matrix leg), and each
#                       target has an object that included Beast;
#   with CORE_ROOT:     every header of the Boost-flavour objects that the Boost.Core tree
#                       CORE_ROOT holds (boost/core/..., boost/detail/..., ...) came from it;
#   with WHOLE_BOOST_ROOT (a leg on a whole Boost, boost-1.74): every Boost header that any
#                       object of the build included (boost/..., of any target) came from
#                       WHOLE_BOOST_ROOT/boost, none from the system's Boost, which lies
#                       behind it on the include path and would fill in, unseen, any header
#                       the older Boost lacks;
# and that every target was built and each flavour checked had objects including its Asio.
# So a matrix leg cannot pass while compiled against another Asio (or Beast) than the one it
# names, and the standalone flavour keeps its promise of no Boost.Asio and no Boost.System.
# Prints "asio_headers: SKIPPED" (CTest: skipped) when the build is not a Ninja build.

if(NOT GENERATOR MATCHES "Ninja")
  message("asio_headers: SKIPPED: the check reads Ninja's dependency log; "
    "this build uses '${GENERATOR}'")
  return()
endif()

string(REPLACE "," ";" boost_targets "${BOOST_TARGETS}")
string(REPLACE "," ";" standalone_targets "${STANDALONE_TARGETS}")
string(REPLACE "," ";" beast_targets "${BEAST_TARGETS}")
if(beast_targets AND NOT BEAST_ROOT)
  message(FATAL_ERROR "asio_headers: Beast targets (${BEAST_TARGETS}) but no Beast root")
endif()
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
target_regex(beast_regex ${beast_targets})

# The folder a Boost.Asio header must come from, with any link in the path resolved: the
# compiler may record the resolved path (the mingw-w64 build sees /usr/include/boost through
# a link, cmake/mingw-w64.cmake).
get_filename_component(boost_asio_dir "${BOOST_ASIO_ROOT}/boost/asio" REALPATH)
if(beast_targets)
  # boost/beast.hpp and boost/beast/...
  get_filename_component(beast_dir "${BEAST_ROOT}/boost/beast" REALPATH)
endif()
# The headers the Boost.Core tree holds, as variables core_has_<path below its root>.
if(CORE_ROOT)
  get_filename_component(core_dir "${CORE_ROOT}" REALPATH)
  set(core_dir "${core_dir}/")
  file(GLOB_RECURSE core_files RELATIVE "${core_dir}" "${core_dir}boost/*")
  if(NOT core_files)
    message(FATAL_ERROR "asio_headers: no header in the Boost.Core tree ${CORE_ROOT}")
  endif()
  foreach(f IN LISTS core_files)
    set("core_has_${f}" ON)
  endforeach()
endif()

set(failures "")
set(object "")
set(flavour "")
set(checked_objects "")

# Closes the record of the current object. An object may include no Asio header at all
# (e.g. the chat tests, which talk to the server over sockets); each flavour checked must
# have objects that did (asio_users_boost, asio_users_standalone).
set(asio_users_boost 0)
set(asio_users_standalone 0)
set(beast_users "")
set(core_users 0)
macro(finish_object)
  if(flavour)
    if(asio_count EQUAL 0)
      message(STATUS "${object}: ${flavour} flavour, no Asio header")
    else()
      math(EXPR asio_users_${flavour} "${asio_users_${flavour}} + 1")
      message(STATUS "${object}: ${flavour} flavour, ${asio_count} Asio headers, all from ${root}")
    endif()
  endif()
  if(beast_target)
    if(beast_count EQUAL 0)
      message(STATUS "${object}: no Beast header")
    else()
      list(APPEND beast_users ${beast_target})
      message(STATUS "${object}: ${beast_count} Beast headers, all from ${beast_dir}")
    endif()
  endif()
  if(core_count GREATER 0)
    math(EXPR core_users "${core_users} + 1")
    message(STATUS "${object}: ${core_count} headers of the Boost.Core tree, all from ${core_dir}")
  endif()
  set(flavour "")
  set(beast_target "")
  set(core_count 0)
endmacro()

# WHOLE_BOOST_ROOT: every object's Boost headers, whatever its target.
if(WHOLE_BOOST_ROOT)
  get_filename_component(whole_boost_dir "${WHOLE_BOOST_ROOT}/boost" REALPATH)
  set(whole_boost_dir "${whole_boost_dir}/")
  set(whole_object "")
  set(whole_users 0)
  foreach(line IN LISTS lines)
    if(line MATCHES "^([^ ].*): #deps")
      set(whole_object "${CMAKE_MATCH_1}")
      set(whole_counted OFF)
    elseif(line MATCHES "^ +(.*(^|/)boost/.+)$")
      set(dep "${CMAKE_MATCH_1}")
      string(FIND "${dep}" "${whole_boost_dir}" at)
      if(NOT at EQUAL 0)
        get_filename_component(real "${dep}" REALPATH)
        string(FIND "${real}" "${whole_boost_dir}" at)
      endif()
      if(NOT at EQUAL 0)
        list(APPEND failures "${whole_object}: a Boost header not from ${whole_boost_dir}: ${dep}")
      elseif(NOT whole_counted)
        set(whole_counted ON)
        math(EXPR whole_users "${whole_users} + 1")
      endif()
    endif()
  endforeach()
  if(whole_users EQUAL 0)
    list(APPEND failures "no object included a Boost header from ${whole_boost_dir}")
  endif()
endif()

foreach(line IN LISTS lines)
  if(line MATCHES "^([^ ].*): #deps")
    finish_object()
    set(object "${CMAKE_MATCH_1}")
    set(asio_count 0)
    set(beast_count 0)
    set(core_count 0)
    if(beast_targets AND object MATCHES "${beast_regex}")
      set(beast_target "${CMAKE_MATCH_2}")
    endif()
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
    if(beast_target AND dep MATCHES "(^|/)boost/beast(/|\\.hpp$)")
      string(FIND "${dep}" "${beast_dir}" at)
      if(at EQUAL 0)
        math(EXPR beast_count "${beast_count} + 1")
      else()
        list(APPEND failures "${object}: Boost.Beast from elsewhere than ${beast_dir}: ${dep}")
      endif()
    endif()
    if(CORE_ROOT AND flavour STREQUAL "boost" AND dep MATCHES "(^|/)(boost/.+)$")
      set(below "${CMAKE_MATCH_2}")
      string(FIND "${dep}" "${core_dir}" at)
      if(at EQUAL 0)
        math(EXPR core_count "${core_count} + 1")
      elseif(DEFINED "core_has_${below}")
        list(APPEND failures "${object}: ${below} not from the Boost.Core tree ${core_dir}: ${dep}")
      endif()
    endif()
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
foreach(target IN LISTS beast_targets)
  list(FIND beast_users "${target}" at)
  if(at EQUAL -1)
    list(APPEND failures "target ${target}: no object included Boost.Beast from ${beast_dir}")
  endif()
endforeach()
if(CORE_ROOT AND boost_targets AND core_users EQUAL 0)
  list(APPEND failures "no object of the Boost flavour included a header from the Boost.Core tree ${CORE_ROOT}")
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
if(beast_targets)
  message(STATUS "  Beast (${BEAST_TARGETS}): Boost.Beast ${BEAST_VERSION} from ${BEAST_ROOT}/boost/beast only")
endif()
if(CORE_ROOT)
  message(STATUS "  Boost.Core: every header the tree ${CORE_ROOT} holds from it only (${core_users} objects used it)")
endif()
if(WHOLE_BOOST_ROOT)
  message(STATUS "  every Boost header of the build (${whole_users} objects) from ${whole_boost_dir} only")
endif()
if(standalone_targets)
  message(STATUS "  standalone flavour (${STANDALONE_TARGETS}): standalone Asio from "
    "${STANDALONE_ASIO_ROOT}/asio only, no boost/asio or boost/system header")
endif()
