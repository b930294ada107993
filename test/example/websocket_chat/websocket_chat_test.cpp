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
#include <optional>
#include <string>
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
};

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
           "--max-message", "--max-queue"})
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

BOOST_AUTO_TEST_SUITE_END()
