//
// asio_wheel/beast/basic_stream.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// asio_wheel::beast::basic_stream: a drop-in replacement for
// boost::beast::basic_stream (Beast 1.81's members, and the semantics of the
// Beast it is compiled with: tested with 1.81, 1.87 and 1.90) whose
// timeouts are entries of the context's timing wheel instead of
// steady_timer waits. Each of the stream's two operation states (read and
// write; connect uses both) embeds one wheel entry with its wait operation:
// starting a timed read or write arms it (O(1), no allocation), completing
// the read or write withdraws it (O(1), no completion, no allocation). When
// a timeout fires, its upcall hops onto the operation's executor (the
// stream's, unless the handler has one of its own in the same context) and
// closes the socket there, as Beast's timeout handler does; a generation
// count makes a stale fire (for an operation that completed meanwhile) do
// nothing.
//
// This file declares and documents the class, as Beast's
// boost/beast/core/basic_stream.hpp does; impl/basic_stream.hpp (included at
// the end) defines its operations, and detail/ holds its shared state
// (stream_state.hpp), its timeouts (stream_timeouts.hpp, pending_guard.hpp)
// and its helpers.
//
// Beast-only: needs the Boost.Asio flavour of the library.
//

#ifndef ASIO_WHEEL_BEAST_BASIC_STREAM_HPP
#define ASIO_WHEEL_BEAST_BASIC_STREAM_HPP

#include <asio_wheel/detail/config.hpp>

// Without an Asio it can use, config.hpp's one line is all (see there).
#if !defined(ASIO_WHEEL_ASIO_UNUSABLE)

# if defined(ASIO_WHEEL_STANDALONE)
#  error                                                                       \
      "asio_wheel/beast/basic_stream.hpp needs Boost.Beast, hence the Boost.Asio flavour of asio_wheel: do not define ASIO_WHEEL_STANDALONE (link asio_wheel::asio_wheel, not asio_wheel::asio_wheel_standalone)"
# endif

// Beast's version, then config.hpp again: its Beast gates (see there).
# include <boost/beast/version.hpp>

# include <asio_wheel/detail/config.hpp>

# if !defined(ASIO_WHEEL_BEAST_VERSION)
#  error                                                                       \
      "asio_wheel: the Beast gates of asio_wheel/detail/config.hpp are not defined"
# endif

# include <asio_wheel/beast/detail/pending_guard.hpp>
# include <asio_wheel/beast/detail/stream_state.hpp>
# include <asio_wheel/beast/detail/stream_timeouts.hpp>
# include <asio_wheel/detail/asio_forward.hpp>

# include <boost/asio/basic_stream_socket.hpp>
# include <boost/asio/connect.hpp>
# include <boost/asio/steady_timer.hpp>
# include <boost/beast/core/detail/config.hpp>
# include <boost/beast/core/error.hpp>
# include <boost/beast/core/rate_policy.hpp>
# include <boost/beast/core/stream_traits.hpp>
# include <boost/shared_ptr.hpp>

# include <cstddef>
# include <type_traits>

namespace boost {
namespace asio {
namespace ssl {
template <typename>
class stream;
}
}  // namespace asio
}  // namespace boost

