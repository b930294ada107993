// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// wheel_executor.cpp: tests of include/asio_wheel/wheel_executor.hpp. The executor: it is an
// executor of its inner executor's models, runs functions and answers queries as its inner
// executor does, keeps itself around what require and prefer return, has the Networking TS
// members exactly where its inner executor has them, compares by its inner executor, and works
// as a socket's, an acceptor's and a strand's executor and inside any_io_executor (where its
// timers are no longer routed). The routed timer, basic_waitable_timer<Clock, WaitTraits,
// wheel_executor<E>>: a wheel timer (on the manual clock: never early, at most a tick late,
// counted in wheel_stats), rebind_executor, the conversions that carry waits, and the fast
// path (an operation stores the plain io_context executor a routed timer's executor wraps).
// Asio's timer semantics on it are the conformance suite's (test/conformance, routed_timer).
#include "wheel_test_support.hpp"

#include <asio_wheel/wheel_executor.hpp>

#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

using namespace asio_wheel_test;

namespace {

using io_executor = asio::io_context::executor_type;
using strand_executor = asio::strand<io_executor>;
using wheel_any = asio_wheel::wheel_executor<>;
using wheel_io = asio_wheel::wheel_executor<io_executor>;
using wheel_strand = asio_wheel::wheel_executor<strand_executor>;

template <class Executor>
using routed_manual_timer =
    asio::basic_waitable_timer<manual_clock, manual_wait_traits, Executor>;

// The sizes of the blocks a handler's operation is allocated in.
struct allocation_log
{
  std::vector<std::size_t> sizes;
};

template <class T>
struct logging_allocator
{
  using value_type = T;
  allocation_log* log;

  explicit logging_allocator(allocation_log& l) noexcept : log(&l) {}
  template <class U>
  logging_allocator(const logging_allocator<U>& other) noexcept : log(other.log)
  {}

