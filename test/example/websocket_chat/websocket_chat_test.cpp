// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// Integration tests of example/websocket_chat: each test starts websocket_chat_server (the
// program of the build's Beast) on an ephemeral 127.0.0.1 port and checks one behaviour
// through real WebSocket connections (Beast's client, every run bounded by run_for), or
// starts the load client against it. The process helpers are the keepalive chat tests'.
#define BOOST_TEST_MODULE websocket_chat
#include <boost/test/unit_test.hpp>

#include "../keepalive_chat/chat_test_support.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/version.hpp>
#include <boost/beast/websocket.hpp>

#include <signal.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

using namespace chat_test;
using namespace std::chrono_literals;

namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = net::ip::tcp;
using error_code = boost::system::error_code;

const char* const server_path = WEBSOCKET_CHAT_SERVER;
const char* const load_path = WEBSOCKET_CHAT_LOAD;

// The server started with `flags` plus --port 0; reads "listening on 127.0.0.1:PORT".
class chat_server
{
public:
  explicit chat_server(std::vector<std::string> flags)
    : process_(server_path, with_port_0(std::move(flags)), true)
  {
    const auto line = process_.read_stdout_line(5000ms);
    BOOST_REQUIRE_MESSAGE(
        line.has_value(), "no \"listening on\" line within 5 s");
    const std::string prefix = "listening on 127.0.0.1:";
    BOOST_REQUIRE_MESSAGE(
        line->rfind(prefix, 0) == 0, "unexpected first line: " << *line);
    port_ =
        static_cast<unsigned short>(std::stoul(line->substr(prefix.size())));
  }
  unsigned short port() const { return port_; }
  child_process& process() { return process_; }

private:
  static std::vector<std::string> with_port_0(std::vector<std::string> flags)
  {
    flags.insert(flags.begin(), {"--port", "0"});
    return flags;
  }
  child_process process_;
  unsigned short port_ = 0;
};

