// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// test_asio.hpp: the Asio of the flavour being compiled, for the tests and the model/fuzz
// harness, so that each test is written once and builds against Boost.Asio (the default) and
// standalone Asio (ASIO_WHEEL_STANDALONE and ASIO_STANDALONE; no Boost.Asio or Boost.System
// header is included then). It gives, in namespace asio_wheel_test:
//   asio::              boost::asio or ::asio (asio_wheel::asio)
//   error_code          boost::system::error_code or std::error_code
//   system_error        what Asio throws: boost::system::system_error or std::system_error
//   concurrency_hint_*  the io_context concurrency hints (BOOST_ASIO_CONCURRENCY_HINT_... or
//                       ASIO_CONCURRENCY_HINT_...)
//   token::             the completion tokens that moved out of asio::experimental in Asio
//                       1.23, under the name the Asio being compiled gives them (none
//                       before Asio 1.19)
// the feature gates of the completion tokens and adapters that not every supported Asio has
// (ASIO_WHEEL_TEST_HAS_...), with a sentence saying what a leg leaves out, whether the reactor
// is io_uring (ASIO_WHEEL_TEST_IO_URING), and how this Asio reads the SAFE concurrency hint.
// Every test gate of an Asio version is in this file; the library's own gates are in
// include/asio_wheel/detail/config.hpp.
#pragma once

#include <asio_wheel/detail/config.hpp>  // which flavour: before any Asio header

#if defined(ASIO_WHEEL_STANDALONE)
# include <asio.hpp>
#else
# include <boost/asio.hpp>
#endif

#include <asio_wheel.hpp>  // also asio_wheel::asio, error_code, system_error

#include <string>

// ---- Completion tokens by Asio version, dated from Asio's own source at the release tags
// (chriskohlhoff/asio asio-1-X-Y, boostorg/asio boost-1.X.0; the Boost releases and their
// Asio are listed in asio_wheel/detail/config.hpp):
// - Asio 1.19.0 (Boost 1.77, Asio 1.20.0): per-operation cancellation
//   (bind_cancellation_slot; the library's gate ASIO_WHEEL_ASIO_HAS_CANCELLATION_SLOT), and
//   in asio::experimental: deferred, as_tuple, append, prepend, parallel_group,
//   awaitable_operators. Asio 1.18 (Boost 1.74, 1.75, 1.76; standalone 1.18.1) has none of
//   them.
// - Asio 1.22.1 (Boost 1.79): bind_allocator.
// - Asio 1.23.0 (Boost 1.80, Asio 1.24.0): deferred, as_tuple, append and prepend leave
//   asio::experimental, and awaitable_frame gets its await_transform for a deferred operation
//   (co_await timer.async_wait(deferred); without it, with steady_timer too, it does not
//   compile).
// - Asio 1.26.0 (Boost 1.81): consign.
// ----------------------------------------------------------------------------------------

#if defined(ASIO_WHEEL_ASIO_HAS_CANCELLATION_SLOT)
# define ASIO_WHEEL_TEST_HAS_TOKEN_ADAPTERS 1
# if defined(ASIO_WHEEL_STANDALONE)
#  include <asio/experimental/awaitable_operators.hpp>
#  include <asio/experimental/parallel_group.hpp>
# else
#  include <boost/asio/experimental/awaitable_operators.hpp>
#  include <boost/asio/experimental/parallel_group.hpp>
# endif
#endif

#if ASIO_WHEEL_ASIO_VERSION >= 102201
# define ASIO_WHEEL_TEST_HAS_BIND_ALLOCATOR 1
#endif

#if ASIO_WHEEL_ASIO_VERSION >= 102600
# define ASIO_WHEEL_TEST_HAS_CONSIGN 1
#endif

#if ASIO_WHEEL_ASIO_VERSION >= 102300
# define ASIO_WHEEL_TEST_HAS_AWAITABLE_DEFERRED 1
#elif defined(ASIO_WHEEL_TEST_HAS_TOKEN_ADAPTERS)
# define ASIO_WHEEL_TEST_TOKENS_IN_EXPERIMENTAL 1
# if defined(ASIO_WHEEL_STANDALONE)
#  include <asio/experimental/append.hpp>
#  include <asio/experimental/as_tuple.hpp>
#  include <asio/experimental/deferred.hpp>
#  include <asio/experimental/prepend.hpp>
# else
#  include <boost/asio/experimental/append.hpp>
#  include <boost/asio/experimental/as_tuple.hpp>
#  include <boost/asio/experimental/deferred.hpp>
#  include <boost/asio/experimental/prepend.hpp>
# endif
#endif

