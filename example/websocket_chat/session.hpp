// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// One connection: Beast's websocket::stream over Stream (session<Stream>, for either stream
// type of server.hpp), the protocol, and an outbound queue. As in Beast's advanced_server,
// it starts as HTTP: each request is read, an upgrade of / is accepted with that request,
// and anything else is answered (the page at GET /, 404, 400; http_page.hpp), so a browser
// gets the page and the WebSocket from one port. Its timeouts are Beast's own: the stream's
// while a request is read, then stream_base::timeout: the opening handshake's limit, the
// idle timeout with keep-alive pings (a ping at half of it; the close, with
// beast::error::timeout, if it went unanswered) and the closing handshake's limit. Nothing
// here sets a timer: which timer Beast uses follows Stream's executor type (a wheel timer on
// asio_wheel::wheel_executor).
//
// Every handler of a session runs on its executor, the socket's: Beast's operations complete
// there, and the room calls into a session only there too (room.hpp). With --threads > 1 it
// is a strand, with --contexts its context's one thread; either way nothing here is locked.
//
// The server's closes carry a code and a reason that a browser shows (the page prints them):
// /quit 1000 "quit: ...", the server stopping 1001, the server full 1013; Beast's own, a
// message over --max-message, is 1009 without a reason. The idle timeout has no close frame:
// Beast drops the connection (a browser sees 1006), since the peer stopped answering.
#pragma once

#include "http_page.hpp"
#include "room.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/bind_handler.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/stream_traits.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/field.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/websocket.hpp>

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <deque>
#include <memory>
#include <optional>
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
  // @p page: the text served at GET / (the server's, alive as long as every session);
  // @p context: the index of the socket's io_context. The server adds the session to the
  // room, then runs start() on its executor (the socket's: a strand with --threads > 1).
  session(chat_room& room, tcp::socket&& socket, const std::string& page,
      std::size_t context)
    : member(socket.get_executor(), context), room_(room), page_(page),
      ws_(std::move(socket))
  {
    error_code ec;
    const tcp::endpoint peer =
        beast::get_lowest_layer(ws_).socket().remote_endpoint(ec);
    if (!ec)
      peer_ = peer.address().to_string() + ":" + std::to_string(peer.port());
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
    // A control frame is input, as each message is (on_read), for the log's since_input;
    // pongs are logged, so a test sees the keep-alive pings answered.
    ws_.control_callback(
        [this](websocket::frame_type kind, beast::string_view) {
          last_input_ = clock::now();
          if (kind == websocket::frame_type::pong)
            room_.log("pong " + name() + " peer=" + peer_);
        });
    do_read_request();
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
    say_bye_and_close("BYE server-shutdown",
        {websocket::close_code::going_away,
            "server-shutdown: the server is stopping"});
  }

  void resume_input() override { do_read(); }

