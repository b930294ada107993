// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// The page and the plain-HTTP answers (http_page.hpp).
#include "http_page.hpp"

#include "chat_page.hpp"  // generated from chat.html (CMakeLists.txt)
#include "common/flags.hpp"

#include <boost/beast/http/field.hpp>
#include <boost/beast/http/status.hpp>
#include <boost/beast/http/verb.hpp>

#include <fstream>
#include <sstream>

namespace websocket_chat {

namespace {

// The page may run its own script and style and talk to its own origin, nothing else: a
// browser refuses whatever else it would fetch, so the page cannot depend on the network.
constexpr const char* page_policy =
    "default-src 'none'; script-src 'unsafe-inline'; "
    "style-src 'unsafe-inline'; connect-src 'self'; img-src data:";

http_response text_response(
    http::status status, unsigned version, bool keep_alive, std::string body)
{
  http_response res{status, version};
  res.set(http::field::server, "websocket_chat");
  res.set(http::field::content_type, "text/plain; charset=utf-8");
  res.keep_alive(keep_alive);
  res.body() = std::move(body);
  res.prepare_payload();
  return res;
}

}  // namespace

std::string load_page(const server_options& options)
{
  if (options.page_file.empty())
    return std::string(embedded_chat_page, embedded_chat_page_size);
  std::ifstream in(options.page_file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in)
    throw example_common::usage_error(
        "--page: cannot read \"" + options.page_file + "\"");
  return text.str();
}

http_response answer(const http_request& request, const std::string& page)
{
  const std::string target(request.target());
  if (target != chat_path)
    return text_response(http::status::not_found, request.version(),
        request.keep_alive(),
        "not found: " + target + " (the chat page is at /)\n");
  if (request.method() != http::verb::get)
  {
    http_response res = text_response(http::status::method_not_allowed,
        request.version(), request.keep_alive(),
        "method not allowed: " + std::string(request.method_string())
            + " (GET / is the page)\n");
    res.set(http::field::allow, "GET");
    return res;
  }
  http_response res{http::status::ok, request.version()};
  res.set(http::field::server, "websocket_chat");
  res.set(http::field::content_type, "text/html; charset=utf-8");
  res.set(http::field::cache_control, "no-store");
  res.set("Content-Security-Policy", page_policy);
  res.keep_alive(request.keep_alive());
  res.body() = page;
  res.prepare_payload();
  return res;
}

http_response bad_request(const std::string& why)
{
  return text_response(
      http::status::bad_request, 11, false, "bad request: " + why + "\n");
}

http_response not_found(const http_request& request)
{
  return text_response(http::status::not_found, request.version(), false,
      "not found: " + std::string(request.target())
          + " (the WebSocket is at /)\n");
}

}  // namespace websocket_chat
