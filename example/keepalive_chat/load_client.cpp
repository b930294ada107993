// keepalive_chat_load: the load client of the keepalive chat example. It opens
// --connections connections to the server; --active of them chat (a heartbeat
// every idle/3, now and then a broadcast message), the rest stay silent. It
// checks the server's idle policy from the outside:
//   - every silent connection gets PING at idle/2 and "BYE idle-timeout" within
//     [idle, idle + tick + tolerance + slack] of the moment we started connecting
//     it (the server's clock for it cannot start earlier, so "early" is a real
//     bug; tolerance is the server's --idle-tolerance times idle, 0 without one),
//   - no active connection is closed; each ends with /quit after --periods idle periods.
// It prints a summary (connections, kicked, survived, lateness p50/p99/max, the
// server's wheel stats from /stats) and exits 1 if any check failed, 2 on bad flags.
// With --hold D every connection stays silent for D and must all survive:
// measure_idle.sh uses it to measure server memory and CPU with N idle connections.
// With --churn D it keeps --connections open for D, each replaced by a new one
// as soon as it ends, and checks every reply (see churn_test): soak.sh uses it.
// Connections are opened at most --connect-concurrency at a time, counting one
// as open when its WELCOME arrives, so none waits long in the accept queue.
// Its own timers (heartbeats, phase ends, deadlines) are wheel timers too.
#include "options.hpp"

#include <asio_wheel.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/write.hpp>

#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstdio>
#include <deque>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <unordered_set>
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
  // Churn mode, all used only with --churn.
  std::optional<nanoseconds> churn;
  nanoseconds min_lifetime = std::chrono::seconds(1), max_lifetime = std::chrono::seconds(20);
  nanoseconds broadcast_interval = std::chrono::seconds(1);
  nanoseconds report_interval = std::chrono::seconds(10);
  std::size_t source_addresses = 0;     // 0: the kernel picks the source address
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
         "  --churn D                 instead: keep --connections open for D, each replaced when it ends\n"
         "  --min-lifetime D          churn: shortest lifetime of a connection after WELCOME (default 1s)\n"
         "  --max-lifetime D          churn: longest lifetime (default 20s)\n"
         "  --broadcast-interval D    churn: one broadcast message per D (default 1s)\n"
         "  --report-every D          churn: print a progress line every D (default 10s)\n"
         "  --source-addresses N      churn: bind connections to 127.0.0.2 .. 127.0.0.N+1 in turn (default 0: don't bind)\n"
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
    else if (flag == "--churn") o.churn = parse_duration(flag, value);
    else if (flag == "--min-lifetime") o.min_lifetime = parse_duration(flag, value);
    else if (flag == "--max-lifetime") o.max_lifetime = parse_duration(flag, value);
    else if (flag == "--broadcast-interval") o.broadcast_interval = parse_duration(flag, value);
    else if (flag == "--report-every") o.report_interval = parse_duration(flag, value);
    else if (flag == "--source-addresses") o.source_addresses = parse_count(flag, value, 0, 200);
    else throw usage_error(flag + ": unknown flag (see --help)");
  });
  if (!o.help && !port_given) throw usage_error("--port: required (the server prints it: \"listening on ADDRESS:PORT\")");
  if (!o.active_given) o.active = o.connections / 20;
  if (o.active > o.connections) throw usage_error("--active: must not exceed --connections");
  if (o.hold) o.active = 0;
  if (o.hold && o.churn) throw usage_error("--churn: cannot be combined with --hold");
  if (o.min_lifetime.count() <= 0 || o.min_lifetime > o.max_lifetime)
    throw usage_error("--min-lifetime: must be greater than 0 and at most --max-lifetime");
  if (o.broadcast_interval.count() <= 0) throw usage_error("--broadcast-interval: must be greater than 0");
  if (o.report_interval.count() <= 0) throw usage_error("--report-every: must be greater than 0");
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
            nanoseconds tick, nanoseconds tolerance)
      : io_(io), options_(options), server_(server), idle_(idle), tick_(tick), tolerance_(tolerance),
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
    const auto budget = std::chrono::seconds(10 + options_.connections / 1000) + phase();
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
  // How late after idle a silent connection's close may come.
  nanoseconds allowed_lateness() const { return tick_ + tolerance_ + options_.slack; }

  // From the last connection on: --hold, or the idle periods the active connections must
  // survive, and never less than the latest close allowed for the last silent connection
  // (with a large --idle-tolerance, two periods may not be enough).
  nanoseconds phase() const {
    if (options_.hold) return *options_.hold;
    return std::max(idle_ * static_cast<long>(options_.periods), idle_ + allowed_lateness());
  }

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
    const auto phase = this->phase();
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
  const nanoseconds idle_, tick_, tolerance_;
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

