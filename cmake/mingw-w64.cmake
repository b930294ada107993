# Toolchain file: cross-build for Windows x64 with mingw-w64 on Debian 12, the tests run
# under Wine. Used by scripts/windows:
#   cmake -S . -B build-windows -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64.cmake
#   cmake --build build-windows && ctest --test-dir build-windows
#
# - Compiler: x86_64-w64-mingw32-g++-posix (package g++-mingw-w64-x86-64-posix). The -win32
#   variant has no std::thread.
# - Asio takes its IOCP backend (BOOST_ASIO_HAS_IOCP), as on any Windows.
# - Boost: the system's Boost 1.81 headers (libboost1.81-dev), seen through a folder that holds
#   only boost/ (a link to /usr/include/boost), because -I/usr/include would put glibc's
#   headers in front of mingw's. There is no Windows build of Boost's libraries: the tests
#   compile what they need of Boost.Test and Boost.Context from test/windows/.
# - Programs are linked statically, so that Wine needs no DLL of the mingw runtime.
# - CTest runs every test program through cmake/wine-run (CMAKE_CROSSCOMPILING_EMULATOR),
#   which runs it with Wine 8 (package wine64) in a Wine prefix of the build folder, created
#   on first use.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)

set(mingw_triplet x86_64-w64-mingw32)
set(CMAKE_C_COMPILER ${mingw_triplet}-gcc-posix)
set(CMAKE_CXX_COMPILER ${mingw_triplet}-g++-posix)
set(CMAKE_RC_COMPILER ${mingw_triplet}-windres)

set(CMAKE_FIND_ROOT_PATH /usr/${mingw_triplet})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")

# Boost's headers, alone in a folder of the build tree (not in try_compile projects, which
# need no Boost).
get_property(mingw_in_try_compile GLOBAL PROPERTY IN_TRY_COMPILE)
if(NOT mingw_in_try_compile)
  set(mingw_boost_dir ${CMAKE_BINARY_DIR}/mingw-boost-include)
  if(NOT EXISTS ${mingw_boost_dir}/boost/version.hpp)
    file(MAKE_DIRECTORY ${mingw_boost_dir})
    file(CREATE_LINK /usr/include/boost ${mingw_boost_dir}/boost SYMBOLIC)
  endif()
  set(Boost_INCLUDE_DIR ${mingw_boost_dir} CACHE PATH "Boost headers for the mingw-w64 build")
  set(Boost_NO_BOOST_CMAKE ON CACHE BOOL "" FORCE)   # the system's BoostConfig is for Linux
  set(Boost_NO_SYSTEM_PATHS ON CACHE BOOL "" FORCE)
endif()

set(CMAKE_CROSSCOMPILING_EMULATOR ${CMAKE_CURRENT_LIST_DIR}/wine-run)
