//
// asio_wheel/detail/timed_cancel_op.hpp
//
// The state of one operation started with asio_wheel::cancel_after or
// cancel_at: the user's handler, the cancellation signal the operation
// listens to, and the timeout. One allocation, with the handler's associated
// allocator (op_pool for the default one). The timeout is either
// - an entry of the context's wheel with one wait operation, this object
//   itself (timed_cancel_op): no timer object, no reactor heap entry; or
// - a wait on a timer the user gave (timed_cancel_timer_op, the overloads
//   that take a basic_wheel_timer), as Asio's own timer overloads do.
//
// Two things may happen, in either order, and the state lives until both
// have (a reference count of 2):
// - The operation completes: the timeout is taken back, and the user's
//   handler is called with the operation's result, unchanged: at once if
//   the timeout is gone without a trace (a withdrawn wheel entry, or a timer
//   wait whose upcall has already run); otherwise the result is kept in the
//   state and the handler is called when the timeout's upcall has run (as
//   Asio's own cancel_after does).
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
#include <asio_wheel/detail/op_memory.hpp>
#include <asio_wheel/detail/tick_grid.hpp>
#include <asio_wheel/detail/wait_op.hpp>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <memory>
#include <new>
#include <tuple>
#include <type_traits>
#include <utility>

ASIO_WHEEL_NAMESPACE_BEGIN
namespace detail {

template <typename Op>
class timed_cancel_op_handler;

template <typename Op>
class timed_cancel_timer_handler;

// The arguments of one completion signature, as kept.
template <typename Signature>
struct signature_arguments;

template <typename R, typename... Args>
struct signature_arguments<R(Args...)>
{
  using type = std::tuple<std::decay_t<Args>...>;
};

// Room for the arguments of one completion of any of Signatures, constructed
// in place. Which signature they are for (1-based; 0: nothing kept) is kept
// by the owner, where it fits in the padding of its flags.
template <typename... Signatures>
class kept_arguments
{
public:
  // The first signature whose arguments can be made from Args.
  template <typename... Args>
  static constexpr unsigned char index_for()
  {
    constexpr bool matches[] = { std::is_constructible<
        typename signature_arguments<Signatures>::type, Args&&...>::value... };
    for (std::size_t i = 0; i < sizeof...(Signatures); ++i)
      if (matches[i])
        return static_cast<unsigned char>(i + 1);
    return 0;
  }

  /// Keeps @p args; returns the index of their signature.
  template <typename... Args>
  unsigned char emplace(Args&&... args)
  {
    constexpr unsigned char index = index_for<Args...>();
    static_assert(index != 0, "no completion signature takes these arguments");
    ::new (static_cast<void*>(storage_))
      alternative<index>(std::forward<Args>(args)...);
    return index;
  }

  /// Calls @p f with the tuple of arguments kept under @p index.
  template <typename F>
  void visit(unsigned char index, F&& f)
  {
    visit(index, f, std::index_sequence_for<Signatures...>());
  }

  void destroy(unsigned char index) noexcept
  {
    visit(index, [](auto& args) {
          using tuple_type = std::decay_t<decltype(args)>;
          args.~tuple_type();
        });
  }

private:
  template <std::size_t Index>
  using alternative = typename signature_arguments<
      std::tuple_element_t<Index - 1, std::tuple<Signatures...>>>::type;

  template <std::size_t Index>
  alternative<Index>& get() noexcept
  {
    return *std::launder(reinterpret_cast<alternative<Index>*>(storage_));
  }

  template <typename F, std::size_t... I>
  void visit(unsigned char index, F& f, std::index_sequence<I...>)
  {
    (void)((index == I + 1 ? (f(get<I + 1>()), true) : false) || ...);
  }

  alignas(typename signature_arguments<Signatures>::type...) unsigned char
    storage_[(std::max)({sizeof(typename signature_arguments<Signatures>::type)...})];
};

// What the two kinds of timed operation share: the handler, the signal, the
// flags and the reference count, and the protocol between the operation's
// completion and the timeout's upcall described at the top. Op, the derived
// class, provides:
//   bool take_back_timeout(bool completed)  the operation is done (completed,
//       or abandoned without completing): stops the timeout if it can; true
//       if the caller now holds the last reference (the timeout's is gone)
//   template <typename... Args> void keep(Args&&...)  keeps the result:
//       constructs the arguments in kept_storage() and sets kept()
//   kept_arguments<Signatures...>& kept_storage()
//   a destructor that destroys the kept arguments, if kept() says so.
template <typename Op, typename Handler, typename... Signatures>
class timed_cancel_base
{
public:
  using handler_type = Handler;

  /// The slot the operation listens to.
  asio::cancellation_slot slot() noexcept { return signal_.slot(); }

