// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// Integration tests of example/keepalive_chat: each test starts its own
// keepalive_chat_server process on an ephemeral 127.0.0.1 port and checks one
// behaviour of the server (doc/example.md) through real sockets. Every read
// has a deadline and every loop a fixed bound. Where a test must let time
// pass (idle timeouts), it waits on the socket for the server's next line
// with a deadline, which is the thing being tested, never a bare sleep.
#define BOOST_TEST_MODULE keepalive_chat
#include <boost/test/unit_test.hpp>

#include "chat_test_support.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

#include <signal.h>

#include <algorithm>
#include <thread>

using namespace chat_test;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(protocol)

BOOST_AUTO_TEST_CASE(first_line_is_listening_and_welcome_names_the_guest)
{
  server_process server({});
  line_client client(server.port());
  const auto line = client.read_line(2000ms);
  BOOST_TEST_REQUIRE(line.has_value());
  BOOST_TEST(line->rfind("WELCOME guest", 0) == 0, "welcome line: " << *line);
  BOOST_TEST(
      line->find(" history=0") != std::string::npos, "welcome line: " << *line);
}

BOOST_AUTO_TEST_CASE(empty_line_and_ping_are_answered_pong)
{
  server_process server({});
  line_client client(server.port());
  client.read_welcome();
  BOOST_REQUIRE(client.send("\n"));
  expect_line(client, "PONG");
  BOOST_REQUIRE(client.send("PING\r\n"));  // CRLF is accepted too
  expect_line(client, "PONG");
  BOOST_REQUIRE(
      client.send("PONG\n"));  // an answer to the server's PING gets no reply
  expect_nothing_but_pong(client);
}

BOOST_AUTO_TEST_CASE(broadcast_reaches_every_other_member_but_not_the_sender)
{
  server_process server({});
  line_client alice(server.port()), bob(server.port()), carol(server.port());
  alice.read_welcome();
  bob.read_welcome();
  carol.read_welcome();
  BOOST_REQUIRE(alice.send_line("/nick alice"));
  expect_line(alice, "OK nick alice");
  BOOST_REQUIRE(alice.send_line("hello, room"));
  expect_line(bob, "alice: hello, room");
  expect_line(carol, "alice: hello, room");
  expect_nothing_but_pong(alice);
  BOOST_REQUIRE(bob.send_line("héllo ünïcode ✓"));
  expect_line(alice, std::string("guest") + "2: héllo ünïcode ✓");
}

BOOST_AUTO_TEST_CASE(nick_renames_and_refuses_taken_or_invalid_names)
{
  server_process server({});
  line_client alice(server.port()), bob(server.port());
  alice.read_welcome();
  bob.read_welcome();
  BOOST_REQUIRE(alice.send_line("/nick alice"));
  expect_line(alice, "OK nick alice");
  BOOST_REQUIRE(bob.send_line("/nick alice"));
  expect_line(bob, "ERR nick-taken alice");
  BOOST_REQUIRE(bob.send_line("/nick has space"));
  const auto refusal = bob.read_line(2000ms);
  BOOST_TEST_REQUIRE(refusal.has_value());
  BOOST_TEST(refusal->rfind("ERR invalid-nick", 0) == 0, "got: " << *refusal);
  BOOST_REQUIRE(bob.send_line("/nick"));
  const auto empty = bob.read_line(2000ms);
  BOOST_TEST_REQUIRE(empty.has_value());
  BOOST_TEST(empty->rfind("ERR invalid-nick", 0) == 0, "got: " << *empty);
  BOOST_REQUIRE(bob.send_line("/nick bob"));
  expect_line(bob, "OK nick bob");
  BOOST_REQUIRE(bob.send_line("hi"));
  expect_line(alice, "bob: hi");
}

BOOST_AUTO_TEST_CASE(who_lists_every_member_sorted)
{
  server_process server({});
  line_client alice(server.port()), bob(server.port());
  alice.read_welcome();
  bob.read_welcome();
  BOOST_REQUIRE(alice.send_line("/nick zed"));
  expect_line(alice, "OK nick zed");
  BOOST_REQUIRE(bob.send_line("/nick amy"));
  expect_line(bob, "OK nick amy");
  BOOST_REQUIRE(bob.send_line("/who"));
  expect_line(bob, "WHO count=2 amy zed");
}

