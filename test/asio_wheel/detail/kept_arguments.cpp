//
// test/asio_wheel/detail/kept_arguments.cpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// Unit tests of the room a timed operation keeps an early completion's
// arguments in: the signature chosen for a set of arguments is the first
// that can take them, the arguments come back as they went in (move-only
// ones too), destroy() destroys the kept alternative and no other, and the
// room is as large and as aligned as the largest alternative.
//

#define BOOST_TEST_MODULE kept_arguments
#include <boost/test/unit_test.hpp>

#include <asio_wheel/detail/kept_arguments.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <system_error>
#include <tuple>
#include <type_traits>

using asio_wheel::detail::kept_arguments;

namespace {

// Counts its destructions (moved-from objects included), so a test can
// tell which alternative destroy() reached.
struct counted
{
  static int destroyed;
  int value = 0;
  explicit counted(int v) : value(v) {}
  counted(const counted&) = default;
  ~counted() { ++destroyed; }
};
int counted::destroyed = 0;

struct alignas(64) overaligned
{
  char c = 0;
};

using read_signatures = kept_arguments<void(std::error_code, std::size_t),
    void(std::exception_ptr)>;

}  // namespace

BOOST_AUTO_TEST_CASE(the_first_signature_that_takes_the_arguments_is_chosen)
{
  static_assert(
      read_signatures::index_for<std::error_code, std::size_t>() == 1);
  static_assert(read_signatures::index_for<std::exception_ptr>() == 2);
  // Conversions count: an int makes a std::size_t.
  static_assert(read_signatures::index_for<std::error_code, int>() == 1);
  // None takes a lone std::string.
  static_assert(read_signatures::index_for<std::string>() == 0);
  // Both take an int; the first wins.
  static_assert(kept_arguments<void(long), void(int)>::index_for<int>() == 1);
  // Arguments are kept decayed: a const reference signature keeps a copy.
  static_assert(
      kept_arguments<void(const std::string&)>::index_for<const char*>() == 1);
}

BOOST_AUTO_TEST_CASE(kept_arguments_come_back_as_they_went_in)
{
  read_signatures kept;
  const std::error_code ec = std::make_error_code(std::errc::timed_out);
  const unsigned char index = kept.emplace(ec, std::size_t(42));
  BOOST_TEST(index == 1);
  bool visited = false;
  kept.visit(index, [&](auto& args) {
    if constexpr (std::tuple_size<std::decay_t<decltype(args)>>::value == 2)
    {
      visited = true;
      BOOST_TEST((std::get<0>(args) == ec));
      BOOST_TEST(std::get<1>(args) == 42u);
    }
    else
      BOOST_FAIL("visited the other signature's arguments");
  });
  BOOST_TEST(visited);
  kept.destroy(index);
}

BOOST_AUTO_TEST_CASE(move_only_arguments_are_moved_in_and_out)
{
  kept_arguments<void(std::unique_ptr<int>)> kept;
  auto p = std::make_unique<int>(7);
  int* const raw = p.get();
  const unsigned char index = kept.emplace(std::move(p));
  BOOST_TEST(!p);
  std::unique_ptr<int> out;
  kept.visit(index, [&](auto& args) { out = std::move(std::get<0>(args)); });
  BOOST_TEST(out.get() == raw);
  BOOST_TEST(*out == 7);
  kept.destroy(index);  // a moved-from unique_ptr: nothing left to free
}

BOOST_AUTO_TEST_CASE(destroy_destroys_the_kept_alternative_only)
{
  kept_arguments<void(counted), void(counted, counted)> kept;
  {
    const counted one(1);
    counted::destroyed = 0;
    const unsigned char index = kept.emplace(one);
    BOOST_TEST(index == 1);
    BOOST_TEST(counted::destroyed == 0);
    kept.destroy(index);
    BOOST_TEST(counted::destroyed == 1);  // one object, not two
  }
  {
    const counted a(1), b(2);
    counted::destroyed = 0;
    const unsigned char index = kept.emplace(a, b);
    BOOST_TEST(index == 2);
    int sum = 0;
    kept.visit(index, [&](auto& args) {
      if constexpr (std::tuple_size<std::decay_t<decltype(args)>>::value == 2)
        sum = std::get<0>(args).value + std::get<1>(args).value;
    });
    BOOST_TEST(sum == 3);
    kept.destroy(index);
    BOOST_TEST(counted::destroyed == 2);
  }
}

BOOST_AUTO_TEST_CASE(the_room_fits_the_largest_and_most_aligned_alternative)
{
  using big = std::array<char, 100>;
  using room = kept_arguments<void(char), void(big), void(overaligned)>;
  static_assert(sizeof(room) >= sizeof(std::tuple<big>));
  static_assert(alignof(room) >= alignof(overaligned));

  room kept;
  big b{};
  b[99] = 'x';
  const unsigned char index = kept.emplace(b);
  BOOST_TEST(index == 2);
  kept.visit(index, [&](auto& args) {
    if constexpr (std::is_same<std::decay_t<decltype(args)>,
                      std::tuple<big>>::value)
      BOOST_TEST(std::get<0>(args)[99] == 'x');
  });
  kept.destroy(index);

  const unsigned char aligned = kept.emplace(overaligned{});
  BOOST_TEST(aligned == 3);
  kept.visit(aligned, [&](auto& args) {
    BOOST_TEST(reinterpret_cast<std::uintptr_t>(&args) % 64 == 0u);
  });
  kept.destroy(aligned);
}
