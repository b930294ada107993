// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// Tests of asio_wheel::cancel_after / cancel_at (include/asio_wheel/cancel_after.hpp).
//
// Every behaviour test runs against asio_wheel's adapter and, where the Asio being compiled
// against has one (Boost 1.86+, standalone 1.31+), against Asio's own cancel_after /
// cancel_at: the same test proves the semantics are Asio's. So do the tests of the timer
// overloads (cancel_at(timer, deadline, token), timed by the user's timer: a basic_wheel_timer
// for ours, a basic_waitable_timer for Asio's). Time is manual (manual_clock, whose
// asio::wait_traits make the reactor look at the clock on every turn, see below), so a test
// decides when a deadline passes; the operations are reads on connected loopback sockets, and
// custom operations that record the cancellation they receive. Asio's own tests of its
// cancel_after and cancel_at, ported, are in asio_cancel_after_cases.cpp.
#define BOOST_TEST_MODULE asio_wheel_cancel_after_test
#include "wheel_test_support.hpp"  // manual_clock, settle, asio::, error_code

#include "../allocation_faults.hpp"

#include <asio_wheel/cancel_after.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

using asio_wheel_test::manual_clock;
// In the standalone flavour asio_wheel::asio is ::asio itself, which clang will not see
// declared again as an alias.
#if !defined(ASIO_WHEEL_STANDALONE)
namespace asio = asio_wheel::asio;
#endif
using asio_wheel::error_code;
using namespace std::chrono_literals;

// Asio's own cancel_at times with basic_waitable_timer<Clock, asio::wait_traits<Clock>>, and
// asio_wheel's with the wheel of wheel_timer_service<Clock, asio::wait_traits<Clock>>: with
// these traits both make every reactor wait zero while a timer is queued, so an advance of the
// manual clock is seen on the next turn (see manual_wait_traits). Only this executable times
// manual_clock with asio::wait_traits, so the specialization is seen by every use.
ASIO_WHEEL_ASIO_NAMESPACE_BEGIN
template <>
struct wait_traits<asio_wheel_test::manual_clock>
  : asio_wheel_test::manual_wait_traits
{};
ASIO_WHEEL_ASIO_NAMESPACE_END

namespace {

// ---- The two implementations, behind one interface -------------------------------------

// at(...) and after(...) are the implementation's cancel_at and cancel_after, with or without
// a timer first; timer is the timer type its timer overloads take.
struct wheel_adapter
{
  static constexpr const char* name = "asio_wheel::cancel_at";
  template <class... A>
  static auto at(A&&... a)
  {
    return asio_wheel::cancel_at(std::forward<A>(a)...);
  }
  template <class... A>
  static auto after(A&&... a)
  {
    return asio_wheel::cancel_after(std::forward<A>(a)...);
  }
  using timer = asio_wheel::basic_wheel_timer<manual_clock>;
  static constexpr bool is_wheel = true;
};

#if defined(ASIO_WHEEL_TEST_HAS_ASIO_CANCEL_AFTER)
struct asio_adapter
{
  static constexpr const char* name = "asio::cancel_at";
  template <class... A>
  static auto at(A&&... a)
  {
    return asio::cancel_at(std::forward<A>(a)...);
  }
  template <class... A>
  static auto after(A&&... a)
  {
    return asio::cancel_after(std::forward<A>(a)...);
  }
  using timer = asio::basic_waitable_timer<manual_clock>;
  static constexpr bool is_wheel = false;
};
using adapters = std::tuple<asio_adapter, wheel_adapter>;
#else
using adapters = std::tuple<wheel_adapter>;
#endif

using manual_service = asio_wheel::wheel_timer_service<manual_clock>;

// ---- Fixtures -----------------------------------------------------------------------------

using asio_wheel_test::settle;

// A connected pair of TCP sockets on loopback.
struct socket_pair
{
  explicit socket_pair(asio::io_context& io)
    : socket_pair(io, io.get_executor())
  {}

  // The reader on reader_ex (a strand, say), the writer on io.
  socket_pair(asio::io_context& io, const asio::any_io_executor& reader_ex)
    : reader(reader_ex), writer(io)
  {
    asio::ip::tcp::acceptor acceptor(
        io, asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    writer.connect(acceptor.local_endpoint());
    acceptor.accept(reader);
  }

  void send(const std::string& s) { asio::write(writer, asio::buffer(s)); }

  asio::ip::tcp::socket reader;
  asio::ip::tcp::socket writer;
};

struct read_record
{
  int calls = 0;
  error_code ec;
  std::size_t bytes = 0;
};

auto record_into(read_record& r)
{
  return [&r](error_code ec, std::size_t n) {
    ++r.calls;
    r.ec = ec;
    r.bytes = n;
  };
}

// An operation that completes only when the test says so, and records what cancellation its
// handler's slot received. With `honour`, a cancellation completes it with
// operation_aborted; without, it is ignored.
class controlled_operation
{
public:
  explicit controlled_operation(asio::io_context& io, bool honour = true)
    : io_(io), honour_(honour)
  {}

  template <class Token>
  auto async_run(Token&& token)
  {
    return asio::async_initiate<Token, void(error_code, int)>(
        initiation{this}, token);
  }

  // Completes the operation (if it is pending) with ec and value, through a post.
  void finish(error_code ec, int value)
  {
    if (!pending_)
      return;
    auto handler = std::move(*pending_);
    pending_.reset();
    asio::post(io_, [handler = std::move(handler), ec, value]() mutable {
      handler(ec, value);
    });
  }

  std::vector<asio::cancellation_type_t> received;

private:
  using handler_type = std::function<void(error_code, int)>;

  struct initiation
  {
    controlled_operation* self;
    using executor_type = asio::io_context::executor_type;
    executor_type get_executor() const noexcept
    {
      return self->io_.get_executor();
    }

    template <class Handler>
    void operator()(Handler&& handler) const
    {
      auto slot = asio::get_associated_cancellation_slot(handler);
      auto shared = std::make_shared<std::decay_t<Handler>>(
          std::forward<Handler>(handler));
      self->pending_ = [shared](error_code ec, int v) { (*shared)(ec, v); };
      if (slot.is_connected())
      {
        controlled_operation* op = self;
        slot.assign([op](asio::cancellation_type_t type) {
          op->received.push_back(type);
          if (op->honour_)
            op->finish(asio::error::operation_aborted, 0);
        });
      }
    }
  };

  asio::io_context& io_;
  bool honour_;
  std::optional<handler_type> pending_;
};

manual_clock::time_point in(manual_clock::duration d)
{
  return manual_clock::now() + d;
}

// How controlled_operation completed: how often, with what.
struct run_record
{
  int calls = 0;
  error_code ec;
  int value = 0;
};

auto record_into(run_record& r)
{
  return [&r](error_code ec, int value) {
    ++r.calls;
    r.ec = ec;
    r.value = value;
  };
}

// An executor that holds what is submitted to it until the test runs it: the upcalls of a
// handler bound to it (bind_executor) wait in its queue, so a test decides when they run.
class held_queue
{
public:
  template <class F>
  void push(F&& f)
  {
    tasks_.push_back(
        std::make_unique<task_of<std::decay_t<F>>>(std::forward<F>(f)));
  }

