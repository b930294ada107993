// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// Beast's asynchronous HTTP keep-alive server (the pattern of Beast's
// example/http/server/async/http_server_async.cpp), written once as a template
// on the stream type so that the programs built from it differ in nothing else:
//
//   http_keepalive             asio_wheel::beast::tcp_stream  (timeouts are wheel entries)
//   http_keepalive_beast       boost::beast::tcp_stream       (timeouts are steady_timer waits)
//   http_keepalive_no_timeout  boost::asio::ip::tcp::socket   (no timeouts at all: the floor)
//   http_keepalive_routed      boost::beast::basic_stream<tcp, asio_wheel::wheel_executor<>>
//                              (Beast's own stream, its timers routed to the wheel)
//
// Each connection is a session on its own strand: stream.expires_after(idle)
// and http::async_read, then http::async_write of the response, then again
// while the request and response say keep-alive. A request the parser rejects
// gets a 400 with "Connection: close" and the connection is shut down. An idle
// connection's read fails with beast::error::timeout (the stream has closed
// the socket). SIGINT/SIGTERM: the acceptor closes, every session finishes the
// response it is writing and closes, and run() returns once none is left.
#pragma once

#include "options.hpp"

#include "common/flags.hpp"
#include "common/server_main.hpp"

#include <asio_wheel/make_wheel_service.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/bind_handler.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/intrusive/list.hpp>

#include <chrono>
#include <iostream>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace http_keepalive {

namespace net = boost::asio;
namespace http = boost::beast::http;
using tcp = net::ip::tcp;
using error_code = boost::system::error_code;

// The plain socket has no timeouts and no socket() member; the three Beast-style
// streams have both. These and on_wheel are the only places the stream types
// are told apart.
template <class Stream>
inline constexpr bool has_timeouts = !std::is_same_v<Stream, tcp::socket>;

// (The routed stream's socket is a basic_stream_socket of its own executor type.)
template <class Stream>
auto& socket_of(Stream& stream)
{
  if constexpr (has_timeouts<Stream>)
    return stream.socket();
  else
    return stream;
}

// asio_wheel::beast::tcp_stream keeps its timeouts in the io_context's timing
// wheel, which --idle-tolerance configures; it is also the only one of the
// three with a tolerance() of its own, which is how it is recognised here.
template <class Stream, class = void>
inline constexpr bool on_wheel = false;
template <class Stream>
inline constexpr bool on_wheel<Stream,
    std::void_t<decltype(std::declval<Stream&>().tolerance(
        std::chrono::milliseconds(1)))>> = true;

template <class Stream>
class server;

template <class Stream>
class session : public std::enable_shared_from_this<session<Stream>>,
                public boost::intrusive::list_base_hook<>
{
public:
  session(server<Stream>& owner, tcp::socket&& socket)
    : owner_(owner), stream_(std::move(socket))
  {}
  ~session() { owner_.forget(*this); }
  session(const session&) = delete;
  session& operator=(const session&) = delete;

  // Starts on the session's strand (the socket's executor), as Beast's example does.
  void run()
  {
    net::dispatch(stream_.get_executor(),
        boost::beast::bind_front_handler(
            &session::do_read, this->shared_from_this()));
  }

  // Shutdown: on the strand, abort the read under way (a response being
  // written is finished first, then on_write closes instead of reading).
  void stop()
  {
    net::dispatch(stream_.get_executor(), [self = this->shared_from_this()] {
      self->stopping_ = true;
      if (self->reading_)
      {
        error_code ignored;
        socket_of(self->stream_).cancel(ignored);
      }
    });
  }

private:
  // doc/timeouts.md shows do_read and the start of on_read, the region
  // between the two "//! [read]" lines.
  //! [read]
  void do_read()
  {
    if (stopping_)
      return do_close();
    // A fresh request before every read, or the parser misbehaves.
    request_ = {};
    if constexpr (has_timeouts<Stream>)
      if (!owner_.options().no_timeout)
        stream_.expires_after(owner_.options().idle_timeout);
    reading_ = true;
    http::async_read(stream_, buffer_, request_,
        boost::beast::bind_front_handler(
            &session::on_read, this->shared_from_this()));
  }

  void on_read(error_code ec, std::size_t)
  {
    reading_ = false;
    // The client closed between requests, the idle timeout closed the socket,
    // or shutdown cancelled the read: nothing more to say.
    if (ec == http::error::end_of_stream || ec == boost::beast::error::timeout
        || ec == net::error::operation_aborted
        || ec == http::error::partial_message)
      return do_close();
    //! [read]
    // The parser rejected the request: a 400 that closes the connection.
    if (ec
        && ec.category()
            == http::make_error_code(http::error::bad_method).category())
      return send(make_response(http::status::bad_request, 11, false,
          "bad request: " + ec.message() + "\n"));
    if (ec)
      return do_close();  // reset by the peer and the like

    const bool known = request_.method() == http::verb::get
        || request_.method() == http::verb::head;
    auto response = known
        ? make_response(http::status::ok, request_.version(),
            request_.keep_alive(), owner_.options().body)
        : make_response(http::status::bad_request, request_.version(),
            request_.keep_alive(),
            "unknown method: " + std::string(request_.method_string()) + "\n");
    if (request_.method() == http::verb::head)
      response.body().clear();  // Content-Length stays the GET's
    send(std::move(response));
  }

  http::response<http::string_body> make_response(http::status status,
      unsigned version, bool keep_alive, std::string body) const
  {
    http::response<http::string_body> response{status, version};
    response.set(http::field::server, "asio-wheel http_keepalive");
    response.set(http::field::content_type, "text/plain");
    response.keep_alive(keep_alive);
    response.body() = std::move(body);
    response.prepare_payload();
    return response;
  }

  void send(http::response<http::string_body>&& response)
  {
    response_ = std::move(response);
    http::async_write(stream_, response_,
        boost::beast::bind_front_handler(&session::on_write,
            this->shared_from_this(), response_.need_eof()));
  }

  void on_write(bool close, error_code ec, std::size_t)
  {
    if (ec || close)
      return do_close();
    do_read();
  }

  void do_close()
  {
    // A TCP shutdown: the client reads what was sent, then EOF.
    error_code ignored;
    socket_of(stream_).shutdown(tcp::socket::shutdown_send, ignored);
  }

  server<Stream>& owner_;
  Stream stream_;
  boost::beast::flat_buffer buffer_;
  http::request<http::string_body> request_;
  http::response<http::string_body> response_;
  bool reading_ = false;  // on the strand only
  bool stopping_ = false;  // on the strand only
};

