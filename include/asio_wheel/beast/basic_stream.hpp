//
// asio_wheel/beast/basic_stream.hpp
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
// closes the socket there, as Beast's timeout handler does; a generation count makes a stale
// fire (for an operation that completed meanwhile) do nothing.
//
// Beast-only: needs the Boost.Asio flavour of the library.
//

#ifndef ASIO_WHEEL_BEAST_BASIC_STREAM_HPP
#define ASIO_WHEEL_BEAST_BASIC_STREAM_HPP

#include <asio_wheel/detail/config.hpp>

#if defined(ASIO_WHEEL_STANDALONE)
# error "asio_wheel/beast/basic_stream.hpp needs Boost.Beast, hence the Boost.Asio flavour of asio_wheel: do not define ASIO_WHEEL_STANDALONE (link asio_wheel::asio_wheel, not asio_wheel::asio_wheel_standalone)"
#endif

#include <asio_wheel/detail/asio_forward.hpp>
#include <asio_wheel/detail/asio_operation.hpp>
#include <asio_wheel/detail/wait_op.hpp>
#include <asio_wheel/wheel_timer_service.hpp>

#include <boost/asio/basic_stream_socket.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/coroutine.hpp>
#include <boost/asio/post.hpp>
#include <boost/assert.hpp>
#include <boost/beast/core/async_base.hpp>
#include <boost/beast/core/basic_stream.hpp>
#include <boost/beast/core/buffer_traits.hpp>
#include <boost/beast/core/buffers_prefix.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/rate_policy.hpp>
#include <boost/beast/core/role.hpp>
#include <boost/beast/core/stream_traits.hpp>
#include <boost/beast/version.hpp>
#include <boost/beast/websocket/teardown.hpp>
#include <boost/core/empty_value.hpp>
#include <boost/enable_shared_from_this.hpp>
#include <boost/make_shared.hpp>
#include <boost/shared_ptr.hpp>

#if BOOST_BEAST_VERSION >= 354
# include <boost/asio/append.hpp>
# include <boost/asio/dispatch.hpp>
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace boost { namespace asio { namespace ssl {
template <typename> class stream;
} } }

ASIO_WHEEL_NAMESPACE_BEGIN
namespace beast {
namespace detail {

// The key of the one specialization of boost::beast::basic_stream below: the
// rate policies' members are private, reachable only through
// boost::beast::rate_policy_access, whose friend is basic_stream.
struct rate_policy_key;

} // namespace detail
} // namespace beast
ASIO_WHEEL_NAMESPACE_END

namespace boost {
namespace beast {

// Not a stream: forwards to rate_policy_access (a friend of every
// specialization of basic_stream) so that asio_wheel::beast::basic_stream
// honours Beast's rate policies, and user-written ones, exactly as Beast's
// own stream does.
template <>
class basic_stream< ::asio_wheel::beast::detail::rate_policy_key, void, void>
{
public:
  template <class Policy>
  static std::size_t available_read_bytes(Policy& p)
  {
    return rate_policy_access::available_read_bytes(p);
  }

  template <class Policy>
  static std::size_t available_write_bytes(Policy& p)
  {
    return rate_policy_access::available_write_bytes(p);
  }

  template <class Policy>
  static void transfer_read_bytes(Policy& p, std::size_t n)
  {
    rate_policy_access::transfer_read_bytes(p, n);
  }

  template <class Policy>
  static void transfer_write_bytes(Policy& p, std::size_t n)
  {
    rate_policy_access::transfer_write_bytes(p, n);
  }

  template <class Policy>
  static void on_timer(Policy& p)
  {
    rate_policy_access::on_timer(p);
  }
};

} // namespace beast
} // namespace boost