  std::size_t size() const { return tasks_.size(); }

  // Runs what is held (not what that submits meanwhile); returns how many ran.
  std::size_t run()
  {
    std::vector<std::unique_ptr<task>> tasks;
    tasks.swap(tasks_);
    for (auto& t : tasks)
      t->run();
    return tasks.size();
  }

private:
  struct task
  {
    virtual ~task() = default;
    virtual void run() = 0;
  };

  template <class F>
  struct task_of final : task
  {
    template <class G>
    explicit task_of(G&& g) : function(std::forward<G>(g))
    {}
    void run() override { function(); }
    F function;
  };

  std::vector<std::unique_ptr<task>> tasks_;
};

class held_executor
{
public:
  held_executor(asio::io_context& io, held_queue& queue) noexcept
    : io_(&io), queue_(&queue)
  {}

  asio::execution_context& query(asio::execution::context_t) const noexcept
  {
    return *io_;
  }

  template <class F>
  void execute(F&& f) const
  {
    queue_->push(std::forward<F>(f));
  }

  bool operator==(const held_executor& other) const noexcept
  {
    return queue_ == other.queue_;
  }
  bool operator!=(const held_executor& other) const noexcept
  {
    return queue_ != other.queue_;
  }

private:
  asio::io_context* io_;
  held_queue* queue_;
};

// A completion token whose async_result calls the initiation as a const lvalue, which a
// token may do (Asio's own tests have one that takes it by value and calls it as an lvalue).
template <class Handler>
struct lvalue_initiating_token
{
  Handler handler;
};

template <class Handler>
lvalue_initiating_token<Handler> initiate_as_lvalue(Handler handler)
{
  return {std::move(handler)};
}

}  // namespace

ASIO_WHEEL_ASIO_NAMESPACE_BEGIN
template <class Handler, class... Signatures>
struct async_result<lvalue_initiating_token<Handler>, Signatures...>
{
  template <class Initiation, class RawToken, class... Args>
  static void initiate(
      Initiation&& initiation, RawToken&& token, Args&&... args)
  {
    const auto& as_lvalue = initiation;
    as_lvalue(Handler(token.handler), std::forward<Args>(args)...);
  }
};
ASIO_WHEEL_ASIO_NAMESPACE_END

BOOST_AUTO_TEST_CASE(implementations_under_test)
{
  std::cout << "cancel_after tests run against:";
#if defined(ASIO_WHEEL_TEST_HAS_ASIO_CANCEL_AFTER)
  std::cout << " asio::cancel_after (" << asio_wheel_test::asio_description()
            << ") and";
#else
  std::cout << " (left out: asio::cancel_after, not in "
            << asio_wheel_test::asio_description() << ")";
#endif
  std::cout << " asio_wheel::cancel_after\n";
  BOOST_TEST(std::tuple_size<adapters>::value >= 1u);
}

// ---- Timeout and completion ---------------------------------------------------------------

BOOST_AUTO_TEST_CASE_TEMPLATE(
    timeout_cancels_a_pending_read_at_its_deadline_not_before, Adapter,
    adapters)
{
  asio::io_context io;
  socket_pair sockets(io);
  char buffer[16];
  read_record r;
  sockets.reader.async_read_some(
      asio::buffer(buffer), Adapter::at(in(30s), record_into(r)));
  settle(io);
  manual_clock::advance(30s - 1ns);
  settle(io);
  BOOST_TEST(r.calls == 0,
      Adapter::name << ": the read was cancelled before its deadline");
  manual_clock::advance(1ns);
  settle(io);
  BOOST_TEST(
      r.calls == 1, Adapter::name << ": handler ran " << r.calls << " times");
  BOOST_TEST((r.ec == asio::error::operation_aborted),
      Adapter::name << ": " << r.ec.message());
  BOOST_TEST(r.bytes == 0u);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    operation_completing_first_passes_its_result_and_no_timeout_fires, Adapter,
    adapters)
{
  asio::io_context io;
  socket_pair sockets(io);
  char buffer[16];
  read_record r;
  sockets.reader.async_read_some(
      asio::buffer(buffer), Adapter::at(in(30s), record_into(r)));
  sockets.send("hello");
  settle(io);
  BOOST_TEST(r.calls == 1);
  BOOST_TEST(!r.ec, Adapter::name << ": " << r.ec.message());
  BOOST_TEST(r.bytes == 5u);
  manual_clock::advance(60s);
  settle(io);
  BOOST_TEST(
      r.calls == 1, Adapter::name << ": handler ran again after the deadline");
  if constexpr (Adapter::is_wheel)
  {
    const asio_wheel::wheel_stats s =
        asio::use_service<manual_service>(io).stats();
    BOOST_TEST(s.timeouts_withdrawn == 1u,
        "the timeout was not withdrawn from the wheel");
    BOOST_TEST(s.pending_waits == 0u);
    BOOST_TEST(s.timers_in_wheel == 0u);
    BOOST_TEST(s.waits_expired == 0u, "a withdrawn timeout fired");
  }
}

// Adapter's cancel_at(deadline, token), or WithTimer, its timer overload
// cancel_at(*timer, deadline, token).
template <class Adapter, bool WithTimer, class Token>
auto timed_by(std::optional<typename Adapter::timer>& timer,
    manual_clock::time_point deadline, Token&& token)
{
  if constexpr (WithTimer)
    return Adapter::at(*timer, deadline, std::forward<Token>(token));
  else
    return Adapter::at(deadline, std::forward<Token>(token));
}

// The race where the timeout fires (its upcall queued on the handler's executor) and the
// operation completes before that upcall has run: the result must wait in the state until the
// upcall has run, which then emits nothing, and only then reach the handler. The handler is
// bound to a held_executor, so the upcall stays queued until the test runs it.
template <class Adapter, bool WithTimer>
void check_completion_while_the_timeouts_upcall_is_queued()
{
  asio::io_context io;
  std::optional<typename Adapter::timer> timer;
  if (WithTimer)
    timer.emplace(io);
  held_queue held;
  controlled_operation op(io);
  run_record r;
  op.async_run(timed_by<Adapter, WithTimer>(timer, in(10ms),
      asio::bind_executor(held_executor(io, held), record_into(r))));
  settle(io);
  manual_clock::advance(10ms);
  settle(io);
  BOOST_TEST_REQUIRE(held.size() == 1u,
      Adapter::name
          << ": the timeout's upcall is not queued on the handler's executor");
  BOOST_TEST(op.received.empty(),
      "the cancellation was emitted before its upcall ran");

  op.finish(error_code(), 42);
  settle(io);
  BOOST_TEST(r.calls == 0,
      Adapter::name
          << ": the handler ran while the timeout's upcall was still queued");

  BOOST_TEST(held.run() == 1u);
  BOOST_TEST(
      r.calls == 1, Adapter::name << ": handler ran " << r.calls << " times");
  BOOST_TEST(!r.ec,
      Adapter::name << ": the operation's own result was replaced: "
                    << r.ec.message());
  BOOST_TEST(r.value == 42, "the operation's result was not passed through");
  BOOST_TEST(op.received.empty(),
      Adapter::name << ": the upcall emitted a cancellation to an "
                       "operation that had completed");
  settle(io);
  BOOST_TEST(held.run() == 0u);
  BOOST_TEST(r.calls == 1);
  if constexpr (Adapter::is_wheel && !WithTimer)
  {
    // The wheel's own record of that path: the timeout fired and was not withdrawn.
    const asio_wheel::wheel_stats s =
        asio::use_service<manual_service>(io).stats();
    BOOST_TEST(s.waits_expired == 1u, "the timeout did not fire");
    BOOST_TEST(s.timeouts_withdrawn == 0u, "a fired timeout was withdrawn");
  }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    completion_while_the_timeouts_upcall_is_queued_reaches_the_handler_after_it,
    Adapter, adapters)
{
  check_completion_while_the_timeouts_upcall_is_queued<Adapter, false>();
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    completion_while_the_timer_waits_upcall_is_queued_reaches_the_handler_after_it,
    Adapter, adapters)
{
  check_completion_while_the_timeouts_upcall_is_queued<Adapter, true>();
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    timeout_that_the_operation_ignores_leaves_its_result_unchanged, Adapter,
    adapters)
{
  asio::io_context io;
  controlled_operation op(io, false);
  int calls = 0;
  error_code got_ec;
  int got_value = 0;
  op.async_run(Adapter::at(in(5s), [&](error_code ec, int v) {
    ++calls;
    got_ec = ec;
    got_value = v;
  }));
  manual_clock::advance(5s);
  settle(io);
  BOOST_TEST(op.received.size() == 1u, "the timeout emitted no cancellation");
  BOOST_TEST(calls == 0,
      "the handler ran though the operation ignored the cancellation");
  op.finish(error_code(), 42);
  settle(io);
  BOOST_TEST(calls == 1);
  BOOST_TEST(!got_ec);
  BOOST_TEST(got_value == 42, "the operation's result was not passed through");
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    emits_the_requested_cancellation_type, Adapter, adapters)
{
  for (asio::cancellation_type_t type : {asio::cancellation_type::terminal,
           asio::cancellation_type::partial, asio::cancellation_type::total})
  {
    asio::io_context io;
    controlled_operation op(io);
    int calls = 0;
    op.async_run(Adapter::at(in(1s), type, [&](error_code ec, int) {
      ++calls;
      BOOST_TEST((ec == asio::error::operation_aborted));
    }));
    manual_clock::advance(1s);
    settle(io);
    BOOST_TEST_REQUIRE(op.received.size() == 1u);
    BOOST_TEST((op.received[0] == type),
        Adapter::name << ": wrong cancellation type emitted");
    BOOST_TEST(calls == 1);
  }
  // The default is terminal.
  asio::io_context io;
  controlled_operation op(io);
  op.async_run(Adapter::at(in(1s), [](error_code, int) {}));
  manual_clock::advance(1s);
  settle(io);
  BOOST_TEST_REQUIRE(op.received.size() == 1u);
  BOOST_TEST((op.received[0] == asio::cancellation_type::terminal));
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    a_cancellation_slot_bound_by_the_caller_keeps_working, Adapter, adapters)
{
  asio::io_context io;
  socket_pair sockets(io);
  asio::cancellation_signal signal;
  char buffer[16];
  read_record r;
  sockets.reader.async_read_some(asio::buffer(buffer),
      Adapter::at(in(30s),
          asio::bind_cancellation_slot(signal.slot(), record_into(r))));
  settle(io);
  signal.emit(asio::cancellation_type::terminal);
  settle(io);
  BOOST_TEST(r.calls == 1,
      Adapter::name << ": the caller's cancellation did not reach the read");
  BOOST_TEST((r.ec == asio::error::operation_aborted));
  // After completion the slot leads nowhere: emitting again is harmless.
  signal.emit(asio::cancellation_type::terminal);
  manual_clock::advance(30s);
  settle(io);
  BOOST_TEST(r.calls == 1);
}

// ---- Associated characteristics -----------------------------------------------------------

BOOST_AUTO_TEST_CASE_TEMPLATE(
    handler_runs_on_its_associated_executor, Adapter, adapters)
{
  asio::io_context io;
  auto strand = asio::make_strand(io);
  socket_pair sockets(io);
  char buffer[16];
  bool in_strand_on_completion = false;
  bool in_strand_on_timeout = false;
  sockets.reader.async_read_some(asio::buffer(buffer),
      Adapter::at(
          in(1s), asio::bind_executor(strand, [&](error_code, std::size_t) {
            in_strand_on_timeout = strand.running_in_this_thread();
          })));
  manual_clock::advance(1s);
  settle(io);
  BOOST_TEST(in_strand_on_timeout,
      Adapter::name << ": timed-out handler ran outside its strand");
  sockets.reader.async_read_some(asio::buffer(buffer),
      Adapter::at(
          in(1s), asio::bind_executor(strand, [&](error_code, std::size_t) {
            in_strand_on_completion = strand.running_in_this_thread();
          })));
  sockets.send("y");
  settle(io);
  BOOST_TEST(in_strand_on_completion,
      Adapter::name << ": completed handler ran outside its strand");
}

// An operation of an I/O object whose executor is a strand behind any_io_executor, as a
// socket made on make_strand(io) has: it completes only when cancelled, and records whether
// its cancellation handler ran on the strand. The cancellation of a timed operation must be
// emitted there (Asio's own cancel_after times it with a timer on that executor), or it races
// with the operation's own steps on another thread.
class strand_operation
{
public:
  explicit strand_operation(
      asio::strand<asio::io_context::executor_type> strand)
    : strand_(strand)
  {}

