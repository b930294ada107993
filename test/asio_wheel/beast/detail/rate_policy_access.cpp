// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// How asio_wheel::beast::basic_stream reaches a rate policy, checked against the Beast it is
// compiled with.
//
// A rate policy's members are private; Beast's stream reaches them through
// boost::beast::rate_policy_access, whose members are private too and whose one friend is
// `template <class, class, class> friend class basic_stream;` (boost/beast/core/rate_policy.hpp,
// the same in Beast 1.81, 1.87 and 1.90). Ours has no such friendship: it goes through an
// explicit specialization of boost::beast::basic_stream, basic_stream<rate_policy_key, void,
// void> (asio_wheel::beast::detail::rate_access in include/asio_wheel/beast/detail/rate_policy_access.hpp),
// which is a friend only because that declaration befriends every specialization of the
// template. Should a Beast change the declaration (befriend only its own specializations,
// drop or rename a member), this file stops compiling with a message that says so, instead of
// the error surfacing deep inside the stream's operations where a user instantiates them.
//
// At run time: a policy written as Beast documents it (private members, befriending only
// rate_policy_access) sees, on both streams, the same calls in the same order.
#include "../stream_suite.hpp"

#include <boost/beast/core/rate_policy.hpp>

#include <array>
#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace rate_policy_test {

// A policy with every member rate_policy_access calls, private, as Beast documents.
struct private_policy
{
private:
  friend class boost::beast::rate_policy_access;
  std::size_t available_read_bytes() { return 1; }
  std::size_t available_write_bytes() { return 1; }
  void transfer_read_bytes(std::size_t) {}
  void transfer_write_bytes(std::size_t) {}
  void on_timer() {}
};

// Whether the context of Probe may call each rate_policy_access member the stream calls on
// Policy, with the result type the stream relies on: the detection runs in Probe's own
// context (its member templates), where access is checked as part of substitution.
#define ASIO_WHEEL_RATE_POLICY_PROBES                                          \
 template <class P,                                                            \
     class R =                                                                 \
         decltype(::boost::beast::rate_policy_access::available_read_bytes(    \
             std::declval<P&>()))>                                             \
 static R read_avail(int);                                                     \
 template <class>                                                              \
 static void read_avail(...);                                                  \
 template <class P,                                                            \
     class R =                                                                 \
         decltype(::boost::beast::rate_policy_access::available_write_bytes(   \
             std::declval<P&>()))>                                             \
 static R write_avail(int);                                                    \
 template <class>                                                              \
 static void write_avail(...);                                                 \
 template <class P,                                                            \
     class = decltype(::boost::beast::rate_policy_access::transfer_read_bytes( \
         std::declval<P&>(), std::size_t{}))>                                  \
 static std::true_type read_transfer(int);                                     \
 template <class>                                                              \
 static std::false_type read_transfer(...);                                    \
 template <class P,                                                            \
     class =                                                                   \
         decltype(::boost::beast::rate_policy_access::transfer_write_bytes(    \
             std::declval<P&>(), std::size_t{}))>                              \
 static std::true_type write_transfer(int);                                    \
 template <class>                                                              \
 static std::false_type write_transfer(...);                                   \
 template <class P,                                                            \
     class = decltype(::boost::beast::rate_policy_access::on_timer(            \
         std::declval<P&>()))>                                                 \
 static std::true_type timer(int);                                             \
 template <class>                                                              \
 static std::false_type timer(...);                                            \
                                                                               \
 public:                                                                       \
 template <class P>                                                            \
 static constexpr bool reaches =                                               \
     std::is_same<decltype(read_avail<P>(0)), std::size_t>::value&&            \
         std::is_same<decltype(write_avail<P>(0)),                             \
             std::size_t>::value&& decltype(read_transfer<P>(0))::             \
             value&& decltype(write_transfer<P>(                               \
                 0))::value&& decltype(timer<P>(0))::value;

// No friend of rate_policy_access: the probes must fail here, or they prove nothing.
class outsider
{
  ASIO_WHEEL_RATE_POLICY_PROBES
};

