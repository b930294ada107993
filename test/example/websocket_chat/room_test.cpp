// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// Unit tests of the WebSocket chat's room (example/websocket_chat/room.hpp) with recording
// members on an io_context run by hand: the broadcast's fan-out yields to other handlers
// every fanout::turn_size deliveries, keeps the order of messages, sends nothing to a member that
// left meanwhile (and keeps a recipient alive until its turn), and pauses a talker that
// outruns it until the backlog has halved. Deterministic: no sockets, no clocks.
#define BOOST_TEST_MODULE websocket_chat_room
#include <boost/test/unit_test.hpp>

#include "room.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

// Named, not anonymous: the test cases derive from room_fixture (GCC's -Wsubobject-linkage).
namespace room_test {

using websocket_chat::chat_room;
using websocket_chat::shared_text;

// A member that records what the room sends it; ends as a session does (leaves on
// destruction). All on the one io_context, as the server's one-thread shape.
class recording_member : public websocket_chat::member
{
public:
  recording_member(
      boost::asio::io_context& io, chat_room& room, std::size_t& deliveries)
    : member(io.get_executor(), 0), room_(room), deliveries_(deliveries)
  {}
  ~recording_member() override { room_.remove_session(*this); }

  void deliver(const shared_text& text) override
  {
    received.push_back(*text);
    ++deliveries_;
  }
  void shutdown() override {}
  void resume_input() override { ++resumed; }

  std::vector<std::string> received;
  int resumed = 0;

private:
  chat_room& room_;
  std::size_t& deliveries_;  // counts every member's deliveries
};

struct room_fixture
{
  boost::asio::io_context io;
  websocket_chat::server_options options;
  chat_room room{{io.get_executor()}, options, "none", nullptr};
  std::size_t deliveries = 0;

  // A member added to the room, as the server adds each session it makes.
  std::shared_ptr<recording_member> make_member()
  {
    auto m = std::make_shared<recording_member>(io, room, deliveries);
    room.add_session(m);
    return m;
  }

  // @p n members joined, their WELCOME lines forgotten.
  std::vector<std::shared_ptr<recording_member>> join(std::size_t n)
  {
    std::vector<std::shared_ptr<recording_member>> members;
    for (std::size_t i = 0; i < n; ++i)
    {
      members.push_back(make_member());
      room.join(*members.back());
      members.back()->received.clear();
    }
    deliveries = 0;
    return members;
  }
};

}  // namespace room_test

using room_test::recording_member;
using websocket_chat::chat_room;

BOOST_FIXTURE_TEST_SUITE(fanout, room_test::room_fixture)

BOOST_AUTO_TEST_CASE(a_broadcast_yields_to_other_handlers_every_batch)
{
  const auto members = join(1000);
  room.broadcast(*members[0], "hello");
  BOOST_TEST(deliveries == 0u);  // nothing in broadcast() itself
  // A handler that is ready all along (it posts itself again each time it runs) runs
  // between every two batches.
  std::vector<std::size_t> seen_at;
  std::function<void()> other = [&] {
    seen_at.push_back(deliveries);
    if (deliveries < 999)
      boost::asio::post(io, other);
  };
  boost::asio::post(io, other);
  io.run();
  BOOST_TEST(seen_at == (std::vector<std::size_t>{256, 512, 768, 999}),
      boost::test_tools::per_element());
  BOOST_TEST(deliveries == 999u);
  BOOST_TEST(members[0]->received.empty());  // not to the talker
  for (std::size_t i = 1; i < members.size(); ++i)
    BOOST_TEST_REQUIRE(
        members[i]->received == std::vector<std::string>{"guest1: hello"},
        boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(every_member_gets_the_messages_in_the_order_said)
{
  const auto members = join(600);
  room.broadcast(*members[0], "one");
  room.broadcast(*members[1], "two");
  room.broadcast(*members[0], "three");
  io.run();
  BOOST_TEST(members[0]->received == (std::vector<std::string>{"guest2: two"}),
      boost::test_tools::per_element());
  BOOST_TEST(members[1]->received
          == (std::vector<std::string>{"guest1: one", "guest1: three"}),
      boost::test_tools::per_element());
  for (std::size_t i = 2; i < members.size(); ++i)
    BOOST_TEST_REQUIRE(members[i]->received
            == (std::vector<std::string>{
                "guest1: one", "guest2: two", "guest1: three"}),
        boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_member_that_leaves_during_a_fanout_gets_nothing_more)
{
  auto members = join(1000);
  room.broadcast(*members[0], "hello");
  io.run_one();  // the first batch
  BOOST_TEST(deliveries == chat_room::fanout::turn_size);
  // A member whose turn has not come leaves and its session ends (nothing but the fan-out
  // holds it), and a new member joins: neither gets the message in flight (the newcomer has
  // it in the history it was sent on joining).
  const auto waiting = std::find_if(members.begin() + 1, members.end(),
      [](const auto& m) { return m->received.empty(); });
  BOOST_TEST_REQUIRE((waiting != members.end()));
  std::weak_ptr<recording_member> left = *waiting;
  room.leave(**waiting);
  members.erase(waiting);
  BOOST_TEST(
      !left.expired());  // the fan-out keeps its recipients alive until their turn
  const auto newcomer = make_member();
  room.join(*newcomer);
  BOOST_TEST(newcomer->received
          == (std::vector<std::string>{
              "WELCOME guest1001 history=1", "guest1: hello"}),
      boost::test_tools::per_element());
  newcomer->received.clear();
  deliveries = 0;
  io.run();
  BOOST_TEST(
      left.expired());  // destroyed once its turn came, without a delivery
  BOOST_TEST(deliveries == 999u - chat_room::fanout::turn_size - 1);
  BOOST_TEST(newcomer->received.empty());
  BOOST_TEST(room.sessions() == 1000u);  // 999 of the first plus the newcomer
}

BOOST_AUTO_TEST_CASE(a_talker_that_outruns_the_fanout_is_paused_until_it_halves)
{
  const auto members = join(1000);
  recording_member& talker = *members[0];
  const std::string text(1000, 'x');
  // What the fan-out holds while d deliveries of the messages said are done: each message's
  // line until its last delivery, and a pointer per recipient until its own.
  constexpr std::size_t pointer =
      sizeof(std::shared_ptr<websocket_chat::member>);
  const std::size_t line = std::string("guest1: ").size() + text.size();
  std::size_t said = 0;
  const auto pending = [&](std::size_t d) {
    return (said - d / 999) * line + (said * 999 - d) * pointer;
  };
  while (!room.pause_if_backlogged(talker))
  {
    BOOST_TEST_REQUIRE(pending(0) <= chat_room::fanout::backlog_limit);
    room.broadcast(talker, text);
    ++said;
  }
  BOOST_TEST(pending(0) > chat_room::fanout::backlog_limit);
  BOOST_TEST(talker.resumed == 0);
  // Resumed once, after the first batch that brought the backlog down to half its limit.
  std::size_t resumed_after = 0;
  while (talker.resumed == 0 && io.run_one() != 0)
    resumed_after = deliveries;
  BOOST_TEST(talker.resumed == 1);
  BOOST_TEST(pending(resumed_after) <= chat_room::fanout::backlog_limit / 2);
  BOOST_TEST(pending(resumed_after - chat_room::fanout::turn_size)
      > chat_room::fanout::backlog_limit / 2);
  io.run();
  BOOST_TEST(talker.resumed == 1);
  BOOST_TEST(deliveries == said * 999);
  BOOST_TEST(!room.pause_if_backlogged(talker));
}

BOOST_AUTO_TEST_SUITE_END()