  template <class Token>
  auto async_run(Token&& token)
  {
    return asio::async_initiate<Token, void(error_code, int)>(
        initiation{this}, token);
  }

  int cancellations = 0;
  int cancellations_on_strand = 0;

private:
  struct initiation
  {
    strand_operation* self;
    using executor_type = asio::any_io_executor;
    executor_type get_executor() const noexcept { return self->strand_; }

    template <class Handler>
    void operator()(Handler&& handler) const
    {
      auto slot = asio::get_associated_cancellation_slot(handler);
      auto shared = std::make_shared<std::decay_t<Handler>>(
          std::forward<Handler>(handler));
      self->pending_ = [shared](error_code ec, int v) { (*shared)(ec, v); };
      strand_operation* op = self;
      slot.assign([op](asio::cancellation_type_t) {
        ++op->cancellations;
        if (op->strand_.running_in_this_thread())
          ++op->cancellations_on_strand;
        auto handler = std::move(op->pending_);
        asio::post(op->strand_, [handler = std::move(handler)]() mutable {
          handler(asio::error::operation_aborted, 0);
        });
      });
    }
  };

  asio::strand<asio::io_context::executor_type> strand_;
  std::function<void(error_code, int)> pending_;
};

BOOST_AUTO_TEST_CASE_TEMPLATE(
    timeout_cancels_on_the_strand_of_the_io_object, Adapter, adapters)
{
  asio::io_context io;
  auto strand = asio::make_strand(io);
  strand_operation op(strand);
  int calls = 0;
  bool on_strand = false;
  op.async_run(Adapter::at(in(1s), [&](error_code ec, int) {
    ++calls;
    on_strand = strand.running_in_this_thread();
    BOOST_TEST((ec == asio::error::operation_aborted));
  }));
  manual_clock::advance(1s);
  settle(io);
  BOOST_TEST_REQUIRE(op.cancellations == 1);
  BOOST_TEST(op.cancellations_on_strand == 1,
      Adapter::name << ": the timeout emitted its cancellation outside the "
                       "strand of the operation's I/O object");
  BOOST_TEST(calls == 1);
  BOOST_TEST(
      on_strand, Adapter::name << ": the handler ran outside the strand");
}

// The reader's own executor is a strand (any_io_executor holding it) and the handler has
// none: the handler runs on that strand, on timeout and on completion, as Asio runs an
// operation's handler on its I/O object's executor.
BOOST_AUTO_TEST_CASE_TEMPLATE(
    handler_runs_on_the_strand_of_the_io_object, Adapter, adapters)
{
  asio::io_context io;
  auto strand = asio::make_strand(io);
  socket_pair sockets(io, strand);
  char buffer[16];
  int on_strand = 0, off_strand = 0;
  auto check = [&](error_code, std::size_t) {
    (strand.running_in_this_thread() ? on_strand : off_strand) += 1;
  };
  sockets.reader.async_read_some(
      asio::buffer(buffer), Adapter::at(in(1s), check));
  manual_clock::advance(1s);
  settle(io);
  sockets.reader.async_read_some(
      asio::buffer(buffer), Adapter::at(in(1s), check));
  sockets.send("y");
  settle(io);
  BOOST_TEST(on_strand == 2,
      Adapter::name << ": " << on_strand
                    << " of 2 handlers (timed out, completed) ran on the "
                       "reader's strand");
  BOOST_TEST(off_strand == 0,
      Adapter::name << ": " << off_strand
                    << " handlers ran outside the reader's strand");
}

namespace {

struct allocation_counts
{
  std::size_t allocations = 0;
  std::size_t deallocations = 0;
};

template <class T>
struct counting_allocator
{
  using value_type = T;
  allocation_counts* counts;
  explicit counting_allocator(allocation_counts& c) noexcept : counts(&c) {}
  template <class U>
  counting_allocator(const counting_allocator<U>& o) noexcept : counts(o.counts)
  {}
  T* allocate(std::size_t n)
  {
    ++counts->allocations;
    return std::allocator<T>().allocate(n);
  }
  void deallocate(T* p, std::size_t n)
  {
    ++counts->deallocations;
    std::allocator<T>().deallocate(p, n);
  }
  template <class U>
  bool operator==(const counting_allocator<U>& o) const noexcept
  {
    return counts == o.counts;
  }
  template <class U>
  bool operator!=(const counting_allocator<U>& o) const noexcept
  {
    return counts != o.counts;
  }
};

// A handler with an associated allocator (bind_allocator is not in every supported Asio).
struct allocating_handler
{
  using allocator_type = counting_allocator<void>;
  allocator_type get_allocator() const noexcept { return allocator; }
  void operator()(error_code ec, std::size_t) { *result = ec; }
  allocator_type allocator;
  error_code* result;
};

}  // namespace

BOOST_AUTO_TEST_CASE(
    wheel_state_is_allocated_with_the_handlers_allocator_and_freed)
{
  allocation_counts counts;
  {
    asio::io_context io;
    socket_pair sockets(io);
    char buffer[16];
    error_code timed_out, completed;
    sockets.reader.async_read_some(asio::buffer(buffer),
        asio_wheel::cancel_at(in(1s),
            allocating_handler{counting_allocator<void>(counts), &timed_out}));
    const std::size_t after_start = counts.allocations;
    BOOST_TEST(after_start >= 1u,
        "the timed operation's state did not use the handler's allocator");
    manual_clock::advance(1s);
    settle(io);
    BOOST_TEST((timed_out == asio::error::operation_aborted));
    sockets.reader.async_read_some(asio::buffer(buffer),
        asio_wheel::cancel_at(in(1s),
            allocating_handler{counting_allocator<void>(counts), &completed}));
    sockets.send("z");
    settle(io);
    BOOST_TEST(!completed);
  }
  BOOST_TEST(counts.allocations == counts.deallocations,
      "memory from the handler's allocator leaked");
}

// ---- Lifetime and threads -----------------------------------------------------------------

BOOST_AUTO_TEST_CASE_TEMPLATE(
    destroying_the_context_with_timeouts_pending_destroys_handlers_uninvoked,
    Adapter, adapters)
{
  int calls = 0;
  auto alive = std::make_shared<int>(0);
  std::weak_ptr<int> observer = alive;
  {
    asio::io_context io;
    socket_pair sockets(io);
    auto buffer = std::make_shared<std::array<char, 16>>();
    sockets.reader.async_read_some(asio::buffer(*buffer),
        Adapter::at(in(30s),
            [&calls, alive = std::move(alive), buffer](
                error_code, std::size_t) { ++calls; }));
    controlled_operation op(io);
    op.async_run(Adapter::at(in(5s), [&calls](error_code, int) { ++calls; }));
    settle(io);
  }
  BOOST_TEST(calls == 0, "a handler was invoked at shutdown");
  BOOST_TEST(observer.expired(),
      "a pending handler was not destroyed with its context");
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    reads_on_strands_from_several_threads_each_complete_once, Adapter, adapters)
{
  // Real time here: two threads run the context. Half of the reads get data, the others time
  // out after 20 ms of steady_clock; nothing asserts how long it took.
  constexpr int pairs = 16;
  asio::io_context io(2);
  std::vector<std::unique_ptr<socket_pair>> sockets;
  std::vector<std::array<char, 8>> buffers(pairs);
  std::atomic<int> succeeded{0}, aborted{0}, calls{0}, outside_strand{0};
  std::vector<asio::strand<asio::io_context::executor_type>> strands;
  for (int i = 0; i < pairs; ++i)
  {
    sockets.push_back(std::make_unique<socket_pair>(io));
    strands.push_back(asio::make_strand(io));
  }
  auto guard = asio::make_work_guard(io);
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t)
    threads.emplace_back([&io] { io.run(); });
  for (int i = 0; i < pairs; ++i)
  {
    auto& strand = strands[i];
    asio::post(strand, [&, i] {
      auto& s = *sockets[i];
      auto deadline = std::chrono::steady_clock::now() + 20ms;
      auto handler =
          asio::bind_executor(strands[i], [&, i](error_code ec, std::size_t) {
            ++calls;
            if (!strands[i].running_in_this_thread())
              ++outside_strand;
            if (!ec)
              ++succeeded;
            else if (ec == asio::error::operation_aborted)
              ++aborted;
          });
      s.reader.async_read_some(
          asio::buffer(buffers[i]), Adapter::at(deadline, handler));
      if (i % 2 == 0)
        s.send("d");
    });
  }
  const auto limit = std::chrono::steady_clock::now() + 20s;
  while (calls.load() < pairs && std::chrono::steady_clock::now() < limit)
    std::this_thread::sleep_for(1ms);
  guard.reset();
  io.stop();
  for (auto& t : threads)
    t.join();
  BOOST_TEST(calls.load() == pairs,
      Adapter::name << ": " << calls.load() << " of " << pairs
                    << " handlers ran");
  BOOST_TEST(succeeded.load() == pairs / 2);
  BOOST_TEST(aborted.load() == pairs / 2);
  BOOST_TEST(outside_strand.load() == 0);
}