// The server's counters and wheel stats from /stats (deltas over the run where
// that is what matters), then this process's CPU: the end of both summaries.
void print_server_and_own_stats(const stats_map* before, const stats_map* after, nanoseconds stats_interval) {
  if (after) {
    const auto delta = [&](const char* key) { return stat(*after, key) - (before ? stat(*before, key) : 0); };
    const double seconds = std::chrono::duration<double>(stats_interval).count();
    std::printf("  server's own view of its idle closes (handler run - last input - idle): p50 <= %llu ms, p99 <= %llu ms, max %.1f ms\n",
                (unsigned long long)stat(*after, "idle_close_late_p50_ms"), (unsigned long long)stat(*after, "idle_close_late_p99_ms"),
                double(stat(*after, "idle_close_late_max_us")) / 1000.0);
    std::printf("  server: kicked_idle %llu, kicked_write_timeout %llu, kicked_queue_full %llu, refused %llu\n",
                (unsigned long long)stat(*after, "kicked_idle"), (unsigned long long)stat(*after, "kicked_write_timeout"),
                (unsigned long long)stat(*after, "kicked_queue_full"), (unsigned long long)stat(*after, "refused"));
    std::printf("  server wheel: drive_wakeups +%llu (%.1f/s over %.1f s), wakeups_saved +%llu, empty_wakeups +%llu,\n"
                "                waits_expired +%llu, waits_cancelled +%llu, lazy_refilings +%llu, round_revisits +%llu,\n"
                "                max_lateness %.3f ms\n",
                (unsigned long long)delta("drive_wakeups"), seconds > 0 ? double(delta("drive_wakeups")) / seconds : 0.0,
                seconds, (unsigned long long)delta("wakeups_saved"), (unsigned long long)delta("empty_wakeups"),
                (unsigned long long)delta("waits_expired"),
                (unsigned long long)delta("waits_cancelled"), (unsigned long long)delta("lazy_refilings"),
                (unsigned long long)delta("round_revisits"), double(stat(*after, "max_lateness_us")) / 1000.0);
  } else {
    std::printf("  server stats: unavailable\n");
  }
  if (const auto own = own_cpu_and_runqueue_seconds())
    std::printf("  load client: used %.2f s of CPU and waited %.2f s for one (runqueue wait)\n", own->first, own->second);
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
  const nanoseconds allowed = allowed_lateness();
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
  if (kicked_late > 0)
    note(std::to_string(kicked_late) + " silent connection(s) closed later than idle + tick + tolerance + slack");

  const bool passed = connect_failures_ == 0 && !deadline_hit_ && kicked_early == 0 && kicked_late == 0 &&
                      silent_not_kicked == 0 && ping_missing == 0 && ping_early == 0 && active_lost == 0 &&
                      errors == 0 && hold_lost == 0 && active_unanswered == 0;
  std::printf("keepalive_chat_load summary\n");
  if (tolerance_.count() == 0)
    std::printf("  server idle timeout %s, tick %s, allowed lateness tick + %s = %.1f ms\n",
                format_duration(idle_).c_str(), format_duration(tick_).c_str(), format_duration(options_.slack).c_str(),
                ms(allowed));
  else
    std::printf("  server idle timeout %s, tick %s, idle tolerance %.1f ms, allowed lateness tick + tolerance + %s = %.1f ms\n",
                format_duration(idle_).c_str(), format_duration(tick_).c_str(), ms(tolerance_),
                format_duration(options_.slack).c_str(), ms(allowed));
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
  print_server_and_own_stats(before, after, stats_interval);
  if (deadline_hit_) note("the run did not finish before its deadline");
  std::printf("result: %s%s%s\n", passed ? "PASS" : "FAIL", first_problem.empty() ? "" : " (first problem: ",
              first_problem.empty() ? "" : (first_problem + ")").c_str());
  return passed;
}