ASIO_WHEEL_NAMESPACE_BEGIN
namespace beast {

/// A TCP/IP stream socket with timeouts and a rate policy, whose timeouts are
/// entries of the context's timing wheel.
/**
 * A drop-in replacement for `boost::beast::basic_stream`: the same template
 * parameters, members (Beast 1.81's) and semantics (those of the Beast it is
 * compiled with; tested with Beast 1.81, 1.87 and 1.90), so that changing
 * the type name is the only change user code needs. Beast's rate policies
 * (`boost::beast::unlimited_rate_policy`, `boost::beast::simple_rate_policy`)
 * and user-written ones work unchanged.
 *
 * Before each logical operation for which a timeout is wanted, call
 * expires_after() or expires_at(); expires_never() disables it. The timeout
 * applies collectively to all reads and writes (and connects) started after
 * it was set, until it is set again. When it elapses while an operation is
 * pending, the socket is closed (on the operation's executor) and the pending
 * operations complete with `boost::beast::error::timeout`; if it elapses while
 * no operation of that kind is pending, the next one times out at once.
 *
 * What differs from Beast is invisible to the caller: a timeout is an entry
 * of the `wheel_timer_service<std::chrono::steady_clock>` of the socket's
 * execution context, armed when an operation starts and withdrawn, with no
 * completion and no allocation, when it completes (Beast starts and cancels
 * a `steady_timer` wait, whose cancelled completion goes through the
 * executor). A timeout fires at the first wheel tick at or after its expiry
 * (wheel_options::tick, 1 ms by default).
 *
 * @par Thread Safety
 * Distinct objects: Safe. Shared objects: Unsafe. As with Beast, all
 * asynchronous operations must be performed within the same implicit or
 * explicit strand (for example a stream constructed on
 * `net::make_strand(ioc)`).
 *
 * @tparam Protocol The protocol of the socket, e.g. `net::ip::tcp`.
 * @tparam Executor The executor of the socket and of the handlers that have
 * no associated executor of their own.
 * @tparam RatePolicy A rate policy, as Beast's (`unlimited_rate_policy` by
 * default).
 */
template <class Protocol, class Executor = asio::any_io_executor,
    class RatePolicy = ::boost::beast::unlimited_rate_policy>
class basic_stream
{
public:
  /// The type of the underlying socket.
  using socket_type = asio::basic_stream_socket<Protocol, Executor>;

  /// The type of the executor associated with the stream: the one used to
  /// invoke completion handlers that have no associated executor.
  using executor_type = ::boost::beast::executor_type<socket_type>;

  /// Rebinds the stream type to another executor.
  template <class Executor1>
  struct rebind_executor
  {
    /// The stream type when rebound to the specified executor.
    using other = basic_stream<Protocol, Executor1, RatePolicy>;
  };

  /// The protocol type.
  using protocol_type = Protocol;

  /// The endpoint type.
  using endpoint_type = typename Protocol::endpoint;

private:
  static_assert(asio::is_executor<Executor>::value
          || asio::execution::is_executor<Executor>::value,
      "Executor type requirements not met");

  using clock_type = detail::timeout_clock;
  using time_point = clock_type::time_point;
  using error_code = ::boost::beast::error_code;

  // The state the stream shares with its pending operations (Beast's
  // impl_type), its read and write op_states, and the guard marking one
  // pending: detail/stream_state.hpp, detail/stream_timeouts.hpp,
  // detail/pending_guard.hpp.
  using impl_type = detail::stream_state<Protocol, Executor, RatePolicy>;
  using op_state = detail::op_state<impl_type>;
  using pending_guard = detail::pending_guard<impl_type>;

  boost::shared_ptr<impl_type> impl_;

  // The composed operations and their initiations:
  // impl/basic_stream_ops.hpp.
  struct ops;

  template <class>
  friend class ::boost::asio::ssl::stream;

  template <class, class, class>
  friend class basic_stream;

  using lowest_layer_type = socket_type;

  lowest_layer_type& lowest_layer() noexcept { return impl_->socket; }

  const lowest_layer_type& lowest_layer() const noexcept
  {
    return impl_->socket;
  }

public:
  /// Destructor: cancels the outstanding operations (by closing the socket)
  /// so that the shared state goes as soon as they have completed.
  ~basic_stream();

  /// Constructor: forwards all arguments to the socket's constructor.
  /**
   * The socket then needs to be opened and connected or accepted before data
   * can be sent or received on it.
   * @param arg0, args The arguments of the socket's constructor (an
   * executor, an execution context, a socket to move, ...).
   */
  template <class Arg0, class... Args,
      class = std::enable_if_t<!std::is_constructible<RatePolicy, Arg0>::value>>
  explicit basic_stream(Arg0&& arg0, Args&&... args);

  /// Constructor: takes a rate policy, forwards the remaining arguments to
  /// the socket's constructor.
  /**
   * @param policy The rate policy, taken by decay-copy.
   * @param arg, args The arguments of the socket's constructor.
   */
  template <class RatePolicy_, class Arg0, class... Args,
      class = std::enable_if_t<
          std::is_constructible<RatePolicy, RatePolicy_>::value>>
  basic_stream(RatePolicy_&& policy, Arg0&& arg, Args&&... args);

# if defined(ASIO_WHEEL_BEAST_HAS_REBINDING_MOVE)
  /// Converting move constructor, from a stream of another executor type:
  /// takes over the other stream's socket. Where Beast has it (Beast 345,
  /// Boost 1.81, and later).
  template <class Executor_>
  explicit basic_stream(basic_stream<Protocol, Executor_, RatePolicy>&& other);
# endif

