// Tests of asio_wheel::cancel_after / cancel_at (include/asio_wheel/cancel_after.hpp).
//
// Every behaviour test runs against asio_wheel's adapter and, where the Asio being compiled
// against has one (Boost 1.86+, standalone 1.31+), against Asio's own cancel_after /
// cancel_at: the same test proves the semantics are Asio's. Time is manual (manual_clock,
// whose asio::wait_traits make the reactor look at the clock on every turn, see below), so a
// test decides when a deadline passes; the operations are reads on connected loopback
// sockets, and custom operations that record the cancellation they receive.
#define BOOST_TEST_MODULE asio_wheel_cancel_after_test
#include "wheel_test_support.hpp"  // manual_clock, settle, asio::, error_code

#include <asio_wheel/cancel_after.hpp>

#include <atomic>
#include <chrono>
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
namespace asio = asio_wheel::asio;
using asio_wheel::error_code;
using namespace std::chrono_literals;

// Asio's own cancel_at times with basic_waitable_timer<Clock, asio::wait_traits<Clock>>, and
// asio_wheel's with the wheel of wheel_timer_service<Clock, asio::wait_traits<Clock>>: with
// these traits both make every reactor wait zero while a timer is queued, so an advance of the
// manual clock is seen on the next turn (see manual_wait_traits). Only this executable times
// manual_clock with asio::wait_traits, so the specialization is seen by every use.
ASIO_WHEEL_ASIO_NAMESPACE_BEGIN
template <>
struct wait_traits<asio_wheel_test::manual_clock> : asio_wheel_test::manual_wait_traits
{
};
ASIO_WHEEL_ASIO_NAMESPACE_END

