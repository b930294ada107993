//
// asio_wheel/detail/timing_wheel.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The hierarchical timing wheel (Varghese & Lauck, scheme 7, with scheme 6's
// round counters on its top level) as a plain data structure over integer
// ticks: no clock, no Asio, no handlers. wheel_timer_service converts time
// points to ticks and drives it.
//
// Level 0 is the hashed wheel of `slots` slots of one tick: an entry due
// within `slots` ticks of the wheel's position lives in slot due & (slots-1).
// Above it are upper_levels levels of 64 slots, each slot as wide as the
// whole level below (with the default 4096 slots of 1 ms: 4.1 s, 4.4 min and
// 4.7 h a slot, 12.4 days a revolution of the top level). An entry further
// away sits in the slot of the lowest level whose 64 slots reach its tick;
// when the wheel's position reaches the start of that slot's block, the
// slot's entries move down (a cascade) to where their tick now fits. So an
// entry is touched at most once per level between its arm and its expiry,
// however long its timeout. Beyond the top level's reach, an entry waits in
// its top-level slot and is skipped (its round, as in scheme 6) until its
// block comes: a visit once per 12 days.
//
// Each slot keeps the smallest tick filed in it, and occupancy bitmaps (with
// a summary level for level 0) find the next occupied slot without walking
// empty ones, so the earliest due tick is found by looking at occupied slots
// only, and a slot is walked only when something in it is due or its block
// begins.
//
// Lazy re-filing: an entry whose due tick moved later stays where it was
// filed. When its slot is walked, advance() asks for its real due tick and
// moves it then (a cascade does the same). Moving an expiry later is
// therefore a plain store.
//
// Bounded advancing: advance() can stop after a number of visited entries
// and resume later, so that a storm of expiries (100,000 waits due in the
// same tick), and a cascade of as many, is processed in slices between which
// the event loop does other work. A slot being processed is detached whole
// (O(1)); each of its entries is visited once per pass, however often the
// pass is interrupted.
//

#ifndef ASIO_WHEEL_DETAIL_TIMING_WHEEL_HPP
#define ASIO_WHEEL_DETAIL_TIMING_WHEEL_HPP

#include <asio_wheel/detail/bits.hpp>
#include <asio_wheel/detail/config.hpp>

#include <boost/config.hpp>
#include <boost/intrusive/list.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

ASIO_WHEEL_NAMESPACE_BEGIN
namespace detail {

/// Ticks since the service's origin. Signed: a clock that is not steady can
/// step back to before the origin.
using tick_type = std::int64_t;

/// A tick that is never reached (time_point::max() and beyond).
inline constexpr tick_type never_tick = (std::numeric_limits<tick_type>::max)();

/// The ticks the wheel files lie in [-max_tick, max_tick]; an entry due at
/// or after max_tick (never_tick) is filed at max_tick, which the wheel never
/// reaches. 2^59 ticks: 18 years of 1 ns ticks, 18 million years of 1 ms
/// ticks.
inline constexpr tick_type max_tick = (tick_type(1) << 59) - 1;

/// The wheel's per-timer state, embedded in the timer (intrusive): filing,
/// re-filing and removing an entry allocate nothing. Where it is filed (its
/// tick and level) is packed into one word, so that the hierarchy costs a
/// timer no memory.
struct wheel_entry
{
  using hook_type = boost::intrusive::list_member_hook<
      boost::intrusive::link_mode<boost::intrusive::safe_link>>;

  hook_type hook;

  /// The tick the entry is filed under. Never later than the entry's real
  /// due tick; earlier after a lazy move.
  tick_type filed_tick() const noexcept
  {
    // Arithmetic shift: the tick is signed.
    return static_cast<tick_type>(place_) >> level_bits;
  }

  bool in_wheel() const noexcept { return hook.is_linked(); }

  /// Takes over @p other's place in the wheel (the timer's move).
  void take_place_of(wheel_entry& other) noexcept
  {
    place_ = other.place_;
    hook.swap_nodes(other.hook);
  }

private:
  friend class timing_wheel;

