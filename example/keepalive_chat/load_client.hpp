//
// example/keepalive_chat/load_client.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// What the two modes of keepalive_chat_load share with each other and with its main()
// (load_client.cpp): the command line (client_options), the server's /stats as a map, the
// figures and the end of every summary (the server's counters, this process's CPU), and what
// a mode is to main(): made from the options and the server's timing, run, then asked for its
// summary. The modes: load_mode.cpp, the idle policy checked from outside (the default, and
// --hold); churn_mode.cpp, connections replaced as they end (--churn).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace keepalive_chat::load_client {

using clock_type = std::chrono::steady_clock;
using boost::asio::ip::tcp;
using std::chrono::milliseconds;
using std::chrono::nanoseconds;

struct client_options
{
  std::string host = "127.0.0.1";
  unsigned short port = 0;
  std::size_t connections = 10000;
  std::size_t active = 0;  // default: 5% of the connections
  bool active_given = false;
  std::size_t messages = 5;  // broadcasts in total, spread over the run
  std::size_t connect_concurrency =
      256;  // connections awaiting WELCOME: keeps the accept queue short
  std::size_t periods = 3;  // idle periods the active connections must survive
  nanoseconds slack = milliseconds(100);  // allowed lateness beyond one tick
  std::optional<nanoseconds> hold;
  // Churn mode, all used only with --churn.
  std::optional<nanoseconds> churn;
  nanoseconds min_lifetime = std::chrono::seconds(1),
              max_lifetime = std::chrono::seconds(20);
  nanoseconds broadcast_interval = std::chrono::seconds(1);
  nanoseconds report_interval = std::chrono::seconds(10);
  std::size_t source_addresses = 0;  // 0: the kernel picks the source address
  bool help = false;
};

// The key=value pairs of the server's STATS line (its answer to /stats).
using stats_map = std::map<std::string, std::string>;

// A number of the STATS line; 0 if the server did not report it.
std::uint64_t stat(const stats_map& s, const std::string& key);

// Milliseconds, for the summaries.
double ms(nanoseconds d);

// The p-quantile (0 to 1) of sorted figures; 0 if there are none.
nanoseconds percentile(std::vector<nanoseconds> sorted, double p);

// The server's counters and wheel stats from /stats (deltas over the run where
// that is what matters), then this process's CPU: the end of both summaries.
void print_server_and_own_stats(const stats_map* before, const stats_map* after,
    nanoseconds stats_interval);

// One mode of the client, on main()'s io_context(1): run() opens its connections and returns
// when all are over; report() prints the summary, given the server's /stats before the run
// and after it (nullptr if that query failed) and the time between the two, and returns
// true when every check passed.
class mode
{
public:
  virtual ~mode() = default;
  virtual void run() = 0;
  virtual bool report(const stats_map* before, const stats_map* after,
      nanoseconds stats_interval) const = 0;
};

// The modes, for a server whose /stats reported its idle timeout, tick and idle tolerance
// (the lateness its --idle-tolerance allows an idle close, 0 without one).
std::unique_ptr<mode> make_load_mode(boost::asio::io_context& io,
    const client_options& options, tcp::endpoint server, nanoseconds idle,
    nanoseconds tick, nanoseconds tolerance);
std::unique_ptr<mode> make_churn_mode(boost::asio::io_context& io,
    const client_options& options, tcp::endpoint server, nanoseconds idle,
    nanoseconds tick, nanoseconds tolerance);

}  // namespace keepalive_chat::load_client
