//
// example/idle_timeouts/main.cpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// 10,000 simulated connections, each with an idle timeout kept by one
// asio_wheel::wheel_timer. The "active" ones receive traffic and refresh
// their timeout with reschedule_after() on every message; the silent ones
// time out. The program checks that every silent one expired, none before
// its deadline, and that no active one expired unless the event loop itself
// stalled for longer than the gap between messages allows, then prints the
// wheel's stats.
//
// Usage: idle_timeouts [--connections N] [--idle-ms MS] [--silent-percent P]
//

#include <asio_wheel.hpp>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <vector>

// The Asio that asio_wheel uses: boost::asio and boost::system::error_code, or ::asio and
// std::error_code in a program built for standalone Asio (ASIO_WHEEL_STANDALONE).
namespace net = asio_wheel::asio;
using asio_wheel::error_code;
using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;

namespace {

struct settings
{
  std::size_t connections = 10000;
  std::chrono::milliseconds idle = 500ms;
  unsigned silent_percent = 30;
};

settings parse(int argc, char** argv)
{
  settings s;
  for (int i = 1; i < argc; ++i)
  {
    const std::string flag = argv[i];
    if (i + 1 >= argc)
    {
      std::cerr << "idle_timeouts: " << flag << " needs a value\n";
      std::exit(2);
    }
    const long value = std::strtol(argv[++i], nullptr, 10);
    if (flag == "--connections" && value > 0)
      s.connections = static_cast<std::size_t>(value);
    else if (flag == "--idle-ms" && value > 0)
      s.idle = std::chrono::milliseconds(value);
    else if (flag == "--silent-percent" && value >= 0 && value <= 100)
      s.silent_percent = static_cast<unsigned>(value);
    else
    {
      std::cerr << "idle_timeouts: invalid " << flag << " '" << argv[i]
                << "'\n";
      std::exit(2);
    }
  }
  return s;
}

// One simulated connection: an idle timer and what happened to it.
struct connection
{
  explicit connection(net::io_context& io) : idle(io) {}
  asio_wheel::wheel_timer idle;
  bool silent = false;
  bool timed_out = false;
  // The expiry of the pending wait: reschedule_after() moves it only while the
  // wait is pending, not once the wait has expired and its handler is queued.
  clock_type::time_point wait_expiry{};
};

[[noreturn]] void completed_early()
{
  std::cerr << "idle_timeouts: a wait completed before its expiry\n";
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv)
{
  const settings cfg = parse(argc, argv);
  net::io_context io(1);

  std::vector<std::unique_ptr<connection>> conns;
  std::mt19937 rng(42);
  std::size_t silent_count = 0;
  for (std::size_t i = 0; i < cfg.connections; ++i)
  {
    auto c = std::make_unique<connection>(io);
    c->silent = rng() % 100 < cfg.silent_percent;
    silent_count += c->silent;
    c->idle.expires_after(cfg.idle);
    c->wait_expiry = c->idle.expiry();
    c->idle.async_wait([c = c.get()](error_code ec) {
      if (ec)
        return;  // cancelled at the end of the run
      c->timed_out = true;
      if (clock_type::now() < c->wait_expiry)
        completed_early();
    });
    conns.push_back(std::move(c));
  }

  // Traffic: every 10 ms a round of messages; each active connection gets
  // one every `spacing` rounds (about a quarter of the idle timeout),
  // staggered by its index, and refreshes its idle timeout.
  const auto traffic_period = 10ms;
  const std::size_t spacing =
      std::max<std::size_t>(1, cfg.idle / traffic_period / 4);
  const auto run_for = cfg.idle * 3;
  const auto start = clock_type::now();
  std::uint64_t refreshes = 0;
  std::size_t round = 0;
  // The longest time between two traffic rounds: an active connection can
  // time out only if the event loop stalled for nearly the idle timeout.
  clock_type::duration longest_gap{};
  auto last_round = start;
  asio_wheel::wheel_timer traffic(io);
  std::function<void()> next_round = [&] {
    traffic.expires_after(traffic_period);
    traffic.async_wait([&](error_code ec) {
      if (ec)
        return;
      ++round;
      const auto now = clock_type::now();
      longest_gap = std::max(longest_gap, now - last_round);
      last_round = now;
      for (std::size_t i = 0; i < conns.size(); ++i)
        if (!conns[i]->silent && (round + i) % spacing == 0)
        {
          connection& c = *conns[i];
          if (c.idle.reschedule_after(cfg.idle) == 1)
            c.wait_expiry = c.idle.expiry();
          else if (now < c.wait_expiry)
            completed_early();  // no longer pending before its expiry
          ++refreshes;
        }
      if (clock_type::now() - start < run_for)
        next_round();
      else
        for (auto& c : conns)
          c->idle.cancel();  // the end: active connections close normally
    });
  };
  next_round();
  io.run();

  std::size_t silent_expired = 0, active_expired = 0;
  for (auto& c : conns)
    (c->silent ? silent_expired : active_expired) += c->timed_out;

  const auto stats =
      net::use_service<asio_wheel::wheel_timer_service<clock_type>>(io).stats();
  std::cout << "connections          " << cfg.connections << " ("
            << silent_count << " silent), idle timeout " << cfg.idle.count()
            << " ms\n"
            << "refreshes            " << refreshes
            << " reschedule_after calls\n"
            << "silent timed out     " << silent_expired << " of "
            << silent_count << "\n"
            << "active timed out     " << active_expired << "\n"
            << "longest round gap    "
            << std::chrono::duration_cast<std::chrono::milliseconds>(
                   longest_gap)
                   .count()
            << " ms (traffic every " << traffic_period.count() << " ms)\n"
            << "wakeups        " << stats.wakeups << " (empty "
            << stats.empty_wakeups << ") in "
            << std::chrono::duration_cast<std::chrono::milliseconds>(
                   clock_type::now() - start)
                   .count()
            << " ms\n"
            << "waits expired        " << stats.waits_expired << "\n"
            << "waits cancelled      " << stats.waits_cancelled << "\n"
            << "lazy re-filings      " << stats.lazy_refilings << "\n"
            << "round revisits       " << stats.round_revisits << "\n"
            << "cascades             " << stats.cascades << "\n"
            << "max lateness         "
            << std::chrono::duration_cast<std::chrono::microseconds>(
                   stats.max_lateness)
                   .count()
            << " us\n";

  // An active connection's messages come every `spacing` rounds: it can time
  // out only if the loop stalled for the idle timeout less that interval.
  const bool stalled = longest_gap >= cfg.idle - spacing * traffic_period;
  const bool ok =
      silent_expired == silent_count && (active_expired == 0 || stalled);
  if (!ok)
    std::cout << "FAILED: the wrong connections timed out\n";
  else if (active_expired != 0)
    std::cout << "OK: every silent connection timed out, none early; "
              << active_expired
              << " active ones too, the event loop having stalled\n";
  else
    std::cout << "OK: exactly the silent connections timed out\n";
  return ok ? 0 : 1;
}
