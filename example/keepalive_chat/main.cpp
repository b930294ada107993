// keepalive_chat_server: parses the flags, configures the timing wheel with
// --tick and --idle-tolerance, prints "listening on ADDRESS:PORT" as its first
// line (scripts and tests read the port from it), and runs the io_context on
// --threads threads until SIGINT/SIGTERM has said goodbye to every client.
#include "chat_server.hpp"

#include <boost/asio/io_context.hpp>

#include <iostream>
#include <thread>
#include <vector>

int main(int argc, char** argv) {
  using namespace keepalive_chat;
  const std::string program = "keepalive_chat_server";
  server_options options;
  try {
    options = parse_server_options(argc, argv);
  } catch (const usage_error& e) {
    std::cerr << program << ": " << e.what() << "\n";
    return 2;
  }
  if (options.help) {
    std::cout << server_usage(program);
    return 0;
  }
  raise_open_files_limit();

  boost::asio::io_context io(static_cast<int>(options.threads));
  // Must come before the first wheel_timer on this context exists (the server's own).
  asio_wheel::wheel_options wheel;
  wheel.tick = options.tick;
  // Context-wide, so every wheel wait of the server gets it, not only the idle
  // ones; the idle timeouts are what it is for: one per connection, long, and
  // nobody minds a close a little late.
  wheel.tolerance = options.idle_tolerance;
  boost::asio::make_service<asio_wheel::wheel_timer_service<std::chrono::steady_clock>>(io, wheel);

  chat_server server(io, options);
  boost::asio::ip::tcp::endpoint endpoint;
  try {
    endpoint = server.listen();
  } catch (const boost::system::system_error& e) {
    std::cerr << program << ": cannot listen on " << options.bind_address << ":" << options.port << ": "
              << e.code().message() << "\n";
    return 1;
  }
  const auto address = endpoint.address();
  std::cout << "listening on " << (address.is_v6() ? "[" + address.to_string() + "]" : address.to_string()) << ":"
            << endpoint.port() << std::endl;  // flushed: whoever started us is waiting for this line
  server.start();

  std::vector<std::thread> threads;
  for (std::size_t i = 1; i < options.threads; ++i) threads.emplace_back([&io] { io.run(); });
  io.run();
  for (auto& t : threads) t.join();
  std::cerr << program << ": stopped\n";
  return 0;
}
