//
// asio_wheel/detail/config.hpp
//
// Which Asio the library is compiled against, the version gates and the
// backend gates, and how its compiled part is built. This is the only file
// that tests an Asio version or backend macro; everything else asks the
// ASIO_WHEEL_* macros below.
//
// Two flavours, chosen per translation unit:
// - Boost.Asio (the default): namespace boost::asio, boost::system::error_code.
// - Standalone Asio: namespace ::asio, std::error_code; no Boost.Asio or
//   Boost.System header is included. Boost.Intrusive (header-only) stays as
//   the wheel's lists. Chosen by ASIO_STANDALONE, the macro standalone Asio
//   asks its users to define (and defines itself when it is included first
//   without Boost), or by ASIO_WHEEL_STANDALONE. The CMake target
//   asio_wheel::asio_wheel_standalone defines both.
// ASIO_WHEEL_BOOST chooses Boost.Asio even where ASIO_STANDALONE is defined.
//
// Each flavour opens its own inline namespace inside asio_wheel, so one
// program may link both flavours without two definitions of one name; users
// keep writing asio_wheel::wheel_timer.
//
// Header-only (the default), as Asio and Beast are: the few functions that
// are not templates are defined inline, in the detail/impl/*.ipp files the
// headers include. Defining ASIO_WHEEL_SEPARATE_COMPILATION in every
// translation unit instead compiles them once, in the one that includes
// <asio_wheel/src.hpp> (src/src.cpp for the CMake targets' compiled variant),
// as BOOST_ASIO_SEPARATE_COMPILATION does for Asio.
//

#ifndef ASIO_WHEEL_DETAIL_CONFIG_HPP
#define ASIO_WHEEL_DETAIL_CONFIG_HPP

#if defined(ASIO_WHEEL_STANDALONE) && defined(ASIO_WHEEL_BOOST)
# error                                                                        \
     "asio_wheel: ASIO_WHEEL_STANDALONE (standalone Asio) and ASIO_WHEEL_BOOST (Boost.Asio) are both defined: define one"
#endif
#if !defined(ASIO_WHEEL_STANDALONE) && !defined(ASIO_WHEEL_BOOST)
# if defined(ASIO_STANDALONE)
#  define ASIO_WHEEL_STANDALONE 1
# elif defined(__has_include)
#  if !__has_include(<boost/asio/version.hpp>) && __has_include(<asio/version.hpp>)
#   error                                                                      \
       "asio_wheel: Boost.Asio not found, standalone Asio is there: define ASIO_STANDALONE (as standalone Asio asks) to use it"
#  endif
# endif
#endif

/// What the functions that are not templates are declared with: inline when
/// header-only, nothing when they are compiled once.
#if defined(ASIO_WHEEL_SEPARATE_COMPILATION)
# define ASIO_WHEEL_DECL
#else
# define ASIO_WHEEL_DECL inline
#endif

#if defined(ASIO_WHEEL_STANDALONE)
# if !defined(ASIO_STANDALONE)
#  define ASIO_STANDALONE  // else Asio takes its error codes from Boost.System
# endif
# include <asio/version.hpp>
# include <asio/detail/config.hpp>  // ASIO_HAS_IOCP, ASIO_WINDOWS_RUNTIME
# define ASIO_WHEEL_ASIO_VERSION ASIO_VERSION
# define ASIO_WHEEL_FLAVOUR_NAMESPACE standalone_asio
# if defined(ASIO_NO_DEPRECATED)
#  define ASIO_WHEEL_ASIO_NO_DEPRECATED 1
# endif
# if defined(ASIO_HAS_IOCP)
#  define ASIO_WHEEL_ASIO_HAS_IOCP 1
# endif
# if defined(ASIO_WINDOWS_RUNTIME)
#  define ASIO_WHEEL_ASIO_WINDOWS_RUNTIME 1
# endif
#else
# include <boost/asio/version.hpp>
# include <boost/asio/detail/config.hpp>  // BOOST_ASIO_HAS_IOCP, ..._WINDOWS_RUNTIME
# define ASIO_WHEEL_ASIO_VERSION BOOST_ASIO_VERSION
# define ASIO_WHEEL_FLAVOUR_NAMESPACE boost_asio
# if defined(BOOST_ASIO_NO_DEPRECATED)
#  define ASIO_WHEEL_ASIO_NO_DEPRECATED 1
# endif
# if defined(BOOST_ASIO_HAS_IOCP)
#  define ASIO_WHEEL_ASIO_HAS_IOCP 1
# endif
# if defined(BOOST_ASIO_WINDOWS_RUNTIME)
#  define ASIO_WHEEL_ASIO_WINDOWS_RUNTIME 1
# endif
#endif