  /// Move constructor: takes over the other stream's socket, rate policy and
  /// expiry times.
  /**
   * @note Following the move, the moved-from object is in the same state as
   * if newly constructed (with the same executor).
   */
  basic_stream(basic_stream&& other);

  /// Move assignment (deleted, as Beast's).
  basic_stream& operator=(basic_stream&&) = delete;

  /// The underlying socket.
  socket_type& socket() noexcept { return impl_->socket; }

  /// The underlying socket.
  const socket_type& socket() const noexcept { return impl_->socket; }

  /// Releases ownership of the underlying socket: cancels the outstanding
  /// operations as cancel() does, then moves the socket out.
  socket_type release_socket();

  /// The rate policy.
  RatePolicy& rate_policy() noexcept { return impl_->policy(); }

  /// The rate policy.
  const RatePolicy& rate_policy() const noexcept { return impl_->policy(); }

  /// Sets the timeout of the logical operations started from now on to
  /// @p expiry_time from now.
  /**
   * If it elapses while a read, write or connect is outstanding, the stream
   * is closed and the outstanding operations complete with
   * `boost::beast::error::timeout`. If it elapses while none is, and is not
   * set again, the next operation times out at once. It applies collectively
   * to the reads and writes initiated after it is set; async_connect counts
   * as both. A kind (read or write) with an operation pending keeps the
   * timeout that operation started with.
   */
  void expires_after(asio::steady_timer::duration expiry_time);

  /// Sets the timeout of the logical operations started from now on to the
  /// time point @p expiry_time; as expires_after() otherwise.
  void expires_at(asio::steady_timer::time_point expiry_time);

  /// Sets how late the timeouts set from now on may fire: up to @p late
  /// after their expiry (rounded down to whole ticks of the wheel), never
  /// before. It replaces the context's fraction (wheel_options::tolerance)
  /// for this stream; zero makes its timeouts precise. An idle timeout of
  /// minutes can tolerate seconds, and the timeouts of many connections
  /// then share wakeups (see doc/timeouts.md, "Tolerance").
  /// @throws std::invalid_argument if @p late is negative.
  void tolerance(asio::steady_timer::duration late);

  /// Disables the timeout of the logical operations started from now on.
  void expires_never();

  /// Cancels all outstanding asynchronous operations.
  /**
   * Connects, reads and writes finish at once with
   * `net::error::operation_aborted`; handlers of operations that had already
   * completed receive their own result. The socket stays open.
   */
  void cancel();

  /// Closes the stream: cancels all outstanding operations as cancel() does,
  /// and closes the underlying socket.
  void close();

  /// The executor used to invoke handlers without an associated executor.
  executor_type get_executor() noexcept { return impl_->ex(); }

  /// Connects the socket to @p ep (blocking; opened if needed). No timeout.
  /// @throws system_error on failure.
  void connect(const endpoint_type& ep) { socket().connect(ep); }

  /// Connects the socket to @p ep (blocking; opened if needed). No timeout.
  void connect(const endpoint_type& ep, error_code& ec)
  {
    socket().connect(ep, ec);
  }

  /// Connects to the first endpoint of @p endpoints that accepts (blocking).
  /// @returns The endpoint connected to. @throws system_error on failure.
  template <class EndpointSequence,
      class =
          std::enable_if_t<asio::is_endpoint_sequence<EndpointSequence>::value>>
  typename Protocol::endpoint connect(const EndpointSequence& endpoints)
  {
    return asio::connect(socket(), endpoints);
  }

  /// Connects to the first endpoint of @p endpoints that accepts (blocking).
  /// @returns The endpoint connected to, or a default one on failure.
  template <class EndpointSequence,
      class =
          std::enable_if_t<asio::is_endpoint_sequence<EndpointSequence>::value>>
  typename Protocol::endpoint connect(
      const EndpointSequence& endpoints, error_code& ec)
  {
    return asio::connect(socket(), endpoints, ec);
  }

