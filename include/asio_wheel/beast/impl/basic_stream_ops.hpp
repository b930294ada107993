//
// asio_wheel/beast/impl/basic_stream_ops.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// basic_stream::ops: the composed operations behind the stream's
// asynchronous members, as Beast's ops in the first half of
// boost/beast/core/impl/basic_stream.hpp, and in the same order:
// transfer_op (async_read_some and async_write_some: the timeout, the rate
// policy's slices, the socket's operation), connect_op (the three forms of
// async_connect) and their initiations (run_read_op ... run_connect_iter_op).
// Included by impl/basic_stream.hpp, which defines the members that start
// them.
//

#ifndef ASIO_WHEEL_BEAST_IMPL_BASIC_STREAM_OPS_HPP
#define ASIO_WHEEL_BEAST_IMPL_BASIC_STREAM_OPS_HPP

#include <asio_wheel/beast/basic_stream.hpp>
#include <asio_wheel/beast/detail/pending_guard.hpp>
#include <asio_wheel/beast/detail/rate_policy_access.hpp>
#include <asio_wheel/beast/detail/stream_state.hpp>
#include <asio_wheel/beast/detail/stream_timeouts.hpp>

#include <boost/asio/connect.hpp>
#include <boost/asio/coroutine.hpp>
#include <boost/assert.hpp>
#include <boost/beast/core/async_base.hpp>
#include <boost/beast/core/buffer_traits.hpp>
#include <boost/beast/core/buffers_prefix.hpp>
#include <boost/beast/core/error.hpp>

#if defined(ASIO_WHEEL_BEAST_ELAPSED_TIMEOUT_COMPLETES_AT_ONCE)
# include <boost/asio/append.hpp>
# include <boost/asio/dispatch.hpp>
#endif

#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <utility>