// ---- Backend gates. ----------------------------------------------------------
//
// ASIO_WHEEL_ASIO_HAS_IOCP: Windows, where Asio's io_context is
// win_iocp_io_context (an I/O completion port) instead of detail::scheduler
// and a reactor. Its operations are OVERLAPPED-based win_iocp_operation, and
// its timer queues are serviced by a waitable timer and a thread of its own.
// The differences this makes are in detail/asio_operation.hpp (the operation
// type, where the per-operation flags live) and detail/asio_scheduler.hpp
// (which service is the scheduler, how the drive timer is queued); the lock's
// sleep is in detail/impl/wheel_mutex.ipp. Nothing else tests it.
//
// ASIO_WHEEL_ASIO_WINDOWS_RUNTIME: the Windows Runtime (UWP) backend, where
// timers are serviced by winrt_timer_scheduler. No toolchain available to the
// project builds or runs it, so it is not supported: detail/asio_scheduler.hpp
// stops with #error rather than compile something never tested.

/// Opens and closes the library's namespace for the flavour being compiled.
#define ASIO_WHEEL_NAMESPACE_BEGIN                                             \
 namespace asio_wheel {                                                        \
 inline namespace ASIO_WHEEL_FLAVOUR_NAMESPACE {
#define ASIO_WHEEL_NAMESPACE_END                                               \
 }                                                                             \
 }

// ---- Version gates (ASIO_WHEEL_ASIO_VERSION is the same number in both
// flavours: standalone Asio 1.34.0 is 103400, and so is Boost.Asio 1.34.0,
// the one in Boost 1.87). -----------------------------------------------------

// Asio 1.24 (Boost 1.80): deferred left asio::experimental, I/O objects'
// get_executor() returns a const reference (1.22 returns a copy), and
// any_executor::target<T>() checks the target's type (1.22 casts whatever it
// holds). Asio's release notes put these changes in 1.24; of the releases the
// matrix tests, 1.22 has the old behaviour and 1.26 the new.
#if ASIO_WHEEL_ASIO_VERSION >= 102400
# define ASIO_WHEEL_ASIO_HAS_DEFERRED 1
# define ASIO_WHEEL_ASIO_GET_EXECUTOR_RETURNS_REFERENCE 1
# define ASIO_WHEEL_ASIO_TARGET_CHECKS_TYPE 1
#endif

// Asio 1.34 (Boost 1.87): the scheduler reads its concurrency hint and its
// locking flag from the context's config service, and basic_waitable_timer
// lost its deprecated members.
#if ASIO_WHEEL_ASIO_VERSION >= 103400
# define ASIO_WHEEL_ASIO_HAS_CONFIG_SERVICE 1
#endif

// Asio 1.36 (Boost 1.89): detail::timer_queue<TimeTraits, Allocator>, made
// from an allocator and a heap reserve.
#if ASIO_WHEEL_ASIO_VERSION >= 103600
# define ASIO_WHEEL_ASIO_TIMER_QUEUE_HAS_ALLOCATOR 1
#endif

// Asio 1.20 (Boost 1.77): detail::handler_work_base is made with (int, int,
// io_ex) and (bool base1_owns_work, ex, candidate), the form
// detail/asio_handler_work.hpp specializes for a wheel_executor (unchanged up
// to 1.37, Boost 1.90). Asio 1.18 makes it with (ex) and (ex, candidate):
// there a wheel_executor takes Asio's general form.
#if ASIO_WHEEL_ASIO_VERSION >= 102000
# define ASIO_WHEEL_ASIO_HANDLER_WORK_OWNS_WORK 1
#endif

/// basic_waitable_timer's deprecated members (expires_from_now, the
/// expires_at() getter, the error_code& overloads) exist exactly where the
/// Asio being compiled against still has them: before 1.34, and unless
/// (BOOST_)ASIO_NO_DEPRECATED is defined.
#if ASIO_WHEEL_ASIO_VERSION < 103400 && !defined(ASIO_WHEEL_ASIO_NO_DEPRECATED)
# define ASIO_WHEEL_HAS_DEPRECATED_TIMER_MEMBERS 1
#endif

#endif  // ASIO_WHEEL_DETAIL_CONFIG_HPP
