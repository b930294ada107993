//
// asio_wheel/detail/timed_cancel_op.hpp
//
// The state of one operation started with asio_wheel::cancel_after or
// cancel_at: the user's handler, the cancellation signal the operation
// listens to, and the timeout, an entry of the context's wheel with one wait
// operation (this object itself). One allocation, with the handler's
// associated allocator; no timer object, no reactor heap entry.
//
// Two things may happen, in either order, and the state lives until both
// have (a reference count of 2):
// - The operation completes: the timeout is withdrawn from the wheel (O(1),
//   no completion of its own) and the user's handler is called at once with
//   the operation's result, unchanged. If the timeout has fired already and
//   its upcall is on its way, the result is kept and the handler is called
//   when that upcall has run (as Asio's own cancel_after does).
// - The timeout fires: through the user's handler's associated executor (as
//   a timer's handler would run), the cancellation signal is emitted with the
//   requested type, unless the operation has completed meanwhile.
//
// A cancellation slot the user bound to the handler keeps working: a proxy in
// it forwards each signal to the operation.
//

#ifndef ASIO_WHEEL_DETAIL_TIMED_CANCEL_OP_HPP
#define ASIO_WHEEL_DETAIL_TIMED_CANCEL_OP_HPP

#include <asio_wheel/detail/asio_forward.hpp>
#include <asio_wheel/detail/asio_operation.hpp>
#include <asio_wheel/detail/op_pool.hpp>
#include <asio_wheel/detail/tick_grid.hpp>
#include <asio_wheel/detail/wait_op.hpp>

#include <atomic>
#include <memory>
#include <type_traits>
#include <tuple>
#include <utility>
#include <variant>

ASIO_WHEEL_NAMESPACE_BEGIN
namespace detail {

template <typename Op>
class timed_cancel_op_handler;

// The arguments of one completion signature, as stored.
template <typename Signature>
struct signature_arguments;

template <typename R, typename... Args>
struct signature_arguments<R(Args...)>
{
  using type = std::tuple<std::decay_t<Args>...>;
};

// The index, in a variant of monostate and the signatures' argument tuples,
// of the first signature that can be completed with Args.
template <typename Tuples, typename... Args>
struct first_matching_signature;

template <typename... Tuples, typename... Args>
struct first_matching_signature<std::tuple<Tuples...>, Args...>
{
  static constexpr std::size_t find()
  {
    constexpr bool matches[] = {
      std::is_constructible<Tuples, Args&&...>::value... };
    for (std::size_t i = 0; i < sizeof...(Tuples); ++i)
      if (matches[i])
        return i + 1;  // after std::monostate
    return 0;
  }
  static constexpr std::size_t value = find();
  static_assert(value != 0, "no completion signature takes these arguments");
};

template <typename Handler, typename IoExecutor, typename Service,
    typename... Signatures>
class timed_cancel_op : public wait_op_base
{
public:
  using handler_type = Handler;
  using time_point = typename Service::time_point;

  /// Allocates the state with the handler's associated allocator (op_pool
  /// for the default one), moves the handler in, arms the timeout and
  /// returns the handler the operation is to be started with.
  static timed_cancel_op_handler<timed_cancel_op> start(Handler& handler,
      const IoExecutor& io_ex, Service& service, const time_point& deadline,
      timer_slack slack, asio::cancellation_type_t type)
  {
    allocator_type alloc(asio::get_associated_allocator(handler));
    void* memory = allocate(alloc);
    timed_cancel_op* o;
    try
    {
      o = new (memory) timed_cancel_op(handler, io_ex, service, type, alloc);
    }
    catch (...)
    {
      deallocate(alloc, memory);
      throw;
    }
    o->connect_user_slot();
    service.arm_timeout(o->entry_, o, deadline, slack);
    return timed_cancel_op_handler<timed_cancel_op>(o);
  }

  /// The slot the operation listens to.
  asio::cancellation_slot slot() noexcept { return signal_.slot(); }

  const Handler& handler() const noexcept { return handler_; }

