//
// example/timeouts/idle_coroutine.cpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The idle timeout of idle_refresh.cpp in the shape of most coroutine servers: each connection
// is one coroutine that races its reader against its timer with Asio's awaitable operators,
// co_await (read_lines(...) || timer.async_wait(use_awaitable)). The timer waits once for the
// whole connection; every line the reader gets pushes its expiry later with
// timer.extend_after(idle), a clock read and one store, so nothing is cancelled or started
// again per line. The first of the two to complete cancels the other, and the variant's index
// says which it was: 1, the timer, after idle without a line (the server says "idle timeout"
// and closes); 0, the reader, when the client left.
//
// doc/timeouts.md shows the regions between the "//! [read_lines]" and the "//! [session]"
// lines, README.md the session; the test doc_snippets fails if a document and its region
// differ. Built where the Asio has experimental/awaitable_operators.hpp (Asio 1.19, Boost 1.77,
// and later: example/timeouts/CMakeLists.txt).
//
// Usage: idle_coroutine [--port P] [--idle-ms MS] [--check]
//   --port P      listen on 127.0.0.1:P (default 0: any free port, printed)
//   --idle-ms MS  the idle timeout (default 30000)
//   --check       connect a client that sends a line every idle/3 for three idle periods and
//                 must keep its connection, and one that sends a line and goes silent and
//                 must be closed between idle and idle + a tick + 200 ms after it; exit (status
//                 0 if both behaved so)
//

#include "server.hpp"

#if defined(ASIO_WHEEL_STANDALONE)
# include <asio/experimental/awaitable_operators.hpp>
#else
# include <boost/asio/experimental/awaitable_operators.hpp>
#endif

#include <chrono>
#include <cstddef>
#include <exception>
#include <iostream>
#include <string>
#include <string_view>

//! [read_lines]
// Echoes each line, and each line pushes the idle timeout later. It returns,
// rather than throws, when a read or a write fails: operator|| waits for the
// first to *succeed*, and a reader that threw would leave the session waiting
// for the timer after the client left.
net::awaitable<void> read_lines(tcp::socket& socket,
    asio_wheel::wheel_timer& timer, std::chrono::milliseconds idle)
{
  std::string buffer;
  error_code ec;
  for (;;)
  {
    const std::size_t n = co_await net::async_read_until(socket,
        net::dynamic_buffer(buffer, 4096), '\n',
        net::redirect_error(net::use_awaitable, ec));
    if (ec)  // eof, a line over 4 KiB, or cancelled because the timer won
      co_return;
    // A line: idle again from now. One store; the timer's wait stays pending.
    timer.extend_after(idle);
    co_await net::async_write(socket, net::buffer(buffer, n),
        net::redirect_error(net::use_awaitable, ec));
    if (ec)
      co_return;
    buffer.erase(0, n);
  }
}
//! [read_lines]

// Tells the client why it is closed, giving up after a second on a client
// that does not read either (the write would wait for room in its window).
net::awaitable<void> say_idle_timeout(tcp::socket& socket)
{
  error_code ec;  // the client may be gone already: nothing to do about it
  co_await net::async_write(socket,
      net::buffer(std::string_view("idle timeout\n")),
      asio_wheel::cancel_after(std::chrono::seconds(1),
          net::redirect_error(net::use_awaitable, ec)));
}

//! [session]
net::awaitable<void> session(tcp::socket socket, std::chrono::milliseconds idle)
{
  using namespace net::experimental::awaitable_operators;
  // One wait for the whole connection; read_lines extends it on every line.
  asio_wheel::wheel_timer timer(socket.get_executor(), idle);
  // The first to complete cancels the other; the variant's index says which.
  const auto winner = co_await (
      read_lines(socket, timer, idle) || timer.async_wait(net::use_awaitable));
  if (winner.index() == 1)  // the timer: no line for idle
    co_await say_idle_timeout(socket);
}  // 0, the reader: the client left. Either way the socket closes here.
//! [session]

