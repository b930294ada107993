//
// src/timing_wheel.cpp
//
// The non-template part of detail::timing_wheel: filing, removal, the
// occupancy bitmap and the search for the earliest due tick.
//

#include <asio_wheel/detail/timing_wheel.hpp>

#include <cassert>

ASIO_WHEEL_NAMESPACE_BEGIN
namespace detail {

namespace {

constexpr std::size_t word_bits = 64;

std::size_t words_for(std::size_t bits)
{
  return (bits + word_bits - 1) / word_bits;
}

// Index of the lowest set bit of a non-zero word.
unsigned lowest_bit(std::uint64_t w)
{
  return static_cast<unsigned>(__builtin_ctzll(w));
}

} // namespace

timing_wheel::timing_wheel(std::size_t slots)
  : slots_(new slot[slots]),
    mask_(slots - 1),
    occupied_(words_for(slots)),
    summary_(words_for(words_for(slots)))
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

void timing_wheel::erase(wheel_entry& e) noexcept
{
  assert(e.in_wheel());
  const std::size_t s = static_cast<std::size_t>(e.filed_tick) & mask_;
  slot& sl = slots_[s];
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
    mark_empty(s);
  }
}

void timing_wheel::rewind(tick_type to) noexcept
{
  while (!detached_.empty())
  {
    wheel_entry& e = detached_.front();
    detached_.pop_front();
    file(e, e.filed_tick);
  }
  advancing_ = false;
  current_ = (std::min)(current_, to);
}

void timing_wheel::file(wheel_entry& e, tick_type due) noexcept
{
  const std::size_t s = static_cast<std::size_t>(due) & mask_;
  slot& sl = slots_[s];
  e.filed_tick = due;
  sl.entries.push_back(e);
  if (due < sl.min_filed)
    sl.min_filed = due;
  mark_occupied(s);
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

std::size_t timing_wheel::next_occupied(std::size_t from) const noexcept
{
  if (from > mask_)
    return npos;
  std::size_t w = from / word_bits;
  const std::uint64_t first = occupied_[w] & (~std::uint64_t(0) << (from % word_bits));
  if (first != 0)
    return w * word_bits + lowest_bit(first);

  // Find the next non-empty word through the summary level.
  std::size_t next_word = w + 1;
  for (std::size_t sw = next_word / word_bits; sw < summary_.size(); ++sw)
  {
    std::uint64_t bits = summary_[sw];
    if (sw == next_word / word_bits && next_word % word_bits != 0)
      bits &= ~std::uint64_t(0) << (next_word % word_bits);
    if (bits != 0)
    {
      w = sw * word_bits + lowest_bit(bits);
      return w * word_bits + lowest_bit(occupied_[w]);
    }
  }
  return npos;
}

tick_type timing_wheel::next_slot_of_pass() noexcept
{
  while (position_ <= pass_end_)
  {
    const std::size_t start = static_cast<std::size_t>(position_) & mask_;
    std::size_t s = next_occupied(start);
    tick_type t;
    if (s != npos)
      t = position_ + static_cast<tick_type>(s - start);
    else
    {
      s = next_occupied(0);
      if (s == npos)
        break;
      t = position_ + static_cast<tick_type>(mask_ + 1 - start + s);
    }
    if (t > pass_end_)
      break;
    if (slots_[s].min_filed <= target_)
      return t;
    position_ = t + 1;  // only later rounds here: skipped, not visited
  }
  position_ = pass_end_ + 1;
  return never_tick;
}

tick_type timing_wheel::next_due() const noexcept
{
  if (size_ == 0)
    return never_tick;

  // Slots in tick order from current_ + 1, one revolution. The slot at
  // distance d holds ticks current_ + 1 + d + k * slots; if its minimum is
  // the first of those, nothing in any later slot can be earlier. Otherwise
  // keep the smallest minimum seen (entries of later rounds).
  const tick_type base = current_ + 1;
  const std::size_t start = static_cast<std::size_t>(base) & mask_;
  tick_type best = never_tick;
  auto consider = [&](std::size_t s) {
    const tick_type position = base + static_cast<tick_type>((s - start) & mask_);
    const tick_type m = slots_[s].min_filed;
    if (m < best)
      best = m;
    return m <= position;
  };
  for (std::size_t s = next_occupied(start); s != npos;
      s = s < mask_ ? next_occupied(s + 1) : npos)
    if (consider(s))
      return best;
  for (std::size_t s = next_occupied(0); s != npos && s < start;
      s = next_occupied(s + 1))
    if (consider(s))
      return best;
  return best;
}

} // namespace detail
ASIO_WHEEL_NAMESPACE_END
