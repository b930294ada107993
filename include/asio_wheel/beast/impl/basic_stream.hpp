//
// asio_wheel/beast/impl/basic_stream.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The definitions of the members declared in asio_wheel/beast/basic_stream.hpp
// (which includes this file at its end) and its customization points, in
// the order of Beast's boost/beast/core/impl/basic_stream.hpp, so that the
// two read side by side. Beast's file opens with impl_type's members, its
// timeout_handler and its ops: ours are in detail/stream_state.hpp,
// detail/stream_timeouts.hpp (fire_handler) and impl/basic_stream_ops.hpp,
// included below.
//
// Each member definition is declared inline, as a member function defined in
// its class is: GCC's inliner gives such functions more room, and without it
// the inlining decisions change (a timed read's arm + withdraw pair took 9 to
// 17 more instructions, test/bench/callgrind_stream_pairs.sh).
//

#ifndef ASIO_WHEEL_BEAST_IMPL_BASIC_STREAM_HPP
#define ASIO_WHEEL_BEAST_IMPL_BASIC_STREAM_HPP

#include <asio_wheel/beast/basic_stream.hpp>
#include <asio_wheel/beast/detail/any_endpoint.hpp>
#include <asio_wheel/beast/detail/stream_timeouts.hpp>
#include <asio_wheel/beast/impl/basic_stream_ops.hpp>

#include <boost/beast/core/error.hpp>
#include <boost/beast/core/role.hpp>
#include <boost/beast/websocket/teardown.hpp>
#include <boost/make_shared.hpp>

#include <cstddef>
#include <stdexcept>
#include <type_traits>
#include <utility>