namespace {

// ---- The two implementations, behind one interface -------------------------------------

struct wheel_adapter
{
  static constexpr const char* name = "asio_wheel::cancel_at";
  template <class... A>
  static auto at(A&&... a) { return asio_wheel::cancel_at(std::forward<A>(a)...); }
  static constexpr bool is_wheel = true;
};

#if defined(ASIO_WHEEL_TEST_HAS_ASIO_CANCEL_AFTER)
struct asio_adapter
{
  static constexpr const char* name = "asio::cancel_at";
  template <class... A>
  static auto at(A&&... a) { return asio::cancel_at(std::forward<A>(a)...); }
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
  explicit socket_pair(asio::io_context& io) : reader(io), writer(io)
  {
    asio::ip::tcp::acceptor acceptor(io,
        asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
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
  {
  }

  template <class Token>
  auto async_run(Token&& token)
  {
    return asio::async_initiate<Token, void(error_code, int)>(initiation{this}, token);
  }

  // Completes the operation (if it is pending) with ec and value, through a post.
  void finish(error_code ec, int value)
  {
    if (!pending_)
      return;
    auto handler = std::move(*pending_);
    pending_.reset();
    asio::post(io_, [handler = std::move(handler), ec, value]() mutable { handler(ec, value); });
  }

  std::vector<asio::cancellation_type_t> received;

private:
  using handler_type = std::function<void(error_code, int)>;

  struct initiation
  {
    controlled_operation* self;
    using executor_type = asio::io_context::executor_type;
    executor_type get_executor() const noexcept { return self->io_.get_executor(); }

    template <class Handler>
    void operator()(Handler&& handler) const
    {
      auto slot = asio::get_associated_cancellation_slot(handler);
      auto shared = std::make_shared<std::decay_t<Handler>>(std::forward<Handler>(handler));
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

manual_clock::time_point in(manual_clock::duration d) { return manual_clock::now() + d; }

} // namespace

BOOST_AUTO_TEST_CASE(implementations_under_test)
{
  std::cout << "cancel_after tests run against:";
#if defined(ASIO_WHEEL_TEST_HAS_ASIO_CANCEL_AFTER)
  std::cout << " asio::cancel_after (" << asio_wheel_test::asio_description() << ") and";
#else
  std::cout << " (left out: asio::cancel_after, not in "
            << asio_wheel_test::asio_description() << ")";
#endif
  std::cout << " asio_wheel::cancel_after\n";
  BOOST_TEST(std::tuple_size<adapters>::value >= 1u);
}

// ---- Timeout and completion ---------------------------------------------------------------

BOOST_AUTO_TEST_CASE_TEMPLATE(timeout_cancels_a_pending_read_at_its_deadline_not_before,
    Adapter, adapters)
{
  asio::io_context io;
  socket_pair sockets(io);
  char buffer[16];
  read_record r;
  sockets.reader.async_read_some(asio::buffer(buffer),
      Adapter::at(in(30s), record_into(r)));
  settle(io);
  manual_clock::advance(30s - 1ns);
  settle(io);
  BOOST_TEST(r.calls == 0, Adapter::name << ": the read was cancelled before its deadline");
  manual_clock::advance(1ns);
  settle(io);
  BOOST_TEST(r.calls == 1, Adapter::name << ": handler ran " << r.calls << " times");
  BOOST_TEST((r.ec == asio::error::operation_aborted), Adapter::name << ": " << r.ec.message());
  BOOST_TEST(r.bytes == 0u);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(operation_completing_first_passes_its_result_and_no_timeout_fires,
    Adapter, adapters)
{
  asio::io_context io;
  socket_pair sockets(io);
  char buffer[16];
  read_record r;
  sockets.reader.async_read_some(asio::buffer(buffer), Adapter::at(in(30s), record_into(r)));
  sockets.send("hello");
  settle(io);
  BOOST_TEST(r.calls == 1);
  BOOST_TEST(!r.ec, Adapter::name << ": " << r.ec.message());
  BOOST_TEST(r.bytes == 5u);
  manual_clock::advance(60s);
  settle(io);
  BOOST_TEST(r.calls == 1, Adapter::name << ": handler ran again after the deadline");
  if constexpr (Adapter::is_wheel)
  {
    const asio_wheel::wheel_stats s = asio::use_service<manual_service>(io).stats();
    BOOST_TEST(s.timeouts_withdrawn == 1u, "the timeout was not withdrawn from the wheel");
    BOOST_TEST(s.pending_waits == 0u);
    BOOST_TEST(s.timers_in_wheel == 0u);
    BOOST_TEST(s.waits_expired == 0u, "a withdrawn timeout fired");
  }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(completion_in_the_same_tick_as_the_timeout_runs_the_handler_once_and_loses_no_data,
    Adapter, adapters)
{
  asio::io_context io;
  socket_pair sockets(io);
  char buffer[16];
  read_record r;
  sockets.reader.async_read_some(asio::buffer(buffer), Adapter::at(in(10ms), record_into(r)));
  settle(io);
  // Both become ready before the context runs again: the data and the deadline.
  sockets.send("x");
  manual_clock::advance(10ms);
  settle(io);
  BOOST_TEST(r.calls == 1, Adapter::name << ": handler ran " << r.calls << " times");
  if (!r.ec)
    BOOST_TEST(r.bytes == 1u);
  else
  {
    BOOST_TEST((r.ec == asio::error::operation_aborted), r.ec.message());
    // Cancelled before it read: the byte is still there.
    BOOST_TEST(sockets.reader.available() == 1u, "a cancelled read lost the data");
  }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(timeout_that_the_operation_ignores_leaves_its_result_unchanged,
    Adapter, adapters)
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
  BOOST_TEST(calls == 0, "the handler ran though the operation ignored the cancellation");
  op.finish(error_code(), 42);
  settle(io);
  BOOST_TEST(calls == 1);
  BOOST_TEST(!got_ec);
  BOOST_TEST(got_value == 42, "the operation's result was not passed through");
}

BOOST_AUTO_TEST_CASE_TEMPLATE(emits_the_requested_cancellation_type, Adapter, adapters)
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
    BOOST_TEST((op.received[0] == type), Adapter::name << ": wrong cancellation type emitted");
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

BOOST_AUTO_TEST_CASE_TEMPLATE(a_cancellation_slot_bound_by_the_caller_keeps_working,
    Adapter, adapters)
{
  asio::io_context io;
  socket_pair sockets(io);
  asio::cancellation_signal signal;
  char buffer[16];
  read_record r;
  sockets.reader.async_read_some(asio::buffer(buffer),
      Adapter::at(in(30s), asio::bind_cancellation_slot(signal.slot(), record_into(r))));
  settle(io);
  signal.emit(asio::cancellation_type::terminal);
  settle(io);
  BOOST_TEST(r.calls == 1, Adapter::name << ": the caller's cancellation did not reach the read");
  BOOST_TEST((r.ec == asio::error::operation_aborted));
  // After completion the slot leads nowhere: emitting again is harmless.
  signal.emit(asio::cancellation_type::terminal);
  manual_clock::advance(30s);
  settle(io);
  BOOST_TEST(r.calls == 1);
}

// ---- Associated characteristics -----------------------------------------------------------

BOOST_AUTO_TEST_CASE_TEMPLATE(handler_runs_on_its_associated_executor, Adapter, adapters)
{
  asio::io_context io;
  auto strand = asio::make_strand(io);
  socket_pair sockets(io);
  char buffer[16];
  bool in_strand_on_completion = false;
  bool in_strand_on_timeout = false;
  sockets.reader.async_read_some(asio::buffer(buffer),
      Adapter::at(in(1s), asio::bind_executor(strand, [&](error_code, std::size_t) {
        in_strand_on_timeout = strand.running_in_this_thread();
      })));
  manual_clock::advance(1s);
  settle(io);
  BOOST_TEST(in_strand_on_timeout, Adapter::name << ": timed-out handler ran outside its strand");
  sockets.reader.async_read_some(asio::buffer(buffer),
      Adapter::at(in(1s), asio::bind_executor(strand, [&](error_code, std::size_t) {
        in_strand_on_completion = strand.running_in_this_thread();
      })));
  sockets.send("y");
  settle(io);
  BOOST_TEST(in_strand_on_completion, Adapter::name << ": completed handler ran outside its strand");
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
  counting_allocator(const counting_allocator<U>& o) noexcept : counts(o.counts) {}
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
  bool operator==(const counting_allocator<U>& o) const noexcept { return counts == o.counts; }
  template <class U>
  bool operator!=(const counting_allocator<U>& o) const noexcept { return counts != o.counts; }
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

} // namespace

BOOST_AUTO_TEST_CASE(wheel_state_is_allocated_with_the_handlers_allocator_and_freed)
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
    BOOST_TEST(after_start >= 1u, "the timed operation's state did not use the handler's allocator");
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
  BOOST_TEST(counts.allocations == counts.deallocations, "memory from the handler's allocator leaked");
}

// ---- Lifetime and threads -----------------------------------------------------------------

BOOST_AUTO_TEST_CASE_TEMPLATE(destroying_the_context_with_timeouts_pending_destroys_handlers_uninvoked,
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
        Adapter::at(in(30s), [&calls, alive = std::move(alive), buffer](error_code, std::size_t) {
          ++calls;
        }));
    controlled_operation op(io);
    op.async_run(Adapter::at(in(5s), [&calls](error_code, int) { ++calls; }));
    settle(io);
  }
  BOOST_TEST(calls == 0, "a handler was invoked at shutdown");
  BOOST_TEST(observer.expired(), "a pending handler was not destroyed with its context");
}

BOOST_AUTO_TEST_CASE_TEMPLATE(reads_on_strands_from_several_threads_each_complete_once,
    Adapter, adapters)
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
      auto handler = asio::bind_executor(strands[i], [&, i](error_code ec, std::size_t) {
        ++calls;
        if (!strands[i].running_in_this_thread())
          ++outside_strand;
        if (!ec)
          ++succeeded;
        else if (ec == asio::error::operation_aborted)
          ++aborted;
      });
      s.reader.async_read_some(asio::buffer(buffers[i]), Adapter::at(deadline, handler));
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
  BOOST_TEST(calls.load() == pairs, Adapter::name << ": " << calls.load() << " of " << pairs << " handlers ran");
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
  auto& service = asio::use_service<asio_wheel::wheel_timer_service<std::chrono::steady_clock>>(io);
  BOOST_TEST(service.stats().timeouts_withdrawn == 1u);
}

// ---- Tolerance (asio_wheel only) ----------------------------------------------------------

BOOST_AUTO_TEST_CASE(a_timeouts_tolerance_keeps_it_in_its_window_and_shares_wakeups)
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
          asio_wheel::tolerance(t.tolerance + tick / 3), on_done));  // rounded down
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
        "fired " << (*t.fired_at - t.deadline).count() << " ns after its deadline, beyond "
        << t.tolerance.count() << " ns + a tick");
    times.insert(*t.fired_at);
  }
  BOOST_TEST(times.size() < ops.size() / 4, times.size() << " wakeups for " << ops.size()
      << " timeouts whose windows overlap");
  BOOST_TEST(service.stats().wakeups_saved > 0u);

  BOOST_CHECK_THROW(asio_wheel::tolerance(-1ns), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(composed_read_until_times_out_and_completes, Adapter, adapters)
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
  BOOST_TEST((r.ec == asio::error::operation_aborted), Adapter::name << ": " << r.ec.message());

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
  std::future<std::size_t> f = sockets.reader.async_read_some(asio::buffer(buffer),
      Adapter::at(in(1s), asio::use_future));
  manual_clock::advance(1s);
  settle(io);
  BOOST_TEST_REQUIRE((f.wait_for(0s) == std::future_status::ready));
  BOOST_CHECK_THROW(f.get(), asio_wheel::system_error);

  // as_tuple
  std::optional<std::tuple<error_code, std::size_t>> t;
  sockets.reader.async_read_some(asio::buffer(buffer),
      Adapter::at(in(1s), asio_wheel_test::token::as_tuple([&](std::tuple<error_code, std::size_t> v) {
        t = v;
      })));
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
      Adapter::name << ": the deferred timed read started before it was invoked");
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
BOOST_AUTO_TEST_CASE_TEMPLATE(partial_form_awaited_in_a_coroutine, Adapter, adapters)
{
  asio::io_context io;
  socket_pair sockets(io);
  std::optional<error_code> result;
  asio::co_spawn(io, [&]() -> asio::awaitable<void> {
        char buffer[16];
        try
        {
          co_await sockets.reader.async_read_some(asio::buffer(buffer), Adapter::at(in(30s)));
          result = error_code();
        }
        catch (const asio_wheel::system_error& e)
        {
          result = e.code();
        }
      }, asio::detached);
  settle(io);
  manual_clock::advance(30s);
  settle(io);
  BOOST_TEST_REQUIRE(result.has_value(), Adapter::name << ": the coroutine did not resume");
  BOOST_TEST((*result == asio::error::operation_aborted), result->message());
}
#endif
