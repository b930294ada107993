// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// The WebSocket chat server, written once as a template on the stream under
// websocket::stream and built twice (main.cpp picks one with --timers):
//
//   --timers wheel   boost::beast::basic_stream<tcp, asio_wheel::wheel_executor<>>: Beast's
//                    own stream, whose executor type routes every timer whose type follows
//                    it to the wheel: the websocket's (Beast 1.82 and later) and the stream's
//   --timers beast   boost::beast::tcp_stream: Beast's own steady_timers
//   --timers off     boost::beast::tcp_stream, no timeouts set
//
// The acceptor turns connections into sessions (session.hpp), each of which serves the page
// (http_page.hpp) or becomes a WebSocket; SIGINT/SIGTERM closes it and says goodbye to every
// client, and run() returns once every session has ended.
#pragma once

#include "http_page.hpp"
#include "room.hpp"
#include "session.hpp"

#include <asio_wheel/wheel_executor.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/beast/core/basic_stream.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/version.hpp>

#include <csignal>
#include <functional>
#include <memory>
#include <string>
#include <utility>

namespace websocket_chat {

namespace net = boost::asio;

//! [routed_stream]
// Beast's own stream, on an executor whose timers live in the wheel: its timers, and from
// Beast 1.82 those of a websocket::stream<routed_stream> over it, are wheel timers.
using routed_stream = beast::basic_stream<tcp, asio_wheel::wheel_executor<>>;
//! [routed_stream]

/// Whether websocket::stream's own timer follows its next layer's executor type, and so is a
/// wheel timer over routed_stream: since Beast 1.82 (BOOST_BEAST_VERSION 347, Beast's PR
/// #2603). Before, it is a steady_timer whatever the executor; only the stream's own timers
/// (not armed here: the websocket's timeouts replace them) are routed.
inline constexpr bool websocket_timer_routed = BOOST_BEAST_VERSION >= 347;

/// What websocket::stream's timer is with @p options, for /stats.
inline const char* websocket_timer_kind(const server_options& options)
{
  if (!timed(options))
    return "none";
  return options.timers == timer_mode::wheel && websocket_timer_routed
      ? "wheel"
      : "steady_timer";
}

template <class Stream>
class chat_server
{
public:
  // Throws example_common::usage_error if --page's file cannot be read.
  chat_server(net::io_context& io, const server_options& options,
      std::function<asio_wheel::wheel_stats()> wheel_stats)
    : io_(io), options_(options), page_(load_page(options_)),
      room_(io.get_executor(), options_, websocket_timer_kind(options),
          std::move(wheel_stats)),
      acceptor_(io), signals_(io, SIGINT, SIGTERM)
  {}

  // Binds and listens; returns the endpoint (throws system_error if it cannot).
  tcp::endpoint listen()
  {
    const tcp::endpoint endpoint(
        net::ip::make_address(options_.bind_address), options_.port);
    acceptor_.open(endpoint.protocol());
    acceptor_.set_option(tcp::acceptor::reuse_address(true));
    acceptor_.bind(endpoint);
    acceptor_.listen(net::socket_base::max_listen_connections);
    return acceptor_.local_endpoint();
  }

  void start()
  {
    do_accept();
    signals_.async_wait([this](error_code ec, int) {
      if (ec)
        return;
      error_code ignored;
      acceptor_.close(ignored);
      room_.shutdown_all();
    });
  }

private:
  void do_accept()
  {
    acceptor_.async_accept(io_, [this](error_code ec, tcp::socket socket) {
      if (ec == net::error::operation_aborted || !acceptor_.is_open())
        return;
      if (!ec)
        std::make_shared<session<Stream>>(room_, std::move(socket), page_)
            ->start();
      do_accept();  // an error of one connection (EMFILE, say) ends only it
    });
  }

  net::io_context& io_;
  server_options options_;
  const std::string page_;
  chat_room room_;
  tcp::acceptor acceptor_;
  net::signal_set signals_;
};

}  // namespace websocket_chat
