//
// asio_wheel/beast/detail/stream_state.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// stream_state: the shared state of one asio_wheel::beast::basic_stream
// (Beast's basic_stream::impl_type), held by a boost::shared_ptr so that it
// outlives the stream while operations are pending. It holds the socket,
// the read and write op_states with their timeouts
// (detail/stream_timeouts.hpp), the wheel of the socket's context, looked up
// once, and the rate policy with the wheel entry of its one-second slices.
//

#ifndef ASIO_WHEEL_BEAST_DETAIL_STREAM_STATE_HPP
#define ASIO_WHEEL_BEAST_DETAIL_STREAM_STATE_HPP

#include <asio_wheel/beast/detail/executor_queries.hpp>
#include <asio_wheel/beast/detail/rate_policy_access.hpp>
#include <asio_wheel/beast/detail/stream_timeouts.hpp>
#include <asio_wheel/detail/asio_forward.hpp>
#include <asio_wheel/detail/asio_operation.hpp>
#include <asio_wheel/wheel_timer_service.hpp>

#include <boost/asio/basic_stream_socket.hpp>
#include <boost/assert.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/stream_traits.hpp>
#include <boost/core/empty_value.hpp>
#include <boost/enable_shared_from_this.hpp>
#include <boost/shared_ptr.hpp>
#include <boost/weak_ptr.hpp>

#include <chrono>
#include <type_traits>
#include <utility>