// ---------------------------------------------------------------- churn mode (--churn D)
//
// Keeps --connections connections open for D, and replaces each one the moment
// it ends, so the server accepts and closes thousands of connections a minute
// while its connection count stays flat (soak.sh samples its memory and
// descriptors meanwhile). At most --connect-concurrency wait for their WELCOME
// at once. Each connection lives a random time in [--min-lifetime,
// --max-lifetime] from its WELCOME and plays one role:
//   talker_quit    a line every idle/6 to idle/3 (PING, an empty line, /nick,
//                  rarely /who, or the broadcast message when one is due), then /quit
//   talker_close   the same, then closes its socket without a word
//   answerer       says nothing but answers every PING with PONG; then /quit or close
//   silent         perhaps a /nick, then nothing: must get PING after idle/2 and
//                  "BYE idle-timeout" after idle, and then the server's close
// Every reply is matched in order against the line that asked for it, the
// history after WELCOME and every broadcast must have the form we sent, and
// anything else (an ERR, an unknown line, a close without BYE, an idle kick of
// a connection that was not silent, a kick or PING before its time) is a
// protocol error. At the end every connection leaves with /quit.
enum class churn_role { talker_quit, talker_close, answerer, silent };

struct expected_reply {
  std::string text;  // the whole reply, or its start when `prefix`
  bool prefix;
  clock_type::time_point sent_at;  // when the line asking for it was queued
};

struct churn_connection {
  churn_connection(boost::asio::io_context& io, churn_role role)
      : role(role), socket(io), chat_timer(io), deadline(io) {}
  const churn_role role;
  tcp::socket socket;
  asio_wheel::wheel_timer chat_timer;  // the next line, or the end of the lifetime
  asio_wheel::wheel_timer deadline;    // bounds every wait for the server: WELCOME, the idle kick, the close after BYE
  std::string input;
  std::string outbox, in_flight;       // lines queued while a write is in flight, and that write's bytes
  bool writing = false;
  std::deque<expected_reply> expected;
  std::size_t history_left = 0;        // history lines still due after WELCOME
  bool welcomed = false, quit_sent = false, ping_seen = false, ended = false;
  std::string bye_reason;              // empty until the server's BYE
  clock_type::time_point connect_started, end_of_life, last_sent;
  // The latest moment the server has provably seen input: the connect start, or
  // the sending of the last line whose reply has arrived (replies come in order,
  // so the server had read it before it sent anything that follows the reply).
  // A PING before this + idle/2 or an idle kick before this + idle is early.
  clock_type::time_point input_seen_by;
};

class churn_test {
 public:
  churn_test(boost::asio::io_context& io, const client_options& options, tcp::endpoint server, nanoseconds idle,
             nanoseconds tick, nanoseconds tolerance)
      : io_(io), options_(options), server_(server), idle_(idle), tick_(tick), tolerance_(tolerance),
        end_timer_(io), hard_deadline_(io), broadcast_timer_(io), report_timer_(io), random_(std::random_device{}()) {}

  void run() {
    started_ = clock_type::now();
    end_timer_.expires_after(*options_.churn);
    end_timer_.async_wait([this](const boost::system::error_code& ec) {
      if (!ec) finish();
    });
    // Whatever happens, stop: the ramp-up (1 s per 1,000 is very generous), the churn, the goodbyes.
    hard_deadline_.expires_after(*options_.churn + std::chrono::seconds(30 + options_.connections / 1000));
    hard_deadline_.async_wait([this](const boost::system::error_code& ec) {
      if (ec) return;
      deadline_hit_ = finishing_ = true;
      std::vector<connection_ptr> all(live_.begin(), live_.end());
      for (auto& c : all) end(c);
      stop_if_done();
    });
    arm_broadcast_timer();
    arm_report_timer();
    top_up();
    io_.run();
  }

  bool report(const stats_map* before, const stats_map* after, nanoseconds stats_interval) const;

 private:
  using connection_ptr = std::shared_ptr<churn_connection>;

  // Starts connections until --connections are live, at most
  // --connect-concurrency of them waiting for their WELCOME.
  void top_up() {
    while (!finishing_ && live_.size() < options_.connections && opening_ < options_.connect_concurrency)
      start_connection();
  }