BOOST_AUTO_TEST_CASE(stats_reports_connections_and_wheel_stats)
{
  server_process server(
      {"--idle-timeout", "30s", "--tick", "10ms", "--max-connections", "77"});
  line_client alice(server.port());
  alice.read_welcome();
  const auto stats = query_stats(server.port());  // a second connection
  for (const char* key : {"connections", "max_connections", "accepted",
           "idle_timeout_ms", "tick_us", "slots", "tolerance_ppm",
           "timers_in_wheel", "pending_waits", "wakeups", "wakeups_saved",
           "empty_wakeups", "waits_expired", "waits_cancelled",
           "lazy_refilings", "round_revisits", "cascades", "max_lateness_us",
           "kicked_idle", "kicked_write_timeout", "kicked_queue_full",
           "kicked_line_too_long", "idle_close_late_p50_ms",
           "idle_close_late_p99_ms", "idle_close_late_max_us"})
    BOOST_TEST(stats.count(key) == 1, "/stats lacks " << key);
  BOOST_TEST(stats.at("connections") == 2u);
  BOOST_TEST(stats.at("max_connections") == 77u);
  BOOST_TEST(stats.at("idle_timeout_ms") == 30000u);
  BOOST_TEST(stats.at("tick_us") == 10000u);
  BOOST_TEST(stats.at("tolerance_ppm")
      == 0u);  // precise unless --idle-tolerance says otherwise
  // Each session keeps two waits pending: the read-idle one and the parked write deadline.
  BOOST_TEST(stats.at("pending_waits") == 4u);
}

BOOST_AUTO_TEST_CASE(stats_sum_the_wheels_of_every_context)
{
  // Four sessions handed to three contexts in turn (two on the first): the
  // pending waits of all three wheels, not only the first one's (4).
  server_process server({"--contexts", "3", "--idle-timeout", "30s"});
  line_client a(server.port()), b(server.port()), c(server.port());
  a.read_welcome();
  b.read_welcome();
  c.read_welcome();
  const auto stats = query_stats(server.port());  // the fourth session
  BOOST_TEST(stats.at("connections") == 4u);
  BOOST_TEST(stats.at("pending_waits") == 8u);
  BOOST_TEST(stats.at("timers_in_wheel") == 8u);
}

BOOST_AUTO_TEST_CASE(newcomer_gets_the_last_100_messages_in_order)
{
  server_process server({});
  line_client alice(server.port());
  alice.read_welcome();
  BOOST_REQUIRE(alice.send_line("/nick alice"));
  expect_line(alice, "OK nick alice");
  for (int i = 0; i < 105; ++i)
    BOOST_REQUIRE(alice.send_line("message " + std::to_string(i)));
  expect_nothing_but_pong(alice);  // all 105 handled
  line_client bob(server.port());
  expect_line(bob, "WELCOME guest2 history=100");
  for (int i = 5; i < 105; ++i)
    expect_line(bob, "alice: message " + std::to_string(i));
  expect_nothing_but_pong(bob);
}

BOOST_AUTO_TEST_CASE(
    invalid_utf8_and_unknown_commands_get_an_error_and_are_not_broadcast)
{
  server_process server({});
  line_client alice(server.port()), bob(server.port());
  alice.read_welcome();
  bob.read_welcome();
  BOOST_REQUIRE(alice.send_line("bad \xC3\x28 byte"));
  expect_line(alice, "ERR invalid-utf8");
  BOOST_REQUIRE(alice.send_line("/frobnicate now"));
  expect_line(alice, "ERR unknown-command /frobnicate");
  expect_nothing_but_pong(bob);  // neither line reached bob
}

BOOST_AUTO_TEST_CASE(quit_says_bye_and_closes_cleanly)
{
  server_process server({});
  line_client client(server.port());
  client.read_welcome();
  BOOST_REQUIRE(client.send_line("/quit"));
  expect_line(client, "BYE quit");
  const auto end = client.wait_for_close(2000ms);
  BOOST_TEST(close_kind_name(end) == "EOF");
}