// A WebSocket client of the chat; every operation is bounded by run_for.
class ws_client
{
public:
  explicit ws_client(unsigned short port) : ws_(io_)
  {
    handshake_start_ = clock_type::now();
    ws_.next_layer().connect(
        tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
    bool done = false;
    error_code result;
    ws_.async_handshake("127.0.0.1", "/", [&](error_code ec) {
      result = ec;
      done = true;
    });
    run(done);
    BOOST_REQUIRE_MESSAGE(done && !result, "handshake: " << result.message());
    handshake_done_ = clock_type::now();
  }

  // Before the connect, and once the opening handshake was done.
  clock_type::time_point handshake_start() const { return handshake_start_; }
  clock_type::time_point handshake_done() const { return handshake_done_; }

  // A silent client: reads only the raw TCP bytes (so answers no ping) until the server
  // closes the connection; returns when that was, or nullopt if it stayed open 5 s.
  std::optional<clock_type::time_point> wait_for_raw_close()
  {
    char bytes[512];
    bool closed = false;
    clock_type::time_point at;
    std::function<void()> read_more = [&] {
      ws_.next_layer().async_read_some(
          net::buffer(bytes), [&](error_code ec, std::size_t) {
            if (!ec)
              return read_more();
            at = clock_type::now();
            closed = true;
          });
    };
    read_more();
    run(closed);
    if (!closed)
      return std::nullopt;
    return at;
  }

  void send(const std::string& text, bool binary = false)
  {
    ws_.binary(binary);
    bool done = false;
    error_code result;
    ws_.async_write(net::buffer(text), [&](error_code ec, std::size_t) {
      result = ec;
      done = true;
    });
    run(done);
    BOOST_REQUIRE_MESSAGE(done && !result, "write: " << result.message());
  }

  // The next message, or nullopt with the error (in `ended`) when the connection ends.
  std::optional<std::string> read(error_code* ended = nullptr)
  {
    beast::flat_buffer buffer;
    bool done = false;
    error_code result;
    ws_.async_read(buffer, [&](error_code ec, std::size_t) {
      result = ec;
      done = true;
    });
    run(done);
    BOOST_REQUIRE_MESSAGE(done, "no message within 5 s");
    if (ended)
      *ended = result;
    if (result)
      return std::nullopt;
    return beast::buffers_to_string(buffer.data());
  }

  void expect(const std::string& expected)
  {
    const auto text = read();
    BOOST_TEST_REQUIRE(text.has_value());
    BOOST_TEST(*text == expected);
  }

  // Reads the welcome ("WELCOME NAME history=N" and N messages); returns NAME.
  std::string welcome()
  {
    const auto text = read();
    BOOST_TEST_REQUIRE(text.has_value());
    BOOST_TEST_REQUIRE(text->rfind("WELCOME ", 0) == 0, *text);
    const auto space = text->find(' ', 8);
    const std::size_t history = std::stoul(text->substr(text->find('=') + 1));
    for (std::size_t i = 0; i < history; ++i)
      read();
    return text->substr(8, space - 8);
  }

private:
  void run(bool& done)
  {
    io_.restart();
    const auto end = clock_type::now() + 5s;
    while (!done && clock_type::now() < end)
    {
      if (io_.stopped())
        io_.restart();
      io_.run_for(10ms);
    }
  }

  net::io_context io_;
  websocket::stream<tcp::socket> ws_;
  clock_type::time_point handshake_start_, handshake_done_;
};

// The value of @p key in a "STATS key=value ..." line (0 if absent).
std::uint64_t stats_field(const std::string& stats, const std::string& key)
{
  const auto at = stats.find(" " + key + "=");
  if (at == std::string::npos)
    return 0;
  return std::stoull(stats.substr(at + key.size() + 2));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(process)

BOOST_AUTO_TEST_CASE(protocol_nick_who_broadcast_heartbeat_errors_quit)
{
  chat_server server({"--timers", "wheel", "--idle-timeout", "10s"});
  ws_client alice(server.port()), bob(server.port());
  BOOST_TEST(alice.welcome() == "guest1");
  BOOST_TEST(bob.welcome() == "guest2");
  alice.send("/nick alice");
  alice.expect("OK nick alice");
  bob.send("/nick alice");
  bob.expect("ERR nick-taken alice");
  bob.send("/nick bad name!");
  bob.expect("ERR invalid-nick 1 to 32 of A-Z a-z 0-9 _ -");
  bob.send("/who");
  bob.expect("WHO count=2 alice guest2");
  alice.send("hello room");
  bob.expect("alice: hello room");
  bob.send("PING");
  bob.expect("PONG");
  bob.send("");
  bob.expect("PONG");
  bob.send("/frobnicate now");
  bob.expect("ERR unknown-command /frobnicate");
  bob.send("binary", true);
  bob.expect("ERR binary-not-supported");
  // A newcomer gets the history.
  ws_client carol(server.port());
  const auto welcome = carol.read();
  BOOST_TEST_REQUIRE(welcome.has_value());
  BOOST_TEST(*welcome == "WELCOME guest3 history=1");
  carol.expect("alice: hello room");
  // /quit: the goodbye, then the server's close handshake.
  alice.send("/quit");
  alice.expect("BYE quit");
  error_code ended;
  BOOST_TEST(!alice.read(&ended).has_value());
  BOOST_TEST(ended == error_code(websocket::error::closed), ended.message());
  bob.send("/who");
  bob.expect("WHO count=2 guest2 guest3");
}

BOOST_AUTO_TEST_CASE(sigterm_says_goodbye_and_exits_zero)
{
  for (const char* timers : {"wheel", "beast", "off"})
  {
    BOOST_TEST_CONTEXT("--timers " << timers)
    {
      chat_server server({"--timers", timers});
      ws_client client(server.port());
      client.welcome();
      server.process().send_signal(SIGTERM);
      client.expect("BYE server-shutdown");
      error_code ended;
      BOOST_TEST(!client.read(&ended).has_value());
      BOOST_TEST(
          ended == error_code(websocket::error::closed), ended.message());
      const auto status = server.process().wait_for_exit(10000ms);
      BOOST_TEST_REQUIRE(status.has_value());
      BOOST_TEST(*status == 0);
    }
  }
}

// /stats says which timer the websocket's idle timeout has: the wheel's where Beast routes it
// (1.82 and later, --timers wheel), a steady_timer otherwise.
BOOST_AUTO_TEST_CASE(stats_name_the_websocket_timer)
{
  const bool routed = BOOST_BEAST_VERSION >= 347;
  const std::vector<std::pair<std::string, std::string>> cases{
      {"wheel", routed ? "wheel" : "steady_timer"}, {"beast", "steady_timer"},
      {"off", "none"}};
  for (const auto& [timers, kind] : cases)
  {
    BOOST_TEST_CONTEXT("--timers " << timers)
    {
      chat_server server({"--timers", timers});
      ws_client client(server.port());
      client.welcome();
      client.send("/stats");
      const auto stats = client.read();
      BOOST_TEST_REQUIRE(stats.has_value());
      BOOST_TEST(
          stats->find(" timers=" + timers + " ") != std::string::npos, *stats);
      BOOST_TEST(
          stats->find(" websocket_timer=" + kind + " ") != std::string::npos,
          *stats);
      BOOST_TEST((stats->find(" waits_expired=") != std::string::npos)
              == (timers == "wheel"),
          *stats);
    }
  }
}

BOOST_AUTO_TEST_CASE(bad_flag_values_exit_2_naming_the_flag)
{
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"--timers", "heap"}, "--timers"},
      {{"--pings", "maybe"}, "--pings"},
      {{"--port", "70000"}, "--port"},
      {{"--idle-timeout", "5"}, "--idle-timeout"},
      {{"--idle-timeout", "15ms"}, "--idle-timeout"},  // below two ticks
      {{"--tick", "0s"}, "--tick"},
      {{"--max-message", "1"}, "--max-message"},
      {{"--bind", "not-an-address"}, "--bind"},
      {{"--frobnicate", "1"}, "--frobnicate"},
      {{"--threads", "0"}, "--threads"},
      {{"--contexts", "many"}, "--contexts"},
      // One shape or the other: N contexts of one thread, or one of N threads.
      {{"--contexts", "2", "--threads", "2"}, "--contexts"},
  };
  for (const auto& [args, flag] : cases)
  {
    BOOST_TEST_CONTEXT(args[0] << " " << args[1])
    {
      child_process child(server_path, args, true);
      const auto status = child.wait_for_exit(5000ms);
      BOOST_TEST_REQUIRE(status.has_value());
      BOOST_TEST(*status == 2);
      const std::string error = child.read_rest_of_stderr(1000ms);
      BOOST_TEST(error.rfind("websocket_chat_server: " + flag, 0) == 0,
          "stderr: " << error);
      BOOST_TEST(std::count(error.begin(), error.end(), '\n') == 1,
          "not one line: " << error);
    }
  }
  child_process load(load_path, {"--connections", "10"}, true);
  const auto status = load.wait_for_exit(5000ms);
  BOOST_TEST_REQUIRE(status.has_value());
  BOOST_TEST(*status == 2);
  BOOST_TEST(load.read_rest_of_stderr(1000ms)
      == "websocket_chat_load: --port: required\n");
}

