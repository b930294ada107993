// Waits on a wheel_timer of the standalone flavour and exits 0 when it completed with
// success. Standalone Asio only: compiling fails if a Boost.Asio or Boost.System header
// came in through asio-wheel or Asio.
#include <asio_wheel.hpp>
#include <asio/io_context.hpp>
#include <asio/version.hpp>
#include <iostream>
#include <system_error>

#if !defined(ASIO_STANDALONE) || !defined(ASIO_WHEEL_STANDALONE)
# error "asio_wheel::asio_wheel_standalone must define ASIO_STANDALONE and ASIO_WHEEL_STANDALONE"
#endif
#if defined(BOOST_ASIO_DETAIL_CONFIG_HPP) || defined(BOOST_ASIO_VERSION) \
    || defined(BOOST_SYSTEM_DETAIL_CONFIG_HPP_INCLUDED)
# error "a Boost.Asio or Boost.System header was included"
#endif

int main()
{
  asio::io_context io;
  asio_wheel::wheel_timer timer(io, std::chrono::milliseconds(5));
  bool fired = false;
  timer.async_wait([&](std::error_code ec) { fired = !ec; });
  io.run();
  std::cout << "consumer (standalone Asio " << ASIO_VERSION << "): "
            << (fired ? "wheel_timer fired\n" : "FAILED\n");
  return fired ? 0 : 1;
}