struct probe_key;

}  // namespace rate_policy_test

// A specialization of the shape of ours (asio_wheel::beast::detail::rate_access), with a key
// of its own.
namespace boost {
namespace beast {
template <>
class basic_stream<rate_policy_test::probe_key, void, void>
{
  ASIO_WHEEL_RATE_POLICY_PROBES
};
}  // namespace beast
}  // namespace boost

namespace rate_policy_test {

using probe = boost::beast::basic_stream<probe_key, void, void>;

static_assert(!outsider::reaches<private_policy>,
    "the probe reaches rate_policy_access's private members from a non-friend: "
    "it cannot "
    "tell whether the stream's specialization is a friend");
static_assert(probe::reaches<private_policy>,
    "this Beast's boost::beast::rate_policy_access no longer befriends every "
    "specialization "
    "of boost::beast::basic_stream (template <class, class, class> friend "
    "class basic_stream), "
    "or no longer has the members asio_wheel::beast::detail::rate_access "
    "calls: "
    "asio_wheel::beast::basic_stream cannot reach the rate policy that way; "
    "see "
    "boost/beast/core/rate_policy.hpp and "
    "include/asio_wheel/beast/detail/rate_policy_access.hpp");
// Ours is that specialization of that template.
static_assert(std::is_same<asio_wheel::beast::detail::rate_access,
    boost::beast::basic_stream<asio_wheel::beast::detail::rate_policy_key, void,
        void>>::value);

#undef ASIO_WHEEL_RATE_POLICY_PROBES

// Records the calls the stream makes, in order. Reading: nothing at first (the read waits for
// the next one-second slice, which starts at once: the slice timer's expiry is in the past),
// then `read_budget` bytes per slice. Writing: unlimited.
class recording_policy
{
public:
  std::vector<std::string>* log = nullptr;
  std::size_t read_budget = 0;

private:
  friend class boost::beast::rate_policy_access;

  std::size_t read_left = 0;

  std::size_t available_read_bytes()
  {
    log->push_back("available_read " + std::to_string(read_left));
    return read_left;
  }

  std::size_t available_write_bytes()
  {
    log->push_back("available_write");
    return 1000;
  }

  void transfer_read_bytes(std::size_t n)
  {
    log->push_back("transfer_read " + std::to_string(n));
    read_left -= n;
  }

  void transfer_write_bytes(std::size_t n)
  {
    log->push_back("transfer_write " + std::to_string(n));
  }

  // A new slice (the first at once, the next a second later: the test is over by then).
  void on_timer()
  {
    log->push_back("on_timer");
    read_left = read_budget;
  }
};

}  // namespace rate_policy_test

using namespace beast_suite;

BOOST_AUTO_TEST_SUITE(rate_policy)

BOOST_AUTO_TEST_CASE_TEMPLATE(private_policy_called_as_by_beast, F, families)
{
  using rate_policy_test::recording_policy;
  std::vector<std::string> log;
  net::io_context ioc;
  recording_policy policy;
  policy.log = &log;
  policy.read_budget = 5;
  typename F::template stream<net::any_io_executor, recording_policy> s(
      policy, ioc);
  tcp::socket peer = connect_pair(ioc, s);
  net::write(peer, net::buffer("abcdefgh", 8));
  std::array<char, 16> buf;
  result r;
  s.expires_after(5s);
  s.async_read_some(net::buffer(buf), r.handler());
  run_until(ioc, r.done);
  BOOST_TEST(!r.ec, r.ec.message());
  BOOST_TEST(r.n == 5u);
  result w;
  s.async_write_some(net::buffer("xyz", 3), w.handler());
  run_until(ioc, w.done);
  BOOST_TEST(!w.ec, w.ec.message());
  BOOST_TEST(w.n == 3u);
  s.close();  // stops the rate slices
  run_for(ioc, 20ms);
  const std::vector<std::string> expected{"available_read 0", "on_timer",
      "available_read 5", "transfer_read 5", "available_write",
      "transfer_write 3"};
  BOOST_TEST(log == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
