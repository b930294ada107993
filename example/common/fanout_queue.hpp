//
// example/common/fanout_queue.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The broadcast queue both chat rooms share. A message to 10,000 members is 10,000 writes:
// done in one handler, it would hold the event loop and every timer due meanwhile (pings,
// idle closes) would wait behind it. So the room takes at most `turn_size` deliveries per
// turn of the event loop and then queues its next turn behind whatever else is ready, as the
// wheel does with its own completions. Messages go out one after another, so every member
// sees them in the order they were sent. A talker that outruns the fan-out (pending messages
// holding more than `backlog_limit` bytes) is paused until the backlog has halved, so the
// queue stays bounded. The room's mutex guards it; the room delivers and posts.
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <utility>
#include <vector>

namespace example_common {

// Member: a session type; Text: a shared pointer to the message (its size() counted).
template <class Member, class Text>
class fanout_queue
{
public:
  // Deliveries per turn of the event loop.
  static constexpr std::size_t turn_size = 256;
  // 1 MiB: about six messages to 10,000 members, or a thousand 1 KiB lines to one.
  static constexpr std::size_t backlog_limit = std::size_t{1} << 20;

  using delivery = std::pair<std::shared_ptr<Member>, Text>;

  // Queues @p text for @p recipients. True when no turn is posted or running: the caller
  // posts one.
  bool push(Text text, std::vector<std::shared_ptr<Member>> recipients)
  {
    if (recipients.empty())
      return false;
    // What the pending message holds: the text once, a pointer per recipient.
    backlog_bytes_ +=
        text->size() + recipients.size() * sizeof(std::shared_ptr<Member>);
    messages_.push_back({std::move(text), std::move(recipients), 0});
    const bool start = !running_;
    running_ = true;
    return start;
  }

  // True (and @p talker is among a later turn's resumed ones) while the backlog is over
  // its limit.
  bool pause_if_backlogged(std::shared_ptr<Member> talker)
  {
    if (backlog_bytes_ <= backlog_limit)
      return false;
    paused_.push_back(std::move(talker));
    return true;
  }

  // One turn: the next deliveries in order into @p batch, and into @p resumed the paused
  // talkers once the backlog has halved.
  void take_turn(std::vector<delivery>& batch,
      std::vector<std::shared_ptr<Member>>& resumed)
  {
    batch.reserve(turn_size);
    while (batch.size() < turn_size && !messages_.empty())
    {
      message& front = messages_.front();
      while (batch.size() < turn_size && front.next < front.recipients.size())
        batch.emplace_back(
            std::move(front.recipients[front.next++]), front.text);
      if (front.next == front.recipients.size())
      {
        backlog_bytes_ -= front.text->size();
        messages_.pop_front();
      }
    }
    backlog_bytes_ -= batch.size() * sizeof(std::shared_ptr<Member>);
    if (backlog_bytes_ <= backlog_limit / 2)
      resumed.swap(paused_);
  }

  // Ends a turn, after its deliveries: true when more is queued (the caller posts the next
  // turn); false, and the queue idle until the next push, when not.
  bool end_turn()
  {
    running_ = !messages_.empty();
    return running_;
  }

private:
  struct message
  {
    Text text;
    std::vector<std::shared_ptr<Member>> recipients;
    std::size_t next = 0;
  };
  std::deque<message> messages_;  // oldest first
  // The texts plus the recipient pointers held by messages_.
  std::size_t backlog_bytes_ = 0;
  bool running_ = false;  // a turn is posted or running
  std::vector<std::shared_ptr<Member>> paused_;
};

}  // namespace example_common
