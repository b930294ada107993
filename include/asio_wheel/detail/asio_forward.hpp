//
// asio_wheel/detail/asio_forward.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The Asio spelling of the flavour being compiled (see config.hpp): the
// public Asio headers the library uses, and inside asio_wheel the names
//   asio::          boost::asio or ::asio
//   error_code      boost::system::error_code or std::error_code
//   system_error    boost::system::system_error or std::system_error
// so that every other file is written once, and the macros that open Asio's
// namespace for a trait specialization. Asio's internals are reached
// only through detail/asio_operation.hpp and detail/asio_scheduler.hpp.
//

#ifndef ASIO_WHEEL_DETAIL_ASIO_FORWARD_HPP
#define ASIO_WHEEL_DETAIL_ASIO_FORWARD_HPP

#include <asio_wheel/detail/config.hpp>

#include <type_traits>

#if defined(ASIO_WHEEL_STANDALONE)
# include <asio/any_io_executor.hpp>
# include <asio/associated_allocator.hpp>
# include <asio/associated_executor.hpp>
# include <asio/async_result.hpp>
# if defined(ASIO_WHEEL_ASIO_HAS_CANCELLATION_SLOT)
#  include <asio/associated_cancellation_slot.hpp>
#  include <asio/associator.hpp>
#  include <asio/cancellation_signal.hpp>
#  include <asio/cancellation_type.hpp>
#  if defined(ASIO_WHEEL_ASIO_HAS_DEFERRED)
#   include <asio/deferred.hpp>
#  else
#   include <asio/experimental/deferred.hpp>
#  endif
# endif
# include <asio/error.hpp>
# include <asio/execution_context.hpp>
# include <asio/io_context.hpp>
# include <asio/wait_traits.hpp>
# include <system_error>
#else
# include <boost/asio/any_io_executor.hpp>
# include <boost/asio/associated_allocator.hpp>
# include <boost/asio/associated_executor.hpp>
# include <boost/asio/async_result.hpp>
# if defined(ASIO_WHEEL_ASIO_HAS_CANCELLATION_SLOT)
#  include <boost/asio/associated_cancellation_slot.hpp>
#  include <boost/asio/associator.hpp>
#  include <boost/asio/cancellation_signal.hpp>
#  include <boost/asio/cancellation_type.hpp>
#  if defined(ASIO_WHEEL_ASIO_HAS_DEFERRED)
#   include <boost/asio/deferred.hpp>
#  else
#   include <boost/asio/experimental/deferred.hpp>
#  endif
# endif
# include <boost/asio/error.hpp>
# include <boost/asio/execution_context.hpp>
# include <boost/asio/io_context.hpp>
# include <boost/asio/wait_traits.hpp>
# include <boost/system/error_code.hpp>
# include <boost/system/system_error.hpp>
#endif

/// Open and close Asio's own namespace, where the library specializes Asio's
/// traits (async_result, associator) for its completion tokens and handlers.
#if defined(ASIO_WHEEL_STANDALONE)
# define ASIO_WHEEL_ASIO_NAMESPACE_BEGIN namespace asio {
# define ASIO_WHEEL_ASIO_NAMESPACE_END }
#else
# define ASIO_WHEEL_ASIO_NAMESPACE_BEGIN                                       \
  namespace boost {                                                            \
  namespace asio {
# define ASIO_WHEEL_ASIO_NAMESPACE_END                                         \
  }                                                                            \
  }
#endif

ASIO_WHEEL_NAMESPACE_BEGIN

#if defined(ASIO_WHEEL_STANDALONE)
namespace asio = ::asio;
using error_code = std::error_code;
using system_error = std::system_error;
#else
namespace asio = ::boost::asio;
using error_code = ::boost::system::error_code;
using system_error = ::boost::system::system_error;
#endif

#if defined(ASIO_WHEEL_ASIO_HAS_CANCELLATION_SLOT)
namespace detail {

/// The completion token of an operation given only a partial token adapter
/// (cancel_after(30s)): the default completion token of its executor, and
/// deferred where it has none (as in Asio 1.29 and later). Only where
/// cancel_after exists, whose Asio has deferred (experimental before 1.23).
# if defined(ASIO_WHEEL_ASIO_HAS_DEFERRED)
using deferred_t = asio::deferred_t;
# else
using deferred_t = asio::experimental::deferred_t;
# endif

template <typename Executor>
using default_token_t = std::conditional_t<
    std::is_void<asio::default_completion_token_t<Executor>>::value, deferred_t,
    asio::default_completion_token_t<Executor>>;

}  // namespace detail
#endif

ASIO_WHEEL_NAMESPACE_END

#endif  // ASIO_WHEEL_DETAIL_ASIO_FORWARD_HPP
