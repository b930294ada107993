// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// A timed read and write of the stream with each of their allocations failing in turn
// (test/allocation_faults.hpp), on every stream family.
#include "stream_suite.hpp"

#include "../../allocation_faults.hpp"

#include <array>

using namespace beast_suite;

namespace {

// A timed read (or write) whose n-th allocation fails, for each n the path makes (with the
// default allocator, the operations may reuse memory and make none): the std::bad_alloc
// reaches the caller and the handler never runs and is destroyed. asio_wheel's stream gives
// the strong guarantee: the handler is destroyed before the throw reaches the caller, nothing
// is left in the wheel, and the stream keeps working (a read then gets the bytes sent).
// Beast's own stream starts its timer's wait before the socket's operation: that wait keeps
// the handler until the expiry, and then closes the socket as a timeout would
// (doc/timeouts.md, "Allocation failure").
template <class F, bool Write, bool Plain>
void check_failing_path()
{
  std::size_t failures = 0;
  for (std::size_t n = 1; n <= allocation_faults::max_allocations; ++n)
  {
    BOOST_TEST_CONTEXT((Write ? "write" : "read")
        << (Plain ? ", plain allocator" : "") << ", allocation " << n
        << " fails")
    {
      net::io_context ioc;
      typename F::tcp_stream s(ioc);
      tcp::socket peer = connect_pair(ioc, s);
      std::array<char, 16> buf{};
      bool ran = false, destroyed = false;
      allocation_faults::witnessed_read_handler<error_code, Plain> handler(
          ran, destroyed);
      s.expires_after(200ms);
      const bool threw = allocation_faults::fails_at(n, [&] {
        if constexpr (Write)
          s.async_write_some(net::buffer(buf), std::move(handler));
        else
          s.async_read_some(net::buffer(buf), std::move(handler));
      });
      if (!threw)
      {
        BOOST_TEST_MESSAGE(failures << " allocations on this path");
        BOOST_TEST((failures > 0u || !Plain));
        s.cancel();
        run_for(ioc, 20ms);
        return;
      }
      ++failures;
      BOOST_TEST(!ran);
      if constexpr (F::is_wheel)
      {
        BOOST_TEST(destroyed, "the handler of the failed operation was kept");
        BOOST_TEST(wheel_stats_of(ioc).pending_waits == 0u);
      }
      // Past the expiry: what the failed operation left has run out.
      run_for(ioc, 300ms);
      BOOST_TEST(!ran, "the handler of the failed operation ran");
      BOOST_TEST(destroyed, "the handler of the failed operation was kept");
      if constexpr (F::is_wheel)
      {
        BOOST_TEST(
            s.socket().is_open(), "the failed operation closed the stream");
        net::write(peer, net::buffer("hello", 5));
        result r;
        s.expires_after(5s);
        s.async_read_some(net::buffer(buf), r.handler());
        run_until(ioc, r.done);
        BOOST_TEST(!r.ec, r.ec.message());
        BOOST_TEST(r.n == 5u);
      }
    }
  }
  BOOST_ERROR("every allocation up to max_allocations failed");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(allocation_failure)

BOOST_AUTO_TEST_CASE_TEMPLATE(
    timed_operations_under_allocation_failure, F, families)
{
  check_failing_path<F, false, false>();
  check_failing_path<F, false, true>();
  check_failing_path<F, true, false>();
  check_failing_path<F, true, true>();
}

BOOST_AUTO_TEST_SUITE_END()