  void start_connection() {
    // Roles by weight: 30 % talker_quit, 25 % talker_close, 25 % answerer, 20 % silent.
    const int draw = std::uniform_int_distribution<int>(0, 99)(random_);
    const churn_role role = draw < 30 ? churn_role::talker_quit
                            : draw < 55 ? churn_role::talker_close
                            : draw < 80 ? churn_role::answerer
                                        : churn_role::silent;
    auto c = std::make_shared<churn_connection>(io_, role);
    live_.insert(c);
    ++opening_;
    ++opened_;
    c->connect_started = c->last_sent = c->input_seen_by = clock_type::now();
    c->deadline.expires_after(std::chrono::seconds(10));
    c->deadline.async_wait([this, c](const boost::system::error_code& ec) {
      if (!ec && !c->ended) problem(c, "no WELCOME within 10s of connecting");
    });
    if (options_.source_addresses > 0) {
      // Each source address has its own ephemeral ports for the 4-tuple, so N
      // addresses allow N times as many connections in TIME_WAIT. Binding with
      // IP_BIND_ADDRESS_NO_PORT leaves the port to connect(), which picks it
      // per 4-tuple instead of reserving it for the address alone.
      const auto last_byte = static_cast<unsigned char>(2 + next_source_++ % options_.source_addresses);
      const boost::asio::ip::address_v4 source(boost::asio::ip::address_v4::bytes_type{127, 0, 0, last_byte});
      boost::system::error_code ec;
      c->socket.open(tcp::v4(), ec);
      const int on = 1;
      if (!ec && ::setsockopt(c->socket.native_handle(), IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &on, sizeof on) != 0)
        ec = boost::system::error_code(errno, boost::system::system_category());
      if (!ec) c->socket.bind(tcp::endpoint(source, 0), ec);
      if (ec) return connect_failed(c, "binding to " + source.to_string() + ": " + ec.message());
    }
    c->socket.async_connect(server_, [this, c](const boost::system::error_code& ec) {
      if (c->ended) return;
      if (ec) return connect_failed(c, ec.message());
      read_more(c);
    });
  }

  void connect_failed(const connection_ptr& c, const std::string& error) {
    ++connect_failures_;
    problem(c, "connect: " + error);
  }

  void read_more(const connection_ptr& c) {
    boost::asio::async_read_until(
        c->socket, boost::asio::dynamic_buffer(c->input, 1 << 20), '\n',
        [this, c](const boost::system::error_code& ec, std::size_t) {
          if (c->ended) return;
          if (ec) return on_server_closed(c, ec);
          // Every complete line in the buffer, not only the first one read_until found.
          std::size_t begin = 0;
          for (std::size_t newline; !c->ended && (newline = c->input.find('\n', begin)) != std::string::npos;
               begin = newline + 1)
            on_line(c, std::string_view(c->input).substr(begin, newline - begin));
          if (c->ended) return;
          c->input.erase(0, begin);
          read_more(c);
        });
  }

  void on_line(const connection_ptr& c, std::string_view line) {
    const auto now = clock_type::now();
    const auto starts_with = [&](std::string_view prefix) { return line.substr(0, prefix.size()) == prefix; };
    if (!c->bye_reason.empty()) return problem(c, "a line after BYE: \"" + std::string(line) + "\"");
    if (!c->welcomed) {
      if (!starts_with("WELCOME ")) return problem(c, "expected WELCOME, got \"" + std::string(line) + "\"");
      return on_welcome(c, line, now);
    }
    if (c->history_left > 0) {
      --c->history_left;
      ++history_lines_;
      if (!is_soak_message(line)) return problem(c, "a history line not sent by us: \"" + std::string(line) + "\"");
      return;
    }
    if (line == "PING") return on_ping(c, now);
    if (starts_with("BYE ")) return on_bye(c, line.substr(4), now);
    if (starts_with("ERR ")) return problem(c, "got \"" + std::string(line) + "\"");
    if (!c->expected.empty()) {
      const expected_reply& e = c->expected.front();
      if (line == e.text || (e.prefix && starts_with(e.text))) {
        c->input_seen_by = e.sent_at;
        c->expected.pop_front();
        ++replies_checked_;
        return;
      }
    }
    if (line.find(": ") != std::string_view::npos) {
      ++broadcasts_received_;
      if (!is_soak_message(line)) return problem(c, "a broadcast not sent by us: \"" + std::string(line) + "\"");
      return;
    }
    problem(c, "unexpected line \"" + std::string(line) + "\"" +
                   (c->expected.empty() ? "" : " (waiting for \"" + c->expected.front().text + "\")"));
  }

