// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// One chat connection: reads newline-delimited lines, answers heartbeats and
// commands, and owns the two timeouts of the example, both wheel timers:
//
//  - idle_timer_: read-idle. Every received line calls extend_after(idle/2),
//    which pushes the one pending wait later without cancelling it (one store:
//    no handler runs, nothing is allocated, no lock is taken; after a PING,
//    reschedule_after, which also moves it earlier). If it fires, the server sends PING and re-arms
//    for the full idle timeout; if that fires too: "BYE idle-timeout", close.
//  - write_timer_: the write deadline. Its single wait stays pending for the
//    session's whole life, parked at time_point::max() while nothing is being
//    written, moved to now + --write-timeout when a write starts. A client that
//    stops reading is cut off by this deadline or, sooner, when its outbound
//    queue exceeds --max-queue bytes, so the server's memory stays bounded.
//
// To compare, --timers makes both of them boost::asio::steady_timer instead
// (session_timer.hpp), refreshed in one of two ways:
//  - steady: the way steady_timer is usually written. Every line and every
//    write sets the new expiry with expires_at, which cancels the pending wait
//    (its handler runs with operation_aborted), and starts another wait.
//  - steady-lazy: the expert's idiom. A line only stores its time
//    (last_input_); the idle timer's wait, started once, finds when it fires
//    that input came meanwhile and waits again for what remains, exactly as
//    on_idle_timer does with the wheel. The write deadline is armed when a
//    write starts and no wait is pending (a pending one is due no later), and
//    fires, re-arms for the rest of the deadline, or lapses with nothing
//    being written. Only a deadline that moves earlier (the drain's) cancels.
//
// All of a session's handlers run on its strand (socket and both timers use the
// strand as executor), so with --threads > 1 no session state needs a lock.
// With one thread the "strand" is the io_context's executor itself; with
// --contexts, the executor of the context the session was accepted onto, run
// by that context's one thread, whose wheel holds both timers.
#pragma once

#include "chat_server.hpp"
#include "session_timer.hpp"

#include <asio_wheel.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <array>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace keepalive_chat {

class session : public std::enable_shared_from_this<session>
{
public:
  using clock = std::chrono::steady_clock;

  // socket's executor must be a strand, or the io_context's executor if only one thread runs it;
  // context_index: which of the server's contexts that is (--contexts).
  session(boost::asio::ip::tcp::socket socket, chat_server& server,
      std::size_t context_index);

  // Each of these must run on the session's strand (post/dispatch to strand()).
  void start();  // join the room, welcome, arm timers, read
  void deliver(
      const shared_line& line);  // queue one outbound line (a broadcast)
  void shut_down(std::string_view reason);  // "BYE reason", then a clean close
  void resume_input();  // the room's fan-out caught up: read again

  const boost::asio::any_io_executor& strand() const { return strand_; }
  std::size_t context_index() const { return context_index_; }

private:
  enum class state
  {
    open,  // reading lines, accepting deliveries
    closing,  // BYE queued, or the client's input ended: writing the rest of the queue, input discarded
    draining,  // sent FIN; reading until the client's EOF so our close is not a RST
    closed,
  };

  void wait_for_input();
  void on_readable(const boost::system::error_code& ec);
  void end_of_input();
  void consume(const char* data, std::size_t size);
  void handle_line(std::string_view line);
  void handle_command(std::string_view line);
  void refresh_idle();
  void arm_idle_timer(clock::time_point expiry);
  void on_idle_timer(const boost::system::error_code& ec);

  void send(shared_line line, bool enforce_queue_limit = true);
  void send_text(std::string text)
  {
    send(std::make_shared<const std::string>(std::move(text)));
  }
  void write_queued();
  void on_written(const boost::system::error_code& ec);
  void write_deadline_moved();
  void arm_write_timer();
  void on_write_timer(const boost::system::error_code& ec);
  void begin_drain();
  void close_now();

  boost::asio::any_io_executor strand_;
  const std::size_t context_index_;
  boost::asio::ip::tcp::socket socket_;
  chat_server& server_;
  const timer_kind timers_;  // --timers
  session_timer idle_timer_;
  session_timer write_timer_;
  bool write_wait_pending_ = false;  // steady-lazy: write_timer_ has a wait
  state state_ = state::open;

  // Input. An idle session holds no read buffer: it waits for readability and
  // then reads into a stack buffer; only an incomplete line is kept here.
  std::string partial_line_;
  clock::time_point last_input_;
  bool ping_sent_ = false;

  // Output: lines waiting (from queue_head_ on), and how many of the front
  // ones are being written. A vector rather than std::deque, which allocates
  // about 600 bytes even when empty: an idle session should hold nothing.
  std::vector<shared_line> queue_;
  std::size_t queue_head_ = 0;
  std::size_t queued_bytes_ = 0;
  std::size_t lines_in_flight_ = 0;
  clock::time_point write_started_;
  clock::time_point drain_deadline_;
};

}  // namespace keepalive_chat
