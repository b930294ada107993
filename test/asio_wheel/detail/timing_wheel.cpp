//
// test/asio_wheel/detail/timing_wheel.cpp
//
// Unit tests of the wheel as a plain data structure over integer ticks: slot
// placement, rounds, wrap-around, far ticks, lazy re-filing, the earliest-due
// search, and a randomized comparison against a trivially correct model.
//

#define BOOST_TEST_MODULE timing_wheel
#include <boost/test/unit_test.hpp>

#include <asio_wheel/detail/timing_wheel.hpp>

#include <algorithm>
#include <map>
#include <random>
#include <vector>

using asio_wheel::detail::never_tick;
using asio_wheel::detail::tick_type;
using asio_wheel::detail::timing_wheel;
using asio_wheel::detail::wheel_entry;

namespace {

// An entry with its real due tick, which may be later than where it is filed.
struct test_entry : wheel_entry
{
  tick_type due = 0;
  int expired = 0;
  tick_type expired_at = -1;
};

// Advances the wheel to `to` visiting at most `budget` entries (one step of
// a bounded advance), recording what expired.
std::vector<test_entry*> advance_some(timing_wheel& w, tick_type to, std::size_t budget)
{
  std::vector<test_entry*> out;
  w.advance(to,
      [](const wheel_entry& e) { return static_cast<const test_entry&>(e).due; },
      [&](wheel_entry& e) {
        auto& t = static_cast<test_entry&>(e);
        ++t.expired;
        t.expired_at = to;
        out.push_back(&t);
      },
      budget);
  return out;
}

// A whole advance to `to`.
std::vector<test_entry*> advance(timing_wheel& w, tick_type to)
{
  return advance_some(w, to, ~std::size_t(0));
}

void insert(timing_wheel& w, test_entry& e, tick_type due)
{
  e.due = due;
  w.insert(e, due);
}

} // namespace

BOOST_AUTO_TEST_CASE(entry_expires_exactly_at_its_due_tick)
{
  timing_wheel w(8);
  test_entry e;
  insert(w, e, 5);
  BOOST_TEST(w.size() == 1u);
  BOOST_TEST(w.next_due() == 5);
  BOOST_TEST(advance(w, 4).empty(), "expired before its due tick");
  BOOST_TEST(advance(w, 5).size() == 1u);
  BOOST_TEST(e.expired == 1);
  BOOST_TEST(!e.in_wheel());
  BOOST_TEST(w.empty());
  BOOST_TEST(w.next_due() == never_tick);
}

BOOST_AUTO_TEST_CASE(entries_of_later_rounds_share_a_slot_and_wait_their_round)
{
  timing_wheel w(8);
  test_entry a, b, c;
  insert(w, a, 3);       // slot 3, round 0
  insert(w, b, 3 + 8);   // slot 3, round 1
  insert(w, c, 3 + 16);  // slot 3, round 2
  BOOST_TEST(advance(w, 3).size() == 1u);
  BOOST_TEST(a.expired == 1);
  BOOST_TEST(b.expired == 0);
  BOOST_TEST(w.round_revisits() == 2u, "b and c were visited in round 0");
  BOOST_TEST(w.next_due() == 11);
  BOOST_TEST(advance(w, 10).empty());
  BOOST_TEST(advance(w, 11).size() == 1u);
  BOOST_TEST(b.expired == 1);
  BOOST_TEST(c.expired == 0);
  BOOST_TEST(w.next_due() == 19);
  BOOST_TEST(advance(w, 19).size() == 1u);
  BOOST_TEST(c.expired == 1);
}

BOOST_AUTO_TEST_CASE(slot_whose_entries_are_all_later_rounds_is_not_walked)
{
  test_entry far;  // declared first: outlives the wheel
  timing_wheel w(8);
  insert(w, far, 2 + 8 * 5);
  advance(w, 2);
  advance(w, 10);
  BOOST_TEST(w.round_revisits() == 0u,
      "a slot holding only later rounds must not be walked");
  BOOST_TEST(far.expired == 0);
}

BOOST_AUTO_TEST_CASE(advance_by_more_than_a_revolution_expires_everything_due)
{
  timing_wheel w(8);
  std::vector<test_entry> es(20);
  for (int i = 0; i < 20; ++i)
    insert(w, es[i], 1 + i * 3);  // ticks 1..58, wrapping several times
  const auto out = advance(w, 40);
  for (int i = 0; i < 20; ++i)
  {
    const bool due = 1 + i * 3 <= 40;
    BOOST_TEST(es[i].expired == (due ? 1 : 0), "entry due at " << 1 + i * 3);
  }
  BOOST_TEST(w.next_due() == 43);
  advance(w, 1000);
  for (auto& e : es)
    BOOST_TEST(e.expired == 1);
  BOOST_TEST(w.empty());
}

