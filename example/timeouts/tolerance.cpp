//
// example/timeouts/tolerance.cpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The tolerance settings of doc/timeouts.md ("Tolerance"), compiled and run: the context's
// fraction of every wait, one timer's own, a timer kept precise in a tolerant context, one
// operation's (cancel_after on a loopback read) and a Beast stream's. doc/timeouts.md shows
// the region between the two "//! [tolerance]" lines; the test doc_snippets fails if the two
// differ. Boost.Asio flavour (Beast needs it).
//
// Usage: tolerance --check   (checks that each setting took effect; exit status 0 if so)
//

#include <asio_wheel.hpp>
#include <asio_wheel/beast/tcp_stream.hpp>
#include <boost/asio.hpp>

#include <chrono>
#include <cstring>
#include <iostream>

int main(int argc, char** argv)
{
  using namespace std::chrono_literals;
  using tcp = boost::asio::ip::tcp;
  if (argc != 2 || std::strcmp(argv[1], "--check") != 0)
  {
    std::cerr << "usage: tolerance --check\n";
    return 2;
  }
  boost::asio::io_context io(1);
  // A connected loopback socket for the read below, and what its handler sees.
  tcp::acceptor acceptor(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
  tcp::socket sock(io), peer(io);
  sock.connect(acceptor.local_endpoint());
  acceptor.accept(peer);
  char buf[64];
  boost::system::error_code read_result = boost::asio::error::would_block;
  const auto handler = [&](boost::system::error_code ec, std::size_t) {
    read_result = ec;
  };

  //! [tolerance]
  // Every wait of the context may be 1/64 of its length late: a 10 ms wait
  // stays precise (0.16 ms is less than a tick), a 30 s idle timeout may fire
  // up to 0.47 s late, a 5-minute one 4.7 s. Before the context's first timer.
  asio_wheel::wheel_options opts;
  opts.tolerance = 1.0 / 64;
  // Asio's make_service, for the service of wheel_timer and the stream.
  asio_wheel::make_wheel_service(io, opts);

  // One timer's own, replacing the context's.
  asio_wheel::wheel_timer idle(io);
  idle.tolerance(std::chrono::seconds(2));
  // Precise, whatever the context says.
  asio_wheel::wheel_timer rate_limiter(io);
  rate_limiter.tolerance(std::chrono::seconds(0));

  // One operation's.
  sock.async_read_some(boost::asio::buffer(buf),
      asio_wheel::cancel_after(std::chrono::minutes(5),
          asio_wheel::tolerance(std::chrono::seconds(4)), handler));

  // A Beast stream's timeouts.
  asio_wheel::beast::tcp_stream stream(io);
  stream.tolerance(std::chrono::seconds(1));
  //! [tolerance]

  // The read completes when the peer closes: its timeout is withdrawn, not fired.
  peer.close();
  io.run_for(5s);
  auto& service = boost::asio::use_service<
      asio_wheel::wheel_timer_service<std::chrono::steady_clock>>(io);
  int failures = 0;
  const auto check = [&](bool ok, const char* what) {
    if (!ok)
    {
      std::cerr << "tolerance: " << what << "\n";
      ++failures;
    }
  };
  check(service.options().tolerance == 1.0 / 64,
      "the context's tolerance is not 1/64");
  check(idle.tolerance() == 2s, "idle's own tolerance is not 2 s");
  check(rate_limiter.tolerance() == 0s, "rate_limiter is not precise");
  check(read_result == boost::asio::error::eof,
      "the read did not complete with eof when the peer closed");
  check(service.stats().timeouts_withdrawn == 1,
      "the read's timeout was not armed and withdrawn once");
  if (failures == 0)
    std::cout << "tolerance: every setting took effect\n";
  return failures == 0 ? 0 : 1;
}