  const Handler& handler() const noexcept { return handler_; }

  /// The operation completed: takes the timeout back and calls the user's
  /// handler with @p args, now or, if the timeout's upcall is on its way,
  /// when that has run.
  template <typename... Args>
  void complete_operation(Args&&... args)
  {
    stop_cancellation();
    if (op().take_back_timeout(true))
    {
      // Ours is the last reference: nothing to keep. Free the memory before
      // the upcall, as Asio's operations do.
      Handler handler(static_cast<Handler&&>(handler_));
      destroy(handler);
      static_cast<Handler&&>(handler)(std::forward<Args>(args)...);
      return;
    }
    op().keep(std::forward<Args>(args)...);
    release();
  }

  /// The operation was destroyed without completing (its context is shutting
  /// down): the handler is destroyed, not called.
  void abandon_operation()
  {
    stop_cancellation();
    if (op().take_back_timeout(false))
      destroy(handler_);
    else
      release();
  }

  /// The timeout's upcall, on the handler's associated executor.
  void timeout_fired()
  {
    if (!operation_done_.load(std::memory_order_acquire))
      signal_.emit(type_);
    release();  // calls the handler if the operation completed meanwhile
  }

  /// The timeout was destroyed without its upcall (at shutdown).
  void timeout_abandoned() { release(false); }

protected:
  // The memory of an Op, from the allocator associated with the handler.
  static void* allocate(Handler& handler)
  {
    return op_memory<Op, Handler>(handler).allocate();
  }

  // Frees @p p, whose Op was not constructed.
  static void deallocate(const Handler& handler, void* p) noexcept
  {
    op_memory<Op, Handler>(handler).deallocate(p);
  }

  timed_cancel_base(Handler& handler, asio::cancellation_type_t type)
    : handler_(static_cast<Handler&&>(handler)),
      type_(type)
  {
  }

  ~timed_cancel_base() = default;

  Handler& handler() noexcept { return handler_; }

  // Forwards the user's cancellation signals to the operation. The user's
  // slot is cleared, which destroys the proxy, once the operation is done.
  struct user_slot_proxy
  {
    explicit user_slot_proxy(timed_cancel_base* s) : state(s) {}

    void operator()(asio::cancellation_type_t type)
    {
      state->signal_.emit(type);
    }

    timed_cancel_base* state;
  };

  void connect_user_slot()
  {
    auto user_slot = asio::get_associated_cancellation_slot(handler_);
    if (user_slot.is_connected())
    {
      user_slot.template emplace<user_slot_proxy>(this);
      user_slot_ = true;
    }
  }

  std::atomic<unsigned char>& refs() noexcept { return refs_; }
  unsigned char& kept() noexcept { return kept_; }

private:
  Op& op() noexcept { return static_cast<Op&>(*this); }

  // Common to both ends of the operation: no more cancellation reaches it.
  void stop_cancellation()
  {
    operation_done_.store(true, std::memory_order_release);
    if (user_slot_)
    {
      // The slot belongs to the user's handler: disconnect it while the
      // handler is surely alive, so that a later signal finds nothing.
      asio::get_associated_cancellation_slot(handler_).clear();
      user_slot_ = false;
    }
  }

  // Drops one reference. The last one calls the user's handler with the
  // kept result, if there is one and @p may_invoke (not at shutdown), and
  // frees the state.
  void release(bool may_invoke = true)
  {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) != 1)
      return;
    if (!may_invoke || kept_ == 0)
    {
      destroy(handler_);
      return;
    }
    op().kept_storage().visit(kept_, [this](auto& args) {
          // Free the memory before the upcall, as Asio's operations do: the
          // handler and the arguments move out first. Nothing of the state
          // is touched after destroy(), `this` and `args` included.
          Handler handler(static_cast<Handler&&>(handler_));
          auto local_args(std::move(args));
          destroy(handler);
          std::apply(static_cast<Handler&&>(handler), std::move(local_args));
        });
  }

  // Destroys the state and frees its memory, with the allocator associated
  // with @p handler (handler_, or the handler moved out of it).
  void destroy(const Handler& handler) noexcept
  {
    Op* o = &op();
    op_memory<Op, Handler> memory(handler);  // before handler_ is destroyed
    o->~Op();
    memory.deallocate(o);
  }

  Handler handler_;
  asio::cancellation_signal signal_;
  const asio::cancellation_type_t type_;
  std::atomic<unsigned char> refs_{2};  // the operation's handler, the timeout
  std::atomic<bool> operation_done_{false};
  bool user_slot_ = false;  // a proxy is in the user's slot
  unsigned char kept_ = 0;  // the kept result's signature, 1-based; 0: none
};