BOOST_AUTO_TEST_CASE(wrap_around_the_slot_array)
{
  timing_wheel w(4);
  advance(w, 6);  // current tick 6: slot 3 is next, then 0, 1, 2
  test_entry a, b;
  insert(w, a, 7);  // slot 3
  insert(w, b, 9);  // slot 1, after wrapping
  BOOST_TEST(w.next_due() == 7);
  advance(w, 7);
  BOOST_TEST(w.next_due() == 9);
  advance(w, 8);
  BOOST_TEST(b.expired == 0);
  advance(w, 9);
  BOOST_TEST(b.expired == 1);
}

BOOST_AUTO_TEST_CASE(far_ticks_up_to_never_do_not_overflow_or_expire)
{
  timing_wheel w(16);
  test_entry year, never;
  insert(w, year, tick_type(365) * 24 * 3600 * 1000);  // a year of 1 ms ticks
  insert(w, never, never_tick);
  BOOST_TEST(w.next_due() == year.due);
  advance(w, year.due - 1);
  BOOST_TEST(year.expired == 0);
  advance(w, year.due);
  BOOST_TEST(year.expired == 1);
  advance(w, never_tick - 1);
  BOOST_TEST(never.expired == 0, "never_tick must never be reached");
  BOOST_TEST(w.next_due() == never_tick);
  w.erase(never);
  BOOST_TEST(w.empty());
}

BOOST_AUTO_TEST_CASE(later_due_is_refiled_lazily_when_the_old_slot_comes_round)
{
  timing_wheel w(8);
  test_entry e;
  insert(w, e, 2);
  e.due = 13;  // moved later without touching the wheel
  BOOST_TEST(advance(w, 2).empty(), "moved entry expired at its old tick");
  BOOST_TEST(w.lazy_refilings() == 1u);
  BOOST_TEST(e.filed_tick == 13);
  BOOST_TEST(w.next_due() == 13);
  BOOST_TEST(advance(w, 12).empty());
  BOOST_TEST(advance(w, 13).size() == 1u);
}

BOOST_AUTO_TEST_CASE(lazy_move_by_whole_revolutions_stays_in_its_slot)
{
  timing_wheel w(8);
  test_entry e;
  insert(w, e, 2);
  e.due = 2 + 8 * 3;
  advance(w, 2);
  BOOST_TEST(e.in_wheel());
  BOOST_TEST(e.filed_tick == 26);
  advance(w, 26);
  BOOST_TEST(e.expired == 1);
}

BOOST_AUTO_TEST_CASE(erase_of_the_last_entry_empties_the_slot)
{
  timing_wheel w(8);
  test_entry a, b;
  insert(w, a, 4);
  insert(w, b, 6);
  w.erase(a);
  BOOST_TEST(w.next_due() == 6, "an emptied slot must not be reported");
  w.erase(b);
  BOOST_TEST(w.empty());
  BOOST_TEST(w.next_due() == never_tick);
  BOOST_TEST(advance(w, 100).empty());
}

BOOST_AUTO_TEST_CASE(next_due_prefers_this_revolution_over_earlier_slots_of_later_rounds)
{
  test_entry later_round, this_round;
  timing_wheel w(8);
  insert(w, later_round, 1 + 8);  // slot 1, second revolution
  insert(w, this_round, 5);       // slot 5, first revolution
  BOOST_TEST(w.next_due() == 5);
  w.erase(this_round);
  BOOST_TEST(w.next_due() == 9);
}

BOOST_AUTO_TEST_CASE(clear_unlinks_every_entry)
{
  timing_wheel w(8);
  std::vector<test_entry> es(10);
  for (int i = 0; i < 10; ++i)
    insert(w, es[i], 1 + i * 5);
  int seen = 0;
  w.clear([&](wheel_entry& e) { BOOST_TEST(!e.in_wheel()); ++seen; });
  BOOST_TEST(seen == 10);
  BOOST_TEST(w.empty());
}

BOOST_AUTO_TEST_CASE(large_wheel_bitmap_search_crosses_summary_words)
{
  timing_wheel w(1 << 16);  // 1024 bitmap words, 16 summary words
  test_entry e;
  insert(w, e, 60000);
  BOOST_TEST(w.next_due() == 60000);
  BOOST_TEST(advance(w, 59999).empty());
  BOOST_TEST(advance(w, 60000).size() == 1u);
}

BOOST_AUTO_TEST_CASE(bounded_advance_processes_a_storm_in_slices)
{
  std::vector<test_entry> es(1000);
  timing_wheel w(8);
  for (auto& e : es)
    insert(w, e, 5);  // all in one slot, due together
  std::size_t expired = 0, steps = 0;
  do
  {
    const auto out = advance_some(w, 5, 100);
    BOOST_TEST_REQUIRE(out.size() <= 100u, "a step visited more than its budget");
    expired += out.size();
    ++steps;
  } while (w.advancing() && steps < 100);
  BOOST_TEST(!w.advancing());
  BOOST_TEST(expired == 1000u);
  BOOST_TEST(steps >= 10u, "the storm was not split: " << steps << " steps");
  for (auto& e : es)
    BOOST_TEST_REQUIRE(e.expired == 1);
  BOOST_TEST(w.empty());
}

