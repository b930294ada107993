//
// test/bench/w12_chat_client.cpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The load of W12's chat part (w12_cores.sh): --connections connections to a
// keepalive_chat_server, each, once it has its WELCOME, sending "PING" and
// waiting for its "PONG" before the next, as fast as the server answers. A
// PING is a line the server reads, parses and answers, refreshing the
// session's idle timer (extend_after with the wheel, a re-arm with
// steady_timer) and starting a write under the write deadline: the timers'
// part of a message, without the room's fan-out. After --warmup, the
// server's CPU time (/proc/PID/task/*/schedstat, every thread) and the PONGs
// are counted over --seconds; prints
//
//   messages=M server_cpu_ns=C seconds=S cpu_us_per_message=X
//
// and exits 0, or 1 if a connection failed or the server sent something else
// than the protocol's lines. One thread; Linux only (schedstat).
//
//   w12_chat_client --port P --server-pid PID [--connections 200]
//                   [--warmup 0.5] [--seconds 3]
//

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <dirent.h>

namespace {

using tcp = boost::asio::ip::tcp;
using clock_type = std::chrono::steady_clock;

/// CPU time of every thread of process @p pid, in nanoseconds: the sum of the
/// first field of /proc/PID/task/*/schedstat.
double process_cpu_ns(long pid)
{
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  double total = 0;
  DIR* dir = ::opendir(tasks.c_str());
  if (!dir)
    return -1;
  while (const dirent* entry = ::readdir(dir))
  {
    if (entry->d_name[0] == '.')
      continue;
    std::ifstream in(tasks + "/" + entry->d_name + "/schedstat");
    double on_cpu = 0;
    if (in >> on_cpu)
      total += on_cpu;
  }
  ::closedir(dir);
  return total;
}

struct options
{
  unsigned short port = 0;
  long server_pid = 0;
  std::size_t connections = 200;
  double warmup = 0.5, seconds = 3;
};

class client
{
public:
  client(boost::asio::io_context& io, const options& o)
    : io_(io), options_(o), timer_(io)
  {}

  int run()
  {
    const tcp::endpoint server(
        boost::asio::ip::make_address("127.0.0.1"), options_.port);
    for (std::size_t i = 0; i < options_.connections; ++i)
    {
      auto c = std::make_shared<connection>(io_);
      connections_.push_back(c);
      c->socket.async_connect(server, [this, c](boost::system::error_code ec) {
        if (ec)
          return fail("connect: " + ec.message());
        c->socket.set_option(tcp::no_delay(true));
        read_line(c);
      });
    }
    io_.run();
    if (!error_.empty())
    {
      std::fprintf(stderr, "w12_chat_client: %s\n", error_.c_str());
      return 1;
    }
    const double cpu = cpu_end_ - cpu_start_;
    const std::size_t messages = pongs_end_ - pongs_start_;
    std::printf("messages=%zu server_cpu_ns=%.0f seconds=%g "
                "cpu_us_per_message=%.4f\n",
        messages, cpu, options_.seconds,
        messages ? cpu / 1e3 / double(messages) : 0.0);
    return messages ? 0 : 1;
  }

private:
  struct connection
  {
    explicit connection(boost::asio::io_context& io) : socket(io) {}
    tcp::socket socket;
    std::string input;
    bool welcomed = false;
  };

  void fail(const std::string& what)
  {
    if (error_.empty())
      error_ = what;
    stop();
  }

  void stop()
  {
    stopping_ = true;
    timer_.cancel();
    for (auto& c : connections_)
    {
      boost::system::error_code ignored;
      c->socket.close(ignored);
    }
  }

  void read_line(const std::shared_ptr<connection>& c)
  {
    boost::asio::async_read_until(c->socket,
        boost::asio::dynamic_buffer(c->input, 1 << 16), '\n',
        [this, c](boost::system::error_code ec, std::size_t n) {
          if (stopping_)
            return;
          if (ec)
            return fail("read: " + ec.message());
          const std::string line = c->input.substr(0, n - 1);
          c->input.erase(0, n);
          if (!c->welcomed)
          {
            if (line.rfind("WELCOME ", 0) == 0)
            {
              c->welcomed = true;
              if (++welcomed_ == connections_.size())
                start_window();
              ping(c);
            }
            return read_line(c);  // the history, if any, follows the WELCOME
          }
          if (line == "PONG")
          {
            ++pongs_;
            ping(c);
          }
          else if (line.rfind("BYE", 0) == 0 || line.rfind("ERR", 0) == 0)
            return fail("the server said: " + line);
          read_line(c);  // history lines, a broadcast, a PING: not counted
        });
  }

  void ping(const std::shared_ptr<connection>& c)
  {
    static const std::string line = "PING\n";
    boost::asio::async_write(c->socket, boost::asio::buffer(line),
        [this](boost::system::error_code ec, std::size_t) {
          if (ec && !stopping_)
            fail("write: " + ec.message());
        });
  }

  // Every connection is welcomed and pinging: warm up, then count.
  void start_window()
  {
    timer_.expires_after(seconds(options_.warmup));
    timer_.async_wait([this](boost::system::error_code ec) {
      if (ec)
        return;
      cpu_start_ = process_cpu_ns(options_.server_pid);
      pongs_start_ = pongs_;
      timer_.expires_after(seconds(options_.seconds));
      timer_.async_wait([this](boost::system::error_code e) {
        if (e)
          return;
        cpu_end_ = process_cpu_ns(options_.server_pid);
        pongs_end_ = pongs_;
        if (cpu_start_ < 0 || cpu_end_ < 0)
          return fail("cannot read /proc/" + std::to_string(options_.server_pid)
              + "/task/*/schedstat");
        stop();
      });
    });
  }

  static clock_type::duration seconds(double s)
  {
    return std::chrono::duration_cast<clock_type::duration>(
        std::chrono::duration<double>(s));
  }

  boost::asio::io_context& io_;
  const options options_;
  boost::asio::steady_timer timer_;
  std::vector<std::shared_ptr<connection>> connections_;
  std::size_t welcomed_ = 0, pongs_ = 0, pongs_start_ = 0, pongs_end_ = 0;
  double cpu_start_ = 0, cpu_end_ = 0;
  bool stopping_ = false;
  std::string error_;
};

}  // namespace

int main(int argc, char** argv)
{
  options o;
  for (int i = 1; i < argc; ++i)
  {
    const std::string flag = argv[i];
    if (i + 1 >= argc)
    {
      std::fprintf(
          stderr, "w12_chat_client: %s: needs a value\n", flag.c_str());
      return 2;
    }
    const std::string value = argv[++i];
    if (flag == "--port")
      o.port = static_cast<unsigned short>(std::atoi(value.c_str()));
    else if (flag == "--server-pid")
      o.server_pid = std::atol(value.c_str());
    else if (flag == "--connections")
      o.connections = std::strtoul(value.c_str(), nullptr, 10);
    else if (flag == "--warmup")
      o.warmup = std::atof(value.c_str());
    else if (flag == "--seconds")
      o.seconds = std::atof(value.c_str());
    else
    {
      std::fprintf(stderr, "w12_chat_client: %s: unknown flag\n", flag.c_str());
      return 2;
    }
  }
  if (o.port == 0 || o.server_pid <= 0 || o.connections == 0 || o.seconds <= 0)
  {
    std::fprintf(stderr,
        "usage: w12_chat_client --port P --server-pid PID [--connections N] "
        "[--warmup S] [--seconds S]\n");
    return 2;
  }
  boost::asio::io_context io(1);
  client c(io, o);
  return c.run();
}
