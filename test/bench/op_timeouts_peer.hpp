//
// test/bench/op_timeouts_peer.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The other end of benchmark W8's loopback connections (op_timeouts.cpp). A child process,
// the peer, forked at start: it holds the client end of every connection (passed to it over
// a Unix socket with SCM_RIGHTS) and writes one byte to each socket it is told to, as a
// remote client's would, so that the measured process pays for receiving the byte, not for
// sending it, and each process needs N open files, not 2N. And the connections themselves:
// made over 127.0.0.1 with plain sockets once, the client ends handed to the peer, the server
// ends returned as file descriptors, which the benchmark assigns to a fresh io_context for
// every measured phase.
//
// The messages name the program (OP_TIMEOUTS_PROGRAM, which CMake sets for
// bench_op_timeouts_newer_asio).
//

#ifndef ASIO_WHEEL_TEST_BENCH_OP_TIMEOUTS_PEER_HPP
#define ASIO_WHEEL_TEST_BENCH_OP_TIMEOUTS_PEER_HPP

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#ifndef OP_TIMEOUTS_PROGRAM
# define OP_TIMEOUTS_PROGRAM "op_timeouts"
#endif

namespace op_timeouts {

/// Descriptors per SCM_RIGHTS message (the kernel takes at most 253): the
/// peer and the benchmark keep this many open files in reserve for them.
inline constexpr std::size_t fds_per_message = 200;

/// Prints "PROGRAM: WHAT: strerror(errno)" and exits with status 1: a system
/// call of the benchmark or of its peer failed.
[[noreturn]] void die(const char* what);

/// The peer process, forked by the constructor (before any socket or
/// io_context exists, so that it inherits none) and told to exit by the
/// destructor. Commands are SOCK_SEQPACKET messages, each acknowledged.
class peer
{
public:
  peer();
  ~peer();

  peer(const peer&) = delete;
  peer& operator=(const peer&) = delete;

  /// Hands @p fds to the peer (appended to its list, in order).
  bool add_fds(const std::vector<int>& fds);

  /// The peer writes one byte to each socket of @p indices; returns when it
  /// has (false if a write failed).
  bool write_bytes(const std::vector<std::uint32_t>& indices);

  /// The peer closes every socket it holds.
  bool close_all();

private:
  bool wait_ack();

  pid_t pid_ = -1;
  int ctl_ = -1;
};

/// @p count connected pairs over 127.0.0.1; returns the server ends, the
/// client end of pair i is the peer's socket i.
std::vector<int> make_connections(std::size_t count, peer& p);

}  // namespace op_timeouts

#endif  // ASIO_WHEEL_TEST_BENCH_OP_TIMEOUTS_PEER_HPP