  static constexpr unsigned level_bits = 3;

  unsigned level() const noexcept
  {
    return static_cast<unsigned>(place_ & ((1u << level_bits) - 1));
  }

  void set_place(tick_type tick, unsigned level) noexcept
  {
    place_ = (static_cast<std::uint64_t>(tick) << level_bits) | level;
  }

  std::uint64_t place_ = 0;  // filed tick << level_bits | level
};

class timing_wheel
{
public:
  /// Levels above level 0, and slots in each. 3 levels of 64 slots over
  /// 4096 slots of 1 ms reach 12.4 days; they add 4.6 KiB to the wheel.
  static constexpr unsigned upper_levels = 3;
  static constexpr std::size_t upper_slots = 64;

  /// @param slots Level 0's slots, a power of two (the caller validates and
  /// reports).
  ASIO_WHEEL_DECL explicit timing_wheel(std::size_t slots);

  timing_wheel(const timing_wheel&) = delete;
  timing_wheel& operator=(const timing_wheel&) = delete;
  ASIO_WHEEL_DECL ~timing_wheel();

  /// True while an advance() stopped by its visit budget is unfinished.
  bool advancing() const noexcept { return advancing_; }

  /// The tick up to which entries are (being) processed: a new entry due at
  /// or before it would be missed by the pass and is due already.
  tick_type horizon() const noexcept { return advancing_ ? target_ : current_; }

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }

  /// Files @p e at @p due. Requires !e.in_wheel() and due > horizon().
  ASIO_WHEEL_DECL void insert(wheel_entry& e, tick_type due) noexcept;

  /// An intrusive list of entries (the wheel's slots are such lists): for
  /// a caller that collects the entries advance() expires.
  using entry_list = boost::intrusive::list<wheel_entry,
      boost::intrusive::member_hook<wheel_entry, wheel_entry::hook_type,
          &wheel_entry::hook>,
      boost::intrusive::constant_time_size<false>>;

  /// Files @p e as due already, whatever its tick: take_due() expires it.
  /// For a wait whose expiry has been reached when it starts, which must
  /// complete at the next turn of the event loop, not at the next tick.
  /// Requires !e.in_wheel().
  ASIO_WHEEL_DECL void insert_due(wheel_entry& e) noexcept;

  /// True if entries filed with insert_due() wait for take_due().
  bool has_due() const noexcept { return !due_.empty(); }

  /// Whether @p e, which is in the wheel, was filed with insert_due().
  static bool filed_due(const wheel_entry& e) noexcept
  {
    return e.level() == due_level;
  }

  /// Unlinks every entry filed with insert_due(), oldest first, calling
  /// `expire(entry)` for each.
  template <typename Expire>
  void take_due(Expire&& expire)
  {
    while (!due_.empty())
    {
      wheel_entry& e = due_.front();
      due_.pop_front();
      --size_;
      expire(e);
    }
  }

  /// Removes @p e, from a slot or from the entries due already. Requires
  /// e.in_wheel().
  ASIO_WHEEL_DECL void erase(wheel_entry& e) noexcept;

  /// A tick at or before the earliest filed tick (the earliest itself unless
  /// erasures left a slot's minimum behind, or the earliest entry waits in
  /// an upper level whose block starts later), always after horizon(); or
  /// never_tick when nothing is filed short of max_tick. The reactor's
  /// deadline: advancing to it processes something or refreshes a stale
  /// minimum.
  tick_type next_due() const noexcept
  {
    // Every filed tick lies after current_ (no advance is in progress), so
    // nothing is skipped: the earliest filed tick, or a slot minimum before
    // it.
    return next_due_after(current_);
  }

  /// As next_due(), for the entries filed after @p after: a tick after
  /// @p after at or before the earliest of them, or never_tick if there is
  /// none or the wheel cannot tell. It cannot when a slot's minimum is at
  /// or before @p after (the ticks of its later entries are not known) and
  /// nothing is certain to come before that slot's next tick: an upper
  /// slot whose block begins by @p after, or the level-0 slot of @p after
  /// when nothing else is due within a revolution.
  tick_type next_due_after(tick_type after) const noexcept
  {
    return search_due_after(after);
  }