// ---- Forms and tokens ---------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(cancel_after_times_from_the_start_of_the_operation)
{
  // cancel_after measures steady_clock: a stored token adapter times each operation from its
  // own start, not from when the adapter was made.
  asio::io_context io;
  socket_pair sockets(io);
  char buffer[16];
  auto partial = asio_wheel::cancel_after(std::chrono::hours(1));
  read_record r;
  sockets.reader.async_read_some(asio::buffer(buffer), partial(record_into(r)));
  sockets.send("abc");
  io.run_for(5s);
  BOOST_TEST(r.calls == 1);
  BOOST_TEST(!r.ec);
  auto& service = asio::use_service<
      asio_wheel::wheel_timer_service<std::chrono::steady_clock>>(io);
  BOOST_TEST(service.stats().timeouts_withdrawn == 1u);
}

// ---- Tolerance (asio_wheel only) ----------------------------------------------------------

BOOST_AUTO_TEST_CASE(
    a_timeouts_tolerance_keeps_it_in_its_window_and_shares_wakeups)
{
  // Timeouts given a tolerance, their own (asio_wheel::tolerance) or the context's fraction of
  // their length, fire never before their deadline and never later than deadline + tolerance +
  // one tick; with overlapping windows they share wakeups. The clock steps a tick at a time,
  // so each fires at the tick boundary the wheel chose.
  constexpr std::chrono::nanoseconds tick = 1ms;
  asio_wheel_test::align_clock_to(tick);
  asio::io_context io;
  asio_wheel::wheel_options options;
  options.tick = tick;
  options.tolerance = 1.0 / 4;
  auto& service = asio::make_service<manual_service>(io, options);

  struct timed
  {
    std::unique_ptr<controlled_operation> op;
    manual_clock::time_point deadline;
    manual_clock::duration tolerance;
    std::optional<manual_clock::time_point> fired_at;
  };
  std::vector<timed> ops(32);
  for (std::size_t i = 0; i < ops.size(); ++i)
  {
    timed& t = ops[i];
    t.op = std::make_unique<controlled_operation>(io);
    // Deadlines spread over 40 ticks from tick 100, mid-tick.
    const auto length = 100 * tick + (i * 40 * tick) / ops.size() + tick / 2;
    t.deadline = manual_clock::now() + length;
    auto on_done = [&t](error_code ec, int) {
      BOOST_TEST((ec == asio::error::operation_aborted), ec.message());
      t.fired_at = manual_clock::now();
    };
    if (i % 2)
    {
      t.tolerance = 12 * tick;
      t.op->async_run(asio_wheel::cancel_at(t.deadline,
          asio_wheel::tolerance(t.tolerance + tick / 3),
          on_done));  // rounded down
    }
    else
    {
      t.tolerance = (length / tick / 4) * tick;  // a quarter, in whole ticks
      t.op->async_run(asio_wheel::cancel_at(t.deadline, on_done));
    }
  }
  asio_wheel_test::advance_in_steps(io, 250 * tick, tick);

  std::set<manual_clock::time_point> times;
  for (const timed& t : ops)
  {
    BOOST_TEST_REQUIRE(t.fired_at.has_value());
    BOOST_TEST((*t.fired_at >= t.deadline), "fired before its deadline");
    BOOST_TEST((*t.fired_at <= t.deadline + t.tolerance + tick),
        "fired " << (*t.fired_at - t.deadline).count()
                 << " ns after its deadline, beyond " << t.tolerance.count()
                 << " ns + a tick");
    times.insert(*t.fired_at);
  }
  BOOST_TEST(times.size() < ops.size() / 4,
      times.size() << " wakeups for " << ops.size()
                   << " timeouts whose windows overlap");
  BOOST_TEST(service.stats().wakeups_saved > 0u);

  BOOST_CHECK_THROW(asio_wheel::tolerance(-1ns), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    composed_read_until_times_out_and_completes, Adapter, adapters)
{
  asio::io_context io;
  socket_pair sockets(io);
  std::string line;
  read_record r;
  asio::async_read_until(sockets.reader, asio::dynamic_buffer(line), '\n',
      Adapter::at(in(2s), record_into(r)));
  sockets.send("partial");
  settle(io);
  BOOST_TEST(r.calls == 0);
  manual_clock::advance(2s);
  settle(io);
  BOOST_TEST(r.calls == 1);
  BOOST_TEST((r.ec == asio::error::operation_aborted),
      Adapter::name << ": " << r.ec.message());

  read_record r2;
  std::string line2;
  asio::async_read_until(sockets.reader, asio::dynamic_buffer(line2), '\n',
      Adapter::at(in(2s), record_into(r2)));
  sockets.send(" line\n");
  settle(io);
  BOOST_TEST(r2.calls == 1);
  BOOST_TEST(!r2.ec, r2.ec.message());
}

BOOST_AUTO_TEST_CASE_TEMPLATE(works_with_completion_tokens, Adapter, adapters)
{
  asio::io_context io;
  socket_pair sockets(io);
  char buffer[16];

  // use_future
  std::future<std::size_t> f = sockets.reader.async_read_some(
      asio::buffer(buffer), Adapter::at(in(1s), asio::use_future));
  manual_clock::advance(1s);
  settle(io);
  BOOST_TEST_REQUIRE((f.wait_for(0s) == std::future_status::ready));
  BOOST_CHECK_THROW(f.get(), asio_wheel::system_error);

  // as_tuple
  std::optional<std::tuple<error_code, std::size_t>> t;
  sockets.reader.async_read_some(asio::buffer(buffer),
      Adapter::at(in(1s),
          asio_wheel_test::token::as_tuple(
              [&](std::tuple<error_code, std::size_t> v) { t = v; })));
  sockets.send("ab");
  settle(io);
  BOOST_TEST_REQUIRE(t.has_value());
  BOOST_TEST(!std::get<0>(*t));
  BOOST_TEST(std::get<1>(*t) == 2u);

  // redirect_error with use_future
  error_code redirected;
  auto f2 = sockets.reader.async_read_some(asio::buffer(buffer),
      Adapter::at(in(1s), asio::redirect_error(asio::use_future, redirected)));
  manual_clock::advance(1s);
  settle(io);
  BOOST_TEST((f2.wait_for(0s) == std::future_status::ready));
  BOOST_TEST((redirected == asio::error::operation_aborted));

  // deferred: nothing starts until the deferred operation is invoked
  auto op = sockets.reader.async_read_some(asio::buffer(buffer),
      Adapter::at(in(1s), asio_wheel_test::token::deferred));
  sockets.send("q");
  settle(io);
  BOOST_TEST(sockets.reader.available() == 1u,
      Adapter::name
          << ": the deferred timed read started before it was invoked");
  read_record r;
  std::move(op)(record_into(r));
  settle(io);
  BOOST_TEST(r.calls == 1);
  BOOST_TEST(!r.ec, r.ec.message());
  BOOST_TEST(r.bytes == 1u);
  auto late = sockets.reader.async_read_some(asio::buffer(buffer),
      Adapter::at(in(1s), asio_wheel_test::token::deferred));
  read_record r2;
  std::move(late)(record_into(r2));
  manual_clock::advance(1s);
  settle(io);
  BOOST_TEST(r2.calls == 1);
  BOOST_TEST((r2.ec == asio::error::operation_aborted));
}

#if defined(ASIO_WHEEL_TEST_HAS_AWAITABLE_DEFERRED)
BOOST_AUTO_TEST_CASE_TEMPLATE(
    partial_form_awaited_in_a_coroutine, Adapter, adapters)
{
  asio::io_context io;
  socket_pair sockets(io);
  std::optional<error_code> result;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        char buffer[16];
        try
        {
          co_await sockets.reader.async_read_some(
              asio::buffer(buffer), Adapter::at(in(30s)));
          result = error_code();
        }
        catch (const asio_wheel::system_error& e)
        {
          result = e.code();
        }
      },
      asio::detached);
  settle(io);
  manual_clock::advance(30s);
  settle(io);
  BOOST_TEST_REQUIRE(
      result.has_value(), Adapter::name << ": the coroutine did not resume");
  BOOST_TEST((*result == asio::error::operation_aborted), result->message());
}
#endif

