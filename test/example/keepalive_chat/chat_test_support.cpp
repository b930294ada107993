// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// Implementation of the integration-test helpers: posix_spawn with pipes,
// pidfd waits, and a poll()-based line client. See chat_test_support.hpp.
#include "chat_test_support.hpp"

#include <boost/test/unit_test.hpp>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace chat_test {
namespace {

int remaining_ms(clock_type::time_point deadline)
{
  const auto left =
      std::chrono::duration_cast<milliseconds>(deadline - clock_type::now())
          .count();
  return left < 0 ? 0 : static_cast<int>(left);
}

// Waits until fd is readable or the deadline passes; true if readable (or hung up).
bool wait_readable(int fd, clock_type::time_point deadline)
{
  for (;;)
  {
    pollfd p{fd, POLLIN, 0};
    const int r = ::poll(&p, 1, remaining_ms(deadline));
    if (r > 0)
      return true;
    if (r == 0)
      return false;
    if (errno != EINTR)
      return false;
  }
}

std::string read_until_eof(int fd, milliseconds timeout)
{
  std::string out;
  if (fd < 0)
    return out;
  const auto deadline = clock_type::now() + timeout;
  char chunk[4096];
  while (wait_readable(fd, deadline))
  {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n <= 0)
      break;
    out.append(chunk, static_cast<std::size_t>(n));
  }
  return out;
}

}  // namespace

// ---------------------------------------------------------------- child_process

child_process::child_process(const std::string& path,
    const std::vector<std::string>& args, bool capture_stderr)
{
  int out_pipe[2];
  int err_pipe[2] = {-1, -1};
  if (::pipe2(out_pipe, O_CLOEXEC) != 0)
    throw std::runtime_error("pipe2 failed");
  if (capture_stderr && ::pipe2(err_pipe, O_CLOEXEC) != 0)
    throw std::runtime_error("pipe2 failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
  if (capture_stderr)
    posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(path.c_str()));
  for (const auto& a : args)
    argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const int rc = ::posix_spawn(
      &pid_, path.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out_pipe[1]);
  if (capture_stderr)
    ::close(err_pipe[1]);
  stdout_fd_ = out_pipe[0];
  stderr_fd_ = err_pipe[0];
  if (rc != 0)
    throw std::runtime_error("posix_spawn " + path + ": " + std::strerror(rc));
  pidfd_ = static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0));
  if (pidfd_ < 0)
    throw std::runtime_error(
        std::string("pidfd_open: ") + std::strerror(errno));
}

child_process::~child_process()
{
  if (!exit_status_ && pid_ > 0)
  {
    ::kill(pid_, SIGKILL);
    wait_for_exit(milliseconds(5000));
  }
  for (int fd : {pidfd_, stdout_fd_, stderr_fd_})
    if (fd >= 0)
      ::close(fd);
}

std::optional<std::string> child_process::read_stdout_line(milliseconds timeout)
{
  const auto deadline = clock_type::now() + timeout;
  for (;;)
  {
    if (const auto nl = stdout_buffer_.find('\n'); nl != std::string::npos)
    {
      std::string line = stdout_buffer_.substr(0, nl);
      stdout_buffer_.erase(0, nl + 1);
      if (!line.empty() && line.back() == '\r')
        line.pop_back();
      return line;
    }
    if (!wait_readable(stdout_fd_, deadline))
      return std::nullopt;
    char chunk[4096];
    const ssize_t n = ::read(stdout_fd_, chunk, sizeof chunk);
    if (n <= 0)
      return std::nullopt;
    stdout_buffer_.append(chunk, static_cast<std::size_t>(n));
  }
}

std::string child_process::read_rest_of_stdout(milliseconds timeout)
{
  std::string rest = std::move(stdout_buffer_);
  stdout_buffer_.clear();
  return rest + read_until_eof(stdout_fd_, timeout);
}

std::string child_process::read_rest_of_stderr(milliseconds timeout)
{
  return read_until_eof(stderr_fd_, timeout);
}

void child_process::send_signal(int signal)
{
  // A Windows program has no SIGTERM (Wine kills it on one); its stop request is Ctrl-C,
  // which Wine makes of SIGINT. See server_binary().
  if (signal == SIGTERM && server_is_windows_program())
    signal = SIGINT;
  if (!exit_status_)
    ::kill(pid_, signal);
}

std::optional<int> child_process::wait_for_exit(milliseconds timeout)
{
  if (exit_status_)
    return exit_status_;
  if (!wait_readable(pidfd_, clock_type::now() + timeout))
    return std::nullopt;
  int status = 0;
  if (::waitpid(pid_, &status, 0) != pid_)
    return std::nullopt;
  exit_status_ =
      WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return exit_status_;
}

