// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// websocket_chat_load: a load client for websocket_chat_server that checks its idle policy
// from outside. It opens --connections WebSocket connections; --active of them chat (a
// heartbeat "PING" every 0.6 to 0.9 idle timeouts, and --messages broadcasts among them in
// all) and read all the while, so that Beast's client answers the server's keep-alive pings
// with pongs; the rest are silent: after the handshake they only read the raw TCP bytes, so
// they answer no ping. Checks:
//   - every silent connection is closed by the server, never before its idle timeout after
//     it started its handshake, and at most a tick + --slack after the idle timeout counted
//     from the handshake's end (Beast arms the idle timer when the server's first read
//     starts, which lies between the two);
//   - every active one survives --periods idle timeouts, receives at least one ping (the
//     server's, answered by Beast's client) when the server pings, gets a PONG for each
//     heartbeat and every broadcast the others sent, and at the end leaves with a last
//     PING, then /quit once its PONG came, BYE quit and a close handshake.
// It reads the server's idle timeout, tick and ping setting from /stats. --hold D instead
// keeps every connection for D with the active ones sending a heartbeat each --chat-interval
// and expects all to survive (the benchmark's and the memory measurement's mode: it prints
// "ready" once connected and "done messages=N" at the end; with --start-on-input the
// heartbeats wait after "ready" for a line on stdin, so that a script opens its measurement
// window first: test/bench/websocket_w11.sh). Prints a summary; exit status 0
// when every check passed, 1 when one failed, 2 on bad flags.
#include "common/flags.hpp"
#include "common/server_main.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/websocket.hpp>

#include <netinet/in.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = net::ip::tcp;
using error_code = boost::system::error_code;
using clock_type = std::chrono::steady_clock;
using namespace std::chrono_literals;
using example_common::parse_count;
using example_common::parse_duration;
using example_common::usage_error;

constexpr auto use_tuple = net::as_tuple(net::use_awaitable);
using ws_stream = websocket::stream<tcp::socket>;

struct client_options
{
  std::string host = "127.0.0.1";
  unsigned short port = 0;
  std::size_t connections = 10000;
  std::optional<std::size_t> active;  // default: 5 % of the connections
  std::size_t messages = 5;
  std::size_t periods = 3;
  std::chrono::nanoseconds slack = 100ms;
  std::size_t connect_concurrency = 256;
  std::size_t source_addresses = 0;
  std::optional<std::chrono::nanoseconds> hold;
  std::chrono::nanoseconds chat_interval = 1s;
  bool start_on_input = false;
  bool until_eof = false;
  bool help = false;
};