BOOST_AUTO_TEST_CASE(entries_erased_or_added_during_a_bounded_advance)
{
  std::vector<test_entry> es(10);
  test_entry late, added;
  timing_wheel w(8);
  for (auto& e : es)
    insert(w, e, 3);
  insert(w, late, 3 + 8);  // same slot, next round
  advance_some(w, 3, 2);   // detaches slot 3, expires two
  BOOST_TEST_REQUIRE(w.advancing());
  BOOST_TEST(w.horizon() == 3);
  w.erase(es[9]);          // still in the detached slot
  BOOST_TEST(!es[9].in_wheel());
  insert(w, added, w.horizon() + 1);
  while (w.advancing())
    advance_some(w, 3, 2);
  for (int i = 0; i < 9; ++i)
    BOOST_TEST(es[i].expired == 1, "entry " << i);
  BOOST_TEST(es[9].expired == 0, "an erased entry expired");
  BOOST_TEST(late.expired == 0);
  BOOST_TEST(late.in_wheel(), "a later round was dropped");
  BOOST_TEST(w.size() == 2u);
  BOOST_TEST(w.next_due() == 4);
  advance(w, 11);
  BOOST_TEST(added.expired == 1);
  BOOST_TEST(late.expired == 1);
}

// Random inserts, erases, lazy and eager moves and advances, checked against
// a map from entry to due tick: every entry expires exactly once, at the
// first advance whose target reaches its due tick, and next_due() is never
// later than the true earliest due tick.
BOOST_AUTO_TEST_CASE(randomized_against_reference_model)
{
  for (unsigned seed = 1; seed <= 200; ++seed)
  {
    std::mt19937_64 rng(seed);
    const std::size_t slots = std::size_t(1) << (rng() % 7);  // 1..64
    std::vector<test_entry> es(64);  // declared first: outlives the wheel
    timing_wheel w(slots);
    std::map<test_entry*, tick_type> model;
    tick_type now = 0;
    for (int step = 0; step < 400; ++step)
    {
      test_entry& e = es[rng() % es.size()];
      switch (rng() % 5)
      {
      case 0: case 1:  // insert
        if (!e.in_wheel())
        {
          const tick_type due = now + 1 + static_cast<tick_type>(rng() % (slots * 4 + 3));
          e.expired = 0;
          insert(w, e, due);
          model[&e] = due;
        }
        break;
      case 2:  // erase
        if (e.in_wheel())
        {
          w.erase(e);
          model.erase(&e);
        }
        break;
      case 3:  // move later lazily, or earlier eagerly
        if (e.in_wheel())
        {
          const tick_type due = now + 1 + static_cast<tick_type>(rng() % (slots * 4 + 3));
          if (due >= e.filed_tick)
            e.due = due;
          else
          {
            w.erase(e);
            insert(w, e, due);
          }
          model[&e] = due;
        }
        break;
      default:
      {
        tick_type earliest = never_tick;
        for (auto& [p, due] : model)
          earliest = (std::min)(earliest, due);
        BOOST_TEST_REQUIRE(w.next_due() <= earliest,
            "seed " << seed << ": next_due " << w.next_due() << " after the earliest due " << earliest);
        const tick_type to = now + static_cast<tick_type>(rng() % (slots * 2 + 2));
        // Half the time a bounded advance, with inserts, erasures and moves
        // between its steps, as the service does between slices.
        const std::size_t budget = rng() % 2 ? 1 + rng() % 4 : ~std::size_t(0);
        do
        {
          for (test_entry* x : advance_some(w, to, budget))
          {
            BOOST_TEST_REQUIRE(model.count(x) == 1u, "seed " << seed << ": expired an entry not in the wheel");
            BOOST_TEST_REQUIRE(model[x] <= to, "seed " << seed << ": expired early");
            BOOST_TEST_REQUIRE(x->expired == 1, "seed " << seed << ": expired twice");
            model.erase(x);
          }
          if (w.advancing())
          {
            test_entry& y = es[rng() % es.size()];
            const tick_type due = w.horizon() + 1 + static_cast<tick_type>(rng() % (slots * 4 + 3));
            if (!y.in_wheel())
            {
              y.expired = 0;
              insert(w, y, due);
              model[&y] = due;
            }
            else if (rng() % 2)
            {
              w.erase(y);
              model.erase(&y);
            }
            else if (due >= y.filed_tick)
            {
              y.due = due;
              model[&y] = due;
            }
          }
        } while (w.advancing());
        for (auto& [p, due] : model)
          BOOST_TEST_REQUIRE(due > to, "seed " << seed << ": entry due at " << due << " missed at " << to);
        now = to;
      }
      }
      BOOST_TEST_REQUIRE(w.size() == model.size(), "seed " << seed << ": size");
    }
  }
}