BOOST_AUTO_TEST_CASE(help_lists_the_flags_and_exits_zero)
{
  child_process child(server_path, {"--help"});
  const std::string text = child.read_rest_of_stdout(5000ms);
  const auto status = child.wait_for_exit(5000ms);
  BOOST_TEST_REQUIRE(status.has_value());
  BOOST_TEST(*status == 0);
  for (const char* flag : {"--bind", "--port", "--timers", "--idle-timeout",
           "--pings", "--handshake-timeout", "--tick", "--max-connections",
           "--max-message", "--max-queue", "--threads", "--contexts"})
    BOOST_TEST(
        text.find(flag) != std::string::npos, flag << " missing from --help");
}

// The load client refuses to check an idle policy the server does not have, and says why.
BOOST_AUTO_TEST_CASE(load_client_fails_against_a_server_without_timeouts)
{
  chat_server server({"--timers", "off"});
  child_process load(load_path,
      {"--port", std::to_string(server.port()), "--connections", "10"});
  const std::string out = load.read_rest_of_stdout(10000ms);
  const auto status = load.wait_for_exit(5000ms);
  BOOST_TEST_REQUIRE(status.has_value());
  BOOST_TEST(*status == 1);
  BOOST_TEST(
      out.find("FAILED: the server has no idle timeout") != std::string::npos,
      out);
}