  /// Processes all ticks up to and including @p to. For each entry filed at
  /// or before @p to in level 0, `due_of(entry)` gives its real due tick: if
  /// that is at or before @p to the entry is unlinked and `expire(entry)` is
  /// called, otherwise it is re-filed at that tick. An upper-level slot whose
  /// block begins at or before @p to moves its entries down, to their real
  /// due tick; one due at the block's first tick expires there. Stops after
  /// visiting about @p max_visits entries, leaving advancing() true; a later
  /// call (with the same or a later @p to) resumes.
  template <typename DueOf, typename Expire>
  void advance(tick_type to, DueOf&& due_of, Expire&& expire,
      std::size_t max_visits = (std::numeric_limits<std::size_t>::max)())
  {
    advance(
        to, due_of, expire, [](entry_list&) {}, max_visits);
  }

  /// The same, with `order(list)` called for each level-0 slot as it is
  /// taken out to be walked: the entries are visited in the order it leaves
  /// them in (its caller's order within a tick, the expiries'), once each.
  template <typename DueOf, typename Expire, typename Order>
  void advance(tick_type to, DueOf&& due_of, Expire&& expire, Order&& order,
      std::size_t max_visits);

  /// Moves the wheel back to tick @p to, for a clock that stepped back
  /// behind horizon(): afterwards horizon() <= @p to, so an entry due after
  /// @p to can be inserted. A pass of advance() in progress is abandoned
  /// (the rest of its detached slot goes back to its slot, undecided): its
  /// target may lie beyond the clock now. Entries keep their ticks and
  /// slots; every one is filed after the new horizon, because none was
  /// filed at or before the old one, and a slot it now shares with later
  /// blocks than its own is walked at its own block (the slot's minimum
  /// says which). O(1) but for that slot.
  ASIO_WHEEL_DECL void rewind(tick_type to) noexcept;

  /// Counters since construction.
  std::uint64_t lazy_refilings() const noexcept { return lazy_refilings_; }
  std::uint64_t round_revisits() const noexcept { return round_revisits_; }
  std::uint64_t cascades() const noexcept { return cascades_; }

  /// Unlinks every entry, calling `f(entry)` for each (used at shutdown).
  template <typename F>
  void clear(F&& f);

private:
  using slot_list = entry_list;

  struct slot
  {
    slot_list entries;
    tick_type min_filed = never_tick;
  };

  static constexpr std::size_t npos = (std::numeric_limits<std::size_t>::max)();
  // The level an entry filed with insert_due() is marked with.
  static constexpr unsigned due_level = (1u << wheel_entry::level_bits) - 1;
  static constexpr unsigned upper_bits = 6;  // log2(upper_slots)
  static constexpr std::size_t word_bits = 64;  // of the occupancy bitmaps

  // Bitmap words that hold `bits` bits, and log2 of a power of two.
  static std::size_t words_for(std::size_t bits) noexcept
  {
    return (bits + word_bits - 1) / word_bits;
  }
  static unsigned log2_of(std::size_t power_of_two) noexcept
  {
    unsigned n = 0;
    while ((std::size_t(1) << n) < power_of_two)
      ++n;
    return n;
  }

  // Where an entry due at `due` goes, relative to the wheel's position.
  ASIO_WHEEL_DECL void file(wheel_entry& e, tick_type due) noexcept;
  // Links e into the slot its place names.
  ASIO_WHEEL_DECL void link(wheel_entry& e) noexcept;
  ASIO_WHEEL_DECL slot& slot_of(unsigned level, tick_type tick) noexcept;
  // The ticks below which everything is processed, at every level, and at
  // position_ the levels above cursor_: entries are filed relative to it.
  tick_type reference() const noexcept
  {
    return advancing_ ? position_ : current_;
  }
  // log2 of the width of a slot of `level` (1 .. upper_levels), in ticks.
  unsigned shift_of(unsigned level) const noexcept
  {
    return level0_bits_ + upper_bits * (level - 1);
  }
  // The slot of `tick` in upper level `level`, and its occupancy bit.
  std::size_t upper_index(unsigned level, tick_type tick) const noexcept
  {
    return static_cast<std::size_t>(tick >> shift_of(level))
        & (upper_slots - 1);
  }
  void mark_upper_empty(unsigned level, tick_type tick) noexcept
  {
    upper_occupied_[level - 1] &=
        ~(std::uint64_t(1) << upper_index(level, tick));
  }