  /// Connects to the first endpoint of [@p begin, @p end) that accepts
  /// (blocking). @returns An iterator to it. @throws system_error on failure.
  template <class Iterator>
  Iterator connect(Iterator begin, Iterator end)
  {
    return asio::connect(socket(), begin, end);
  }

  /// Connects to the first endpoint of [@p begin, @p end) that accepts
  /// (blocking). @returns An iterator to it, or @p end on failure.
  template <class Iterator>
  Iterator connect(Iterator begin, Iterator end, error_code& ec)
  {
    return asio::connect(socket(), begin, end, ec);
  }

  /// Connects to the first endpoint of @p endpoints that @p connect_condition
  /// accepts and that accepts the connection (blocking).
  template <class EndpointSequence, class ConnectCondition,
      class =
          std::enable_if_t<asio::is_endpoint_sequence<EndpointSequence>::value>>
  typename Protocol::endpoint connect(
      const EndpointSequence& endpoints, ConnectCondition connect_condition)
  {
    return asio::connect(socket(), endpoints, connect_condition);
  }

  /// As above, reporting failure in @p ec.
  template <class EndpointSequence, class ConnectCondition,
      class =
          std::enable_if_t<asio::is_endpoint_sequence<EndpointSequence>::value>>
  typename Protocol::endpoint connect(const EndpointSequence& endpoints,
      ConnectCondition connect_condition, error_code& ec)
  {
    return asio::connect(socket(), endpoints, connect_condition, ec);
  }

  /// Connects to the first endpoint of [@p begin, @p end) that
  /// @p connect_condition accepts and that accepts the connection (blocking).
  template <class Iterator, class ConnectCondition>
  Iterator connect(
      Iterator begin, Iterator end, ConnectCondition connect_condition)
  {
    return asio::connect(socket(), begin, end, connect_condition);
  }

  /// As above, reporting failure in @p ec.
  template <class Iterator, class ConnectCondition>
  Iterator connect(Iterator begin, Iterator end,
      ConnectCondition connect_condition, error_code& ec)
  {
    return asio::connect(socket(), begin, end, connect_condition, ec);
  }

  /// Connects the socket to @p ep asynchronously, with the stream's timeout
  /// (it counts as both a read and a write).
  /**
   * The socket is opened if needed. Signature: `void(error_code)`;
   * `boost::beast::error::timeout` if the timeout elapsed.
   */
  template <BOOST_BEAST_ASYNC_TPARAM1 ConnectHandler =
                asio::default_completion_token_t<executor_type>>
  BOOST_BEAST_ASYNC_RESULT1(ConnectHandler)
  async_connect(const endpoint_type& ep,
      ConnectHandler&& handler =
          asio::default_completion_token_t<executor_type>{});

  /// Connects asynchronously to the first endpoint of @p endpoints that
  /// accepts, with the stream's timeout over the whole attempt.
  /**
   * Signature: `void(error_code, typename Protocol::endpoint)`.
   */
  template <class EndpointSequence,
      BOOST_ASIO_COMPLETION_TOKEN_FOR(
          void(error_code, typename Protocol::endpoint))
          RangeConnectHandler = asio::default_completion_token_t<executor_type>,
      class =
          std::enable_if_t<asio::is_endpoint_sequence<EndpointSequence>::value>>
  BOOST_ASIO_INITFN_RESULT_TYPE(
      RangeConnectHandler, void(error_code, typename Protocol::endpoint))
  async_connect(const EndpointSequence& endpoints,
      RangeConnectHandler&& handler =
          asio::default_completion_token_t<executor_type>{});

  /// As above, trying only the endpoints @p connect_condition accepts:
  /// `bool(const error_code& ec, const typename Protocol::endpoint& next)`.
  template <class EndpointSequence, class ConnectCondition,
      BOOST_ASIO_COMPLETION_TOKEN_FOR(
          void(error_code, typename Protocol::endpoint))
          RangeConnectHandler = asio::default_completion_token_t<executor_type>,
      class =
          std::enable_if_t<asio::is_endpoint_sequence<EndpointSequence>::value>>
  BOOST_ASIO_INITFN_RESULT_TYPE(
      RangeConnectHandler, void(error_code, typename Protocol::endpoint))
  async_connect(const EndpointSequence& endpoints,
      ConnectCondition connect_condition,
      RangeConnectHandler&& handler =
          asio::default_completion_token_t<executor_type>{});

