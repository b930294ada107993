// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// Helpers for the keepalive chat integration tests: a child process started
// with posix_spawn (stdout, optionally stderr, piped; waited for with a pidfd,
// so every wait has a timeout and nothing polls with sleeps), the chat server
// as such a process, and a blocking line client on 127.0.0.1 whose every read
// has a deadline. Nothing here can block without bound.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <sys/types.h>

namespace chat_test {

using clock_type = std::chrono::steady_clock;
using std::chrono::milliseconds;

// The wheel tick the tests give the server (--tick 10ms), and the lateness allowed for an idle
// close: one tick plus 100 ms.
// Whether the tests (and so the servers they start, built with the same flags) run under
// AddressSanitizer: GCC says so with __SANITIZE_ADDRESS__, clang 14 only through
// __has_feature. Its quarantine of freed memory makes a server's RSS say nothing of its bounds.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool address_sanitizer = true;
#elif defined(__has_feature)
# if __has_feature(address_sanitizer)
inline constexpr bool address_sanitizer = true;
# else
inline constexpr bool address_sanitizer = false;
# endif
#else
inline constexpr bool address_sanitizer = false;
#endif

inline constexpr milliseconds tick{10};
inline constexpr milliseconds allowed_lateness = tick + milliseconds{100};

// The server binary the tests start: the build's (KEEPALIVE_CHAT_SERVER), or the program the
// environment variable KEEPALIVE_CHAT_SERVER names: scripts/windows points it at the Windows
// build's server run under Wine, so that these tests drive it over loopback, and sets
// KEEPALIVE_CHAT_SERVER_WINDOWS=1, which makes send_signal(SIGTERM) send SIGINT (Ctrl-C).
const char* server_binary();
bool server_is_windows_program();

class child_process
{
public:
  child_process(const std::string& path, const std::vector<std::string>& args,
      bool capture_stderr = false);
  ~child_process();  // SIGKILL and reap if still running
  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;

  pid_t pid() const { return pid_; }
  // One line of stdout without the '\n' (nor a '\r' before it: a Windows program's stdout
  // ends lines with "\r\n"); nullopt on timeout or end of output.
  std::optional<std::string> read_stdout_line(milliseconds timeout);
  // Everything left on stdout / stderr until the child closes it (bounded by timeout).
  std::string read_rest_of_stdout(milliseconds timeout);
  std::string read_rest_of_stderr(milliseconds timeout);
  void send_signal(
      int signal);  // SIGTERM is sent as SIGINT to a Windows server
  // The exit status if the child exited within timeout; nullopt if it is still
  // running; 128 + N if it was killed by signal N.
  std::optional<int> wait_for_exit(milliseconds timeout);

private:
  pid_t pid_ = -1;
  int pidfd_ = -1;
  int stdout_fd_ = -1;
  int stderr_fd_ = -1;
  std::string stdout_buffer_;
  std::optional<int> exit_status_;
};

// keepalive_chat_server started with `flags` plus --port 0; the constructor
// reads "listening on 127.0.0.1:PORT" (failing the test if it does not come
// within 5 s). The destructor ends a server the test did not stop: a Linux
// server with SIGKILL, a Windows one with Ctrl-C (see the destructor).
class server_process
{
public:
  explicit server_process(const std::vector<std::string>& flags);
  ~server_process();
  server_process(const server_process&) = delete;
  server_process& operator=(const server_process&) = delete;
  unsigned short port() const { return port_; }
  child_process& process() { return *process_; }
  std::uint64_t rss_bytes() const;  // VmRSS from /proc/PID/status

private:
  std::optional<child_process> process_;
  unsigned short port_ = 0;
};

class line_client
{
public:
  // Connects to 127.0.0.1:port. receive_buffer > 0 sets SO_RCVBUF before the
  // connect (a small one makes a client that never reads fill up quickly).
  // max_segment > 0 sets TCP_MAXSEG before the connect: with an Ethernet-sized
  // MSS (1460) the server's kernel gives the connection a send buffer of about
  // 96 KB, as over a real network, instead of the 4 MB that loopback's 64 KiB
  // MSS gets it.
  explicit line_client(
      unsigned short port, int receive_buffer = 0, int max_segment = 0);
  ~line_client();
  line_client(const line_client&) = delete;
  line_client& operator=(const line_client&) = delete;

  // Taken just before connect(): the server's idle clock cannot start earlier.
  clock_type::time_point connect_started() const { return connect_started_; }
  // Sends all of text; false if the connection failed or 5 s passed.
  bool send(std::string_view text);
  bool send_line(std::string_view line)
  {
    return send(std::string(line) + "\n");
  }
  // The next line without '\n'; nullopt on timeout, EOF or reset.
  std::optional<std::string> read_line(milliseconds timeout);
  // Reads the welcome ("WELCOME NAME history=N" plus N lines); returns NAME.
  std::string read_welcome(milliseconds timeout = milliseconds(2000));
  enum class close_kind
  {
    eof,
    reset,
    timeout
  };
  // Discards input until the server closes (at most max_bytes are read).
  close_kind wait_for_close(
      milliseconds timeout, std::size_t max_bytes = std::size_t(64) << 20);
  // True if no byte and no close arrive within d.
  bool stays_quiet_for(milliseconds d);
  // Half-close: sends FIN, keeps reading what the server still sends.
  void shutdown_send();
  // Closes with SO_LINGER {1, 0}: the kernel sends RST and drops whatever is
  // unread or unsent. Nothing can be read afterwards.
  void reset();
  int fd() const { return fd_; }

private:
  int fd_ = -1;
  bool closed_by_peer_ = false;
  std::string buffer_;
  clock_type::time_point connect_started_;
};

// Reads the next line of client (failing the test if none comes within
// timeout) and checks that it is `expected`.
void expect_line(line_client& client, const std::string& expected,
    milliseconds timeout = milliseconds(2000));
// The server answers PONG in order, so a PONG proves that everything sent
// before the PING has been handled and nothing else was queued for us.
void expect_nothing_but_pong(line_client& client);

// Sends /stats on a fresh connection and returns the "STATS key=value ..."
// line.
std::string query_stats_line(unsigned short port);
// The same, parsed: the fields whose values are numbers.
std::map<std::string, std::uint64_t> query_stats(unsigned short port);
std::map<std::string, std::uint64_t> parse_stats(const std::string& line);

std::string close_kind_name(line_client::close_kind kind);
inline std::ostream& operator<<(std::ostream& out, line_client::close_kind kind)
{
  return out << close_kind_name(kind);
}
double ms_since(clock_type::time_point start, clock_type::time_point end);

}  // namespace chat_test
