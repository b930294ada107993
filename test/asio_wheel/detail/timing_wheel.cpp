//
// test/asio_wheel/detail/timing_wheel.cpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// Unit tests of the wheel as a plain data structure over integer ticks: slot
// placement, rounds, wrap-around, far ticks, lazy re-filing, the earliest-due
// search, rewinding (a clock that stepped back, negative ticks), and a
// randomized comparison against a trivially correct model.
//

#define BOOST_TEST_MODULE timing_wheel
#include <boost/test/unit_test.hpp>

#include <asio_wheel/detail/timing_wheel.hpp>

#include <algorithm>
#include <iterator>
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
std::vector<test_entry*> advance_some(
    timing_wheel& w, tick_type to, std::size_t budget)
{
  std::vector<test_entry*> out;
  w.advance(
      to,
      [](const wheel_entry& e) {
        return static_cast<const test_entry&>(e).due;
      },
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

}  // namespace

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

// next_due() is next_due_after(current): its answers for a tick after another.
BOOST_AUTO_TEST_CASE(
    next_due_after_gives_the_due_tick_after_a_tick_or_says_it_cannot_tell)
{
  test_entry a, b, c, d,
      e;  // declared first: they outlive the wheel, which unlinks them
  timing_wheel w(8);
  insert(w, a, 3);  // level 0
  insert(w, b, 5);  // level 0
  insert(w, c, 3 + 16);  // level 1, the block of ticks 16-23
  BOOST_TEST(w.next_due() == 3);
  BOOST_TEST(w.next_due_after(2) == 3);
  BOOST_TEST(w.next_due_after(3) == 5);
  BOOST_TEST(w.next_due_after(4) == 5);
  BOOST_TEST(w.next_due_after(16) == 19);
  // Tick 5's slot could also hold 13, 21, ...: nothing is known to come before 13.
  BOOST_TEST(w.next_due_after(5) == never_tick);
  // The block of 16-23 begins by tick 19: its other entries are not known until it moves down.
  BOOST_TEST(w.next_due_after(19) == never_tick);

  BOOST_TEST(advance(w, 5).size() == 2u);
  insert(w, d, 20);  // level 1, the block of 16-23, behind c
  BOOST_TEST(w.next_due() == 19);
  BOOST_TEST(w.next_due_after(19) == never_tick);
  BOOST_TEST(advance(w, 16).empty());
  BOOST_TEST(w.cascades() == 2u, "c and d moved down to level 0");
  BOOST_TEST(w.next_due_after(19) == 20);
  // Slots 3 and 4 (c's and d's) could hold 27 and 28.
  BOOST_TEST(w.next_due_after(20) == never_tick);
  insert(w, e, 22);
  BOOST_TEST(w.next_due_after(20) == 22);
}

BOOST_AUTO_TEST_CASE(
    entries_beyond_a_revolution_wait_a_level_up_and_move_down_once)
{
  timing_wheel w(8);
  test_entry a, b, c;
  insert(w, a, 3);  // level 0, slot 3
  insert(w, b, 3 + 8);  // level 1, the block of ticks 8-15
  insert(w, c, 3 + 16);  // level 1, the block of ticks 16-23
  BOOST_TEST(advance(w, 3).size() == 1u);
  BOOST_TEST(a.expired == 1);
  BOOST_TEST(b.expired == 0);
  BOOST_TEST(w.round_revisits() == 0u, "b and c were visited at tick 3");
  BOOST_TEST(w.cascades() == 0u);
  BOOST_TEST(w.next_due() == 11);
  BOOST_TEST(advance(w, 10).empty());
  BOOST_TEST(
      w.cascades() == 1u, "b moved down when its block began, at tick 8");
  BOOST_TEST(advance(w, 11).size() == 1u);
  BOOST_TEST(b.expired == 1);
  BOOST_TEST(c.expired == 0);
  BOOST_TEST(w.next_due() == 19);
  BOOST_TEST(advance(w, 19).size() == 1u);
  BOOST_TEST(c.expired == 1);
  BOOST_TEST(w.cascades() == 2u);
  BOOST_TEST(w.round_revisits() == 0u);
}

BOOST_AUTO_TEST_CASE(
    an_entry_due_at_its_blocks_first_tick_expires_without_moving_down)
{
  // Where a tolerance files an entry (a coarse tick, often the first of an upper level's
  // block), it leaves the wheel from that level's slot: no move down, one touch.
  timing_wheel w(8);
  test_entry at_start, inside;
  insert(
      w, at_start, 64);  // level 1 (slots of 8 ticks): the block of ticks 64-71
  insert(w, inside, 64 + 3);  // the same slot
  BOOST_TEST(advance(w, 63).empty());
  const auto expired = advance(w, 64);
  BOOST_TEST(expired.size() == 1u);
  BOOST_TEST(at_start.expired == 1);
  BOOST_TEST(at_start.expired_at == 64);
  BOOST_TEST(
      w.cascades() == 1u, "only the entry due inside the block moved down");
  BOOST_TEST(advance(w, 67).size() == 1u);
  BOOST_TEST(inside.expired == 1);
  BOOST_TEST(w.empty());
}

// next_due_after answers the usual case inline, from the first occupied level-0 slot; an upper
// slot whose block begins before that slot's tick must send it to the full search.
BOOST_AUTO_TEST_CASE(
    next_due_after_looks_at_an_upper_block_before_the_next_level0_slot)
{
  test_entry a, b, d;  // declared first: they outlive the wheel
  timing_wheel w(8);
  insert(w, a, 7);  // level 0
  insert(w, b, 9);  // level 1, the block of ticks 8-15
  BOOST_TEST(advance(w, 3).empty());
  insert(w, d, 10);  // level 0 now: slot 2, after a's slot 7 in tick order
  BOOST_TEST(w.next_due() == 7);
  BOOST_TEST(w.next_due_after(7) == 9, "b, in level 1, is due before d");
  BOOST_TEST(advance(w, 7).size() == 1u);
  BOOST_TEST(w.next_due() == 9);
  BOOST_TEST(advance(w, 9).size() == 1u);
  BOOST_TEST(b.expired_at == 9);
  BOOST_TEST(w.next_due() == 10);
  BOOST_TEST(advance(w, 10).size() == 1u);
  BOOST_TEST(d.expired_at == 10);
}

// A pass finds its next slot inline when the first occupied level-0 slot is due in it; a slot
// that holds only a later round (here after a rewind) must be skipped, not walked, and must not
// end the pass either.
BOOST_AUTO_TEST_CASE(pass_skips_a_first_slot_of_later_rounds_to_a_due_one)
{
  test_entry x, y, z;  // declared first: they outlive the wheel
  timing_wheel w(8);
  insert(w, x, 6);  // slot 6
  BOOST_TEST(advance(w, 5).empty());
  insert(w, y, 12);  // slot 4
  w.rewind(1);
  insert(w, z, 5);  // slot 5
  // From tick 2: slot 4 first, whose minimum (12) is a later round; then 5 and 6.
  const std::vector<test_entry*> expired = advance(w, 6);
  BOOST_TEST(expired.size() == 2u);
  BOOST_TEST(z.expired_at == 6);
  BOOST_TEST(x.expired_at == 6);
  BOOST_TEST(y.expired == 0);
  BOOST_TEST(
      w.round_revisits() == 0u, "slot 4 must not be walked before tick 12");
  BOOST_TEST(advance(w, 11).empty());
  BOOST_TEST(advance(w, 12).size() == 1u);
  BOOST_TEST(y.expired_at == 12);
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
  BOOST_TEST(e.filed_tick() == 13);
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
  BOOST_TEST(e.filed_tick() == 26);
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

BOOST_AUTO_TEST_CASE(
    next_due_prefers_this_revolution_over_earlier_slots_of_later_rounds)
{
  test_entry later_round, this_round;
  timing_wheel w(8);
  insert(w, later_round, 1 + 8);  // slot 1, second revolution
  insert(w, this_round, 5);  // slot 5, first revolution
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
  w.clear([&](wheel_entry& e) {
    BOOST_TEST(!e.in_wheel());
    ++seen;
  });
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
    BOOST_TEST_REQUIRE(
        out.size() <= 100u, "a step visited more than its budget");
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
  advance_some(w, 3, 2);  // detaches slot 3, expires two
  BOOST_TEST_REQUIRE(w.advancing());
  BOOST_TEST(w.horizon() == 3);
  w.erase(es[9]);  // still in the detached slot
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

// One seed of the randomized tests: its generator, a wheel of 1 to 64 slots, and random
// distances in ticks. Seeds 1-200 draw short distances (within a few revolutions of level 0,
// as the service's 8- and 16-slot model test does); seeds 201-600 also long ones, from a tick
// to three times the top level's reach, so that entries pass every level, wait their round
// beyond the top, and passes cascade several levels at once.
constexpr unsigned randomized_seeds = 600;

struct random_run
{
  explicit random_run(unsigned seed)
    : rng(seed), long_timeouts(seed > 200), slots(std::size_t(1) << (rng() % 7))
  {}

  // A distance below short_span, or with long_timeouts one of any length.
  tick_type ahead(tick_type short_span)
  {
    if (!long_timeouts)
      return static_cast<tick_type>(
          rng() % static_cast<std::uint64_t>(short_span));
    const std::uint64_t level_spans[] = {slots * 4 + 3, slots * 64 * 3 + 1,
        slots * 4096 * 3 + 1, (static_cast<std::uint64_t>(slots) << 18) * 3 + 1,
        5};
    return static_cast<tick_type>(rng() % level_spans[rng() % 5]);
  }

  std::mt19937_64 rng;
  const bool long_timeouts;
  const std::size_t slots;
};

// Random inserts, erases, lazy and eager moves and advances, checked against
// a map from entry to due tick: every entry expires exactly once, at the
// first advance whose target reaches its due tick, and next_due() is never
// later than the true earliest due tick.
BOOST_AUTO_TEST_CASE(randomized_against_reference_model)
{
  for (unsigned seed = 1; seed <= randomized_seeds; ++seed)
  {
    random_run run(seed);
    std::mt19937_64& rng = run.rng;
    const std::size_t slots = run.slots;
    std::vector<test_entry> es(64);  // declared first: outlives the wheel
    timing_wheel w(slots);
    std::map<test_entry*, tick_type> model;
    tick_type now = 0;
    for (int step = 0; step < 400; ++step)
    {
      test_entry& e = es[rng() % es.size()];
      switch (rng() % 5)
      {
      case 0:
      case 1:  // insert
        if (!e.in_wheel())
        {
          const tick_type due =
              now + 1 + run.ahead(static_cast<tick_type>(slots * 4 + 3));
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
          const tick_type due =
              now + 1 + run.ahead(static_cast<tick_type>(slots * 4 + 3));
          if (due >= e.filed_tick())
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
            "seed " << seed << ": next_due " << w.next_due()
                    << " after the earliest due " << earliest);
        // At or before every filed tick (filed at or before its due tick); and
        // next_due_after(after), for any tick from the wheel's position on,
        // after `after` and at or before every tick filed after it.
        for (auto& [p, due] : model)
          BOOST_TEST_REQUIRE(w.next_due() <= p->filed_tick(),
              "seed " << seed << ": next_due " << w.next_due()
                      << " after an entry filed at " << p->filed_tick());
        {
          const tick_type after =
              now + run.ahead(static_cast<tick_type>(slots * 3 + 3));
          const tick_type r = w.next_due_after(after);
          BOOST_TEST_REQUIRE(r > after,
              "seed " << seed << ": next_due_after(" << after << ") is " << r);
          for (auto& [p, due] : model)
            BOOST_TEST_REQUIRE((p->filed_tick() <= after || r == never_tick
                                   || r <= p->filed_tick()),
                "seed " << seed << ": next_due_after(" << after << ") is " << r
                        << ", after an entry filed at " << p->filed_tick());
        }
        // next_due_after(next): after next, and at or before every entry filed after next, or
        // never_tick (none, or it cannot tell).
        if (const tick_type next = w.next_due(); next != never_tick)
        {
          const tick_type after = w.next_due_after(next);
          BOOST_TEST_REQUIRE(after > next,
              "seed " << seed << ": next_due_after(" << next << ") is "
                      << after);
          for (auto& [p, due] : model)
            BOOST_TEST_REQUIRE((p->filed_tick() <= next || after == never_tick
                                   || after <= p->filed_tick()),
                "seed " << seed << ": next_due_after(" << next << ") is "
                        << after << ", after an entry filed at "
                        << p->filed_tick());
        }
        const tick_type to =
            now + run.ahead(static_cast<tick_type>(slots * 2 + 2));
        // Half the time a bounded advance, with inserts, erasures and moves
        // between its steps, as the service does between slices.
        const std::size_t budget = rng() % 2 ? 1 + rng() % 4 : ~std::size_t(0);
        do
        {
          for (test_entry* x : advance_some(w, to, budget))
          {
            BOOST_TEST_REQUIRE(model.count(x) == 1u,
                "seed " << seed << ": expired an entry not in the wheel");
            BOOST_TEST_REQUIRE(
                model[x] <= to, "seed " << seed << ": expired early");
            BOOST_TEST_REQUIRE(
                x->expired == 1, "seed " << seed << ": expired twice");
            model.erase(x);
          }
          if (w.advancing())
          {
            test_entry& y = es[rng() % es.size()];
            const tick_type due = w.horizon() + 1
                + run.ahead(static_cast<tick_type>(slots * 4 + 3));
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
            else if (due >= y.filed_tick())
            {
              y.due = due;
              model[&y] = due;
            }
          }
        } while (w.advancing());
        for (auto& [p, due] : model)
          BOOST_TEST_REQUIRE(due > to,
              "seed " << seed << ": entry due at " << due << " missed at "
                      << to);
        now = to;
      }
      }
      BOOST_TEST_REQUIRE(w.size() == model.size(), "seed " << seed << ": size");
    }
  }
}

// ---- rewind: a clock that is not steady stepped back behind the processed ticks ----------

// After rewind(40) from 100 the ticks 41..100 are open again: an entry can be filed at each of
// them and expires exactly when advance() reaches its tick, not before and not at once. The
// entries filed before the rewind (all after 100, in several rounds of their slots) keep their
// ticks and expire at them.
BOOST_AUTO_TEST_CASE(
    rewind_reopens_processed_ticks_and_keeps_earlier_entries_at_their_ticks)
{
  std::vector<test_entry> before(4),
      after(60);  // declared first: outlive the wheel
  timing_wheel w(16);
  BOOST_TEST(advance(w, 100).empty());
  const tick_type before_ticks[] = {101, 105, 100 + 16, 105 + 3 * 16};
  for (std::size_t i = 0; i < before.size(); ++i)
    insert(w, before[i], before_ticks[i]);

  w.rewind(40);
  BOOST_TEST(w.horizon() == 40);
  BOOST_TEST(!w.advancing());
  BOOST_TEST(w.size() == before.size());
  for (std::size_t i = 0; i < before.size(); ++i)
  {
    BOOST_TEST(before[i].in_wheel());
    BOOST_TEST(before[i].filed_tick() == before_ticks[i],
        "an entry filed before the rewind moved");
  }

  for (std::size_t i = 0; i < after.size(); ++i)
    insert(w, after[i],
        41 + static_cast<tick_type>(i));  // 41..100: slots shared with `before`
  BOOST_TEST(w.size() == before.size() + after.size());
  BOOST_TEST(w.next_due() == 41);

  for (tick_type to = 41; to <= 160; ++to)
  {
    for (test_entry* e : advance(w, to))
      BOOST_TEST_REQUIRE(
          e->due == to, "entry due at " << e->due << " expired at " << to);
    for (auto* group : {&before, &after})
      for (const test_entry& e : *group)
        BOOST_TEST_REQUIRE(e.expired == (e.due <= to ? 1 : 0),
            "entry due at " << e.due << " after advancing to " << to);
  }
  BOOST_TEST(w.empty());
}

// A rewind during a bounded advance: the pass stops where it is, and what its detached slot
// still held goes back to the wheel undecided. Nothing is lost, nothing expires twice, size()
// counts exactly the entries not yet expired, and each of them expires when advance() reaches
// its tick again (entries of that slot in later rounds, and one the pass had already re-filed
// lazily, at their own ticks).
BOOST_AUTO_TEST_CASE(
    rewind_during_a_bounded_advance_returns_the_undecided_rest_of_the_slot)
{
  std::vector<test_entry> storm(50);
  test_entry moved_early, moved_late, later_round, other_slot, inserted;
  timing_wheel w(16);
  advance(w, 2);
  insert(w, moved_early, 5);
  moved_early.due =
      9;  // moved later lazily: visited first, so re-filed by the pass
  for (auto& e : storm)
    insert(w, e, 5);
  insert(w, moved_late, 5);
  moved_late.due =
      8;  // moved later lazily: not reached by the pass before the rewind
  insert(w, later_round, 5 + 16);
  insert(w, other_slot, 7);
  const std::size_t filed = w.size();

  // A pass over ticks 3..8: it detaches slot 5 and visits one entry per call.
  std::size_t expired = 0;
  for (int step = 0; step < 4; ++step)
  {
    const auto out = advance_some(w, 8, 1);
    BOOST_TEST_REQUIRE(out.size() <= 1u);
    expired += out.size();
  }
  BOOST_TEST_REQUIRE(w.advancing());
  BOOST_TEST(w.horizon() == 8);
  BOOST_TEST(expired == 3u,
      "the first visit re-files moved_early, the next three expire");
  BOOST_TEST(moved_early.filed_tick() == 9);
  BOOST_TEST(w.lazy_refilings() == 1u);
  BOOST_TEST(w.size() == filed - expired);

  w.rewind(
      1);  // the clock stepped back to tick 1, before the pass began (at tick 3)
  BOOST_TEST(!w.advancing());
  BOOST_TEST(w.horizon() == 1);
  BOOST_TEST(w.size() == filed - expired, "the rewind lost or dropped entries");
  std::size_t still_filed = 0;
  for (const test_entry& e : storm)
  {
    BOOST_TEST_REQUIRE(e.expired + (e.in_wheel() ? 1 : 0) == 1,
        "an entry is both expired and filed, or neither");
    still_filed += e.in_wheel() ? 1 : 0;
  }
  BOOST_TEST(still_filed == storm.size() - expired);
  BOOST_TEST(moved_late.in_wheel());
  BOOST_TEST(
      moved_late.filed_tick() == 5, "the rest of the slot goes back undecided");
  BOOST_TEST(later_round.filed_tick() == 21);
  BOOST_TEST(w.next_due() <= 5);

  // Ticks 2.. are open again: a new entry due at 3 is filed and expires at 3.
  insert(w, inserted, 3);
  BOOST_TEST(advance(w, 2).empty());
  const auto at3 = advance(w, 3);
  BOOST_TEST_REQUIRE(at3.size() == 1u);
  BOOST_TEST(at3[0] == &inserted);
  BOOST_TEST(advance(w, 4).empty());
  BOOST_TEST(advance(w, 5).size() == storm.size() - expired);
  for (const test_entry& e : storm)
    BOOST_TEST_REQUIRE(e.expired == 1);
  BOOST_TEST(moved_late.expired == 0);
  BOOST_TEST(moved_late.filed_tick() == 8, "re-filed lazily by the new pass");
  BOOST_TEST(advance(w, 7).size() == 1u);
  BOOST_TEST(other_slot.expired == 1);
  BOOST_TEST(advance(w, 8).size() == 1u);
  BOOST_TEST(moved_late.expired == 1);
  BOOST_TEST(advance(w, 9).size() == 1u);
  BOOST_TEST(moved_early.expired == 1);
  BOOST_TEST(advance(w, 20).empty());
  BOOST_TEST(advance(w, 21).size() == 1u);
  BOOST_TEST(later_round.expired == 1);
  BOOST_TEST(w.empty());
  for (const test_entry& e : storm)
    BOOST_TEST(e.expired == 1, "an entry expired twice");
}

// Ticks before the origin of the service are negative: a wheel rewound to -1000 files entries
// at negative ticks (slots by two's complement, rounds across zero) and expires them in tick
// order, each exactly at its tick; next_due() finds them.
BOOST_AUTO_TEST_CASE(rewind_to_negative_ticks_files_and_expires_them_in_order)
{
  const tick_type ticks[] = {
      -999, -998, -991, -990 + 8 * 3, -500, -17, -9, -1, 0, 1, 7};
  std::vector<test_entry> es(std::size(ticks)), storm(6);
  timing_wheel w(8);
  w.rewind(-1000);
  BOOST_TEST(w.horizon() == -1000);
  // Filed in reverse, so the expiry order does not come from the filing order.
  for (std::size_t i = es.size(); i-- > 0;)
    insert(w, es[i], ticks[i]);
  BOOST_TEST(w.next_due() == -999);

  std::vector<tick_type> order;
  for (tick_type to = -1000; to <= 10; ++to)
  {
    for (test_entry* e : advance(w, to))
    {
      BOOST_TEST_REQUIRE(
          e->due == to, "entry due at " << e->due << " expired at " << to);
      order.push_back(e->due);
    }
    tick_type earliest = never_tick;
    for (const test_entry& e : es)
      if (e.in_wheel())
        earliest = (std::min)(earliest, e.due);
    BOOST_TEST_REQUIRE(
        w.next_due() == earliest, "next_due after advancing to " << to);
  }
  BOOST_TEST(
      order == std::vector<tick_type>(std::begin(ticks), std::end(ticks)),
      boost::test_tools::per_element());
  BOOST_TEST(w.empty());

  // A bounded advance over negative ticks, and a rewind in the middle of it.
  w.rewind(-40);
  for (auto& e : storm)
    insert(w, e, -33);
  BOOST_TEST(advance_some(w, -30, 2).size() == 2u);
  BOOST_TEST_REQUIRE(w.advancing());
  w.rewind(-45);  // before the pass began (at -39)
  BOOST_TEST(!w.advancing());
  BOOST_TEST(w.horizon() == -45);
  BOOST_TEST(w.size() == 4u);
  BOOST_TEST(advance(w, -34).empty());
  BOOST_TEST(advance(w, -33).size() == 4u);
  for (const test_entry& e : storm)
    BOOST_TEST(e.expired == 1);
}

// rewind(to) promises horizon() <= to afterwards and abandons a pass in progress; it never moves
// the wheel forward. So with to at or after horizon(): no pass in progress, nothing changes
// (the ticks up to `to` are not skipped); during a pass, the pass is abandoned all the same,
// the position stays where the pass began (horizon() falls back from the pass's target to the
// tick before the pass) and the undecided entries are decided by the next advance().
BOOST_AUTO_TEST_CASE(
    rewind_at_or_after_horizon_keeps_the_position_but_abandons_a_pass)
{
  std::vector<test_entry> storm(5);
  test_entry a, b;
  timing_wheel w(16);
  advance(w, 10);
  insert(w, a, 12);
  insert(w, b, 30);

  w.rewind(10);  // at horizon()
  BOOST_TEST(w.horizon() == 10);
  w.rewind(20);  // after horizon(): not a jump forward over a's tick
  BOOST_TEST(w.horizon() == 10);
  BOOST_TEST(!w.advancing());
  BOOST_TEST(w.size() == 2u);
  BOOST_TEST(w.next_due() == 12);
  BOOST_TEST(advance(w, 11).empty());
  BOOST_TEST(advance(w, 12).size() == 1u);
  BOOST_TEST(a.expired == 1);

  // A pass over ticks 13..16 with slot 15 half done.
  for (auto& e : storm)
    insert(w, e, 15);
  BOOST_TEST(advance_some(w, 16, 2).size() == 2u);
  BOOST_TEST_REQUIRE(w.advancing());
  BOOST_TEST(w.horizon() == 16);
  w.rewind(16);  // at horizon(): the pass is abandoned all the same
  BOOST_TEST(!w.advancing());
  BOOST_TEST(w.horizon() == 12, "the position moved");
  BOOST_TEST(w.size() == 4u);  // three of the storm, and b
  BOOST_TEST(advance_some(w, 16, 1).size() == 1u);
  BOOST_TEST_REQUIRE(w.advancing());
  w.rewind(100);  // after horizon(): the same
  BOOST_TEST(!w.advancing());
  BOOST_TEST(w.horizon() == 12);
  BOOST_TEST(w.size() == 3u);
  BOOST_TEST(advance(w, 14).empty());
  BOOST_TEST(advance(w, 16).size() == 2u);
  for (const test_entry& e : storm)
    BOOST_TEST(e.expired == 1);
  BOOST_TEST(b.expired == 0);
  BOOST_TEST(advance(w, 30).size() == 1u);
  BOOST_TEST(w.empty());
}

// The randomized comparison again, with the clock stepping back: now and then the wheel is
// rewound to a tick up to two revolutions before the last advance (also below zero), or, in
// the middle of a bounded advance, to a tick before the pass began. The model knows nothing of
// rewinds: every entry still expires exactly once, at the first advance whose target reaches
// its due tick, and never early.
BOOST_AUTO_TEST_CASE(randomized_rewinds_against_reference_model)
{
  for (unsigned seed = 1; seed <= randomized_seeds; ++seed)
  {
    random_run run(seed);
    std::mt19937_64& rng = run.rng;
    const std::size_t slots = run.slots;
    const auto span = static_cast<tick_type>(slots * 4 + 3);
    std::vector<test_entry> es(64);  // declared first: outlives the wheel
    timing_wheel w(slots);
    std::map<test_entry*, tick_type> model;
    tick_type now = 0;
    std::size_t rewinds = 0;
    auto rewind_to = [&](tick_type to) {
      w.rewind(to);
      BOOST_TEST_REQUIRE(!w.advancing());
      BOOST_TEST_REQUIRE(w.horizon() <= to);
      now = w.horizon();
      ++rewinds;
    };
    for (int step = 0; step < 400; ++step)
    {
      test_entry& e = es[rng() % es.size()];
      switch (rng() % 6)
      {
      case 0:
      case 1:  // insert
        if (!e.in_wheel())
        {
          const tick_type due = now + 1 + run.ahead(span);
          e.expired = 0;
          insert(w, e, due);
          model[&e] = due;
        }
        break;
      case 2:  // erase, or move later lazily
        if (e.in_wheel())
        {
          if (rng() % 2)
          {
            w.erase(e);
            model.erase(&e);
          }
          else
          {
            e.due = model[&e] + run.ahead(span);
            model[&e] = e.due;
          }
        }
        break;
      case 3:  // the clock stepped back
        rewind_to(now - run.ahead(static_cast<tick_type>(2 * slots + 2)));
        break;
      default:
      {
        const tick_type to =
            now + run.ahead(static_cast<tick_type>(slots * 2 + 2));
        const std::size_t budget = rng() % 2 ? 1 + rng() % 4 : ~std::size_t(0);
        bool rewound = false;
        do
        {
          for (test_entry* x : advance_some(w, to, budget))
          {
            BOOST_TEST_REQUIRE(model.count(x) == 1u,
                "seed " << seed << ": expired an entry not in the wheel");
            BOOST_TEST_REQUIRE(
                model[x] <= to, "seed " << seed << ": expired early");
            BOOST_TEST_REQUIRE(
                x->expired == 1, "seed " << seed << ": expired twice");
            model.erase(x);
          }
          if (w.advancing() && rng() % 4 == 0)
          {
            // Back to before the pass began (at now + 1): what it has not decided stays filed.
            rewind_to(now - run.ahead(static_cast<tick_type>(slots + 1)));
            rewound = true;
          }
        } while (w.advancing());
        if (!rewound)
        {
          for (auto& [p, due] : model)
            BOOST_TEST_REQUIRE(due > to,
                "seed " << seed << ": entry due at " << due << " missed at "
                        << to);
          now = to;
        }
        for (auto& [p, due] : model)
          BOOST_TEST_REQUIRE(due > now,
              "seed " << seed << ": entry due at " << due
                      << " is at or before the wheel's position " << now);
      }
      }
      BOOST_TEST_REQUIRE(w.size() == model.size(), "seed " << seed << ": size");
    }
    BOOST_TEST(rewinds > 0u);
    tick_type last = now;
    for (auto& [p, due] : model)
      last = (std::max)(last, due);
    for (test_entry* x : advance(w, last))
      BOOST_TEST_REQUIRE(
          model.erase(x) == 1u, "seed " << seed << ": expired twice");
    BOOST_TEST(model.empty());
    BOOST_TEST(w.empty());
  }
}

// ---------------------------------------------------------------------------------------------
// The levels above level 0 (scheme 7)

// Entries armed at different times with timeouts from a tick to beyond the top level's reach:
// each is touched (cascaded, revisited, re-filed or expired) at most once per level plus once,
// expires exactly at its due tick, and the wheel is walked in steps as the reactor would.
BOOST_AUTO_TEST_CASE(long_timeouts_are_touched_at_most_once_per_level)
{
  constexpr std::size_t slots = 16;
  constexpr std::size_t n = 2000;
  std::vector<test_entry> entries(n);  // declared before the wheel: outlives it
  timing_wheel w(slots);
  std::mt19937_64 rng(7);
  // The top level's reach: slots * 64^3 ticks.
  const tick_type reach = static_cast<tick_type>(slots) << (3 * 6);
  tick_type now = 0;
  std::size_t next = 0;
  std::size_t expired = 0;
  while (expired < n)
  {
    // A few arrivals per step, their timeouts spread over 1 tick .. 1/4 of the reach.
    for (int k = 0; k < 3 && next < n; ++k, ++next)
      insert(w, entries[next],
          now + 1 + static_cast<tick_type>(rng() % (reach / 4)));
    const tick_type to =
        next < n ? now + 1 + static_cast<tick_type>(rng() % 64) : w.next_due();
    for (test_entry* e : advance(w, to))
    {
      BOOST_TEST_REQUIRE(e->due <= to, "expired early");
      BOOST_TEST_REQUIRE(e->due > now,
          "expired late: due " << e->due << ", walked " << now << " to " << to);
      ++expired;
    }
    now = to;
  }
  const std::uint64_t touches =
      w.cascades() + w.round_revisits() + w.lazy_refilings() + n;
  BOOST_TEST(touches <= n * (timing_wheel::upper_levels + 1),
      touches << " touches for " << n << " entries");
  BOOST_TEST(
      w.round_revisits() == 0u, "no entry lies beyond the top level's reach");
  BOOST_TEST(w.cascades() > 0u);
}

// A wait beyond the top level's reach waits in its top-level slot until its own block comes:
// no visit before (the slot's minimum names the block), one cascade per level after.
BOOST_AUTO_TEST_CASE(wait_beyond_the_top_level_is_not_visited_before_its_block)
{
  constexpr std::size_t slots = 8;
  test_entry far, near;
  timing_wheel w(slots);
  const tick_type top_revolution = static_cast<tick_type>(slots) << (3 * 6);
  insert(w, far, 5 * top_revolution + 3);
  insert(w, near, 9);
  BOOST_TEST(w.next_due() == 9);
  advance(w, 9);
  BOOST_TEST(near.expired == 1);
  BOOST_TEST(
      w.next_due() == far.due, "next_due is far's own tick, the slot minimum");
  advance(w, 5 * top_revolution + 2);
  BOOST_TEST(far.expired == 0);
  BOOST_TEST(w.round_revisits() == 0u);
  BOOST_TEST(w.cascades() <= 3u);
  BOOST_TEST(advance(w, 5 * top_revolution + 3).size() == 1u);
  BOOST_TEST(far.expired == 1);
}

// A cascade of many entries is sliced like a storm of expiries: a visit budget bounds each
// step, nothing is lost or expires twice, and entries erased or added meanwhile are handled.
BOOST_AUTO_TEST_CASE(a_cascade_is_processed_in_slices)
{
  constexpr std::size_t n = 1000;
  std::vector<test_entry> entries(n);
  test_entry added;
  timing_wheel w(8);
  for (std::size_t i = 0; i < n; ++i)
    insert(w, entries[i],
        16 + static_cast<tick_type>(i % 8));  // one level-1 slot: block 16-23
  std::size_t expired = 0;
  std::size_t steps = 0;
  for (; w.advancing() || w.horizon() < 24; ++steps)
  {
    expired += advance_some(w, 24, 10).size();
    if (steps == 5)
    {
      w.erase(
          entries[n - 1]);  // still in the detached slot or already moved down
      insert(w, added, w.horizon() + 1);
    }
    BOOST_TEST_REQUIRE(steps < 1000u);
  }
  BOOST_TEST(steps > 100u,
      "the cascade and the expiries were not sliced: " << steps << " steps");
  expired += advance(w, added.due).size();
  BOOST_TEST(expired == n);  // n - 1 entries and `added`
  BOOST_TEST(added.expired == 1);
  for (std::size_t i = 0; i + 1 < n; ++i)
    BOOST_TEST_REQUIRE(entries[i].expired == 1);
  BOOST_TEST(entries[n - 1].expired == 0);
  BOOST_TEST(w.empty());
}

// An entry's level and tick name its slot: erasing one from any level leaves the occupancy
// right, so that next_due() and the walk skip the emptied slot.
BOOST_AUTO_TEST_CASE(erase_from_an_upper_level_empties_its_slot)
{
  test_entry a, b;
  timing_wheel w(8);
  insert(w, a, 100);  // level 1 or 2
  insert(w, b, 100000);  // further up
  BOOST_TEST(w.next_due() == 100);
  w.erase(a);
  BOOST_TEST(w.next_due() > 100);
  w.erase(b);
  BOOST_TEST(w.next_due() == never_tick);
  BOOST_TEST(advance(w, 200000).empty());
  BOOST_TEST(w.round_revisits() == 0u);
  BOOST_TEST(w.cascades() == 0u);
}

// An entry filed later than its due tick (a timer's extension moved earlier after the walk had
// filed the entry for a later one: the wheel's one exception to "filed at or before due") that
// sits in an upper level is due before the block its slot begins: it expires when that block
// begins, the first time the wheel looks at it, instead of being filed into a tick already
// passed (which would lose it for a revolution).
BOOST_AUTO_TEST_CASE(
    an_entry_due_before_its_upper_block_expires_when_the_block_begins)
{
  test_entry e;
  timing_wheel w(8);
  insert(w, e, 20);  // level 1, the block of ticks 16-23
  e.due = 11;  // now due before that block
  BOOST_TEST(advance(w, 15).empty(), "expired before the wheel looked at it");
  const auto expired = advance(w, 16);
  BOOST_TEST_REQUIRE(expired.size() == 1u,
      "not expired when its block began: filed into a passed tick");
  BOOST_TEST(e.expired == 1);
  BOOST_TEST(w.empty());
  BOOST_TEST(w.cascades() == 0u);
  BOOST_TEST(advance(w, 40).empty());
}
