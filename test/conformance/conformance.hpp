// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// Shared scaffolding of the conformance suite: the list of timer types every
// test is instantiated for, and small helpers (bounded runs, completion
// recorders, a counting allocator, the member-presence checks of the deprecated
// members) used by members.cpp, tokens.cpp, semantics.cpp and no_deprecated.cpp.
//
// The suite pins down what the steady_timer of the Asio being compiled against
// does (its members, its semantics, the completion tokens; asio::steady_timer,
// or asio::steady_timer with ASIO_WHEEL_STANDALONE, see ../test_asio.hpp) and
// runs the same test bodies against asio_wheel::wheel_timer (default options,
// and once more with options that stress the wheel's edge cases) and against
// Asio's own basic_waitable_timer on an asio_wheel::wheel_executor (a routed
// timer: a wheel timer by the specialization of wheel_executor.hpp): a test that
// passes on steady_timer is right for that Asio, and passing it on wheel_timer
// proves the drop-in claim.
#ifndef ASIO_WHEEL_TEST_CONFORMANCE_HPP
#define ASIO_WHEEL_TEST_CONFORMANCE_HPP

#include "../test_asio.hpp"

#include <boost/test/unit_test.hpp>

// The one-line switch: 1 runs every test on asio_wheel::wheel_timer too, 0
// runs only the steady_timer reference (used while the library did not exist).
#if !defined(CONFORMANCE_WITH_WHEEL_TIMER)
# define CONFORMANCE_WITH_WHEEL_TIMER 1
#endif

#include <atomic>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <tuple>
#include <vector>

