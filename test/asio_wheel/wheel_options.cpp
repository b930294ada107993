// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// wheel_options.cpp: tests of asio_wheel::wheel_options (include/asio_wheel/wheel_options.hpp)
// as the service takes them: invalid values throw std::invalid_argument naming the field and
// leave the context usable, options() returns what make_service was given, and use_service
// creates the service with the documented defaults; and of make_wheel_service
// (include/asio_wheel/make_wheel_service.hpp), which gives a timer type's service its options
// and says what to do when the service exists already.
#include "wheel_test_support.hpp"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

using namespace asio_wheel_test;

namespace {

// make_service with options must throw std::invalid_argument whose what() names field; the
// failed construction must not leave a half-made service behind. Returns the message.
std::string check_rejected(
    const asio_wheel::wheel_options& options, const std::string& field)
{
  asio::io_context io;
  bool threw = false;
  std::string message;
  try
  {
    install_service(io, options);
  }
  catch (const std::invalid_argument& e)
  {
    threw = true;
    message = e.what();
    BOOST_TEST(message.find(field) != std::string::npos,
        "message \"" << message << "\" does not name the field " << field);
  }
  BOOST_TEST(threw,
      "options with a bad " << field << " (tick " << options.tick.count()
                            << " ns, slots " << options.slots
                            << ") were accepted");
  BOOST_TEST(!asio::has_service<manual_service>(io),
      "a rejected service was registered");

  // The context is still usable: a timer gets the default service and works.
  manual_timer timer(io, manual_clock::duration::zero());
  wait_record record;
  timer.async_wait(record_into(record));
  settle(io);
  BOOST_TEST(record.succeeded_once());
  return message;
}

bool contains(const std::string& text, const std::string& part)
{
  return text.find(part) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(options)

BOOST_AUTO_TEST_CASE(tick_of_zero_or_less_is_rejected_naming_tick)
{
  check_rejected(make_options(std::chrono::nanoseconds(0), 4096), "tick");
  check_rejected(make_options(std::chrono::nanoseconds(-1), 4096), "tick");
  check_rejected(make_options(-std::chrono::milliseconds(5), 64), "tick");
}

BOOST_AUTO_TEST_CASE(slots_zero_or_not_a_power_of_two_are_rejected_naming_slots)
{
  check_rejected(make_options(1ms, 0), "slots");
  check_rejected(make_options(1ms, 3), "slots");
  check_rejected(make_options(1ms, 6), "slots");
  check_rejected(make_options(1ms, 4097), "slots");
  check_rejected(make_options(1ms, 4095), "slots");
}

BOOST_AUTO_TEST_CASE(
    slots_above_the_maximum_are_rejected_naming_slots_and_the_maximum)
{
  // Before the check, 2^40 slots failed as the wheel's std::bad_alloc.
  constexpr std::size_t largest = asio_wheel::wheel_options::max_slots;
  static_assert(
      largest == std::size_t(1) << 20, "documented in wheel_options.hpp");
  static_assert((largest & (largest - 1)) == 0, "a power of two");
  {
    asio::io_context io;
    BOOST_CHECK_NO_THROW(install_service(io, make_options(1ms, largest)));
    BOOST_TEST(
        asio::use_service<manual_service>(io).options().slots == largest);
  }
  const auto rejected_with_the_maximum = [](std::size_t slots) {
    const std::string message =
        check_rejected(make_options(1ms, slots), "wheel_options::slots");
    BOOST_TEST(contains(message, "(got " + std::to_string(slots) + ")"),
        "message \"" << message << "\" does not give the value " << slots);
    BOOST_TEST(contains(message, "at most " + std::to_string(largest)),
        "message \"" << message
                     << "\" does not give the largest value accepted");
  };
  rejected_with_the_maximum(largest * 2);  // the next power of two
  if (std::numeric_limits<std::size_t>::digits > 40)
    rejected_with_the_maximum(static_cast<std::size_t>(std::uint64_t(1) << 40));
}

BOOST_AUTO_TEST_CASE(zero_completions_per_slice_is_rejected_naming_the_field)
{
  // wheel_options.hpp documents "Must be > 0": a budget of 0 would never complete anything.
  check_rejected(make_options(1ms, 64, 0), "max_completions_per_slice");
}

BOOST_AUTO_TEST_CASE(
    tolerance_outside_zero_to_one_or_not_a_number_is_rejected_naming_it)
{
  // A fraction of each wait's length: below 0 a wait would complete early, above 1 it would
  // wait more than twice its length, and NaN compares false with every bound.
  for (const double bad : {-0.001, -1.0, 1.0001, 64.0, std::nan(""),
           std::numeric_limits<double>::infinity()})
  {
    auto options = make_options(1ms, 64);
    options.tolerance = bad;
    check_rejected(options, "wheel_options::tolerance");
  }
}

BOOST_AUTO_TEST_CASE(valid_edge_values_are_accepted)
{
  for (const double fraction : {0.0, 1.0 / 64, 1.0})
  {
    auto options = make_options(1ms, 64);
    options.tolerance = fraction;
    asio::io_context io;
    BOOST_CHECK_NO_THROW(install_service(io, options));
  }
  const asio_wheel::wheel_options edges[] = {
      make_options(std::chrono::nanoseconds(1), 1, 1), make_options(1h, 2, 1),
      make_options(1ms, std::size_t(1) << 20, 100000)};
  for (const auto& options : edges)
  {
    asio::io_context io;
    BOOST_CHECK_NO_THROW(install_service(io, options));
  }
}

BOOST_AUTO_TEST_CASE(options_returns_what_make_service_was_given)
{
  asio::io_context io;
  const auto given = make_options(250us, 512, 17);
  auto& made = install_service(io, given);
  auto& used = asio::use_service<manual_service>(io);
  BOOST_TEST(
      &made == &used, "use_service must find the service make_service created");
  BOOST_TEST(used.options().tick.count() == given.tick.count());
  BOOST_TEST(used.options().slots == given.slots);
  BOOST_TEST(used.options().max_completions_per_slice
      == given.max_completions_per_slice);

  // A timer created afterwards uses that service, not a new default one.
  manual_timer timer(io, 1h);
  timer.async_wait([](const error_code&) {});
  BOOST_TEST(used.stats().pending_waits == 1u);
  timer.cancel();
  settle(io);
}

BOOST_AUTO_TEST_CASE(use_service_and_the_first_timer_give_the_defaults)
{
  {
    asio::io_context io;
    const auto& options = asio::use_service<manual_service>(io).options();
    BOOST_TEST(options.tick.count() == std::chrono::nanoseconds(1ms).count());
    BOOST_TEST(options.slots == 4096u);
    BOOST_TEST(options.max_completions_per_slice == 256u);
    BOOST_TEST(options.tolerance == 0.0, "the default must be precise");
  }
  {
    asio::io_context io;
    manual_timer first_timer(io);
    BOOST_TEST(asio::has_service<manual_service>(io),
        "the first timer must create the service");
    const auto& options = asio::use_service<manual_service>(io).options();
    BOOST_TEST(options.tick.count() == std::chrono::nanoseconds(1ms).count());
    BOOST_TEST(options.slots == 4096u);
    BOOST_TEST(options.max_completions_per_slice == 256u);
  }
}

BOOST_AUTO_TEST_CASE(make_service_after_the_first_timer_fails_as_in_asio)
{
  asio::io_context io;
  manual_timer first_timer(io);
  BOOST_CHECK_THROW(
      install_service(io, make_options(2ms, 64)), asio::service_already_exists);
  BOOST_TEST(asio::use_service<manual_service>(io).options().slots == 4096u);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(make_wheel_service)

// The service of asio_wheel::wheel_timer (steady_clock, Asio's wait traits).
using steady_service = asio_wheel::wheel_timer::service_type;
using system_service = asio_wheel::system_wheel_timer::service_type;

static_assert(std::is_same<decltype(asio_wheel::make_wheel_service(
                               std::declval<asio::io_context&>(),
                               asio_wheel::wheel_options())),
                  steady_service&>::value,
    "make_wheel_service makes wheel_timer's service by default");
static_assert(
    std::is_same<steady_service,
        asio_wheel::wheel_timer_service<std::chrono::steady_clock>>::value,
    "the service the documentation names (and the Beast stream's)");

BOOST_AUTO_TEST_CASE(before_any_timer_it_makes_the_service_wheel_timer_uses)
{
  asio::io_context io;
  const auto given = make_options(250us, 512, 17);
  auto& made = asio_wheel::make_wheel_service<>(io, given);
  BOOST_TEST(made.options().tick.count() == given.tick.count());
  BOOST_TEST(made.options().slots == given.slots);
  BOOST_TEST(made.options().max_completions_per_slice
      == given.max_completions_per_slice);
  BOOST_TEST(&asio::use_service<steady_service>(io) == &made,
      "use_service of wheel_timer's service type must find the service made");

  // A wheel_timer created afterwards keeps its waits there.
  asio_wheel::wheel_timer timer(io, 1h);
  timer.async_wait([](const error_code&) {});
  BOOST_TEST(made.stats().pending_waits == 1u);
  timer.cancel();
  settle(io);
  BOOST_TEST(made.stats().pending_waits == 0u);
}

BOOST_AUTO_TEST_CASE(after_the_first_timer_it_throws_saying_what_to_do)
{
  asio::io_context io;
  asio_wheel::wheel_timer first_timer(io);
  std::string message;
  try
  {
    asio_wheel::make_wheel_service(io, make_options(2ms, 64));
  }
  catch (const asio::service_already_exists&)
  {
    BOOST_ERROR(
        "Asio's bare service_already_exists escaped make_wheel_service");
  }
  catch (const std::logic_error& e)
  {
    message = e.what();
  }
  BOOST_TEST_MESSAGE("make_wheel_service after the first timer: " << message);
  BOOST_TEST(contains(message, "wheel_timer_service already exists"), message);
  BOOST_TEST(contains(message, "default options"), message);
  BOOST_TEST(
      contains(message, "call make_wheel_service before the first of them"),
      message);
  BOOST_TEST(!contains(message, "\n"), "one line: " << message);
  // The service the timer made is untouched.
  BOOST_TEST(asio::use_service<steady_service>(io).options().slots == 4096u);
}

BOOST_AUTO_TEST_CASE(a_second_call_throws_the_same_and_keeps_the_first_options)
{
  asio::io_context io;
  auto& made = asio_wheel::make_wheel_service(io, make_options(2ms, 64));
  BOOST_CHECK_EXCEPTION(
      asio_wheel::make_wheel_service(io, make_options(1ms, 128)),
      std::logic_error, [](const std::logic_error& e) {
        return contains(e.what(), "already exists")
            && contains(e.what(), "make_wheel_service before");
      });
  BOOST_TEST(&asio::use_service<steady_service>(io) == &made);
  BOOST_TEST(made.options().slots == 64u);
}

BOOST_AUTO_TEST_CASE(invalid_options_throw_invalid_argument_naming_the_field)
{
  asio::io_context io;
  BOOST_CHECK_EXCEPTION(
      asio_wheel::make_wheel_service(io, make_options(1ms, 3)),
      std::invalid_argument, [](const std::invalid_argument& e) {
        return contains(e.what(), "slots");
      });
  BOOST_TEST(!asio::has_service<steady_service>(io));
}

BOOST_AUTO_TEST_CASE(another_timer_type_configures_its_own_service_only)
{
  asio::io_context io;
  const auto given = make_options(5ms, 256);
  auto& made =
      asio_wheel::make_wheel_service<asio_wheel::system_wheel_timer>(io, given);
  BOOST_TEST(&asio::use_service<system_service>(io) == &made);
  BOOST_TEST(made.options().slots == 256u);
  BOOST_TEST(!asio::has_service<steady_service>(io),
      "options for system_wheel_timer must not make wheel_timer's service");

  // wheel_timer's service is still free to configure, and a wheel_timer gets its own.
  auto& steady = asio_wheel::make_wheel_service(io, make_options(1ms, 1024));
  asio_wheel::wheel_timer timer(io);
  BOOST_TEST(&asio::use_service<steady_service>(io) == &steady);
  BOOST_TEST(steady.options().slots == 1024u);
  BOOST_TEST(made.options().slots == 256u);

  // And on the manual clock of these tests: manual_timer's service.
  asio::io_context manual_io;
  auto& manual = asio_wheel::make_wheel_service<manual_timer>(manual_io, given);
  BOOST_TEST(&asio::use_service<manual_service>(manual_io) == &manual);
  BOOST_TEST(!asio::has_service<steady_service>(manual_io));
}

BOOST_AUTO_TEST_SUITE_END()