// The protocol with the server's threads given by @p shape: each of three chatting members
// gets every other's messages in the order said (with --contexts 3 the three are on three
// contexts, so every broadcast crosses from the first context's fan-out to the other two),
// /stats counts every context's sessions and wheel, and a silent client is closed by Beast's
// idle timeout, never before it.
void check_the_same_protocol(const std::vector<std::string>& shape)
{
  std::vector<std::string> args = shape;
  for (const char* a : {"--timers", "wheel", "--idle-timeout", "1s"})
    args.emplace_back(a);
  chat_server server(args);
  constexpr int members = 3, messages_each = 20;
  std::vector<std::unique_ptr<ws_client>> clients;
  for (int i = 0; i < members; ++i)
  {
    clients.push_back(std::make_unique<ws_client>(server.port()));
    clients.back()->welcome();
    clients.back()->send("/nick m" + std::to_string(i));
    clients.back()->expect("OK nick m" + std::to_string(i));
  }
  for (int k = 0; k < messages_each; ++k)
    for (int i = 0; i < members; ++i)
      clients[i]->send("n" + std::to_string(k));
  for (int i = 0; i < members; ++i)
  {
    std::vector<int> next(members, 0);
    for (int n = 0; n < (members - 1) * messages_each; ++n)
    {
      const auto text = clients[i]->read();
      BOOST_TEST_REQUIRE(text.has_value(),
          "member " << i << " got only " << n << " broadcasts");
      const int sender = std::stoi(text->substr(1, text->find(':') - 1));
      BOOST_TEST_REQUIRE(sender != i, "a member received its own message");
      BOOST_TEST(*text
          == "m" + std::to_string(sender) + ": n"
              + std::to_string(next[sender]));
      ++next[sender];
    }
  }
  clients[0]->send("/who");
  clients[0]->expect("WHO count=3 m0 m1 m2");
  clients[1]->send("/stats");
  const auto stats = clients[1]->read();
  BOOST_TEST_REQUIRE(stats.has_value());
  BOOST_TEST(stats_field(*stats, "connections") == 3u, *stats);
  BOOST_TEST(stats_field(*stats, "members") == 3u, *stats);
  BOOST_TEST(stats_field(*stats, "messages") == 60u, *stats);
  // Each session's HTTP request was read with the stream's own timer, in its context's
  // wheel, and cancelled once the request came: the sum of the wheels, not the first's.
  BOOST_TEST(stats_field(*stats, "waits_cancelled") >= 3u, *stats);
  // They leave, so that none of them is silent while the next one is timed.
  for (const auto& client : clients)
  {
    client->send("/quit");
    client->expect("BYE quit");
    error_code ended;
    BOOST_TEST(!client->read(&ended).has_value());
    BOOST_TEST(ended == error_code(websocket::error::closed), ended.message());
  }
  ws_client silent(server.port());
  silent.welcome();
  const auto closed_at = silent.wait_for_raw_close();
  BOOST_TEST_REQUIRE(closed_at.has_value(), "not closed within 5 s");
  BOOST_TEST(ms_since(silent.handshake_start(), *closed_at) >= 1000.0);
  BOOST_TEST(ms_since(silent.handshake_done(), *closed_at) <= 1500.0);
  // Its session ends on its context a moment after its socket closed: asked until it has.
  ws_client asking(server.port());
  asking.welcome();
  std::optional<std::string> after;
  for (int tries = 0; tries < 40; ++tries)
  {
    asking.send("/stats");
    after = asking.read();
    BOOST_TEST_REQUIRE(after.has_value());
    if (stats_field(*after, "connections") == 1u)
      break;
    std::this_thread::sleep_for(50ms);
  }
  BOOST_TEST(stats_field(*after, "connections") == 1u, *after);
  BOOST_TEST(stats_field(*after, "closed_idle") == 1u, *after);
}

