// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// The per-connection protocol of the keepalive chat server and its two
// timers (see session.hpp for the idle and write-deadline scheme, with the
// wheel and, with --timers, with steady_timer).
#include "session.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/asio/write.hpp>

#include <cstring>

namespace keepalive_chat {
namespace {

// Heartbeat lines are the same bytes for everyone: allocate them once.
const shared_line& pong_line()
{
  static const shared_line line = std::make_shared<const std::string>("PONG\n");
  return line;
}
const shared_line& ping_line()
{
  static const shared_line line = std::make_shared<const std::string>("PING\n");
  return line;
}

// Rejects overlong encodings, surrogates and code points above U+10FFFF.
bool is_valid_utf8(std::string_view s)
{
  std::size_t i = 0;
  while (i < s.size())
  {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t extra;
    std::uint32_t cp;
    if (c < 0x80)
    {
      ++i;
      continue;
    }
    if ((c & 0xE0) == 0xC0)
    {
      extra = 1;
      cp = c & 0x1F;
    }
    else if ((c & 0xF0) == 0xE0)
    {
      extra = 2;
      cp = c & 0x0F;
    }
    else if ((c & 0xF8) == 0xF0)
    {
      extra = 3;
      cp = c & 0x07;
    }
    else
      return false;
    if (i + extra >= s.size())
      return false;  // truncated sequence
    for (std::size_t k = 1; k <= extra; ++k)
    {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80)
        return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    static constexpr std::uint32_t min_for_length[] = {0, 0x80, 0x800, 0x10000};
    if (cp < min_for_length[extra] || cp > 0x10FFFF
        || (cp >= 0xD800 && cp <= 0xDFFF))
      return false;
    i += extra + 1;
  }
  return true;
}

}  // namespace

session::session(boost::asio::ip::tcp::socket socket, chat_server& server,
    std::size_t context_index)
  : strand_(socket.get_executor()), context_index_(context_index),
    socket_(std::move(socket)), server_(server),
    timers_(server.options().timers), idle_timer_(strand_, timers_),
    write_timer_(strand_, timers_),
    // Idle time counts from the accept, not from when start() gets to run.
    last_input_(clock::now())
{}

void session::start()
{
  boost::system::error_code ignored;
  // Non-blocking so that on_readable can read until EAGAIN without blocking the thread.
  socket_.non_blocking(true, ignored);
  socket_.set_option(boost::asio::ip::tcp::no_delay(true), ignored);

  const auto self = shared_from_this();
  arm_idle_timer(last_input_ + server_.options().idle_timeout / 2);
  arm_write_timer();

  std::vector<shared_line> history;
  const std::string name = server_.room().join(self, history);
  // The history is at most 100 lines of --max-line bytes: bounded, so it is
  // queued whatever --max-queue says.
  send(std::make_shared<const std::string>("WELCOME " + name
           + " history=" + std::to_string(history.size()) + "\n"),
      false);
  for (auto& line : history)
    send(std::move(line), false);

  // begin_shutdown() may have taken its snapshot of the room just before we joined.
  if (server_.shutting_down())
    shut_down("server-shutdown");
  wait_for_input();
}

void session::deliver(const shared_line& line)
{
  if (state_ == state::open)
    send(line);
}

void session::shut_down(std::string_view reason)
{
  if (state_ != state::open)
    return;
  send(std::make_shared<const std::string>("BYE " + std::string(reason) + "\n"),
      false);
  if (state_ != state::open)
    return;  // send() found the socket dead
  state_ = state::closing;
  idle_timer_.cancel();
  server_.room().leave(this);
}

// ---------------------------------------------------------------- input

void session::wait_for_input()
{
  socket_.async_wait(boost::asio::ip::tcp::socket::wait_read,
      [self = shared_from_this()](
          const boost::system::error_code& ec) { self->on_readable(ec); });
}

void session::on_readable(const boost::system::error_code& ec)
{
  if (state_ == state::closed)
    return;
  if (ec)
    return close_now();
  std::array<char, 4096> chunk;
  // At most 64 KiB per turn, then queue behind the other ready sessions.
  for (int turn = 0; turn < 16 && state_ != state::closed; ++turn)
  {
    boost::system::error_code read_ec;
    const std::size_t n =
        socket_.read_some(boost::asio::buffer(chunk), read_ec);
    if (read_ec == boost::asio::error::would_block
        || read_ec == boost::asio::error::try_again)
      break;
    if (read_ec == boost::asio::error::eof)
      return end_of_input();
    if (read_ec)
      return close_now();  // reset: the client is gone
    if (state_ == state::open)
      consume(chunk.data(), n);
    // closing / draining: input is read only to see the client's EOF, and dropped.
  }
  if (state_ == state::closed)
    return;
  // Flow control: while the room is far behind delivering what was said, stop
  // reading this client; the room calls resume_input() when it has caught up.
  if (state_ == state::open
      && server_.room().pause_if_backlogged(shared_from_this()))
    return;
  wait_for_input();
}

void session::end_of_input()
{
  // The client shut down its sending side, or closed. A half-closed client is
  // still reading: it gets what is already queued for it (the history, the
  // answers to its last lines, a BYE), bounded by the write deadline, and then
  // our FIN. Nothing more is read (the socket would stay readable at EOF) and
  // nothing more is broadcast to it.
  if (state_ == state::draining || lines_in_flight_ == 0)
    return close_now();
  if (state_ == state::open)
  {
    state_ = state::closing;
    idle_timer_.cancel();
    server_.room().leave(this);
  }
  // on_written() closes once the queue is written.
}

void session::resume_input()
{
  if (state_ != state::closed)
    wait_for_input();
}

void session::consume(const char* data, std::size_t size)
{
  // +1: a line may end in "\r\n"; the '\r' is not counted against --max-line.
  const std::size_t limit = server_.options().max_line + 1;
  while (size > 0 && state_ == state::open)
  {
    const auto* newline =
        static_cast<const char*>(std::memchr(data, '\n', size));
    const std::size_t segment =
        newline ? static_cast<std::size_t>(newline - data) : size;
    if (partial_line_.size() + segment > limit)
    {
      server_.counters().kicked_line_too_long++;
      send_text("ERR line-too-long limit="
          + std::to_string(server_.options().max_line) + "\n");
      return shut_down("line-too-long");
    }
    if (!newline)
    {
      partial_line_.append(data, size);
      return;
    }
    if (partial_line_.empty())
    {
      handle_line(std::string_view(data, segment));
    }
    else
    {
      partial_line_.append(data, segment);
      handle_line(partial_line_);
      std::string().swap(partial_line_);  // an idle session keeps no buffer
    }
    data += segment + 1;
    size -= segment + 1;
  }
}

void session::handle_line(std::string_view line)
{
  if (!line.empty() && line.back() == '\r')
    line.remove_suffix(1);
  if (line.size() > server_.options().max_line)
  {
    server_.counters().kicked_line_too_long++;
    send_text("ERR line-too-long limit="
        + std::to_string(server_.options().max_line) + "\n");
    return shut_down("line-too-long");
  }
  refresh_idle();
  if (line.empty() || line == "PING")
    return send(pong_line());
  if (line == "PONG")
    return;  // the answer to our PING: refreshing was all it had to do
  if (!is_valid_utf8(line))
    return send_text("ERR invalid-utf8\n");
  if (line.front() == '/')
    return handle_command(line);
  server_.counters().messages++;
  server_.room().broadcast(this, line);
}

void session::handle_command(std::string_view line)
{
  const std::size_t space = line.find(' ');
  const std::string_view command = line.substr(0, space);
  const std::string_view argument = space == std::string_view::npos
      ? std::string_view()
      : line.substr(space + 1);
  if (command == "/nick")
  {
    const std::string name(argument);
    const std::string refusal = server_.room().rename(this, name);
    send_text(
        refusal.empty() ? "OK nick " + name + "\n" : "ERR " + refusal + "\n");
  }
  else if (command == "/who")
  {
    send_text(server_.room().who_line());
  }
  else if (command == "/stats")
  {
    send_text(server_.stats_line());
  }
  else if (command == "/quit")
  {
    shut_down("quit");
  }
  else
  {
    send_text("ERR unknown-command " + std::string(command) + "\n");
  }
}

// ---------------------------------------------------------------- idle timeout

void session::refresh_idle()
{
  last_input_ = clock::now();
  const bool after_ping = ping_sent_;
  ping_sent_ = false;
  switch (timers_)
  {
  case timer_kind::wheel:
    // Pushes the pending wait later without cancelling it: one store into
    // the timer, no lock, no handler runs, nothing is allocated; the wheel
    // re-files the wait when its slot comes round. If the wait has already
    // expired and its handler is queued, on_idle_timer sees from last_input_
    // that it came too soon. After a PING the wait is set for the full idle
    // timeout, later than the next PING is due: reschedule_after moves it
    // earlier.
    if (after_ping)
      idle_timer_.wheel().reschedule_after(server_.options().idle_timeout / 2);
    else
      idle_timer_.wheel().extend_after(server_.options().idle_timeout / 2);
    break;
  case timer_kind::steady:
    // Cancels the pending wait (its handler runs) and starts another.
    arm_idle_timer(last_input_ + server_.options().idle_timeout / 2);
    break;
  case timer_kind::steady_lazy:
    // The pending wait is due no later than the next PING; when it fires,
    // on_idle_timer finds this input and waits for what remains.
    break;
  }
}

void session::arm_idle_timer(clock::time_point expiry)
{
  server_.counters().idle_timer_waits++;
  idle_timer_.expires_at(expiry);
  idle_timer_.async_wait(
      [self = shared_from_this()](
          const boost::system::error_code& ec) { self->on_idle_timer(ec); });
}

void session::on_idle_timer(const boost::system::error_code& ec)
{
  if (ec || state_ != state::open)
    return;  // cancelled: the session is closing
  const auto idle = server_.options().idle_timeout;
  const auto now = clock::now();
  if (now >= last_input_ + idle)
  {
    server_.counters().kicked_idle++;
    server_.counters().idle_close_lateness.record(now - (last_input_ + idle));
    return shut_down("idle-timeout");
  }
  if (!ping_sent_ && now >= last_input_ + idle / 2)
  {
    ping_sent_ = true;
    send(ping_line());
    if (state_ != state::open)
      return;
  }
  arm_idle_timer(last_input_ + (ping_sent_ ? idle : idle / 2));
}

// ---------------------------------------------------------------- output

void session::send(shared_line line, bool enforce_queue_limit)
{
  if (enforce_queue_limit
      && queued_bytes_ + line->size() > server_.options().max_queue)
  {
    // The client reads slower than the room talks; cutting it off is what keeps memory bounded.
    server_.counters().kicked_queue_full++;
    return close_now();
  }
  queued_bytes_ += line->size();
  queue_.push_back(std::move(line));
  if (lines_in_flight_ == 0)
    write_queued();
}

void session::write_queued()
{
  // Up to 16 lines in one gathered write; unused entries stay empty buffers.
  std::array<boost::asio::const_buffer, 16> buffers;
  lines_in_flight_ = std::min(queue_.size() - queue_head_, buffers.size());
  for (std::size_t i = 0; i < lines_in_flight_; ++i)
    buffers[i] = boost::asio::buffer(*queue_[queue_head_ + i]);
  write_started_ = clock::now();
  write_deadline_moved();
  boost::asio::async_write(socket_, buffers,
      [self = shared_from_this()](const boost::system::error_code& ec,
          std::size_t) { self->on_written(ec); });
}

void session::on_written(const boost::system::error_code& ec)
{
  if (state_ == state::closed)
    return;
  if (ec)
    return close_now();
  for (; lines_in_flight_ > 0; --lines_in_flight_)
  {
    queued_bytes_ -= queue_[queue_head_]->size();
    queue_[queue_head_++].reset();
  }
  if (queue_head_ >= 64 && queue_head_ * 2 >= queue_.size())
  {
    // A queue that never empties (a steady talker) must not grow at the front:
    // drop the written slots, amortised O(1) per line.
    queue_.erase(queue_.begin(),
        queue_.begin() + static_cast<std::ptrdiff_t>(queue_head_));
    queue_head_ = 0;
  }
  if (queue_head_ < queue_.size())
    return write_queued();
  // All written: keep a small vector for the next line, give a big one (after
  // a history replay or a burst) back.
  if (queue_.capacity() > 16)
    std::vector<shared_line>().swap(queue_);
  queue_.clear();
  queue_head_ = 0;
  // Nothing to write: the deadline moves to time_point::max().
  write_deadline_moved();
  if (state_ == state::closing)
  {
    // The usual case (an idle client has sent nothing) closes at once; only
    // unread input makes the kernel answer our close with RST, so only then drain.
    boost::system::error_code ec;
    if (socket_.available(ec) == 0 && !ec)
      return close_now();
    begin_drain();
  }
}

// The write deadline: drain_deadline_ while draining, write_started_ +
// --write-timeout while lines are being written, else none
// (time_point::max()). It changed; the timer follows as --timers says.
void session::write_deadline_moved()
{
  switch (timers_)
  {
  case timer_kind::wheel:
    // Moves the one pending wait: later costs a store, earlier (the drain's
    // deadline) re-files it; no handler runs. With nothing being written it
    // is parked at max() instead of cancelled.
    if (state_ == state::draining)
      write_timer_.wheel().reschedule_at(drain_deadline_);
    else if (lines_in_flight_ > 0)
      write_timer_.wheel().reschedule_after(server_.options().write_timeout);
    else
      write_timer_.wheel().reschedule_at(clock::time_point::max());
    break;
  case timer_kind::steady:
    arm_write_timer();  // cancels the pending wait: its handler runs
    break;
  case timer_kind::steady_lazy:
    // A pending wait is due no later than a new write's deadline; only the
    // drain's, earlier, needs a new one.
    if (state_ == state::draining || !write_wait_pending_)
      arm_write_timer();
    break;
  }
}

void session::arm_write_timer()
{
  clock::time_point deadline = clock::time_point::max();
  if (state_ == state::draining)
    deadline = drain_deadline_;
  else if (lines_in_flight_ > 0)
    deadline = write_started_ + server_.options().write_timeout;
  else if (timers_ == timer_kind::steady_lazy)
    return;  // the idiom waits only for a deadline
  write_timer_.expires_at(deadline);
  write_timer_.async_wait(
      [self = shared_from_this()](
          const boost::system::error_code& ec) { self->on_write_timer(ec); });
  write_wait_pending_ = true;
}

void session::on_write_timer(const boost::system::error_code& ec)
{
  if (ec || state_ == state::closed)
    return;
  write_wait_pending_ = false;
  const auto now = clock::now();
  if (state_ == state::draining)
  {
    if (now >= drain_deadline_)
      return close_now();  // the client never closed its side
  }
  else if (lines_in_flight_ > 0
      && now >= write_started_ + server_.options().write_timeout)
  {
    server_.counters().kicked_write_timeout++;
    return close_now();
  }
  // The deadline moved after this wait had expired, or (steady-lazy) the
  // wait was due before it: wait for the rest.
  arm_write_timer();
}

// ---------------------------------------------------------------- closing

void session::begin_drain()
{
  // Closing a socket with unread input makes the kernel send RST instead of
  // FIN, and the client may see "connection reset" instead of our BYE and a
  // clean end. So: FIN first, then read until the client closes too, for at
  // most a second.
  state_ = state::draining;
  boost::system::error_code ignored;
  socket_.shutdown(boost::asio::ip::tcp::socket::shutdown_send, ignored);
  drain_deadline_ = clock::now() + std::chrono::seconds(1);
  write_deadline_moved();
}

void session::close_now()
{
  if (state_ == state::closed)
    return;
  state_ = state::closed;
  server_.room().leave(this);
  idle_timer_.cancel();
  write_timer_.cancel();
  boost::system::error_code ignored;
  socket_.close(ignored);
  // queue_ is left alone: an aborted write may still refer to it until its
  // handler runs; it goes away with the session.
  server_.session_closed();
}

}  // namespace keepalive_chat