ASIO_WHEEL_NAMESPACE_BEGIN
namespace beast {
namespace detail {

using rate_access = ::boost::beast::basic_stream<rate_policy_key, void, void>;

// The execution context of an executor, old or new style.
template <class Ex>
asio::execution_context& context_of(const Ex& ex)
{
  if constexpr (asio::execution::is_executor<Ex>::value)
    return asio::query(ex, asio::execution::context);
  else
    return ex.context();
}

// Whether ex is a plain io_context executor (behind any_io_executor or not).
template <class Ex>
bool is_native(const Ex& ex) noexcept
{
  if constexpr (std::is_same<Ex, asio::any_io_executor>::value)
    return ::asio_wheel::detail::native_executor(ex) != nullptr;
  else
    return std::is_same<Ex, asio::io_context::executor_type>::value;
}

// The fallback executor of the question below: a type no executor has.
struct no_executor_of_its_own
{
};

// Whether a handler of type Handler has an associated executor of its own,
// decided at compile time: asked with a fallback of a type no executor has,
// a handler without one can only answer with the fallback's type. (A handler
// whose executor type is fixed, as Beast's composed operations have, counts
// as having one: its value is then compared when armed.)
template <class Handler>
using has_executor_of_its_own = std::integral_constant<bool,
    !std::is_same<asio::associated_executor_t<Handler,
        no_executor_of_its_own>, no_executor_of_its_own>::value>;

// Always true: the connect condition of the overloads without one.
struct any_endpoint
{
  template <class Error, class Endpoint>
  bool operator()(const Error&, const Endpoint&) const noexcept
  {
    return true;
  }
};

} // namespace detail

/// A TCP/IP stream socket with timeouts and a rate policy, whose timeouts are
/// entries of the context's timing wheel.
/**
 * A drop-in replacement for `boost::beast::basic_stream`: the same template
 * parameters, members (Beast 1.81's) and semantics (those of the Beast it is
 * compiled with; tested with Beast 1.81, 1.87 and 1.90), so that changing the type
 * name is the only change user code needs. Beast's rate policies
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

  using clock_type = std::chrono::steady_clock;
  using time_point = clock_type::time_point;
  // Counts an op_state's completed timed operations: an upcall armed in an
  // earlier generation is stale. (Beast calls it a tick; the wheel's ticks
  // are time.)
  using generation_type = std::uint64_t;
  using service_type = wheel_timer_service<clock_type>;
  using entry_type = typename service_type::implementation_type;
  using error_code = ::boost::beast::error_code;

  static time_point never() noexcept { return (time_point::max)(); }

  struct impl_type;
  struct op_state;

  // One timeout: a wheel entry and its one wait operation. Each op_state
  // embeds one; another is allocated only when the embedded one is still on
  // its way to its upcall (a fire decided just as its operation completed)
  // and the next operation already starts.
  //
  // While armed, the timeout needs no reference to the stream's state: the
  // operation it times is pending and holds one. Once the wheel decides it,
  // that operation may complete (its withdraw fails) and the stream go before
  // the completion below runs, so the wheel's hook takes a reference then,
  // under the wheel's lock, where it cannot race with the withdraw: arming
  // and withdrawing touch no reference count.
  struct timeout_op : ::asio_wheel::detail::hooked_wait_op
  {
    explicit timeout_op(op_state* s, bool on_heap) noexcept
      : hooked_wait_op(&timeout_op::do_complete, &timeout_op::on_decided),
        state(s), heap(on_heap)
    {
    }

    entry_type entry;
    op_state* const state;
    impl_type* impl = nullptr;  // the stream's state, set when armed
    boost::shared_ptr<impl_type> keep;  // taken when decided (on_decided)
    // The operation's executor when the upcall is to run there (op_state's
    // arm), from the arm to the withdraw or the upcall; empty otherwise (the
    // upcall then runs on the stream's), so that the work it may track never
    // outlives the operation (or run() would not return while the stream
    // exists).
    asio::any_io_executor fire_ex;
    generation_type generation = 0;
    std::atomic<bool> busy{false};  // armed, or its upcall on its way
    const bool heap;

    // The wheel decided the timeout (it expired, or is abandoned at
    // shutdown). The operation is still pending: its state is alive.
    static void on_decided(::asio_wheel::detail::hooked_wait_op* base) noexcept
    {
      timeout_op* o = static_cast<timeout_op*>(base);
      o->keep = o->impl->weak_from_this().lock();
      BOOST_ASSERT(o->keep);
    }

    // Ready for the next arm: the embedded one is free again, one from the
    // heap is deleted.
    void release() noexcept
    {
      if (heap)
        delete this;
      else
        busy.store(false, std::memory_order_release);
    }

    // The wheel decided the timeout (owner != 0), or the context is shutting
    // down (owner == 0). Any thread running the context; never inside the
    // wheel's lock.
    static void do_complete(void* owner,
        ::asio_wheel::detail::scheduler_operation* base,
        const ::asio_wheel::error_code&, std::size_t)
    {
      timeout_op* o = static_cast<timeout_op*>(base);
      boost::shared_ptr<impl_type> sp(std::move(o->keep));
      op_state* const st = o->state;
      const generation_type generation = o->generation;
      // Moved out (leaving it empty), also at shutdown.
      asio::any_io_executor ex(std::move(o->fire_ex));
      o->release();
      if (!owner)
        return;  // destroyed with the context: drops the stream's state
      // Close the socket where Beast's timeout handler would: on the
      // operation's executor, serialized with the operation's own steps.
      if (ex)
        asio::post(ex, fire_handler{std::move(sp), st, generation});
      else
      {
        const Executor stream_ex = sp->stream_ex;
        asio::post(stream_ex, fire_handler{std::move(sp), st, generation});
      }
    }
  };

  // The timeout's upcall, on the operation's executor.
  struct fire_handler
  {
    boost::shared_ptr<impl_type> sp;
    op_state* st;
    generation_type generation;

    void operator()()
    {
      // Stale: the operation it was armed for has completed.
      if (generation < st->generation)
        return;
      st->timeout = true;
      sp->close();
    }
  };

  // What Beast's op_state holds, with the timer replaced by a wheel entry.
  struct op_state
  {
    timeout_op embedded{this, false};
    timeout_op* armed = nullptr;  // the armed timeout, if any
    time_point expiry = never();
    ::asio_wheel::detail::timer_slack slack;  // how late it may fire
    generation_type generation = 0;  // of the operation pending or next
    bool pending = false;     // an operation of this kind is pending
    bool timeout = false;     // the timeout closed the socket

    op_state() = default;
    op_state(const op_state&) = delete;
    op_state& operator=(const op_state&) = delete;

    // Arms the timeout for the operation starting now, whose handler has no
    // executor of its own: its upcall runs on the stream's executor.
    void arm(impl_type& impl)
    {
      file(impl, take(impl));
    }

    // Arms the timeout for the operation starting now, whose executor is
    // @p op_ex (its handler's associated executor). The handler has one of
    // its own (a strand bound with bind_executor, say): the upcall runs
    // there, as Beast's timeout handler does, provided it is an executor of
    // the stream's own context. Others (use_future's, which runs functions
    // on the system executor's threads) would touch the socket from a thread
    // of another context: the upcall then runs on the stream's executor.
    //
    // The executor is kept as it comes (moved in, neither converted nor
    // compared: with a strand each would be a reference-counted heap
    // object), work tracking and all, as Beast binds its timer's handler to
    // it. It lives only while the operation is pending, which tracks that
    // work anyway: the withdraw drops it, or the upcall.
    template <class OpExecutor>
    void arm(impl_type& impl, OpExecutor op_ex)
    {
      timeout_op* o = take(impl);
      if constexpr (std::is_convertible<OpExecutor,
            asio::any_io_executor>::value)
      {
        if (!impl.is_native_stream_executor(op_ex)
            && &detail::context_of(op_ex) == impl.context)
        {
          o->fire_ex = std::move(op_ex);
        }
      }
      file(impl, o);
    }

    // The operation completed: withdraws its timeout. True if the timeout
    // fired first (its upcall is on its way or has run).
    bool disarm(impl_type& impl)
    {
      timeout_op* o = std::exchange(armed, nullptr);
      ++generation;
      if (!impl.service.withdraw_timeout(o->entry, o))
        return true;
      if (o->fire_ex)
        o->fire_ex = asio::any_io_executor();
      o->release();
      return false;
    }

  private:
    // The embedded timeout, or a new one while the embedded one is still on
    // its way to its upcall.
    timeout_op* take(impl_type& impl)
    {
      timeout_op* o = &embedded;
      if (o->busy.load(std::memory_order_acquire))
        o = new timeout_op(this, true);
      o->busy.store(true, std::memory_order_relaxed);
      o->generation = generation;
      o->impl = &impl;
      return o;
    }

    void file(impl_type& impl, timeout_op* o)
    {
      armed = o;
      impl.service.arm_timeout(o->entry, o, expiry, slack);
    }
  };

  // Marks an operation kind (read, write) pending for the lifetime of an
  // operation; Beast allows one of each at a time. Moves with the operation.
  // The timeout holds no reference to the stream's state: the operation
  // does. So if the operation is destroyed without completing (starting its
  // next step threw, or an executor destroyed its handler unrun), its armed
  // timeout is withdrawn here, as nothing else would, before that state can
  // go.
  class pending_guard
  {
  public:
    pending_guard() noexcept = default;

    explicit pending_guard(op_state& st) noexcept { assign(st); }

    pending_guard(pending_guard&& other) noexcept
      : st_(std::exchange(other.st_, nullptr))
    {
    }

    pending_guard& operator=(pending_guard&&) = delete;

    ~pending_guard() { reset(); }

    void assign(op_state& st) noexcept
    {
      BOOST_ASSERT(!st_);
      // Two reads (or two writes) pending at once on one stream: not allowed.
      BOOST_ASSERT(!st.pending);
      st_ = &st;
      st.pending = true;
    }

    void reset() noexcept
    {
      if (!st_)
        return;
      op_state& st = *std::exchange(st_, nullptr);
      if (BOOST_UNLIKELY(st.armed != nullptr))
        withdraw_abandoned(st);
      st.pending = false;
    }

  private:
    // Out of line: every moved-from operation's guard is reset.
    BOOST_NOINLINE static void withdraw_abandoned(op_state& st) noexcept
    {
      try
      {
        st.disarm(*st.armed->impl);
      }
      catch (...)
      {
      }
    }

    op_state* st_ = nullptr;
  };

  struct impl_type
    : boost::enable_shared_from_this<impl_type>
    , boost::empty_value<RatePolicy>
  {
    socket_type socket;
    Executor stream_ex;      // the socket's executor, kept for the upcalls
    asio::execution_context* const context;  // stream_ex's
    const bool stream_is_native;  // stream_ex is a plain io_context executor
    service_type& service;   // the context's wheel, looked up once
    op_state read;
    op_state write;
    entry_type rate_timer;   // the rate policy's one-second slices
    int waiting = 0;
    // The stream's own tolerance, if own(); else the context's applies.
    ::asio_wheel::detail::timer_slack tolerance;

    template <class... Args>
    explicit impl_type(std::false_type, Args&&... args)
      : socket(std::forward<Args>(args)...),
        stream_ex(socket.get_executor()),
        context(&detail::context_of(stream_ex)),
        stream_is_native(detail::is_native(stream_ex)),
        service(asio::use_service<service_type>(*context))
    {
      service.construct(rate_timer);
    }

    template <class RatePolicy_, class... Args>
    explicit impl_type(std::true_type, RatePolicy_&& policy, Args&&... args)
      : boost::empty_value<RatePolicy>(boost::empty_init_t{},
            std::forward<RatePolicy_>(policy)),
        socket(std::forward<Args>(args)...),
        stream_ex(socket.get_executor()),
        context(&detail::context_of(stream_ex)),
        stream_is_native(detail::is_native(stream_ex)),
        service(asio::use_service<service_type>(*context))
    {
      service.construct(rate_timer);
    }

    impl_type(const impl_type&) = delete;
    impl_type& operator=(const impl_type&) = delete;

    ~impl_type()
    {
      // No timeout is armed: an armed one holds a reference to *this.
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
      using native = asio::io_context::executor_type;
      if (!stream_is_native)
        return false;
      if constexpr (std::is_same<OpExecutor, asio::any_io_executor>::value)
      {
        const native* n = ::asio_wheel::detail::native_executor(op_ex);
        return n && &n->context() == context;
      }
      else if constexpr (std::is_same<OpExecutor, native>::value)
        return &op_ex.context() == context;
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
      {
      }
    }

    // The rate policy's one-second slice (Beast's impl_type::on_timer).
    template <class Executor2>
    void on_timer(const Executor2& ex2);
  };

  // The rate slice's own wait: keeps the slices going while the stream lives.
  template <class Executor2>
  struct rate_handler : boost::empty_value<Executor2>
  {
    boost::weak_ptr<impl_type> wp;

    using executor_type = Executor2;

    executor_type get_executor() const noexcept { return this->get(); }

    rate_handler(const Executor2& ex2, const boost::shared_ptr<impl_type>& sp)
      : boost::empty_value<Executor2>(boost::empty_init_t{}, ex2), wp(sp)
    {
    }

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

  boost::shared_ptr<impl_type> impl_;

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
  ~basic_stream()
  {
    // A moved-from stream of the converting move has no state.
    if (impl_)
      impl_->close();
  }

  /// Constructor: forwards all arguments to the socket's constructor.
  /**
   * The socket then needs to be opened and connected or accepted before data
   * can be sent or received on it.
   * @param arg0, args The arguments of the socket's constructor (an
   * executor, an execution context, a socket to move, ...).
   */
  template <class Arg0, class... Args,
      class = std::enable_if_t<!std::is_constructible<RatePolicy, Arg0>::value>>
  explicit basic_stream(Arg0&& arg0, Args&&... args)
    : impl_(boost::make_shared<impl_type>(std::false_type{},
          std::forward<Arg0>(arg0), std::forward<Args>(args)...))
  {
  }

