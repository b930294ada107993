//
// example/keepalive_chat/churn_mode.cpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The --churn D mode of keepalive_chat_load, which soak.sh runs.
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
#include "load_client.hpp"

#include "common/flags.hpp"

#include <asio_wheel.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/write.hpp>

#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <deque>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace keepalive_chat::load_client {
namespace {

using example_common::format_duration;

enum class churn_role
{
  talker_quit,
  talker_close,
  answerer,
  silent
};

struct expected_reply
{
  std::string text;  // the whole reply, or its start when `prefix`
  bool prefix;
  clock_type::time_point sent_at;  // when the line asking for it was queued
};

struct churn_connection
{
  churn_connection(boost::asio::io_context& io, churn_role role)
    : role(role), socket(io), chat_timer(io), deadline(io)
  {}
  const churn_role role;
  tcp::socket socket;
  asio_wheel::wheel_timer
      chat_timer;  // the next line, or the end of the lifetime
  asio_wheel::wheel_timer
      deadline;  // bounds every wait for the server: WELCOME, the idle kick, the close after BYE
  std::string input;
  std::string outbox,
      in_flight;  // lines queued while a write is in flight, and that write's bytes
  bool writing = false;
  std::deque<expected_reply> expected;
  std::size_t history_left = 0;  // history lines still due after WELCOME
  bool welcomed = false, quit_sent = false, ping_seen = false, ended = false;
  std::string bye_reason;  // empty until the server's BYE
  clock_type::time_point connect_started, end_of_life, last_sent;
  // The latest moment the server has provably seen input: the connect start, or
  // the sending of the last line whose reply has arrived (replies come in order,
  // so the server had read it before it sent anything that follows the reply).
  // A PING before this + idle/2 or an idle kick before this + idle is early.
  clock_type::time_point input_seen_by;
};

class churn_test final : public mode
{
public:
  churn_test(boost::asio::io_context& io, const client_options& options,
      tcp::endpoint server, nanoseconds idle, nanoseconds tick,
      nanoseconds tolerance)
    : io_(io), options_(options), server_(server), idle_(idle), tick_(tick),
      tolerance_(tolerance), end_timer_(io), hard_deadline_(io),
      broadcast_timer_(io), report_timer_(io), random_(std::random_device{}())
  {}

  void run() override
  {
    started_ = clock_type::now();
    end_timer_.expires_after(*options_.churn);
    end_timer_.async_wait([this](const boost::system::error_code& ec) {
      if (!ec)
        finish();
    });
    // Whatever happens, stop: the ramp-up (1 s per 1,000 is very generous), the churn, the goodbyes.
    hard_deadline_.expires_after(*options_.churn
        + std::chrono::seconds(30 + options_.connections / 1000));
    hard_deadline_.async_wait([this](const boost::system::error_code& ec) {
      if (ec)
        return;
      deadline_hit_ = finishing_ = true;
      std::vector<connection_ptr> all(live_.begin(), live_.end());
      for (auto& c : all)
        end(c);
      stop_if_done();
    });
    arm_broadcast_timer();
    arm_report_timer();
    top_up();
    io_.run();
  }

  bool report(const stats_map* before, const stats_map* after,
      nanoseconds stats_interval) const override;

private:
  using connection_ptr = std::shared_ptr<churn_connection>;

  // Starts connections until --connections are live, at most
  // --connect-concurrency of them waiting for their WELCOME.
  void top_up()
  {
    while (!finishing_ && live_.size() < options_.connections
        && opening_ < options_.connect_concurrency)
      start_connection();
  }

