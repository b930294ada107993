//
// example/common/server_main.cpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// raise_open_files_limit (server_main.hpp): RLIMIT_NOFILE on POSIX, nothing on Windows.
#include "server_main.hpp"

#if !defined(_WIN32)
# include <sys/resource.h>
#endif

namespace example_common {

std::uint64_t raise_open_files_limit()
{
#if defined(_WIN32)
  return 0;  // Windows has no per-process limit on open sockets to raise
#else
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0)
    return 0;
  if (limit.rlim_cur < limit.rlim_max)
  {
    rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0)
      return raised.rlim_cur;
  }
  return limit.rlim_cur;
#endif
}

}  // namespace example_common