/// A timed operation whose timeout is an entry of the context's wheel: the
/// entry (an implementation_type of the service) and its one wait, this
/// object.
template <typename Handler, typename IoExecutor, typename Service,
    typename... Signatures>
class timed_cancel_op
  : public wait_op_base,
    public timed_cancel_base<
      timed_cancel_op<Handler, IoExecutor, Service, Signatures...>,
      Handler, Signatures...>
{
public:
  using time_point = typename Service::time_point;

  /// Allocates the state, moves the handler in, arms the timeout and returns
  /// the handler the operation is to be started with.
  static timed_cancel_op_handler<timed_cancel_op> start(Handler& handler,
      const IoExecutor& io_ex, Service& service, const time_point& deadline,
      timer_slack slack, asio::cancellation_type_t type)
  {
    void* memory = base::allocate(handler);
    timed_cancel_op* o;
    try
    {
      o = new (memory) timed_cancel_op(handler, io_ex, service, type);
    }
    catch (...)
    {
      base::deallocate(handler, memory);
      throw;
    }
    o->connect_user_slot();
    service.arm_timeout(o->entry_, o, deadline, slack);
    return timed_cancel_op_handler<timed_cancel_op>(o);
  }

private:
  using base = timed_cancel_base<timed_cancel_op, Handler, Signatures...>;
  friend base;

  timed_cancel_op(Handler& h, const IoExecutor& io_ex, Service& service,
      asio::cancellation_type_t type)
    : wait_op_base(&timed_cancel_op::do_complete),
      base(h, type),
      entry_(),
      work_(this->handler(), io_ex),
      service_(service)
  {
  }

  ~timed_cancel_op()
  {
    if (this->kept() != 0)
      args_.destroy(this->kept());
    else
      entry_.~entry_type();
  }

  // Withdraws the timeout: O(1), no completion of its own. Fails if it has
  // already been decided (it fired, or was abandoned at shutdown).
  bool take_back_timeout(bool)
  {
    if (!service_.withdraw_timeout(entry_, this))
      return false;
    this->refs().store(1, std::memory_order_relaxed);  // the timeout's is dropped
    return true;
  }

  // Only after a failed withdraw: the entry has left the wheel then, and the
  // service does not touch it again, so the result takes its place.
  template <typename... Args>
  void keep(Args&&... args)
  {
    entry_.~entry_type();
    this->kept() = args_.emplace(std::forward<Args>(args)...);
  }

  kept_arguments<Signatures...>& kept_storage() noexcept { return args_; }

  // The timeout fired (owner != 0) or is destroyed at shutdown (owner == 0).
  static void do_complete(void* owner, scheduler_operation* op,
      const error_code&, std::size_t)
  {
    timed_cancel_op* o = static_cast<timed_cancel_op*>(op);
    if (!owner)
    {
      o->timeout_abandoned();
      return;
    }
    // Emit where a timer's handler would run: on the user's handler's
    // associated executor (a strand, say), never inside the wheel's lock.
    handler_work<Handler, IoExecutor> w(
        static_cast<handler_work<Handler, IoExecutor>&&>(o->work_));
    fire f{o};
    fenced_block b(fenced_block::half);
    w.complete(f, o->handler());
  }

  // The timeout's upcall.
  struct fire
  {
    timed_cancel_op* o;

    void operator()() { o->timeout_fired(); }
  };

  using entry_type = typename Service::implementation_type;

  union
  {
    entry_type entry_;  // the timeout in the wheel, until it is decided
    kept_arguments<Signatures...> args_;  // then the result, if kept
  };
  handler_work<Handler, IoExecutor> work_;
  Service& service_;
};