  // "NAME: soak message N", the only text anybody broadcasts to this server.
  static bool is_soak_message(std::string_view line) {
    const std::size_t colon = line.find(": ");
    return colon != std::string_view::npos && colon > 0 && line.substr(colon + 2, 13) == "soak message ";
  }

  void on_welcome(const connection_ptr& c, std::string_view line, clock_type::time_point now) {
    c->welcomed = true;
    --opening_;
    welcome_latency_.push_back(now - c->connect_started);
    const std::size_t history = line.find(" history=");
    if (history == std::string_view::npos) return problem(c, "WELCOME without history=: \"" + std::string(line) + "\"");
    c->history_left = std::stoul(std::string(line.substr(history + 9)));
    c->deadline.cancel();
    top_up();
    if (finishing_) return quit(c);
    const nanoseconds lifetime = std::uniform_int_distribution<nanoseconds::rep>(
        options_.min_lifetime.count(), options_.max_lifetime.count())(random_) * nanoseconds(1);
    c->end_of_life = now + lifetime;
    switch (c->role) {
      case churn_role::talker_quit:
      case churn_role::talker_close:
        return schedule_chat(c);
      case churn_role::answerer:
        return wait_for_end_of_life(c, c->end_of_life);
      case churn_role::silent:
        if (std::uniform_int_distribution<int>(0, 1)(random_) == 0) say_nick(c);
        // Kicks are checked on arrival; this only bounds the wait for one that never comes.
        c->deadline.expires_at(c->last_sent + idle_ + tolerance_ + std::chrono::seconds(10));
        c->deadline.async_wait([this, c](const boost::system::error_code& ec) {
          if (!ec && !c->ended) problem(c, "silent connection not closed within idle + tolerance + 10s");
        });
        return;
    }
  }

  void schedule_chat(const connection_ptr& c) {
    // Every idle/6 to idle/3: a talker never sees a PING, let alone a kick.
    const auto next_line = clock_type::now() + std::uniform_int_distribution<nanoseconds::rep>(
                                                   (idle_ / 6).count(), (idle_ / 3).count())(random_) * nanoseconds(1);
    if (next_line >= c->end_of_life) return wait_for_end_of_life(c, c->end_of_life);
    c->chat_timer.expires_at(next_line);
    c->chat_timer.async_wait([this, c](const boost::system::error_code& ec) {
      if (ec || c->ended || finishing_) return;
      say_something(c);
      schedule_chat(c);
    });
  }

  void say_something(const connection_ptr& c) {
    if (broadcast_due_) {
      broadcast_due_ = false;
      return say(c, "soak message " + std::to_string(broadcasts_sent_++), std::nullopt);
    }
    // /who sorts every member's name on the server: with 10,000 members that
    // costs about a millisecond, so it stays rare.
    const int draw = std::uniform_int_distribution<int>(0, 99)(random_);
    if (draw < 55) say(c, "PING", expected_reply{"PONG", false, {}});
    else if (draw < 80) say(c, "", expected_reply{"PONG", false, {}});
    else if (draw < 99) say_nick(c);
    else say(c, "/who", expected_reply{"WHO count=", true, {}});
  }

  void say_nick(const connection_ptr& c) {
    const std::string name = "soak" + std::to_string(next_nick_++);  // unique: the server must accept it
    say(c, "/nick " + name, expected_reply{"OK nick " + name, false, {}});
  }

  void wait_for_end_of_life(const connection_ptr& c, clock_type::time_point when) {
    c->chat_timer.expires_at(when);
    c->chat_timer.async_wait([this, c](const boost::system::error_code& ec) {
      if (ec || c->ended || finishing_) return;
      const bool leave_politely = c->role == churn_role::talker_quit ||
                                  (c->role == churn_role::answerer && std::uniform_int_distribution<int>(0, 1)(random_) == 0);
      if (leave_politely) return quit(c);
      ++closed_by_client_;
      end(c);
    });
  }