template <class Stream>
class server
{
public:
  server(net::io_context& io, server_options options)
    : io_(io), options_(std::move(options)),
      acceptor_strand_(net::make_strand(io)), acceptor_(acceptor_strand_),
      signals_(acceptor_strand_, SIGINT, SIGTERM)
  {}

  const server_options& options() const { return options_; }

  // Binds and listens; returns the bound endpoint (the port, when --port 0).
  tcp::endpoint listen()
  {
    const tcp::endpoint endpoint{
        net::ip::make_address(options_.bind_address), options_.port};
    acceptor_.open(endpoint.protocol());
    acceptor_.set_option(net::socket_base::reuse_address(true));
    acceptor_.bind(endpoint);
    acceptor_.listen(net::socket_base::max_listen_connections);
    return acceptor_.local_endpoint();
  }

  void start()
  {
    signals_.async_wait([this](error_code ec, int) {
      if (!ec)
        shut_down();
    });
    do_accept();
  }

  // Called by ~session.
  void forget(session<Stream>& s)
  {
    std::lock_guard<std::mutex> lock(sessions_mutex_);
    if (s.is_linked())
      sessions_.erase(sessions_.iterator_to(s));
  }

private:
  void do_accept()
  {
    // Every connection gets its own strand.
    acceptor_.async_accept(
        net::make_strand(io_), [this](error_code ec, tcp::socket socket) {
          if (ec == net::error::operation_aborted || !acceptor_.is_open())
            return;
          if (!ec)
          {
            auto s =
                std::make_shared<session<Stream>>(*this, std::move(socket));
            {
              std::lock_guard<std::mutex> lock(sessions_mutex_);
              sessions_.push_back(*s);
            }
            s->run();
          }
          else if (ec == net::error::no_descriptors)
          {
            std::cerr << "http_keepalive: accept: " << ec.message() << "\n";
          }
          do_accept();
        });
  }

  // On the acceptor's strand, like the accept handler (with --threads > 1
  // both would otherwise touch acceptor_ at once).
  void shut_down()
  {
    error_code ignored;
    acceptor_.close(ignored);
    // Collected under the lock, stopped outside it: the last reference to a
    // session may go here, and ~session takes the lock.
    std::vector<std::shared_ptr<session<Stream>>> alive;
    {
      std::lock_guard<std::mutex> lock(sessions_mutex_);
      for (auto& s : sessions_)
        if (auto p = s.weak_from_this().lock())
          alive.push_back(std::move(p));
    }
    for (auto& s : alive)
      s->stop();
  }

  net::io_context& io_;
  const server_options options_;
  net::strand<net::io_context::executor_type> acceptor_strand_;
  tcp::acceptor acceptor_;
  net::signal_set signals_;
  std::mutex sessions_mutex_;
  boost::intrusive::list<session<Stream>,
      boost::intrusive::constant_time_size<false>>
      sessions_;
};

// The whole program: flags, listen, print "listening on ADDRESS:PORT" (the
// first line; tests and scripts read the port from it), run until shut down.
template <class Stream>
int run_server(int argc, char** argv, const std::string& program,
    const std::string& stream_name)
{
  server_options options;
  if (const auto exit_status = example_common::parse_flags_or_exit(
          argc, argv, program, options,
          [](int c, char** v) {
            return parse_server_options(c, v, on_wheel<Stream>);
          },
          [&] { return server_usage(program, stream_name, on_wheel<Stream>); }))
    return *exit_status;
  example_common::
      raise_open_files_limit();  // ten thousand connections need more than 1024

  net::io_context io(static_cast<int>(options.threads));
  if constexpr (on_wheel<Stream>)
  {
    // Before the first stream (the sessions') looks the service up. Context-wide
    // rather than stream.tolerance(): every expires_after(idle) gets the same
    // fraction, and the idle timeouts are the only timers here.
    asio_wheel::wheel_options wheel;
    wheel.tolerance = options.idle_tolerance;
    asio_wheel::make_wheel_service(io, wheel);  // the stream's: wheel_timer's
  }
  server<Stream> srv(io, options);
  return example_common::listen_and_run(
      program, io, srv, options.bind_address, options.port, options.threads);
}

}  // namespace http_keepalive
