// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// bench_http_idle_clients: the idle half of benchmark W9 (http_wrk.sh). Opens
// C keep-alive connections to an HTTP server on 127.0.0.1, sends one GET on
// each and reads its whole response, then leaves them all idle: the server now
// holds C sessions, each with a read pending under its idle timeout. Prints
// "ready C" and waits until its stdin reaches EOF (the script measures the
// server's RSS meanwhile); then counts the connections the server has closed
// in the meantime (an idle timeout that fired early would show here), prints
// "closed_by_server K" and exits, 1 if any connection failed.
//
//   bench_http_idle_clients --port P [--connections C]
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

[[noreturn]] void fail(const std::string& what)
{
  std::fprintf(stderr, "bench_http_idle_clients: %s\n", what.c_str());
  std::exit(1);
}

// Reads one response to a GET (header, then Content-Length bytes of body).
bool read_response(int fd)
{
  std::string in;
  char chunk[4096];
  for (;;)
  {
    const auto end = in.find("\r\n\r\n");
    if (end != std::string::npos)
    {
      const auto field = in.find("Content-Length: ");
      if (field == std::string::npos || field > end)
        return false;
      const std::size_t length =
          std::strtoul(in.c_str() + field + 16, nullptr, 10);
      if (in.size() >= end + 4 + length)
        return true;
    }
    const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n <= 0)
    {
      if (n < 0 && errno == EINTR)
        continue;
      return false;
    }
    in.append(chunk, static_cast<std::size_t>(n));
  }
}

}  // namespace

int main(int argc, char** argv)
{
  unsigned port = 0;
  unsigned long connections = 10000;
  for (int i = 1; i + 1 < argc; i += 2)
  {
    const std::string flag = argv[i];
    char* end = nullptr;
    const unsigned long value = std::strtoul(argv[i + 1], &end, 10);
    if (*end != '\0')
      fail(flag + ": expected an integer, got \"" + argv[i + 1] + "\"");
    if (flag == "--port" && value > 0 && value < 65536)
      port = static_cast<unsigned>(value);
    else if (flag == "--connections" && value > 0 && value <= 1000000)
      connections = value;
    else
      fail(flag + ": unknown flag or value out of range");
  }
  if (argc % 2 == 0 || port == 0)
    fail("usage: bench_http_idle_clients --port P [--connections C]");

  rlimit limit{};
  ::getrlimit(RLIMIT_NOFILE, &limit);
  limit.rlim_cur = limit.rlim_max;
  ::setrlimit(RLIMIT_NOFILE, &limit);
  if (limit.rlim_cur < connections + 16)
    fail("--connections " + std::to_string(connections)
        + " needs more open files than the hard limit ("
        + std::to_string(limit.rlim_cur) + ")");

  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const std::string request = "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n";
  std::vector<int> fds;
  fds.reserve(connections);
  for (unsigned long i = 0; i < connections; ++i)
  {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
      fail("socket(): " + std::string(std::strerror(errno)));
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address)
        != 0)
      fail("connection " + std::to_string(i)
          + ": connect: " + std::strerror(errno));
    if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL)
        != static_cast<ssize_t>(request.size()))
      fail("connection " + std::to_string(i) + ": send failed");
    if (!read_response(fd))
      fail("connection " + std::to_string(i) + ": no complete response");
    fds.push_back(fd);
  }
  std::printf("ready %lu\n", connections);
  std::fflush(stdout);

  char c;
  while (::read(STDIN_FILENO, &c, 1) > 0)
  {}

  // A connection the server closed is readable (EOF) now.
  std::size_t closed = 0;
  std::vector<pollfd> polls;
  for (int fd : fds)
    polls.push_back(pollfd{fd, POLLIN, 0});
  if (::poll(polls.data(), polls.size(), 0) > 0)
    for (const auto& p : polls)
      if (p.revents != 0)
        ++closed;
  std::printf("closed_by_server %zu\n", closed);
  for (int fd : fds)
    ::close(fd);
  return 0;
}
