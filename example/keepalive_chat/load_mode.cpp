//
// example/keepalive_chat/load_mode.cpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The default mode of keepalive_chat_load: --connections connections, --active of them
// chatting (a heartbeat every idle/3, now and then a broadcast message), the rest silent,
// opened at most --connect-concurrency at a time. Every silent one must get PING at idle/2
// and "BYE idle-timeout" no sooner than idle after the moment we started connecting it and
// no later than idle + tick + tolerance + slack after its WELCOME came (the server's idle
// clock starts between the two); no active one may be closed, and each leaves with /quit after
// --periods idle periods. With --hold D every connection stays silent for D and must
// survive it (measure_idle.sh). The summary and the verdict: load_test::report.
#include "load_client.hpp"

#include "common/flags.hpp"

#include <asio_wheel.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/write.hpp>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace keepalive_chat::load_client {
namespace {

using example_common::format_duration;

struct connection
{
  connection(boost::asio::io_context& io, std::size_t index, bool active)
    : index(index), active(active), socket(io), heartbeat(io)
  {}
  std::size_t index;
  bool active;
  tcp::socket socket;
  asio_wheel::wheel_timer heartbeat;  // active connections only
  std::string input;
  std::string output;  // the line being written (one at a time)
  bool writing = false;
  bool quit_pending = false;
  bool connected = false;
  bool opening = true;  // until WELCOME (or failure)
  bool closed = false;
  bool closed_before_finish = false;  // by the server, before the run's end
  clock_type::time_point connect_started, welcome_at, ping_at, bye_at;
  std::string bye_reason;
  std::size_t pongs = 0, broadcasts = 0;
  std::string error_line;  // first "ERR ..." received
};

class load_test final : public mode
{
public:
  load_test(boost::asio::io_context& io, const client_options& options,
      tcp::endpoint server, nanoseconds idle, nanoseconds tick,
      nanoseconds tolerance)
    : io_(io), options_(options), server_(server), idle_(idle), tick_(tick),
      tolerance_(tolerance), end_timer_(io), hard_deadline_(io), chat_timer_(io)
  {
    const std::size_t stride =
        options.active == 0 ? 0 : options.connections / options.active;
    connections_.reserve(options.connections);
    for (std::size_t i = 0, active = 0; i < options.connections; ++i)
    {
      // Active connections spread evenly over the connect order.
      const bool is_active =
          stride != 0 && i % stride == 0 && active < options.active;
      active += is_active;
      connections_.push_back(std::make_unique<connection>(io, i, is_active));
    }
  }

  void run() override
  {
    started_ = clock_type::now();
    // Whatever happens, stop after connecting (1 s per 1,000 is very generous),
    // the idle periods and 10 s more.
    const auto budget =
        std::chrono::seconds(10 + options_.connections / 1000) + phase();
    hard_deadline_.expires_after(budget);
    hard_deadline_.async_wait([this](const boost::system::error_code& ec) {
      if (ec)
        return;
      deadline_hit_ = true;
      for (auto& c : connections_)
        close(*c);
    });
    for (std::size_t i = 0;
         i < options_.connect_concurrency && i < connections_.size(); ++i)
      connect_next();
    io_.run();
  }

  bool report(const stats_map* server_before, const stats_map* server_after,
      nanoseconds stats_interval) const override;

private:
  // How late after idle a silent connection's close may come.
  nanoseconds allowed_lateness() const
  {
    return tick_ + tolerance_ + options_.slack;
  }

  // From the last connection on: --hold, or the idle periods the active connections must
  // survive, and never less than the latest close allowed for the last silent connection
  // (with a large --idle-tolerance, two periods may not be enough).
  nanoseconds phase() const
  {
    if (options_.hold)
      return *options_.hold;
    return std::max(idle_ * static_cast<long>(options_.periods),
        idle_ + allowed_lateness());
  }

  void connect_next()
  {
    if (next_to_connect_ >= connections_.size() || finishing_)
      return;
    connection& c = *connections_[next_to_connect_++];
    // Taken before the SYN leaves: the server's idle clock for this
    // connection cannot start earlier, so elapsed < idle proves an early close.
    c.connect_started = clock_type::now();
    c.socket.async_connect(
        server_, [this, &c](const boost::system::error_code& ec) {
          on_connected(c, ec);
        });
  }

  void on_connected(connection& c, const boost::system::error_code& ec)
  {
    if (ec)
    {
      ++connect_failures_;
      if (first_connect_error_.empty())
        first_connect_error_ = ec.message();
      c.closed = true;
      ++closed_count_;
      opening_done(c);
      return finish_if_done();
    }
    c.connected = true;
    read_next(c);
    if (c.active)
      schedule_heartbeat(c);
  }

