//
// asio_wheel/detail/timing_wheel.hpp
//
// The hashed timing wheel with round counters (Varghese & Lauck, scheme 6) as
// a plain data structure over integer ticks: no clock, no Asio, no handlers.
// wheel_timer_service converts time points to ticks and drives it.
//
// An entry due at tick t lives in slot t & (slots - 1); entries due in a later
// revolution share the slot and carry their absolute due tick (the "round"
// is (due - now) / slots). Each slot keeps the smallest tick filed in it, and
// an occupancy bitmap with a summary level finds the next occupied slot
// without walking empty ones, so the earliest due tick is found by looking at
// occupied slots only, and a slot is walked only when something in it is due.
//
// Lazy re-filing: an entry whose due tick moved later stays where it was
// filed. When its old slot comes round, advance() asks for its real due tick
// and moves it then. Moving an expiry later is therefore a plain store.
//

#ifndef ASIO_WHEEL_DETAIL_TIMING_WHEEL_HPP
#define ASIO_WHEEL_DETAIL_TIMING_WHEEL_HPP

#include <boost/intrusive/list.hpp>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

namespace asio_wheel {
namespace detail {

/// Ticks since the service's origin. Signed so that arithmetic near zero is
/// plain; the far end is capped at never_tick.
using tick_type = std::int64_t;

/// A tick that is never reached (time_point::max() and beyond).
inline constexpr tick_type never_tick = (std::numeric_limits<tick_type>::max)();

/// The wheel's per-timer state, embedded in the timer (intrusive): filing,
/// re-filing and removing an entry allocate nothing.
struct wheel_entry
{
  using hook_type = boost::intrusive::list_member_hook<
      boost::intrusive::link_mode<boost::intrusive::safe_link>>;

  hook_type hook;

  /// The tick of the slot the entry is filed under. Never later than the
  /// entry's real due tick; earlier after a lazy move.
  tick_type filed_tick = 0;

  bool in_wheel() const noexcept { return hook.is_linked(); }
};

class timing_wheel
{
public:
  /// @param slots A power of two (the caller validates and reports).
  explicit timing_wheel(std::size_t slots);

  timing_wheel(const timing_wheel&) = delete;
  timing_wheel& operator=(const timing_wheel&) = delete;
  ~timing_wheel();

  std::size_t slot_count() const noexcept { return mask_ + 1; }

  /// Every entry filed at or before this tick has been processed.
  tick_type current_tick() const noexcept { return current_; }

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }

  /// Files @p e at @p due. Requires !e.in_wheel() and due > current_tick().
  void insert(wheel_entry& e, tick_type due) noexcept;

  /// Removes @p e. Requires e.in_wheel().
  void erase(wheel_entry& e) noexcept;

  /// The smallest filed tick, or never_tick when empty. After erasures it may
  /// be earlier than the earliest real entry (a slot's minimum is refreshed
  /// when the slot is walked), never later.
  tick_type next_due() const noexcept;

  /// Processes all ticks up to and including @p to. For each entry filed at
  /// or before @p to, `due_of(entry)` gives its real due tick: if that is at
  /// or before @p to the entry is unlinked and `expire(entry)` is called,
  /// otherwise it is re-filed at that tick. Returns the number expired.
  template <typename DueOf, typename Expire>
  std::size_t advance(tick_type to, DueOf&& due_of, Expire&& expire);

  /// Counters since construction.
  std::uint64_t lazy_refilings() const noexcept { return lazy_refilings_; }
  std::uint64_t round_revisits() const noexcept { return round_revisits_; }

  /// Unlinks every entry, calling `f(entry)` for each (used at shutdown).
  template <typename F>
  void clear(F&& f);

private:
  using slot_list = boost::intrusive::list<wheel_entry,
      boost::intrusive::member_hook<wheel_entry, wheel_entry::hook_type,
        &wheel_entry::hook>,
      boost::intrusive::constant_time_size<false>>;

  struct slot
  {
    slot_list entries;
    tick_type min_filed = never_tick;
  };

  static constexpr std::size_t npos = (std::numeric_limits<std::size_t>::max)();