BOOST_AUTO_TEST_CASE(four_threads_serve_the_same_protocol)
{
  // Sessions on strands over four threads of one context.
  check_the_same_protocol({"--threads", "4"});
}

BOOST_AUTO_TEST_CASE(three_contexts_serve_the_same_protocol)
{
  // Members handed to three contexts in turn, each context on its own thread.
  check_the_same_protocol({"--contexts", "3"});
}

// SIGINT with the server's threads given by @p shape: every client, on whichever context,
// gets the goodbye and the close, and the server exits 0.
void check_sigint_exits_zero(const std::vector<std::string>& shape)
{
  chat_server server(shape);
  ws_client alice(server.port()), bob(server.port());
  alice.welcome();
  bob.welcome();
  server.process().send_signal(SIGINT);
  for (ws_client* client : {&alice, &bob})
  {
    client->expect("BYE server-shutdown");
    error_code ended;
    BOOST_TEST(!client->read(&ended).has_value());
    BOOST_TEST(ended == error_code(websocket::error::closed), ended.message());
  }
  const auto status = server.process().wait_for_exit(10000ms);
  BOOST_TEST_REQUIRE(
      status.has_value(), "the server did not exit within 10 s of SIGINT");
  BOOST_TEST(*status == 0);
}

BOOST_AUTO_TEST_CASE(sigint_with_four_threads_exits_zero)
{
  check_sigint_exits_zero({"--threads", "4"});
}

BOOST_AUTO_TEST_CASE(sigint_with_three_contexts_exits_zero)
{
  // Two clients, on the first two contexts; the third has no connection and must stop all
  // the same.
  check_sigint_exits_zero({"--contexts", "3"});
}

BOOST_AUTO_TEST_CASE(load_client_passes_in_both_shapes_on_two_cores)
{
  // The load client's checks with the server on two threads: one context run by two
  // threads (sessions on strands), and two contexts of one thread each, with the stream
  // routed to the wheel and with Beast's own timers.
  const std::vector<std::vector<std::string>> shapes = {
      {"--threads", "2"}, {"--contexts", "2"}};
  for (const auto& shape : shapes)
    for (const char* timers : {"wheel", "beast"})
      BOOST_TEST_CONTEXT(shape[0] << " " << shape[1] << " --timers " << timers)
      {
        std::vector<std::string> args = shape;
        for (const char* a : {"--timers", timers, "--idle-timeout", "1s"})
          args.emplace_back(a);
        chat_server server(args);
        child_process load(load_path,
            {"--port", std::to_string(server.port()), "--connections", "200",
                "--active", "20", "--periods", "2"});
        const auto status = load.wait_for_exit(60000ms);
        const std::string summary = load.read_rest_of_stdout(1000ms);
        BOOST_TEST_MESSAGE(summary);
        BOOST_TEST_REQUIRE(
            status.has_value(), "the load client did not finish within 60 s");
        BOOST_TEST(*status == 0, "load client summary:\n" << summary);
        BOOST_TEST(summary.find("silent: closed by the idle timeout 180, "
                                "early 0, late 0, not closed 0")
                != std::string::npos,
            summary);
        BOOST_TEST(
            summary.find("active: survived 20;") != std::string::npos, summary);
      }
}

BOOST_AUTO_TEST_SUITE_END()
