// keepalive_chat_load: the load client of the keepalive chat example. It opens
// --connections connections to the server; --active of them chat (a heartbeat
// every idle/3, now and then a broadcast message), the rest stay silent. It
// checks the server's idle policy from the outside:
//   - every silent connection gets PING at idle/2 and "BYE idle-timeout" within
//     [idle, idle + tick + slack] of the moment we started connecting it (the
//     server's clock for it cannot start earlier, so "early" is a real bug),
//   - no active connection is closed; each ends with /quit after --periods idle periods.
// It prints a summary (connections, kicked, survived, lateness p50/p99/max, the
// server's wheel stats from /stats) and exits 1 if any check failed, 2 on bad flags.
// With --hold D every connection stays silent for D and must all survive:
// measure_idle.sh uses it to measure server memory and CPU with N idle connections.
// Connections are opened at most --connect-concurrency at a time, counting one
// as open when its WELCOME arrives, so none waits long in the accept queue.
// Its own timers (heartbeats, phase ends, deadlines) are wheel timers too.
#include "options.hpp"

#include <asio_wheel.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/write.hpp>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace {

using namespace keepalive_chat;
using clock_type = std::chrono::steady_clock;
using boost::asio::ip::tcp;
using std::chrono::milliseconds;
using std::chrono::nanoseconds;

struct client_options {
  std::string host = "127.0.0.1";
  unsigned short port = 0;
  std::size_t connections = 10000;
  std::size_t active = 0;               // default: 5% of the connections
  bool active_given = false;
  std::size_t messages = 5;             // broadcasts in total, spread over the run
  std::size_t connect_concurrency = 256;  // connections awaiting WELCOME: keeps the accept queue short
  std::size_t periods = 3;              // idle periods the active connections must survive
  nanoseconds slack = milliseconds(100);  // allowed lateness beyond one tick
  std::optional<nanoseconds> hold;
  bool help = false;
};

std::string client_usage() {
  return "usage: keepalive_chat_load --port N [flags]\n"
         "Opens many connections to keepalive_chat_server and checks its idle timeouts.\n\n"
         "  --host ADDRESS            server address (default 127.0.0.1)\n"
         "  --port N                  server port (required)\n"
         "  --connections N           connections to open (default 10000)\n"
         "  --active N                of which chatting; the rest are silent (default 5%)\n"
         "  --messages N              broadcast messages sent in total (default 5)\n"
         "  --connect-concurrency N   connections awaiting WELCOME at once (default 256)\n"
         "  --periods N               idle periods the active connections must survive (default 3)\n"
         "  --slack D                 allowed lateness on top of one tick (default 100ms)\n"
         "  --hold D                  instead: keep every connection silent for D, expect none closed\n"
         "  --help                    print this and exit\n"
         "Exit status: 0 all checks passed, 1 a check failed, 2 bad flags.\n";
}

