//
// asio_wheel/detail/config.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
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
#   define ASIO_WHEEL_ASIO_UNUSABLE 1
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

// ASIO_WHEEL_ASIO_UNUSABLE: no Asio the library can use (standalone Asio
// without ASIO_STANDALONE, above, or an Asio below the floor, below). The
// #error that says so is then the library's only error: no Asio header is
// included here, and the public headers declare nothing.
#if defined(ASIO_WHEEL_ASIO_UNUSABLE)
# define ASIO_WHEEL_ASIO_VERSION 0
# define ASIO_WHEEL_FLAVOUR_NAMESPACE unusable_asio
#elif defined(ASIO_WHEEL_STANDALONE)
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
// (which service is the scheduler, how the wheel's timer queue is served).
// Nothing else tests it.
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

// ---- Version gates. ASIO_WHEEL_ASIO_VERSION is the same number in both
// flavours: standalone Asio 1.34.0 is 103400, and so is Boost.Asio 1.34.0, the
// one in Boost 1.87. Each gate is dated from Asio's own source at the release
// tags (chriskohlhoff/asio asio-1-X-Y, boostorg/asio boost-1.X.0), not from the
// release notes: it opens at the first release whose source has the
// behaviour. Standalone Asio has releases that no Boost has (1.19, 1.21, 1.23,
// 1.33, 1.35, ...); a gate names the first of both kinds. The Boost releases
// and their Asio: 1.74 1.18.0, 1.75 1.18.1, 1.76 1.18.2, 1.77 1.20.0,
// 1.78 1.22.0, 1.79 1.22.1, 1.80 1.24.0, 1.81 1.26.0, 1.82 1.28.0,
// 1.83 1.28.2, 1.84 1.30.0, 1.85 1.30.2, 1.86 1.32.0, 1.87 1.34.0,
// 1.88 1.34.2, 1.89 1.36.0. -------------------------------------------------

// The floor: Asio 1.18.0 (Boost 1.74; standalone 1.18.0), the first with
// any_io_executor and the executor properties (execution::context, ...) the
// library is written against; Debian 11 and 12's default Boost, Ubuntu
// 22.04's. Below it, this line is the compile's only error from the library:
// the public headers (wheel_timer.hpp, wheel_timer_service.hpp,
// make_wheel_service.hpp, cancel_after.hpp, wheel_executor.hpp,
// beast/basic_stream.hpp, beast/tcp_stream.hpp) then declare nothing, rather
// than fail on every Asio name they use.
#if !defined(ASIO_WHEEL_ASIO_UNUSABLE) && ASIO_WHEEL_ASIO_VERSION < 101800
# define ASIO_WHEEL_ASIO_UNUSABLE 1
# error                                                                        \
     "asio_wheel needs Asio 1.18 or later (Boost 1.74, standalone Asio 1.18): the Asio found is older"
#endif

// Asio 1.18.2 (Boost 1.76): io_object_impl's constructors take leading int
// tags, io_object_impl(0, ex) and io_object_impl(0, 0, context), instead of
// (ex) and (context) (chriskohlhoff/asio d2e5d9a5, boostorg/asio 1c16c45a,
// "Distinguish constructor overloads by number of arguments"; untagged at
// asio-1-18-1 / boost-1.75.0).
#if ASIO_WHEEL_ASIO_VERSION >= 101802
# define ASIO_WHEEL_ASIO_IO_OBJECT_IMPL_HAS_TAGS 1
#endif

// Asio 1.19.0 (standalone; Boost 1.77, Asio 1.20.0): per-operation
// cancellation. cancellation_signal.hpp, cancellation_type.hpp,
// associated_cancellation_slot.hpp, bind_cancellation_slot.hpp, the
// associator trait (associator.hpp) and experimental::deferred arrive together
// (absent at asio-1-18-2 / boost-1.76.0, present at asio-1-19-0 /
// boost-1.77.0). Below it a wait has no cancellation slot to honour (nor has
// Asio's steady_timer), and cancel_after / cancel_at, which are made of
// cancellation, stop the compile with one line (cancel_after.hpp).
#if ASIO_WHEEL_ASIO_VERSION >= 101900
# define ASIO_WHEEL_ASIO_HAS_CANCELLATION_SLOT 1
#endif

// Asio 1.23.0 (standalone; Boost 1.80, Asio 1.24.0): deferred left
// asio::experimental (deferred.hpp first at asio-1-23-0 and boost-1.80.0;
// experimental::deferred from asio-1-19-0 / boost-1.77.0 on).
#if ASIO_WHEEL_ASIO_VERSION >= 102300
# define ASIO_WHEEL_ASIO_HAS_DEFERRED 1
#endif

// Asio 1.26.0 (Boost 1.81): I/O objects' get_executor() returns a const
// reference (a copy up to asio-1-24-0 / boost-1.80.0; chriskohlhoff/asio
// 7d7318a1, boostorg/asio 1e81b838), and any_executor::target<T>() checks
// the target's type (up to 1.24.0 it casts whatever it holds to T, so that
// asking an any_io_executor that holds a strand for its io_context executor
// answers with the strand's bytes: chriskohlhoff/asio 9d420678, boostorg/asio
// 217986ac, "Use null pointers to implement empty execution::any_executor").
// There is no Asio 1.25.
//
// The same release makes the standard executors' execute() a public member
// (io_context::basic_executor_type's): up to 1.24.0 it is private,
// reached only through the execution::execute customization point, which is
// what wheel_executor calls there.
#if ASIO_WHEEL_ASIO_VERSION >= 102600
# define ASIO_WHEEL_ASIO_GET_EXECUTOR_RETURNS_REFERENCE 1
# define ASIO_WHEEL_ASIO_EXECUTE_MEMBER_IS_PUBLIC 1
# define ASIO_WHEEL_ASIO_TARGET_CHECKS_TYPE 1
#endif