  void start_connection()
  {
    // Roles by weight: 30 % talker_quit, 25 % talker_close, 25 % answerer, 20 % silent.
    const int draw = std::uniform_int_distribution<int>(0, 99)(random_);
    const churn_role role = draw < 30 ? churn_role::talker_quit
        : draw < 55                   ? churn_role::talker_close
        : draw < 80                   ? churn_role::answerer
                                      : churn_role::silent;
    auto c = std::make_shared<churn_connection>(io_, role);
    live_.insert(c);
    ++opening_;
    ++opened_;
    c->connect_started = c->last_sent = c->input_seen_by = clock_type::now();
    c->deadline.expires_after(std::chrono::seconds(10));
    c->deadline.async_wait([this, c](const boost::system::error_code& ec) {
      if (!ec && !c->ended)
        problem(c, "no WELCOME within 10s of connecting");
    });
    if (options_.source_addresses > 0)
    {
      // Each source address has its own ephemeral ports for the 4-tuple, so N
      // addresses allow N times as many connections in TIME_WAIT. Binding with
      // IP_BIND_ADDRESS_NO_PORT leaves the port to connect(), which picks it
      // per 4-tuple instead of reserving it for the address alone.
      const auto last_byte = static_cast<unsigned char>(
          2 + next_source_++ % options_.source_addresses);
      const boost::asio::ip::address_v4 source(
          boost::asio::ip::address_v4::bytes_type{127, 0, 0, last_byte});
      boost::system::error_code ec;
      c->socket.open(tcp::v4(), ec);
      const int on = 1;
      if (!ec
          && ::setsockopt(c->socket.native_handle(), IPPROTO_IP,
                 IP_BIND_ADDRESS_NO_PORT, &on, sizeof on)
              != 0)
        ec = boost::system::error_code(errno, boost::system::system_category());
      if (!ec)
        c->socket.bind(tcp::endpoint(source, 0), ec);
      if (ec)
        return connect_failed(
            c, "binding to " + source.to_string() + ": " + ec.message());
    }
    c->socket.async_connect(
        server_, [this, c](const boost::system::error_code& ec) {
          if (c->ended)
            return;
          if (ec)
            return connect_failed(c, ec.message());
          read_more(c);
        });
  }

  void connect_failed(const connection_ptr& c, const std::string& error)
  {
    ++connect_failures_;
    problem(c, "connect: " + error);
  }

  void read_more(const connection_ptr& c)
  {
    boost::asio::async_read_until(c->socket,
        boost::asio::dynamic_buffer(c->input, 1 << 20), '\n',
        [this, c](const boost::system::error_code& ec, std::size_t) {
          if (c->ended)
            return;
          if (ec)
            return on_server_closed(c, ec);
          // Every complete line in the buffer, not only the first one read_until found.
          std::size_t begin = 0;
          for (std::size_t newline; !c->ended
               && (newline = c->input.find('\n', begin)) != std::string::npos;
               begin = newline + 1)
            on_line(
                c, std::string_view(c->input).substr(begin, newline - begin));
          if (c->ended)
            return;
          c->input.erase(0, begin);
          read_more(c);
        });
  }

  void on_line(const connection_ptr& c, std::string_view line)
  {
    const auto now = clock_type::now();
    const auto starts_with = [&](std::string_view prefix) {
      return line.substr(0, prefix.size()) == prefix;
    };
    if (!c->bye_reason.empty())
      return problem(c, "a line after BYE: \"" + std::string(line) + "\"");
    if (!c->welcomed)
    {
      if (!starts_with("WELCOME "))
        return problem(
            c, "expected WELCOME, got \"" + std::string(line) + "\"");
      return on_welcome(c, line, now);
    }
    if (c->history_left > 0)
    {
      --c->history_left;
      ++history_lines_;
      if (!is_soak_message(line))
        return problem(
            c, "a history line not sent by us: \"" + std::string(line) + "\"");
      return;
    }
    if (line == "PING")
      return on_ping(c, now);
    if (starts_with("BYE "))
      return on_bye(c, line.substr(4), now);
    if (starts_with("ERR "))
      return problem(c, "got \"" + std::string(line) + "\"");
    if (!c->expected.empty())
    {
      const expected_reply& e = c->expected.front();
      if (line == e.text || (e.prefix && starts_with(e.text)))
      {
        c->input_seen_by = e.sent_at;
        c->expected.pop_front();
        ++replies_checked_;
        return;
      }
    }
    if (line.find(": ") != std::string_view::npos)
    {
      ++broadcasts_received_;
      if (!is_soak_message(line))
        return problem(
            c, "a broadcast not sent by us: \"" + std::string(line) + "\"");
      return;
    }
    problem(c,
        "unexpected line \"" + std::string(line) + "\""
            + (c->expected.empty()
                    ? ""
                    : " (waiting for \"" + c->expected.front().text + "\")"));
  }