ASIO_WHEEL_NAMESPACE_BEGIN
namespace beast {
namespace detail {

template <class Protocol, class Executor, class RatePolicy>
struct stream_state : boost::enable_shared_from_this<
                          stream_state<Protocol, Executor, RatePolicy>>,
                      boost::empty_value<RatePolicy>
{
  using socket_type = asio::basic_stream_socket<Protocol, Executor>;
  using executor_type = ::boost::beast::executor_type<socket_type>;
  using time_point = timeout_clock::time_point;
  using entry_type = timeout_service::implementation_type;
  using error_code = ::boost::beast::error_code;

  socket_type socket;
  Executor stream_ex;  // the socket's executor, kept for the upcalls
  asio::execution_context* const context;  // stream_ex's
  const bool stream_is_native;  // stream_ex is a plain io_context executor
  timeout_service& service;  // the context's wheel, looked up once
  op_state<stream_state> read;
  op_state<stream_state> write;
  entry_type rate_timer;  // the rate policy's one-second slices
  int waiting = 0;
  // The stream's own tolerance, if own(); else the context's applies.
  ::asio_wheel::detail::timer_slack tolerance;

  template <class... Args>
  explicit stream_state(std::false_type, Args&&... args)
    : socket(std::forward<Args>(args)...), stream_ex(socket.get_executor()),
      context(&detail::context_of(stream_ex)),
      stream_is_native(detail::is_native(stream_ex)),
      service(asio::use_service<timeout_service>(*context))
  {
    service.construct(rate_timer);
  }

  template <class RatePolicy_, class... Args>
  explicit stream_state(std::true_type, RatePolicy_&& policy, Args&&... args)
    : boost::empty_value<RatePolicy>(
        boost::empty_init_t{}, std::forward<RatePolicy_>(policy)),
      socket(std::forward<Args>(args)...), stream_ex(socket.get_executor()),
      context(&detail::context_of(stream_ex)),
      stream_is_native(detail::is_native(stream_ex)),
      service(asio::use_service<timeout_service>(*context))
  {
    service.construct(rate_timer);
  }

  stream_state(const stream_state&) = delete;
  stream_state& operator=(const stream_state&) = delete;

  ~stream_state()
  {
    // No timeout is armed (an armed one holds a reference to *this), so the
    // embedded timeouts' entries are out of the wheel.
    service.destroy(rate_timer);
  }

  RatePolicy& policy() noexcept
  {
    return this->boost::empty_value<RatePolicy>::get();
  }

  const RatePolicy& policy() const noexcept
  {
    return this->boost::empty_value<RatePolicy>::get();
  }

  executor_type ex() const noexcept { return stream_ex; }

  // Whether an operation's executor, @p op_ex, is a plain io_context
  // executor of the stream's context while the stream's is one too: then
  // it runs functions as the stream's does, and the timeout's upcall can
  // take the stream's, told without a copy. Whatever work either tracks:
  // Beast's composed operations hand out the stream's executor with
  // outstanding work tracked, which compares unequal to it. (Other
  // executors are kept for the upcall as they come: op_state::arm.)
  template <class OpExecutor>
  bool is_native_stream_executor(const OpExecutor& op_ex) const
  {
    if (!stream_is_native)
      return false;
    if constexpr (::asio_wheel::detail::may_be_native<OpExecutor>::value)
    {
      const auto* n = ::asio_wheel::detail::native_executor(op_ex);
      return n && &n->context() == context;
    }
    else
      return false;
  }

  // Both kinds: no timeout for the operations started from now on.
  void reset()
  {
    // Both a read and a write pending: nothing to apply the expiry to.
    BOOST_ASSERT(!read.pending || !write.pending);
    if (!read.pending)
      read.expiry = never();
    if (!write.pending)
      write.expiry = never();
  }

  // The timeouts from now on expire at t, set at `now` (read only if
  // the context's tolerance needs the length t - now).
  template <class Now>
  void set_expiry(time_point t, Now&& now)
  {
    // Both a read and a write pending: nothing to apply the expiry to.
    BOOST_ASSERT(!read.pending || !write.pending);
    const ::asio_wheel::detail::timer_slack slack =
        service.slack_for(tolerance, [&] { return t - now(); });
    if (!read.pending)
    {
      read.expiry = t;
      read.slack = slack;
    }
    if (!write.pending)
    {
      write.expiry = t;
      write.slack = slack;
    }
  }

  // Cancels everything: closes the socket, aborts the rate waits.
  void close() noexcept
  {
    {
      error_code ec;
      socket.close(ec);
    }
    try
    {
      service.cancel(rate_timer);
    }
    catch (...)
    {}
  }

  // The rate policy's one-second slice (Beast's impl_type::on_timer).
  template <class Executor2>
  void on_timer(const Executor2& ex2);

  template <class Executor2>
  struct rate_handler;
};

// The rate slice's own wait: keeps the slices going while the stream lives.
template <class Protocol, class Executor, class RatePolicy>
template <class Executor2>
struct stream_state<Protocol, Executor, RatePolicy>::rate_handler
  : boost::empty_value<Executor2>
{
  boost::weak_ptr<stream_state> wp;

  using executor_type = Executor2;

  executor_type get_executor() const noexcept { return this->get(); }

  rate_handler(const Executor2& ex2, const boost::shared_ptr<stream_state>& sp)
    : boost::empty_value<Executor2>(boost::empty_init_t{}, ex2), wp(sp)
  {}

  void operator()(error_code ec)
  {
    auto sp = wp.lock();
    if (!sp)
      return;
    if (ec == asio::error::operation_aborted)
      return;
    BOOST_ASSERT(!ec);
    if (ec)
      return;
    sp->on_timer(this->get());
  }
};

template <class Protocol, class Executor, class RatePolicy>
template <class Executor2>
void stream_state<Protocol, Executor, RatePolicy>::on_timer(
    const Executor2& ex2)
{
  BOOST_ASSERT(waiting > 0);

  // The last waiter starts the new slice.
  if (--waiting > 0)
    return;

  BOOST_VERIFY(service.expires_at(
                   rate_timer, timeout_clock::now() + std::chrono::seconds(1))
      == 0);

  detail::rate_access::on_timer(policy());

  // Wait on the slice again.
  ++waiting;
  rate_handler<Executor2> h(ex2, this->shared_from_this());
  service.async_wait(rate_timer, h, stream_ex);
}

}  // namespace detail
}  // namespace beast
ASIO_WHEEL_NAMESPACE_END

#endif  // ASIO_WHEEL_BEAST_DETAIL_STREAM_STATE_HPP