client_options parse_client_options(int argc, char** argv) {
  client_options o;
  bool port_given = false;
  for_each_flag(argc, argv, {"--help"}, [&](const std::string& flag, const std::string& value) {
    if (flag == "--help") o.help = true;
    else if (flag == "--host") o.host = value;
    else if (flag == "--port") { o.port = static_cast<unsigned short>(parse_count(flag, value, 1, 65535)); port_given = true; }
    else if (flag == "--connections") o.connections = parse_count(flag, value, 1, 1'000'000);
    else if (flag == "--active") { o.active = parse_count(flag, value, 0, 1'000'000); o.active_given = true; }
    else if (flag == "--messages") o.messages = parse_count(flag, value, 0, 1'000'000);
    else if (flag == "--connect-concurrency") o.connect_concurrency = parse_count(flag, value, 1, 100'000);
    else if (flag == "--periods") o.periods = parse_count(flag, value, 2, 1000);
    else if (flag == "--slack") o.slack = parse_duration(flag, value);
    else if (flag == "--hold") o.hold = parse_duration(flag, value);
    else throw usage_error(flag + ": unknown flag (see --help)");
  });
  if (!o.help && !port_given) throw usage_error("--port: required (the server prints it: \"listening on ADDRESS:PORT\")");
  if (!o.active_given) o.active = o.connections / 20;
  if (o.active > o.connections) throw usage_error("--active: must not exceed --connections");
  if (o.hold) o.active = 0;
  return o;
}

using stats_map = std::map<std::string, std::string>;

std::uint64_t stat(const stats_map& s, const std::string& key) {
  const auto it = s.find(key);
  return it == s.end() ? 0 : std::stoull(it->second);
}

// Connects, sends /stats, returns the key=value pairs of the STATS line. Bounded by `timeout`.
std::optional<stats_map> query_stats(const tcp::endpoint& server, nanoseconds timeout, std::string& error) {
  boost::asio::io_context io;
  tcp::socket socket(io);
  asio_wheel::wheel_timer deadline(io, timeout);
  std::string input;
  std::optional<stats_map> result;
  deadline.async_wait([&](const boost::system::error_code& ec) {
    if (ec) return;
    error = "no STATS line within " + format_duration(timeout);
    socket.close();
  });
  std::function<void()> read_line = [&] {
    boost::asio::async_read_until(
        socket, boost::asio::dynamic_buffer(input, 1 << 20), '\n',
        [&](const boost::system::error_code& ec, std::size_t n) {
          if (ec) {
            if (error.empty()) error = "reading /stats: " + ec.message();
            return (void)deadline.cancel();
          }
          const std::string line = input.substr(0, n - 1);
          input.erase(0, n);
          if (line.rfind("STATS ", 0) != 0) return read_line();  // WELCOME, history, PING
          stats_map fields;
          std::size_t pos = 6;
          while (pos < line.size()) {
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
    if (ec) {
      error = "connecting to " + server.address().to_string() + ":" + std::to_string(server.port()) + ": " + ec.message();
      return (void)deadline.cancel();
    }
    static const std::string request = "/stats\n";
    boost::asio::async_write(socket, boost::asio::buffer(request), [](const boost::system::error_code&, std::size_t) {});
    read_line();
  });
  io.run();  // ends: every path closes the socket and cancels the deadline
  return result;
}

struct connection {
  connection(boost::asio::io_context& io, std::size_t index, bool active)
      : index(index), active(active), socket(io), heartbeat(io) {}
  std::size_t index;
  bool active;
  tcp::socket socket;
  asio_wheel::wheel_timer heartbeat;  // active connections only
  std::string input;
  std::string output;   // the line being written (one at a time)
  bool writing = false;
  bool quit_pending = false;
  bool connected = false;
  bool opening = true;   // until WELCOME (or failure)
  bool closed = false;
  bool closed_before_finish = false;  // by the server, before the run's end
  clock_type::time_point connect_started, welcome_at, ping_at, bye_at;
  std::string bye_reason;
  std::size_t pongs = 0, broadcasts = 0;
  std::string error_line;  // first "ERR ..." received
};

class load_test {
 public:
  load_test(boost::asio::io_context& io, const client_options& options, tcp::endpoint server, nanoseconds idle,
            nanoseconds tick)
      : io_(io), options_(options), server_(server), idle_(idle), tick_(tick),
        end_timer_(io), hard_deadline_(io), chat_timer_(io) {
    const std::size_t stride = options.active == 0 ? 0 : options.connections / options.active;
    connections_.reserve(options.connections);
    for (std::size_t i = 0, active = 0; i < options.connections; ++i) {
      // Active connections spread evenly over the connect order.
      const bool is_active = stride != 0 && i % stride == 0 && active < options.active;
      active += is_active;
      connections_.push_back(std::make_unique<connection>(io, i, is_active));
    }
  }

  void run() {
    started_ = clock_type::now();
    // Whatever happens, stop after connecting (1 s per 1,000 is very generous),
    // the idle periods and 10 s more.
    const auto budget = std::chrono::seconds(10 + options_.connections / 1000) +
                        (options_.hold ? *options_.hold : idle_ * static_cast<long>(options_.periods));
    hard_deadline_.expires_after(budget);
    hard_deadline_.async_wait([this](const boost::system::error_code& ec) {
      if (ec) return;
      deadline_hit_ = true;
      for (auto& c : connections_) close(*c);
    });
    for (std::size_t i = 0; i < options_.connect_concurrency && i < connections_.size(); ++i) connect_next();
    io_.run();
  }

  // Prints the summary; returns true when every check passed.
  bool report(const stats_map* server_before, const stats_map* server_after, nanoseconds stats_interval) const;

 private:
  void connect_next() {
    if (next_to_connect_ >= connections_.size() || finishing_) return;
    connection& c = *connections_[next_to_connect_++];
    // Taken before the SYN leaves: the server's idle clock for this
    // connection cannot start earlier, so elapsed < idle proves an early close.
    c.connect_started = clock_type::now();
    c.socket.async_connect(server_, [this, &c](const boost::system::error_code& ec) { on_connected(c, ec); });
  }

  void on_connected(connection& c, const boost::system::error_code& ec) {
    if (ec) {
      ++connect_failures_;
      if (first_connect_error_.empty()) first_connect_error_ = ec.message();
      c.closed = true;
      ++closed_count_;
      opening_done(c);
      return finish_if_done();
    }
    c.connected = true;
    read_next(c);
    if (c.active) schedule_heartbeat(c);
  }

  // A connection counts as open when its WELCOME arrives, not when connect()
  // completes: the kernel completes handshakes on its own, and a connection
  // waiting in the accept queue has no idle clock yet. Pacing on WELCOME keeps
  // that queue (and so the error of measuring from connect start) short.
  void opening_done(connection& c) {
    if (!c.opening) return;
    c.opening = false;
    if (++opened_ < connections_.size()) return connect_next();
    if (!deadline_hit_) all_connected();  // after the deadline, there is nothing left to run
  }

  void all_connected() {
    all_connected_at_ = clock_type::now();
    // A progress line scripts can wait for (measure_idle.sh starts its clock here).
    std::printf("progress: %zu connections open after %.0f ms\n", connections_.size() - connect_failures_,
                std::chrono::duration<double, std::milli>(all_connected_at_ - started_).count());
    std::fflush(stdout);
    const auto phase = options_.hold ? *options_.hold : idle_ * static_cast<long>(options_.periods);
    end_timer_.expires_after(phase);
    end_timer_.async_wait([this](const boost::system::error_code& ec) {
      if (!ec) finish();
    });
    if (options_.messages > 0 && options_.active > 0 && !options_.hold) {
      chat_interval_ = phase / static_cast<long>(options_.messages + 1);
      chat_timer_.expires_after(chat_interval_);
      chat_timer_.async_wait([this](const boost::system::error_code& e) { on_chat_timer(e); });
    }
  }

  void on_chat_timer(const boost::system::error_code& ec) {
    if (ec || finishing_ || messages_sent_ >= options_.messages) return;
    // The next active connection that is open says something to the room.
    for (std::size_t tries = 0; tries < connections_.size(); ++tries) {
      connection& c = *connections_[next_speaker_++ % connections_.size()];
      if (!c.active || c.closed || c.writing) continue;
      send(c, "load message " + std::to_string(messages_sent_++) + " from connection " + std::to_string(c.index) + "\n");
      break;
    }
    chat_timer_.expires_after(chat_interval_);
    chat_timer_.async_wait([this](const boost::system::error_code& e) { on_chat_timer(e); });
  }

  void schedule_heartbeat(connection& c) {
    // Every idle/3: well inside idle/2, so an active connection never sees PING.
    c.heartbeat.expires_after(idle_ / 3);
    c.heartbeat.async_wait([this, &c](const boost::system::error_code& ec) {
      if (ec || c.closed || finishing_) return;
      if (!c.writing) send(c, "PING\n");
      schedule_heartbeat(c);
    });
  }

  void send(connection& c, std::string line) {
    c.writing = true;
    c.output = std::move(line);
    boost::asio::async_write(c.socket, boost::asio::buffer(c.output),
                             [this, &c](const boost::system::error_code& ec, std::size_t) {
                               c.writing = false;
                               if (ec) return;  // the read side sees the close
                               if (c.quit_pending) {
                                 c.quit_pending = false;
                                 send(c, "/quit\n");
                               }
                             });
  }

  void read_next(connection& c) {
    boost::asio::async_read_until(c.socket, boost::asio::dynamic_buffer(c.input, 1 << 20), '\n',
                                  [this, &c](const boost::system::error_code& ec, std::size_t n) {
                                    if (ec) {
                                      // The server closed (or reset) the connection.
                                      if (!finishing_) c.closed_before_finish = true;
                                      return close(c);
                                    }
                                    on_line(c, std::string_view(c.input).substr(0, n - 1));
                                    c.input.erase(0, n);
                                    if (!c.closed) read_next(c);
                                  });
  }

  void on_line(connection& c, std::string_view line) {
    const auto now = clock_type::now();
    if (c.opening && line.rfind("WELCOME ", 0) == 0) {
      c.welcome_at = now;
      opening_done(c);
    } else if (line == "PING") {
      if (c.ping_at == clock_type::time_point()) c.ping_at = now;
      if (c.active && !c.writing && !finishing_) send(c, "PONG\n");
    } else if (line == "PONG") {
      ++c.pongs;
    } else if (line.rfind("BYE ", 0) == 0) {
      if (c.bye_at == clock_type::time_point()) {
        c.bye_at = now;
        c.bye_reason = std::string(line.substr(4));
      }
    } else if (line.rfind("ERR ", 0) == 0) {
      if (c.error_line.empty()) c.error_line = std::string(line);
    } else if (line.find(": ") != std::string_view::npos) {
      ++c.broadcasts;
    }
  }

  void close(connection& c) {
    if (c.closed) return;
    c.closed = true;
    ++closed_count_;
    boost::system::error_code ignored;
    c.socket.close(ignored);
    c.heartbeat.cancel();
    opening_done(c);
    finish_if_done();
  }

  void finish() {
    finishing_ = true;
    finished_at_ = clock_type::now();
    chat_timer_.cancel();
    for (auto& c : connections_) {
      if (c->closed) continue;
      survived_phase_ += 1;
      if (c->active) {
        // Leave the polite way; the server answers "BYE quit" and closes.
        c->heartbeat.cancel();
        if (c->writing) c->quit_pending = true;
        else send(*c, "/quit\n");
      } else {
        close(*c);  // silent and still open: in idle mode that is a failed check
      }
    }
    finish_if_done();
  }

  void finish_if_done() {
    if (closed_count_ == connections_.size() && opened_ == connections_.size()) {
      end_timer_.cancel();
      hard_deadline_.cancel();
      chat_timer_.cancel();
    }
  }

  boost::asio::io_context& io_;
  const client_options options_;
  const tcp::endpoint server_;
  const nanoseconds idle_, tick_;
  std::vector<std::unique_ptr<connection>> connections_;
  asio_wheel::wheel_timer end_timer_, hard_deadline_, chat_timer_;
  nanoseconds chat_interval_{};
  std::size_t next_to_connect_ = 0, opened_ = 0, connect_failures_ = 0, closed_count_ = 0;
  std::size_t messages_sent_ = 0, next_speaker_ = 0, survived_phase_ = 0;
  std::string first_connect_error_;
  bool finishing_ = false, deadline_hit_ = false;
  clock_type::time_point started_, all_connected_at_, finished_at_;
};

double ms(nanoseconds d) { return std::chrono::duration<double, std::milli>(d).count(); }

// This process's CPU time and time spent runnable but waiting for a CPU
// (Linux schedstat, nanoseconds). Every timestamp above is taken when our
// handler runs, so on a busy machine the wait is part of the lateness we see.
std::optional<std::pair<double, double>> own_cpu_and_runqueue_seconds() {
  std::FILE* f = std::fopen("/proc/self/schedstat", "r");
  if (!f) return std::nullopt;
  unsigned long long on_cpu = 0, waiting = 0;
  const int fields = std::fscanf(f, "%llu %llu", &on_cpu, &waiting);
  std::fclose(f);
  if (fields != 2) return std::nullopt;
  return std::make_pair(on_cpu / 1e9, waiting / 1e9);
}

nanoseconds percentile(std::vector<nanoseconds> sorted, double p) {
  if (sorted.empty()) return nanoseconds(0);
  const std::size_t rank = static_cast<std::size_t>(p * static_cast<double>(sorted.size() - 1) + 0.5);
  return sorted[std::min(rank, sorted.size() - 1)];
}

bool load_test::report(const stats_map* before, const stats_map* after, nanoseconds stats_interval) const {
  std::size_t active = 0, silent = 0, kicked = 0, kicked_early = 0, kicked_late = 0, silent_not_kicked = 0;
  std::size_t ping_missing = 0, ping_early = 0, active_survived = 0, active_lost = 0, errors = 0;
  std::size_t hold_survived = 0, hold_lost = 0, active_unanswered = 0, pongs = 0, broadcasts = 0;
  std::vector<nanoseconds> close_lateness, ping_lateness, welcome_latency;
  std::string first_problem;
  const auto note = [&](const std::string& problem) {
    if (first_problem.empty()) first_problem = problem;
  };
  const nanoseconds allowed = tick_ + options_.slack;
  for (const auto& c : connections_) {
    if (!c->connected) continue;
    if (c->welcome_at != clock_type::time_point()) welcome_latency.push_back(c->welcome_at - c->connect_started);
    pongs += c->pongs;
    broadcasts += c->broadcasts;
    if (!c->error_line.empty()) {
      ++errors;
      note("connection " + std::to_string(c->index) + " got \"" + c->error_line + "\"");
    }
    if (options_.hold) {
      // Every connection must still be open when the hold ends.
      if (!c->closed_before_finish && !deadline_hit_) ++hold_survived;
      else { ++hold_lost; note("connection " + std::to_string(c->index) + " closed during the hold: BYE " + c->bye_reason); }
      continue;
    }
    if (c->active) {
      ++active;
      if (c->pongs == 0) {
        ++active_unanswered;
        note("active connection " + std::to_string(c->index) + " never got a PONG for its heartbeats");
      }
      if (c->bye_reason == "quit") ++active_survived;
      else {
        ++active_lost;
        note("active connection " + std::to_string(c->index) + " ended with \"BYE " + c->bye_reason + "\"");
      }
      continue;
    }
    ++silent;
    if (c->bye_reason != "idle-timeout") {
      ++silent_not_kicked;
      note("silent connection " + std::to_string(c->index) + " was not closed for idleness (BYE \"" + c->bye_reason + "\")");
      continue;
    }
    ++kicked;
    const nanoseconds lateness = c->bye_at - c->connect_started - idle_;
    close_lateness.push_back(lateness);
    if (lateness < nanoseconds(0)) {
      ++kicked_early;
      char text[96];
      std::snprintf(text, sizeof text, "silent connection %zu closed %.1f ms early", c->index, ms(-lateness));
      note(text);
    }
    if (lateness > allowed) ++kicked_late;
    if (c->ping_at == clock_type::time_point() || c->ping_at > c->bye_at) {
      ++ping_missing;
      note("silent connection " + std::to_string(c->index) + " got no PING before its BYE");
    } else {
      const nanoseconds ping_late = c->ping_at - c->connect_started - idle_ / 2;
      ping_lateness.push_back(ping_late);
      if (ping_late < nanoseconds(0)) ++ping_early;
    }
  }
  std::sort(close_lateness.begin(), close_lateness.end());
  std::sort(welcome_latency.begin(), welcome_latency.end());
  std::sort(ping_lateness.begin(), ping_lateness.end());
  if (kicked_late > 0) note(std::to_string(kicked_late) + " silent connection(s) closed later than idle + tick + slack");

  const bool passed = connect_failures_ == 0 && !deadline_hit_ && kicked_early == 0 && kicked_late == 0 &&
                      silent_not_kicked == 0 && ping_missing == 0 && ping_early == 0 && active_lost == 0 &&
                      errors == 0 && hold_lost == 0 && active_unanswered == 0;
  std::printf("keepalive_chat_load summary\n");
  std::printf("  server idle timeout %s, tick %s, allowed lateness tick + %s = %.1f ms\n",
              format_duration(idle_).c_str(), format_duration(tick_).c_str(), format_duration(options_.slack).c_str(),
              ms(allowed));
  std::printf("  connections: %zu opened in %.0f ms (%zu at a time), %zu failed%s%s\n",
              connections_.size() - connect_failures_, ms(all_connected_at_ - started_), options_.connect_concurrency,
              connect_failures_, first_connect_error_.empty() ? "" : ": ", first_connect_error_.c_str());
  std::printf("  connect start to WELCOME (the part of the lateness below spent being accepted): p50 %.1f ms, p99 %.1f ms, max %.1f ms\n",
              ms(percentile(welcome_latency, 0.50)), ms(percentile(welcome_latency, 0.99)),
              welcome_latency.empty() ? 0.0 : ms(welcome_latency.back()));
  if (options_.hold) {
    std::printf("  hold: %zu connections silent for %s; still open at the end: %zu, closed early: %zu\n",
                hold_survived + hold_lost, format_duration(*options_.hold).c_str(), hold_survived, hold_lost);
  } else {
    std::printf("  kicked: %zu of %zu silent connections closed with \"BYE idle-timeout\" (early %zu, late %zu, not kicked %zu)\n",
                kicked, silent, kicked_early, kicked_late, silent_not_kicked);
    std::printf("  survived: %zu of %zu active connections chatted through %zu idle periods and left with /quit\n",
                active_survived, active, options_.periods);
    std::printf("  close lateness after idle (client-observed, from connect start): p50 %.1f ms, p99 %.1f ms, max %.1f ms\n",
                ms(percentile(close_lateness, 0.50)), ms(percentile(close_lateness, 0.99)),
                close_lateness.empty() ? 0.0 : ms(close_lateness.back()));
    std::printf("  PING lateness after idle/2: p50 %.1f ms, p99 %.1f ms, max %.1f ms (missing %zu, early %zu)\n",
                ms(percentile(ping_lateness, 0.50)), ms(percentile(ping_lateness, 0.99)),
                ping_lateness.empty() ? 0.0 : ms(ping_lateness.back()), ping_missing, ping_early);
    std::printf("  broadcast messages sent: %zu, lines received from them: %zu; heartbeats answered with PONG: %zu\n",
                messages_sent_, broadcasts, pongs);
  }
  if (after) {
    const auto delta = [&](const char* key) { return stat(*after, key) - (before ? stat(*before, key) : 0); };
    const double seconds = std::chrono::duration<double>(stats_interval).count();
    std::printf("  server's own view of its idle closes (handler run - last input - idle): p50 <= %llu ms, p99 <= %llu ms, max %.1f ms\n",
                (unsigned long long)stat(*after, "idle_close_late_p50_ms"), (unsigned long long)stat(*after, "idle_close_late_p99_ms"),
                double(stat(*after, "idle_close_late_max_us")) / 1000.0);
    std::printf("  server: kicked_idle %llu, kicked_write_timeout %llu, kicked_queue_full %llu, refused %llu\n",
                (unsigned long long)stat(*after, "kicked_idle"), (unsigned long long)stat(*after, "kicked_write_timeout"),
                (unsigned long long)stat(*after, "kicked_queue_full"), (unsigned long long)stat(*after, "refused"));
    std::printf("  server wheel: drive_wakeups +%llu (%.1f/s over %.1f s), empty_wakeups +%llu, waits_expired +%llu,\n"
                "                waits_cancelled +%llu, lazy_refilings +%llu, round_revisits +%llu, max_lateness %.3f ms\n",
                (unsigned long long)delta("drive_wakeups"), seconds > 0 ? double(delta("drive_wakeups")) / seconds : 0.0,
                seconds, (unsigned long long)delta("empty_wakeups"), (unsigned long long)delta("waits_expired"),
                (unsigned long long)delta("waits_cancelled"), (unsigned long long)delta("lazy_refilings"),
                (unsigned long long)delta("round_revisits"), double(stat(*after, "max_lateness_us")) / 1000.0);
  } else {
    std::printf("  server stats: unavailable\n");
  }
  if (const auto own = own_cpu_and_runqueue_seconds())
    std::printf("  load client: used %.2f s of CPU and waited %.2f s for one (runqueue wait)\n", own->first, own->second);
  if (deadline_hit_) note("the run did not finish before its deadline");
  std::printf("result: %s%s%s\n", passed ? "PASS" : "FAIL", first_problem.empty() ? "" : " (first problem: ",
              first_problem.empty() ? "" : (first_problem + ")").c_str());
  return passed;
}

}  // namespace

int main(int argc, char** argv) {
  client_options options;
  try {
    options = parse_client_options(argc, argv);
  } catch (const usage_error& e) {
    std::cerr << "keepalive_chat_load: " << e.what() << "\n";
    return 2;
  }
  if (options.help) {
    std::cout << client_usage();
    return 0;
  }
  const std::uint64_t open_files = raise_open_files_limit();
  if (open_files < options.connections + 32) {
    std::cerr << "keepalive_chat_load: --connections: " << options.connections << " needs about "
              << options.connections + 32 << " open files, the limit is " << open_files
              << " (raise it with ulimit -n)\n";
    return 2;
  }
  boost::system::error_code ec;
  const auto address = boost::asio::ip::make_address(options.host, ec);
  if (ec) {
    std::cerr << "keepalive_chat_load: --host: expected an IP address, got \"" << options.host << "\"\n";
    return 2;
  }
  const tcp::endpoint server(address, options.port);

  std::string error;
  const auto before = query_stats(server, std::chrono::seconds(5), error);
  if (!before) {
    std::cerr << "keepalive_chat_load: " << error << "\n";
    return 1;
  }
  const nanoseconds idle = milliseconds(stat(*before, "idle_timeout_ms"));
  const nanoseconds tick = std::chrono::microseconds(stat(*before, "tick_us"));
  if (options.hold && *options.hold + std::chrono::seconds(10) > idle) {
    std::cerr << "keepalive_chat_load: --hold: the server's idle timeout (" << format_duration(idle)
              << ") must exceed the hold by 10s, or the connections are closed during it\n";
    return 2;
  }
  const auto stats_from = clock_type::now();

  boost::asio::io_context io(1);
  load_test test(io, options, server, idle, tick);
  test.run();

  const auto after = query_stats(server, std::chrono::seconds(5), error);
  if (!after) std::cerr << "keepalive_chat_load: final /stats: " << error << "\n";
  const bool passed = test.report(&*before, after ? &*after : nullptr, clock_type::now() - stats_from);
  return passed && after ? 0 : 1;
}