  // "NAME: soak message N", the only text anybody broadcasts to this server.
  static bool is_soak_message(std::string_view line)
  {
    const std::size_t colon = line.find(": ");
    return colon != std::string_view::npos && colon > 0
        && line.substr(colon + 2, 13) == "soak message ";
  }

  void on_welcome(const connection_ptr& c, std::string_view line,
      clock_type::time_point now)
  {
    c->welcomed = true;
    --opening_;
    welcome_latency_.push_back(now - c->connect_started);
    const std::size_t history = line.find(" history=");
    if (history == std::string_view::npos)
      return problem(
          c, "WELCOME without history=: \"" + std::string(line) + "\"");
    c->history_left = std::stoul(std::string(line.substr(history + 9)));
    c->deadline.cancel();
    top_up();
    if (finishing_)
      return quit(c);
    const nanoseconds lifetime =
        std::uniform_int_distribution<nanoseconds::rep>(
            options_.min_lifetime.count(), options_.max_lifetime.count())(
            random_)
        * nanoseconds(1);
    c->end_of_life = now + lifetime;
    switch (c->role)
    {
    case churn_role::talker_quit:
    case churn_role::talker_close:
      return schedule_chat(c);
    case churn_role::answerer:
      return wait_for_end_of_life(c, c->end_of_life);
    case churn_role::silent:
      if (std::uniform_int_distribution<int>(0, 1)(random_) == 0)
        say_nick(c);
      // Kicks are checked on arrival; this only bounds the wait for one that never comes.
      c->deadline.expires_at(
          c->last_sent + idle_ + tolerance_ + std::chrono::seconds(10));
      c->deadline.async_wait([this, c](const boost::system::error_code& ec) {
        if (!ec && !c->ended)
          problem(
              c, "silent connection not closed within idle + tolerance + 10s");
      });
      return;
    }
  }

  void schedule_chat(const connection_ptr& c)
  {
    // Every idle/6 to idle/3: a talker never sees a PING, let alone a kick.
    const auto next_line = clock_type::now()
        + std::uniform_int_distribution<nanoseconds::rep>(
              (idle_ / 6).count(), (idle_ / 3).count())(random_)
            * nanoseconds(1);
    if (next_line >= c->end_of_life)
      return wait_for_end_of_life(c, c->end_of_life);
    c->chat_timer.expires_at(next_line);
    c->chat_timer.async_wait([this, c](const boost::system::error_code& ec) {
      if (ec || c->ended || finishing_)
        return;
      say_something(c);
      schedule_chat(c);
    });
  }

  void say_something(const connection_ptr& c)
  {
    if (broadcast_due_)
    {
      broadcast_due_ = false;
      return say(c, "soak message " + std::to_string(broadcasts_sent_++),
          std::nullopt);
    }
    // /who sorts every member's name on the server: with 10,000 members that
    // costs about a millisecond, so it stays rare.
    const int draw = std::uniform_int_distribution<int>(0, 99)(random_);
    if (draw < 55)
      say(c, "PING", expected_reply{"PONG", false, {}});
    else if (draw < 80)
      say(c, "", expected_reply{"PONG", false, {}});
    else if (draw < 99)
      say_nick(c);
    else
      say(c, "/who", expected_reply{"WHO count=", true, {}});
  }

  void say_nick(const connection_ptr& c)
  {
    const std::string name = "soak"
        + std::to_string(next_nick_++);  // unique: the server must accept it
    say(c, "/nick " + name, expected_reply{"OK nick " + name, false, {}});
  }

  void wait_for_end_of_life(
      const connection_ptr& c, clock_type::time_point when)
  {
    c->chat_timer.expires_at(when);
    c->chat_timer.async_wait([this, c](const boost::system::error_code& ec) {
      if (ec || c->ended || finishing_)
        return;
      const bool leave_politely = c->role == churn_role::talker_quit
          || (c->role == churn_role::answerer
              && std::uniform_int_distribution<int>(0, 1)(random_) == 0);
      if (leave_politely)
        return quit(c);
      ++closed_by_client_;
      end(c);
    });
  }

