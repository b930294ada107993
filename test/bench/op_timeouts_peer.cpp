//
// test/bench/op_timeouts_peer.cpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The peer process of benchmark W8 and the loopback connections it holds the client ends of
// (op_timeouts_peer.hpp): its command loop, the commands the benchmark sends it, and the
// making of the connections.
//

#include "op_timeouts_peer.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unordered_map>

namespace op_timeouts {

void die(const char* what)
{
  std::fprintf(
      stderr, "%s: %s: %s\n", OP_TIMEOUTS_PROGRAM, what, std::strerror(errno));
  std::exit(1);
}

namespace {

// ---------------------------------------------------------------------------
// The peer process: holds the client ends and writes one byte to each socket
// it is told to. Commands are SOCK_SEQPACKET messages: a header and a payload;
// the peer answers each with one status byte (0: done).

enum class command : std::uint32_t
{
  add_fds,
  write_bytes,
  close_all,
  exit
};

struct command_header
{
  command type;
  std::uint32_t count;
};

[[noreturn]] void peer_main(int ctl)
{
  std::vector<int> fds;
  std::vector<unsigned char> buffer(sizeof(command_header) + 4 * 65536);
  alignas(cmsghdr) unsigned char control[CMSG_SPACE(sizeof(int) * 253)];
  for (;;)
  {
    iovec iov{buffer.data(), buffer.size()};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    const ssize_t got = ::recvmsg(ctl, &msg, 0);
    if (got <= 0)
      ::_exit(got == 0 ? 0 : 3);  // the benchmark is gone
    command_header h;
    std::memcpy(&h, buffer.data(), sizeof h);
    unsigned char status = 0;
    switch (h.type)
    {
    case command::add_fds:
      for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
      {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
          continue;
        const std::size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        const int* received = reinterpret_cast<const int*>(CMSG_DATA(c));
        fds.insert(fds.end(), received, received + n);
      }
      status = (msg.msg_flags & MSG_CTRUNC) ? 1 : 0;
      break;
    case command::write_bytes:
    {
      const auto* indices =
          reinterpret_cast<const std::uint32_t*>(buffer.data() + sizeof h);
      for (std::uint32_t i = 0; i < h.count; ++i)
      {
        const std::uint32_t index = indices[i];
        if (index >= fds.size()
            || ::send(fds[index], "x", 1, MSG_NOSIGNAL) != 1)
          status = 1;
      }
      break;
    }
    case command::close_all:
      for (int fd : fds)
        ::close(fd);
      fds.clear();
      break;
    case command::exit:
      ::_exit(0);
    }
    if (::send(ctl, &status, 1, MSG_NOSIGNAL) != 1)
      ::_exit(3);
  }
}

}  // namespace

peer::peer()
{
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
    die("socketpair");
  std::fflush(stdout);
  std::fflush(stderr);
  pid_ = ::fork();
  if (pid_ < 0)
    die("fork");
  if (pid_ == 0)
  {
    ::close(sv[0]);
    peer_main(sv[1]);
  }
  ::close(sv[1]);
  ctl_ = sv[0];
}

peer::~peer()
{
  command_header h{command::exit, 0};
  (void)::send(ctl_, &h, sizeof h, MSG_NOSIGNAL);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  ::close(ctl_);
}

bool peer::add_fds(const std::vector<int>& fds)
{
  command_header h{command::add_fds, static_cast<std::uint32_t>(fds.size())};
  iovec iov{&h, sizeof h};
  alignas(
      cmsghdr) unsigned char control[CMSG_SPACE(sizeof(int) * fds_per_message)];
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
  std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
  if (::sendmsg(ctl_, &msg, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof h))
    die("sendmsg (SCM_RIGHTS)");
  return wait_ack();
}

bool peer::write_bytes(const std::vector<std::uint32_t>& indices)
{
  command_header h{
      command::write_bytes, static_cast<std::uint32_t>(indices.size())};
  iovec iov[2] = {{&h, sizeof h},
      {const_cast<std::uint32_t*>(indices.data()), 4 * indices.size()}};
  msghdr msg{};
  msg.msg_iov = iov;
  msg.msg_iovlen = 2;
  if (::sendmsg(ctl_, &msg, MSG_NOSIGNAL) < 0)
    die("sendmsg (write command)");
  return wait_ack();
}

bool peer::close_all()
{
  command_header h{command::close_all, 0};
  if (::send(ctl_, &h, sizeof h, MSG_NOSIGNAL) < 0)
    die("send (close command)");
  return wait_ack();
}

bool peer::wait_ack()
{
  unsigned char status = 1;
  const ssize_t got = ::recv(ctl_, &status, 1, 0);
  if (got != 1)
  {
    std::fprintf(stderr, "%s: the peer process died\n", OP_TIMEOUTS_PROGRAM);
    std::exit(1);
  }
  return status == 0;
}

namespace {

// ---------------------------------------------------------------------------
// Connections: made with plain sockets once, the client ends handed to the
// peer, the server ends kept as file descriptors and assigned to a fresh
// io_context for every measured phase (and released after it).

constexpr std::size_t connections_per_listener = 20000;  // < ephemeral ports

std::uint16_t local_port(int fd)
{
  sockaddr_in a{};
  socklen_t len = sizeof a;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0)
    die("getsockname");
  return ntohs(a.sin_port);
}

int make_listener(sockaddr_in& address)
{
  const int l = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (l < 0)
    die("socket (listener)");
  address = sockaddr_in{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;  // ephemeral
  if (::bind(l, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0)
    die("bind 127.0.0.1:0");
  if (::listen(l, 4096) != 0)
    die("listen");
  address.sin_port = htons(local_port(l));
  return l;
}

}  // namespace

std::vector<int> make_connections(std::size_t count, peer& p)
{
  std::vector<int> servers;
  servers.reserve(count);
  sockaddr_in address{};
  int listener = -1;
  std::size_t on_listener = 0;
  while (servers.size() < count)
  {
    if (listener < 0 || on_listener == connections_per_listener)
    {
      if (listener >= 0)
        ::close(listener);
      listener = make_listener(address);
      on_listener = 0;
    }
    const std::size_t batch = std::min({fds_per_message, count - servers.size(),
        connections_per_listener - on_listener});
    std::vector<int> clients(batch);
    std::unordered_map<std::uint16_t, std::size_t> by_port;
    for (std::size_t i = 0; i < batch; ++i)
    {
      clients[i] = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      if (clients[i] < 0)
        die("socket (client)");
      if (::connect(
              clients[i], reinterpret_cast<sockaddr*>(&address), sizeof address)
          != 0)
        die("connect to 127.0.0.1");
      const int one = 1;
      ::setsockopt(clients[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      by_port[local_port(clients[i])] = i;
    }
    std::vector<int> accepted(batch, -1);
    for (std::size_t i = 0; i < batch; ++i)
    {
      sockaddr_in from{};
      socklen_t len = sizeof from;
      const int s = ::accept4(listener, reinterpret_cast<sockaddr*>(&from),
          &len, SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (s < 0)
        die("accept");
      const auto it = by_port.find(ntohs(from.sin_port));
      if (it == by_port.end() || accepted[it->second] != -1)
      {
        std::fprintf(stderr, "%s: accepted a connection from an unknown port\n",
            OP_TIMEOUTS_PROGRAM);
        std::exit(1);
      }
      accepted[it->second] = s;
    }
    servers.insert(servers.end(), accepted.begin(), accepted.end());
    if (!p.add_fds(clients))
    {
      std::fprintf(stderr, "%s: the peer did not receive the sockets\n",
          OP_TIMEOUTS_PROGRAM);
      std::exit(1);
    }
    for (int c : clients)
      ::close(c);
    on_listener += batch;
  }
  if (listener >= 0)
    ::close(listener);
  return servers;
}

}  // namespace op_timeouts
