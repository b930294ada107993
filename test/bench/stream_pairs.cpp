// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// bench_stream_pairs: what one timeout of the Beast stream costs, arm + withdraw, against
// Beast's own stream. A read on a loopback TCP connection whose peer has written a byte
// beforehand (it completes at once, with its timeout withdrawn), re-issued `--reads` times
// on one io_context(1), each way timed (expires_after(30 s) before each read) and untimed
// (expires_never()):
//   wheel_plain   asio_wheel::beast::tcp_stream, the handler a lambda (no executor of its own)
//   wheel_bound   the same, the handler bound to the context's executor (bind_executor), so
//                 the operation's executor is asked for and compared, as with Beast's
//                 composed operations
//   beast_plain   boost::beast::tcp_stream, the handler a lambda
// each with 1000 other timeouts pending in the same context (wheel_timers, or steady_timers
// for Beast's stream, due in an hour: a server) and with none (a client's lone timeout).
//
// Wall time per read is printed, but the figure is the instruction count: run it under
// valgrind --tool=callgrind (test/bench/callgrind_stream_pairs.sh), where each measured
// section is delimited with callgrind client requests, and subtract a way's untimed count from
// its timed one. --smoke: 200 reads, checks only that every read completed without error.
#include <asio_wheel/beast.hpp>
#include <asio_wheel/wheel_timer.hpp>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>

#if __has_include(<valgrind/callgrind.h>)
# include <valgrind/callgrind.h>
#else
# define CALLGRIND_ZERO_STATS
# define CALLGRIND_DUMP_STATS_AT(label) ((void)(label))
#endif

#include <array>
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
using error_code = boost::system::error_code;
using namespace std::chrono_literals;

struct failure
{
  std::string what;
};

// Times `reads` reads of one byte on stream s, each with or without a timeout; the peer writes
// the byte before each read. Returns nanoseconds per read.
template <class Stream>
double run_reads(net::io_context& ioc, Stream& s, tcp::socket& peer, int reads,
    bool timed, bool bound, const std::string& label)
{
  std::array<char, 1> buf;
  int completed = 0;
  error_code last;
  auto handler = [&](error_code ec, std::size_t) {
    last = ec;
    ++completed;
  };
  auto one = [&](int i) {
    if (timed)
      s.expires_after(30s);
    else
      s.expires_never();
    net::write(peer, net::buffer("x", 1));
    if (bound)
      s.async_read_some(
          net::buffer(buf), net::bind_executor(ioc.get_executor(), handler));
    else
      s.async_read_some(net::buffer(buf), handler);
    while (completed == i)
    {
      if (ioc.stopped())
        ioc.restart();
      ioc.run_one();
    }
    if (last)
      throw failure{label + ": read failed: " + last.message()};
  };
  for (int i = 0; i < 200;
       ++i)  // warm-up: Asio's caches, the wheel, the branch predictors
    one(completed);
  completed = 0;
  const auto start = std::chrono::steady_clock::now();
  CALLGRIND_ZERO_STATS;
  for (int i = 0; i < reads; ++i)
    one(i);
  CALLGRIND_DUMP_STATS_AT(label.c_str());
  const auto elapsed = std::chrono::steady_clock::now() - start;
  return std::chrono::duration<double, std::nano>(elapsed).count() / reads;
}

template <class Stream, class OtherTimer>
void run_way(const char* way, bool bound, int others, int reads)
{
  net::io_context ioc(1);
  std::vector<std::unique_ptr<OtherTimer>> other;
  for (int i = 0; i < others; ++i)
  {
    other.push_back(std::make_unique<OtherTimer>(ioc, 1h + i * 1ms));
    other.back()->async_wait([](error_code) {});
  }
  Stream s(ioc);
  tcp::acceptor acc(ioc, tcp::endpoint(net::ip::make_address("127.0.0.1"), 0));
  s.socket().connect(acc.local_endpoint());
  tcp::socket peer(ioc);
  acc.accept(peer);
  s.socket().set_option(tcp::no_delay(true));
  peer.set_option(tcp::no_delay(true));
  for (bool timed : {false, true})
  {
    const std::string label = std::string(way) + (timed ? " timed" : " untimed")
        + ", " + std::to_string(others) + " others";
    const double ns = run_reads(ioc, s, peer, reads, timed, bound, label);
    std::printf("%-38s %8.0f ns per read\n", label.c_str(), ns);
  }
  for (auto& t : other)
    t->cancel();
}

}  // namespace

int main(int argc, char** argv)
{
  int reads = 20000;
  for (int i = 1; i < argc; ++i)
  {
    if (!std::strcmp(argv[i], "--smoke"))
      reads = 200;
    else if (!std::strcmp(argv[i], "--reads") && i + 1 < argc)
      reads = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--json") && i + 1 < argc)
      ++i;  // accepted for CTest's smoke runs; nothing to write
    else
    {
      std::fprintf(stderr, "usage: %s [--smoke] [--reads N]\n", argv[0]);
      return 2;
    }
  }
  if (reads <= 0)
  {
    std::fprintf(stderr, "--reads: must be positive\n");
    return 2;
  }
  try
  {
    for (int others : {1000, 0})
    {
      run_way<asio_wheel::beast::tcp_stream, asio_wheel::wheel_timer>(
          "wheel_plain", false, others, reads);
      run_way<asio_wheel::beast::tcp_stream, asio_wheel::wheel_timer>(
          "wheel_bound", true, others, reads);
      run_way<boost::beast::tcp_stream, net::steady_timer>(
          "beast_plain", false, others, reads);
    }
  }
  catch (const failure& f)
  {
    std::fprintf(stderr, "bench_stream_pairs: FAILED: %s\n", f.what.c_str());
    return 1;
  }
  return 0;
}