// ---- An initiation called as an lvalue ----------------------------------------------------

BOOST_AUTO_TEST_CASE_TEMPLATE(
    a_token_may_call_the_initiation_as_a_const_lvalue, Adapter, adapters)
{
  asio::io_context io;
  typename Adapter::timer timer(io);
  controlled_operation plain(io), nested(io), timed_by_timer(io);
  run_record r_plain, r_nested, r_timer;
  plain.async_run(
      Adapter::at(in(5s), initiate_as_lvalue(record_into(r_plain))));
  // Nested: the outer adapter's initiation, called as an lvalue, passes the inner one on as
  // an lvalue too.
  nested.async_run(Adapter::at(
      in(5s), Adapter::at(in(10s), initiate_as_lvalue(record_into(r_nested)))));
  timed_by_timer.async_run(
      Adapter::at(timer, in(5s), initiate_as_lvalue(record_into(r_timer))));
  settle(io);
  manual_clock::advance(5s);
  settle(io);
  for (const run_record* r : {&r_plain, &r_nested, &r_timer})
  {
    BOOST_TEST(r->calls == 1,
        Adapter::name << ": handler ran " << r->calls << " times");
    BOOST_TEST((r->ec == asio::error::operation_aborted), r->ec.message());
  }
  for (const controlled_operation* op : {&plain, &nested, &timed_by_timer})
  {
    BOOST_TEST_REQUIRE(op->received.size() == 1u);
    BOOST_TEST((op->received[0] == asio::cancellation_type::terminal));
  }
}

