//
// asio_wheel/detail/asio_forward.hpp
//
// The Asio spelling of the flavour being compiled (see config.hpp): the
// public Asio headers the library uses, and inside asio_wheel the names
//   asio::          boost::asio or ::asio
//   error_code      boost::system::error_code or std::error_code
//   system_error    boost::system::system_error or std::system_error
// so that every other file is written once. Asio's internals are reached
// only through detail/asio_operation.hpp and detail/asio_scheduler.hpp.
//

#ifndef ASIO_WHEEL_DETAIL_ASIO_FORWARD_HPP
#define ASIO_WHEEL_DETAIL_ASIO_FORWARD_HPP

#include <asio_wheel/detail/config.hpp>

#if defined(ASIO_WHEEL_STANDALONE)
# include <asio/any_io_executor.hpp>
# include <asio/associated_allocator.hpp>
# include <asio/associated_cancellation_slot.hpp>
# include <asio/async_result.hpp>
# include <asio/cancellation_type.hpp>
# include <asio/error.hpp>
# include <asio/execution_context.hpp>
# include <asio/io_context.hpp>
# include <asio/wait_traits.hpp>
# include <system_error>
#else
# include <boost/asio/any_io_executor.hpp>
# include <boost/asio/associated_allocator.hpp>
# include <boost/asio/associated_cancellation_slot.hpp>
# include <boost/asio/async_result.hpp>
# include <boost/asio/cancellation_type.hpp>
# include <boost/asio/error.hpp>
# include <boost/asio/execution_context.hpp>
# include <boost/asio/io_context.hpp>
# include <boost/asio/wait_traits.hpp>
# include <boost/system/error_code.hpp>
# include <boost/system/system_error.hpp>
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

ASIO_WHEEL_NAMESPACE_END

#endif // ASIO_WHEEL_DETAIL_ASIO_FORWARD_HPP