ASIO_WHEEL_NAMESPACE_BEGIN
namespace beast {

//------------------------------------------------------------------------------

template <class Protocol, class Executor, class RatePolicy>
inline basic_stream<Protocol, Executor, RatePolicy>::~basic_stream()
{
  // A moved-from stream of the converting move has no state.
  if (impl_)
    impl_->close();
}

template <class Protocol, class Executor, class RatePolicy>
template <class Arg0, class... Args, class>
inline basic_stream<Protocol, Executor, RatePolicy>::basic_stream(
    Arg0&& arg0, Args&&... args)
  : impl_(boost::make_shared<impl_type>(
      std::false_type{}, std::forward<Arg0>(arg0), std::forward<Args>(args)...))
{}

template <class Protocol, class Executor, class RatePolicy>
template <class RatePolicy_, class Arg0, class... Args, class>
inline basic_stream<Protocol, Executor, RatePolicy>::basic_stream(
    RatePolicy_&& policy, Arg0&& arg, Args&&... args)
  : impl_(boost::make_shared<impl_type>(std::true_type{},
      std::forward<RatePolicy_>(policy), std::forward<Arg0>(arg),
      std::forward<Args>(args)...))
{}

template <class Protocol, class Executor, class RatePolicy>
inline basic_stream<Protocol, Executor, RatePolicy>::basic_stream(
    basic_stream&& other)
  : impl_(boost::make_shared<impl_type>(std::true_type{},
      std::move(other.impl_->policy()), std::move(other.impl_->socket)))
{
  impl_->read.expiry = std::exchange(other.impl_->read.expiry, detail::never());
  impl_->write.expiry =
      std::exchange(other.impl_->write.expiry, detail::never());
  impl_->read.slack = std::exchange(other.impl_->read.slack, {});
  impl_->write.slack = std::exchange(other.impl_->write.slack, {});
  impl_->tolerance = std::exchange(other.impl_->tolerance, {});
}

#if defined(ASIO_WHEEL_BEAST_HAS_REBINDING_MOVE)
template <class Protocol, class Executor, class RatePolicy>
template <class Executor_>
inline basic_stream<Protocol, Executor, RatePolicy>::basic_stream(
    basic_stream<Protocol, Executor_, RatePolicy>&& other)
  : impl_(boost::make_shared<impl_type>(
      std::false_type{}, std::move(other.impl_->socket)))
{}
#endif

//------------------------------------------------------------------------------

template <class Protocol, class Executor, class RatePolicy>
inline auto basic_stream<Protocol, Executor, RatePolicy>::release_socket()
    -> socket_type
{
  this->cancel();
  return std::move(impl_->socket);
}

template <class Protocol, class Executor, class RatePolicy>
inline void basic_stream<Protocol, Executor, RatePolicy>::expires_after(
    asio::steady_timer::duration expiry_time)
{
  const time_point now = clock_type::now();
  impl_->set_expiry(now + expiry_time, [now] { return now; });
}

template <class Protocol, class Executor, class RatePolicy>
inline void basic_stream<Protocol, Executor, RatePolicy>::expires_at(
    asio::steady_timer::time_point expiry_time)
{
  impl_->set_expiry(expiry_time, [] { return clock_type::now(); });
}

template <class Protocol, class Executor, class RatePolicy>
inline void basic_stream<Protocol, Executor, RatePolicy>::tolerance(
    asio::steady_timer::duration late)
{
  if (late < asio::steady_timer::duration::zero())
    throw std::invalid_argument(
        "asio_wheel::beast::basic_stream::tolerance must not be negative");
  impl_->tolerance.set_own(impl_->service.slack_of(late));
}

template <class Protocol, class Executor, class RatePolicy>
inline void basic_stream<Protocol, Executor, RatePolicy>::expires_never()
{
  impl_->reset();
}

template <class Protocol, class Executor, class RatePolicy>
inline void basic_stream<Protocol, Executor, RatePolicy>::cancel()
{
  error_code ec;
  impl_->socket.cancel(ec);
  impl_->service.cancel(impl_->rate_timer);
}

template <class Protocol, class Executor, class RatePolicy>
inline void basic_stream<Protocol, Executor, RatePolicy>::close()
{
  impl_->close();
}

//------------------------------------------------------------------------------

template <class Protocol, class Executor, class RatePolicy>
template <BOOST_BEAST_ASYNC_TPARAM1 ConnectHandler>
inline BOOST_BEAST_ASYNC_RESULT1(ConnectHandler)
    basic_stream<Protocol, Executor, RatePolicy>::async_connect(
        const endpoint_type& ep, ConnectHandler&& handler)
{
  return asio::async_initiate<ConnectHandler, void(error_code)>(
      typename ops::run_connect_op{}, handler, this, ep);
}

template <class Protocol, class Executor, class RatePolicy>
template <class EndpointSequence,
    BOOST_ASIO_COMPLETION_TOKEN_FOR(void(::boost::beast::error_code,
        typename Protocol::endpoint)) RangeConnectHandler,
    class>
inline BOOST_ASIO_INITFN_RESULT_TYPE(RangeConnectHandler,
    void(::boost::beast::error_code, typename Protocol::endpoint))
    basic_stream<Protocol, Executor, RatePolicy>::async_connect(
        const EndpointSequence& endpoints, RangeConnectHandler&& handler)
{
  return asio::async_initiate<RangeConnectHandler,
      void(error_code, typename Protocol::endpoint)>(
      typename ops::run_connect_range_op{}, handler, this, endpoints,
      detail::any_endpoint{});
}

template <class Protocol, class Executor, class RatePolicy>
template <class EndpointSequence, class ConnectCondition,
    BOOST_ASIO_COMPLETION_TOKEN_FOR(void(::boost::beast::error_code,
        typename Protocol::endpoint)) RangeConnectHandler,
    class>
inline BOOST_ASIO_INITFN_RESULT_TYPE(RangeConnectHandler,
    void(::boost::beast::error_code, typename Protocol::endpoint))
    basic_stream<Protocol, Executor, RatePolicy>::async_connect(
        const EndpointSequence& endpoints, ConnectCondition connect_condition,
        RangeConnectHandler&& handler)
{
  return asio::async_initiate<RangeConnectHandler,
      void(error_code, typename Protocol::endpoint)>(
      typename ops::run_connect_range_op{}, handler, this, endpoints,
      connect_condition);
}

template <class Protocol, class Executor, class RatePolicy>
template <class Iterator,
    BOOST_ASIO_COMPLETION_TOKEN_FOR(void(::boost::beast::error_code, Iterator))
        IteratorConnectHandler>
inline BOOST_ASIO_INITFN_RESULT_TYPE(
    IteratorConnectHandler, void(::boost::beast::error_code, Iterator))
    basic_stream<Protocol, Executor, RatePolicy>::async_connect(
        Iterator begin, Iterator end, IteratorConnectHandler&& handler)
{
  return asio::async_initiate<IteratorConnectHandler,
      void(error_code, Iterator)>(typename ops::run_connect_iter_op{}, handler,
      this, begin, end, detail::any_endpoint{});
}

template <class Protocol, class Executor, class RatePolicy>
template <class Iterator, class ConnectCondition,
    BOOST_ASIO_COMPLETION_TOKEN_FOR(void(::boost::beast::error_code, Iterator))
        IteratorConnectHandler>
inline BOOST_ASIO_INITFN_RESULT_TYPE(
    IteratorConnectHandler, void(::boost::beast::error_code, Iterator))
    basic_stream<Protocol, Executor, RatePolicy>::async_connect(Iterator begin,
        Iterator end, ConnectCondition connect_condition,
        IteratorConnectHandler&& handler)
{
  return asio::async_initiate<IteratorConnectHandler,
      void(error_code, Iterator)>(typename ops::run_connect_iter_op{}, handler,
      this, begin, end, connect_condition);
}

//------------------------------------------------------------------------------

template <class Protocol, class Executor, class RatePolicy>
template <class MutableBufferSequence, BOOST_BEAST_ASYNC_TPARAM2 ReadHandler>
inline BOOST_BEAST_ASYNC_RESULT2(ReadHandler)
    basic_stream<Protocol, Executor, RatePolicy>::async_read_some(
        const MutableBufferSequence& buffers, ReadHandler&& handler)
{
  static_assert(asio::is_mutable_buffer_sequence<MutableBufferSequence>::value,
      "MutableBufferSequence type requirements not met");
  return asio::async_initiate<ReadHandler, void(error_code, std::size_t)>(
      typename ops::run_read_op{}, handler, this, buffers);
}

template <class Protocol, class Executor, class RatePolicy>
template <class ConstBufferSequence, BOOST_BEAST_ASYNC_TPARAM2 WriteHandler>
inline BOOST_BEAST_ASYNC_RESULT2(WriteHandler)
    basic_stream<Protocol, Executor, RatePolicy>::async_write_some(
        const ConstBufferSequence& buffers, WriteHandler&& handler)
{
  static_assert(asio::is_const_buffer_sequence<ConstBufferSequence>::value,
      "ConstBufferSequence type requirements not met");
  return asio::async_initiate<WriteHandler, void(error_code, std::size_t)>(
      typename ops::run_write_op{}, handler, this, buffers);
}

//------------------------------------------------------------------------------
// Customization points (found by argument-dependent lookup).

/// Closes the stream's socket (boost::beast::close_socket).
template <class Protocol, class Executor, class RatePolicy>
void beast_close_socket(basic_stream<Protocol, Executor, RatePolicy>& stream)
{
  ::boost::beast::error_code ec;
  stream.socket().close(ec);
}

/// Tears down the connection (websocket::stream's close): as Beast does for
/// its own basic_stream, the socket's teardown.
template <class Protocol, class Executor, class RatePolicy>
void teardown(::boost::beast::role_type role,
    basic_stream<Protocol, Executor, RatePolicy>& stream,
    ::boost::beast::error_code& ec)
{
  using ::boost::beast::websocket::teardown;
  teardown(role, stream.socket(), ec);
}

/// Tears down the connection asynchronously: the socket's async_teardown.
template <class Protocol, class Executor, class RatePolicy,
    class TeardownHandler>
void async_teardown(::boost::beast::role_type role,
    basic_stream<Protocol, Executor, RatePolicy>& stream,
    TeardownHandler&& handler)
{
  using ::boost::beast::websocket::async_teardown;
  async_teardown(role, stream.socket(), std::forward<TeardownHandler>(handler));
}

}  // namespace beast
ASIO_WHEEL_NAMESPACE_END

#endif  // ASIO_WHEEL_BEAST_IMPL_BASIC_STREAM_HPP