// ---------------------------------------------------------------- server_process

const char* server_binary()
{
  const char* other = std::getenv("KEEPALIVE_CHAT_SERVER");
  return other && *other ? other : KEEPALIVE_CHAT_SERVER;
}

bool server_is_windows_program()
{
  const char* windows = std::getenv("KEEPALIVE_CHAT_SERVER_WINDOWS");
  return windows && std::string_view(windows) == "1";
}

server_process::server_process(const std::vector<std::string>& flags)
{
  std::vector<std::string> args{"--port", "0"};
  args.insert(args.end(), flags.begin(), flags.end());
  process_.emplace(server_binary(), args);
  const std::optional<std::string> line =
      process_->read_stdout_line(milliseconds(5000));
  BOOST_REQUIRE_MESSAGE(line.has_value(),
      "the server printed no \"listening on\" line within 5 s");
  const std::string prefix = "listening on 127.0.0.1:";
  BOOST_REQUIRE_MESSAGE(line->rfind(prefix, 0) == 0,
      "unexpected first line from the server: " << *line);
  port_ = static_cast<unsigned short>(std::stoul(line->substr(prefix.size())));
  BOOST_REQUIRE_NE(port_, 0);
}

server_process::~server_process()
{
  // Wine 8's wineserver can stop on an assertion of its own
  // (sock_get_poll_events: "sock->obj.ops == &sock_ops") while it cleans up
  // after a Windows program killed with socket operations in flight (here:
  // the acceptor's pending AcceptEx, every session's pending receive). Every
  // Windows program of the test then loses its wineserver. So a Windows server
  // is stopped as a Windows console program is, with Ctrl-C, and its own
  // shutdown closes its sockets; only one that does not exit within 10 s is
  // killed (by ~child_process). See doc/reliability.md, section 7.
  if (server_is_windows_program() && process_
      && !process_->wait_for_exit(milliseconds(0)))
  {
    process_->send_signal(SIGINT);
    process_->wait_for_exit(milliseconds(10000));
  }
}

std::uint64_t server_process::rss_bytes() const
{
  std::ifstream status("/proc/" + std::to_string(process_->pid()) + "/status");
  std::string key;
  while (status >> key)
  {
    if (key == "VmRSS:")
    {
      std::uint64_t kib = 0;
      status >> kib;
      return kib * 1024;
    }
    std::string rest;
    std::getline(status, rest);
  }
  return 0;
}

// ---------------------------------------------------------------- line_client

line_client::line_client(
    unsigned short port, int receive_buffer, int max_segment)
{
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  BOOST_REQUIRE_MESSAGE(fd_ >= 0, "socket(): " << std::strerror(errno));
  if (receive_buffer > 0)
    ::setsockopt(
        fd_, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof receive_buffer);
  if (max_segment > 0)
    ::setsockopt(
        fd_, IPPROTO_TCP, TCP_MAXSEG, &max_segment, sizeof max_segment);
  const int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  connect_started_ = clock_type::now();
  // Loopback connects complete at once (or are refused at once): no timeout needed.
  const int rc =
      ::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address);
  BOOST_REQUIRE_MESSAGE(
      rc == 0, "connect to 127.0.0.1:" << port << ": " << std::strerror(errno));
  // Non-blocking from here on: every read and write goes through poll() with a deadline.
  ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) | O_NONBLOCK);
}

line_client::~line_client()
{
  if (fd_ >= 0)
    ::close(fd_);
}

