// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// A session's timer, of the kind --timers chose: asio_wheel::wheel_timer
// (--timers wheel) or boost::asio::steady_timer (steady, steady-lazy), with
// the members the session uses, whichever it is. How a timer is refreshed
// differs with the kind and is the session's business (session.cpp); only
// the wheel has extend_after and reschedule_after / reschedule_at.
#pragma once

#include "options.hpp"

#include <asio_wheel.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <utility>
#include <variant>

namespace keepalive_chat {

class session_timer
{
public:
  using clock = std::chrono::steady_clock;

  session_timer(const boost::asio::any_io_executor& executor, timer_kind kind)
    : timer_(make(executor, kind))
  {}

  // Aborts the pending waits, then sets the expiry.
  void expires_at(clock::time_point t)
  {
    std::visit([&](auto& timer) { timer.expires_at(t); }, timer_);
  }

  template <class Handler>
  void async_wait(Handler&& handler)
  {
    std::visit(
        [&](auto& timer) { timer.async_wait(std::forward<Handler>(handler)); },
        timer_);
  }

  void cancel()
  {
    std::visit([](auto& timer) { timer.cancel(); }, timer_);
  }

  // --timers wheel only: move the pending wait without aborting it.
  asio_wheel::wheel_timer& wheel()
  {
    return std::get<asio_wheel::wheel_timer>(timer_);
  }

private:
  using timer_type =
      std::variant<asio_wheel::wheel_timer, boost::asio::steady_timer>;

  static timer_type make(
      const boost::asio::any_io_executor& executor, timer_kind kind)
  {
    if (kind == timer_kind::wheel)
      return timer_type(std::in_place_type<asio_wheel::wheel_timer>, executor);
    return timer_type(std::in_place_type<boost::asio::steady_timer>, executor);
  }

  timer_type timer_;
};

}  // namespace keepalive_chat
