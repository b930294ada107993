// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// keepalive_chat_load: the load client of the keepalive chat example. It opens
// --connections connections to the server; --active of them chat (a heartbeat
// every idle/3, now and then a broadcast message), the rest stay silent. It
// checks the server's idle policy from the outside:
//   - every silent connection gets PING at idle/2 and "BYE idle-timeout" no
//     sooner than idle after the moment we started connecting it (the server's
//     clock for it cannot start earlier, so "early" is a real bug) and no later
//     than idle + tick + tolerance + slack after its WELCOME came (nor can the
//     clock start later); tolerance is the server's --idle-tolerance times idle,
//     0 without one,
//   - no active connection is closed; each ends with /quit after --periods idle periods.
// It prints a summary (connections, kicked, survived, lateness p50/p99/max, the
// server's wheel stats from /stats) and exits 1 if any check failed, 2 on bad flags.
// With --hold D every connection stays silent for D and must all survive:
// measure_idle.sh uses it to measure server memory and CPU with N idle connections.
// With --churn D it keeps --connections open for D, each replaced by a new one
// as soon as it ends, and checks every reply (churn_mode.cpp): soak.sh uses it.
// Connections are opened at most --connect-concurrency at a time, counting one
// as open when its WELCOME arrives, so none waits long in the accept queue.
// Its own timers (heartbeats, phase ends, deadlines) are wheel timers too.
//
// This file: the command line, main() (the server's /stats before and after, the mode the
// flags pick) and what both modes' summaries end with (load_client.hpp). The modes:
// load_mode.cpp (idle check, --hold) and churn_mode.cpp (--churn).
#include "load_client.hpp"

#include "common/flags.hpp"
#include "common/server_main.hpp"

#include <asio_wheel.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/write.hpp>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <iostream>
#include <utility>

namespace keepalive_chat::load_client {

std::uint64_t stat(const stats_map& s, const std::string& key)
{
  const auto it = s.find(key);
  return it == s.end() ? 0 : std::stoull(it->second);
}

double ms(nanoseconds d)
{
  return std::chrono::duration<double, std::milli>(d).count();
}

nanoseconds percentile(std::vector<nanoseconds> sorted, double p)
{
  if (sorted.empty())
    return nanoseconds(0);
  const std::size_t rank = static_cast<std::size_t>(
      p * static_cast<double>(sorted.size() - 1) + 0.5);
  return sorted[std::min(rank, sorted.size() - 1)];
}

namespace {

// This process's CPU time and time spent runnable but waiting for a CPU
// (Linux schedstat, nanoseconds). Every timestamp of the modes is taken when
// our handler runs, so on a busy machine the wait is part of the lateness we see.
std::optional<std::pair<double, double>> own_cpu_and_runqueue_seconds()
{
  std::FILE* f = std::fopen("/proc/self/schedstat", "r");
  if (!f)
    return std::nullopt;
  unsigned long long on_cpu = 0, waiting = 0;
  const int fields = std::fscanf(f, "%llu %llu", &on_cpu, &waiting);
  std::fclose(f);
  if (fields != 2)
    return std::nullopt;
  return std::make_pair(on_cpu / 1e9, waiting / 1e9);
}

}  // namespace

// The server's counters and wheel stats from /stats (deltas over the run where
// that is what matters), then this process's CPU: the end of both summaries.
void print_server_and_own_stats(
    const stats_map* before, const stats_map* after, nanoseconds stats_interval)
{
  if (after)
  {
    const auto delta = [&](const char* key) {
      return stat(*after, key) - (before ? stat(*before, key) : 0);
    };
    const double seconds =
        std::chrono::duration<double>(stats_interval).count();
    std::printf("  server's own view of its idle closes (handler run - last "
                "input - idle): p50 <= %llu ms, p99 <= %llu ms, max %.1f ms\n",
        (unsigned long long)stat(*after, "idle_close_late_p50_ms"),
        (unsigned long long)stat(*after, "idle_close_late_p99_ms"),
        double(stat(*after, "idle_close_late_max_us")) / 1000.0);
    std::printf("  server: kicked_idle %llu, kicked_write_timeout %llu, "
                "kicked_queue_full %llu, refused %llu\n",
        (unsigned long long)stat(*after, "kicked_idle"),
        (unsigned long long)stat(*after, "kicked_write_timeout"),
        (unsigned long long)stat(*after, "kicked_queue_full"),
        (unsigned long long)stat(*after, "refused"));
    if (const auto timers = after->find("timers"); timers != after->end())
      std::printf("  server timers: %s (a session's idle and write timers, "
                  "--timers)\n",
          timers->second.c_str());
    std::printf("  server wheel: wakeups +%llu (%.1f/s over %.1f s), "
                "wakeups_saved +%llu, empty_wakeups +%llu,\n"
                "                waits_expired +%llu, waits_cancelled +%llu, "
                "lazy_refilings +%llu, round_revisits +%llu,\n"
                "                max_lateness %.3f ms\n",
        (unsigned long long)delta("wakeups"),
        seconds > 0 ? double(delta("wakeups")) / seconds : 0.0, seconds,
        (unsigned long long)delta("wakeups_saved"),
        (unsigned long long)delta("empty_wakeups"),
        (unsigned long long)delta("waits_expired"),
        (unsigned long long)delta("waits_cancelled"),
        (unsigned long long)delta("lazy_refilings"),
        (unsigned long long)delta("round_revisits"),
        double(stat(*after, "max_lateness_us")) / 1000.0);
  }
  else
  {
    std::printf("  server stats: unavailable\n");
  }
  if (const auto own = own_cpu_and_runqueue_seconds())
    std::printf("  load client: used %.2f s of CPU and waited %.2f s for one "
                "(runqueue wait)\n",
        own->first, own->second);
}

}  // namespace keepalive_chat::load_client

