//
// asio_wheel/detail/impl/timing_wheel.ipp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The non-template part of detail::timing_wheel: filing (which level, which
// slot), removal, the occupancy bitmaps, the search for the next slot a pass
// walks and for the earliest due tick. Included at the end of
// timing_wheel.hpp (header-only, the default), or compiled once through
// asio_wheel/src.hpp (ASIO_WHEEL_SEPARATE_COMPILATION): the declarations'
// ASIO_WHEEL_DECL makes these definitions inline in the first case.
//

#ifndef ASIO_WHEEL_DETAIL_IMPL_TIMING_WHEEL_IPP
#define ASIO_WHEEL_DETAIL_IMPL_TIMING_WHEEL_IPP

#include <asio_wheel/detail/timing_wheel.hpp>

#include <asio_wheel/detail/bits.hpp>

#include <cassert>

ASIO_WHEEL_NAMESPACE_BEGIN
namespace detail {

timing_wheel::timing_wheel(std::size_t slots)
  : slots_(new slot[slots]), mask_(slots - 1), level0_bits_(log2_of(slots)),
    occupied_(words_for(slots)), summary_(words_for(words_for(slots)))
{
  assert(slots != 0 && (slots & (slots - 1)) == 0);
}

timing_wheel::~timing_wheel()
{
  // Leave entries safely unlinked: their owners may outlive the wheel.
  clear([](wheel_entry&) {});
}

void timing_wheel::insert(wheel_entry& e, tick_type due) noexcept
{
  assert(!e.in_wheel());
  assert(due > horizon());
  file(e, due);
  ++size_;
}

timing_wheel::slot& timing_wheel::slot_of(
    unsigned level, tick_type tick) noexcept
{
  if (level == 0)
    return slots_[static_cast<std::size_t>(tick) & mask_];
  return upper_[level - 1][upper_index(level, tick)];
}

void timing_wheel::insert_due(wheel_entry& e) noexcept
{
  assert(!e.in_wheel());
  e.set_place(current_, due_level);
  due_.push_back(e);
  ++size_;
}

void timing_wheel::erase(wheel_entry& e) noexcept
{
  assert(e.in_wheel());
  const unsigned level = e.level();
  if (level == due_level)
  {
    due_.erase(due_.iterator_to(e));
    --size_;
    return;
  }
  const tick_type tick = e.filed_tick();
  slot& sl = slot_of(level, tick);
  // Unlinks e from whichever list holds it: its slot, or detached_ while a
  // bounded advance is processing that slot.
  slot_list::node_algorithms::unlink(slot_list::value_traits::to_node_ptr(e));
  slot_list::node_algorithms::init(slot_list::value_traits::to_node_ptr(e));
  --size_;
  // The slot's minimum is left as it is (a conservative early bound) unless
  // the slot empties: recomputing it would walk the slot on every cancel.
  if (sl.entries.empty())
  {
    sl.min_filed = never_tick;
    if (level == 0)
      mark_empty(static_cast<std::size_t>(tick) & mask_);
    else
      mark_upper_empty(level, tick);
  }
}

void timing_wheel::file(wheel_entry& e, tick_type due) noexcept
{
  const tick_type tick = (std::min)(due, max_tick);
  const tick_type ref = reference();
  // Level 0 takes the next `slots` ticks. Level l takes the blocks (its
  // slots' spans) after the reference's own, up to 64 of them: a tick in
  // the reference's block at level l fits level l - 1, whose 64 slots span
  // that block. The top level takes the rest, later rounds included.
  unsigned level = 0;
  if (tick - ref >= static_cast<tick_type>(mask_ + 1))
  {
    level = 1;
    while (level < upper_levels
        && (tick >> shift_of(level)) - (ref >> shift_of(level))
            >= static_cast<tick_type>(upper_slots))
      ++level;
  }
  e.set_place(tick, level);
  link(e);
}

void timing_wheel::link(wheel_entry& e) noexcept
{
  const unsigned level = e.level();
  const tick_type tick = e.filed_tick();
  slot& sl = slot_of(level, tick);
  sl.entries.push_back(e);
  if (tick < sl.min_filed)
    sl.min_filed = tick;
  if (level == 0)
    mark_occupied(static_cast<std::size_t>(tick) & mask_);
  else
  {
    upper_occupied_[level - 1] |= std::uint64_t(1) << upper_index(level, tick);
    const unsigned shift = shift_of(level);
    upper_floor_ =
        (std::min)(upper_floor_, (tick >> shift) * (tick_type(1) << shift));
  }
}

void timing_wheel::rewind(tick_type to) noexcept
{
  while (!detached_.empty())
  {
    wheel_entry& e = detached_.front();
    detached_.pop_front();
    link(e);  // back into its own slot
  }
  advancing_ = false;
  current_ = (std::min)(current_, to);
}

void timing_wheel::mark_occupied(std::size_t s) noexcept
{
  const std::size_t w = s / word_bits;
  occupied_[w] |= std::uint64_t(1) << (s % word_bits);
  summary_[w / word_bits] |= std::uint64_t(1) << (w % word_bits);
}

void timing_wheel::mark_empty(std::size_t s) noexcept
{
  const std::size_t w = s / word_bits;
  occupied_[w] &= ~(std::uint64_t(1) << (s % word_bits));
  if (occupied_[w] == 0)
    summary_[w / word_bits] &= ~(std::uint64_t(1) << (w % word_bits));
}

std::size_t timing_wheel::next_occupied_word(
    std::size_t next_word) const noexcept
{
  // Find the next non-empty word through the summary level.
  for (std::size_t sw = next_word / word_bits; sw < summary_.size(); ++sw)
  {
    std::uint64_t bits = summary_[sw];
    if (sw == next_word / word_bits && next_word % word_bits != 0)
      bits &= ~std::uint64_t(0) << (next_word % word_bits);
    if (bits != 0)
    {
      const std::size_t w = sw * word_bits + lowest_bit(bits);
      return w * word_bits + lowest_bit(occupied_[w]);
    }
  }
  return npos;
}

tick_type timing_wheel::upper_walk_tick(
    unsigned level, tick_type first_block) const noexcept
{
  // The slots in the order their blocks come from first_block on; a slot
  // is walked at the block of its earliest entry (its other blocks hold
  // nothing: every entry of slot i lies in a block congruent to i).
  const unsigned shift = shift_of(level);
  // Ticks may be negative: block starts are multiplied, not shifted, back.
  const tick_type width = tick_type(1) << shift;
  const std::uint64_t occupied = upper_occupied_[level - 1];
  const unsigned start = static_cast<unsigned>(first_block) & (upper_slots - 1);
  std::uint64_t bits = rotate_right(occupied, start);
  tick_type best = never_tick;
  while (bits != 0)
  {
    const unsigned d = lowest_bit(bits);
    bits &= bits - 1;
    const tick_type block_start = (first_block + d) * width;
    if (block_start >= best)
      break;  // later slots come later still
    const slot& sl = upper_[level - 1][(start + d) & (upper_slots - 1)];
    const tick_type own_block = (sl.min_filed >> shift) * width;
    const tick_type t = (std::max)(block_start, own_block);
    if (t < best)
      best = t;
  }
  return best;
}

tick_type timing_wheel::upper_floor_of_slots() const noexcept
{
  tick_type floor = never_tick;
  for (unsigned l = 1; l <= upper_levels; ++l)
  {
    const unsigned shift = shift_of(l);
    for (std::uint64_t bits = upper_occupied_[l - 1]; bits != 0;
         bits &= bits - 1)
    {
      const tick_type m = upper_[l - 1][lowest_bit(bits)].min_filed;
      floor = (std::min)(floor, (m >> shift) * (tick_type(1) << shift));
    }
  }
  return floor;
}

bool timing_wheel::next_slot(tick_type& tick, unsigned& level) noexcept
{
  tick_type best = never_tick;
  unsigned best_level = 0;
  // A slot is walked at the block of its minimum or later, so at
  // upper_floor_ or later: when that lies beyond the pass, no upper slot
  // needs a look.
  if (upper_floor_ <= target_)
    upper_floor_ = upper_floor_of_slots();
  for (unsigned l = upper_floor_ <= target_ ? upper_levels : 0; l >= 1; --l)
  {
    if (upper_occupied_[l - 1] == 0)
      continue;
    // Blocks that begin at position_ are still to walk at the levels at or
    // below cursor_; those above have walked them.
    const unsigned shift = shift_of(l);
    const tick_type first_block = l <= cursor_ ? ((position_ - 1) >> shift) + 1
                                               : (position_ >> shift) + 1;
    const tick_type t = upper_walk_tick(l, first_block);
    if (t < best)
    {
      best = t;
      best_level = l;
    }
  }

  // Level 0, one revolution from position_: the first slot whose minimum is
  // due in this pass; the others hold only later rounds and are skipped.
  tick_type pos = position_;
  const tick_type end = (std::min)(target_, best - 1);
  while (pos <= end)
  {
    const std::size_t start = static_cast<std::size_t>(pos) & mask_;
    std::size_t s = next_occupied(start);
    tick_type t;
    if (s != npos)
      t = pos + static_cast<tick_type>(s - start);
    else
    {
      s = next_occupied(0);
      if (s == npos)
        break;
      t = pos + static_cast<tick_type>(mask_ + 1 - start + s);
    }
    if (t > end || t >= position_ + static_cast<tick_type>(mask_ + 1))
      break;
    if (slots_[s].min_filed <= target_)
    {
      best = t;
      best_level = 0;
      break;
    }
    pos = t + 1;
  }

  if (best > target_)
    return false;
  tick = best;
  level = best_level;
  return true;
}

tick_type timing_wheel::search_due_after(tick_type after) const noexcept
{
  if (size_ == 0 || after >= max_tick)
    return never_tick;

  // Level 0: slots in tick order from after + 1, one revolution. The slot at
  // distance d holds ticks after + 1 + d + k * slots; if its minimum is the
  // first of those, nothing in any later slot can be earlier. Otherwise keep
  // the smallest minimum seen (later rounds, which only a rewind leaves in
  // level 0). A slot whose minimum is at or before `after` says nothing of
  // its later entries but that they lie at its ticks after `after`: from
  // there on, the answer is not known (`unknown`).
  const tick_type base = after + 1;
  const std::size_t start = static_cast<std::size_t>(base) & mask_;
  tick_type best = never_tick;
  tick_type unknown = never_tick;
  auto consider = [&](std::size_t s) {
    const tick_type position =
        base + static_cast<tick_type>((s - start) & mask_);
    const tick_type m = slots_[s].min_filed;
    if (m <= after)
    {
      unknown = (std::min)(unknown, position);
      return false;
    }
    if (m < best)
      best = m;
    return m <= position;
  };
  // (Written so that no slot is searched for after the answer is found.)
  bool found = false;
  for (std::size_t s = next_occupied(start); s != npos;
       s = s < mask_ ? next_occupied(s + 1) : npos)
    if ((found = consider(s)))
      break;
  if (!found)
    for (std::size_t s = next_occupied(0); s != npos && s < start;
         s = next_occupied(s + 1))
      if (consider(s))
        break;

  // Upper levels: a slot's entries are due no earlier than its minimum, nor
  // than the start of its next block (where the walk moves them down). A
  // slot bounded at or before `after` (a block that begins by then, whose
  // entries will move down to ticks not known yet) could hold any tick
  // after it. No slot's minimum, so no tick of theirs, lies before
  // upper_floor_: if that is not before `best` (which lies after `after`),
  // the upper levels change nothing.
  for (unsigned l = 1; l <= upper_levels && upper_floor_ < best; ++l)
  {
    const std::uint64_t occupied = upper_occupied_[l - 1];
    if (occupied == 0)
      continue;
    const unsigned shift = shift_of(l);
    const tick_type width = tick_type(1) << shift;
    const tick_type first_block = (current_ >> shift) + 1;
    const unsigned first_index =
        static_cast<unsigned>(first_block) & (upper_slots - 1);
    // The occupied slots in block order: bit j of `ahead` is the slot of
    // block first_block + j.
    const std::uint64_t ahead = first_index == 0
        ? occupied
        : (occupied >> first_index) | (occupied << (upper_slots - first_index));
    for (std::uint64_t bits = ahead; bits != 0; bits &= bits - 1)
    {
      const unsigned j = lowest_bit(bits);
      const tick_type block = first_block + static_cast<tick_type>(j);
      const tick_type m =
          upper_[l - 1][(first_index + j) & (upper_slots - 1)].min_filed;
      const tick_type t = (std::max)(block * width, m);
      if (t <= after)
        unknown = (std::min)(unknown, base);
      else if (t < best)
        best = t;
      // A minimum within its own block comes before every later block.
      if (m < (block + 1) * width)
        break;
    }
  }
  if (best > unknown || best >= max_tick)
    return never_tick;
  return best;
}

}  // namespace detail
ASIO_WHEEL_NAMESPACE_END

#endif  // ASIO_WHEEL_DETAIL_IMPL_TIMING_WHEEL_IPP