bool line_client::send(std::string_view text)
{
  const auto deadline = clock_type::now() + milliseconds(5000);
  while (!text.empty())
  {
    const ssize_t n = ::send(fd_, text.data(), text.size(), MSG_NOSIGNAL);
    if (n > 0)
    {
      text.remove_prefix(static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
    {
      pollfd p{fd_, POLLOUT, 0};
      if (::poll(&p, 1, remaining_ms(deadline)) <= 0)
        return false;
      continue;
    }
    if (n < 0 && errno == EINTR)
      continue;
    return false;
  }
  return true;
}

std::optional<std::string> line_client::read_line(milliseconds timeout)
{
  const auto deadline = clock_type::now() + timeout;
  for (;;)
  {
    if (const auto nl = buffer_.find('\n'); nl != std::string::npos)
    {
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      return line;
    }
    if (closed_by_peer_ || !wait_readable(fd_, deadline))
      return std::nullopt;
    char chunk[4096];
    const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n > 0)
    {
      buffer_.append(chunk, static_cast<std::size_t>(n));
    }
    else if (n == 0 || (errno != EAGAIN && errno != EINTR))
    {
      closed_by_peer_ = true;
      return std::nullopt;
    }
  }
}

std::string line_client::read_welcome(milliseconds timeout)
{
  const auto line = read_line(timeout);
  BOOST_REQUIRE_MESSAGE(line && line->rfind("WELCOME ", 0) == 0,
      "expected \"WELCOME NAME history=N\", got "
          << (line ? "\"" + *line + "\"" : "nothing"));
  const std::size_t space = line->find(' ', 8);
  const std::size_t history =
      std::stoul(line->substr(line->find("history=") + 8));
  for (std::size_t i = 0; i < history; ++i)
    BOOST_REQUIRE(read_line(timeout).has_value());
  return line->substr(8, space - 8);
}

line_client::close_kind line_client::wait_for_close(
    milliseconds timeout, std::size_t max_bytes)
{
  const auto deadline = clock_type::now() + timeout;
  std::size_t total = buffer_.size();
  buffer_.clear();
  while (total <= max_bytes)
  {
    if (!wait_readable(fd_, deadline))
      return close_kind::timeout;
    char chunk[65536];
    const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n == 0)
      return close_kind::eof;
    if (n < 0)
    {
      if (errno == EAGAIN || errno == EINTR)
        continue;
      return errno == ECONNRESET ? close_kind::reset : close_kind::timeout;
    }
    total += static_cast<std::size_t>(n);
  }
  return close_kind::timeout;
}

bool line_client::stays_quiet_for(milliseconds d)
{
  if (!buffer_.empty() || closed_by_peer_)
    return false;
  return !wait_readable(fd_, clock_type::now() + d);
}

void line_client::shutdown_send()
{
  ::shutdown(fd_, SHUT_WR);
}

void line_client::reset()
{
  const linger abort_on_close{1, 0};
  ::setsockopt(
      fd_, SOL_SOCKET, SO_LINGER, &abort_on_close, sizeof abort_on_close);
  ::close(fd_);
  fd_ = -1;
  closed_by_peer_ = true;  // nothing more to read
}

// ---------------------------------------------------------------- helpers

void expect_line(
    line_client& client, const std::string& expected, milliseconds timeout)
{
  const auto line = client.read_line(timeout);
  BOOST_TEST_REQUIRE(line.has_value(),
      "expected \"" << expected << "\", got nothing within " << timeout.count()
                    << " ms");
  BOOST_TEST(*line == expected);
}

void expect_nothing_but_pong(line_client& client)
{
  BOOST_REQUIRE(client.send_line("PING"));
  expect_line(client, "PONG");
}

std::string query_stats_line(unsigned short port)
{
  line_client client(port);
  client.read_welcome();
  BOOST_REQUIRE(client.send_line("/stats"));
  for (int lines = 0; lines < 10; ++lines)
  {  // a PING or broadcast may come first
    const auto line = client.read_line(milliseconds(2000));
    BOOST_REQUIRE_MESSAGE(line.has_value(), "no answer to /stats");
    if (line->rfind("STATS ", 0) == 0)
      return *line;
  }
  BOOST_FAIL("no STATS line among the first 10 lines");
  return {};
}

std::map<std::string, std::uint64_t> query_stats(unsigned short port)
{
  return parse_stats(query_stats_line(port));
}

std::map<std::string, std::uint64_t> parse_stats(const std::string& line)
{
  std::map<std::string, std::uint64_t> stats;
  std::istringstream fields(line.substr(line.find(' ') + 1));
  std::string field;
  while (fields >> field)
  {
    const auto eq = field.find('=');
    const std::string value =
        eq == std::string::npos ? std::string() : field.substr(eq + 1);
    // The numbers only (timers=wheel is a name).
    if (!value.empty()
        && value.find_first_not_of("0123456789") == std::string::npos)
      stats[field.substr(0, eq)] = std::stoull(value);
  }
  return stats;
}

std::string close_kind_name(line_client::close_kind kind)
{
  switch (kind)
  {
  case line_client::close_kind::eof:
    return "EOF";
  case line_client::close_kind::reset:
    return "connection reset";
  case line_client::close_kind::timeout:
    return "still open (timeout)";
  }
  return "?";
}

double ms_since(clock_type::time_point start, clock_type::time_point end)
{
  return std::chrono::duration<double, std::milli>(end - start).count();
}

}  // namespace chat_test
