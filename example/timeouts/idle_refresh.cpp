//
// example/timeouts/idle_refresh.cpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// An echo server whose connections close after a period without input, with one
// asio_wheel::wheel_timer per connection: the timer waits once, and every line received pushes
// its expiry later with extend_after(). No wait is cancelled and none is started again, so a
// refresh is a clock read and one store into the timer, without a lock or a read of the timer:
// what the expert's steady_timer idiom (store the time of the last input, check it when the
// timer fires) costs. Use this form when one deadline covers many operations (an idle timeout,
// a keepalive) and you refresh it often.
//
// doc/timeouts.md shows the session class, the region between the two "//! [session]" lines,
// and the test doc_snippets fails if the two differ.
//
// Usage: idle_refresh [--port P] [--idle-ms MS] [--check]
//   --port P      listen on 127.0.0.1:P (default 0: any free port, printed)
//   --idle-ms MS  the idle timeout (default 30000)
//   --check       connect a talking and a silent client, check that only the silent one is
//                 closed, and exit (status 0 if so)
//

#include "self_check.hpp"
#include "server.hpp"

#include <chrono>
#include <iostream>
#include <memory>

//! [session]
class session : public std::enable_shared_from_this<session>
{
public:
  session(tcp::socket socket, std::chrono::milliseconds idle)
    : socket_(std::move(socket)), idle_(idle),
      idle_timer_(socket_.get_executor())
  {}

  void start()
  {
    idle_timer_.expires_after(idle_);
    // One wait for the whole connection: it completes without error only
    // once the connection has been idle for idle_, since every read moved
    // its expiry. Closing the socket completes the pending read with
    // operation_aborted.
    idle_timer_.async_wait([self = shared_from_this()](error_code ec) {
      if (!ec)
        self->socket_.close();
    });
    read();
  }

private:
  void read()
  {
    socket_.async_read_some(net::buffer(data_),
        [self = shared_from_this()](error_code ec, std::size_t n) {
          if (ec)
          {
            self->idle_timer_.cancel();
            return;
          }
          // Input: idle again from now.
          self->idle_timer_.extend_after(self->idle_);
          net::async_write(self->socket_, net::buffer(self->data_, n),
              [self](error_code ec, std::size_t) {
                if (!ec)
                  self->read();
                else
                  self->idle_timer_.cancel();
              });
        });
  }

  tcp::socket socket_;
  std::chrono::milliseconds idle_;
  asio_wheel::wheel_timer idle_timer_;
  char data_[1024];
};
//! [session]

void accept_connections(tcp::acceptor& acceptor, std::chrono::milliseconds idle)
{
  acceptor.async_accept([&acceptor, idle](error_code ec, tcp::socket socket) {
    if (!ec)
      std::make_shared<session>(std::move(socket), idle)->start();
    accept_connections(acceptor, idle);
  });
}

int main(int argc, char** argv)
{
  return serve("idle_refresh", argc, argv, accept_connections, self_check::run);
}