  void file(wheel_entry& e, tick_type due) noexcept;
  void mark_occupied(std::size_t s) noexcept;
  void mark_empty(std::size_t s) noexcept;
  // The first occupied slot in [from, slot_count()), or npos.
  std::size_t next_occupied(std::size_t from) const noexcept;
  // Walks slot s at time `to`; returns the number expired.
  template <typename DueOf, typename Expire>
  std::size_t walk(std::size_t s, tick_type to, DueOf& due_of, Expire& expire);

  std::unique_ptr<slot[]> slots_;
  std::size_t mask_;
  std::vector<std::uint64_t> occupied_;  // one bit a slot
  std::vector<std::uint64_t> summary_;   // one bit a word of occupied_
  std::size_t size_ = 0;
  tick_type current_ = 0;
  std::uint64_t lazy_refilings_ = 0;
  std::uint64_t round_revisits_ = 0;
};

template <typename DueOf, typename Expire>
std::size_t timing_wheel::advance(tick_type to, DueOf&& due_of, Expire&& expire)
{
  if (to <= current_)
    return 0;
  const tick_type from = current_ + 1;
  current_ = to;
  if (size_ == 0)
    return 0;

  // Visit the occupied slots of ticks from..to in tick order; a span of a
  // revolution or more visits every occupied slot once.
  const std::size_t count = (to - from) >= static_cast<tick_type>(mask_)
      ? mask_ + 1 : static_cast<std::size_t>(to - from) + 1;
  const std::size_t start = static_cast<std::size_t>(from) & mask_;
  const std::size_t end = start + count;  // may pass slot_count(): wraps
  std::size_t expired = 0;
  for (std::size_t s = next_occupied(start); s != npos && s < end && s <= mask_;
      s = s < mask_ ? next_occupied(s + 1) : npos)
    expired += walk(s, to, due_of, expire);
  if (end > mask_ + 1)
    for (std::size_t s = next_occupied(0); s != npos && s < end - (mask_ + 1);
        s = s < mask_ ? next_occupied(s + 1) : npos)
      expired += walk(s, to, due_of, expire);
  return expired;
}

template <typename DueOf, typename Expire>
std::size_t timing_wheel::walk(std::size_t s, tick_type to,
    DueOf& due_of, Expire& expire)
{
  slot& sl = slots_[s];
  if (sl.min_filed > to)
    return 0;  // everything here is due in a later round: not even a visit
  std::size_t expired = 0;
  tick_type min_filed = never_tick;
  for (auto it = sl.entries.begin(); it != sl.entries.end();)
  {
    wheel_entry& e = *it++;
    if (e.filed_tick > to)
    {
      ++round_revisits_;
      if (e.filed_tick < min_filed)
        min_filed = e.filed_tick;
      continue;
    }
    const tick_type due = due_of(static_cast<const wheel_entry&>(e));
    if (due <= to)
    {
      sl.entries.erase(slot_list::s_iterator_to(e));
      --size_;
      ++expired;
      expire(e);
    }
    else
    {
      ++lazy_refilings_;
      if ((static_cast<std::size_t>(due) & mask_) == s)
      {
        e.filed_tick = due;  // a later round of the same slot
        if (due < min_filed)
          min_filed = due;
      }
      else
      {
        sl.entries.erase(slot_list::s_iterator_to(e));
        file(e, due);
      }
    }
  }
  sl.min_filed = min_filed;
  if (sl.entries.empty())
    mark_empty(s);
  return expired;
}

template <typename F>
void timing_wheel::clear(F&& f)
{
  for (std::size_t s = next_occupied(0); s != npos;
      s = s < mask_ ? next_occupied(s + 1) : npos)
  {
    slot& sl = slots_[s];
    while (!sl.entries.empty())
    {
      wheel_entry& e = sl.entries.front();
      sl.entries.pop_front();
      --size_;
      f(e);
    }
    sl.min_filed = never_tick;
    mark_empty(s);
  }
}

} // namespace detail
} // namespace asio_wheel

#endif // ASIO_WHEEL_DETAIL_TIMING_WHEEL_HPP