BOOST_AUTO_TEST_CASE(overlong_line_gets_an_error_line_and_a_clean_close)
{
  server_process server({"--max-line", "64"});
  line_client fits(server.port());
  fits.read_welcome();
  BOOST_REQUIRE(
      fits.send_line(std::string(64, 'a')));  // exactly the limit: fine
  BOOST_REQUIRE(fits.send_line(
      std::string(63, 'b') + "\r"));  // the '\r' of CRLF does not count
  expect_nothing_but_pong(fits);

  line_client too_long(server.port());
  too_long.read_welcome();
  BOOST_REQUIRE(too_long.send_line(std::string(65, 'c')));
  expect_line(too_long, "ERR line-too-long limit=64");
  expect_line(too_long, "BYE line-too-long");
  BOOST_TEST(close_kind_name(too_long.wait_for_close(3000ms)) == "EOF");

  // No newline at all, and the client keeps sending after the error: the server
  // must still end with a FIN after its BYE, not a reset.
  line_client endless(server.port());
  endless.read_welcome();
  BOOST_REQUIRE(endless.send(std::string(4096, 'd')));
  expect_line(endless, "ERR line-too-long limit=64");
  expect_line(endless, "BYE line-too-long");
  endless.send(std::string(
      4096, 'e'));  // may fail once the server has closed; either is fine
  const auto end = endless.wait_for_close(3000ms);
  BOOST_TEST((end == line_client::close_kind::eof
                 || end == line_client::close_kind::reset),
      "after BYE the connection must end, got " << close_kind_name(end));
  BOOST_TEST(query_stats(server.port()).at("kicked_line_too_long") == 2u);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(idle_policy)

// A client that says nothing from `since` on gets a PING at idle / 2 and a BYE at idle, neither
// early nor later than `allowed` ms, and is then closed with a FIN.
void expect_ping_then_bye_from(line_client& client,
    clock_type::time_point since, double idle, double allowed,
    const std::string& who)
{
  expect_line(client, "PING", 1500ms);
  const double ping_ms = ms_since(since, clock_type::now());
  expect_line(client, "BYE idle-timeout", 1500ms);
  const double bye_ms = ms_since(since, clock_type::now());
  const auto end = client.wait_for_close(1000ms);
  const double closed_ms = ms_since(since, clock_type::now());
  BOOST_TEST_MESSAGE(who << ": PING after " << ping_ms << " ms, BYE after "
                         << bye_ms << " ms, closed after " << closed_ms
                         << " ms");
  BOOST_TEST(ping_ms >= idle / 2, who << ": PING came early");
  BOOST_TEST(ping_ms <= idle / 2 + allowed, who << ": PING came late");
  BOOST_TEST(bye_ms >= idle, who << ": BYE came early");
  BOOST_TEST(closed_ms <= idle + allowed, who << ": closed late");
  BOOST_TEST(close_kind_name(end) == "EOF");
}

BOOST_AUTO_TEST_CASE(silent_client_gets_ping_at_half_idle_and_bye_at_idle)
{
  server_process server({"--idle-timeout", "1s", "--tick", "10ms"});
  line_client client(server.port());
  client.read_welcome();
  const double allowed =
      std::chrono::duration<double, std::milli>(allowed_lateness).count();
  expect_ping_then_bye_from(
      client, client.connect_started(), 1000.0, allowed, "silent");
  // The server's own record of that close agrees.
  const auto stats = query_stats(server.port());
  BOOST_TEST(stats.at("kicked_idle") == 1u);
  BOOST_TEST(stats.at("idle_close_late_max_us")
      <= static_cast<std::uint64_t>(allowed * 1000.0));
}

BOOST_AUTO_TEST_CASE(
    idle_tolerance_makes_closes_late_by_at_most_its_fraction_never_early)
{
  // --idle-tolerance 1/4 of a 400 ms idle timeout: the PING and the close may each come up to
  // 100 ms late (the server's waits are shorter than the timeout, so less in fact), never early.
  // First a client silent from the start, then one whose line moved its idle clock later
  // (extend_after, the other way the server arms the idle wait).
  constexpr double idle = 400.0, tolerance = 0.25;
  server_process server(
      {"--idle-timeout", "400ms", "--tick", "10ms", "--idle-tolerance", "1/4"});
  BOOST_TEST_REQUIRE(query_stats(server.port()).at("tolerance_ppm") == 250000u,
      "the flag did not reach the wheel");
  const double allowed =
      std::chrono::duration<double, std::milli>(allowed_lateness).count()
      + tolerance * idle;
  {
    line_client client(server.port());
    client.read_welcome();
    expect_ping_then_bye_from(
        client, client.connect_started(), idle, allowed, "silent");
  }
  {
    line_client client(server.port());
    client.read_welcome();
    BOOST_TEST_REQUIRE(client.stays_quiet_for(100ms));
    // Taken before the line leaves: the server's idle clock restarts later.
    const auto sent = clock_type::now();
    expect_nothing_but_pong(client);
    expect_ping_then_bye_from(client, sent, idle, allowed, "after a line");
  }
  // The server's own record of the two closes agrees.
  const auto stats = query_stats(server.port());
  BOOST_TEST(stats.at("kicked_idle") == 2u);
  BOOST_TEST(stats.at("idle_close_late_max_us")
      <= static_cast<std::uint64_t>(allowed * 1000.0));
  BOOST_TEST_MESSAGE("wakeups " << stats.at("wakeups") << ", wakeups_saved "
                                << stats.at("wakeups_saved"));
}

BOOST_AUTO_TEST_CASE(chatting_client_survives_several_idle_periods)
{
  // 20 lines 200 ms apart: 4 s, four 1 s idle periods. Every line refreshes
  // the idle timer (extend_after), so not even a PING (due 500 ms after
  // the last line) may come.
  server_process server({"--idle-timeout", "1s", "--tick", "10ms"});
  line_client alice(server.port());
  alice.read_welcome();
  for (int i = 0; i < 20; ++i)
  {
    BOOST_REQUIRE(alice.send_line("still here " + std::to_string(i)));
    BOOST_TEST_REQUIRE(alice.stays_quiet_for(200ms),
        "the server sent something after line "
            << i << ": \"" << alice.read_line(10ms).value_or("EOF") << "\"");
  }
  expect_nothing_but_pong(alice);
  BOOST_TEST(query_stats(server.port()).at("kicked_idle") == 0u);
}

BOOST_AUTO_TEST_CASE(client_answering_every_ping_survives)
{
  // A client that only answers the server's PING (at idle/2) is never idle for a full period.
  server_process server({"--idle-timeout", "600ms", "--tick", "10ms"});
  line_client client(server.port());
  client.read_welcome();
  for (int i = 0; i < 5; ++i)
  {  // 5 x 300 ms: 2.5 idle periods
    expect_line(client, "PING", 1000ms);
    BOOST_REQUIRE(client.send_line("PONG"));
  }
  expect_nothing_but_pong(client);
}

BOOST_AUTO_TEST_CASE(incoming_broadcasts_do_not_keep_a_silent_client_alive)
{
  // Idle means no input from the client; lines the server sends it do not count.
  server_process server({"--idle-timeout", "800ms", "--tick", "10ms"});
  line_client listener(server.port()), talker(server.port());
  listener.read_welcome();
  talker.read_welcome();
  bool saw_bye = false;
  for (int i = 0; i < 20 && !saw_bye; ++i)
  {  // 20 x 100 ms: past the 800 ms idle timeout
    BOOST_REQUIRE(talker.send_line("tick " + std::to_string(i)));
    for (int lines = 0; lines < 3; ++lines)
    {
      const auto line = listener.read_line(100ms);
      if (!line)
        break;
      if (*line == "BYE idle-timeout")
        saw_bye = true;
    }
  }
  const double elapsed =
      ms_since(listener.connect_started(), clock_type::now());
  BOOST_TEST(
      saw_bye, "the silent listener was not closed for idleness within 2 s");
  BOOST_TEST(elapsed >= 800.0);
  expect_nothing_but_pong(talker);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(limits)

BOOST_AUTO_TEST_CASE(
    client_that_never_reads_is_cut_off_and_server_memory_stays_bounded)
{
  // 20 MB of broadcasts towards a client that never reads: the server must
  // cut it off (its queue is bounded by --max-queue) instead of buffering.
  server_process server({"--max-queue", "65536", "--write-timeout", "2s"});
  line_client sleeper(server.port(), 4096);  // never reads
  line_client talker(server.port());
  talker.read_welcome();
  const std::uint64_t rss_before = server.rss_bytes();
  std::uint64_t rss_peak = rss_before;
  const std::string line(999, 'x');
  for (int i = 0; i < 20000; ++i)
  {
    BOOST_REQUIRE_MESSAGE(talker.send_line(line),
        "the server stopped reading the talker at line " << i);
    if (i % 500 == 0)
      rss_peak = std::max(rss_peak, server.rss_bytes());
  }
  expect_nothing_but_pong(talker);
  rss_peak = std::max(rss_peak, server.rss_bytes());
  BOOST_TEST_MESSAGE("server RSS "
      << rss_before / 1024 << " KiB before, peak " << rss_peak / 1024
      << " KiB while 20 MB were broadcast to a client that never reads");
  if (address_sanitizer)
  {
    // AddressSanitizer keeps freed memory in quarantine (256 MB by default), so
    // RSS says nothing about the server's own bound here; the checks below still hold.
    BOOST_TEST_MESSAGE("AddressSanitizer build: RSS bound not checked");
  }
  else
  {
    BOOST_TEST(rss_peak - rss_before < (std::uint64_t(8) << 20),
        "server memory grew by " << (rss_peak - rss_before) / 1024 << " KiB");
  }
  const auto stats = query_stats(server.port());
  BOOST_TEST_MESSAGE("kicked_queue_full " << stats.at("kicked_queue_full")
                                          << ", kicked_write_timeout "
                                          << stats.at("kicked_write_timeout"));
  BOOST_TEST(
      stats.at("kicked_queue_full") + stats.at("kicked_write_timeout") == 1u);
  BOOST_TEST(
      stats.at("connections") == 2u);  // the talker and the /stats connection
  const auto end = sleeper.wait_for_close(5000ms);
  BOOST_TEST(end != line_client::close_kind::timeout,
      "the non-reading client was not disconnected");
}

// A server with `flags` cuts off a client that stops reading by its write
// deadline of 500 ms.
void expect_write_deadline_cuts_off_a_stalled_reader(
    std::vector<std::string> flags)
{
  // A huge --max-queue: only the write deadline (a second timer) can act.
  for (const char* flag :
      {"--max-queue", "1073741824", "--write-timeout", "500ms"})
    flags.push_back(flag);
  server_process server(flags);
  line_client sleeper(server.port(), 4096);
  line_client talker(server.port());
  talker.read_welcome();
  const std::string line(999, 'y');
  // 6 MB: more than the kernel buffers between server and client can take
  // (the server's send buffer grows to tcp_wmem's maximum, 4 MiB by default).
  for (int i = 0; i < 6000; ++i)
    BOOST_REQUIRE(talker.send_line(line));
  expect_nothing_but_pong(talker);
  // Cut off 500 ms after its write stalled (plus a tick); look for up to 3 s.
  std::uint64_t kicked = 0;
  for (int i = 0; i < 30 && kicked == 0; ++i)
  {
    kicked = query_stats(server.port()).at("kicked_write_timeout");
    if (kicked == 0)
      BOOST_REQUIRE(talker.stays_quiet_for(100ms));
  }
  BOOST_TEST(kicked == 1u,
      "the stalled reader was not cut off by the write deadline within 3 s");
  BOOST_TEST(
      sleeper.wait_for_close(5000ms) != line_client::close_kind::timeout);
}

BOOST_AUTO_TEST_CASE(write_deadline_cuts_off_a_stalled_reader)
{
  expect_write_deadline_cuts_off_a_stalled_reader({});
}

BOOST_AUTO_TEST_CASE(max_connections_is_enforced_with_a_refusal_line)
{
  server_process server({"--max-connections", "2"});
  line_client first(server.port()), second(server.port());
  first.read_welcome();
  second.read_welcome();
  line_client third(server.port());
  expect_line(third, "BYE server-full max-connections=2");
  BOOST_TEST(close_kind_name(third.wait_for_close(2000ms)) == "EOF");
  // A freed place is available again.
  BOOST_REQUIRE(first.send_line("/quit"));
  expect_line(first, "BYE quit");
  BOOST_TEST(close_kind_name(first.wait_for_close(2000ms)) == "EOF");
  line_client fourth(server.port());
  fourth.read_welcome();
  expect_nothing_but_pong(fourth);
}

BOOST_AUTO_TEST_SUITE_END()

// --timers: the session timers are wheel_timer, steady_timer re-armed on
// every line, or steady_timer with the expert's idiom; the protocol is the
// same.
BOOST_AUTO_TEST_SUITE(timers_flag)

BOOST_AUTO_TEST_CASE(each_kind_is_the_one_stats_names_and_refreshes_its_way)
{
  // After 20 lines of one client: with the wheel the session's waits are in
  // it (two each: idle and write); with steady_timer they are not. With the
  // wheel and the idiom a line starts no wait; with steady every line does
  // (20 for alice's lines, one for the /stats line, one at each start).
  const std::pair<const char*, std::uint64_t> kinds[] = {
      {"wheel", 2}, {"steady", 23}, {"steady-lazy", 2}};
  for (const auto& [timers, idle_waits] : kinds)
  {
    BOOST_TEST_CONTEXT("--timers " << timers)
    {
      server_process server({"--timers", timers, "--idle-timeout", "30s"});
      line_client alice(server.port());
      alice.read_welcome();
      for (int i = 0; i < 20; ++i)
        BOOST_REQUIRE(alice.send_line("PING"));
      for (int i = 0; i < 20; ++i)
        expect_line(alice, "PONG");
      const std::string line = query_stats_line(server.port());
      BOOST_TEST(line.find(" timers=" + std::string(timers) + " ")
              != std::string::npos,
          line);
      const auto stats = parse_stats(line);
      BOOST_TEST(stats.at("pending_waits")
          == (std::string(timers) == "wheel" ? 4u : 0u));
      BOOST_TEST(stats.at("idle_timer_waits") == idle_waits);
    }
  }
}

BOOST_AUTO_TEST_CASE(steady_kinds_ping_and_close_idle_clients_on_time)
{
  // As with the wheel (idle_policy): a silent client, and one whose line
  // moved its idle clock later; steady-lazy's timer finds that line when it
  // fires and waits for what remains.
  const double allowed =
      std::chrono::duration<double, std::milli>(allowed_lateness).count();
  for (const char* timers : {"steady", "steady-lazy"})
  {
    BOOST_TEST_CONTEXT("--timers " << timers)
    {
      server_process server(
          {"--timers", timers, "--idle-timeout", "1s", "--tick", "10ms"});
      {
        line_client client(server.port());
        client.read_welcome();
        idle_policy::expect_ping_then_bye_from(
            client, client.connect_started(), 1000.0, allowed, "silent");
      }
      {
        line_client client(server.port());
        client.read_welcome();
        BOOST_TEST_REQUIRE(client.stays_quiet_for(300ms));
        // Taken before the line leaves: the server's idle clock restarts later.
        const auto sent = clock_type::now();
        expect_nothing_but_pong(client);
        idle_policy::expect_ping_then_bye_from(
            client, sent, 1000.0, allowed, "after a line");
      }
      BOOST_TEST(query_stats(server.port()).at("kicked_idle") == 2u);
    }
  }
}

BOOST_AUTO_TEST_CASE(
    steady_kinds_cut_off_a_stalled_reader_by_the_write_deadline)
{
  for (const char* timers : {"steady", "steady-lazy"})
    BOOST_TEST_CONTEXT("--timers " << timers)
    {
      limits::expect_write_deadline_cuts_off_a_stalled_reader(
          {"--timers", timers});
    }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(process)

BOOST_AUTO_TEST_CASE(sigterm_tells_every_client_and_exits_zero)
{
  server_process server({});
  line_client alice(server.port()), bob(server.port());
  line_client sleeper(
      server.port(), 4096);  // never reads: must not keep the server alive
  alice.read_welcome();
  bob.read_welcome();
  expect_nothing_but_pong(alice);
  server.process().send_signal(SIGTERM);
  expect_line(alice, "BYE server-shutdown");
  expect_line(bob, "BYE server-shutdown");
  BOOST_TEST(close_kind_name(alice.wait_for_close(3000ms)) == "EOF");
  BOOST_TEST(close_kind_name(bob.wait_for_close(3000ms)) == "EOF");
  const auto status = server.process().wait_for_exit(5000ms);
  BOOST_TEST_REQUIRE(
      status.has_value(), "the server did not exit within 5 s of SIGTERM");
  BOOST_TEST(*status == 0);
}

BOOST_AUTO_TEST_CASE(sigint_with_four_threads_exits_zero)
{
  server_process server({"--threads", "4"});
  line_client alice(server.port());
  alice.read_welcome();
  server.process().send_signal(SIGINT);
  expect_line(alice, "BYE server-shutdown");
  const auto status = server.process().wait_for_exit(5000ms);
  BOOST_TEST_REQUIRE(
      status.has_value(), "the server did not exit within 5 s of SIGINT");
  BOOST_TEST(*status == 0);
}

BOOST_AUTO_TEST_CASE(sigint_with_three_contexts_exits_zero)
{
  // Two clients, on the first two contexts; the third context has no
  // connection and must stop all the same.
  server_process server({"--contexts", "3"});
  line_client alice(server.port()), bob(server.port());
  alice.read_welcome();
  bob.read_welcome();
  server.process().send_signal(SIGINT);
  expect_line(alice, "BYE server-shutdown");
  expect_line(bob, "BYE server-shutdown");
  const auto status = server.process().wait_for_exit(5000ms);
  BOOST_TEST_REQUIRE(
      status.has_value(), "the server did not exit within 5 s of SIGINT");
  BOOST_TEST(*status == 0);
}

BOOST_AUTO_TEST_CASE(bad_flag_values_exit_2_with_one_line_naming_the_flag)
{
  const std::vector<std::vector<std::string>> cases = {
      {"--idle-timeout", "30"},
      {"--idle-timeout", "soon"},
      {"--tick", "0ms"},
      {"--tick", "5parsecs"},
      {"--port", "70000"},
      {"--threads", "0"},
      {"--contexts", "0"},
      {"--contexts", "many"},
      // One shape or the other: N contexts of one thread, or one of N threads.
      {"--contexts", "2", "--threads", "2"},
      {"--bind", "nowhere"},
      {"--max-connections", "-1"},
      {"--max-line", "12x"},
      {"--write-timeout", "1h"},
      {"--frobnicate", "1"},
      {"--port"},
      {"--idle-tolerance", "-0.1"},
      {"--idle-tolerance", "1.5"},
      {"--idle-tolerance", "a lot"},
      {"--idle-tolerance", "1/0"},
      {"--idle-tolerance", "nan"},
      {"--idle-tolerance", "1/64s"},
      {"--idle-tolerance"},
      {"--timers", "fast"},
      {"--timers", "Steady"},
      {"--timers"},
      // steady_timer has no tolerance: the flag would do nothing.
      {"--idle-tolerance", "1/64", "--timers", "steady-lazy"},
  };
  for (const auto& args : cases)
  {
    child_process server(server_binary(), args, /*capture_stderr=*/true);
    const std::string out = server.read_rest_of_stdout(5000ms);
    const std::string err = server.read_rest_of_stderr(5000ms);
    const auto status = server.wait_for_exit(5000ms);
    BOOST_TEST_CONTEXT("flags: " << args[0]
                                 << (args.size() > 1 ? " " + args[1] : ""))
    {
      BOOST_TEST_REQUIRE(status.has_value());
      BOOST_TEST(*status == 2);
      BOOST_TEST(out.empty(), "stdout: " << out);
      BOOST_TEST(
          std::count(err.begin(), err.end(), '\n') == 1, "stderr: " << err);
      BOOST_TEST(err.find(args[0]) != std::string::npos,
          "stderr does not name the flag: " << err);
    }
  }
}

BOOST_AUTO_TEST_CASE(help_lists_every_flag_and_exits_zero)
{
  child_process server(server_binary(), {"--help"});
  const std::string out = server.read_rest_of_stdout(5000ms);
  const auto status = server.wait_for_exit(5000ms);
  BOOST_TEST_REQUIRE(status.has_value());
  BOOST_TEST(*status == 0);
  for (const char* flag :
      {"--bind", "--port", "--idle-timeout", "--tick", "--idle-tolerance",
          "--write-timeout", "--max-connections", "--threads", "--contexts",
          "--max-line", "--max-queue", "--timers", "--help"})
    BOOST_TEST(out.find(flag) != std::string::npos,
        "--help does not mention " << flag);
}

// Every member sees every other member's messages, each sender's in order,
// and idle kicks still work, with the server's threads given by `shape`.
void check_the_same_protocol(const std::vector<std::string>& shape)
{
  std::vector<std::string> args = shape;
  for (const char* a : {"--idle-timeout", "1s", "--tick", "10ms"})
    args.emplace_back(a);
  server_process server(args);
  constexpr int members = 6, messages_each = 20;
  std::vector<std::unique_ptr<line_client>> clients;
  for (int i = 0; i < members; ++i)
  {
    clients.push_back(std::make_unique<line_client>(server.port()));
    clients.back()->read_welcome();
    BOOST_REQUIRE(clients.back()->send_line("/nick m" + std::to_string(i)));
    expect_line(*clients.back(), "OK nick m" + std::to_string(i));
  }
  for (int k = 0; k < messages_each; ++k)
    for (int i = 0; i < members; ++i)
      BOOST_REQUIRE(clients[i]->send_line("n" + std::to_string(k)));
  for (int i = 0; i < members; ++i)
  {
    std::vector<int> next(members, 0);
    for (int n = 0; n < (members - 1) * messages_each; ++n)
    {
      const auto line = clients[i]->read_line(3000ms);
      BOOST_TEST_REQUIRE(line.has_value(),
          "member " << i << " got only " << n << " broadcasts");
      const int sender = std::stoi(line->substr(1, line->find(':') - 1));
      BOOST_TEST_REQUIRE(sender != i, "a member received its own message");
      BOOST_TEST(*line
          == "m" + std::to_string(sender) + ": n"
              + std::to_string(next[sender]));
      ++next[sender];
    }
  }
  line_client silent(server.port());
  silent.read_welcome();
  expect_line(silent, "PING", 1500ms);
  expect_line(silent, "BYE idle-timeout", 1500ms);
  BOOST_TEST(ms_since(silent.connect_started(), clock_type::now()) >= 1000.0);
}

BOOST_AUTO_TEST_CASE(four_threads_serve_the_same_protocol)
{
  // Sessions on strands over four threads of one context.
  check_the_same_protocol({"--threads", "4"});
}

BOOST_AUTO_TEST_CASE(three_contexts_serve_the_same_protocol)
{
  // Six members handed to three contexts in turn, each context on its own
  // thread: every broadcast crosses from the first context (the room's
  // fan-out) to the other two.
  check_the_same_protocol({"--contexts", "3"});
}

// Runs the load client (300 connections, 30 of them chatting, two idle
// periods) against a server started with server_args, and checks that it
// passed: every silent connection closed within [idle, idle + tick + 100 ms],
// PINGs never early, no active one lost. Returns its summary.
std::string check_load_client_passes(
    const std::vector<std::string>& server_args)
{
  std::vector<std::string> args = server_args;
  for (const char* a : {"--idle-timeout", "1s", "--tick", "10ms"})
    args.emplace_back(a);
  server_process server(args);
  child_process load(KEEPALIVE_CHAT_LOAD,
      {"--port", std::to_string(server.port()), "--connections", "300",
          "--active", "30", "--messages", "3", "--periods", "2"});
  const auto status = load.wait_for_exit(60000ms);
  const std::string summary = load.read_rest_of_stdout(1000ms);
  BOOST_TEST_MESSAGE(summary);
  BOOST_TEST_REQUIRE(
      status.has_value(), "the load client did not finish within 60 s");
  BOOST_TEST(*status == 0, "load client summary:\n" << summary);
  BOOST_TEST(summary.find("kicked: 270 of 270 silent") != std::string::npos);
  BOOST_TEST(summary.find("survived: 30 of 30 active") != std::string::npos);
  BOOST_TEST(summary.find("result: PASS") != std::string::npos);
  return summary;
}

BOOST_AUTO_TEST_CASE(load_client_passes_against_the_server)
{
  // With each kind of session timer.
  for (const char* timers : {"wheel", "steady", "steady-lazy"})
    BOOST_TEST_CONTEXT("--timers " << timers)
    {
      const std::string summary =
          check_load_client_passes({"--timers", timers});
      BOOST_TEST(summary.find("server timers: " + std::string(timers) + " ")
          != std::string::npos);
    }
}

BOOST_AUTO_TEST_CASE(load_client_passes_in_both_shapes_on_two_cores)
{
  // The same checks with the server on two threads: one context run by two
  // threads (sessions on strands), and two contexts of one thread each.
  const std::vector<std::vector<std::string>> shapes = {
      {"--threads", "2"}, {"--contexts", "2"}};
  for (const auto& shape : shapes)
    for (const char* timers : {"wheel", "steady"})
      BOOST_TEST_CONTEXT(shape[0] << " " << shape[1] << " --timers " << timers)
      {
        std::vector<std::string> args = shape;
        args.emplace_back("--timers");
        args.emplace_back(timers);
        check_load_client_passes(args);
      }
}

// A deliberately wrong server for the load client: it claims a 1 s idle
// timeout in /stats but closes every connection after 500 ms (PING at 250 ms).
class early_closing_server
{
public:
  early_closing_server()
    : acceptor_(io_, {boost::asio::ip::make_address("127.0.0.1"), 0})
  {
    accept();
    thread_ = std::thread([this] { io_.run_for(std::chrono::seconds(60)); });
  }
  ~early_closing_server()
  {
    io_.stop();
    thread_.join();
  }
  unsigned short port() const { return acceptor_.local_endpoint().port(); }

private:
  struct connection
  {
    explicit connection(boost::asio::ip::tcp::socket s)
      : socket(std::move(s)), timer(socket.get_executor())
    {}
    boost::asio::ip::tcp::socket socket;
    boost::asio::steady_timer timer;
    std::string input;
  };
  static void send(const std::shared_ptr<connection>& c, std::string line)
  {
    auto text = std::make_shared<std::string>(std::move(line));
    boost::asio::async_write(
        c->socket, boost::asio::buffer(*text), [c, text](auto, auto) {});
  }
  void accept()
  {
    acceptor_.async_accept([this](boost::system::error_code ec,
                               boost::asio::ip::tcp::socket socket) {
      if (ec)
        return;
      auto c = std::make_shared<connection>(std::move(socket));
      send(c, "WELCOME fake history=0\n");
      read(c);
      c->timer.expires_after(250ms);
      c->timer.async_wait([c](boost::system::error_code e) {
        if (e)
          return;
        send(c, "PING\n");
        c->timer.expires_after(250ms);
        c->timer.async_wait([c](boost::system::error_code e2) {
          if (e2)
            return;
          send(c, "BYE idle-timeout\n");
          c->socket.shutdown(boost::asio::ip::tcp::socket::shutdown_send, e2);
        });
      });
      accept();
    });
  }
  void read(const std::shared_ptr<connection>& c)
  {
    boost::asio::async_read_until(c->socket,
        boost::asio::dynamic_buffer(c->input), '\n',
        [this, c](boost::system::error_code ec, std::size_t n) {
          if (ec)
            return (void)c->timer.cancel();
          const std::string line = c->input.substr(0, n - 1);
          c->input.erase(0, n);
          if (line == "/stats")
            send(c, "STATS connections=1 idle_timeout_ms=1000 tick_us=10000\n");
          read(c);
        });
  }
  boost::asio::io_context io_;
  boost::asio::ip::tcp::acceptor acceptor_;
  std::thread thread_;
};

BOOST_AUTO_TEST_CASE(load_client_fails_when_the_server_closes_early)
{
  // The load client's checks can fail: against a server that closes silent
  // connections at half the idle timeout it announces, it must report every
  // one as early and exit 1.
  early_closing_server server;
  child_process load(KEEPALIVE_CHAT_LOAD,
      {"--port", std::to_string(server.port()), "--connections", "20",
          "--active", "0", "--periods", "2"});
  const auto status = load.wait_for_exit(30000ms);
  const std::string summary = load.read_rest_of_stdout(1000ms);
  BOOST_TEST_MESSAGE(summary);
  BOOST_TEST_REQUIRE(
      status.has_value(), "the load client did not finish within 30 s");
  BOOST_TEST(*status == 1);
  BOOST_TEST(summary.find("(early 20,") != std::string::npos,
      "summary:\n"
          << summary);
  BOOST_TEST(summary.find("result: FAIL") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(load_client_fails_when_the_server_is_unreachable)
{
  // The load client's checks can fail: with no server it must say so and exit non-zero.
  std::uint16_t closed_port;
  {
    server_process server({});
    closed_port = server.port();
    server.process().send_signal(SIGTERM);
    BOOST_TEST_REQUIRE(server.process().wait_for_exit(5000ms).has_value());
  }
  child_process load(KEEPALIVE_CHAT_LOAD,
      {"--port", std::to_string(closed_port), "--connections", "10"},
      /*capture_stderr=*/true);
  const auto status = load.wait_for_exit(20000ms);
  BOOST_TEST_REQUIRE(status.has_value());
  BOOST_TEST(*status == 1);
}

BOOST_AUTO_TEST_SUITE_END()