  // A connection counts as open when its WELCOME arrives, not when connect()
  // completes: the kernel completes handshakes on its own, and a connection
  // waiting in the accept queue has no idle clock yet. Pacing on WELCOME keeps
  // that queue (and so the error of measuring from connect start) short.
  void opening_done(connection& c)
  {
    if (!c.opening)
      return;
    c.opening = false;
    if (++opened_ < connections_.size())
      return connect_next();
    if (!deadline_hit_)
      all_connected();  // after the deadline, there is nothing left to run
  }

  void all_connected()
  {
    all_connected_at_ = clock_type::now();
    // A progress line scripts can wait for (measure_idle.sh starts its clock here).
    std::printf("progress: %zu connections open after %.0f ms\n",
        connections_.size() - connect_failures_,
        std::chrono::duration<double, std::milli>(all_connected_at_ - started_)
            .count());
    std::fflush(stdout);
    const auto phase = this->phase();
    end_timer_.expires_after(phase);
    end_timer_.async_wait([this](const boost::system::error_code& ec) {
      if (!ec)
        finish();
    });
    if (options_.messages > 0 && options_.active > 0 && !options_.hold)
    {
      chat_interval_ = phase / static_cast<long>(options_.messages + 1);
      chat_timer_.expires_after(chat_interval_);
      chat_timer_.async_wait(
          [this](const boost::system::error_code& e) { on_chat_timer(e); });
    }
  }

  void on_chat_timer(const boost::system::error_code& ec)
  {
    if (ec || finishing_ || messages_sent_ >= options_.messages)
      return;
    // The next active connection that is open says something to the room.
    for (std::size_t tries = 0; tries < connections_.size(); ++tries)
    {
      connection& c = *connections_[next_speaker_++ % connections_.size()];
      if (!c.active || c.closed || c.writing)
        continue;
      send(c,
          "load message " + std::to_string(messages_sent_++)
              + " from connection " + std::to_string(c.index) + "\n");
      break;
    }
    chat_timer_.expires_after(chat_interval_);
    chat_timer_.async_wait(
        [this](const boost::system::error_code& e) { on_chat_timer(e); });
  }

  void schedule_heartbeat(connection& c)
  {
    // Every idle/3: well inside idle/2, so an active connection never sees PING.
    c.heartbeat.expires_after(idle_ / 3);
    c.heartbeat.async_wait([this, &c](const boost::system::error_code& ec) {
      if (ec || c.closed || finishing_)
        return;
      if (!c.writing)
        send(c, "PING\n");
      schedule_heartbeat(c);
    });
  }

  void send(connection& c, std::string line)
  {
    c.writing = true;
    c.output = std::move(line);
    boost::asio::async_write(c.socket, boost::asio::buffer(c.output),
        [this, &c](const boost::system::error_code& ec, std::size_t) {
          c.writing = false;
          if (ec)
            return;  // the read side sees the close
          if (c.quit_pending)
          {
            c.quit_pending = false;
            send(c, "/quit\n");
          }
        });
  }

  void read_next(connection& c)
  {
    boost::asio::async_read_until(c.socket,
        boost::asio::dynamic_buffer(c.input, 1 << 20), '\n',
        [this, &c](const boost::system::error_code& ec, std::size_t n) {
          if (ec)
          {
            // The server closed (or reset) the connection.
            if (!finishing_)
              c.closed_before_finish = true;
            return close(c);
          }
          on_line(c, std::string_view(c.input).substr(0, n - 1));
          c.input.erase(0, n);
          if (!c.closed)
            read_next(c);
        });
  }

  void on_line(connection& c, std::string_view line)
  {
    const auto now = clock_type::now();
    if (c.opening && line.rfind("WELCOME ", 0) == 0)
    {
      c.welcome_at = now;
      opening_done(c);
    }
    else if (line == "PING")
    {
      if (c.ping_at == clock_type::time_point())
        c.ping_at = now;
      if (c.active && !c.writing && !finishing_)
        send(c, "PONG\n");
    }
    else if (line == "PONG")
    {
      ++c.pongs;
    }
    else if (line.rfind("BYE ", 0) == 0)
    {
      if (c.bye_at == clock_type::time_point())
      {
        c.bye_at = now;
        c.bye_reason = std::string(line.substr(4));
      }
    }
    else if (line.rfind("ERR ", 0) == 0)
    {
      if (c.error_line.empty())
        c.error_line = std::string(line);
    }
    else if (line.find(": ") != std::string_view::npos)
    {
      ++c.broadcasts;
    }
  }

