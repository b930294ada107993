//
// asio_wheel/detail/asio_operation.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The parts of Asio's internals that an operation and an I/O object are made
// of, named once in asio_wheel::detail. They are the same in every supported
// Asio (Boost 1.81 to 1.90, standalone 1.22 to 1.38) but for the type an I/O
// object's get_executor() returns; the scheduler and reactor hooks, which
// differ more, are in detail/asio_scheduler.hpp.
//
// One backend difference: the operation the io_context queues is
// scheduler_operation everywhere but on IOCP (Windows), where it is
// win_iocp_operation, an OVERLAPPED. The library names it scheduler_operation
// in both cases (the operation of detail::scheduler, which on IOCP is
// win_iocp_io_context).
//

#ifndef ASIO_WHEEL_DETAIL_ASIO_OPERATION_HPP
#define ASIO_WHEEL_DETAIL_ASIO_OPERATION_HPP

#include <asio_wheel/detail/asio_forward.hpp>

#include <type_traits>
#include <typeinfo>
#include <utility>

#if defined(ASIO_WHEEL_STANDALONE)
# include <asio/detail/bind_handler.hpp>
# include <asio/detail/chrono_time_traits.hpp>
# include <asio/detail/fenced_block.hpp>
# include <asio/detail/handler_type_requirements.hpp>
# include <asio/detail/handler_work.hpp>
# include <asio/detail/io_object_impl.hpp>
# include <asio/detail/memory.hpp>
# include <asio/detail/non_const_lvalue.hpp>
# include <asio/detail/op_queue.hpp>
# include <asio/detail/operation.hpp>
# include <asio/detail/throw_error.hpp>
/// Asio's compile-time check that a handler has the wait signature.
# define ASIO_WHEEL_WAIT_HANDLER_CHECK(handler_type, handler)                  \
  ASIO_WAIT_HANDLER_CHECK(handler_type, handler)
#else
# include <boost/asio/detail/bind_handler.hpp>
# include <boost/asio/detail/chrono_time_traits.hpp>
# include <boost/asio/detail/fenced_block.hpp>
# include <boost/asio/detail/handler_type_requirements.hpp>
# include <boost/asio/detail/handler_work.hpp>
# include <boost/asio/detail/io_object_impl.hpp>
# include <boost/asio/detail/memory.hpp>
# include <boost/asio/detail/non_const_lvalue.hpp>
# include <boost/asio/detail/op_queue.hpp>
# include <boost/asio/detail/operation.hpp>
# include <boost/asio/detail/throw_error.hpp>
# define ASIO_WHEEL_WAIT_HANDLER_CHECK(handler_type, handler)                  \
  BOOST_ASIO_WAIT_HANDLER_CHECK(handler_type, handler)
#endif

ASIO_WHEEL_NAMESPACE_BEGIN
namespace detail {

// An operation queued in the scheduler (asio::detail::operation: a
// scheduler_operation, or a win_iocp_operation on IOCP), and intrusive queues
// of them.
using scheduler_operation = asio::detail::operation;
using asio::detail::op_queue;
using asio::detail::op_queue_access;

/// A scheduler_operation with a few bits of the library's own (a wait's
/// result, whether it installed a cancellation handler), set while the
/// operation is owned by the library and read when it completes. They live in
/// a word of their own: on IOCP the completion port's dequeue loop writes
/// every field of win_iocp_operation (an OVERLAPPED). With GCC and Clang the
/// word fills the base's tail padding, so no operation grows.
class operation_with_flags : public scheduler_operation
{
protected:
  explicit operation_with_flags(func_type complete_fn) noexcept
    : scheduler_operation(complete_fn)
  {}