  void on_ping(const connection_ptr& c, clock_type::time_point now) {
    ++pings_received_;
    if (now < c->input_seen_by + idle_ / 2)
      return problem(c, "PING " + format_ms(c->input_seen_by + idle_ / 2 - now) + " before idle/2");
    if (c->role == churn_role::silent) {
      if (!c->ping_seen) ping_lateness_.push_back(now - (c->input_seen_by + idle_ / 2));
      c->ping_seen = true;
      return;
    }
    if (!c->quit_sent) say(c, "PONG", std::nullopt);
  }

  void on_bye(const connection_ptr& c, std::string_view reason, clock_type::time_point now) {
    c->bye_reason = std::string(reason);
    if (reason == "quit") {
      if (!c->quit_sent) return problem(c, "\"BYE quit\" without /quit");
      if (!c->expected.empty()) return problem(c, "\"BYE quit\" while waiting for \"" + c->expected.front().text + "\"");
    } else if (reason == "idle-timeout") {
      if (now < c->input_seen_by + idle_)
        return problem(c, "kicked for idleness " + format_ms(c->input_seen_by + idle_ - now) + " early");
      // At the end every connection says /quit, so a silent one may be kicked while it does.
      if (c->role != churn_role::silent)
        return problem(c, "kicked for idleness although it talked (last line " + format_ms(now - c->last_sent) + " before)");
      if (!c->ping_seen) return problem(c, "kicked for idleness without a PING first");
      kick_lateness_.push_back(now - (c->input_seen_by + idle_));
    } else {
      return problem(c, "unexpected \"BYE " + c->bye_reason + "\"");
    }
    // The server closes right after its BYE; bound the wait for that.
    c->deadline.expires_after(std::chrono::seconds(10));
    c->deadline.async_wait([this, c](const boost::system::error_code& ec) {
      if (!ec && !c->ended) problem(c, "not closed within 10s of \"BYE " + c->bye_reason + "\"");
    });
  }

  void on_server_closed(const connection_ptr& c, const boost::system::error_code& ec) {
    if (c->bye_reason.empty())
      return problem(c, ec == boost::asio::error::eof ? "closed by the server without BYE" : "read: " + ec.message());
    if (c->bye_reason == "quit") ++quit_;
    else ++kicked_;
    end(c);
  }

  void quit(const connection_ptr& c) {
    if (c->quit_sent || !c->bye_reason.empty()) return;
    c->quit_sent = true;
    c->chat_timer.cancel();
    say(c, "/quit", std::nullopt);
    c->deadline.expires_after(std::chrono::seconds(10));
    c->deadline.async_wait([this, c](const boost::system::error_code& ec) {
      if (!ec && !c->ended) problem(c, "no \"BYE quit\" and close within 10s of /quit");
    });
  }

  void say(const connection_ptr& c, const std::string& line, std::optional<expected_reply> reply) {
    // Taken before the line can reach the server: its idle clock restarts later.
    c->last_sent = clock_type::now();
    if (reply) {
      reply->sent_at = c->last_sent;
      c->expected.push_back(std::move(*reply));
    }
    c->outbox += line;
    c->outbox += '\n';
    ++lines_sent_;
    flush(c);
  }

  void flush(const connection_ptr& c) {
    if (c->writing || c->outbox.empty()) return;
    c->writing = true;
    c->in_flight.swap(c->outbox);
    c->outbox.clear();
    boost::asio::async_write(c->socket, boost::asio::buffer(c->in_flight),
                             [this, c](const boost::system::error_code& ec, std::size_t) {
                               c->writing = false;
                               if (ec || c->ended) return;  // the read side reports the close
                               flush(c);
                             });
  }

  void problem(const connection_ptr& c, const std::string& what) {
    ++problems_;
    if (first_problems_.size() < 5) {
      static const char* const role_names[] = {"talker_quit", "talker_close", "answerer", "silent"};
      first_problems_.push_back(std::string(role_names[static_cast<int>(c->role)]) + " connection: " + what);
    }
    end(c);
  }

  // The connection is over (whatever the reason): close it, replace it.
  void end(const connection_ptr& c) {
    if (c->ended) return;
    c->ended = true;
    if (!c->welcomed) --opening_;
    boost::system::error_code ignored;
    c->socket.close(ignored);
    c->chat_timer.cancel();
    c->deadline.cancel();
    live_.erase(c);
    ++closed_;
    top_up();
    stop_if_done();
  }