ASIO_WHEEL_NAMESPACE_BEGIN
namespace beast {

template <class Protocol, class Executor, class RatePolicy>
struct basic_stream<Protocol, Executor, RatePolicy>::ops
{
  template <bool isRead, class Buffers, class Handler>
  class transfer_op : public ::boost::beast::async_base<Handler, Executor>,
                      public asio::coroutine
  {
    boost::shared_ptr<impl_type> impl_;
    pending_guard pg_;  // after impl_: reset before impl_ goes
    Buffers b_;

    using is_read = std::integral_constant<bool, isRead>;

    op_state& state() noexcept
    {
      if constexpr (isRead)
        return impl_->read;
      else
        return impl_->write;
    }

    std::size_t available_bytes()
    {
      if constexpr (isRead)
        return detail::rate_access::available_read_bytes(impl_->policy());
      else
        return detail::rate_access::available_write_bytes(impl_->policy());
    }

    void transfer_bytes(std::size_t n)
    {
      if constexpr (isRead)
        detail::rate_access::transfer_read_bytes(impl_->policy(), n);
      else
        detail::rate_access::transfer_write_bytes(impl_->policy(), n);
    }

    void async_perform(std::size_t amount, std::true_type)
    {
      impl_->socket.async_read_some(
          ::boost::beast::buffers_prefix(amount, b_), std::move(*this));
    }

    void async_perform(std::size_t amount, std::false_type)
    {
      impl_->socket.async_write_some(
          ::boost::beast::buffers_prefix(amount, b_), std::move(*this));
    }

  public:
    template <class Handler_>
    transfer_op(Handler_&& h, basic_stream& s, const Buffers& b)
      : ::boost::beast::async_base<Handler, Executor>(
          std::forward<Handler_>(h), s.get_executor()),
        impl_(s.impl_), b_(b)
    {
#if defined(ASIO_WHEEL_BEAST_HAS_PER_OPERATION_CANCELLATION)
      this->set_allowed_cancellation(asio::cancellation_type::all);
#endif
      if (::boost::beast::buffer_bytes(b_) == 0 && state().pending)
      {
        // As Beast (its issue 2065): a zero-length operation while one of
        // the same kind is pending completes at once, with no error.
        this->complete(false, error_code(), 0);
      }
      else
      {
        pg_.assign(state());
        (*this)({});
      }
    }

    void operator()(error_code ec, std::size_t bytes_transferred = 0)
    {
      std::size_t amount;
      BOOST_ASIO_CORO_REENTER(*this)
      {
#if defined(ASIO_WHEEL_BEAST_ELAPSED_TIMEOUT_COMPLETES_AT_ONCE)
        // The timeout has already elapsed: as Beast since 354 (Boost 1.86,
        // its commit 2dcdef38), whatever the buffers, the operation completes
        // with timeout through the handler's immediate executor, and the
        // socket is closed.
        // (An untimed stream reads no clock.)
        if (state().expiry != detail::never()
            && state().expiry <= clock_type::now())
        {
          BOOST_ASIO_CORO_YIELD
          {
            const auto ex = this->get_immediate_executor();
            asio::dispatch(ex, asio::append(std::move(*this), ec, 0));
          }
          impl_->close();
          ec = ::boost::beast::error::timeout;
          goto upcall;
        }
#endif
        // Empty buffers: perform the no-op, then (Beast before 354) apply
        // the timeout by hand (else the behaviour varies across platforms),
        // as Beast does.
        if (::boost::beast::buffer_bytes(b_) == 0)
        {
          BOOST_ASIO_CORO_YIELD
          async_perform(0, is_read{});
#if !defined(ASIO_WHEEL_BEAST_ELAPSED_TIMEOUT_COMPLETES_AT_ONCE)
          if (state().expiry <= clock_type::now())
          {
            impl_->close();
            ec = ::boost::beast::error::timeout;
          }
#endif
          goto upcall;
        }

        // A timeout is set: arm it in the wheel.
        if (state().expiry != detail::never())
          detail::arm_timeout<Handler>(*impl_, state(), *this);

        // Check the rate limit; maybe wait for the next slice.
        amount = available_bytes();
        if (amount == 0)
        {
          ++impl_->waiting;
          BOOST_ASIO_CORO_YIELD
          {
            impl_type& impl = *impl_;
            const Executor ex = impl.stream_ex;
            impl.service.async_wait(impl.rate_timer, *this, ex);
          }
          if (ec)
          {
            // The socket was closed, or the timeout fired, or cancel().
            BOOST_ASSERT(ec == asio::error::operation_aborted);
            detail::end_timeout(*impl_, state(), ec);
            goto upcall;
          }
          impl_->on_timer(this->get_executor());

          // At least one byte, else bytes_transferred could be 0.
          amount = (std::max<std::size_t>)(available_bytes(), 1);
        }

        BOOST_ASIO_CORO_YIELD
        async_perform(amount, is_read{});

        detail::end_timeout(*impl_, state(), ec);

      upcall:
        pg_.reset();
        transfer_bytes(bytes_transferred);
        this->complete_now(ec, bytes_transferred);
      }
    }
  };

  template <class Handler>
  class connect_op : public ::boost::beast::async_base<Handler, Executor>
  {
    boost::shared_ptr<impl_type> impl_;
    pending_guard pg0_;  // after impl_: reset before impl_ goes
    pending_guard pg1_;

    op_state& state() noexcept { return impl_->write; }

    void start_timeout()
    {
#if defined(ASIO_WHEEL_BEAST_HAS_PER_OPERATION_CANCELLATION)
      this->set_allowed_cancellation(asio::cancellation_type::all);
#endif
      if (state().expiry != detail::never())
        detail::arm_timeout<Handler>(*impl_, state(), *this);
    }

  public:
    template <class Handler_>
    connect_op(Handler_&& h, basic_stream& s, endpoint_type ep)
      : ::boost::beast::async_base<Handler, Executor>(
          std::forward<Handler_>(h), s.get_executor()),
        impl_(s.impl_), pg0_(impl_->read), pg1_(impl_->write)
    {
      start_timeout();
      impl_type& impl = *impl_;
      impl.socket.async_connect(ep, std::move(*this));
    }