  /// Constructor: takes a rate policy, forwards the remaining arguments to
  /// the socket's constructor.
  /**
   * @param policy The rate policy, taken by decay-copy.
   * @param arg, args The arguments of the socket's constructor.
   */
  template <class RatePolicy_, class Arg0, class... Args,
      class = std::enable_if_t<std::is_constructible<RatePolicy, RatePolicy_>::value>>
  basic_stream(RatePolicy_&& policy, Arg0&& arg, Args&&... args)
    : impl_(boost::make_shared<impl_type>(std::true_type{},
          std::forward<RatePolicy_>(policy), std::forward<Arg0>(arg),
          std::forward<Args>(args)...))
  {
  }

  /// Converting move constructor, from a stream of another executor type:
  /// takes over the other stream's socket.
  template <class Executor_>
  explicit basic_stream(basic_stream<Protocol, Executor_, RatePolicy>&& other)
    : impl_(boost::make_shared<impl_type>(std::false_type{},
          std::move(other.impl_->socket)))
  {
  }

  /// Move constructor: takes over the other stream's socket, rate policy and
  /// expiry times.
  /**
   * @note Following the move, the moved-from object is in the same state as
   * if newly constructed (with the same executor).
   */
  basic_stream(basic_stream&& other)
    : impl_(boost::make_shared<impl_type>(std::true_type{},
          std::move(other.impl_->policy()), std::move(other.impl_->socket)))
  {
    impl_->read.expiry = std::exchange(other.impl_->read.expiry, never());
    impl_->write.expiry = std::exchange(other.impl_->write.expiry, never());
    impl_->read.slack = std::exchange(other.impl_->read.slack, {});
    impl_->write.slack = std::exchange(other.impl_->write.slack, {});
    impl_->tolerance = std::exchange(other.impl_->tolerance, {});
  }