// Asio 1.33.0 (standalone; Boost 1.87, Asio 1.34.0): the scheduler reads its
// concurrency hint and its locking flag from the context's config service
// (config.hpp first at asio-1-33-0, and detail/impl/scheduler.ipp reads it
// there), and basic_waitable_timer lost its deprecated members (still in
// asio-1-32-0 / boost-1.86.0).
#if ASIO_WHEEL_ASIO_VERSION >= 103300
# define ASIO_WHEEL_ASIO_HAS_CONFIG_SERVICE 1
#endif

// Asio 1.35.0 (standalone; Boost 1.89, Asio 1.36.0):
// detail::timer_queue<TimeTraits, Allocator>, made from an allocator and a
// heap reserve (timer_queue<Time_Traits> up to asio-1-34-2 / boost-1.88.0).
#if ASIO_WHEEL_ASIO_VERSION >= 103500
# define ASIO_WHEEL_ASIO_TIMER_QUEUE_HAS_ALLOCATOR 1
#endif

// Asio 1.38 (standalone 1.38.2; not Boost 1.90's 1.37.0):
// detail::conditionally_enabled_mutex is a template on the mutex it wraps,
// conditionally_enabled_mutex<detail::mutex> as the scheduler names it.
#if ASIO_WHEEL_ASIO_VERSION >= 103800
# define ASIO_WHEEL_ASIO_MUTEX_IS_TEMPLATE 1
#endif

/// basic_waitable_timer's deprecated members (expires_from_now, the
/// expires_at() getter, the error_code& overloads) exist exactly where the
/// Asio being compiled against still has them: before 1.33, and unless
/// (BOOST_)ASIO_NO_DEPRECATED is defined.
#if ASIO_WHEEL_ASIO_VERSION < 103300 && !defined(ASIO_WHEEL_ASIO_NO_DEPRECATED)
# define ASIO_WHEEL_HAS_DEPRECATED_TIMER_MEMBERS 1
#endif

// Checked at the same tags, and needing no gate: any_io_executor is a typedef
// of execution::any_executor<...> up to asio-1-18-1 / boost-1.75.0 and a class
// deriving from it from asio-1-18-2 / boost-1.76.0 on (the same commit as the
// tags above); the library only names it and calls target<T>() and
// target_type(), which both have.
// bind_allocator (asio-1-22-1 / boost-1.79.0) and consign (asio-1-26-0 /
// boost-1.81.0) are completion token adapters that the library's operations
// honour through the associated allocator and executor, whatever made them.

#endif  // ASIO_WHEEL_DETAIL_CONFIG_HPP

// ---- Beast gates: the Beast stream (include/asio_wheel/beast/) follows the
// Beast it is compiled with. They are defined once Beast's version is known
// (outside the include guard: the stream's headers include
// <boost/beast/version.hpp> and then this file again). Dated from Beast's own
// source (boostorg/beast) at the Boost release tags: Boost 1.74 has
// BOOST_BEAST_VERSION 300, 1.77 318, 1.80 330, 1.81 345, 1.85 353, 1.86 355,
// 1.87 356, 1.90 359.
#if defined(BOOST_BEAST_VERSION) && !defined(ASIO_WHEEL_BEAST_VERSION)
#define ASIO_WHEEL_BEAST_VERSION BOOST_BEAST_VERSION

// Beast 345 (Boost 1.81): basic_stream's operations support per-operation
// cancellation (terminal, partial, total) through async_base's filtering
// cancellation slot (async_base::set_allowed_cancellation, boostorg/beast
// 3ebff60b); up to 330 (Boost 1.80) async_base has no cancellation slot, so a
// slot bound to a stream operation reaches nothing.
#if BOOST_BEAST_VERSION >= 345
# define ASIO_WHEEL_BEAST_HAS_PER_OPERATION_CANCELLATION 1
#endif

// Beast 345 (Boost 1.81): basic_stream's converting move constructor from a
// stream of another executor type (boostorg/beast 1fc34071, "beast support
// default completion & rebind"); Beast 330 (Boost 1.80) and earlier have none.
#if BOOST_BEAST_VERSION >= 345
# define ASIO_WHEEL_BEAST_HAS_REBINDING_MOVE 1
#endif

// Beast 354 (Boost 1.86, Beast 355; boostorg/beast 2dcdef38, "Handle expired
// timers in basic_stream transfer_op"): an operation started after its
// timeout elapsed completes with timeout through the handler's immediate
// executor, whatever its buffers; up to 353 (Boost 1.85) only an operation on
// empty buffers is failed by hand, after its no-op completes.
#if BOOST_BEAST_VERSION >= 354
# define ASIO_WHEEL_BEAST_ELAPSED_TIMEOUT_COMPLETES_AT_ONCE 1
#endif
#endif