// ---- Timer overloads: the timeout is a wait on the caller's timer --------------------------

BOOST_AUTO_TEST_CASE_TEMPLATE(
    timer_overload_sets_the_timers_expiry_and_times_out_at_it, Adapter,
    adapters)
{
  asio::io_context io;
  typename Adapter::timer timer(io);
  controlled_operation op(io);
  run_record r;
  const manual_clock::time_point deadline = in(30s);
  op.async_run(Adapter::at(timer, deadline, record_into(r)));
  BOOST_TEST((timer.expiry() == deadline),
      Adapter::name << ": the timer's expiry was not set");
  settle(io);
  manual_clock::advance(30s - 1ns);
  settle(io);
  BOOST_TEST(op.received.empty(),
      Adapter::name << ": cancelled before the timer's expiry");
  BOOST_TEST(r.calls == 0);
  manual_clock::advance(1ns);
  settle(io);
  BOOST_TEST_REQUIRE(op.received.size() == 1u,
      Adapter::name << ": no cancellation at the expiry");
  BOOST_TEST((op.received[0] == asio::cancellation_type::terminal));
  BOOST_TEST(r.calls == 1);
  BOOST_TEST((r.ec == asio::error::operation_aborted), r.ec.message());

  // cancel_after: the expiry is the operation's start plus the timeout.
  controlled_operation op2(io);
  run_record r2;
  op2.async_run(Adapter::after(timer, 20s, record_into(r2)));
  BOOST_TEST((timer.expiry() == manual_clock::now() + 20s));
  manual_clock::advance(20s - 1ns);
  settle(io);
  BOOST_TEST(r2.calls == 0);
  manual_clock::advance(1ns);
  settle(io);
  BOOST_TEST(r2.calls == 1,
      Adapter::name << ": cancel_after(timer, ...) did not time out");
  BOOST_TEST((r2.ec == asio::error::operation_aborted));
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    operation_completing_first_cancels_the_timers_wait, Adapter, adapters)
{
  asio::io_context io;
  typename Adapter::timer timer(io);
  controlled_operation op(io);
  run_record r;
  op.async_run(Adapter::at(timer, in(30s), record_into(r)));
  settle(io);
  op.finish(error_code(), 7);
  settle(io);
  BOOST_TEST(r.calls == 1);
  BOOST_TEST(!r.ec, r.ec.message());
  BOOST_TEST(r.value == 7,
      Adapter::name << ": the operation's result was not passed through");
  BOOST_TEST(timer.cancel() == 0u,
      Adapter::name << ": the timer's wait is still pending");
  manual_clock::advance(30s);
  settle(io);
  BOOST_TEST(r.calls == 1);
  BOOST_TEST(
      op.received.empty(), "a cancellation reached a completed operation");
  if constexpr (Adapter::is_wheel)
    BOOST_TEST(
        asio::use_service<manual_service>(io).stats().pending_waits == 0u);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    cancelling_or_resetting_the_timer_cancels_the_operation, Adapter, adapters)
{
  asio::io_context io;
  typename Adapter::timer timer(io);

  // The timer's wait completes with operation_aborted: the timeout fires all the same.
  controlled_operation cancelled(io);
  run_record r1;
  cancelled.async_run(Adapter::at(
      timer, in(30s), asio::cancellation_type::partial, record_into(r1)));
  settle(io);
  BOOST_TEST(timer.cancel() == 1u);
  settle(io);
  BOOST_TEST_REQUIRE(cancelled.received.size() == 1u,
      Adapter::name << ": cancelling the timer did not cancel the operation");
  BOOST_TEST((cancelled.received[0] == asio::cancellation_type::partial));
  BOOST_TEST(r1.calls == 1);
  BOOST_TEST((r1.ec == asio::error::operation_aborted));

  // So does setting the timer's expiry, which aborts its waits.
  controlled_operation reset(io);
  run_record r2;
  reset.async_run(Adapter::at(timer, in(30s), record_into(r2)));
  settle(io);
  timer.expires_after(1h);
  settle(io);
  BOOST_TEST(reset.received.size() == 1u,
      Adapter::name
          << ": setting the timer's expiry did not cancel the operation");
  BOOST_TEST(r2.calls == 1);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    reusing_the_timer_for_another_operation, Adapter, adapters)
{
  asio::io_context io;
  typename Adapter::timer timer(io);

  // While the first is pending: the second sets the expiry, which fires the first's timeout.
  controlled_operation first(io), second(io);
  run_record r1, r2;
  first.async_run(Adapter::at(timer, in(10s), record_into(r1)));
  second.async_run(Adapter::at(timer, in(20s), record_into(r2)));
  settle(io);
  BOOST_TEST(first.received.size() == 1u,
      Adapter::name << ": the first operation was not cancelled when its timer "
                       "was reused");
  BOOST_TEST(r1.calls == 1);
  BOOST_TEST(r2.calls == 0);
  manual_clock::advance(20s - 1ns);
  settle(io);
  BOOST_TEST(r2.calls == 0,
      Adapter::name << ": the second operation was cancelled early");
  manual_clock::advance(1ns);
  settle(io);
  BOOST_TEST(second.received.size() == 1u);
  BOOST_TEST(r2.calls == 1);

  // After an operation completed: the next one is timed as if the timer were new.
  controlled_operation third(io), fourth(io);
  run_record r3, r4;
  third.async_run(Adapter::at(timer, in(5s), record_into(r3)));
  settle(io);
  third.finish(error_code(), 3);
  settle(io);
  BOOST_TEST(r3.calls == 1);
  BOOST_TEST(r3.value == 3);
  fourth.async_run(Adapter::at(timer, in(5s), record_into(r4)));
  manual_clock::advance(5s - 1ns);
  settle(io);
  BOOST_TEST(r4.calls == 0);
  manual_clock::advance(1ns);
  settle(io);
  BOOST_TEST(fourth.received.size() == 1u);
  BOOST_TEST(r4.calls == 1);
  BOOST_TEST(third.received.empty());
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    timer_overload_partial_forms_adapt_the_default_token, Adapter, adapters)
{
  asio::io_context io;
  typename Adapter::timer timer(io);
  controlled_operation at_op(io), after_op(io);
  run_record at_r, after_r;
  // The operation's default token is deferred: nothing starts until it is invoked, and the
  // timer's expiry is set then.
  auto at_deferred = at_op.async_run(
      Adapter::at(timer, in(2s), asio::cancellation_type::total));
  auto after_deferred = after_op.async_run(Adapter::after(timer, 3s));
  manual_clock::advance(1s);
  std::move(at_deferred)(record_into(at_r));
  settle(io);
  BOOST_TEST((timer.expiry() == in(1s)));
  manual_clock::advance(1s);
  settle(io);
  BOOST_TEST_REQUIRE(at_op.received.size() == 1u,
      Adapter::name << ": partial cancel_at did not time out");
  BOOST_TEST((at_op.received[0] == asio::cancellation_type::total));
  BOOST_TEST(at_r.calls == 1);

  std::move(after_deferred)(record_into(after_r));
  BOOST_TEST((timer.expiry() == in(3s)),
      "cancel_after(timer, d) did not time from the start");
  manual_clock::advance(3s);
  settle(io);
  BOOST_TEST(after_op.received.size() == 1u);
  BOOST_TEST(after_r.calls == 1);
}