  /// Move assignment (deleted, as Beast's).
  basic_stream& operator=(basic_stream&&) = delete;

  /// The underlying socket.
  socket_type& socket() noexcept { return impl_->socket; }

  /// The underlying socket.
  const socket_type& socket() const noexcept { return impl_->socket; }

  /// Releases ownership of the underlying socket: cancels the outstanding
  /// operations as cancel() does, then moves the socket out.
  socket_type release_socket()
  {
    this->cancel();
    return std::move(impl_->socket);
  }

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
  void expires_after(asio::steady_timer::duration expiry_time)
  {
    const time_point now = clock_type::now();
    impl_->set_expiry(now + expiry_time, [now] { return now; });
  }

  /// Sets the timeout of the logical operations started from now on to the
  /// time point @p expiry_time; as expires_after() otherwise.
  void expires_at(asio::steady_timer::time_point expiry_time)
  {
    impl_->set_expiry(expiry_time, [] { return clock_type::now(); });
  }

  /// Sets how late the timeouts set from now on may fire: up to @p late
  /// after their expiry (rounded down to whole ticks of the wheel), never
  /// before. It replaces the context's fraction (wheel_options::tolerance)
  /// for this stream; zero makes its timeouts precise. An idle timeout of
  /// minutes can tolerate seconds, and the timeouts of many connections
  /// then share wakeups (see doc/timeouts.md, "Tolerance").
  /// @throws std::invalid_argument if @p late is negative.
  void tolerance(asio::steady_timer::duration late)
  {
    if (late < asio::steady_timer::duration::zero())
      throw std::invalid_argument(
          "asio_wheel::beast::basic_stream::tolerance must not be negative");
    impl_->tolerance.set_own(impl_->service.slack_of(late));
  }