namespace conformance {

using namespace std::chrono_literals;
using namespace asio_wheel_test;  // asio::, error_code, system_error, token::

// How a timer type's execution context (an io_context, or a thread_pool) is set
// up, and the wait traits it must report. The default: nothing to configure,
// Asio's steady_clock traits.
template <class Timer>
struct timer_profile
{
  using expected_traits = asio::wait_traits<std::chrono::steady_clock>;
  // Where Timer is a wheel timer, its service with wheel_options::tick = tick
  // (the default service otherwise); nothing for Asio's own timers.
  static void configure(asio::execution_context&,
      std::chrono::nanoseconds tick = std::chrono::milliseconds(1))
  {
    (void)tick;
  }
};

// The executor type a timer of Timer's kind has on an executor of type E: E
// itself, but for a routed timer (below).
template <class Timer>
struct timer_executor_profile
{
  template <class E>
  using executor = E;
};

template <class Timer, class E>
using profile_executor_t =
    typename timer_executor_profile<Timer>::template executor<E>;

#if CONFORMANCE_WITH_WHEEL_TIMER
// A second wheel configuration that drives the edge cases of the wheel
// through the same behaviour tests: a 2 ms tick (expiries fall between tick
// boundaries), 8 slots (one revolution is 16 ms, so any longer wait goes round
// several times) and one completion per slice (every batch of expiries is split
// across slices). Distinct wait traits give it a service of its own.
struct stressed_wheel_traits : asio::wait_traits<std::chrono::steady_clock>
{};
using stressed_wheel_timer =
    asio_wheel::basic_wheel_timer<std::chrono::steady_clock,
        stressed_wheel_traits>;

template <>
struct timer_profile<stressed_wheel_timer>
{
  using expected_traits = stressed_wheel_traits;
  static void configure(asio::execution_context& context,
      std::chrono::nanoseconds tick = std::chrono::milliseconds(2))
  {
    asio_wheel::wheel_options options;
    options.tick = tick;
    options.slots = 8;
    options.max_completions_per_slice = 1;
    asio::make_service<asio_wheel::wheel_timer_service<
        std::chrono::steady_clock, stressed_wheel_traits>>(context, options);
  }
};

// Asio's own timer type on a wheel_executor, which is a wheel timer by the
// specialization of wheel_executor.hpp: what Beast's streams and any code
// that writes steady_timer::rebind_executor<E>::other get on one. Its
// executor is wheel_executor<any_io_executor>, and a timer of its kind on an
// executor E is one on wheel_executor<E> (rebound to E itself it is Asio's
// own timer again).
using routed_timer = asio::basic_waitable_timer<std::chrono::steady_clock,
    asio::wait_traits<std::chrono::steady_clock>, asio_wheel::wheel_executor<>>;

// The default wheel_timer and the routed timer share the service of
// steady_clock.
struct default_wheel_profile
{
  using expected_traits = asio::wait_traits<std::chrono::steady_clock>;
  static void configure(asio::execution_context& context,
      std::chrono::nanoseconds tick = std::chrono::milliseconds(1))
  {
    if (tick == std::chrono::milliseconds(1))
      return;  // the default service, made by the first timer
    asio_wheel::wheel_options options;
    options.tick = tick;
    asio::make_service<
        asio_wheel::wheel_timer_service<std::chrono::steady_clock>>(
        context, options);
  }
};

template <>
struct timer_profile<asio_wheel::wheel_timer> : default_wheel_profile
{};

template <>
struct timer_profile<routed_timer> : default_wheel_profile
{};

template <>
struct timer_executor_profile<routed_timer>
{
  template <class E>
  using executor = asio_wheel::wheel_executor<E>;
};

using timer_types = std::tuple<asio::steady_timer, asio_wheel::wheel_timer,
    stressed_wheel_timer, routed_timer>;
#else
using timer_types = std::tuple<asio::steady_timer>;
#endif

// The io_context every test uses: configured for Timer before any timer exists.
template <class Timer>
class test_context : public asio::io_context
{
public:
  test_context() { timer_profile<Timer>::configure(*this); }
  explicit test_context(int concurrency_hint)
    : asio::io_context(concurrency_hint)
  {
    timer_profile<Timer>::configure(*this);
  }
  // Wheel timers with wheel_options::tick = tick.
  explicit test_context(std::chrono::nanoseconds tick)
  {
    timer_profile<Timer>::configure(*this, tick);
  }
};

// Upper bound for any single io_context run in this suite. Nothing here
// should take more than a few hundred milliseconds; the bound only exists so
// that a lost completion fails the test instead of hanging it.
inline constexpr std::chrono::seconds run_limit{5};

// Runs io until it runs out of work (at most run_limit) and reports whether
// it did. A false result means some operation never completed.
inline bool run_until_out_of_work(asio::io_context& io)
{
  io.restart();
  io.run_for(run_limit);
  // run_for() stops the io_context only when no work is left; a timeout
  // returns with the context still running.
  return io.stopped();
}

#define CONFORMANCE_RUN_TO_COMPLETION(io)                                      \
 BOOST_REQUIRE_MESSAGE(::conformance::run_until_out_of_work(io),               \
     "io_context still had outstanding work after "                            \
     "run_for(5s): a wait never completed")

// What one wait handler saw: how often it ran, the last error, and whether
// Clock::now() had reached the timer's expiry at that moment.
struct completion_record
{
  int invocations = 0;
  error_code ec;
  bool ran_at_or_after_expiry = false;
};

// A handler that records into a completion_record. It checks "never early"
// against the expiry the timer had when the wait was started.
template <class Timer>
auto recorder(completion_record& record, typename Timer::time_point expiry)
{
  return [&record, expiry](error_code ec) {
    ++record.invocations;
    record.ec = ec;
    record.ran_at_or_after_expiry = Timer::clock_type::now() >= expiry;
  };
}

template <class Timer>
auto recorder(completion_record& record, const Timer& timer)
{
  return recorder<Timer>(record, timer.expiry());
}

inline std::string describe(const error_code& ec)
{
  return ec ? ec.message() + " (" + std::to_string(ec.value()) + ")"
            : "success";
}

// What an exception a coroutine or a future threw says.
inline std::string describe(const std::exception_ptr& error)
{
  if (!error)
    return "no exception";
  try
  {
    std::rethrow_exception(error);
  }
  catch (const std::exception& e)
  {
    return e.what();
  }
  catch (...)
  {
    return "non-standard exception";
  }
}

inline bool is_aborted(const error_code& ec)
{
  return ec == asio::error::operation_aborted;
}

template <class TimePoint>
long long ns_since_epoch(TimePoint tp)
{
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
      tp.time_since_epoch())
      .count();
}