  void set_flags(unsigned bits) noexcept { flags_ |= bits; }
  bool has_flags(unsigned bits) const noexcept { return (flags_ & bits) != 0; }

private:
  unsigned flags_ = 0;
};

// Completing a handler: work tracking and dispatch to its associated
// executor, the handler bound to its arguments, the memory fence.
using asio::detail::binder1;
using asio::detail::fenced_block;
using asio::detail::handler_work;

// The I/O object plumbing basic_waitable_timer and its service are built on.
using asio::detail::chrono_time_traits;
using asio::detail::execution_context_service_base;
using asio::detail::io_object_impl;
using asio::detail::non_const_lvalue;
using asio::detail::throw_error;

/// An I/O object's implementation made from an executor, or in an execution
/// context, by the constructor of this Asio's io_object_impl (tagged from
/// Asio 1.18.2 on). Returned as a prvalue: the member it initializes is made
/// in place, as by a direct call of the constructor.
template <typename IoObjectImpl>
IoObjectImpl make_io_object_impl(const typename IoObjectImpl::executor_type& ex)
{
#if defined(ASIO_WHEEL_ASIO_IO_OBJECT_IMPL_HAS_TAGS)
  return IoObjectImpl(0, ex);
#else
  return IoObjectImpl(ex);
#endif
}

template <typename IoObjectImpl, typename ExecutionContext>
IoObjectImpl make_io_object_impl_in(ExecutionContext& context)
{
#if defined(ASIO_WHEEL_ASIO_IO_OBJECT_IMPL_HAS_TAGS)
  return IoObjectImpl(0, 0, context);
#else
  return IoObjectImpl(context);
#endif
}

/// What an I/O object's get_executor() returns in this Asio: a const
/// reference from Asio 1.26 on, a copy before.
#if defined(ASIO_WHEEL_ASIO_GET_EXECUTOR_RETURNS_REFERENCE)
template <typename Executor>
using returned_executor_t = const Executor&;
#else
template <typename Executor>
using returned_executor_t = Executor;
#endif

/// The executor of type Target an any_io_executor holds, or null if it holds
/// another (or if this Asio cannot tell without RTTI).
template <typename Target>
const Target* target_of(const asio::any_io_executor& ex) noexcept
{
#if defined(ASIO_WHEEL_ASIO_TARGET_CHECKS_TYPE)
  return ex.template target<Target>();
#elif defined(ASIO_NO_TYPEID) || defined(BOOST_ASIO_NO_TYPEID)
  (void)ex;
  return nullptr;  // cannot tell: take the general path
#else
  // target<T>() up to Asio 1.24 does not check T: compare the type first.
  return ex.target_type() == typeid(Target) ? ex.template target<Target>()
                                            : nullptr;
#endif
}

}  // namespace detail

// The executor adaptor of wheel_executor.hpp, which the fast paths below see
// through: its default template argument is given there.
template <typename Executor>
class wheel_executor;

namespace detail {

/// Whether T is a wheel_executor.
template <typename T>
struct is_wheel_executor : std::false_type
{};

template <typename Executor>
struct is_wheel_executor<wheel_executor<Executor>> : std::true_type
{};

template <typename Executor>
std::true_type derives_from_wheel_executor(const wheel_executor<Executor>*);
std::false_type derives_from_wheel_executor(const void*);

/// Whether T is a wheel_executor or a class derived from one (an adapter's
/// executor_with_default<wheel_executor<E>>, as as_default_on makes).
template <typename T>
struct is_derived_from_wheel_executor
  : decltype(derives_from_wheel_executor(std::declval<const T*>()))
{};

// The fast paths: where an I/O executor is a plain io_context executor, an
// operation stores that 8-byte executor instead of the I/O object's (a
// 56-byte polymorphic one, or a wheel_executor around it), with the same
// behaviour: Asio's handler_work tracks no work for either and calls the
// handler in place when it has no associated executor of its own.
// native_executor finds it, and may_be_native says at compile time whether
// an executor type can hold one, so that the others pay no test.

using native_executor_type = asio::io_context::executor_type;

/// Whether an executor of type T can hold a plain io_context executor.
template <typename T>
struct may_be_native : std::integral_constant<bool,
                           std::is_same<T, asio::any_io_executor>::value
                               || std::is_same<T, native_executor_type>::value>
{};

/// A wheel_executor can if its inner executor can: it runs functions as its
/// inner executor does.
template <typename Executor>
struct may_be_native<wheel_executor<Executor>> : may_be_native<Executor>
{};

/// The io_context executor an any_io_executor holds, or null if it holds
/// another executor (a strand, or a type-erased wheel_executor, say).
inline const native_executor_type* native_executor(
    const asio::any_io_executor& ex) noexcept
{
  return target_of<native_executor_type>(ex);
}

inline const native_executor_type* native_executor(
    const native_executor_type& ex) noexcept
{
  return &ex;
}

/// Executors that cannot hold one (may_be_native is false).
template <typename Executor>
const native_executor_type* native_executor(const Executor&) noexcept
{
  return nullptr;
}

/// A wheel_executor's inner executor, seen through.
template <typename Executor>
const native_executor_type* native_executor(
    const wheel_executor<Executor>& ex) noexcept
{
  return native_executor(ex.get_inner_executor());
}

}  // namespace detail
ASIO_WHEEL_NAMESPACE_END

#endif  // ASIO_WHEEL_DETAIL_ASIO_OPERATION_HPP
