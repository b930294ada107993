// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// Integration tests of example/http_keepalive: each test starts the server
// programs (http_keepalive on asio_wheel::beast::tcp_stream,
// http_keepalive_beast on boost::beast::tcp_stream, http_keepalive_routed on
// Beast's basic_stream routed to the wheel where Beast has it, and where
// timeouts play no part http_keepalive_no_timeout) on an ephemeral 127.0.0.1 port and
// checks one behaviour through real sockets, the same for every program.
// The process and socket helpers are the keepalive chat tests': every read
// has a deadline, nothing sleeps.
#define BOOST_TEST_MODULE http_keepalive
#include <boost/test/unit_test.hpp>

#include "../keepalive_chat/chat_test_support.hpp"

#include <signal.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <string>
#include <vector>

using namespace chat_test;
using namespace std::chrono_literals;

namespace {

struct program
{
  const char* name;
  const char* path;
};
const program wheel{"http_keepalive", HTTP_KEEPALIVE};
const program beast{"http_keepalive_beast", HTTP_KEEPALIVE_BEAST};
const program no_timeout{
    "http_keepalive_no_timeout", HTTP_KEEPALIVE_NO_TIMEOUT};
#if defined(HTTP_KEEPALIVE_ROUTED)
// Beast's own stream on asio_wheel::wheel_executor<> (Beast 345 and later): its timers are
// the wheel's, its behaviour must be Beast's.
const program routed{"http_keepalive_routed", HTTP_KEEPALIVE_ROUTED};
const std::vector<program> with_timeouts{wheel, beast, routed};
const std::vector<program> all_programs{wheel, beast, no_timeout, routed};
#else
const std::vector<program> with_timeouts{wheel, beast};
const std::vector<program> all_programs{wheel, beast, no_timeout};
#endif

// The server started with `flags` plus --port 0; reads "listening on 127.0.0.1:PORT".
class http_server
{
public:
  http_server(const program& p, std::vector<std::string> flags)
    : process_(p.path, with_port_0(flags), true)
  {
    const auto line = process_.read_stdout_line(5000ms);
    BOOST_REQUIRE_MESSAGE(line.has_value(),
        p.name << " printed no \"listening on\" line within 5 s");
    const std::string prefix = "listening on 127.0.0.1:";
    BOOST_REQUIRE_MESSAGE(line->rfind(prefix, 0) == 0,
        "unexpected first line from " << p.name << ": " << *line);
    port_ =
        static_cast<unsigned short>(std::stoul(line->substr(prefix.size())));
    BOOST_REQUIRE_NE(port_, 0);
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

struct response
{
  std::string status_line;  // without "\r"
  std::map<std::string, std::string> fields;  // names in lower case
  std::string body;
};

std::string without_cr(std::string line)
{
  if (!line.empty() && line.back() == '\r')
    line.pop_back();
  return line;
}

// Reads one response. The server's bodies end with '\n', so line reads see them whole.
std::optional<response> read_response(line_client& client, bool head = false)
{
  response r;
  const auto status = client.read_line(2000ms);
  if (!status)
    return std::nullopt;
  r.status_line = without_cr(*status);
  for (int i = 0; i < 100; ++i)
  {
    const auto line = client.read_line(2000ms);
    BOOST_REQUIRE_MESSAGE(
        line.has_value(), "the response ended inside its header");
    const std::string field = without_cr(*line);
    if (field.empty())
      break;
    const auto colon = field.find(':');
    BOOST_REQUIRE_MESSAGE(
        colon != std::string::npos, "not a header field: " << field);
    std::string name = field.substr(0, colon);
    for (char& c : name)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    r.fields[name] = field.substr(field.find_first_not_of(' ', colon + 1));
  }
  const std::size_t length = std::stoul(r.fields.at("content-length"));
  if (!head && length > 0)
  {
    const auto body = client.read_line(2000ms);
    BOOST_REQUIRE_MESSAGE(body.has_value(), "no body within 2 s");
    r.body = *body + "\n";
    BOOST_TEST(r.body.size() == length,
        "Content-Length " << length << ", body of " << r.body.size()
                          << " bytes");
  }
  return r;
}

std::string field(const response& r, const std::string& name)
{
  const auto it = r.fields.find(name);
  return it == r.fields.end() ? "" : it->second;
}

const std::string get = "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n";

}  // namespace

BOOST_AUTO_TEST_SUITE(keep_alive)

BOOST_AUTO_TEST_CASE(several_requests_are_answered_on_one_connection)
{
  for (const auto& p : all_programs)
  {
    BOOST_TEST_CONTEXT(p.name)
    {
      http_server server(p, {});
      line_client client(server.port());
      for (int i = 0; i < 5; ++i)
      {
        BOOST_REQUIRE(client.send("GET /" + std::to_string(i)
            + " HTTP/1.1\r\nHost: localhost\r\n\r\n"));
        const auto r = read_response(client);
        BOOST_TEST_REQUIRE(r.has_value(), "no response to request " << i);
        BOOST_TEST(r->status_line == "HTTP/1.1 200 OK");
        BOOST_TEST(r->body == "Hello, world!\n");
        BOOST_TEST(field(*r, "connection") != "close");
      }
      // Pipelined: three requests in one segment, three responses in order.
      BOOST_REQUIRE(client.send(
          get + "HEAD / HTTP/1.1\r\nHost: localhost\r\n\r\n" + get));
      for (bool head : {false, true, false})
      {
        const auto r = read_response(client, head);
        BOOST_TEST_REQUIRE(r.has_value());
        BOOST_TEST(r->status_line == "HTTP/1.1 200 OK");
        BOOST_TEST(r->body == (head ? "" : "Hello, world!\n"));
        BOOST_TEST(field(*r, "content-length") == "14");
      }
      BOOST_TEST(client.stays_quiet_for(100ms),
          "the connection closed or sent more after keep-alive responses");
    }
  }
}

BOOST_AUTO_TEST_CASE(http_1_0_keep_alive_is_honoured)
{
  for (const auto& p : all_programs)
  {
    BOOST_TEST_CONTEXT(p.name)
    {
      http_server server(p, {"--body", "custom body\n"});
      line_client client(server.port());
      for (int i = 0; i < 3; ++i)
      {
        BOOST_REQUIRE(
            client.send("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"));
        const auto r = read_response(client);
        BOOST_TEST_REQUIRE(r.has_value(), "no response to request " << i);
        BOOST_TEST(r->status_line == "HTTP/1.0 200 OK");
        BOOST_TEST(field(*r, "connection") == "keep-alive");
        BOOST_TEST(r->body == "custom body\n");
      }
      BOOST_TEST(client.stays_quiet_for(100ms));
    }
  }
}

BOOST_AUTO_TEST_CASE(connection_close_is_answered_then_closed)
{
  for (const auto& p : all_programs)
  {
    BOOST_TEST_CONTEXT(p.name)
    {
      http_server server(p, {});
      line_client client(server.port());
      BOOST_REQUIRE(client.send(get));
      BOOST_TEST_REQUIRE(read_response(client).has_value());
      BOOST_REQUIRE(client.send(
          "GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"));
      const auto r = read_response(client);
      BOOST_TEST_REQUIRE(r.has_value());
      BOOST_TEST(r->status_line == "HTTP/1.1 200 OK");
      BOOST_TEST(field(*r, "connection") == "close");
      BOOST_TEST(client.wait_for_close(2000ms) == line_client::close_kind::eof);
    }
  }
}

BOOST_AUTO_TEST_CASE(http_1_0_without_keep_alive_is_closed)
{
  for (const auto& p : all_programs)
  {
    BOOST_TEST_CONTEXT(p.name)
    {
      http_server server(p, {});
      line_client client(server.port());
      BOOST_REQUIRE(client.send("GET / HTTP/1.0\r\n\r\n"));
      const auto r = read_response(client);
      BOOST_TEST_REQUIRE(r.has_value());
      BOOST_TEST(r->status_line == "HTTP/1.0 200 OK");
      BOOST_TEST(client.wait_for_close(2000ms) == line_client::close_kind::eof);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(bad_requests)

BOOST_AUTO_TEST_CASE(malformed_request_gets_400_and_a_clean_close)
{
  for (const auto& p : all_programs)
  {
    for (const std::string garbage : {"junk junk\r\n\r\n",
             "GET / HTTP/9.9\r\n\r\n", "GET / HTTP/1.1\r\nBad Field\r\n\r\n"})
    {
      BOOST_TEST_CONTEXT(p.name << ", request "
                                << garbage.substr(0, garbage.find('\r')))
      {
        http_server server(p, {});
        line_client client(server.port());
        BOOST_REQUIRE(client.send(
            get));  // a good request first: the 400 comes mid-connection
        BOOST_TEST_REQUIRE(read_response(client).has_value());
        BOOST_REQUIRE(client.send(garbage));
        const auto r = read_response(client);
        BOOST_TEST_REQUIRE(r.has_value(), "no answer to a malformed request");
        BOOST_TEST(r->status_line == "HTTP/1.1 400 Bad Request");
        BOOST_TEST(field(*r, "connection") == "close");
        BOOST_TEST(r->body.rfind("bad request: ", 0) == 0, "body: " << r->body);
        // A clean close (FIN, not RST): the whole 400 was read above, then EOF.
        BOOST_TEST(
            client.wait_for_close(2000ms) == line_client::close_kind::eof);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(unknown_method_gets_400_and_keeps_the_connection)
{
  for (const auto& p : all_programs)
  {
    BOOST_TEST_CONTEXT(p.name)
    {
      http_server server(p, {});
      line_client client(server.port());
      BOOST_REQUIRE(
          client.send("DELETE / HTTP/1.1\r\nHost: localhost\r\n\r\n"));
      const auto r = read_response(client);
      BOOST_TEST_REQUIRE(r.has_value());
      BOOST_TEST(r->status_line == "HTTP/1.1 400 Bad Request");
      BOOST_TEST(r->body == "unknown method: DELETE\n");
      BOOST_REQUIRE(client.send(get));
      const auto next = read_response(client);
      BOOST_TEST_REQUIRE(next.has_value(),
          "the connection was not kept after a well-formed 400");
      BOOST_TEST(next->status_line == "HTTP/1.1 200 OK");
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(idle_timeout)

// The server arms expires_after(idle) before every read; a connection that
// sends nothing more is closed. Asserted: it is closed, not early, and within
// a generous bound (this checks behaviour, not speed).
BOOST_AUTO_TEST_CASE(idle_connection_is_closed_after_the_idle_timeout)
{
  for (const auto& p : with_timeouts)
  {
    BOOST_TEST_CONTEXT(p.name)
    {
      http_server server(p, {"--idle-timeout", "200ms"});
      line_client after_request(server.port());
      // The server arms the timeout for the next read after it has written the
      // response, so after this request was sent: the close cannot come earlier
      // than 200 ms after `sent`.
      const auto sent = clock_type::now();
      BOOST_REQUIRE(after_request.send(get));
      BOOST_TEST_REQUIRE(read_response(after_request).has_value());
      line_client silent(server.port());

      BOOST_TEST(after_request.wait_for_close(10000ms)
              != line_client::close_kind::timeout,
          "an idle keep-alive connection was still open 10 s after its "
          "response");
      const double idle_ms = ms_since(sent, clock_type::now());
      BOOST_TEST(idle_ms >= 200.0,
          "closed " << idle_ms
                    << " ms after the request, before the 200 ms idle timeout");
      BOOST_TEST(
          silent.wait_for_close(10000ms) != line_client::close_kind::timeout,
          "a connection that never sent a request was still open 10 s later");
      const double silent_ms =
          ms_since(silent.connect_started(), clock_type::now());
      BOOST_TEST(silent_ms >= 200.0,
          "closed after " << silent_ms
                          << " ms, before the 200 ms idle timeout");
    }
  }
}

// --idle-tolerance (http_keepalive only): a connection's idle close may come up to that
// fraction of the idle timeout late, never early. The bound is the tolerance's share, the
// wheel's tick (1 ms: http_keepalive keeps wheel_options' default) and 100 ms for a loaded
// machine, the margin the keepalive chat tests allow too.
BOOST_AUTO_TEST_CASE(
    idle_tolerance_closes_late_by_at_most_its_fraction_never_early)
{
  constexpr double idle = 400.0, tolerance = 0.25, tick = 1.0, margin = 100.0;
  const double latest = idle + tolerance * idle + tick + margin;
  http_server server(
      wheel, {"--idle-timeout", "400ms", "--idle-tolerance", "0.25"});
  line_client after_request(server.port());
  // The timeout for the next read is armed after the response is written: not before
  // `sent`, and not much after `answered`.
  const auto sent = clock_type::now();
  BOOST_REQUIRE(after_request.send(get));
  BOOST_TEST_REQUIRE(read_response(after_request).has_value());
  const auto answered = clock_type::now();
  line_client silent(server.port());

  BOOST_TEST(
      after_request.wait_for_close(2000ms) == line_client::close_kind::eof,
      "an idle keep-alive connection was not closed within 2 s of its "
      "response");
  const double idle_ms = ms_since(sent, clock_type::now());
  const double late_ms = ms_since(answered, clock_type::now());
  BOOST_TEST_MESSAGE(
      "after a request: closed " << idle_ms << " ms after it was sent");
  BOOST_TEST(idle_ms >= idle,
      "closed " << idle_ms
                << " ms after the request, before the 400 ms idle timeout");
  BOOST_TEST(late_ms <= latest,
      "closed " << late_ms << " ms after the response, later than " << latest
                << " ms");

  BOOST_TEST(silent.wait_for_close(2000ms) == line_client::close_kind::eof,
      "a connection that never sent a request was not closed within 2 s");
  const double silent_ms =
      ms_since(silent.connect_started(), clock_type::now());
  BOOST_TEST_MESSAGE("silent: closed " << silent_ms << " ms after connecting");
  BOOST_TEST(silent_ms >= idle,
      "closed after " << silent_ms << " ms, before the 400 ms idle timeout");
  BOOST_TEST(silent_ms <= latest,
      "closed after " << silent_ms << " ms, later than " << latest << " ms");
}

// Each read gets a fresh timeout: requests spaced well under the timeout apart
// keep the connection, for longer than the timeout in all.
BOOST_AUTO_TEST_CASE(each_request_restarts_the_idle_timeout)
{
  for (const auto& p : with_timeouts)
  {
    BOOST_TEST_CONTEXT(p.name)
    {
      http_server server(p, {"--idle-timeout", "1s"});
      line_client client(server.port());
      const auto start = clock_type::now();
      for (int i = 0; i < 7; ++i)
      {
        BOOST_REQUIRE(client.send(get));
        const auto r = read_response(client);
        BOOST_TEST_REQUIRE(r.has_value(),
            "request " << i << " after " << ms_since(start, clock_type::now())
                       << " ms got no response: the connection was closed");
        BOOST_TEST(client.stays_quiet_for(
            250ms));  // 250 ms between requests, 1.75 s in all
      }
    }
  }
}

// --no-timeout (the floor of benchmark W9): no expires_after at all, so an
// idle connection stays open on the same stream type.
BOOST_AUTO_TEST_CASE(no_timeout_leaves_idle_connections_open)
{
  for (const auto& p : with_timeouts)
  {
    BOOST_TEST_CONTEXT(p.name)
    {
      http_server server(p, {"--idle-timeout", "100ms", "--no-timeout"});
      line_client client(server.port());
      BOOST_REQUIRE(client.send(get));
      BOOST_TEST_REQUIRE(read_response(client).has_value());
      BOOST_TEST(client.stays_quiet_for(600ms),
          "closed although --no-timeout was given");
      BOOST_REQUIRE(client.send(get));
      BOOST_TEST(read_response(client).has_value());
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(process)

BOOST_AUTO_TEST_CASE(sigint_and_sigterm_close_connections_and_exit_zero)
{
  for (const auto& p : all_programs)
  {
    for (int signal : {SIGINT, SIGTERM})
    {
      BOOST_TEST_CONTEXT(p.name << ", signal " << signal)
      {
        http_server server(p, {"--threads", "2"});
        line_client idle(server.port());
        line_client served(server.port());
        BOOST_REQUIRE(served.send(get));
        BOOST_TEST_REQUIRE(read_response(served).has_value());
        server.process().send_signal(signal);
        const auto status = server.process().wait_for_exit(10000ms);
        BOOST_TEST_REQUIRE(
            status.has_value(), "still running 10 s after the signal");
        BOOST_TEST(*status == 0);
        BOOST_TEST(idle.wait_for_close(2000ms) == line_client::close_kind::eof);
        BOOST_TEST(
            served.wait_for_close(2000ms) == line_client::close_kind::eof);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(bad_flag_values_exit_2_naming_the_flag)
{
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"--port", "70000"}, "--port"},
      {{"--threads", "0"}, "--threads"},
      {{"--idle-timeout", "5"}, "--idle-timeout"},
      {{"--idle-timeout", "0s"}, "--idle-timeout"},
      {{"--bind", "not-an-address"}, "--bind"},
      {{"--frobnicate", "1"}, "--frobnicate"},
  };
  for (const auto& p : all_programs)
  {
    for (const auto& [args, flag] : cases)
    {
      BOOST_TEST_CONTEXT(p.name << " " << args[0] << " " << args[1])
      {
        child_process child(p.path, args, true);
        const auto status = child.wait_for_exit(5000ms);
        BOOST_TEST_REQUIRE(status.has_value());
        BOOST_TEST(*status == 2);
        const std::string error = child.read_rest_of_stderr(1000ms);
        BOOST_TEST(error.find(flag) != std::string::npos, "stderr: " << error);
        BOOST_TEST(std::count(error.begin(), error.end(), '\n') == 1,
            "not one line: " << error);
      }
    }
  }
}

// Bad values exit 2 naming the flag, as every flag's do. The two programs whose timeouts are
// not wheel entries reject the flag itself, whatever its value.
BOOST_AUTO_TEST_CASE(
    idle_tolerance_bad_values_and_other_streams_exit_2_naming_the_flag)
{
  std::vector<std::pair<const program*, std::vector<std::string>>> cases;
  for (const char* bad : {"-0.1", "1.5", "a lot", "1/0", "nan", "1/64s", ""})
    cases.push_back({&wheel, {"--idle-tolerance", bad}});
  cases.push_back({&wheel, {"--idle-tolerance"}});
  std::vector<const program*> others{&beast, &no_timeout};
#if defined(HTTP_KEEPALIVE_ROUTED)
  others.push_back(&routed);
#endif
  for (const program* p : others)
  {
    cases.push_back({p, {"--idle-tolerance", "1/64"}});
    cases.push_back({p, {"--idle-tolerance", "0"}});
  }
  for (const auto& [p, args] : cases)
  {
    BOOST_TEST_CONTEXT(p->name
        << " " << args[0] << (args.size() > 1 ? " \"" + args[1] + "\"" : ""))
    {
      child_process child(p->path, args, true);
      const auto status = child.wait_for_exit(5000ms);
      BOOST_TEST_REQUIRE(status.has_value());
      BOOST_TEST(*status == 2);
      const std::string error = child.read_rest_of_stderr(1000ms);
      BOOST_TEST(error.find("--idle-tolerance") != std::string::npos,
          "stderr: " << error);
      BOOST_TEST(std::count(error.begin(), error.end(), '\n') == 1,
          "not one line: " << error);
      if (p != &wheel)
        BOOST_TEST(error.find("only http_keepalive") != std::string::npos,
            "stderr: " << error);
    }
  }
}

BOOST_AUTO_TEST_CASE(help_lists_the_flags_and_exits_zero)
{
  for (const auto& p : all_programs)
  {
    BOOST_TEST_CONTEXT(p.name)
    {
      child_process child(p.path, {"--help"});
      const std::string text = child.read_rest_of_stdout(5000ms);
      const auto status = child.wait_for_exit(5000ms);
      BOOST_TEST_REQUIRE(status.has_value());
      BOOST_TEST(*status == 0);
      for (const char* flag : {"--bind", "--port", "--threads",
               "--idle-timeout", "--no-timeout", "--idle-tolerance", "--body"})
        BOOST_TEST(text.find(flag) != std::string::npos,
            flag << " missing from --help");
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
