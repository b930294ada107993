// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// The chat server: the room (members, unique names, the last 100 messages) and
// the acceptor that turns connections into sessions, enforces --max-connections
// and shuts everything down on SIGINT/SIGTERM. The per-connection protocol and
// its timeouts live in session.hpp.
#pragma once

#include "common/fanout_queue.hpp"
#include "options.hpp"

#include <asio_wheel.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/strand.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/executor_work_guard.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace keepalive_chat {

class session;
using shared_line =
    std::shared_ptr<const std::string>;  // one buffer shared by every recipient

// How late, by the server's own clock, idle closes happen: the time the idle
// handler runs minus (last input + idle timeout). The load client sees the
// same closes from outside, which adds accept queueing and its own delays;
// this is the server's part alone. 1 ms buckets up to 2 s, the maximum exact.
class lateness_histogram
{
public:
  void record(std::chrono::nanoseconds lateness);
  // The smallest lateness at or above fraction p of the samples, to the bucket's upper edge.
  std::chrono::milliseconds percentile(double p) const;
  std::chrono::nanoseconds max() const
  {
    return std::chrono::nanoseconds(max_ns_.load(std::memory_order_relaxed));
  }

private:
  static constexpr std::size_t buckets =
      2048;  // [i, i+1) ms; the last one also holds everything later
  std::atomic<std::uint64_t> counts_[buckets] = {};
  std::atomic<std::int64_t> max_ns_{0};
};

// Counters shown by /stats. Relaxed atomics: they are reports, not synchronisation.
struct server_counters
{
  std::atomic<std::uint64_t> accepted{0}, refused{0}, messages{0};
  // Waits started on sessions' idle timers: one per session with the wheel
  // or the idiom (and one per PING or re-arm), one per line with --timers
  // steady.
  std::atomic<std::uint64_t> idle_timer_waits{0};
  std::atomic<std::uint64_t> kicked_idle{0}, kicked_write_timeout{0},
      kicked_queue_full{0}, kicked_line_too_long{0};
  lateness_histogram idle_close_lateness;
};

// Members, history and the broadcast fan-out, shared by all sessions; with
// --threads > 1 several strands use it at once, and with --contexts > 1 the
// threads of several contexts, hence the mutex.
//
// A message to 10,000 members is 10,000 writes: example_common::fanout_queue
// delivers at most a turn's worth per turn of the event loop, in the order the
// messages were sent, and pauses a talker that outruns it.
//
// With --contexts > 1 the fan-out still runs on the first context, and each
// turn's deliveries go out as one handler per context, posted to it (the
// sessions of a context run on its executor, on its one thread): a member is
// only ever touched on its own context's thread, and a context's posts run in
// the order they were made, so each member still sees the messages in order.
class chat_room
{
public:
  static constexpr std::size_t history_limit = 100;

  // The fan-out runs on the first context; contexts are all the server's
  // (--contexts), each session on the one its context_index() names.
  explicit chat_room(std::vector<boost::asio::io_context*> contexts)
    : contexts_(std::move(contexts)),
      executor_(contexts_.front()->get_executor())
  {}

  // Adds the session under a fresh "guestN" name; returns the name and the history to replay.
  std::string join(const std::shared_ptr<session>& member,
      std::vector<shared_line>& history);
  void leave(const session* member);
  // Empty string when done; otherwise the reason the name was refused.
  std::string rename(const session* member, const std::string& new_name);
  // Queues "NAME: text" for every member except the sender (as members are
  // now) and records it in the history.
  void broadcast(const session* sender, std::string_view text);
  // True (and `talker` will get resume_input() later) while the fan-out backlog is over its limit.
  bool pause_if_backlogged(const std::shared_ptr<session>& talker);
  // "WHO count=N name..." listing at most 100 names, sorted.
  std::string who_line() const;
  std::size_t size() const;
  std::vector<std::shared_ptr<session>> members() const;

private:
  struct member_entry
  {
    std::shared_ptr<session> member;
    std::string name;
  };
  mutable std::mutex mutex_;
  using fanout = example_common::fanout_queue<session, shared_line>;
  void run_fanout();

  const std::vector<boost::asio::io_context*> contexts_;
  boost::asio::any_io_executor executor_;
  std::unordered_map<const session*, member_entry> members_;
  std::unordered_set<std::string> names_;
  std::deque<shared_line> history_;
  std::uint64_t next_guest_ = 1;
  fanout fanout_;
};

class chat_server
{
public:
  // contexts: one (run by --threads threads), or --contexts of them, each run
  // by its own thread. The first holds the acceptor, the signals, the room's
  // fan-out and the server's own timers; connections go to each in turn.
  chat_server(const std::vector<boost::asio::io_context*>& contexts,
      const server_options& options);

  // Opens the listening socket; throws boost::system::system_error on failure.
  boost::asio::ip::tcp::endpoint listen();
  void start();  // accepting and watching for SIGINT/SIGTERM

  const server_options& options() const { return options_; }
  chat_room& room() { return room_; }
  server_counters& counters() { return counters_; }
  bool shutting_down() const { return shutting_down_.load(); }
  // "STATS connections=... <wheel_stats fields>", one line for /stats; the
  // wheel_stats are the sum over the contexts (max_lateness their maximum).
  std::string stats_line() const;
  void
  session_closed();  // called once by each session when its socket is closed

private:
  void accept_next();
  void on_accept(const boost::system::error_code& ec,
      boost::asio::ip::tcp::socket socket, std::size_t context_index);
  void refuse(boost::asio::ip::tcp::socket& socket);
  void begin_shutdown();
  void stop_contexts();

  const std::vector<boost::asio::io_context*> contexts_;
  boost::asio::io_context& io_;  // the first context
  const server_options options_;
  // The contexts other than the first hold no work until a connection comes:
  // these keep their run() going until the shutdown begins.
  std::vector<
      boost::asio::executor_work_guard<boost::asio::io_context::executor_type>>
      idle_contexts_work_;
  std::size_t next_context_ = 0;  // the next connection's; on server_strand_
  // The acceptor, the signals and the two timers below share one strand, so a
  // signal on one thread and an accept on another never touch them at once.
  boost::asio::strand<boost::asio::io_context::executor_type> server_strand_;
  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::signal_set signals_;
  // Out of file descriptors: retry accepting after a pause instead of spinning.
  asio_wheel::wheel_timer accept_retry_timer_;
  // Bounds the goodbye: clients that do not read their BYE are not waited for.
  asio_wheel::wheel_timer shutdown_deadline_;
  chat_room room_;
  server_counters counters_;
  std::atomic<std::size_t> live_sessions_{0};
  std::atomic<bool> shutting_down_{false};
};

}  // namespace keepalive_chat
