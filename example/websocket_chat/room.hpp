// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// The chat room, which knows nothing of WebSocket or of the stream type: members with unique
// names, the last 100 messages, the broadcast and its fan-out, the server's counters and its
// /stats line. With --threads or --contexts several threads use it at once, so its state is
// behind a mutex, and a member is only ever touched on its own executor (see chat_room).
#pragma once

#include "common/fanout_queue.hpp"
#include "options.hpp"

#include <asio_wheel/wheel_options.hpp>
#include <boost/asio/any_io_executor.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace websocket_chat {

// One message's text, shared by every recipient's queue.
using shared_text = std::shared_ptr<const std::string>;

// A connection as the room sees it: a session (session.hpp) of either stream type. The room
// calls the virtual members only on executor(), the one the session's handlers run on.
class member
{
public:
  // @p executor: the session's (its strand with --threads > 1, else its context's);
  // @p context: the index of its io_context among the server's.
  member(boost::asio::any_io_executor executor, std::size_t context)
    : executor_(std::move(executor)), context_(context)
  {}
  virtual ~member() = default;
  // Queues a message for the client (dropped once the session is closing).
  virtual void deliver(const shared_text& text) = 0;
  // SIGINT/SIGTERM: "BYE server-shutdown" and a close, or, before the handshake is done, the
  // connection dropped.
  virtual void shutdown() = 0;
  // The room's fan-out caught up with what this talker said: read again.
  virtual void resume_input() = 0;

  const std::string& name() const { return name_; }
  const boost::asio::any_io_executor& executor() const { return executor_; }
  std::size_t context() const { return context_; }

private:
  friend class chat_room;
  const boost::asio::any_io_executor executor_;
  const std::size_t context_;
  // The session's own shared_ptr, set by add_session: what a pending fan-out holds, so that
  // a recipient stays alive until its turn. Weak, and a plain member read under the room's
  // lock, since the room may meet a session whose destructor is under way on another thread
  // (and waits for the lock to leave).
  std::weak_ptr<member> self_;
  // Written by the member's own calls into the room (join, leave, rename) and by its
  // destructor; the name is read on its executor, joined_ by deliveries on it too.
  std::string name_;
  std::atomic<bool> joined_{false};
};

// Counters shown by /stats, counted by sessions on every thread: atomics, as reports, not
// synchronisation.
struct server_counters
{
  std::atomic<std::uint64_t> accepted{0}, refused{0}, messages{0};
  // A read failed with beast::error::timeout.
  std::atomic<std::uint64_t> closed_idle{0};
  // The opening handshake, or an HTTP request, timed out.
  std::atomic<std::uint64_t> closed_handshake{0};
  // A client that did not read.
  std::atomic<std::uint64_t> closed_queue_full{0};
};

// A message to 10,000 members is 10,000 websocket writes, fanned out a turn at a time by
// example_common::fanout_queue, as in the line chat (doc/example.md, "Broadcast fan-out"),
// so that Beast's pings and idle closes due meanwhile are not held up behind it. Each message
// goes to those who were members when it was said and still are when their turn comes.
//
// Across cores (--threads, --contexts) the room's state is behind its mutex, and the fan-out
// runs on the first context; each turn's deliveries go out on the recipients' executors: with
// --contexts > 1 grouped into one handler per context, posted to it (run in place for the
// first one's), with --threads > 1 each dispatched to its session's strand. Either keeps the
// order of messages, since a context's or a strand's handlers run in the order posted.
class chat_room
{
public:
  static constexpr std::size_t history_limit = 100;
  using fanout = example_common::fanout_queue<member, shared_text>;

  // @p contexts: the executor of each of the server's io_contexts, a member's context()
  // indexing it; the first one's runs the fan-out. @p websocket_timer: what
  // websocket::stream's own timer is, for /stats ("wheel", "steady_timer" or "none");
  // @p wheel_stats: the wheels' counters, summed over the contexts (empty with --timers
  // beast or off).
  chat_room(std::vector<boost::asio::any_io_executor> contexts,
      const server_options& options, std::string websocket_timer,
      std::function<asio_wheel::wheel_stats()> wheel_stats);

  // Every session, from just after its construction to its end (for shutdown and
  // --max-connections); the session's destructor removes it.
  void add_session(const std::shared_ptr<member>& m);
  void remove_session(member& m);
  std::size_t sessions() const;

  // Makes @p m a member named guestN and sends it "WELCOME guestN history=K" and the history.
  // Called on @p m's executor, as leave, rename, broadcast and pause_if_backlogged are.
  void join(member& m);
  // Leaves the room (nothing if @p m is not a member).
  void leave(member& m);
  // "/nick NAME": the answer line.
  std::string rename(member& m, const std::string& name);
  // "NAME: text" to every other member (as members are now), kept in the history.
  void broadcast(member& from, const std::string& text);
  // True (and @p talker gets resume_input() later) while the fan-out's backlog is over its
  // limit.
  bool pause_if_backlogged(member& talker);
  // "WHO count=N name1 ..." (at most 100 names, sorted).
  std::string who() const;
  // "STATS key=value ...".
  std::string stats_line() const;

  // With --log: "LOG t=SECONDS @p event" on stdout, SECONDS the steady clock's (on Linux
  // CLOCK_MONOTONIC, which a test reads too, so it can set its own times beside these).
  void log(const std::string& event) const;

  // SIGINT/SIGTERM: every session gets member::shutdown(), on its executor.
  void shutdown_all();
  bool stopping() const { return stopping_.load(); }

  server_counters counters;
  const server_options& options;

private:
  using delivery = fanout::delivery;
  void leave_locked(member& m);
  void run_fanout();
  void deliver_batch(std::vector<delivery>& batch);
  static void deliver_one(const delivery& d);

  const std::vector<boost::asio::any_io_executor> contexts_;
  const boost::asio::any_io_executor executor_;  // the first context's
  const std::string websocket_timer_;
  const std::function<asio_wheel::wheel_stats()> wheel_stats_;
  std::atomic<bool> stopping_{false};
  mutable std::mutex log_mutex_;  // one line at a time on stdout
  mutable std::mutex mutex_;  // everything below
  std::unordered_set<member*> sessions_;
  std::unordered_map<std::string, member*> members_;
  std::deque<shared_text> history_;
  std::uint64_t next_guest_ = 1;
  fanout fanout_;
};

}  // namespace websocket_chat
