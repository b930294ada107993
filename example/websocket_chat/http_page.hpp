// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// The plain-HTTP side of the chat server: the page served at GET / (chat.html, embedded at
// build time, or the file of --page) and the answers to every request that is not the
// WebSocket upgrade. The session (session.hpp) reads each request and asks answer() for the
// response; it knows nothing of HTML.
#pragma once

#include "options.hpp"

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include <string>

namespace websocket_chat {

namespace http = boost::beast::http;

using http_request = http::request<http::string_body>;
using http_response = http::response<http::string_body>;

// The path of both the page and the WebSocket: the page connects back to where it came from.
inline constexpr const char* chat_path = "/";

// The page's text: --page's file, read now, or the embedded chat.html. Throws
// example_common::usage_error naming --page if the file cannot be read.
std::string load_page(const server_options& options);

// GET / (without an upgrade): 200 and the page; another path: 404; another method on /:
// 405. The connection is kept alive as the request asks.
http_response answer(const http_request& request, const std::string& page);

// A request that does not parse: 400 with @p why (the parser's message), and the connection
// closed after it.
http_response bad_request(const std::string& why);

// An upgrade to a path other than chat_path: 404, the connection closed after it.
http_response not_found(const http_request& request);

}  // namespace websocket_chat