  /// Connects asynchronously to the first endpoint of [@p begin, @p end)
  /// that accepts, with the stream's timeout over the whole attempt.
  /**
   * Signature: `void(error_code, Iterator)`.
   */
  template <class Iterator,
      BOOST_ASIO_COMPLETION_TOKEN_FOR(void(error_code, Iterator))
          IteratorConnectHandler =
              asio::default_completion_token_t<executor_type>>
  BOOST_ASIO_INITFN_RESULT_TYPE(
      IteratorConnectHandler, void(error_code, Iterator))
  async_connect(Iterator begin, Iterator end,
      IteratorConnectHandler&& handler =
          asio::default_completion_token_t<executor_type>{});

  /// As above, trying only the endpoints @p connect_condition accepts.
  template <class Iterator, class ConnectCondition,
      BOOST_ASIO_COMPLETION_TOKEN_FOR(void(error_code, Iterator))
          IteratorConnectHandler =
              asio::default_completion_token_t<executor_type>>
  BOOST_ASIO_INITFN_RESULT_TYPE(
      IteratorConnectHandler, void(error_code, Iterator))
  async_connect(Iterator begin, Iterator end,
      ConnectCondition connect_condition,
      IteratorConnectHandler&& handler =
          asio::default_completion_token_t<executor_type>{});

  /// Reads some data (blocking, no timeout, no rate limit).
  /// @throws system_error on failure.
  template <class MutableBufferSequence>
  std::size_t read_some(const MutableBufferSequence& buffers)
  {
    return impl_->socket.read_some(buffers);
  }

  /// Reads some data (blocking, no timeout, no rate limit).
  template <class MutableBufferSequence>
  std::size_t read_some(const MutableBufferSequence& buffers, error_code& ec)
  {
    return impl_->socket.read_some(buffers, ec);
  }

  /// Reads some data asynchronously, with the stream's timeout and rate
  /// policy.
  /**
   * Signature: `void(error_code, std::size_t)`;
   * `boost::beast::error::timeout` if the timeout elapsed. At most one read
   * may be pending at a time.
   */
  template <class MutableBufferSequence,
      BOOST_BEAST_ASYNC_TPARAM2 ReadHandler =
          asio::default_completion_token_t<executor_type>>
  BOOST_BEAST_ASYNC_RESULT2(ReadHandler)
  async_read_some(const MutableBufferSequence& buffers,
      ReadHandler&& handler =
          asio::default_completion_token_t<executor_type>{});

  /// Writes some data (blocking, no timeout, no rate limit).
  /// @throws system_error on failure.
  template <class ConstBufferSequence>
  std::size_t write_some(const ConstBufferSequence& buffers)
  {
    return impl_->socket.write_some(buffers);
  }

  /// Writes some data (blocking, no timeout, no rate limit).
  template <class ConstBufferSequence>
  std::size_t write_some(const ConstBufferSequence& buffers, error_code& ec)
  {
    return impl_->socket.write_some(buffers, ec);
  }

  /// Writes some data asynchronously, with the stream's timeout and rate
  /// policy.
  /**
   * Signature: `void(error_code, std::size_t)`;
   * `boost::beast::error::timeout` if the timeout elapsed. At most one write
   * may be pending at a time.
   */
  template <class ConstBufferSequence,
      BOOST_BEAST_ASYNC_TPARAM2 WriteHandler =
          asio::default_completion_token_t<Executor>>
  BOOST_BEAST_ASYNC_RESULT2(WriteHandler)
  async_write_some(const ConstBufferSequence& buffers,
      WriteHandler&& handler = asio::default_completion_token_t<Executor>{});
};

}  // namespace beast
ASIO_WHEEL_NAMESPACE_END

# include <asio_wheel/beast/impl/basic_stream.hpp>

#endif  // !defined(ASIO_WHEEL_ASIO_UNUSABLE)

#endif  // ASIO_WHEEL_BEAST_BASIC_STREAM_HPP