  void on_ping(const connection_ptr& c, clock_type::time_point now)
  {
    ++pings_received_;
    if (now < c->input_seen_by + idle_ / 2)
      return problem(c,
          "PING " + format_ms(c->input_seen_by + idle_ / 2 - now)
              + " before idle/2");
    if (c->role == churn_role::silent)
    {
      if (!c->ping_seen)
        ping_lateness_.push_back(now - (c->input_seen_by + idle_ / 2));
      c->ping_seen = true;
      return;
    }
    if (!c->quit_sent)
      say(c, "PONG", std::nullopt);
  }

  void on_bye(const connection_ptr& c, std::string_view reason,
      clock_type::time_point now)
  {
    c->bye_reason = std::string(reason);
    if (reason == "quit")
    {
      if (!c->quit_sent)
        return problem(c, "\"BYE quit\" without /quit");
      if (!c->expected.empty())
        return problem(c,
            "\"BYE quit\" while waiting for \"" + c->expected.front().text
                + "\"");
    }
    else if (reason == "idle-timeout")
    {
      if (now < c->input_seen_by + idle_)
        return problem(c,
            "kicked for idleness " + format_ms(c->input_seen_by + idle_ - now)
                + " early");
      // At the end every connection says /quit, so a silent one may be kicked while it does.
      if (c->role != churn_role::silent)
        return problem(c,
            "kicked for idleness although it talked (last line "
                + format_ms(now - c->last_sent) + " before)");
      if (!c->ping_seen)
        return problem(c, "kicked for idleness without a PING first");
      kick_lateness_.push_back(now - (c->input_seen_by + idle_));
    }
    else
    {
      return problem(c, "unexpected \"BYE " + c->bye_reason + "\"");
    }
    // The server closes right after its BYE; bound the wait for that.
    c->deadline.expires_after(std::chrono::seconds(10));
    c->deadline.async_wait([this, c](const boost::system::error_code& ec) {
      if (!ec && !c->ended)
        problem(c, "not closed within 10s of \"BYE " + c->bye_reason + "\"");
    });
  }

  void on_server_closed(
      const connection_ptr& c, const boost::system::error_code& ec)
  {
    if (c->bye_reason.empty())
      return problem(c,
          ec == boost::asio::error::eof ? "closed by the server without BYE"
                                        : "read: " + ec.message());
    if (c->bye_reason == "quit")
      ++quit_;
    else
      ++kicked_;
    end(c);
  }

  void quit(const connection_ptr& c)
  {
    if (c->quit_sent || !c->bye_reason.empty())
      return;
    c->quit_sent = true;
    c->chat_timer.cancel();
    say(c, "/quit", std::nullopt);
    c->deadline.expires_after(std::chrono::seconds(10));
    c->deadline.async_wait([this, c](const boost::system::error_code& ec) {
      if (!ec && !c->ended)
        problem(c, "no \"BYE quit\" and close within 10s of /quit");
    });
  }

  void say(const connection_ptr& c, const std::string& line,
      std::optional<expected_reply> reply)
  {
    // Taken before the line can reach the server: its idle clock restarts later.
    c->last_sent = clock_type::now();
    if (reply)
    {
      reply->sent_at = c->last_sent;
      c->expected.push_back(std::move(*reply));
    }
    c->outbox += line;
    c->outbox += '\n';
    ++lines_sent_;
    flush(c);
  }

  void flush(const connection_ptr& c)
  {
    if (c->writing || c->outbox.empty())
      return;
    c->writing = true;
    c->in_flight.swap(c->outbox);
    c->outbox.clear();
    boost::asio::async_write(c->socket, boost::asio::buffer(c->in_flight),
        [this, c](const boost::system::error_code& ec, std::size_t) {
          c->writing = false;
          if (ec || c->ended)
            return;  // the read side reports the close
          flush(c);
        });
  }