/// A timed operation whose timeout is a wait on a timer of the user's (its
/// expiry set by the caller). As with Asio's timer overloads, completing the
/// operation cancels the timer, and the user cancelling the timer, or
/// setting its expiry, fires the timeout at once.
template <typename Handler, typename Timer, typename... Signatures>
class timed_cancel_timer_op
  : public timed_cancel_base<
      timed_cancel_timer_op<Handler, Timer, Signatures...>,
      Handler, Signatures...>
{
public:
  /// Allocates the state, moves the handler in, starts the wait on @p timer
  /// and returns the handler the operation is to be started with.
  static timed_cancel_op_handler<timed_cancel_timer_op> start(Handler& handler,
      Timer& timer, asio::cancellation_type_t type)
  {
    void* memory = base::allocate(handler);
    timed_cancel_timer_op* o;
    try
    {
      o = new (memory) timed_cancel_timer_op(handler, timer, type);
    }
    catch (...)
    {
      base::deallocate(handler, memory);
      throw;
    }
    o->connect_user_slot();
    // From here the handler owns the operation's reference: if the wait
    // cannot start, both references are dropped and the state freed.
    timed_cancel_op_handler<timed_cancel_timer_op> op_handler(o);
    timer.async_wait(timed_cancel_timer_handler<timed_cancel_timer_op>(o));
    return op_handler;
  }

private:
  using base = timed_cancel_base<timed_cancel_timer_op, Handler, Signatures...>;
  friend base;

  timed_cancel_timer_op(Handler& h, Timer& timer,
      asio::cancellation_type_t type)
    : base(h, type),
      timer_(timer)
  {
  }

  ~timed_cancel_timer_op()
  {
    if (this->kept() != 0)
      args_.destroy(this->kept());
  }

  // A completed operation cancels the timer's wait, as Asio's does (all of
  // the timer's waits: it is the timeout's timer), unless the wait's upcall
  // has already run. An abandoned one leaves the timer alone: at shutdown it
  // may be gone already, and the wait's own reference frees the state.
  bool take_back_timeout(bool completed)
  {
    if (this->refs().load(std::memory_order_acquire) == 1)
      return true;
    if (completed)
      timer_.cancel();
    return false;
  }

  template <typename... Args>
  void keep(Args&&... args)
  {
    this->kept() = args_.emplace(std::forward<Args>(args)...);
  }

  kept_arguments<Signatures...>& kept_storage() noexcept { return args_; }

  kept_arguments<Signatures...> args_;  // the result, if kept
  Timer& timer_;
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

/// The handler of the wait on the user's timer: the timeout's upcall,
/// whatever the wait's result (a cancelled timer fires the timeout too, as
/// with Asio's). Its executor and allocator are those of the user's handler;
/// it has no cancellation slot (the user's must not cancel the wait).
template <typename Op>
class timed_cancel_timer_handler
{
public:
  using cancellation_slot_type = asio::cancellation_slot;

  explicit timed_cancel_timer_handler(Op* op) noexcept : op_(op) {}

  timed_cancel_timer_handler(timed_cancel_timer_handler&& other) noexcept
    : op_(std::exchange(other.op_, nullptr))
  {
  }

  timed_cancel_timer_handler(const timed_cancel_timer_handler&) = delete;
  timed_cancel_timer_handler& operator=(
      const timed_cancel_timer_handler&) = delete;

  ~timed_cancel_timer_handler()
  {
    if (op_)
      op_->timeout_abandoned();
  }

  cancellation_slot_type get_cancellation_slot() const noexcept
  {
    return cancellation_slot_type();
  }

  void operator()(const error_code&)
  {
    std::exchange(op_, nullptr)->timeout_fired();
  }

  /// The state (for the associator).
  const Op* op() const noexcept { return op_; }

private:
  Op* op_;
};

/// The associator of both handlers above: the user's handler's associated
/// executor, allocator and other characteristics (but their own
/// cancellation slots, given by the nested cancellation_slot_type, which
/// takes precedence).
template <template <typename, typename> class Associator,
    typename Op, typename DefaultCandidate>
struct user_handler_associator
  : Associator<typename Op::handler_type, DefaultCandidate>
{
  template <typename StateHandler>
  static typename Associator<typename Op::handler_type, DefaultCandidate>::type
  get(const StateHandler& h) noexcept
  {
    return Associator<typename Op::handler_type, DefaultCandidate>::get(
        h.op()->handler());
  }

  template <typename StateHandler>
  static auto get(const StateHandler& h, const DefaultCandidate& c) noexcept
    -> decltype(Associator<typename Op::handler_type, DefaultCandidate>::get(
          h.op()->handler(), c))
  {
    return Associator<typename Op::handler_type, DefaultCandidate>::get(
        h.op()->handler(), c);
  }
};

} // namespace detail
ASIO_WHEEL_NAMESPACE_END

ASIO_WHEEL_ASIO_NAMESPACE_BEGIN

template <template <typename, typename> class Associator,
    typename Op, typename DefaultCandidate>
struct associator<Associator,
    ::asio_wheel::detail::timed_cancel_op_handler<Op>, DefaultCandidate>
  : ::asio_wheel::detail::user_handler_associator<
      Associator, Op, DefaultCandidate>
{
};

template <template <typename, typename> class Associator,
    typename Op, typename DefaultCandidate>
struct associator<Associator,
    ::asio_wheel::detail::timed_cancel_timer_handler<Op>, DefaultCandidate>
  : ::asio_wheel::detail::user_handler_associator<
      Associator, Op, DefaultCandidate>
{
};

ASIO_WHEEL_ASIO_NAMESPACE_END

#endif // ASIO_WHEEL_DETAIL_TIMED_CANCEL_OP_HPP