BOOST_AUTO_TEST_CASE(wheel_timer_overloads_take_every_form)
{
  // Two forms Asio declares for its timers that do not compile with every timer: in Boost.Asio
  // up to 1.90, cancel_after(timer, d, type, token) only with a steady_timer (its return type
  // names steady_clock; fixed in standalone 1.38), and the partial cancel_after(timer, d)
  // applied to a token with none (its operator() leaves the timer out), so only ours run here.
  asio::io_context io;
  wheel_adapter::timer timer(io);
  controlled_operation with_type(io), adapted(io);
  run_record r1, r2;
  with_type.async_run(asio_wheel::cancel_after(
      timer, 1s, asio::cancellation_type::partial, record_into(r1)));
  manual_clock::advance(1s);
  settle(io);
  BOOST_TEST_REQUIRE(with_type.received.size() == 1u);
  BOOST_TEST((with_type.received[0] == asio::cancellation_type::partial));
  BOOST_TEST(r1.calls == 1);

  auto partial =
      asio_wheel::cancel_after(timer, 2s, asio::cancellation_type::total);
  adapted.async_run(partial(record_into(r2)));
  manual_clock::advance(2s);
  settle(io);
  BOOST_TEST_REQUIRE(adapted.received.size() == 1u);
  BOOST_TEST((adapted.received[0] == asio::cancellation_type::total));
  BOOST_TEST(r2.calls == 1);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    timer_overload_handler_runs_on_its_associated_executor, Adapter, adapters)
{
  asio::io_context io;
  auto strand = asio::make_strand(io);
  typename Adapter::timer timer(io);
  socket_pair sockets(io);
  char buffer[16];
  int calls = 0;
  bool in_strand = false;
  sockets.reader.async_read_some(asio::buffer(buffer),
      Adapter::at(timer, in(1s),
          asio::bind_executor(strand, [&](error_code, std::size_t) {
            ++calls;
            in_strand = strand.running_in_this_thread();
          })));
  manual_clock::advance(1s);
  settle(io);
  BOOST_TEST(calls == 1);
  BOOST_TEST(
      in_strand, Adapter::name << ": timed-out handler ran outside its strand");
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    destroying_the_context_with_a_timer_timed_operation_destroys_its_handler,
    Adapter, adapters)
{
  int calls = 0;
  auto alive = std::make_shared<int>(0);
  std::weak_ptr<int> observer = alive;
  {
    asio::io_context io;
    typename Adapter::timer timer(io);
    controlled_operation op(io);
    op.async_run(Adapter::at(timer, in(5s),
        [&calls, alive = std::move(alive)](error_code, int) { ++calls; }));
    settle(io);
  }
  BOOST_TEST(calls == 0, "a handler was invoked at shutdown");
  BOOST_TEST(observer.expired(),
      "a pending handler was not destroyed with its context");
}