  // Once the end has come and the last connection is gone, io_.run() returns.
  void stop_if_done() {
    if (!finishing_ || !live_.empty()) return;
    print_progress();  // the final sample
    end_timer_.cancel();
    hard_deadline_.cancel();
    broadcast_timer_.cancel();
    report_timer_.cancel();
  }

  void finish() {
    finishing_ = true;
    finished_at_ = clock_type::now();
    report_timer_.cancel();  // while everyone leaves the counts are not the soak's; one last line at the end
    std::vector<connection_ptr> all(live_.begin(), live_.end());
    for (auto& c : all)
      if (c->welcomed) quit(c);  // the others quit on their WELCOME
    stop_if_done();
  }

  void arm_broadcast_timer() {
    broadcast_timer_.expires_after(options_.broadcast_interval);
    broadcast_timer_.async_wait([this](const boost::system::error_code& ec) {
      if (ec) return;
      broadcast_due_ = true;  // the next talker to speak says it
      arm_broadcast_timer();
    });
  }

  void arm_report_timer() {
    report_timer_.expires_after(options_.report_interval);
    report_timer_.async_wait([this](const boost::system::error_code& ec) {
      if (ec) return;
      print_progress();
      arm_report_timer();
    });
  }

  // One line per --report-every for soak.sh, which samples the server on each.
  void print_progress() const {
    std::printf("churn t=%.1f open=%zu opened=%zu closed=%zu quit=%zu client_closed=%zu kicked=%zu errors=%zu\n",
                std::chrono::duration<double>(clock_type::now() - started_).count(), live_.size(), opened_, closed_,
                quit_, closed_by_client_, kicked_, problems_);
    std::fflush(stdout);
  }

  static std::string format_ms(nanoseconds d) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f ms", std::chrono::duration<double, std::milli>(d).count());
    return text;
  }

  boost::asio::io_context& io_;
  const client_options options_;
  const tcp::endpoint server_;
  const nanoseconds idle_, tick_, tolerance_;
  asio_wheel::wheel_timer end_timer_, hard_deadline_, broadcast_timer_, report_timer_;
  std::mt19937_64 random_;
  std::unordered_set<connection_ptr> live_;
  std::size_t opening_ = 0, next_source_ = 0, next_nick_ = 0;
  std::size_t opened_ = 0, closed_ = 0, quit_ = 0, closed_by_client_ = 0, kicked_ = 0;
  std::size_t connect_failures_ = 0, problems_ = 0;
  std::size_t lines_sent_ = 0, replies_checked_ = 0, broadcasts_sent_ = 0, broadcasts_received_ = 0;
  std::size_t history_lines_ = 0, pings_received_ = 0;
  bool broadcast_due_ = false, finishing_ = false, deadline_hit_ = false;
  std::vector<nanoseconds> welcome_latency_, kick_lateness_, ping_lateness_;
  std::vector<std::string> first_problems_;
  clock_type::time_point started_, finished_at_;
};