  ASIO_WHEEL_DECL void mark_occupied(std::size_t s) noexcept;
  ASIO_WHEEL_DECL void mark_empty(std::size_t s) noexcept;
  // The first occupied level-0 slot in [from, slots), or npos. Inline for
  // the usual answer, in from's own bitmap word; the summary level finds
  // the others.
  BOOST_FORCEINLINE std::size_t next_occupied(std::size_t from) const noexcept
  {
    if (from > mask_)
      return npos;
    const std::size_t w = from / word_bits;
    const std::uint64_t first =
        occupied_[w] & (~std::uint64_t(0) << (from % word_bits));
    if (first != 0)
      return w * word_bits + lowest_bit(first);
    return next_occupied_word(w + 1);
  }
  // The first occupied level-0 slot in the bitmap words from w on, or npos.
  ASIO_WHEEL_DECL std::size_t next_occupied_word(std::size_t w) const noexcept;

  // The earliest slot the pass must walk next, at position_ (the levels at
  // or below cursor_) or later, and at or before target_: false if none.
  ASIO_WHEEL_DECL bool next_slot(tick_type& tick, unsigned& level) noexcept;

  // next_due_after, by a search of every level.
  ASIO_WHEEL_DECL tick_type search_due_after(tick_type after) const noexcept;
  // The first tick at or after `from` at which the pass must walk an upper
  // level's slot: where the block of the slot's earliest entry begins.
  ASIO_WHEEL_DECL tick_type upper_walk_tick(
      unsigned level, tick_type first_block) const noexcept;
  // The start of the block, at its level, of the earliest minimum of any
  // occupied upper slot (never_tick if none): recomputes upper_floor_.
  ASIO_WHEEL_DECL tick_type upper_floor_of_slots() const noexcept;

  std::unique_ptr<slot[]> slots_;  // level 0
  std::size_t mask_;
  unsigned level0_bits_;  // log2(slots)
  std::vector<std::uint64_t> occupied_;  // one bit a level-0 slot
  std::vector<std::uint64_t> summary_;  // one bit a word of occupied_
  slot upper_[upper_levels][upper_slots];  // levels 1 .. upper_levels
  slot_list due_;  // filed with insert_due()
  std::uint64_t upper_occupied_[upper_levels] = {};
  // At or before the start of the block, at its level, of every occupied
  // upper slot's minimum; so no upper slot is walked, nor holds a tick,
  // before it. link() lowers it; next_slot() raises it by a scan
  // only when it falls within a pass. Both searches skip the upper levels
  // while it lies beyond what they look for: most wakeups then look at
  // level 0 only.
  tick_type upper_floor_ = never_tick;
  std::size_t size_ = 0;
  tick_type current_ = 0;

  // The pass of advance() in progress: at tick position_, the slots of the
  // levels above cursor_ are walked; entries filed up to target_ are due;
  // detached_ holds the rest of the slot being walked, of detached_level_.
  bool advancing_ = false;
  tick_type target_ = 0;
  tick_type position_ = 0;
  unsigned cursor_ = upper_levels;
  tick_type next_target_ = 0;  // a later `to` given during the pass
  slot_list detached_;
  unsigned detached_level_ = 0;
  std::uint64_t lazy_refilings_ = 0;
  std::uint64_t round_revisits_ = 0;
  std::uint64_t cascades_ = 0;
};