// Sets a flag when the last copy of it is destroyed; handlers carry one to
// report that they were destroyed (for example at shutdown).
inline std::shared_ptr<int> destruction_witness(bool& destroyed)
{
  return std::shared_ptr<int>(new int(0), [&destroyed](int* p) {
    delete p;
    destroyed = true;
  });
}

// Allocation counts shared by all rebound copies of a counting_allocator.
struct allocation_counts
{
  std::atomic<std::size_t> allocations{0};
  std::atomic<std::size_t> deallocations{0};
};

// Minimal allocator that forwards to operator new and counts; used with
// bind_allocator to prove the handler's associated allocator is used.
template <class T>
struct counting_allocator
{
  using value_type = T;
  allocation_counts* counts;

  explicit counting_allocator(allocation_counts& c) noexcept : counts(&c) {}
  template <class U>
  counting_allocator(const counting_allocator<U>& other) noexcept
    : counts(other.counts)
  {}

  T* allocate(std::size_t n)
  {
    ++counts->allocations;
    return static_cast<T*>(::operator new(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t) noexcept
  {
    ++counts->deallocations;
    ::operator delete(p);
  }
  template <class U>
  bool operator==(const counting_allocator<U>& other) const noexcept
  {
    return counts == other.counts;
  }
  template <class U>
  bool operator!=(const counting_allocator<U>& other) const noexcept
  {
    return counts != other.counts;
  }
};

// ---------------------------------------------------------------- deprecated members

// Which of basic_waitable_timer's deprecated members Timer has (they exist on
// wheel_timer exactly where the steady_timer of the Asio being compiled has
// them: before Asio 1.34 / Boost 1.87, and unless (BOOST_)ASIO_NO_DEPRECATED).
template <class Timer>
struct deprecated_members
{
  using duration = typename Timer::duration;
  using time_point = typename Timer::time_point;

  static constexpr bool expires_from_now_getter = requires(const Timer& t)
  {
    t.expires_from_now();
  };
  static constexpr bool expires_from_now_setter =
      requires(Timer & t, const duration& d)
  {
    t.expires_from_now(d);
  };
  static constexpr bool expires_from_now_setter_ec =
      requires(Timer & t, const duration& d, error_code& ec)
  {
    t.expires_from_now(d, ec);
  };
  static constexpr bool expires_at_getter = requires(const Timer& t)
  {
    t.expires_at();
  };
  static constexpr bool expires_at_setter_ec =
      requires(Timer & t, const time_point& tp, error_code& ec)
  {
    t.expires_at(tp, ec);
  };
  static constexpr bool cancel_ec = requires(Timer & t, error_code& ec)
  {
    t.cancel(ec);
  };
  static constexpr bool cancel_one_ec = requires(Timer & t, error_code& ec)
  {
    t.cancel_one(ec);
  };

  static constexpr bool any = expires_from_now_getter || expires_from_now_setter
      || expires_from_now_setter_ec || expires_at_getter || expires_at_setter_ec
      || cancel_ec || cancel_one_ec;

  // Where a member exists, it returns what basic_waitable_timer's returns.
  static constexpr bool return_types_as_in_asio = (!expires_from_now_getter || requires(const Timer& t) {
    {
      t.expires_from_now()
      } -> std::same_as<duration>;
  }) && (!expires_from_now_setter || requires(Timer & t, const duration& d) {
    {
      t.expires_from_now(d)
      } -> std::same_as<std::size_t>;
  }) && (!expires_from_now_setter_ec || requires(Timer & t, const duration& d, error_code& ec) {
    {
      t.expires_from_now(d, ec)
      } -> std::same_as<std::size_t>;
  }) && (!expires_at_getter || requires(const Timer& t) {
    {
      t.expires_at()
      } -> std::same_as<time_point>;
  }) && (!expires_at_setter_ec || requires(Timer & t, const time_point& tp, error_code& ec) {
    {
      t.expires_at(tp, ec)
      } -> std::same_as<std::size_t>;
  }) && (!cancel_ec || requires(Timer & t, error_code& ec) {
    {
      t.cancel(ec)
      } -> std::same_as<std::size_t>;
  }) && (!cancel_one_ec || requires(Timer & t, error_code& ec) {
    {
      t.cancel_one(ec)
      } -> std::same_as<std::size_t>;
  });
};

#if defined(ASIO_WHEEL_HAS_DEPRECATED_TIMER_MEMBERS)
inline constexpr bool asio_has_deprecated_timer_members = true;
#else
inline constexpr bool asio_has_deprecated_timer_members = false;
#endif

// Compile-time: Timer has each deprecated member exactly where this Asio's
// steady_timer has it, and the library's ASIO_WHEEL_HAS_DEPRECATED_TIMER_MEMBERS
// says the same as this Asio's steady_timer.
template <class Timer>
constexpr void check_deprecated_members_match_steady_timer()
{
  using timer = deprecated_members<Timer>;
  using reference = deprecated_members<asio::steady_timer>;
  static_assert(
      timer::expires_from_now_getter == reference::expires_from_now_getter,
      "expires_from_now(): present on only one of Timer and this Asio's "
      "steady_timer");
  static_assert(
      timer::expires_from_now_setter == reference::expires_from_now_setter,
      "expires_from_now(d): present on only one of Timer and this Asio's "
      "steady_timer");
  static_assert(timer::expires_from_now_setter_ec
          == reference::expires_from_now_setter_ec,
      "expires_from_now(d, ec): present on only one of Timer and this Asio's "
      "steady_timer");
  static_assert(timer::expires_at_getter == reference::expires_at_getter,
      "expires_at() getter: present on only one of Timer and this Asio's "
      "steady_timer");
  static_assert(timer::expires_at_setter_ec == reference::expires_at_setter_ec,
      "expires_at(tp, ec): present on only one of Timer and this Asio's "
      "steady_timer");
  static_assert(timer::cancel_ec == reference::cancel_ec,
      "cancel(ec): present on only one of Timer and this Asio's steady_timer");
  static_assert(timer::cancel_one_ec == reference::cancel_one_ec,
      "cancel_one(ec): present on only one of Timer and this Asio's "
      "steady_timer");
  static_assert(timer::return_types_as_in_asio,
      "a deprecated member returns another type than in Asio");

  // The reference has all seven or none, as the library's gate says.
  static_assert(
      reference::expires_from_now_getter == asio_has_deprecated_timer_members
          && reference::expires_from_now_setter
              == asio_has_deprecated_timer_members
          && reference::expires_from_now_setter_ec
              == asio_has_deprecated_timer_members
          && reference::expires_at_getter == asio_has_deprecated_timer_members
          && reference::expires_at_setter_ec
              == asio_has_deprecated_timer_members
          && reference::cancel_ec == asio_has_deprecated_timer_members
          && reference::cancel_one_ec == asio_has_deprecated_timer_members,
      "ASIO_WHEEL_HAS_DEPRECATED_TIMER_MEMBERS (detail/config.hpp) disagrees "
      "with this Asio's "
      "steady_timer");
}

}  // namespace conformance

#endif  // ASIO_WHEEL_TEST_CONFORMANCE_HPP
