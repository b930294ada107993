// http_keepalive: the HTTP keep-alive server of server.hpp on
// asio_wheel::beast::tcp_stream, whose timeouts are entries of the
// io_context's timing wheel.
#include "server.hpp"

#include <asio_wheel/beast/tcp_stream.hpp>

int main(int argc, char** argv) {
  return http_keepalive::run_server<asio_wheel::beast::tcp_stream>(argc, argv, "http_keepalive",
                                                                   "asio_wheel::beast::tcp_stream");
}
