// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// The chat room: names, history, broadcast and its fan-out, /who and /stats.
#include "room.hpp"

#include <boost/asio/post.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <vector>

namespace websocket_chat {

namespace {

shared_text make_text(std::string s)
{
  return std::make_shared<const std::string>(std::move(s));
}

bool valid_nick(const std::string& name)
{
  if (name.empty() || name.size() > 32)
    return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
        || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
}

long long ms(std::chrono::nanoseconds d)
{
  return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
}

}  // namespace

chat_room::chat_room(boost::asio::any_io_executor executor,
    const server_options& o, std::string websocket_timer,
    std::function<asio_wheel::wheel_stats()> wheel_stats)
  : options(o), executor_(std::move(executor)),
    websocket_timer_(std::move(websocket_timer)),
    wheel_stats_(std::move(wheel_stats))
{}

void chat_room::remove_session(member& m)
{
  leave(m);
  sessions_.erase(&m);
}

void chat_room::join(member& m)
{
  std::string name;
  do
    name = "guest" + std::to_string(next_guest_++);
  while (members_.count(name) != 0);
  m.name_ = name;
  m.joined_ = true;
  members_.emplace(name, &m);
  m.deliver(make_text(
      "WELCOME " + name + " history=" + std::to_string(history_.size())));
  for (const shared_text& line : history_)
    m.deliver(line);
}

void chat_room::leave(member& m)
{
  if (!m.joined_)
    return;
  m.joined_ = false;
  members_.erase(m.name_);
}

std::string chat_room::rename(member& m, const std::string& name)
{
  if (!valid_nick(name))
    return "ERR invalid-nick 1 to 32 of A-Z a-z 0-9 _ -";
  if (name == m.name_)
    return "OK nick " + name;
  if (members_.count(name) != 0)
    return "ERR nick-taken " + name;
  members_.erase(m.name_);
  m.name_ = name;
  members_.emplace(name, &m);
  return "OK nick " + name;
}

void chat_room::broadcast(member& from, const std::string& text)
{
  ++counters.messages;
  const shared_text line = make_text(from.name() + ": " + text);
  history_.push_back(line);
  if (history_.size() > history_limit)
    history_.pop_front();
  fanout message{line, {}, 0};
  message.recipients.reserve(members_.size());
  for (const auto& [name, m] : members_)
    if (m != &from)
      message.recipients.push_back(m->shared_member());
  if (message.recipients.empty())
    return;
  // What the pending message holds: the text once, a pointer per recipient.
  backlog_bytes_ += line->size()
      + message.recipients.size() * sizeof(std::shared_ptr<member>);
  fanouts_.push_back(std::move(message));
  if (!fanout_running_)
  {
    fanout_running_ = true;
    boost::asio::post(executor_, [this] { run_fanout(); });
  }
}

bool chat_room::pause_if_backlogged(member& talker)
{
  if (backlog_bytes_ <= backlog_limit)
    return false;
  paused_talkers_.push_back(talker.shared_member());
  return true;
}

void chat_room::run_fanout()
{
  std::size_t delivered = 0;
  while (delivered < fanout_batch && !fanouts_.empty())
  {
    fanout& front = fanouts_.front();
    while (delivered < fanout_batch && front.next < front.recipients.size())
    {
      // Moved out: a recipient whose session has otherwise ended is destroyed here, and
      // leaves the room then (which changes members_, never fanouts_).
      const std::shared_ptr<member> m =
          std::move(front.recipients[front.next++]);
      ++delivered;
      // A member that left since the message was said (its read failed, /quit, the
      // server's shutdown): its session is ending, and nothing more is sent to it.
      if (m->joined_)
        m->deliver(front.text);
    }
    if (front.next == front.recipients.size())
    {
      backlog_bytes_ -= front.text->size();
      fanouts_.pop_front();
    }
  }
  backlog_bytes_ -= delivered * sizeof(std::shared_ptr<member>);
  if (backlog_bytes_ <= backlog_limit / 2)
  {
    std::vector<std::shared_ptr<member>> resumed;
    resumed.swap(paused_talkers_);
    for (const std::shared_ptr<member>& talker : resumed)
      talker->resume_input();
  }
  if (fanouts_.empty())
  {
    fanout_running_ = false;
    return;
  }
  boost::asio::post(
      executor_, [this] { run_fanout(); });  // behind whatever else is ready
}

std::string chat_room::who() const
{
  std::vector<std::string> names;
  names.reserve(members_.size());
  for (const auto& entry : members_)
    names.push_back(entry.first);
  std::sort(names.begin(), names.end());
  std::string line = "WHO count=" + std::to_string(names.size());
  for (std::size_t i = 0; i < names.size() && i < 100; ++i)
    line += " " + names[i];
  return line;
}

std::string chat_room::stats_line() const
{
  const bool timeouts = timed(options);
  std::ostringstream out;
  out << "STATS connections=" << sessions_.size()
      << " members=" << members_.size() << " accepted=" << counters.accepted
      << " refused=" << counters.refused << " messages=" << counters.messages
      << " closed_idle=" << counters.closed_idle
      << " closed_handshake=" << counters.closed_handshake
      << " closed_queue_full=" << counters.closed_queue_full
      << " timers=" << to_string(options.timers)
      << " websocket_timer=" << websocket_timer_
      << " idle_timeout_ms=" << (timeouts ? ms(options.idle_timeout) : 0)
      << " handshake_timeout_ms="
      << (timeouts ? ms(options.handshake_timeout) : 0)
      << " pings=" << (timeouts && options.keep_alive_pings ? "on" : "off")
      << " tick_us="
      << (options.timers == timer_mode::wheel
                 ? std::chrono::duration_cast<std::chrono::microseconds>(
                     options.tick)
                       .count()
                 : 0);
  if (wheel_stats_)
  {
    const asio_wheel::wheel_stats s = wheel_stats_();
    out << " timers_in_wheel=" << s.timers_in_wheel
        << " pending_waits=" << s.pending_waits << " wakeups=" << s.wakeups
        << " waits_expired=" << s.waits_expired
        << " waits_cancelled=" << s.waits_cancelled << " max_lateness_us="
        << std::chrono::duration_cast<std::chrono::microseconds>(s.max_lateness)
               .count();
  }
  return out.str();
}

void chat_room::log(const std::string& event) const
{
  if (!options.log_events)
    return;
  const long long now = std::chrono::duration_cast<std::chrono::microseconds>(
      std::chrono::steady_clock::now().time_since_epoch())
                            .count();
  char stamp[32];
  std::snprintf(
      stamp, sizeof stamp, "%lld.%06lld", now / 1000000LL, now % 1000000LL);
  // Flushed: a test reads these lines while the server runs.
  std::cout << "LOG t=" << stamp << " " << event << std::endl;
}

void chat_room::shutdown_all()
{
  stopping_ = true;
  // shutdown() may end a session at once (one still in its handshake): walk a copy.
  const std::vector<member*> all(sessions_.begin(), sessions_.end());
  for (member* m : all)
    if (sessions_.count(m) != 0)
      m->shutdown();
}

}  // namespace websocket_chat