  T* allocate(std::size_t n)
  {
    log->sizes.push_back(n * sizeof(T));
    return static_cast<T*>(::operator new(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t) noexcept { ::operator delete(p); }
  template <class U>
  bool operator==(const logging_allocator<U>& other) const noexcept
  {
    return log == other.log;
  }
  template <class U>
  bool operator!=(const logging_allocator<U>& other) const noexcept
  {
    return log != other.log;
  }
};

// A handler whose associated allocator logs: what bind_allocator makes, written out because
// bind_allocator arrived in Asio 1.22.1 (Boost 1.79) and the legs go down to 1.18.
template <class Handler>
struct allocation_logged
{
  using allocator_type = logging_allocator<char>;
  allocator_type allocator;
  Handler handler;

  allocator_type get_allocator() const noexcept { return allocator; }
  template <class... Args>
  void operator()(Args&&... args)
  {
    handler(std::forward<Args>(args)...);
  }
};

template <class Handler>
allocation_logged<Handler> log_allocations(allocation_log& log, Handler handler)
{
  return {logging_allocator<char>(log), std::move(handler)};
}

// The size of the operation an async_wait on @p timer allocates.
template <class Timer>
std::size_t wait_operation_size(Timer& timer)
{
  allocation_log log;
  timer.async_wait(log_allocations(log, [](error_code) {}));
  timer.cancel();
  BOOST_REQUIRE(log.sizes.size() == 1u);
  return log.sizes.front();
}

// An acceptor on 127.0.0.1, ephemeral port, of executor type Executor.
template <class Executor>
asio::basic_socket_acceptor<asio::ip::tcp, Executor> loopback_acceptor(
    const Executor& ex)
{
  asio::basic_socket_acceptor<asio::ip::tcp, Executor> acceptor(ex);
  const asio::ip::tcp::endpoint ep(asio::ip::make_address("127.0.0.1"), 0);
  acceptor.open(ep.protocol());
  acceptor.bind(ep);
  acceptor.listen();
  return acceptor;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(wheel_executor)

BOOST_AUTO_TEST_CASE(is_an_executor_of_its_inner_executors_models)
{
  // Standard executors, all three.
  static_assert(asio::execution::is_executor<wheel_any>::value);
  static_assert(asio::execution::is_executor<wheel_io>::value);
  static_assert(asio::execution::is_executor<wheel_strand>::value);
  static_assert(std::is_nothrow_copy_constructible_v<wheel_any>);
  // A Networking TS executor exactly where the inner one is one: any_io_executor is not.
  static_assert(!asio::is_executor<asio::any_io_executor>::value);
  static_assert(!asio::is_executor<wheel_any>::value);
  static_assert(asio::is_executor<io_executor>::value
      == asio::is_executor<wheel_io>::value);
  static_assert(asio::is_executor<strand_executor>::value
      == asio::is_executor<wheel_strand>::value);
  // Type-erasable, and made implicitly from what converts to the inner executor (a socket
  // made from make_strand(io) must take it), but not from an execution context.
  static_assert(std::is_convertible_v<wheel_any, asio::any_io_executor>);
  static_assert(std::is_convertible_v<strand_executor, wheel_any>);
  static_assert(std::is_convertible_v<io_executor, wheel_any>);
  static_assert(std::is_convertible_v<wheel_io, wheel_any>);
  static_assert(!std::is_convertible_v<wheel_any, wheel_io>);
  static_assert(!std::is_convertible_v<asio::io_context&, wheel_any>);
  static_assert(std::is_constructible_v<wheel_any, asio::io_context&>);
  static_assert(
      std::is_same_v<wheel_any::inner_executor_type, asio::any_io_executor>);
  BOOST_TEST_MESSAGE("wheel_executor is an executor of its inner's models");
}

BOOST_AUTO_TEST_CASE(
    constructed_from_an_executor_or_a_context_compares_by_inner)
{
  asio::io_context io, other_io;
  const wheel_any from_context(io);
  const wheel_any from_executor(io.get_executor());
  BOOST_TEST((from_context == from_executor));
  BOOST_TEST(!(from_context != from_executor));
  BOOST_TEST((from_context.get_inner_executor()
      == asio::any_io_executor(io.get_executor())));
  BOOST_TEST((from_context != wheel_any(other_io)));

  const strand_executor s1 = asio::make_strand(io), s2 = asio::make_strand(io);
  BOOST_TEST((wheel_strand(s1) == wheel_strand(s1)));
  BOOST_TEST((wheel_strand(s1) != wheel_strand(s2)),
      "two strands of one context are different executors");
  const wheel_any converted = wheel_io(io.get_executor());
  BOOST_TEST((converted == from_executor));
  const wheel_any default_constructed;
  BOOST_TEST(!default_constructed.get_inner_executor(),
      "a default-constructed wheel_executor<> holds an empty any_io_executor");
}

BOOST_AUTO_TEST_CASE(runs_functions_as_its_inner_executor)
{
  asio::io_context io;
  const wheel_any ex(io);
  std::vector<std::string> order;
  asio::post(ex, [&] {
    order.push_back("post");
    // dispatch from inside run() runs at once, as on the io_context's own executor.
    asio::dispatch(ex, [&] { order.push_back("dispatch inside"); });
    asio::defer(ex, [&] { order.push_back("defer"); });
    order.push_back("post end");
  });
  BOOST_TEST(order.empty(), "post ran inside post");
  io.run();
  BOOST_TEST((order
      == std::vector<std::string>{
          "post", "dispatch inside", "post end", "defer"}));

  // On a strand: the functions run in it.
  io.restart();
  const wheel_strand on_strand(asio::make_strand(io));
  bool in_strand = false;
  asio::post(on_strand, [&] {
    in_strand = on_strand.get_inner_executor().running_in_this_thread();
  });
  io.run();
  BOOST_TEST(in_strand);
}

BOOST_AUTO_TEST_CASE(answers_queries_as_its_inner_executor)
{
  asio::io_context io;
  const wheel_any ex(io);
  const asio::any_io_executor& inner = ex.get_inner_executor();
  BOOST_TEST(&asio::query(ex, asio::execution::context) == &io);
  BOOST_TEST((asio::query(ex, asio::execution::blocking)
      == asio::query(inner, asio::execution::blocking)));
  const wheel_io io_ex(io.get_executor());
  BOOST_TEST((asio::query(io_ex, asio::execution::outstanding_work)
      == asio::execution::outstanding_work.untracked));
  BOOST_TEST((asio::query(io_ex, asio::execution::relationship)
      == asio::query(io.get_executor(), asio::execution::relationship)));
}

BOOST_AUTO_TEST_CASE(require_and_prefer_keep_the_wrapper)
{
  asio::io_context io;
  const wheel_io ex(io.get_executor());

  auto never = asio::require(ex, asio::execution::blocking.never);
  using never_type = decltype(never);
  static_assert(asio_wheel::detail::is_wheel_executor<never_type>::value,
      "require returned the inner executor's result unwrapped");
  BOOST_TEST((asio::query(never, asio::execution::blocking)
      == asio::execution::blocking.never));
  BOOST_TEST((never.get_inner_executor()
      == asio::require(io.get_executor(), asio::execution::blocking.never)));
  // blocking.never holds: from inside run() the function is not run in place.
  bool ran_inside = false, returned = false;
  asio::post(io, [&] {
    never.execute([&] { ran_inside = !returned; });
    returned = true;
  });
  io.run();
  BOOST_TEST(!ran_inside, "require(blocking.never) ran the function in place");

  // prefer(outstanding_work.tracked): the wrapper around a tracked executor keeps run() busy.
  io.restart();
  auto tracked = asio::prefer(
      wheel_any(io.get_executor()), asio::execution::outstanding_work.tracked);
  static_assert(std::is_same_v<decltype(tracked), wheel_any>);
  auto work = std::make_unique<decltype(tracked)>(tracked);
  tracked = wheel_any();
  asio::post(io, [&] { work.reset(); });
  const std::size_t handlers = io.run_for(5s);
  BOOST_TEST(handlers == 1u);
  BOOST_TEST(io.stopped(), "run() did not return once the tracked work ended");

  // A property the inner executor ignores: prefer is the identity, still wrapped.
  auto same = asio::prefer(ex, asio::execution::relationship.continuation);
  static_assert(asio_wheel::detail::is_wheel_executor<decltype(same)>::value);
}

// (Every Asio the library supports has them, unless (BOOST_)ASIO_NO_TS_EXECUTORS is defined;
// the tests do not define it.)
BOOST_AUTO_TEST_CASE(networking_ts_members_where_the_inner_executor_has_them)
{
  asio::io_context io;
  const wheel_io ex(io.get_executor());
  BOOST_TEST(&ex.context() == &io);
  std::vector<int> ran;
  std::allocator<void> a;
  ex.post([&] { ran.push_back(1); }, a);
  ex.defer([&] { ran.push_back(2); }, a);
  ex.dispatch([&] { ran.push_back(3); }, a);  // outside run(): queued
  ex.on_work_started();  // keeps run() busy until on_work_finished
  asio::post(io, [&] {
    ran.push_back(4);
    asio::post(io, [&] { ex.on_work_finished(); });
  });
  io.run_for(5s);
  BOOST_TEST(io.stopped(), "run() did not return after on_work_finished");
  BOOST_TEST((ran == std::vector<int>{1, 2, 3, 4}));
}

BOOST_AUTO_TEST_CASE(socket_acceptor_and_strand_on_it_over_loopback)
{
  asio::io_context io;
  auto acceptor = loopback_acceptor(wheel_any(io));
  using socket_type = asio::basic_stream_socket<asio::ip::tcp, wheel_any>;
  // A socket made from a strand, as Beast's examples make their streams.
  socket_type client(asio::make_strand(io));
  socket_type server(io);
  const asio::strand<wheel_any> server_strand(wheel_any(io.get_executor()));
  bool accepted = false, connected = false, echoed = false;
  bool accept_in_strand = false;
  std::array<char, 5> in{};
  acceptor.async_accept(
      server, asio::bind_executor(server_strand, [&](error_code ec) {
        BOOST_TEST(!ec, ec.message());
        accepted = true;
        accept_in_strand = server_strand.running_in_this_thread();
        asio::async_write(server, asio::buffer("hello", 5),
            [](error_code e, std::size_t) { BOOST_TEST(!e, e.message()); });
      }));
  client.async_connect(acceptor.local_endpoint(), [&](error_code ec) {
    BOOST_TEST(!ec, ec.message());
    connected = true;
    asio::async_read(
        client, asio::buffer(in), [&](error_code e, std::size_t n) {
          BOOST_TEST(!e, e.message());
          echoed = n == 5;
        });
  });
  io.run_for(5s);
  BOOST_TEST(accepted);
  BOOST_TEST(accept_in_strand);
  BOOST_TEST(connected);
  BOOST_TEST(echoed);
  BOOST_TEST(std::string(in.data(), in.size()) == "hello");
  static_assert(std::is_same_v<socket_type::executor_type, wheel_any>);
}

BOOST_AUTO_TEST_CASE(inside_any_io_executor_it_runs_but_no_longer_routes)
{
  asio::io_context io;
  const asio::any_io_executor erased = wheel_any(io);
  BOOST_TEST((erased.target<wheel_any>() != nullptr));
  bool ran = false;
  asio::post(erased, [&] { ran = true; });
  // A timer of the type-erased executor is Asio's own: the wheel sees none of its waits.
  asio::steady_timer timer(erased, 1ms);
  bool expired = false;
  timer.async_wait([&](error_code ec) { expired = !ec; });
  io.run_for(5s);
  BOOST_TEST(ran);
  BOOST_TEST(expired);
  BOOST_TEST(!asio::has_service<
             asio_wheel::wheel_timer_service<std::chrono::steady_clock>>(io));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(routed_timer)

BOOST_AUTO_TEST_CASE(is_a_wheel_timer_never_early_at_most_a_tick_late)
{
  using timer_type = routed_manual_timer<wheel_any>;
  static_assert(std::is_base_of_v<asio_wheel::basic_wheel_timer<manual_clock,
                                      manual_wait_traits, wheel_any>,
      timer_type>);
  const auto t0 = align_clock_to(tick);
  asio::io_context io;
  auto& service = install_service(io, make_options(tick, 8));
  timer_type timer(io, t0 + ticks(2.5, tick));
  wait_record record;
  timer.async_wait(record_into(record));
  BOOST_TEST(service.stats().pending_waits == 1u);
  BOOST_TEST(service.stats().timers_in_wheel == 1u);
  manual_clock::advance(ticks(2.4, tick));
  settle(io);
  BOOST_TEST(record.calls == 0, "completed before its expiry");
  manual_clock::advance(
      ticks(1, tick));  // past the expiry, within the tick after it
  settle(io);
  BOOST_TEST(record.succeeded_once());
  BOOST_TEST(service.stats().waits_expired == 1u);

  // The additions of basic_wheel_timer are there: reschedule_after moves a pending wait.
  timer.expires_after(ticks(3.5, tick));
  wait_record moved;
  timer.async_wait(record_into(moved));
  BOOST_TEST(timer.reschedule_after(ticks(10.5, tick)) == 1u);
  advance_in_steps(io, ticks(5, tick), tick);
  BOOST_TEST(
      moved.calls == 0, "the rescheduled wait completed at its old expiry");
  advance_in_steps(io, ticks(7, tick), tick);
  BOOST_TEST(moved.succeeded_once());
  BOOST_TEST(service.stats().waits_expired == 2u);
}

BOOST_AUTO_TEST_CASE(rebind_executor_follows_the_executor_type)
{
  using timer_type = routed_manual_timer<wheel_any>;
  // To another wheel_executor: routed.
  static_assert(std::is_same_v<timer_type::rebind_executor<wheel_strand>::other,
      routed_manual_timer<wheel_strand>>);
  // To a plain executor: Asio's own timer, as the type follows the executor.
  using plain = timer_type::rebind_executor<asio::any_io_executor>::other;
  static_assert(std::is_same_v<plain,
      asio::basic_waitable_timer<manual_clock, manual_wait_traits>>);
#if defined(                                                                   \
    ASIO_WHEEL_TEST_HAS_TOKEN_ADAPTERS)  // deferred: Asio 1.19 and later
  // To an executor derived from a wheel_executor (what as_default_on makes): a wheel timer.
  using defaulted_type =
      decltype(token::deferred.as_default_on(std::declval<timer_type>()));
  static_assert(
      std::is_base_of_v<wheel_any, typename defaulted_type::executor_type>);
  static_assert(std::is_base_of_v<
      asio_wheel::basic_wheel_timer<manual_clock, manual_wait_traits,
          typename defaulted_type::executor_type>,
      defaulted_type>);

  align_clock_to(tick);
  asio::io_context io;
  auto& service = install_service(io, make_options(tick, 8));
  auto defaulted = token::deferred.as_default_on(timer_type(io));
  defaulted.expires_after(ticks(1.5, tick));
  wait_record record;
  defaulted.async_wait()(record_into(record));
  BOOST_TEST(service.stats().pending_waits == 1u,
      "as_default_on's timer is not in the wheel");
  advance_in_steps(io, ticks(3, tick), tick);
  BOOST_TEST(record.succeeded_once());
  BOOST_TEST(service.stats().waits_expired == 1u);
#endif
}

BOOST_AUTO_TEST_CASE(conversions_carry_waits_between_wheel_timers)
{
  const auto t0 = align_clock_to(tick);
  asio::io_context io;
  auto& service = install_service(io, make_options(tick, 8));
  using any_timer = routed_manual_timer<wheel_any>;
  using io_timer = routed_manual_timer<wheel_io>;
  using plain_wheel_timer =
      asio_wheel::basic_wheel_timer<manual_clock, manual_wait_traits>;

  // Routed on one executor type into routed on another (construction, assignment).
  io_timer source(io.get_executor(), t0 + ticks(2.5, tick));
  wait_record constructed_wait;
  source.async_wait(record_into(constructed_wait));
  any_timer constructed(std::move(source));
  io_timer assigned_source(io.get_executor(), t0 + ticks(3.5, tick));
  wait_record assigned_wait, own_wait;
  assigned_source.async_wait(record_into(assigned_wait));
  any_timer assigned(io, manual_clock::time_point::max());
  assigned.async_wait(record_into(own_wait));
  assigned = std::move(assigned_source);
  // Routed into a basic_wheel_timer of any_io_executor, and back.
  any_timer routed(io, t0 + ticks(4.5, tick));
  wait_record to_plain_wait;
  routed.async_wait(record_into(to_plain_wait));
  plain_wheel_timer plain(std::move(routed));
  plain_wheel_timer plain_source(io, t0 + ticks(5.5, tick));
  wait_record to_routed_wait;
  plain_source.async_wait(record_into(to_routed_wait));
  any_timer back(std::move(plain_source));

  BOOST_TEST(service.stats().pending_waits == 4u);
  settle(io);
  BOOST_TEST(own_wait.aborted_once(), "the target's own wait was not aborted");
  advance_in_steps(io, ticks(7, tick), tick);
  for (const wait_record* r :
      {&constructed_wait, &assigned_wait, &to_plain_wait, &to_routed_wait})
    BOOST_TEST(r->succeeded_once());
  BOOST_TEST((constructed_wait.completed_at >= t0 + ticks(2.5, tick)));
  BOOST_TEST((to_routed_wait.completed_at >= t0 + ticks(5.5, tick)));
  BOOST_TEST(service.stats().waits_expired == 4u);
}

// A routed timer's operation stores the io_context executor its wheel_executor wraps, as a
// wheel_timer's stores the one its any_io_executor holds: the same size, smaller than with a
// strand (which it must keep). Without the see-through the routed one would hold a
// wheel_executor<any_io_executor> (a polymorphic executor) instead.
BOOST_AUTO_TEST_CASE(wait_operation_stores_the_plain_io_context_executor)
{
  asio::io_context io;
  asio_wheel::wheel_timer plain(io, asio_wheel::wheel_timer::time_point::max());
  routed_manual_timer<wheel_any> routed_manual(io);
  using routed_steady = asio::basic_waitable_timer<std::chrono::steady_clock,
      asio::wait_traits<std::chrono::steady_clock>, wheel_any>;
  routed_steady routed(io, routed_steady::time_point::max());
  asio_wheel::wheel_timer on_strand(
      asio::make_strand(io), asio_wheel::wheel_timer::time_point::max());
  const std::size_t plain_size = wait_operation_size(plain);
  const std::size_t routed_size = wait_operation_size(routed);
  const std::size_t strand_size = wait_operation_size(on_strand);
  BOOST_TEST(routed_size == plain_size,
      "a routed timer's wait took " << routed_size << " bytes, a wheel_timer's "
                                    << plain_size);
  BOOST_TEST(strand_size > plain_size);
  routed_manual.expires_at(manual_clock::time_point::max());
  BOOST_TEST(wait_operation_size(routed_manual) == plain_size);
  io.run();
}

#if defined(                                                                   \
    ASIO_WHEEL_ASIO_HAS_CANCELLATION_SLOT)  // cancel_after: Asio 1.19 and later
BOOST_AUTO_TEST_CASE(cancel_after_on_a_routed_socket_stores_the_plain_executor)
{
  asio::io_context io;
  auto acceptor = loopback_acceptor(io.get_executor());
  asio::ip::tcp::socket plain(io);
  asio::basic_stream_socket<asio::ip::tcp, wheel_any> routed(io);
  plain.connect(acceptor.local_endpoint());
  asio::ip::tcp::socket plain_peer = acceptor.accept();
  routed.connect(acceptor.local_endpoint());
  asio::ip::tcp::socket routed_peer = acceptor.accept();
  std::array<char, 8> buf;
  allocation_log plain_log, routed_log;
  auto no_op = [](error_code, std::size_t) {};
  plain.async_read_some(asio::buffer(buf),
      asio_wheel::cancel_after(30s, log_allocations(plain_log, no_op)));
  routed.async_read_some(asio::buffer(buf),
      asio_wheel::cancel_after(30s, log_allocations(routed_log, no_op)));
  BOOST_REQUIRE(!plain_log.sizes.empty());
  BOOST_REQUIRE(!routed_log.sizes.empty());
  // The first block is the timed operation's state.
  BOOST_TEST(routed_log.sizes.front() == plain_log.sizes.front(),
      "cancel_after's state on a routed socket took "
          << routed_log.sizes.front() << " bytes, on a plain one "
          << plain_log.sizes.front());
  plain.close();
  routed.close();
  io.run_for(5s);
}

#endif  // ASIO_WHEEL_ASIO_HAS_CANCELLATION_SLOT

#if defined(ASIO_WHEEL_TEST_HAS_ASIO_CANCEL_AFTER)
// Asio's cancel_after with a timer argument waits on that timer: given a routed timer, the
// timeout is a wait in the wheel.
BOOST_AUTO_TEST_CASE(asio_cancel_after_given_a_routed_timer_waits_in_the_wheel)
{
  const auto t0 = align_clock_to(tick);
  asio::io_context io;
  auto& service = install_service(io, make_options(tick, 8));
  routed_manual_timer<wheel_any> timer(io);
  auto acceptor = loopback_acceptor(io.get_executor());
  asio::ip::tcp::socket socket(io);
  socket.connect(acceptor.local_endpoint());
  asio::ip::tcp::socket peer = acceptor.accept();
  std::array<char, 8> buf;
  bool done = false;
  error_code result;
  socket.async_read_some(asio::buffer(buf),
      asio::cancel_after(
          timer, ticks(2.5, tick), [&](error_code ec, std::size_t) {
            done = true;
            result = ec;
          }));
  BOOST_TEST(service.stats().pending_waits == 1u);
  advance_in_steps(io, ticks(2, tick), tick);
  BOOST_TEST(!done, "the read was cancelled before its timeout");
  advance_in_steps(io, ticks(2, tick), tick);
  BOOST_TEST(done);
  BOOST_TEST((result == asio::error::operation_aborted), result.message());
  BOOST_TEST((manual_clock::now() >= t0 + ticks(2.5, tick)));
  BOOST_TEST(service.stats().waits_expired == 1u);
}
#endif

BOOST_AUTO_TEST_SUITE_END()