private:
  using clock = std::chrono::steady_clock;

  // The HTTP part. A request larger than this is not one the chat expects: the parser
  // refuses it (a 400), as it refuses headers over its own 8 KiB limit.
  static constexpr std::size_t max_request_body = 4096;

  // Reads one request within the handshake timeout (the stream's own timer: a wheel timer
  // on routed_stream with any Beast), as the opening handshake is bounded once upgraded.
  void do_read_request()
  {
    parser_.emplace();
    parser_->body_limit(max_request_body);
    if (timed(room_.options))
      beast::get_lowest_layer(ws_).expires_after(
          room_.options.handshake_timeout);
    http::async_read(ws_.next_layer(), buffer_, *parser_,
        beast::bind_front_handler(
            &session::on_request, this->shared_from_this()));
  }

  void on_request(error_code ec, std::size_t)
  {
    if (ec == http::error::end_of_stream)
      return;  // the client closed between requests
    if (ec == beast::error::timeout)
    {
      ++room_.counters.closed_handshake;
      room_.log("http-timeout peer=" + peer_);
      return;
    }
    if (ec)
    {
      // A request that does not parse gets the parser's reason; a transport error (a
      // reset, the shutdown's close) ends the connection without one.
      if (ec.category()
          == http::make_error_code(http::error::bad_method).category())
      {
        room_.log("http-bad-request peer=" + peer_ + " " + ec.message());
        write_response(bad_request(ec.message()));
      }
      return;
    }
    // The websocket's timeouts take over from here (Beast asks for the stream's to be off).
    beast::get_lowest_layer(ws_).expires_never();
    const http_request& request = parser_->get();
    const std::string target(request.target());
    if (websocket::is_upgrade(request))
    {
      if (target != chat_path)
      {
        room_.log("http-upgrade-not-found peer=" + peer_ + " " + target);
        write_response(not_found(request));
        return;
      }
      // Beast checks the upgrade's headers and, if one is wrong, answers it itself (400,
      // or 426 for another WebSocket version) with the reason in the body.
      ws_.async_accept(request,
          beast::bind_front_handler(
              &session::on_accept, this->shared_from_this()));
      return;
    }
    http_response response = answer(request, page_);
    room_.log("http " + std::string(request.method_string()) + " " + target
        + " " + std::to_string(response.result_int()) + " peer=" + peer_);
    write_response(std::move(response));
  }

  void write_response(http_response response)
  {
    response_.emplace(std::move(response));
    http::async_write(ws_.next_layer(), *response_,
        beast::bind_front_handler(
            &session::on_response_written, this->shared_from_this()));
  }

  void on_response_written(error_code ec, std::size_t)
  {
    const bool keep_alive = response_->keep_alive();
    response_.reset();
    if (!ec && keep_alive && !room_.stopping())
    {
      do_read_request();
      return;
    }
    // The end of the answer, then the end of the connection.
    error_code ignored;
    beast::get_lowest_layer(ws_).socket().shutdown(
        tcp::socket::shutdown_send, ignored);
  }

  void on_accept(error_code ec)
  {
    if (ec)
    {
      if (ec == beast::error::timeout)
        ++room_.counters.closed_handshake;
      room_.log("upgrade-refused peer=" + peer_ + " " + ec.message());
      return;
    }
    accepted_ = true;
    last_input_ = clock::now();
    ++room_.counters.accepted;
    if (room_.stopping())
      say_bye_and_close("BYE server-shutdown",
          {websocket::close_code::going_away,
              "server-shutdown: the server is stopping"});
    else if (room_.sessions() > room_.options.max_connections)
    {
      ++room_.counters.refused;
      const std::string limit = std::to_string(room_.options.max_connections);
      say_bye_and_close("BYE server-full max-connections=" + limit,
          {websocket::close_code::try_again_later,
              "server-full: at most " + limit + " connections"});
    }
    else
    {
      room_.join(*this);
      room_.log("joined " + name() + " peer=" + peer_);
    }
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
      if (ec == beast::error::timeout && !close_started_)
        ++room_.counters.closed_idle;
      log_end(ec);
      room_.leave(*this);
      return;
    }
    last_input_ = clock::now();
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
      say_bye_and_close(
          "BYE quit", {websocket::close_code::normal, "quit: you sent /quit"});
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

  // Queues the goodbye, leaves the room, and closes with @p why once the queue is written.
  void say_bye_and_close(std::string bye, websocket::close_reason why)
  {
    if (closing_)
      return;
    send(std::move(bye));
    closing_ = true;
    close_reason_ = std::move(why);
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
    ws_.async_close(
        close_reason_, [self = this->shared_from_this()](error_code) {});
  }

  std::string name() const
  {
    return member::name().empty() ? "-" : member::name();
  }

  // With --log: why the connection ended, and how long it had been silent (the idle close
  // is timed from this line).
  void log_end(error_code ec)
  {
    if (!room_.options.log_events)
      return;
    std::string why;
    if (dropped_)
      why = "queue-full";
    else if (close_started_)
      why = std::string(close_reason_.reason.c_str());
    else if (ec == beast::error::timeout)
      why = "idle-timeout";
    else if (ec == websocket::error::message_too_big)
      why = "message-too-big";
    else if (ec == websocket::error::closed)
      why = "client-closed code=" + std::to_string(ws_.reason().code);
    else
      why = "error " + ec.message();
    char since[32];
    std::snprintf(since, sizeof since, "%.3f",
        std::chrono::duration<double, std::milli>(clock::now() - last_input_)
            .count());
    room_.log("closed " + name() + " peer=" + peer_ + " since_input_ms=" + since
        + " reason=" + why);
  }

  chat_room& room_;
  const std::string& page_;
  websocket::stream<Stream> ws_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::optional<http_response> response_;
  std::string peer_ = "?";
  clock::time_point last_input_ = clock::now();
  websocket::close_reason close_reason_;
  std::deque<shared_text> queue_;
  std::size_t queued_bytes_ = 0;
  bool accepted_ = false;  // the opening handshake is done
  bool writing_ = false;
  bool closing_ = false;  // the goodbye is queued: nothing more is sent
  bool close_started_ = false;
  bool dropped_ = false;  // cut off for not reading
};

}  // namespace websocket_chat