namespace {

using namespace keepalive_chat::load_client;
using example_common::for_each_flag;
using example_common::format_duration;
using example_common::parse_count;
using example_common::parse_duration;
using example_common::usage_error;

std::string client_usage()
{
  return "usage: keepalive_chat_load --port N [flags]\n"
         "Opens many connections to keepalive_chat_server and checks its idle "
         "timeouts.\n\n"
         "  --host ADDRESS            server address (default 127.0.0.1)\n"
         "  --port N                  server port (required)\n"
         "  --connections N           connections to open (default 10000)\n"
         "  --active N                of which chatting; the rest are silent "
         "(default 5%)\n"
         "  --messages N              broadcast messages sent in total "
         "(default 5)\n"
         "  --connect-concurrency N   connections awaiting WELCOME at once "
         "(default 256)\n"
         "  --periods N               idle periods the active connections must "
         "survive (default 3)\n"
         "  --slack D                 allowed lateness on top of one tick "
         "(default 100ms)\n"
         "  --hold D                  instead: keep every connection silent "
         "for D, expect none closed\n"
         "  --churn D                 instead: keep --connections open for D, "
         "each replaced when it ends\n"
         "  --min-lifetime D          churn: shortest lifetime of a connection "
         "after WELCOME (default 1s)\n"
         "  --max-lifetime D          churn: longest lifetime (default 20s)\n"
         "  --broadcast-interval D    churn: one broadcast message per D "
         "(default 1s)\n"
         "  --report-every D          churn: print a progress line every D "
         "(default 10s)\n"
         "  --source-addresses N      churn: bind connections to 127.0.0.2 .. "
         "127.0.0.N+1 in turn (default 0: don't bind)\n"
         "  --help                    print this and exit\n"
         "Exit status: 0 all checks passed, 1 a check failed, 2 bad flags.\n";
}

client_options parse_client_options(int argc, char** argv)
{
  client_options o;
  bool port_given = false;
  for_each_flag(argc, argv, {"--help"},
      [&](const std::string& flag, const std::string& value) {
        if (flag == "--help")
          o.help = true;
        else if (flag == "--host")
          o.host = value;
        else if (flag == "--port")
        {
          o.port =
              static_cast<unsigned short>(parse_count(flag, value, 1, 65535));
          port_given = true;
        }
        else if (flag == "--connections")
          o.connections = parse_count(flag, value, 1, 1'000'000);
        else if (flag == "--active")
        {
          o.active = parse_count(flag, value, 0, 1'000'000);
          o.active_given = true;
        }
        else if (flag == "--messages")
          o.messages = parse_count(flag, value, 0, 1'000'000);
        else if (flag == "--connect-concurrency")
          o.connect_concurrency = parse_count(flag, value, 1, 100'000);
        else if (flag == "--periods")
          o.periods = parse_count(flag, value, 2, 1000);
        else if (flag == "--slack")
          o.slack = parse_duration(flag, value);
        else if (flag == "--hold")
          o.hold = parse_duration(flag, value);
        else if (flag == "--churn")
          o.churn = parse_duration(flag, value);
        else if (flag == "--min-lifetime")
          o.min_lifetime = parse_duration(flag, value);
        else if (flag == "--max-lifetime")
          o.max_lifetime = parse_duration(flag, value);
        else if (flag == "--broadcast-interval")
          o.broadcast_interval = parse_duration(flag, value);
        else if (flag == "--report-every")
          o.report_interval = parse_duration(flag, value);
        else if (flag == "--source-addresses")
          o.source_addresses = parse_count(flag, value, 0, 200);
        else
          throw usage_error(flag + ": unknown flag (see --help)");
      });
  if (!o.help && !port_given)
    throw usage_error("--port: required (the server prints it: \"listening on "
                      "ADDRESS:PORT\")");
  if (!o.active_given)
    o.active = o.connections / 20;
  if (o.active > o.connections)
    throw usage_error("--active: must not exceed --connections");
  if (o.hold)
    o.active = 0;
  if (o.hold && o.churn)
    throw usage_error("--churn: cannot be combined with --hold");
  if (o.min_lifetime.count() <= 0 || o.min_lifetime > o.max_lifetime)
    throw usage_error(
        "--min-lifetime: must be greater than 0 and at most --max-lifetime");
  if (o.broadcast_interval.count() <= 0)
    throw usage_error("--broadcast-interval: must be greater than 0");
  if (o.report_interval.count() <= 0)
    throw usage_error("--report-every: must be greater than 0");
  return o;
}

// Connects, sends /stats, returns the key=value pairs of the STATS line. Bounded by `timeout`.
std::optional<stats_map> query_stats(
    const tcp::endpoint& server, nanoseconds timeout, std::string& error)
{
  boost::asio::io_context io;
  tcp::socket socket(io);
  asio_wheel::wheel_timer deadline(io, timeout);
  std::string input;
  std::optional<stats_map> result;
  deadline.async_wait([&](const boost::system::error_code& ec) {
    if (ec)
      return;
    error = "no STATS line within " + format_duration(timeout);
    socket.close();
  });
  std::function<void()> read_line = [&] {
    boost::asio::async_read_until(socket,
        boost::asio::dynamic_buffer(input, 1 << 20), '\n',
        [&](const boost::system::error_code& ec, std::size_t n) {
          if (ec)
          {
            if (error.empty())
              error = "reading /stats: " + ec.message();
            return (void)deadline.cancel();
          }
          const std::string line = input.substr(0, n - 1);
          input.erase(0, n);
          if (line.rfind("STATS ", 0) != 0)
            return read_line();  // WELCOME, history, PING
          stats_map fields;
          std::size_t pos = 6;
          while (pos < line.size())
          {
            const std::size_t end = std::min(line.find(' ', pos), line.size());
            const std::string field = line.substr(pos, end - pos);
            if (const auto eq = field.find('='); eq != std::string::npos)
              fields[field.substr(0, eq)] = field.substr(eq + 1);
            pos = end + 1;
          }
          result = std::move(fields);
          boost::system::error_code ignored;
          socket.close(ignored);
          deadline.cancel();
        });
  };
  socket.async_connect(server, [&](const boost::system::error_code& ec) {
    if (ec)
    {
      error = "connecting to " + server.address().to_string() + ":"
          + std::to_string(server.port()) + ": " + ec.message();
      return (void)deadline.cancel();
    }
    static const std::string request = "/stats\n";
    boost::asio::async_write(socket, boost::asio::buffer(request),
        [](const boost::system::error_code&, std::size_t) {});
    read_line();
  });
  io.run();  // ends: every path closes the socket and cancels the deadline
  return result;
}

}  // namespace

int main(int argc, char** argv)
{
  using namespace keepalive_chat::load_client;
  client_options options;
  if (const auto exit_status = example_common::parse_flags_or_exit(argc, argv,
          "keepalive_chat_load", options, parse_client_options, client_usage))
    return *exit_status;
  const std::uint64_t open_files = example_common::raise_open_files_limit();
  if (open_files < options.connections + 32)
  {
    std::cerr << "keepalive_chat_load: --connections: " << options.connections
              << " needs about " << options.connections + 32
              << " open files, the limit is " << open_files
              << " (raise it with ulimit -n)\n";
    return 2;
  }
  boost::system::error_code ec;
  const auto address = boost::asio::ip::make_address(options.host, ec);
  if (ec)
  {
    std::cerr << "keepalive_chat_load: --host: expected an IP address, got \""
              << options.host << "\"\n";
    return 2;
  }
  if (options.source_addresses > 0
      && !(address.is_v4() && address.is_loopback()))
  {
    std::cerr << "keepalive_chat_load: --source-addresses: needs a server on "
                 "127.x.x.x (the sources are 127.0.0.2 and up)\n";
    return 2;
  }
  const tcp::endpoint server(address, options.port);

  std::string error;
  const auto before = query_stats(server, std::chrono::seconds(5), error);
  if (!before)
  {
    std::cerr << "keepalive_chat_load: " << error << "\n";
    return 1;
  }
  const nanoseconds idle = milliseconds(stat(*before, "idle_timeout_ms"));
  const nanoseconds tick = std::chrono::microseconds(stat(*before, "tick_us"));
  // The server's --idle-tolerance (tolerance_ppm; 0, or absent from a server that
  // predates the flag, is none): a close may come that fraction of idle later still.
  const nanoseconds tolerance = std::chrono::duration_cast<nanoseconds>(
      idle * (static_cast<double>(stat(*before, "tolerance_ppm")) / 1e6));
  if (options.hold && *options.hold + std::chrono::seconds(10) > idle)
  {
    std::cerr << "keepalive_chat_load: --hold: the server's idle timeout ("
              << example_common::format_duration(idle)
              << ") must exceed the hold by 10s, or the connections are closed "
                 "during it\n";
    return 2;
  }
  const auto stats_from = clock_type::now();

  boost::asio::io_context io(1);
  const std::unique_ptr<mode> test = options.churn
      ? make_churn_mode(io, options, server, idle, tick, tolerance)
      : make_load_mode(io, options, server, idle, tick, tolerance);
  test->run();

  const auto after = query_stats(server, std::chrono::seconds(5), error);
  if (!after)
    std::cerr << "keepalive_chat_load: final /stats: " << error << "\n";
  const stats_map* after_or_null = after ? &*after : nullptr;
  const bool passed =
      test->report(&*before, after_or_null, clock_type::now() - stats_from);
  return passed && after ? 0 : 1;
}