// yield_context (asio::spawn): Boost.Asio runs it on Boost.Context, which the tests link.
// Standalone Asio needs Boost.Coroutine (1.22: <boost/coroutine/all.hpp>) or Boost.Context
// wired in by ASIO_HAS_BOOST_CONTEXT_FIBER (1.38), i.e. Boost headers in a build that promises
// none: left out of the standalone legs.
#if !defined(ASIO_WHEEL_STANDALONE)
# include <boost/asio/spawn.hpp>
# define ASIO_WHEEL_TEST_HAS_YIELD_CONTEXT 1
// Asio 1.23.0 (Boost 1.80, Asio 1.24.0) rewrote spawn on Boost.Context alone and gave it a
// completion token (spawn.hpp at boost-1.79.0 / asio-1-22-2 takes coroutine attributes
// instead and runs on Boost.Coroutine: the tests link it there, test/CMakeLists.txt).
# if ASIO_WHEEL_ASIO_VERSION >= 102300
#  define ASIO_WHEEL_TEST_SPAWN_TAKES_TOKEN 1
# endif
#endif

// ---- A moved-from I/O object keeps its executor, and stays usable, from Asio 1.18.2 (Boost
// 1.76; chriskohlhoff/asio b5a8065e, "The executor must be copied when an I/O object is
// move-assigned"): up to asio-1-18-1 / boost-1.75.0, io_object_impl's move assignment moves
// the executor out, and an operation started on the moved-from object (steady_timer's as
// wheel_timer's) throws bad_executor where nothing can catch it. ----------------------------
#if ASIO_WHEEL_ASIO_VERSION >= 101802
# define ASIO_WHEEL_TEST_MOVED_FROM_KEEPS_EXECUTOR 1
#endif

// ---- The reactor: epoll (with or without a timerfd) or, with (BOOST_)ASIO_HAS_IO_URING and
// (BOOST_)ASIO_DISABLE_EPOLL, the io_uring service. The manual clock's harness needs to know
// (test/asio_wheel/manual_clock.hpp): io_uring looks at its timer queues only when its own
// timeout fires or a queue's earliest timer changes, not on every turn. ---------------------
#if defined(ASIO_WHEEL_STANDALONE)                                             \
    ? defined(ASIO_HAS_IO_URING_AS_DEFAULT)                                    \
    : defined(BOOST_ASIO_HAS_IO_URING_AS_DEFAULT)
# define ASIO_WHEEL_TEST_IO_URING 1
#endif

// ---- Asio's own cancel_after / cancel_at (asio/cancel_after.hpp): in Boost.Asio 1.87, 1.89,
// 1.90 and standalone 1.38, not in Boost 1.81, 1.83 or standalone 1.22; they came with Asio
// 1.31 (Boost 1.86), together with their overloads that take a basic_waitable_timer (the
// same commit of boostorg/asio, 6a817c43, added both), so one gate covers both. -------------
#if ASIO_WHEEL_ASIO_VERSION >= 103100
# define ASIO_WHEEL_TEST_HAS_ASIO_CANCEL_AFTER 1
#endif

// ---- detached_t::as_default_on of an I/O object whose executor is any_io_executor (the
// default): clang (14, the one the project builds with) rejects it in every Asio of the matrix,
// for Asio's own timers too: is_executor<detached_t::executor_with_default<any_io_executor>> is
// asked while it is being computed, and is incomplete (chriskohlhoff/asio#813). GCC accepts it.
// With clang, the conformance suite makes that timer with io_context::executor_type, which
// both accept. ------------------------------------------------------------------------------
#if !defined(__clang__)
# define ASIO_WHEEL_TEST_DETACHED_DEFAULT_ON_ANY_IO_EXECUTOR 1
#endif