  void close(connection& c)
  {
    if (c.closed)
      return;
    c.closed = true;
    ++closed_count_;
    boost::system::error_code ignored;
    c.socket.close(ignored);
    c.heartbeat.cancel();
    opening_done(c);
    finish_if_done();
  }

  void finish()
  {
    finishing_ = true;
    finished_at_ = clock_type::now();
    chat_timer_.cancel();
    for (auto& c : connections_)
    {
      if (c->closed)
        continue;
      survived_phase_ += 1;
      if (c->active)
      {
        // Leave the polite way; the server answers "BYE quit" and closes.
        c->heartbeat.cancel();
        if (c->writing)
          c->quit_pending = true;
        else
          send(*c, "/quit\n");
      }
      else
      {
        close(
            *c);  // silent and still open: in idle mode that is a failed check
      }
    }
    finish_if_done();
  }

  void finish_if_done()
  {
    if (closed_count_ == connections_.size() && opened_ == connections_.size())
    {
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
  std::size_t next_to_connect_ = 0, opened_ = 0, connect_failures_ = 0,
              closed_count_ = 0;
  std::size_t messages_sent_ = 0, next_speaker_ = 0, survived_phase_ = 0;
  std::string first_connect_error_;
  bool finishing_ = false, deadline_hit_ = false;
  clock_type::time_point started_, all_connected_at_, finished_at_;
};

bool load_test::report(const stats_map* before, const stats_map* after,
    nanoseconds stats_interval) const
{
  std::size_t active = 0, silent = 0, kicked = 0, kicked_early = 0,
              kicked_late = 0, silent_not_kicked = 0;
  std::size_t ping_missing = 0, ping_early = 0, active_survived = 0,
              active_lost = 0, errors = 0;
  std::size_t hold_survived = 0, hold_lost = 0, active_unanswered = 0,
              pongs = 0, broadcasts = 0;
  std::vector<nanoseconds> close_lateness, ping_lateness, welcome_latency;
  std::string first_problem;
  const auto note = [&](const std::string& problem) {
    if (first_problem.empty())
      first_problem = problem;
  };
  const nanoseconds allowed = allowed_lateness();
  for (const auto& c : connections_)
  {
    if (!c->connected)
      continue;
    if (c->welcome_at != clock_type::time_point())
      welcome_latency.push_back(c->welcome_at - c->connect_started);
    pongs += c->pongs;
    broadcasts += c->broadcasts;
    if (!c->error_line.empty())
    {
      ++errors;
      note("connection " + std::to_string(c->index) + " got \"" + c->error_line
          + "\"");
    }
    if (options_.hold)
    {
      // Every connection must still be open when the hold ends.
      if (!c->closed_before_finish && !deadline_hit_)
        ++hold_survived;
      else
      {
        ++hold_lost;
        note("connection " + std::to_string(c->index)
            + " closed during the hold: BYE " + c->bye_reason);
      }
      continue;
    }
    if (c->active)
    {
      ++active;
      if (c->pongs == 0)
      {
        ++active_unanswered;
        note("active connection " + std::to_string(c->index)
            + " never got a PONG for its heartbeats");
      }
      if (c->bye_reason == "quit")
        ++active_survived;
      else
      {
        ++active_lost;
        note("active connection " + std::to_string(c->index)
            + " ended with \"BYE " + c->bye_reason + "\"");
      }
      continue;
    }
    ++silent;
    if (c->bye_reason != "idle-timeout")
    {
      ++silent_not_kicked;
      note("silent connection " + std::to_string(c->index)
          + " was not closed for idleness (BYE \"" + c->bye_reason + "\")");
      continue;
    }
    ++kicked;
    // Early from the connect's start, late from the WELCOME's arrival: the
    // server's idle clock starts between the two, so a slow accept (a loaded
    // machine, a sanitizer) counts against neither verdict.
    const nanoseconds lateness = c->bye_at - c->connect_started - idle_;
    const clock_type::time_point accepted_by =
        c->welcome_at != clock_type::time_point() ? c->welcome_at
                                                  : c->connect_started;
    close_lateness.push_back(lateness);
    if (lateness < nanoseconds(0))
    {
      ++kicked_early;
      char text[96];
      std::snprintf(text, sizeof text,
          "silent connection %zu closed %.1f ms early", c->index,
          ms(-lateness));
      note(text);
    }
    if (c->bye_at - accepted_by - idle_ > allowed)
      ++kicked_late;
    if (c->ping_at == clock_type::time_point() || c->ping_at > c->bye_at)
    {
      ++ping_missing;
      note("silent connection " + std::to_string(c->index)
          + " got no PING before its BYE");
    }
    else
    {
      const nanoseconds ping_late = c->ping_at - c->connect_started - idle_ / 2;
      ping_lateness.push_back(ping_late);
      if (ping_late < nanoseconds(0))
        ++ping_early;
    }
  }
  std::sort(close_lateness.begin(), close_lateness.end());
  std::sort(welcome_latency.begin(), welcome_latency.end());
  std::sort(ping_lateness.begin(), ping_lateness.end());
  if (kicked_late > 0)
    note(std::to_string(kicked_late)
        + " silent connection(s) closed later than idle + tick + tolerance + "
          "slack after their WELCOME");

  const bool passed = connect_failures_ == 0 && !deadline_hit_
      && kicked_early == 0 && kicked_late == 0 && silent_not_kicked == 0
      && ping_missing == 0 && ping_early == 0 && active_lost == 0 && errors == 0
      && hold_lost == 0 && active_unanswered == 0;
  std::printf("keepalive_chat_load summary\n");
  if (tolerance_.count() == 0)
    std::printf("  server idle timeout %s, tick %s, allowed lateness tick + %s "
                "= %.1f ms\n",
        format_duration(idle_).c_str(), format_duration(tick_).c_str(),
        format_duration(options_.slack).c_str(), ms(allowed));
  else
    std::printf("  server idle timeout %s, tick %s, idle tolerance %.1f ms, "
                "allowed lateness tick + tolerance + %s = %.1f ms\n",
        format_duration(idle_).c_str(), format_duration(tick_).c_str(),
        ms(tolerance_), format_duration(options_.slack).c_str(), ms(allowed));
  std::printf(
      "  connections: %zu opened in %.0f ms (%zu at a time), %zu failed%s%s\n",
      connections_.size() - connect_failures_, ms(all_connected_at_ - started_),
      options_.connect_concurrency, connect_failures_,
      first_connect_error_.empty() ? "" : ": ", first_connect_error_.c_str());
  std::printf("  connect start to WELCOME (the part of the lateness below "
              "spent being accepted): p50 %.1f ms, p99 %.1f ms, max %.1f ms\n",
      ms(percentile(welcome_latency, 0.50)),
      ms(percentile(welcome_latency, 0.99)),
      welcome_latency.empty() ? 0.0 : ms(welcome_latency.back()));
  if (options_.hold)
  {
    std::printf("  hold: %zu connections silent for %s; still open at the end: "
                "%zu, closed early: %zu\n",
        hold_survived + hold_lost, format_duration(*options_.hold).c_str(),
        hold_survived, hold_lost);
  }
  else
  {
    std::printf("  kicked: %zu of %zu silent connections closed with \"BYE "
                "idle-timeout\" (early %zu, late %zu, not kicked %zu)\n",
        kicked, silent, kicked_early, kicked_late, silent_not_kicked);
    std::printf("  survived: %zu of %zu active connections chatted through %zu "
                "idle periods and left with /quit\n",
        active_survived, active, options_.periods);
    std::printf("  close lateness after idle (client-observed, from connect "
                "start): p50 %.1f ms, p99 %.1f ms, max %.1f ms\n",
        ms(percentile(close_lateness, 0.50)),
        ms(percentile(close_lateness, 0.99)),
        close_lateness.empty() ? 0.0 : ms(close_lateness.back()));
    std::printf("  PING lateness after idle/2: p50 %.1f ms, p99 %.1f ms, max "
                "%.1f ms (missing %zu, early %zu)\n",
        ms(percentile(ping_lateness, 0.50)),
        ms(percentile(ping_lateness, 0.99)),
        ping_lateness.empty() ? 0.0 : ms(ping_lateness.back()), ping_missing,
        ping_early);
    std::printf("  broadcast messages sent: %zu, lines received from them: "
                "%zu; heartbeats answered with PONG: %zu\n",
        messages_sent_, broadcasts, pongs);
  }
  print_server_and_own_stats(before, after, stats_interval);
  if (deadline_hit_)
    note("the run did not finish before its deadline");
  std::printf("result: %s%s%s\n", passed ? "PASS" : "FAIL",
      first_problem.empty() ? "" : " (first problem: ",
      first_problem.empty() ? "" : (first_problem + ")").c_str());
  return passed;
}

}  // namespace

std::unique_ptr<mode> make_load_mode(boost::asio::io_context& io,
    const client_options& options, tcp::endpoint server, nanoseconds idle,
    nanoseconds tick, nanoseconds tolerance)
{
  return std::make_unique<load_test>(
      io, options, server, idle, tick, tolerance);
}

}  // namespace keepalive_chat::load_client