client_options parse_client_options(int argc, char** argv)
{
  client_options o;
  example_common::for_each_flag(argc, argv,
      {"--help", "--start-on-input", "--until-eof"},
      [&](const std::string& flag, const std::string& value) {
        if (flag == "--help")
          o.help = true;
        else if (flag == "--host")
          o.host = example_common::parse_address(flag, value);
        else if (flag == "--port")
          o.port =
              static_cast<unsigned short>(parse_count(flag, value, 1, 65535));
        else if (flag == "--connections")
          o.connections = parse_count(flag, value, 1, 1'000'000);
        else if (flag == "--active")
          o.active = parse_count(flag, value, 0, 1'000'000);
        else if (flag == "--messages")
          o.messages = parse_count(flag, value, 0, 100'000);
        else if (flag == "--periods")
          o.periods = parse_count(flag, value, 1, 1000);
        else if (flag == "--slack")
          o.slack = parse_duration(flag, value);
        else if (flag == "--connect-concurrency")
          o.connect_concurrency = parse_count(flag, value, 1, 100'000);
        else if (flag == "--source-addresses")
          o.source_addresses = parse_count(flag, value, 0, 200);
        else if (flag == "--hold")
          o.hold = parse_duration(flag, value);
        else if (flag == "--chat-interval")
        {
          o.chat_interval = parse_duration(flag, value);
          if (o.chat_interval.count() == 0)
            throw usage_error("--chat-interval: must be greater than 0");
        }
        else if (flag == "--start-on-input")
          o.start_on_input = true;
        else if (flag == "--until-eof")
          o.until_eof = true;
        else
          throw usage_error(flag + ": unknown flag (see --help)");
      });
  if (!o.help && o.port == 0)
    throw usage_error("--port: required");
  if (o.active && *o.active > o.connections)
    throw usage_error("--active: more than --connections ("
        + std::to_string(o.connections) + ")");
  return o;
}

std::string client_usage()
{
  return "usage: websocket_chat_load --port N [flags]\n"
         "Opens WebSocket connections to websocket_chat_server and checks its "
         "idle policy.\n\n"
         "  --host ADDRESS            server address (default 127.0.0.1)\n"
         "  --port N                  server port (required)\n"
         "  --connections N           connections (default 10000)\n"
         "  --active N                of them chatting and answering pings "
         "(default 5 %)\n"
         "  --messages N              broadcasts among the active ones in all "
         "(default 5)\n"
         "  --periods N               idle timeouts the active ones must "
         "survive (default 3)\n"
         "  --slack D                 lateness allowed beyond a tick (default "
         "100ms)\n"
         "  --connect-concurrency N   handshakes under way at once (default "
         "256)\n"
         "  --source-addresses N      bind to 127.0.0.2 .. 127.0.0.N+1 in turn "
         "(beyond one address's\n"
         "                            ephemeral ports; default 0: none)\n"
         "  --hold D                  instead: keep every connection for D, "
         "the active ones sending a\n"
         "                            heartbeat each --chat-interval (default "
         "1s); all must survive\n"
         "  --start-on-input          with --hold: after \"ready\", wait for "
         "a line (or the end) on stdin\n"
         "                            before starting the heartbeats (a "
         "benchmark's window opens then)\n"
         "  --until-eof               with --hold: after \"done\", keep the "
         "connections until stdin ends\n"
         "  --help                    print this and exit\n";
}

double ms(clock_type::duration d)
{
  return std::chrono::duration<double, std::milli>(d).count();
}

// The server's settings, from its /stats line.
struct server_settings
{
  std::string timers;
  std::string websocket_timer;  // wheel, steady_timer or none
  clock_type::duration idle{};
  clock_type::duration tick{};
  bool pings = false;
  std::string line;
};

std::map<std::string, std::string> parse_stats(const std::string& line)
{
  std::map<std::string, std::string> fields;
  std::istringstream in(line);
  std::string word;
  while (in >> word)
    if (auto eq = word.find('='); eq != std::string::npos)
      fields[word.substr(0, eq)] = word.substr(eq + 1);
  return fields;
}

// What one connection saw.
struct connection_record
{
  bool active = false;
  bool connected = false;
  std::string failure;  // empty: nothing went wrong
  // Silent ones.
  clock_type::time_point handshake_start{}, handshake_done{}, closed_at{};
  bool closed = false;
  // Active ones.
  std::size_t pings = 0, heartbeats = 0, pongs = 0, broadcasts_received = 0,
              broadcasts_sent = 0;
  bool said_bye = false, close_done = false;
  std::unique_ptr<ws_stream> ws;
  // An active connection's messages to send, one write at a time (Beast allows no more).
  std::deque<std::string> out;
  bool writing = false;
};

class load_client
{
public:
  explicit load_client(const client_options& o)
    : options_(o), endpoint_(net::ip::make_address(o.host), o.port),
      records_(o.connections)
  {
    const std::size_t active = o.active ? *o.active : o.connections / 20;
    for (std::size_t i = 0; i < active; ++i)
      records_[i].active = true;
    active_count_ = active;
  }

  int run();

private:
  net::awaitable<bool> open(ws_stream& ws);
  net::awaitable<std::string> read_text(ws_stream& ws, error_code& ec);
  net::awaitable<void> fetch_settings();
  net::awaitable<void> connect_worker();
  net::awaitable<void> silent_life(std::size_t i);
  net::awaitable<void> active_reader(std::size_t i);
  net::awaitable<void> heartbeats(std::size_t i);
  void send(connection_record& r, std::string text);
  net::awaitable<void> drain(connection_record& r);
  net::awaitable<void> main_task();
  net::awaitable<void> sleep_until(clock_type::time_point t);
  net::awaitable<void> read_stdin(bool to_the_end);
  void fail(connection_record& r, const std::string& why)
  {
    if (r.failure.empty())
      r.failure = why;
  }
  int summarize();

  client_options options_;
  net::io_context io_{1};
  tcp::endpoint endpoint_;
  std::vector<connection_record> records_;
  std::size_t active_count_ = 0;
  std::size_t next_connection_ = 0, connected_ = 0, source_turn_ = 0;
  std::size_t silent_closed_ = 0;
  std::size_t welcomed_ = 0;  // active connections that have read their WELCOME
  server_settings settings_;
  std::string final_stats_;
  std::string setup_failure_;
  bool stopping_ = false;  // the active ones stop sending heartbeats
  bool quitting_ =
      false;  // the active ones' reads expect BYE quit and the close
  bool closing_all_ =
      false;  // the client closes what is left: not the server's doing
  std::mt19937_64 random_{12345};
};

// Connects (bound to the next source address if asked) and does the handshake.
net::awaitable<bool> load_client::open(ws_stream& ws)
{
  tcp::socket& socket = ws.next_layer();
  error_code ec;
  socket.open(endpoint_.protocol(), ec);
  if (!ec && options_.source_addresses > 0)
  {
    // IP_BIND_ADDRESS_NO_PORT leaves the port to connect(), which picks it per
    // destination: without it bind() would take an ephemeral port per socket.
    int on = 1;
    ::setsockopt(socket.native_handle(), IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT,
        &on, sizeof on);
    const auto source = net::ip::make_address_v4(0x7f000002u
        + static_cast<std::uint32_t>(
            source_turn_++ % options_.source_addresses));
    socket.bind(tcp::endpoint(source, 0), ec);
  }
  if (ec)
    co_return false;
  auto [connect_ec] = co_await socket.async_connect(endpoint_, use_tuple);
  if (connect_ec)
    co_return false;
  socket.set_option(tcp::no_delay(true), ec);
  co_return true;
}

net::awaitable<std::string> load_client::read_text(
    ws_stream& ws, error_code& ec)
{
  beast::flat_buffer buffer;
  auto [read_ec, n] = co_await ws.async_read(buffer, use_tuple);
  ec = read_ec;
  (void)n;
  co_return beast::buffers_to_string(buffer.data());
}

// The server's idle timeout, tick and pings, from /stats on a connection of its own.
net::awaitable<void> load_client::fetch_settings()
{
  ws_stream ws(io_);
  if (!co_await open(ws))
  {
    setup_failure_ = "cannot connect to the server";
    co_return;
  }
  auto [ec] = co_await ws.async_handshake(options_.host, "/", use_tuple);
  if (ec)
  {
    setup_failure_ = "handshake: " + ec.message();
    co_return;
  }
  co_await ws.async_write(net::buffer(std::string("/stats")), use_tuple);
  for (;;)
  {
    error_code read_ec;
    std::string text = co_await read_text(ws, read_ec);
    if (read_ec)
    {
      setup_failure_ = "reading /stats: " + read_ec.message();
      co_return;
    }
    if (text.rfind("STATS ", 0) != 0)
      continue;  // the welcome and the history
    auto fields = parse_stats(text);
    settings_.line = text;
    settings_.timers = fields["timers"];
    settings_.websocket_timer = fields["websocket_timer"];
    settings_.idle = std::chrono::milliseconds(std::stoll(
        fields.count("idle_timeout_ms") ? fields["idle_timeout_ms"] : "0"));
    settings_.tick = std::chrono::microseconds(
        std::stoll(fields.count("tick_us") ? fields["tick_us"] : "0"));
    settings_.pings = fields["pings"] == "on";
    break;
  }
  co_await ws.async_write(net::buffer(std::string("/quit")), use_tuple);
  for (;;)
  {
    error_code read_ec;
    co_await read_text(ws, read_ec);
    if (read_ec)
      break;  // websocket::error::closed once the server's close arrives
  }
}

// Opens connections one after another, until all are open.
net::awaitable<void> load_client::connect_worker()
{
  while (next_connection_ < records_.size())
  {
    const std::size_t i = next_connection_++;
    connection_record& r = records_[i];
    r.ws = std::make_unique<ws_stream>(io_);
    if (!co_await open(*r.ws))
    {
      fail(r, "cannot connect");
      ++connected_;
      continue;
    }
    r.handshake_start = clock_type::now();
    auto [ec] = co_await r.ws->async_handshake(options_.host, "/", use_tuple);
    r.handshake_done = clock_type::now();
    ++connected_;
    if (ec)
    {
      fail(r, "handshake: " + ec.message());
      continue;
    }
    r.connected = true;
    if (r.active)
    {
      r.ws->control_callback(
          [&r](websocket::frame_type kind, beast::string_view) {
            if (kind == websocket::frame_type::ping)
              ++r.pings;
          });
      net::co_spawn(io_, active_reader(i), net::detached);
    }
    else
      net::co_spawn(io_, silent_life(i), net::detached);
  }
}

// A silent connection reads the raw bytes (the welcome, broadcasts, pings) and never answers
// a ping, until the server closes it.
net::awaitable<void> load_client::silent_life(std::size_t i)
{
  connection_record& r = records_[i];
  std::array<char, 4096> bytes;
  for (;;)
  {
    auto [ec, n] = co_await r.ws->next_layer().async_read_some(
        net::buffer(bytes), use_tuple);
    (void)n;
    if (ec)
      break;  // EOF (or a reset): the server closed it
  }
  if (closing_all_)
    co_return;
  r.closed = true;
  r.closed_at = clock_type::now();
  ++silent_closed_;
}

// An active connection reads every message (Beast's client answers the pings meanwhile).
net::awaitable<void> load_client::active_reader(std::size_t i)
{
  connection_record& r = records_[i];
  bool welcomed = false;
  std::size_t history = 0;  // messages from before this run, after the WELCOME
  for (;;)
  {
    error_code ec;
    std::string text = co_await read_text(*r.ws, ec);
    if (ec)
    {
      if (!quitting_ || !r.said_bye)
        fail(r, "connection ended before /quit: " + ec.message());
      else if (ec == websocket::error::closed)
        r.close_done = true;
      else
        fail(r, "after BYE quit: " + ec.message() + " instead of the close");
      co_return;
    }
    if (!welcomed)
    {
      if (text.rfind("WELCOME ", 0) != 0)
        fail(r, "first message is not WELCOME: " + text);
      welcomed = true;
      ++welcomed_;
      if (auto at = text.find(" history="); at != std::string::npos)
        history = std::stoul(text.substr(at + 9));
      // With --hold the heartbeats start together, once everything is set up.
      if (!options_.hold)
        net::co_spawn(io_, heartbeats(i), net::detached);
      continue;
    }
    if (history > 0)
    {
      --history;
      continue;
    }
    if (text == "PONG")
    {
      ++r.pongs;
      // The last PING's PONG (pongs only grow, so this holds once).
      if (quitting_ && r.pongs == r.heartbeats)
        send(r, "/quit");
    }
    else if (text == "BYE quit")
      r.said_bye = true;
    else if (text.rfind("STATS ", 0) == 0)
      final_stats_ = text;
    else if (text.find(": load-broadcast ") != std::string::npos)
      ++r.broadcasts_received;
    else
      fail(r, "unexpected: " + text);
  }
}

// Queues a message on an active connection; one coroutine writes them in order.
void load_client::send(connection_record& r, std::string text)
{
  r.out.push_back(std::move(text));
  if (!r.writing)
  {
    r.writing = true;
    net::co_spawn(io_, drain(r), net::detached);
  }
}

net::awaitable<void> load_client::drain(connection_record& r)
{
  while (!r.out.empty())
  {
    auto [ec, n] =
        co_await r.ws->async_write(net::buffer(r.out.front()), use_tuple);
    (void)n;
    r.out.pop_front();
    if (ec)
    {
      fail(r, "write: " + ec.message());
      r.out.clear();
    }
  }
  r.writing = false;
}

// An active connection's heartbeats: "PING" every 0.6 to 0.9 idle timeouts (every
// --chat-interval with --hold), so that the server pings it in between.
net::awaitable<void> load_client::heartbeats(std::size_t i)
{
  connection_record& r = records_[i];
  std::uniform_real_distribution<double> spread(0.6, 0.9);
  net::steady_timer timer(io_);
  // With --hold, at a random phase of the interval, so that the connections'
  // heartbeats are spread over it rather than all at once.
  std::uniform_real_distribution<double> phase(0.0, 1.0);
  bool first = true;
  while (!stopping_)
  {
    const clock_type::duration wait = options_.hold
        ? std::chrono::duration_cast<clock_type::duration>(
            options_.chat_interval * (first ? phase(random_) : 1.0))
        : std::chrono::duration_cast<clock_type::duration>(
            settings_.idle * spread(random_));
    first = false;
    timer.expires_after(wait);
    co_await timer.async_wait(use_tuple);
    if (stopping_ || !r.failure.empty())
      break;
    send(r, "PING");
    ++r.heartbeats;
  }
}

net::awaitable<void> load_client::sleep_until(clock_type::time_point t)
{
  net::steady_timer timer(io_, t);
  co_await timer.async_wait(use_tuple);
}

net::awaitable<void> load_client::main_task()
{
  co_await fetch_settings();
  if (!setup_failure_.empty())
    co_return;
  if (!options_.hold && settings_.idle == 0s)
  {
    setup_failure_ = "the server has no idle timeout (--timers off or "
                     "--no-timeouts): nothing to check (use --hold)";
    co_return;
  }
  std::cout << "server: " << settings_.line << std::endl;

  // Connect everything, --connect-concurrency handshakes at a time.
  const auto connect_start = clock_type::now();
  for (std::size_t w = 0; w < options_.connect_concurrency; ++w)
    net::co_spawn(io_, connect_worker(), net::detached);
  while (connected_ < records_.size())
    co_await sleep_until(clock_type::now() + 10ms);
  const auto connected_at = clock_type::now();
  std::cout << "connected " << records_.size() << " in "
            << ms(connected_at - connect_start) << " ms" << std::endl;

  if (options_.hold)
  {
    // Measured from "ready" to "done" (benchmark W11): the heartbeats start at
    // "ready", once every welcome has been read and the server has been quiet
    // for a second, and "done" comes when the last of them has its PONG, so
    // that the window holds exactly the server's work for those messages
    // (and whatever its timers do meanwhile).
    std::size_t expected_welcomes = 0;
    for (std::size_t i = 0; i < active_count_; ++i)
      expected_welcomes += records_[i].connected;
    const auto welcome_limit = clock_type::now() + 30s;
    while (welcomed_ < expected_welcomes && clock_type::now() < welcome_limit)
      co_await sleep_until(clock_type::now() + 10ms);
    co_await sleep_until(clock_type::now() + 1s);
    std::cout << "ready connections=" << records_.size() << std::endl;
    if (options_.start_on_input)
      co_await read_stdin(false);
    const auto hold_start = clock_type::now();
    for (std::size_t i = 0; i < active_count_; ++i)
      if (records_[i].connected && records_[i].failure.empty())
        net::co_spawn(io_, heartbeats(i), net::detached);
    co_await sleep_until(hold_start + *options_.hold);
    stopping_ = true;
    auto answered = [&] {
      for (std::size_t i = 0; i < active_count_; ++i)
        if (records_[i].failure.empty()
            && records_[i].pongs < records_[i].heartbeats)
          return false;
      return true;
    };
    const auto pong_limit = clock_type::now() + 10s;
    while (!answered() && clock_type::now() < pong_limit)
      co_await sleep_until(clock_type::now() + 10ms);
    std::size_t messages = 0;
    for (auto& r : records_)
      messages += r.heartbeats;
    std::cout << "done messages=" << messages << std::endl;
    if (options_.until_eof)
      co_await read_stdin(true);
  }
  else
  {
    // Broadcasts spread over the run, by the active ones in turn.
    const auto run_end = connected_at + options_.periods * settings_.idle;
    std::size_t sender = 0;
    for (std::size_t m = 0; m < options_.messages && active_count_ > 0; ++m)
    {
      co_await sleep_until(connected_at
          + (options_.periods * settings_.idle) * (m + 1)
              / (options_.messages + 2));
      connection_record& r = records_[sender++ % active_count_];
      if (!r.connected || !r.failure.empty())
        continue;
      send(r, "load-broadcast " + std::to_string(m));
      ++r.broadcasts_sent;
    }
    // Until the active ones have survived --periods idle timeouts and every
    // silent one is closed (or overdue).
    clock_type::time_point last_handshake = connected_at;
    for (auto& r : records_)
      last_handshake = std::max(last_handshake, r.handshake_done);
    const auto overdue =
        last_handshake + settings_.idle + settings_.tick + options_.slack + 1s;
    const std::size_t silent = records_.size() - active_count_;
    while (clock_type::now() < run_end
        || (silent_closed_ < silent && clock_type::now() < overdue))
      co_await sleep_until(clock_type::now() + 10ms);
    stopping_ = true;
  }

  // The end: /stats from one active connection, then from each a last PING and, once its
  // PONG came, /quit (active_reader). The server's read of that PING re-armed Beast's idle
  // timer, so the close does not begin as the timer falls due: Beast (every release, with
  // its own timers as with the wheel's) ends a close begun then as timed out, and the
  // client sees a reset instead of the close handshake (doc/example.md).
  quitting_ = true;
  for (std::size_t i = 0; i < active_count_; ++i)
    if (records_[i].connected && records_[i].failure.empty())
    {
      send(records_[i], "/stats");
      break;
    }
  for (std::size_t i = 0; i < active_count_; ++i)
  {
    connection_record& r = records_[i];
    if (r.connected && r.failure.empty())
    {
      send(r, "PING");
      ++r.heartbeats;
    }
  }
  const auto end_limit = clock_type::now() + 10s;
  auto all_closed = [&] {
    for (std::size_t i = 0; i < active_count_; ++i)
      if (records_[i].connected && records_[i].failure.empty()
          && !records_[i].close_done)
        return false;
    return true;
  };
  while (!all_closed() && clock_type::now() < end_limit)
    co_await sleep_until(clock_type::now() + 10ms);
  // What is left (the silent ones with --hold, the overdue) is closed here.
  closing_all_ = true;
  for (auto& r : records_)
  {
    error_code ignored;
    if (r.ws)
      r.ws->next_layer().close(ignored);
  }
}

// Reads stdin until a newline (to_the_end: until its end), or its end. The benchmark's script
// opens its measurement window (the server's CPU time, callgrind's counters) before it writes
// the line that starts the heartbeats.
net::awaitable<void> load_client::read_stdin(bool to_the_end)
{
  net::posix::stream_descriptor in(io_, ::dup(STDIN_FILENO));
  char byte = 0;
  for (;;)
  {
    auto [ec, n] =
        co_await in.async_read_some(net::buffer(&byte, 1), use_tuple);
    if (ec || (n == 1 && byte == '\n' && !to_the_end))
      break;
  }
}

int load_client::run()
{
  net::co_spawn(io_, main_task(), [](std::exception_ptr e) {
    if (e)
      std::rethrow_exception(e);
  });
  io_.run();
  return summarize();
}

// Percentile p of sorted values (nearest rank).
double percentile(const std::vector<double>& sorted, double p)
{
  if (sorted.empty())
    return 0;
  const std::size_t rank = static_cast<std::size_t>(
      p * static_cast<double>(sorted.size() - 1) + 0.5);
  return sorted[std::min(rank, sorted.size() - 1)];
}

int load_client::summarize()
{
  if (!setup_failure_.empty())
  {
    std::cout << "FAILED: " << setup_failure_ << "\n";
    return 1;
  }
  std::size_t failures = 0, early = 0, late = 0, not_closed = 0, survived = 0,
              closed_in_hold = 0, no_ping = 0, broadcasts_missing = 0,
              pongs_missing = 0;
  std::size_t pings = 0, min_pings = SIZE_MAX, heartbeats = 0, pongs = 0;
  std::size_t broadcasts_sent = 0;
  for (auto& r : records_)
    broadcasts_sent += r.broadcasts_sent;
  std::vector<double> lateness;
  // Each kind of failure, counted, with its first message in full (its error).
  std::map<std::string, std::pair<std::size_t, std::string>> reasons;
  for (auto& r : records_)
  {
    if (!r.failure.empty())
    {
      ++failures;
      auto& [count, first] = reasons[r.failure.substr(0, r.failure.find(':'))];
      if (count++ == 0)
        first = r.failure;
      continue;
    }
    if (r.active)
    {
      ++survived;
      pings += r.pings;
      min_pings = std::min(min_pings, r.pings);
      heartbeats += r.heartbeats;
      pongs += r.pongs;
      if (r.pongs != r.heartbeats)
        ++pongs_missing;
      if (!options_.hold && settings_.pings && r.pings == 0)
        ++no_ping;
      if (r.broadcasts_received != broadcasts_sent - r.broadcasts_sent)
        ++broadcasts_missing;
      continue;
    }
    if (options_.hold)
    {
      closed_in_hold += r.closed;
      continue;
    }
    if (!r.closed)
    {
      ++not_closed;
      continue;
    }
    const auto earliest = r.handshake_start + settings_.idle;
    const auto latest =
        r.handshake_done + settings_.idle + settings_.tick + options_.slack;
    if (r.closed_at < earliest)
      ++early;
    if (r.closed_at > latest)
      ++late;
    lateness.push_back(ms(r.closed_at - earliest));
  }
  std::sort(lateness.begin(), lateness.end());
  const std::size_t silent = records_.size() - active_count_;
  std::cout << "connections " << records_.size() << ": " << active_count_
            << " active, " << silent << " silent; failed " << failures << "\n";
  for (const auto& [reason, failed] : reasons)
    std::cout << "  failed: " << reason << " (" << failed.first
              << "), the first: " << failed.second << "\n";
  if (options_.hold)
    std::cout << "hold: silent closed by the server " << closed_in_hold
              << " (expected 0)\n";
  else
    std::cout << "silent: closed by the idle timeout " << lateness.size()
              << ", early " << early << ", late " << late << ", not closed "
              << not_closed << "; lateness after handshake start + idle: p50 "
              << percentile(lateness, 0.5) << " ms, p99 "
              << percentile(lateness, 0.99) << " ms, max "
              << (lateness.empty() ? 0.0 : lateness.back())
              << " ms (allowed: tick " << ms(settings_.tick) << " ms + slack "
              << ms(options_.slack) << " ms + the handshake)\n";
  std::cout << "active: survived " << survived << "; pings received " << pings
            << " (min per connection "
            << (min_pings == SIZE_MAX ? 0 : min_pings) << "), without a ping "
            << no_ping << "; heartbeats " << heartbeats << ", PONGs " << pongs
            << ", missing on " << pongs_missing << " connections; broadcasts "
            << broadcasts_sent << ", missing on " << broadcasts_missing
            << " connections\n";
  std::cout << "server at the end: "
            << (final_stats_.empty() ? "(no /stats answer)" : final_stats_)
            << "\n";
  // Where the websocket's timer is a wheel timer, every idle close is at least one expiry in
  // the wheel (two with pings: the ping's and the close's).
  bool wheel_saw_closes = true;
  if (!options_.hold && settings_.websocket_timer == "wheel")
  {
    auto fields = parse_stats(final_stats_);
    const std::uint64_t expired = fields.count("waits_expired")
        ? std::stoull(fields["waits_expired"])
        : 0;
    const std::uint64_t needed = lateness.size() * (settings_.pings ? 2 : 1);
    wheel_saw_closes = expired >= needed;
    std::cout << "wheel: " << expired << " expiries, at least " << needed
              << " expected for " << lateness.size() << " idle closes"
              << (wheel_saw_closes ? "" : ": the timer is not in the wheel")
              << "\n";
  }
  else if (!options_.hold)
    std::cout << "wheel: the server's websocket timer is "
              << settings_.websocket_timer << ", not the wheel's\n";
  const bool ok = failures == 0 && early == 0 && late == 0 && not_closed == 0
      && closed_in_hold == 0 && no_ping == 0 && pongs_missing == 0
      && broadcasts_missing == 0 && survived == active_count_
      && !final_stats_.empty() && wheel_saw_closes;
  std::cout << (ok ? "PASS" : "FAIL") << std::endl;
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv)
{
  client_options options;
  if (const auto exit_status = example_common::parse_flags_or_exit(argc, argv,
          "websocket_chat_load", options, parse_client_options, client_usage))
    return *exit_status;
  example_common::raise_open_files_limit();
  try
  {
    load_client client(options);
    return client.run();
  }
  catch (const std::exception& e)
  {
    std::cerr << "websocket_chat_load: " << e.what() << "\n";
    return 1;
  }
}
