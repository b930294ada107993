// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// What one round of the chat test's socket work costs without asio_wheel: the
// measurement behind the bound the hostile chat test keeps under Wine
// (doc/reliability.md, "Windows").
//
// The hostile chat test attaches 1,000 clients that never read (SO_RCVBUF
// 4096) and has three chatters say a 1,000-byte line per round: each line goes
// to the 1,000 sleepers, so a round is about 3,000 sends of 1,000 bytes, one
// in flight per socket, the rest queued and written gathered, as the chat
// session does. This program does exactly that socket work, and nothing else:
// no wheel, no timers, no chat protocol. It connects the sleepers to itself
// over 127.0.0.1, then runs rounds and prints the wall time of each.
//
//   send_round_cost asio [SLEEPERS] [ROUNDS]    Asio's async_write (IOCP on
//                                               Windows, epoll on Linux)
//   send_round_cost native [SLEEPERS] [ROUNDS]  one plain send() per line on a
//                                               non-blocking socket (Winsock's
//                                               send on Windows), no Asio
//
// Built for Linux and, by the Windows build, for Windows; run it under Wine as
// cmake/wine-run build-windows/test/windows/send_round_cost.exe asio
// (scripts/windows runs it before the chat tests and prints what it measured).
#include <boost/asio/detail/socket_types.hpp>  // the platform's send()
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

namespace net = boost::asio;
using tcp = net::ip::tcp;
using clock_type = std::chrono::steady_clock;

constexpr std::size_t line_size = 1000, lines_per_round = 3;

// One accepted connection: one write in flight, the rest queued (at most 16
// lines gathered per write), as keepalive_chat::session writes.
struct connection
{
  explicit connection(tcp::socket s) : socket(std::move(s)) {}
  tcp::socket socket;
  std::size_t queued = 0;  // lines waiting behind the write in flight
  bool writing = false;
};

struct rounds
{
  std::string line = std::string(line_size - 1, 'x') + "\n";
  std::vector<std::unique_ptr<connection>> connections;
  std::size_t failed = 0;

  void send(connection& c)
  {
    if (c.writing)
    {
      ++c.queued;
      return;
    }
    start_write(c, 1);
  }
  void start_write(connection& c, std::size_t lines)
  {
    std::vector<net::const_buffer> buffers(lines, net::buffer(line));
    c.writing = true;
    net::async_write(c.socket, buffers,
        [this, &c](const boost::system::error_code& ec, std::size_t) {
          c.writing = false;
          if (ec)
          {
            ++failed;
            return;
          }
          if (c.queued > 0)
          {
            const std::size_t n = std::min<std::size_t>(c.queued, 16);
            c.queued -= n;
            start_write(c, n);
          }
        });
  }
};

void poll(net::io_context& io)
{
  io.restart();  // poll() stops the context whenever it runs out of work
  io.poll();
}

// The platform's own send() on the socket's handle: Winsock's on Windows.
std::size_t native_send(tcp::socket& socket, const std::string& data)
{
#if defined(_WIN32)
  const int n = ::send(
      socket.native_handle(), data.data(), static_cast<int>(data.size()), 0);
#else
  const auto n = ::send(socket.native_handle(), data.data(), data.size(), 0);
#endif
  return n < 0 ? 0 : static_cast<std::size_t>(n);
}

int usage()
{
  std::fprintf(
      stderr, "usage: send_round_cost asio|native [SLEEPERS] [ROUNDS]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv)
{
  if (argc < 2)
    return usage();
  const std::string mode = argv[1];
  if (mode != "asio" && mode != "native")
    return usage();
  const std::size_t sleepers =
      argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 1000;
  const int round_count = argc > 3 ? std::atoi(argv[3]) : 12;
  if (sleepers == 0 || round_count <= 0)
    return usage();

  net::io_context io(1);
  tcp::acceptor acceptor(io, tcp::endpoint(net::ip::address_v4::loopback(), 0));
  acceptor.listen(2048);
  std::vector<tcp::socket> clients;  // the sleepers' ends: never read
  rounds r;
  for (std::size_t i = 0; i < sleepers; ++i)
  {
    tcp::socket client(io);
    client.open(tcp::v4());
    client.set_option(net::socket_base::receive_buffer_size(4096));
    client.connect(acceptor.local_endpoint());
    clients.push_back(std::move(client));
    tcp::socket accepted = acceptor.accept();
    accepted.set_option(tcp::no_delay(true));
    accepted.non_blocking(true);
    r.connections.push_back(std::make_unique<connection>(std::move(accepted)));
  }

  std::printf(
      "send_round_cost %s: %zu sleepers, %zu lines of %zu bytes per round\n",
      mode.c_str(), sleepers, lines_per_round, line_size);
  double worst = 0, total = 0;
  std::size_t sends = 0, short_sends = 0;
  for (int round = 0; round < round_count; ++round)
  {
    const auto start = clock_type::now();
    for (std::size_t l = 0; l < lines_per_round; ++l)
    {
      for (auto& c : r.connections)
      {
        if (mode == "asio")
        {
          r.send(*c);
        }
        else if (native_send(c->socket, r.line) != r.line.size())
        {
          ++short_sends;  // the sleeper's buffers are full: counted, not retried
        }
        ++sends;
      }
      poll(
          io);  // the completions that are ready, as the chat server's loop runs them
    }
    poll(io);
    const double ms =
        std::chrono::duration<double, std::milli>(clock_type::now() - start)
            .count();
    worst = std::max(worst, ms);
    total += ms;
    std::printf("round %d: %.1f ms\n", round, ms);
  }
  std::printf("send_round_cost %s: worst round %.1f ms, %.1f us per send "
              "(%zu sends, %zu short, %zu failed writes)\n",
      mode.c_str(), worst, total * 1000.0 / static_cast<double>(sends), sends,
      short_sends, r.failed);
  return r.failed == 0 ? 0 : 1;
}