  void problem(const connection_ptr& c, const std::string& what)
  {
    ++problems_;
    if (first_problems_.size() < 5)
    {
      static const char* const role_names[] = {
          "talker_quit", "talker_close", "answerer", "silent"};
      first_problems_.push_back(
          std::string(role_names[static_cast<int>(c->role)])
          + " connection: " + what);
    }
    end(c);
  }

  // The connection is over (whatever the reason): close it, replace it.
  void end(const connection_ptr& c)
  {
    if (c->ended)
      return;
    c->ended = true;
    if (!c->welcomed)
      --opening_;
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
  void stop_if_done()
  {
    if (!finishing_ || !live_.empty())
      return;
    print_progress();  // the final sample
    end_timer_.cancel();
    hard_deadline_.cancel();
    broadcast_timer_.cancel();
    report_timer_.cancel();
  }

  void finish()
  {
    finishing_ = true;
    finished_at_ = clock_type::now();
    report_timer_
        .cancel();  // while everyone leaves the counts are not the soak's; one last line at the end
    std::vector<connection_ptr> all(live_.begin(), live_.end());
    for (auto& c : all)
      if (c->welcomed)
        quit(c);  // the others quit on their WELCOME
    stop_if_done();
  }

  void arm_broadcast_timer()
  {
    broadcast_timer_.expires_after(options_.broadcast_interval);
    broadcast_timer_.async_wait([this](const boost::system::error_code& ec) {
      if (ec)
        return;
      broadcast_due_ = true;  // the next talker to speak says it
      arm_broadcast_timer();
    });
  }

  void arm_report_timer()
  {
    report_timer_.expires_after(options_.report_interval);
    report_timer_.async_wait([this](const boost::system::error_code& ec) {
      if (ec)
        return;
      print_progress();
      arm_report_timer();
    });
  }

  // One line per --report-every for soak.sh, which samples the server on each.
  void print_progress() const
  {
    std::printf("churn t=%.1f open=%zu opened=%zu closed=%zu quit=%zu "
                "client_closed=%zu kicked=%zu errors=%zu\n",
        std::chrono::duration<double>(clock_type::now() - started_).count(),
        live_.size(), opened_, closed_, quit_, closed_by_client_, kicked_,
        problems_);
    std::fflush(stdout);
  }

  static std::string format_ms(nanoseconds d)
  {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f ms",
        std::chrono::duration<double, std::milli>(d).count());
    return text;
  }