    template <class Endpoints, class Condition, class Handler_>
    connect_op(Handler_&& h, basic_stream& s, const Endpoints& eps,
        const Condition& cond)
      : ::boost::beast::async_base<Handler, Executor>(
          std::forward<Handler_>(h), s.get_executor()),
        impl_(s.impl_), pg0_(impl_->read), pg1_(impl_->write)
    {
      start_timeout();
      impl_type& impl = *impl_;
      asio::async_connect(impl.socket, eps, cond, std::move(*this));
    }

    template <class Iterator, class Condition, class Handler_>
    connect_op(Handler_&& h, basic_stream& s, Iterator begin, Iterator end,
        const Condition& cond)
      : ::boost::beast::async_base<Handler, Executor>(
          std::forward<Handler_>(h), s.get_executor()),
        impl_(s.impl_), pg0_(impl_->read), pg1_(impl_->write)
    {
      start_timeout();
      impl_type& impl = *impl_;
      asio::async_connect(impl.socket, begin, end, cond, std::move(*this));
    }

    // The connect is over: the same end as a read's or a write's.
    template <class... Args>
    void operator()(error_code ec, Args&&... args)
    {
      detail::end_timeout(*impl_, state(), ec);
      pg0_.reset();
      pg1_.reset();
      this->complete_now(ec, std::forward<Args>(args)...);
    }
  };

  struct run_read_op
  {
    template <class ReadHandler, class Buffers>
    void operator()(ReadHandler&& h, basic_stream* s, const Buffers& b)
    {
      static_assert(::boost::beast::detail::is_invocable<ReadHandler,
                        void(error_code, std::size_t)>::value,
          "ReadHandler type requirements not met");
      transfer_op<true, Buffers, std::decay_t<ReadHandler>>(
          std::forward<ReadHandler>(h), *s, b);
    }
  };

  struct run_write_op
  {
    template <class WriteHandler, class Buffers>
    void operator()(WriteHandler&& h, basic_stream* s, const Buffers& b)
    {
      static_assert(::boost::beast::detail::is_invocable<WriteHandler,
                        void(error_code, std::size_t)>::value,
          "WriteHandler type requirements not met");
      transfer_op<false, Buffers, std::decay_t<WriteHandler>>(
          std::forward<WriteHandler>(h), *s, b);
    }
  };

  struct run_connect_op
  {
    template <class ConnectHandler>
    void operator()(
        ConnectHandler&& h, basic_stream* s, const endpoint_type& ep)
    {
      static_assert(::boost::beast::detail::is_invocable<ConnectHandler,
                        void(error_code)>::value,
          "ConnectHandler type requirements not met");
      connect_op<std::decay_t<ConnectHandler>>(
          std::forward<ConnectHandler>(h), *s, ep);
    }
  };

  struct run_connect_range_op
  {
    template <class RangeConnectHandler, class EndpointSequence,
        class Condition>
    void operator()(RangeConnectHandler&& h, basic_stream* s,
        const EndpointSequence& eps, const Condition& cond)
    {
      static_assert(::boost::beast::detail::is_invocable<RangeConnectHandler,
                        void(error_code, typename Protocol::endpoint)>::value,
          "RangeConnectHandler type requirements not met");
      connect_op<std::decay_t<RangeConnectHandler>>(
          std::forward<RangeConnectHandler>(h), *s, eps, cond);
    }
  };

  struct run_connect_iter_op
  {
    template <class IteratorConnectHandler, class Iterator, class Condition>
    void operator()(IteratorConnectHandler&& h, basic_stream* s, Iterator begin,
        Iterator end, const Condition& cond)
    {
      static_assert(::boost::beast::detail::is_invocable<IteratorConnectHandler,
                        void(error_code, Iterator)>::value,
          "IteratorConnectHandler type requirements not met");
      connect_op<std::decay_t<IteratorConnectHandler>>(
          std::forward<IteratorConnectHandler>(h), *s, begin, end, cond);
    }
  };
};

}  // namespace beast
ASIO_WHEEL_NAMESPACE_END

#endif  // ASIO_WHEEL_BEAST_IMPL_BASIC_STREAM_OPS_HPP