  /// Disables the timeout of the logical operations started from now on.
  void expires_never() { impl_->reset(); }

  /// Cancels all outstanding asynchronous operations.
  /**
   * Connects, reads and writes finish at once with
   * `net::error::operation_aborted`; handlers of operations that had already
   * completed receive their own result. The socket stays open.
   */
  void cancel()
  {
    error_code ec;
    impl_->socket.cancel(ec);
    impl_->service.cancel(impl_->rate_timer);
  }

  /// Closes the stream: cancels all outstanding operations as cancel() does,
  /// and closes the underlying socket.
  void close() { impl_->close(); }

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
      class = std::enable_if_t<
        asio::is_endpoint_sequence<EndpointSequence>::value>>
  typename Protocol::endpoint connect(const EndpointSequence& endpoints)
  {
    return asio::connect(socket(), endpoints);
  }

  /// Connects to the first endpoint of @p endpoints that accepts (blocking).
  /// @returns The endpoint connected to, or a default one on failure.
  template <class EndpointSequence,
      class = std::enable_if_t<
        asio::is_endpoint_sequence<EndpointSequence>::value>>
  typename Protocol::endpoint connect(const EndpointSequence& endpoints,
      error_code& ec)
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
      class = std::enable_if_t<
        asio::is_endpoint_sequence<EndpointSequence>::value>>
  typename Protocol::endpoint connect(const EndpointSequence& endpoints,
      ConnectCondition connect_condition)
  {
    return asio::connect(socket(), endpoints, connect_condition);
  }