namespace asio_wheel_test {

namespace asio = asio_wheel::asio;
using asio_wheel::error_code;
using asio_wheel::system_error;

#if defined(ASIO_WHEEL_STANDALONE)
inline constexpr int concurrency_hint_default = ASIO_CONCURRENCY_HINT_DEFAULT;
inline constexpr int concurrency_hint_unsafe = ASIO_CONCURRENCY_HINT_UNSAFE;
inline constexpr int concurrency_hint_unsafe_io =
    ASIO_CONCURRENCY_HINT_UNSAFE_IO;
inline constexpr int concurrency_hint_safe = ASIO_CONCURRENCY_HINT_SAFE;
#else
inline constexpr int concurrency_hint_default =
    BOOST_ASIO_CONCURRENCY_HINT_DEFAULT;
inline constexpr int concurrency_hint_unsafe =
    BOOST_ASIO_CONCURRENCY_HINT_UNSAFE;
inline constexpr int concurrency_hint_unsafe_io =
    BOOST_ASIO_CONCURRENCY_HINT_UNSAFE_IO;
inline constexpr int concurrency_hint_safe = BOOST_ASIO_CONCURRENCY_HINT_SAFE;
#endif

// The tokens that Asio 1.24 moved out of asio::experimental, by the name this Asio gives them.
namespace token {
#if !defined(ASIO_WHEEL_TEST_HAS_TOKEN_ADAPTERS)
// None in this Asio.
#elif defined(ASIO_WHEEL_TEST_TOKENS_IN_EXPERIMENTAL)
using asio::experimental::append;
using asio::experimental::as_tuple;
using asio::experimental::as_tuple_t;
using asio::experimental::deferred;
using asio::experimental::prepend;
#else
using asio::append;
using asio::as_tuple;
using asio::as_tuple_t;
using asio::deferred;
using asio::prepend;
#endif
}  // namespace token

// "Boost.Asio 1.26.0" or "standalone Asio 1.22.1": the Asio this test was compiled against.
inline std::string asio_description()
{
  const int v = ASIO_WHEEL_ASIO_VERSION;
#if defined(ASIO_WHEEL_STANDALONE)
  std::string s = "standalone Asio ";
#else
  std::string s = "Boost.Asio ";
#endif
  return s + std::to_string(v / 100000) + "." + std::to_string(v / 100 % 1000)
      + "." + std::to_string(v % 100);
}

// What the conformance suite leaves out in this leg because this Asio does not have it (empty:
// nothing), and what it tests under another name or form; printed by tokens.cpp.
inline std::string tokens_left_out()
{
  std::string s;
#if !defined(ASIO_WHEEL_TEST_HAS_TOKEN_ADAPTERS)
  s += "per-operation cancellation (bind_cancellation_slot), deferred, "
       "as_tuple, append, prepend, parallel_group, awaitable_operators (this "
       "Asio has none of them: they came with Asio 1.19, Boost 1.77), ";
#endif
#if !defined(ASIO_WHEEL_TEST_HAS_BIND_ALLOCATOR)
  s += "bind_allocator (no asio/bind_allocator.hpp: Asio 1.22.1, Boost "
       "1.79; the associated allocator is tested through a handler's own "
       "allocator_type), ";
#endif
#if !defined(ASIO_WHEEL_TEST_HAS_CONSIGN)
  s += "consign (no asio/consign.hpp), ";
#endif
#if defined(ASIO_WHEEL_TEST_HAS_TOKEN_ADAPTERS)                                \
    && !defined(ASIO_WHEEL_TEST_HAS_AWAITABLE_DEFERRED)
  s += "co_await of a deferred operation (awaitable_frame has no "
       "await_transform for it), ";
#endif
#if !defined(ASIO_WHEEL_TEST_HAS_YIELD_CONTEXT)
  s += "yield_context (standalone spawn needs Boost.Coroutine or "
       "Boost.Context), ";
#endif
  if (!s.empty())
    s.erase(s.size() - 2);
  return s;
}

inline std::string tokens_renamed()
{
  std::string s;
#if defined(ASIO_WHEEL_TEST_TOKENS_IN_EXPERIMENTAL)
  s += "deferred, as_tuple, append, prepend are tested as "
       "asio::experimental::deferred etc.,"
       " the only spelling this Asio has; ";
#endif
#if !defined(ASIO_WHEEL_TEST_DETACHED_DEFAULT_ON_ANY_IO_EXECUTOR)
  s += "detached_t::as_default_on is tested on timers whose executor is"
       " io_context::executor_type, not any_io_executor, which this compiler "
       "rejects"
       " (chriskohlhoff/asio#813); ";
#endif
  if (!s.empty())
    s.erase(s.size() - 2);
  return s;
}

}  // namespace asio_wheel_test
