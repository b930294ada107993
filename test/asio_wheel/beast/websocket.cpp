// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// The stream under websocket::stream, on Beast's basic_stream and on ours:
// lowest_layer, handshake, message, close, a read timeout. Part of the suite
// "integration" (integration.cpp), in a file of its own: websocket::stream's
// operations are the heaviest part of the suite to compile, and build here in
// parallel with the rest.
#include "stream_suite.hpp"

#include <boost/beast/websocket.hpp>

#include <string>
#include <type_traits>

using namespace beast_suite;
namespace websocket = bb::websocket;

BOOST_AUTO_TEST_SUITE(integration)

// lowest_layer_type / get_lowest_layer give the stream itself, as Beast's.
BOOST_AUTO_TEST_CASE_TEMPLATE(lowest_layer_is_the_stream, F, families)
{
  using stream = typename F::tcp_stream;
  static_assert(std::is_same<bb::lowest_layer_type<stream>, stream>::value);
  static_assert(std::is_same<bb::lowest_layer_type<websocket::stream<stream>>,
      stream>::value);
  static_assert(bb::is_async_stream<stream>::value);
  static_assert(bb::is_sync_stream<stream>::value);
  net::io_context ioc;
  websocket::stream<stream> ws(ioc);
  stream& lowest = bb::get_lowest_layer(ws);
  BOOST_TEST(&lowest == &ws.next_layer());
  bb::close_socket(lowest);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(websocket_roundtrip_and_close, F, families)
{
  net::io_context ioc;
  tcp::acceptor acc = make_acceptor(ioc);
  websocket::stream<typename F::tcp_stream> server(ioc), client(ioc);
  bool server_done = false, client_done = false;
  bb::flat_buffer sbuf, cbuf;
  std::string got;
  error_code close_ec;

  acc.async_accept(
      bb::get_lowest_layer(server).socket(), done_handler([&](error_code ec) {
        BOOST_TEST(!ec);
        bb::get_lowest_layer(server).expires_after(5s);
        server.async_accept(done_handler([&](error_code ec) {
          BOOST_TEST(!ec, ec.message());
          bb::get_lowest_layer(server).expires_never();
          server.async_read(sbuf, io_handler([&](error_code ec, std::size_t) {
            BOOST_TEST(!ec, ec.message());
            server.text(server.got_text());
            server.async_write(
                sbuf.data(), io_handler([&](error_code ec, std::size_t) {
                  BOOST_TEST(!ec, ec.message());
                  sbuf.consume(sbuf.size());
                  server.async_read(
                      sbuf, io_handler([&](error_code ec, std::size_t) {
                        close_ec = ec;  // the client's close
                        server_done = true;
                      }));
                }));
          }));
        }));
      }));

  bb::get_lowest_layer(client).expires_after(5s);
  bb::get_lowest_layer(client).async_connect(
      acc.local_endpoint(), done_handler([&](error_code ec) {
        BOOST_TEST(!ec, ec.message());
        bb::get_lowest_layer(client).expires_never();
        client.async_handshake(
            "127.0.0.1", "/", done_handler([&](error_code ec) {
              BOOST_TEST(!ec, ec.message());
              client.async_write(net::buffer(std::string("hello wheel")),
                  io_handler([&](error_code ec, std::size_t) {
                    BOOST_TEST(!ec, ec.message());
                    client.async_read(
                        cbuf, io_handler([&](error_code ec, std::size_t) {
                          BOOST_TEST(!ec, ec.message());
                          got = bb::buffers_to_string(cbuf.data());
                          client.async_close(websocket::close_code::normal,
                              done_handler([&](error_code ec) {
                                BOOST_TEST(!ec, ec.message());
                                client_done = true;
                              }));
                        }));
                  }));
            }));
      }));
  run_until(ioc, client_done);
  run_until(ioc, server_done);
  BOOST_TEST(got == "hello wheel");
  BOOST_TEST(
      close_ec == error_code(websocket::error::closed), close_ec.message());
}

// The stream's timeout under a websocket read: the read fails with timeout
// and the connection is torn down.
BOOST_AUTO_TEST_CASE_TEMPLATE(websocket_read_timeout, F, families)
{
  net::io_context ioc;
  tcp::acceptor acc = make_acceptor(ioc);
  websocket::stream<typename F::tcp_stream> server(ioc), client(ioc);
  bool accepted = false, connected = false;
  acc.async_accept(
      bb::get_lowest_layer(server).socket(), done_handler([&](error_code ec) {
        BOOST_TEST(!ec);
        server.async_accept(done_handler([&](error_code ec) {
          BOOST_TEST(!ec, ec.message());
          accepted = true;
        }));
      }));
  bb::get_lowest_layer(client).socket().connect(acc.local_endpoint());
  client.async_handshake("127.0.0.1", "/", done_handler([&](error_code ec) {
    BOOST_TEST(!ec, ec.message());
    connected = true;
  }));
  run_until(ioc, accepted);
  run_until(ioc, connected);

  bb::flat_buffer buf;
  result r;
  bb::get_lowest_layer(server).expires_after(100ms);
  server.async_read(buf, r.handler());
  run_until(ioc, r.done);
  BOOST_TEST(r.ec == timeout_ec, r.ec.message());
  BOOST_TEST(!bb::get_lowest_layer(server).socket().is_open());
  // The client sees the connection go.
  result c;
  bb::flat_buffer cbuf;
  client.async_read(cbuf, c.handler());
  run_until(ioc, c.done);
  BOOST_TEST(c.ec.failed());
}

BOOST_AUTO_TEST_SUITE_END()