  /// As above, reporting failure in @p ec.
  template <class EndpointSequence, class ConnectCondition,
      class = std::enable_if_t<
        asio::is_endpoint_sequence<EndpointSequence>::value>>
  typename Protocol::endpoint connect(const EndpointSequence& endpoints,
      ConnectCondition connect_condition, error_code& ec)
  {
    return asio::connect(socket(), endpoints, connect_condition, ec);
  }

  /// Connects to the first endpoint of [@p begin, @p end) that
  /// @p connect_condition accepts and that accepts the connection (blocking).
  template <class Iterator, class ConnectCondition>
  Iterator connect(Iterator begin, Iterator end,
      ConnectCondition connect_condition)
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
        asio::default_completion_token_t<executor_type>{})
  {
    return asio::async_initiate<ConnectHandler, void(error_code)>(
        typename ops::run_connect_op{}, handler, this, ep);
  }

  /// Connects asynchronously to the first endpoint of @p endpoints that
  /// accepts, with the stream's timeout over the whole attempt.
  /**
   * Signature: `void(error_code, typename Protocol::endpoint)`.
   */
  template <class EndpointSequence,
      BOOST_ASIO_COMPLETION_TOKEN_FOR(
        void(error_code, typename Protocol::endpoint)) RangeConnectHandler =
          asio::default_completion_token_t<executor_type>,
      class = std::enable_if_t<
        asio::is_endpoint_sequence<EndpointSequence>::value>>
  BOOST_ASIO_INITFN_RESULT_TYPE(RangeConnectHandler,
      void(error_code, typename Protocol::endpoint))
  async_connect(const EndpointSequence& endpoints,
      RangeConnectHandler&& handler =
        asio::default_completion_token_t<executor_type>{})
  {
    return asio::async_initiate<RangeConnectHandler,
        void(error_code, typename Protocol::endpoint)>(
          typename ops::run_connect_range_op{}, handler, this, endpoints,
          detail::any_endpoint{});
  }

  /// As above, trying only the endpoints @p connect_condition accepts:
  /// `bool(const error_code& ec, const typename Protocol::endpoint& next)`.
  template <class EndpointSequence, class ConnectCondition,
      BOOST_ASIO_COMPLETION_TOKEN_FOR(
        void(error_code, typename Protocol::endpoint)) RangeConnectHandler =
          asio::default_completion_token_t<executor_type>,
      class = std::enable_if_t<
        asio::is_endpoint_sequence<EndpointSequence>::value>>
  BOOST_ASIO_INITFN_RESULT_TYPE(RangeConnectHandler,
      void(error_code, typename Protocol::endpoint))
  async_connect(const EndpointSequence& endpoints,
      ConnectCondition connect_condition,
      RangeConnectHandler&& handler =
        asio::default_completion_token_t<executor_type>{})
  {
    return asio::async_initiate<RangeConnectHandler,
        void(error_code, typename Protocol::endpoint)>(
          typename ops::run_connect_range_op{}, handler, this, endpoints,
          connect_condition);
  }

  /// Connects asynchronously to the first endpoint of [@p begin, @p end)
  /// that accepts, with the stream's timeout over the whole attempt.
  /**
   * Signature: `void(error_code, Iterator)`.
   */
  template <class Iterator,
      BOOST_ASIO_COMPLETION_TOKEN_FOR(void(error_code, Iterator))
        IteratorConnectHandler =
          asio::default_completion_token_t<executor_type>>
  BOOST_ASIO_INITFN_RESULT_TYPE(IteratorConnectHandler,
      void(error_code, Iterator))
  async_connect(Iterator begin, Iterator end,
      IteratorConnectHandler&& handler =
        asio::default_completion_token_t<executor_type>{})
  {
    return asio::async_initiate<IteratorConnectHandler,
        void(error_code, Iterator)>(
          typename ops::run_connect_iter_op{}, handler, this, begin, end,
          detail::any_endpoint{});
  }

  /// As above, trying only the endpoints @p connect_condition accepts.
  template <class Iterator, class ConnectCondition,
      BOOST_ASIO_COMPLETION_TOKEN_FOR(void(error_code, Iterator))
        IteratorConnectHandler =
          asio::default_completion_token_t<executor_type>>
  BOOST_ASIO_INITFN_RESULT_TYPE(IteratorConnectHandler,
      void(error_code, Iterator))
  async_connect(Iterator begin, Iterator end,
      ConnectCondition connect_condition,
      IteratorConnectHandler&& handler =
        asio::default_completion_token_t<executor_type>{})
  {
    return asio::async_initiate<IteratorConnectHandler,
        void(error_code, Iterator)>(
          typename ops::run_connect_iter_op{}, handler, this, begin, end,
          connect_condition);
  }

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
        asio::default_completion_token_t<executor_type>{})
  {
    static_assert(asio::is_mutable_buffer_sequence<
        MutableBufferSequence>::value,
        "MutableBufferSequence type requirements not met");
    return asio::async_initiate<ReadHandler, void(error_code, std::size_t)>(
        typename ops::run_read_op{}, handler, this, buffers);
  }

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
      WriteHandler&& handler =
        asio::default_completion_token_t<Executor>{})
  {
    static_assert(asio::is_const_buffer_sequence<
        ConstBufferSequence>::value,
        "ConstBufferSequence type requirements not met");
    return asio::async_initiate<WriteHandler, void(error_code, std::size_t)>(
        typename ops::run_write_op{}, handler, this, buffers);
  }
};