bool churn_test::report(const stats_map* before, const stats_map* after, nanoseconds stats_interval) const {
  auto welcome = welcome_latency_, kick = kick_lateness_, ping = ping_lateness_;
  std::sort(welcome.begin(), welcome.end());
  std::sort(kick.begin(), kick.end());
  std::sort(ping.begin(), ping.end());
  const nanoseconds allowed = tick_ + tolerance_ + options_.slack;
  const auto late_kicks = static_cast<std::size_t>(kick.end() - std::upper_bound(kick.begin(), kick.end(), allowed));
  const double seconds = std::chrono::duration<double>(finished_at_ - started_).count();
  // A run that never exercised one of the endings proves nothing about it.
  std::vector<std::string> missing;
  if (quit_ == 0) missing.push_back("/quit");
  if (closed_by_client_ == 0) missing.push_back("client close");
  if (kicked_ == 0) missing.push_back("idle kick");
  const bool passed = problems_ == 0 && !deadline_hit_ && missing.empty() && live_.empty();

  std::printf("keepalive_chat_load churn summary\n");
  std::printf("  server idle timeout %s, tick %s; %zu connections for %s, lifetimes %s to %s, %zu source address(es)\n",
              format_duration(idle_).c_str(), format_duration(tick_).c_str(), options_.connections,
              format_duration(*options_.churn).c_str(), format_duration(options_.min_lifetime).c_str(),
              format_duration(options_.max_lifetime).c_str(), options_.source_addresses == 0 ? 1 : options_.source_addresses);
  std::printf("  connections: %zu opened (%.1f/s over %.1f s), %zu closed: %zu left with /quit, %zu closed by the client,\n"
              "               %zu kicked for idleness, %zu ended by an error (%zu could not connect)\n",
              opened_, seconds > 0 ? double(opened_) / seconds : 0.0, seconds, closed_, quit_, closed_by_client_,
              kicked_, problems_, connect_failures_);
  std::printf("  connect start to WELCOME: p50 %.1f ms, p99 %.1f ms, max %.1f ms\n", ms(percentile(welcome, 0.50)),
              ms(percentile(welcome, 0.99)), welcome.empty() ? 0.0 : ms(welcome.back()));
  std::printf("  silent connections, lateness (from their last line or connect start): PING after idle/2 p50 %.1f ms,\n"
              "    p99 %.1f ms, max %.1f ms; BYE idle-timeout after idle p50 %.1f ms, p99 %.1f ms, max %.1f ms,\n"
              "    %zu of %zu later than tick + tolerance + %s (reported, not a failure: the soak checks for leaks,\n"
              "    the demo for lateness)\n",
              ms(percentile(ping, 0.50)), ms(percentile(ping, 0.99)), ping.empty() ? 0.0 : ms(ping.back()),
              ms(percentile(kick, 0.50)), ms(percentile(kick, 0.99)), kick.empty() ? 0.0 : ms(kick.back()), late_kicks,
              kick.size(), format_duration(options_.slack).c_str());
  std::printf("  lines sent: %zu (%zu broadcast messages), replies checked: %zu, server PINGs: %zu,\n"
              "    history lines: %zu, broadcast lines received: %zu\n",
              lines_sent_, broadcasts_sent_, replies_checked_, pings_received_, history_lines_, broadcasts_received_);
  std::printf("  protocol errors: %zu\n", problems_);
  for (const auto& p : first_problems_) std::printf("    %s\n", p.c_str());
  print_server_and_own_stats(before, after, stats_interval);
  std::string verdict = "PASS";
  if (!passed) {
    verdict = "FAIL (";
    if (problems_ > 0) verdict += std::to_string(problems_) + " protocol error(s)";
    else if (deadline_hit_) verdict += "the run did not finish before its deadline";
    else if (!missing.empty()) verdict += "no connection ended by " + missing.front();
    else verdict += std::to_string(live_.size()) + " connection(s) still open";
    verdict += ")";
  }
  std::printf("result: %s\n", verdict.c_str());
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
  if (options.source_addresses > 0 && !(address.is_v4() && address.is_loopback())) {
    std::cerr << "keepalive_chat_load: --source-addresses: needs a server on 127.x.x.x (the sources are 127.0.0.2 and up)\n";
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
  // The server's --idle-tolerance (tolerance_ppm; 0, or absent from a server that
  // predates the flag, is none): a close may come that fraction of idle later still.
  const nanoseconds tolerance =
      std::chrono::duration_cast<nanoseconds>(idle * (static_cast<double>(stat(*before, "tolerance_ppm")) / 1e6));
  if (options.hold && *options.hold + std::chrono::seconds(10) > idle) {
    std::cerr << "keepalive_chat_load: --hold: the server's idle timeout (" << format_duration(idle)
              << ") must exceed the hold by 10s, or the connections are closed during it\n";
    return 2;
  }
  const auto stats_from = clock_type::now();

  boost::asio::io_context io(1);
  std::optional<load_test> idle_test;
  std::optional<churn_test> churn;
  if (options.churn) {
    churn.emplace(io, options, server, idle, tick, tolerance);
    churn->run();
  } else {
    idle_test.emplace(io, options, server, idle, tick, tolerance);
    idle_test->run();
  }

  const auto after = query_stats(server, std::chrono::seconds(5), error);
  if (!after) std::cerr << "keepalive_chat_load: final /stats: " << error << "\n";
  const stats_map* after_or_null = after ? &*after : nullptr;
  const bool passed = churn ? churn->report(&*before, after_or_null, clock_type::now() - stats_from)
                            : idle_test->report(&*before, after_or_null, clock_type::now() - stats_from);
  return passed && after ? 0 : 1;
}
