// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// The chat room: names, history, broadcast and its fan-out, /who and /stats.
#include "room.hpp"

#include <boost/asio/dispatch.hpp>
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

chat_room::chat_room(std::vector<boost::asio::any_io_executor> contexts,
    const server_options& o, std::string websocket_timer,
    std::function<asio_wheel::wheel_stats()> wheel_stats)
  : options(o), contexts_(std::move(contexts)), executor_(contexts_.front()),
    websocket_timer_(std::move(websocket_timer)),
    wheel_stats_(std::move(wheel_stats))
{}

void chat_room::add_session(const std::shared_ptr<member>& m)
{
  std::lock_guard lock(mutex_);
  m->self_ = m;
  sessions_.insert(m.get());
}

void chat_room::remove_session(member& m)
{
  std::lock_guard lock(mutex_);
  leave_locked(m);
  sessions_.erase(&m);
}

std::size_t chat_room::sessions() const
{
  std::lock_guard lock(mutex_);
  return sessions_.size();
}

void chat_room::join(member& m)
{
  std::vector<shared_text> history;
  {
    std::lock_guard lock(mutex_);
    std::string name;
    do
      name = "guest" + std::to_string(next_guest_++);
    while (members_.count(name) != 0);
    m.name_ = name;
    m.joined_ = true;
    members_.emplace(name, &m);
    history.assign(history_.begin(), history_.end());
  }
  // On m's executor (its own call), outside the lock: deliver() may cut it off. A message
  // said after the lock reaches it through the fan-out, which queues behind this handler.
  m.deliver(make_text(
      "WELCOME " + m.name_ + " history=" + std::to_string(history.size())));
  for (const shared_text& line : history)
    m.deliver(line);
}

void chat_room::leave(member& m)
{
  std::lock_guard lock(mutex_);
  leave_locked(m);
}

void chat_room::leave_locked(member& m)
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
  std::lock_guard lock(mutex_);
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
  std::lock_guard lock(mutex_);
  history_.push_back(line);
  if (history_.size() > history_limit)
    history_.pop_front();
  std::vector<std::shared_ptr<member>> recipients;
  recipients.reserve(members_.size());
  for (const auto& [name, m] : members_)
    if (m != &from)
      // Empty for a session whose destructor waits for the lock to leave the room.
      if (std::shared_ptr<member> recipient = m->self_.lock())
        recipients.push_back(std::move(recipient));
  if (fanout_.push(line, std::move(recipients)))
    boost::asio::post(executor_, [this] { run_fanout(); });
}

bool chat_room::pause_if_backlogged(member& talker)
{
  std::lock_guard lock(mutex_);
  return fanout_.pause_if_backlogged(talker.self_.lock());
}

void chat_room::run_fanout()
{
  std::vector<delivery> batch;
  std::vector<std::shared_ptr<member>> resumed;
  {
    std::lock_guard lock(mutex_);
    fanout_.take_turn(batch, resumed);
  }
  // Outside the lock: a recipient whose session has otherwise ended is destroyed with its
  // delivery, and leaves the room then.
  deliver_batch(batch);
  for (std::shared_ptr<member>& talker : resumed)
  {
    const boost::asio::any_io_executor executor = talker->executor();
    boost::asio::post(
        executor, [talker = std::move(talker)] { talker->resume_input(); });
  }
  std::lock_guard lock(mutex_);
  if (fanout_.end_turn())
    boost::asio::post(
        executor_, [this] { run_fanout(); });  // behind whatever else is ready
}

void chat_room::deliver_batch(std::vector<delivery>& batch)
{
  if (contexts_.size() > 1)
  {
    // One handler per context delivers its members' messages on its one thread (in place
    // for the first context's, which runs this).
    std::vector<std::vector<delivery>> per_context(contexts_.size());
    for (delivery& d : batch)
      per_context[d.first->context()].push_back(std::move(d));
    for (std::size_t i = 0; i < contexts_.size(); ++i)
      if (!per_context[i].empty())
        boost::asio::dispatch(
            contexts_[i], [deliveries = std::move(per_context[i])] {
              for (const delivery& d : deliveries)
                deliver_one(d);
            });
  }
  else if (options.threads > 1)
    for (delivery& d : batch)
    {
      // Queued on the member's strand, in order; the fan-out runs on none of them.
      const boost::asio::any_io_executor executor = d.first->executor();
      boost::asio::dispatch(executor, [d = std::move(d)] { deliver_one(d); });
    }
  else
    for (const delivery& d : batch)
      deliver_one(d);  // one thread: every member's executor is this one
  batch.clear();
}

void chat_room::deliver_one(const delivery& d)
{
  // A member that left since the message was said (its read failed, /quit, the server's
  // shutdown): its session is ending, and nothing more is sent to it. Read on the member's
  // executor, where it left.
  if (d.first->joined_)
    d.first->deliver(d.second);
}

std::string chat_room::who() const
{
  std::vector<std::string> names;
  {
    std::lock_guard lock(mutex_);
    names.reserve(members_.size());
    for (const auto& entry : members_)
      names.push_back(entry.first);
  }
  std::sort(names.begin(), names.end());
  std::string line = "WHO count=" + std::to_string(names.size());
  for (std::size_t i = 0; i < names.size() && i < 100; ++i)
    line += " " + names[i];
  return line;
}

std::string chat_room::stats_line() const
{
  const bool timeouts = timed(options);
  std::size_t connections, members;
  {
    std::lock_guard lock(mutex_);
    connections = sessions_.size();
    members = members_.size();
  }
  std::ostringstream out;
  out << "STATS connections=" << connections << " members=" << members
      << " accepted=" << counters.accepted << " refused=" << counters.refused
      << " messages=" << counters.messages
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
  const std::string line = "LOG t=" + std::string(stamp) + " " + event + "\n";
  // Whole lines from every thread, flushed: a test reads them while the server runs.
  std::lock_guard lock(log_mutex_);
  std::cout << line << std::flush;
}

void chat_room::shutdown_all()
{
  stopping_ = true;
  std::vector<std::pair<std::weak_ptr<member>, boost::asio::any_io_executor>>
      all;
  {
    std::lock_guard lock(mutex_);
    all.reserve(sessions_.size());
    for (member* m : sessions_)
      all.emplace_back(m->self_, m->executor());
  }
  // Each on its own executor, and only if it is still there then (one still in its
  // handshake ends at its shutdown()).
  for (auto& [weak, executor] : all)
    boost::asio::post(executor, [weak = std::move(weak)] {
      if (const std::shared_ptr<member> m = weak.lock())
        m->shutdown();
    });
}

}  // namespace websocket_chat