//------------------------------------------------------------------------------

template <class Protocol, class Executor, class RatePolicy>
template <class Executor2>
void basic_stream<Protocol, Executor, RatePolicy>::impl_type::on_timer(
    const Executor2& ex2)
{
  BOOST_ASSERT(waiting > 0);

  // The last waiter starts the new slice.
  if (--waiting > 0)
    return;

  BOOST_VERIFY(service.expires_at(rate_timer,
        clock_type::now() + std::chrono::seconds(1)) == 0);

  detail::rate_access::on_timer(policy());

  // Wait on the slice again.
  ++waiting;
  rate_handler<Executor2> h(ex2, this->shared_from_this());
  service.async_wait(rate_timer, h, stream_ex);
}

template <class Protocol, class Executor, class RatePolicy>
struct basic_stream<Protocol, Executor, RatePolicy>::ops
{
  // Arms st's timeout for op, an operation starting now whose handler is of
  // type Handler: op's executor is the stream's unless the handler has one
  // of its own, so without one it is neither asked for (a copy) nor
  // compared. With one, it is the handler's: asked of the handler directly,
  // which spares the copy of op's own fallback that op.get_executor() makes
  // (each layer of Beast's composed operations makes one more).
  template <class Handler, class Op>
  static void arm_timeout(impl_type& impl, op_state& st, const Op& op)
  {
    if constexpr (detail::has_executor_of_its_own<Handler>::value)
      st.arm(impl,
          asio::get_associated_executor(op.handler(), impl.stream_ex));
    else
      st.arm(impl);
  }