BOOST_AUTO_TEST_CASE(rescheduling_the_wheel_timer_moves_the_operations_deadline)
{
  // The wheel's own member: the pending timeout moves, nothing is cancelled meanwhile.
  asio::io_context io;
  wheel_adapter::timer timer(io);
  controlled_operation op(io);
  run_record r;
  op.async_run(asio_wheel::cancel_after(timer, 10s, record_into(r)));
  manual_clock::advance(5s);
  BOOST_TEST(timer.reschedule_after(10s) == 1u);
  manual_clock::advance(10s - 1ns);
  settle(io);
  BOOST_TEST(op.received.empty(),
      "the operation was cancelled before its moved deadline");
  manual_clock::advance(1ns);
  settle(io);
  BOOST_TEST(op.received.size() == 1u);
  BOOST_TEST(r.calls == 1);
  BOOST_TEST((r.ec == asio::error::operation_aborted));
}

// ---- Allocation failure (test/allocation_faults.hpp) --------------------------------------

// A read timed by cancel_at, or (WithTimer) by cancel_after on a timer of its own, with each
// of its allocations failing in turn: the std::bad_alloc reaches the caller, the read is not
// started (the bytes sent afterwards are there for the next read), the handler never runs and
// is destroyed, and the socket, the timer and the context keep working. asio_wheel's form
// without a timer gives the strong guarantee: the handler is destroyed before the throw
// reaches the caller, nothing is left in the wheel or counted as work. With a timer, as with
// Asio's own forms, the timeout's wait started before the operation and stays until it
// completes (here when the timer is cancelled, or its deadline passes), which destroys the
// handler then (doc/timeouts.md, "Allocation failure").
template <class Adapter, bool WithTimer, bool Plain>
void check_strong_guarantee()
{
  std::size_t failures = 0;
  for (std::size_t n = 1; n <= allocation_faults::max_allocations; ++n)
  {
    BOOST_TEST_CONTEXT(Adapter::name << (WithTimer ? " with a timer" : "")
                                     << (Plain ? ", plain allocator" : "")
                                     << ", allocation " << n << " fails")
    {
      asio::io_context io;
      socket_pair sockets(io);
      typename Adapter::timer timer(io);
      char buffer[16];
      bool destroyed = false, ran = false;
      allocation_faults::witnessed_read_handler<error_code, Plain> handler(
          ran, destroyed);
      const bool threw = allocation_faults::fails_at(n, [&] {
        if constexpr (WithTimer)
          sockets.reader.async_read_some(asio::buffer(buffer),
              Adapter::after(timer, 30s, std::move(handler)));
        else
          sockets.reader.async_read_some(
              asio::buffer(buffer), Adapter::at(in(30s), std::move(handler)));
      });
      if (!threw)
      {
        BOOST_TEST_MESSAGE(failures << " allocations on this path");
        // (The default allocator may reuse memory of earlier operations.)
        BOOST_TEST((failures > 0u || !Plain));
        sockets.reader.cancel();
        settle(io);
        return;
      }
      ++failures;
      BOOST_TEST(!ran);
      if constexpr (Adapter::is_wheel && !WithTimer)
      {
        BOOST_TEST(destroyed, "the handler of the failed operation was kept");
        const asio_wheel::wheel_stats s =
            asio::use_service<manual_service>(io).stats();
        BOOST_TEST(s.pending_waits == 0u, "the failed timeout was filed");
        BOOST_TEST(s.timers_in_wheel == 0u);
      }
      // Nothing was started: the next read gets the bytes, no timeout fires.
      sockets.send("hello");
      read_record r;
      sockets.reader.async_read_some(
          asio::buffer(buffer), Adapter::at(in(30s), record_into(r)));
      settle(io);
      BOOST_TEST(r.calls == 1);
      BOOST_TEST(!r.ec, r.ec.message());
      BOOST_TEST(r.bytes == 5u);
      if constexpr (WithTimer)
        timer.cancel();
      manual_clock::advance(60s);
      settle(io);
      BOOST_TEST(r.calls == 1);
      BOOST_TEST(!ran, "the handler of the failed operation ran");
      BOOST_TEST(destroyed, "the handler of the failed operation was kept");
      // No work counted: run() returns at once.
      io.restart();
      io.run_for(5s);
      BOOST_TEST(io.stopped(), "the failed operation left work counted");
    }
  }
  BOOST_ERROR("every allocation up to max_allocations failed");
}

BOOST_AUTO_TEST_CASE_TEMPLATE(
    a_timed_operation_gives_the_strong_guarantee, Adapter, adapters)
{
  check_strong_guarantee<Adapter, false, false>();
  check_strong_guarantee<Adapter, false, true>();
  check_strong_guarantee<Adapter, true, false>();
  check_strong_guarantee<Adapter, true, true>();
}

// A timeout that fires, and a read that completes first and takes its timeout back, with
// every allocation of the running thread failing: neither needs one inside run().
BOOST_AUTO_TEST_CASE_TEMPLATE(
    timeouts_firing_or_withdrawn_allocate_nothing, Adapter, adapters)
{
  asio::io_context io;
  socket_pair timed_out(io), answered(io);
  char buffer[16], other_buffer[16];
  read_record late, early;
  timed_out.reader.async_read_some(
      asio::buffer(buffer), Adapter::at(in(30s), record_into(late)));
  answered.reader.async_read_some(
      asio::buffer(other_buffer), Adapter::at(in(30s), record_into(early)));
  settle(io);
  answered.send("hi");
  manual_clock::advance(30s);
  BOOST_TEST(!allocation_faults::failing_all([&] { settle(io); }),
      Adapter::name << ": an allocation inside run() failed");
  BOOST_TEST(late.calls == 1);
  BOOST_TEST((late.ec == asio::error::operation_aborted), late.ec.message());
  BOOST_TEST(early.calls == 1);
  BOOST_TEST(!early.ec, early.ec.message());
  BOOST_TEST(early.bytes == 2u);
}
