// Waits on a wheel_timer and exits 0 when it completed with success.
#include <asio_wheel.hpp>
#include <boost/asio/io_context.hpp>
#include <iostream>

int main()
{
  boost::asio::io_context io;
  asio_wheel::wheel_timer timer(io, std::chrono::milliseconds(5));
  bool fired = false;
  timer.async_wait([&](boost::system::error_code ec) { fired = !ec; });
  io.run();
  std::cout << (fired ? "consumer: wheel_timer fired\n" : "consumer: FAILED\n");
  return fired ? 0 : 1;
}