  /// The operation completed: withdraws the timeout and calls the user's
  /// handler with @p args, now or, if the timeout's upcall is on its way,
  /// when that has run.
  template <typename... Args>
  void complete_operation(Args&&... args)
  {
    if (finish_operation())
    {
      // Ours is the last reference: no payload to keep.
      Handler handler(static_cast<Handler&&>(handler_));
      destroy();
      handler(std::forward<Args>(args)...);
      return;
    }
    constexpr std::size_t index = first_matching_signature<
        std::tuple<typename signature_arguments<Signatures>::type...>,
        Args...>::value;
    payload_.template emplace<index>(std::forward<Args>(args)...);
    release();
  }

  /// The operation was destroyed without completing (its context is shutting
  /// down): withdraws the timeout; the handler is destroyed, not called.
  void abandon_operation()
  {
    if (finish_operation())
      destroy();
    else
      release();
  }

private:
  using allocator_type = typename std::allocator_traits<
      asio::associated_allocator_t<Handler>>::template
        rebind_alloc<timed_cancel_op>;
  static constexpr bool uses_pool = std::is_same<
      asio::associated_allocator_t<Handler>, std::allocator<void>>::value;

  timed_cancel_op(Handler& h, const IoExecutor& io_ex, Service& service,
      asio::cancellation_type_t type, const allocator_type& alloc)
    : wait_op_base(&timed_cancel_op::do_complete),
      handler_(static_cast<Handler&&>(h)),
      work_(handler_, io_ex),
      service_(service),
      type_(type),
      alloc_(alloc)
  {
  }

  static void* allocate(allocator_type& alloc)
  {
    if constexpr (uses_pool)
      return op_pool::allocate(sizeof(timed_cancel_op));
    else
      return alloc.allocate(1);
  }

  static void deallocate(allocator_type& alloc, void* p) noexcept
  {
    if constexpr (uses_pool)
      op_pool::deallocate(p, sizeof(timed_cancel_op));
    else
      alloc.deallocate(static_cast<timed_cancel_op*>(p), 1);
  }

  // Forwards the user's cancellation signals to the operation.
  struct user_slot_proxy
  {
    explicit user_slot_proxy(timed_cancel_op* o) : op(o) {}

    void operator()(asio::cancellation_type_t type)
    {
      if (op)
        op->signal_.emit(type);
    }

    timed_cancel_op* op;
  };

  void connect_user_slot()
  {
    auto user_slot = asio::get_associated_cancellation_slot(handler_);
    if (user_slot.is_connected())
      proxy_ = &user_slot.template emplace<user_slot_proxy>(this);
  }

  // Common to both ends of the operation: no more cancellation, and the
  // timeout withdrawn if it has not fired. True if the caller now holds the
  // last reference (the timeout's is gone); false if the timeout's upcall is
  // on its way and the caller must release its own.
  bool finish_operation()
  {
    operation_done_.store(true, std::memory_order_release);
    if (proxy_)
    {
      // The slot belongs to the user's handler: disconnect it while the
      // handler is surely alive, so that a later signal finds nothing.
      asio::get_associated_cancellation_slot(handler_).clear();
      proxy_ = nullptr;
    }
    if (!service_.withdraw_timeout(entry_, this))
      return false;
    refs_.store(1, std::memory_order_relaxed);  // the timeout's is dropped
    return true;
  }

  // The timeout fired (owner != 0) or is destroyed at shutdown (owner == 0).
  static void do_complete(void* owner, scheduler_operation* base,
      const error_code&, std::size_t)
  {
    timed_cancel_op* o = static_cast<timed_cancel_op*>(base);
    if (!owner)
    {
      o->release(false);
      return;
    }
    // Emit where a timer's handler would run: on the user's handler's
    // associated executor (a strand, say), never inside the wheel's lock.
    handler_work<Handler, IoExecutor> w(
        static_cast<handler_work<Handler, IoExecutor>&&>(o->work_));
    fire f{o};
    fenced_block b(fenced_block::half);
    w.complete(f, o->handler_);
  }

  // The timeout's upcall.
  struct fire
  {
    timed_cancel_op* o;

    void operator()()
    {
      if (!o->operation_done_.load(std::memory_order_acquire))
        o->signal_.emit(o->type_);
      o->release();  // calls the handler if the operation completed meanwhile
    }
  };