  // The operation is over: withdraws its timeout, if one is armed. If the
  // timeout fired first and closed the socket, the result is timeout.
  static void end_timeout(impl_type& impl, op_state& st, error_code& ec)
  {
    if (!st.armed)
      return;
    if (st.disarm(impl) && st.timeout)
    {
      ec = ::boost::beast::error::timeout;
      st.timeout = false;
    }
  }

  template <bool isRead, class Buffers, class Handler>
  class transfer_op
    : public ::boost::beast::async_base<Handler, Executor>
    , public asio::coroutine
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
        impl_(s.impl_),
        b_(b)
    {
      this->set_allowed_cancellation(asio::cancellation_type::all);
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
#if BOOST_BEAST_VERSION >= 354
        // The timeout has already elapsed: as Beast since 354 (Boost 1.86,
        // its commit 2dcdef38), whatever the buffers, the operation completes
        // with timeout through the handler's immediate executor, and the
        // socket is closed.
        // (An untimed stream reads no clock.)
        if (state().expiry != never() && state().expiry <= clock_type::now())
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
#if BOOST_BEAST_VERSION < 354
          if (state().expiry <= clock_type::now())
          {
            impl_->close();
            ec = ::boost::beast::error::timeout;
          }
#endif
          goto upcall;
        }

        // A timeout is set: arm it in the wheel.
        if (state().expiry != never())
          arm_timeout<Handler>(*impl_, state(), *this);

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
            end_timeout(*impl_, state(), ec);
            goto upcall;
          }
          impl_->on_timer(this->get_executor());

          // At least one byte, else bytes_transferred could be 0.
          amount = (std::max<std::size_t>)(available_bytes(), 1);
        }

        BOOST_ASIO_CORO_YIELD
          async_perform(amount, is_read{});

        end_timeout(*impl_, state(), ec);

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
      this->set_allowed_cancellation(asio::cancellation_type::all);
      if (state().expiry != never())
        arm_timeout<Handler>(*impl_, state(), *this);
    }

  public:
    template <class Handler_>
    connect_op(Handler_&& h, basic_stream& s, endpoint_type ep)
      : ::boost::beast::async_base<Handler, Executor>(
            std::forward<Handler_>(h), s.get_executor()),
        impl_(s.impl_),
        pg0_(impl_->read),
        pg1_(impl_->write)
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
        impl_(s.impl_),
        pg0_(impl_->read),
        pg1_(impl_->write)
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
        impl_(s.impl_),
        pg0_(impl_->read),
        pg1_(impl_->write)
    {
      start_timeout();
      impl_type& impl = *impl_;
      asio::async_connect(impl.socket, begin, end, cond, std::move(*this));
    }

    template <class... Args>
    void operator()(error_code ec, Args&&... args)
    {
      end_timeout(*impl_, state(), ec);
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
    void operator()(ConnectHandler&& h, basic_stream* s,
        const endpoint_type& ep)
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
    void operator()(IteratorConnectHandler&& h, basic_stream* s,
        Iterator begin, Iterator end, const Condition& cond)
    {
      static_assert(::boost::beast::detail::is_invocable<
          IteratorConnectHandler, void(error_code, Iterator)>::value,
          "IteratorConnectHandler type requirements not met");
      connect_op<std::decay_t<IteratorConnectHandler>>(
          std::forward<IteratorConnectHandler>(h), *s, begin, end, cond);
    }
  };
};

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
  async_teardown(role, stream.socket(),
      std::forward<TeardownHandler>(handler));
}

} // namespace beast
ASIO_WHEEL_NAMESPACE_END

#endif // ASIO_WHEEL_BEAST_BASIC_STREAM_HPP
