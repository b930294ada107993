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
// client, and run() returns once every session has ended. On several cores (main.cpp) the
// server has one io_context run by --threads threads, each session on a strand, or
// --contexts io_contexts of one thread each, the acceptor on the first handing the
// connections to each in turn.
#pragma once

#include "http_page.hpp"
#include "room.hpp"
#include "session.hpp"

#include <asio_wheel/wheel_executor.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/basic_stream.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/version.hpp>

#include <csignal>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

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
  // @p contexts: one (run by --threads threads), or --contexts of them, each run by its own
  // thread; the first holds the acceptor, the signals and the room's fan-out. Throws
  // example_common::usage_error if --page's file cannot be read.
  chat_server(const std::vector<net::io_context*>& contexts,
      const server_options& options,
      std::function<asio_wheel::wheel_stats()> wheel_stats)
    : contexts_(contexts), options_(options), page_(load_page(options_)),
      room_(executors(contexts), options_, websocket_timer_kind(options),
          std::move(wheel_stats)),
      server_strand_(net::make_strand(*contexts.front())),
      acceptor_(server_strand_), signals_(server_strand_, SIGINT, SIGTERM)
  {
    for (std::size_t i = 1; i < contexts_.size(); ++i)
      idle_contexts_work_.push_back(
          net::make_work_guard(contexts_[i]->get_executor()));
  }

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
    net::dispatch(server_strand_, [this] {
      do_accept();
      signals_.async_wait([this](error_code ec, int) {
        if (ec)
          return;
        error_code ignored;
        acceptor_.close(ignored);
        room_.shutdown_all();
        // The other contexts' run() now ends with their last session.
        idle_contexts_work_.clear();
      });
    });
  }

private:
  static std::vector<net::any_io_executor> executors(
      const std::vector<net::io_context*>& contexts)
  {
    std::vector<net::any_io_executor> result;
    for (net::io_context* io : contexts)
      result.push_back(io->get_executor());
    return result;
  }

  void do_accept()
  {
    // The connections go to the contexts in turn, each accepted onto its target's executor,
    // so the socket, the session and Beast's timers (that context's wheel) all live there.
    // With --threads > 1 the executor is a strand of its own: a session's handlers never run
    // at once, different sessions' still run in parallel.
    const std::size_t target = next_context_;
    next_context_ = (next_context_ + 1) % contexts_.size();
    net::io_context& io = *contexts_[target];
    const net::any_io_executor executor = options_.threads > 1
        ? net::any_io_executor(net::make_strand(io))
        : net::any_io_executor(io.get_executor());
    acceptor_.async_accept(
        executor, [this, target](error_code ec, tcp::socket socket) {
          if (ec == net::error::operation_aborted || !acceptor_.is_open())
            return;
          if (!ec)
          {
            const auto s = std::make_shared<session<Stream>>(
                room_, std::move(socket), page_, target);
            room_.add_session(s);
            net::dispatch(s->executor(), [s] { s->start(); });
          }
          do_accept();  // an error of one connection (EMFILE, say) ends only it
        });
  }

  const std::vector<net::io_context*> contexts_;
  server_options options_;
  const std::string page_;
  chat_room room_;
  // The contexts other than the first hold no work until a connection comes: these keep
  // their run() going until the shutdown begins.
  std::vector<net::executor_work_guard<net::io_context::executor_type>>
      idle_contexts_work_;
  // The acceptor and the signals share a strand, so that a signal on one thread and an
  // accept on another never touch the acceptor at once.
  net::strand<net::io_context::executor_type> server_strand_;
  tcp::acceptor acceptor_;
  net::signal_set signals_;
  std::size_t next_context_ = 0;  // the next connection's; on server_strand_
};

}  // namespace websocket_chat