  // Drops one reference. The last one calls the user's handler with the
  // kept result, if there is one and @p may_invoke (not at shutdown), and
  // frees the state.
  void release(bool may_invoke = true)
  {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) != 1)
      return;
    if (!may_invoke || payload_.index() == 0)
    {
      destroy();
      return;
    }
    // Free the memory before the upcall, as Asio's operations do.
    Handler handler(static_cast<Handler&&>(handler_));
    payload_type payload(std::move(payload_));
    destroy();
    std::visit([&handler](auto& args) {
          if constexpr (!std::is_same<std::decay_t<decltype(args)>,
                std::monostate>::value)
            std::apply(handler, std::move(args));
        }, payload);
  }

  void destroy() noexcept
  {
    allocator_type alloc(alloc_);
    this->~timed_cancel_op();
    deallocate(alloc, this);
  }

  using payload_type = std::variant<std::monostate,
      typename signature_arguments<Signatures>::type...>;

  typename Service::implementation_type entry_;  // the timeout in the wheel
  Handler handler_;
  handler_work<Handler, IoExecutor> work_;
  Service& service_;
  asio::cancellation_signal signal_;
  const asio::cancellation_type_t type_;
  user_slot_proxy* proxy_ = nullptr;
  std::atomic<bool> operation_done_{false};
  std::atomic<unsigned> refs_{2};  // the operation's handler, the timeout
  payload_type payload_;  // the result, while the timeout's upcall runs
  allocator_type alloc_;
};

/// The handler the timed operation is started with: completes the state.
/// Its executor and allocator are those of the user's handler (associator
/// below); its cancellation slot is the state's signal.
template <typename Op>
class timed_cancel_op_handler
{
public:
  using cancellation_slot_type = asio::cancellation_slot;

  explicit timed_cancel_op_handler(Op* op) noexcept : op_(op) {}

  timed_cancel_op_handler(timed_cancel_op_handler&& other) noexcept
    : op_(std::exchange(other.op_, nullptr))
  {
  }

  timed_cancel_op_handler(const timed_cancel_op_handler&) = delete;
  timed_cancel_op_handler& operator=(const timed_cancel_op_handler&) = delete;

  ~timed_cancel_op_handler()
  {
    if (op_)
      op_->abandon_operation();
  }

  cancellation_slot_type get_cancellation_slot() const noexcept
  {
    return op_->slot();
  }

  template <typename... Args>
  void operator()(Args&&... args)
  {
    std::exchange(op_, nullptr)->complete_operation(
        std::forward<Args>(args)...);
  }

  /// The state (for the associator).
  const Op* op() const noexcept { return op_; }

private:
  Op* op_;
};

} // namespace detail
ASIO_WHEEL_NAMESPACE_END

ASIO_WHEEL_ASIO_NAMESPACE_BEGIN

// The timed operation's handler has the user's handler's associated
// executor, allocator and other characteristics (but its own cancellation
// slot, given by the nested cancellation_slot_type, which takes precedence).
template <template <typename, typename> class Associator,
    typename Op, typename DefaultCandidate>
struct associator<Associator,
    ::asio_wheel::detail::timed_cancel_op_handler<Op>, DefaultCandidate>
  : Associator<typename Op::handler_type, DefaultCandidate>
{
  static typename Associator<typename Op::handler_type, DefaultCandidate>::type
  get(const ::asio_wheel::detail::timed_cancel_op_handler<Op>& h) noexcept
  {
    return Associator<typename Op::handler_type, DefaultCandidate>::get(
        h.op()->handler());
  }

  static auto get(const ::asio_wheel::detail::timed_cancel_op_handler<Op>& h,
      const DefaultCandidate& c) noexcept
    -> decltype(Associator<typename Op::handler_type, DefaultCandidate>::get(
          h.op()->handler(), c))
  {
    return Associator<typename Op::handler_type, DefaultCandidate>::get(
        h.op()->handler(), c);
  }
};

ASIO_WHEEL_ASIO_NAMESPACE_END

#endif // ASIO_WHEEL_DETAIL_TIMED_CANCEL_OP_HPP