// ---- --check: two clients over loopback, on the server's io_context ----
namespace check {

using clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Lateness allowed on top of the wheel's tick: the event loop's delay on a
// loaded machine (a parallel ctest, a sanitizer build).
constexpr milliseconds scheduling_allowance(200);

struct client_report
{
  bool passed = false;
  std::string stage = "not started";  // where it is, or was when it stopped
  std::string failure;  // why it failed, if it finished
};

long long ms(clock::duration d)
{
  return std::chrono::duration_cast<milliseconds>(d).count();
}

// Reads one line (without its '\n') into line; false at eof or on an error.
net::awaitable<bool> read_line(
    tcp::socket& s, std::string& in, std::string& line, error_code& ec)
{
  const std::size_t n =
      co_await net::async_read_until(s, net::dynamic_buffer(in), '\n',
          net::redirect_error(net::use_awaitable, ec));
  if (ec)
    co_return false;
  line = in.substr(0, n - 1);
  in.erase(0, n);
  co_return true;
}

// A line every idle/3 for three idle periods: every echo must come back, the
// connection open. Then it stops sending: the reader wins (index 0) and the
// server closes without an "idle timeout", well before idle.
net::awaitable<void> talking_client(
    tcp::endpoint server, milliseconds idle, client_report& r)
{
  tcp::socket s(co_await net::this_coro::executor);
  r.stage = "connecting";
  co_await s.async_connect(server, net::use_awaitable);
  net::steady_timer pause(s.get_executor());
  std::string in, line;
  error_code ec;
  for (int i = 0; i < 9; ++i)  // 9 x idle/3: three idle periods
  {
    pause.expires_after(idle / 3);
    co_await pause.async_wait(net::use_awaitable);
    const std::string sent = "line " + std::to_string(i);
    const std::string out = sent + "\n";
    r.stage = "sending " + sent;
    co_await net::async_write(s, net::buffer(out), net::use_awaitable);
    r.stage = "waiting for the echo of " + sent;
    if (!co_await read_line(s, in, line, ec))
    {
      r.failure = "closed EARLY, before the echo of " + sent + " ("
          + ec.message() + "), a line every " + std::to_string(idle.count() / 3)
          + " ms";
      co_return;
    }
    if (line != sent)
    {
      r.failure = (line == "idle timeout" ? "closed EARLY: got '" : "got '")
          + line + "' instead of the echo of " + sent + ", a line every "
          + std::to_string(idle.count() / 3) + " ms";
      co_return;
    }
  }
  r.stage = "waiting for the server to close after the client left";
  s.shutdown(tcp::socket::shutdown_send);
  const clock::time_point left = clock::now();
  if (co_await read_line(s, in, line, ec))
  {
    r.failure = "after it left, the server sent '" + line
        + "' (its timer won, not its reader)";
    co_return;
  }
  const clock::duration closed_after = clock::now() - left;
  if (ec != net::error::eof)
    r.failure = "after it left: " + ec.message() + ", not eof";
  else if (closed_after >= idle)
    r.failure = "closed " + std::to_string(ms(closed_after))
        + " ms after it left, not before the idle timeout";
  r.stage = "kept its connection for 9 lines, "
      + std::to_string(idle.count() / 3) + " ms apart; closed "
      + std::to_string(ms(closed_after))
      + " ms after it left, without \"idle timeout\"";
  r.passed = r.failure.empty();
}

// One line, then silence: the server must say "idle timeout" and close, no
// earlier than idle after the line was sent and no later than idle + a tick
// + the allowance after its echo came back (the server extends the timer
// between the two).
net::awaitable<void> silent_client(tcp::endpoint server, milliseconds idle,
    std::chrono::nanoseconds tick, client_report& r)
{
  tcp::socket s(co_await net::this_coro::executor);
  r.stage = "connecting";
  co_await s.async_connect(server, net::use_awaitable);
  std::string in, line;
  error_code ec;
  r.stage = "sending its line";
  const clock::time_point sent = clock::now();
  co_await net::async_write(s, net::buffer("hello\n", 6), net::use_awaitable);
  r.stage = "waiting for the echo of its line";
  if (!co_await read_line(s, in, line, ec) || line != "hello")
  {
    r.failure = "no echo of its line (" + (ec ? ec.message() : line) + ")";
    co_return;
  }
  const clock::time_point echoed = clock::now();
  r.stage = "silent, waiting for \"idle timeout\"";
  if (!co_await read_line(s, in, line, ec) || line != "idle timeout")
  {
    r.failure = "closed without \"idle timeout\" ("
        + (ec ? ec.message() : "got '" + line + "'") + ")";
    co_return;
  }
  r.stage = "waiting for the server to close after \"idle timeout\"";
  if (co_await read_line(s, in, line, ec) || ec != net::error::eof)
  {
    r.failure = "not closed after \"idle timeout\" ("
        + (ec ? ec.message() : "got '" + line + "'") + ")";
    co_return;
  }
  const clock::time_point closed = clock::now();
  const clock::duration latest = idle + tick + scheduling_allowance;
  r.stage = "closed " + std::to_string(ms(closed - sent))
      + " ms after its line (idle timeout " + std::to_string(idle.count())
      + " ms, allowed up to " + std::to_string(ms(latest))
      + " ms after the echo)";
  if (closed - sent < idle)
    r.failure = "closed EARLY: " + r.stage;
  else if (closed - echoed > latest)
    r.failure = "closed LATE: " + std::to_string(ms(closed - echoed))
        + " ms after the echo, more than " + std::to_string(ms(latest));
  r.passed = r.failure.empty();
}

// Runs both clients against the server at `server` on io, at most 10 idle
// periods plus 10 s. Returns the exit status: 0 if both passed.
int run(net::io_context& io, tcp::endpoint server, milliseconds idle)
{
  const std::chrono::nanoseconds tick =
      net::use_service<asio_wheel::wheel_timer::service_type>(io)
          .options()
          .tick;
  client_report talking, silent;
  int done = 0;
  auto finished = [&](client_report& r) {
    return [&](std::exception_ptr e) {
      if (e)
      {
        try
        {
          std::rethrow_exception(e);
        }
        catch (const std::exception& x)
        {
          r.failure = r.stage + ": " + x.what();
        }
      }
      if (++done == 2)
        io.stop();
    };
  };
  net::co_spawn(io, talking_client(server, idle, talking), finished(talking));
  net::co_spawn(
      io, silent_client(server, idle, tick, silent), finished(silent));
  const auto bound = idle * 10 + std::chrono::seconds(10);
  io.run_for(bound);

  auto passed = [&](const char* name, const client_report& r) {
    std::cout << name << " client: ";
    if (r.passed)
      std::cout << "passed: " << r.stage << "\n";
    else if (!r.failure.empty())
      std::cout << "FAILED: " << r.failure << "\n";
    else
      std::cout << "FAILED: did not finish within " << ms(bound)
                << " ms, still " << r.stage << "\n";
    return r.passed;
  };
  const bool talking_passed = passed("talking", talking);
  const bool silent_passed = passed("silent", silent);
  return talking_passed && silent_passed ? 0 : 1;
}

}  // namespace check

int main(int argc, char** argv)
{
  return serve("idle_coroutine", argc, argv, accepting(session), check::run);
}