template <typename DueOf, typename Expire, typename Order>
void timing_wheel::advance(tick_type to, DueOf&& due_of, Expire&& expire,
    Order&& order, std::size_t max_visits)
{
  std::size_t visits = 0;
  to = (std::min)(to, max_tick - 1);  // max_tick and beyond are never reached
  if (advancing_)
  {
    if (to > next_target_)
      next_target_ = to;
  }
  else
  {
    if (to <= current_)
      return;
    next_target_ = to;
  }

  for (;;)
  {
    if (!advancing_)
    {
      if (next_target_ <= current_)
        return;
      // A new pass over ticks current_ + 1 .. next_target_.
      advancing_ = true;
      target_ = next_target_;
      position_ = current_ + 1;
      cursor_ = upper_levels;
    }

    // Finish the detached slot, one entry at a time.
    while (!detached_.empty())
    {
      if (visits >= max_visits)
        return;
      ++visits;
      wheel_entry& e = detached_.front();
      detached_.pop_front();
      const tick_type filed = e.filed_tick();
      if (detached_level_ != 0)
      {
        // position_ is the start of the block whose slot this was.
        if (filed >= position_ + (tick_type(1) << shift_of(detached_level_)))
        {
          ++round_revisits_;  // a later block of the same slot
          file(e, filed);
        }
        else
        {
          const tick_type due = due_of(static_cast<const wheel_entry&>(e));
          if (due <= position_)
          {
            // Due at the block's first tick (a tick a tolerance chose, see
            // coalesced_tick): it expires from here, without moving down.
            // Or before it: an entry filed later than its due tick, which
            // only a timer's extension moved earlier after the entry had
            // been filed for a later one can be (wheel_timer_service.hpp);
            // filing it at a tick already passed would lose it for a
            // revolution.
            --size_;
            expire(e);
          }
          else
          {
            ++cascades_;  // down to where its real due tick fits now
            file(e, due);
          }
        }
        continue;
      }
      if (filed > target_)
      {
        ++round_revisits_;
        file(e, filed);  // back into its slot, a later round
        continue;
      }
      const tick_type due = due_of(static_cast<const wheel_entry&>(e));
      if (due <= target_)
      {
        --size_;
        expire(e);
      }
      else
      {
        ++lazy_refilings_;
        file(e, due);
      }
    }

    tick_type t;
    unsigned level;
    if (!next_slot(t, level))
    {
      current_ = target_;
      advancing_ = false;
      continue;  // another pass if a later `to` came meanwhile
    }
    if (visits >= max_visits)
      return;
    slot& sl = slot_of(level, t);
    detached_.splice(detached_.end(), sl.entries);  // detached_ is empty
    sl.min_filed = never_tick;
    detached_level_ = level;
    if (level == 0)
    {
      mark_empty(static_cast<std::size_t>(t) & mask_);
      position_ = t + 1;
      cursor_ = upper_levels;
      order(detached_);
    }
    else
    {
      mark_upper_empty(level, t);
      position_ = t;
      cursor_ = level - 1;
    }
  }
}

template <typename F>
void timing_wheel::clear(F&& f)
{
  auto drain = [&](slot_list& entries) {
    while (!entries.empty())
    {
      wheel_entry& e = entries.front();
      entries.pop_front();
      --size_;
      f(e);
    }
  };
  drain(detached_);
  drain(due_);
  advancing_ = false;
  current_ = (std::max)(current_, target_);
  for (std::size_t s = next_occupied(0); s != npos;
       s = s < mask_ ? next_occupied(s + 1) : npos)
  {
    drain(slots_[s].entries);
    slots_[s].min_filed = never_tick;
    mark_empty(s);
  }
  for (unsigned l = 0; l < upper_levels; ++l)
  {
    for (slot& sl : upper_[l])
    {
      drain(sl.entries);
      sl.min_filed = never_tick;
    }
    upper_occupied_[l] = 0;
  }
}

}  // namespace detail
ASIO_WHEEL_NAMESPACE_END

#if !defined(ASIO_WHEEL_SEPARATE_COMPILATION)
# include <asio_wheel/detail/impl/timing_wheel.ipp>
#endif

#endif  // ASIO_WHEEL_DETAIL_TIMING_WHEEL_HPP
