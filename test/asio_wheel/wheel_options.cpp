// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// wheel_options.cpp: tests of asio_wheel::wheel_options (include/asio_wheel/wheel_options.hpp)
// as the service takes them: invalid values throw std::invalid_argument naming the field and
// leave the context usable, options() returns what make_service was given, and use_service
// creates the service with the documented defaults.
#include "wheel_test_support.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

using namespace asio_wheel_test;

namespace {

// make_service with options must throw std::invalid_argument whose what() names field; the
// failed construction must not leave a half-made service behind.
void check_rejected(
    const asio_wheel::wheel_options& options, const std::string& field)
{
  asio::io_context io;
  bool threw = false;
  try
  {
    install_service(io, options);
  }
  catch (const std::invalid_argument& e)
  {
    threw = true;
    BOOST_TEST(std::string(e.what()).find(field) != std::string::npos,
        "message \"" << e.what() << "\" does not name the field " << field);
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