  boost::asio::io_context& io_;
  const client_options options_;
  const tcp::endpoint server_;
  const nanoseconds idle_, tick_, tolerance_;
  asio_wheel::wheel_timer end_timer_, hard_deadline_, broadcast_timer_,
      report_timer_;
  std::mt19937_64 random_;
  std::unordered_set<connection_ptr> live_;
  std::size_t opening_ = 0, next_source_ = 0, next_nick_ = 0;
  std::size_t opened_ = 0, closed_ = 0, quit_ = 0, closed_by_client_ = 0,
              kicked_ = 0;
  std::size_t connect_failures_ = 0, problems_ = 0;
  std::size_t lines_sent_ = 0, replies_checked_ = 0, broadcasts_sent_ = 0,
              broadcasts_received_ = 0;
  std::size_t history_lines_ = 0, pings_received_ = 0;
  bool broadcast_due_ = false, finishing_ = false, deadline_hit_ = false;
  std::vector<nanoseconds> welcome_latency_, kick_lateness_, ping_lateness_;
  std::vector<std::string> first_problems_;
  clock_type::time_point started_, finished_at_;
};

bool churn_test::report(const stats_map* before, const stats_map* after,
    nanoseconds stats_interval) const
{
  auto welcome = welcome_latency_, kick = kick_lateness_, ping = ping_lateness_;
  std::sort(welcome.begin(), welcome.end());
  std::sort(kick.begin(), kick.end());
  std::sort(ping.begin(), ping.end());
  const nanoseconds allowed = tick_ + tolerance_ + options_.slack;
  const auto late_kicks = static_cast<std::size_t>(
      kick.end() - std::upper_bound(kick.begin(), kick.end(), allowed));
  const double seconds =
      std::chrono::duration<double>(finished_at_ - started_).count();
  // A run that never exercised one of the endings proves nothing about it.
  std::vector<std::string> missing;
  if (quit_ == 0)
    missing.push_back("/quit");
  if (closed_by_client_ == 0)
    missing.push_back("client close");
  if (kicked_ == 0)
    missing.push_back("idle kick");
  const bool passed =
      problems_ == 0 && !deadline_hit_ && missing.empty() && live_.empty();

  std::printf("keepalive_chat_load churn summary\n");
  std::printf("  server idle timeout %s, tick %s; %zu connections for %s, "
              "lifetimes %s to %s, %zu source address(es)\n",
      format_duration(idle_).c_str(), format_duration(tick_).c_str(),
      options_.connections, format_duration(*options_.churn).c_str(),
      format_duration(options_.min_lifetime).c_str(),
      format_duration(options_.max_lifetime).c_str(),
      options_.source_addresses == 0 ? 1 : options_.source_addresses);
  std::printf("  connections: %zu opened (%.1f/s over %.1f s), %zu closed: %zu "
              "left with /quit, %zu closed by the client,\n"
              "               %zu kicked for idleness, %zu ended by an error "
              "(%zu could not connect)\n",
      opened_, seconds > 0 ? double(opened_) / seconds : 0.0, seconds, closed_,
      quit_, closed_by_client_, kicked_, problems_, connect_failures_);
  std::printf(
      "  connect start to WELCOME: p50 %.1f ms, p99 %.1f ms, max %.1f ms\n",
      ms(percentile(welcome, 0.50)), ms(percentile(welcome, 0.99)),
      welcome.empty() ? 0.0 : ms(welcome.back()));
  std::printf("  silent connections, lateness (from their last line or connect "
              "start): PING after idle/2 p50 %.1f ms,\n"
              "    p99 %.1f ms, max %.1f ms; BYE idle-timeout after idle p50 "
              "%.1f ms, p99 %.1f ms, max %.1f ms,\n"
              "    %zu of %zu later than tick + tolerance + %s (reported, not "
              "a failure: the soak checks for leaks,\n"
              "    the demo for lateness)\n",
      ms(percentile(ping, 0.50)), ms(percentile(ping, 0.99)),
      ping.empty() ? 0.0 : ms(ping.back()), ms(percentile(kick, 0.50)),
      ms(percentile(kick, 0.99)), kick.empty() ? 0.0 : ms(kick.back()),
      late_kicks, kick.size(), format_duration(options_.slack).c_str());
  std::printf("  lines sent: %zu (%zu broadcast messages), replies checked: "
              "%zu, server PINGs: %zu,\n"
              "    history lines: %zu, broadcast lines received: %zu\n",
      lines_sent_, broadcasts_sent_, replies_checked_, pings_received_,
      history_lines_, broadcasts_received_);
  std::printf("  protocol errors: %zu\n", problems_);
  for (const auto& p : first_problems_)
    std::printf("    %s\n", p.c_str());
  print_server_and_own_stats(before, after, stats_interval);
  std::string verdict = "PASS";
  if (!passed)
  {
    verdict = "FAIL (";
    if (problems_ > 0)
      verdict += std::to_string(problems_) + " protocol error(s)";
    else if (deadline_hit_)
      verdict += "the run did not finish before its deadline";
    else if (!missing.empty())
      verdict += "no connection ended by " + missing.front();
    else
      verdict += std::to_string(live_.size()) + " connection(s) still open";
    verdict += ")";
  }
  std::printf("result: %s\n", verdict.c_str());
  return passed;
}

}  // namespace

std::unique_ptr<mode> make_churn_mode(boost::asio::io_context& io,
    const client_options& options, tcp::endpoint server, nanoseconds idle,
    nanoseconds tick, nanoseconds tolerance)
{
  return std::make_unique<churn_test>(
      io, options, server, idle, tick, tolerance);
}

}  // namespace keepalive_chat::load_client
