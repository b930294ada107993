// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// One connection: Beast's websocket::stream over Stream (session<Stream>, for either stream
// type of server.hpp), the protocol, and an outbound queue. Its timeouts are Beast's own,
// stream_base::timeout: the opening handshake's limit, the idle timeout with keep-alive pings
// (a ping at half of it; the close, with beast::error::timeout, if it went unanswered) and
// the closing handshake's limit. Nothing here sets a timer: which timer Beast uses follows
// Stream's executor type (a wheel timer on asio_wheel::wheel_executor).
#pragma once

#include "room.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/bind_handler.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/stream_traits.hpp>
#include <boost/beast/http/field.hpp>
#include <boost/beast/websocket.hpp>

#include <cstddef>
#include <deque>
#include <memory>
#include <string>
#include <utility>

namespace websocket_chat {

namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = boost::asio::ip::tcp;
using error_code = boost::system::error_code;

template <class Stream>
class session : public member,
                public std::enable_shared_from_this<session<Stream>>
{
public:
  session(chat_room& room, tcp::socket&& socket)
    : room_(room), ws_(std::move(socket))
  {
    room_.add_session(*this);
  }
  ~session() override { room_.remove_session(*this); }
  session(const session&) = delete;
  session& operator=(const session&) = delete;

  void start()
  {
    const server_options& o = room_.options;
    websocket::stream_base::timeout t;
    if (!timed(o))
    {
      t.handshake_timeout = websocket::stream_base::none();
      t.idle_timeout = websocket::stream_base::none();
      t.keep_alive_pings = false;
    }
    else
    {
      t.handshake_timeout = o.handshake_timeout;
      t.idle_timeout = o.idle_timeout;
      t.keep_alive_pings = o.keep_alive_pings;
    }
    ws_.set_option(t);
    ws_.set_option(
        websocket::stream_base::decorator([](websocket::response_type& res) {
          res.set(beast::http::field::server, "websocket_chat");
        }));
    ws_.read_message_max(o.max_message);
    ws_.async_accept(beast::bind_front_handler(
        &session::on_accept, this->shared_from_this()));
  }

  void deliver(const shared_text& text) override
  {
    if (closing_ || dropped_)
      return;
    if (queued_bytes_ + text->size() > room_.options.max_queue)
    {
      // A client that does not read: cut off. Its read fails next, and the
      // session leaves the room then (never from inside a broadcast).
      dropped_ = true;
      ++room_.counters.closed_queue_full;
      beast::get_lowest_layer(ws_).close();
      return;
    }
    queued_bytes_ += text->size();
    queue_.push_back(text);
    if (!writing_)
      do_write();
  }

  void shutdown() override
  {
    if (!accepted_)
    {
      beast::get_lowest_layer(ws_).close();  // still in the handshake
      return;
    }
    say_bye_and_close("BYE server-shutdown");
  }

  void resume_input() override { do_read(); }

  std::shared_ptr<member> shared_member() override
  {
    return this->shared_from_this();
  }

private:
  void on_accept(error_code ec)
  {
    if (ec)
    {
      if (ec == beast::error::timeout)
        ++room_.counters.closed_handshake;
      return;
    }
    accepted_ = true;
    ++room_.counters.accepted;
    if (room_.stopping())
      say_bye_and_close("BYE server-shutdown");
    else if (room_.sessions() > room_.options.max_connections)
    {
      ++room_.counters.refused;
      say_bye_and_close("BYE server-full max-connections="
          + std::to_string(room_.options.max_connections));
    }
    else
      room_.join(*this);
    do_read();
  }

  // One read at a time, always one pending until the connection ends (but while the room
  // pauses a talker): Beast's timeouts and the answers to pings (and to a close frame) work
  // inside a read.
  void do_read()
  {
    ws_.async_read(buffer_,
        beast::bind_front_handler(&session::on_read, this->shared_from_this()));
  }

  void on_read(error_code ec, std::size_t)
  {
    if (ec)
    {
      // beast::error::timeout: the idle timeout (with pings: a ping went
      // unanswered); websocket::error::closed: a close handshake ended.
      if (ec == beast::error::timeout)
        ++room_.counters.closed_idle;
      room_.leave(*this);
      return;
    }
    std::string text = beast::buffers_to_string(buffer_.data());
    buffer_.consume(buffer_.size());
    bool said = false;
    if (!closing_)
    {
      if (ws_.got_text())
        said = handle(text);
      else
        send("ERR binary-not-supported");
    }
    // Flow control: while the room is far behind delivering what was said, this talker is
    // not read (and Beast's timeouts, which run inside a read, wait too); the room calls
    // resume_input() when it has caught up.
    if (said && room_.pause_if_backlogged(*this))
      return;
    do_read();
  }

  // Returns true when @p text was said to the room.
  bool handle(const std::string& text)
  {
    if (text.empty() || text == "PING")
      send("PONG");
    else if (text == "/quit")
      say_bye_and_close("BYE quit");
    else if (text == "/who")
      send(room_.who());
    else if (text == "/stats")
      send(room_.stats_line());
    else if (text.rfind("/nick ", 0) == 0)
      send(room_.rename(*this, text.substr(6)));
    else if (text[0] == '/')
      send("ERR unknown-command " + text.substr(0, text.find(' ')));
    else
    {
      room_.broadcast(*this, text);
      return true;
    }
    return false;
  }

  void send(std::string text)
  {
    deliver(std::make_shared<const std::string>(std::move(text)));
  }

  // Queues the goodbye, leaves the room, and closes once the queue is written.
  void say_bye_and_close(std::string bye)
  {
    if (closing_)
      return;
    send(std::move(bye));
    closing_ = true;
    room_.leave(*this);
    if (!writing_)
      do_close();
  }

  void do_write()
  {
    writing_ = true;
    ws_.text(true);
    ws_.async_write(boost::asio::buffer(*queue_.front()),
        beast::bind_front_handler(
            &session::on_write, this->shared_from_this()));
  }

  void on_write(error_code ec, std::size_t)
  {
    writing_ = false;
    if (ec)
      return;  // the read fails too, and ends the session
    queued_bytes_ -= queue_.front()->size();
    queue_.pop_front();
    if (!queue_.empty())
      do_write();
    else if (closing_)
      do_close();
  }

  // The closing handshake, bounded by the handshake timeout; the pending read
  // sees its end (websocket::error::closed).
  void do_close()
  {
    if (close_started_ || dropped_)
      return;
    close_started_ = true;
    ws_.async_close(websocket::close_code::normal,
        [self = this->shared_from_this()](error_code) {});
  }

  chat_room& room_;
  websocket::stream<Stream> ws_;
  beast::flat_buffer buffer_;
  std::deque<shared_text> queue_;
  std::size_t queued_bytes_ = 0;
  bool accepted_ = false;  // the opening handshake is done
  bool writing_ = false;
  bool closing_ = false;  // the goodbye is queued: nothing more is sent
  bool close_started_ = false;
  bool dropped_ = false;  // cut off for not reading
};

}  // namespace websocket_chat
