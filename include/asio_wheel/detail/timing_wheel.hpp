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
// Bounded advancing: advance() can stop after a number of visited entries
// and resume later, so that a storm of expiries (100,000 waits due in the
// same tick) is processed in slices between which the event loop does other
// work. A slot being processed is detached whole (O(1)); each of its entries
// is visited once per pass, however often the pass is interrupted.
//

#ifndef ASIO_WHEEL_DETAIL_TIMING_WHEEL_HPP
#define ASIO_WHEEL_DETAIL_TIMING_WHEEL_HPP

#include <asio_wheel/detail/config.hpp>

#include <boost/intrusive/list.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

ASIO_WHEEL_NAMESPACE_BEGIN
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

  /// True while an advance() stopped by its visit budget is unfinished.
  bool advancing() const noexcept { return advancing_; }

  /// The tick up to which entries are (being) processed: a new entry due at
  /// or before it would be missed by the pass and is due already.
  tick_type horizon() const noexcept { return advancing_ ? target_ : current_; }

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }

  /// Files @p e at @p due. Requires !e.in_wheel() and due > horizon().
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
  /// otherwise it is re-filed at that tick. Stops after visiting about
  /// @p max_visits entries, leaving advancing() true; a later call (with the
  /// same or a later @p to) resumes. Returns the number expired.
  template <typename DueOf, typename Expire>
  std::size_t advance(tick_type to, DueOf&& due_of, Expire&& expire,
      std::size_t max_visits = (std::numeric_limits<std::size_t>::max)());

  /// Moves the wheel back to tick @p to, for a clock that stepped back
  /// behind horizon(): afterwards horizon() <= @p to, so an entry due after
  /// @p to can be inserted. A pass of advance() in progress is abandoned
  /// (the rest of its detached slot goes back to its slot, undecided): its
  /// target may lie beyond the clock now. Entries keep their ticks; every
  /// one is filed after the new horizon, because none was filed at or
  /// before the old one. O(1) but for that slot.
  void rewind(tick_type to) noexcept;

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
  // The tick of the next occupied slot in [position_, pass_end_] whose
  // minimum is due in this pass, or never_tick; skips the others.
  tick_type next_slot_of_pass() noexcept;

  std::unique_ptr<slot[]> slots_;
  std::size_t mask_;
  std::vector<std::uint64_t> occupied_;  // one bit a slot
  std::vector<std::uint64_t> summary_;   // one bit a word of occupied_
  std::size_t size_ = 0;
  tick_type current_ = 0;

  // The pass of advance() in progress: ticks position_ .. pass_end_ are
  // still to be visited (at most one revolution), entries filed up to
  // target_ are due; detached_ holds the rest of the slot being processed.
  bool advancing_ = false;
  tick_type target_ = 0;
  tick_type position_ = 0;
  tick_type pass_end_ = 0;
  tick_type next_target_ = 0;  // a later `to` given during the pass
  slot_list detached_;
  std::uint64_t lazy_refilings_ = 0;
  std::uint64_t round_revisits_ = 0;
};

template <typename DueOf, typename Expire>
std::size_t timing_wheel::advance(tick_type to, DueOf&& due_of,
    Expire&& expire, std::size_t max_visits)
{
  std::size_t expired = 0;
  std::size_t visits = 0;
  if (advancing_)
  {
    if (to > next_target_)
      next_target_ = to;
  }
  else
  {
    if (to <= current_)
      return 0;
    next_target_ = to;
  }

  for (;;)
  {
    if (!advancing_)
    {
      if (next_target_ <= current_)
        return expired;
      // A new pass over ticks current_ + 1 .. next_target_, at most one
      // revolution of slots: a longer span visits every slot once.
      advancing_ = true;
      target_ = next_target_;
      position_ = current_ + 1;
      pass_end_ = target_ - position_ >= static_cast<tick_type>(mask_)
        ? position_ + static_cast<tick_type>(mask_) : target_;
    }

    // Finish the detached slot, one entry at a time.
    while (!detached_.empty())
    {
      if (visits >= max_visits)
        return expired;
      ++visits;
      wheel_entry& e = detached_.front();
      detached_.pop_front();
      if (e.filed_tick > target_)
      {
        ++round_revisits_;
        file(e, e.filed_tick);  // back into its slot, a later round
        continue;
      }
      const tick_type due = due_of(static_cast<const wheel_entry&>(e));
      if (due <= target_)
      {
        --size_;
        ++expired;
        expire(e);
      }
      else
      {
        ++lazy_refilings_;
        file(e, due);
      }
    }

    const tick_type t = next_slot_of_pass();
    if (t == never_tick)
    {
      current_ = target_;
      advancing_ = false;
      continue;  // another pass if a later `to` came meanwhile
    }
    if (visits >= max_visits)
      return expired;
    slot& sl = slots_[static_cast<std::size_t>(t) & mask_];
    detached_.swap(sl.entries);
    sl.min_filed = never_tick;
    mark_empty(static_cast<std::size_t>(t) & mask_);
    position_ = t + 1;
  }
}

template <typename F>
void timing_wheel::clear(F&& f)
{
  while (!detached_.empty())
  {
    wheel_entry& e = detached_.front();
    detached_.pop_front();
    --size_;
    f(e);
  }
  advancing_ = false;
  current_ = (std::max)(current_, target_);
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
ASIO_WHEEL_NAMESPACE_END

#endif // ASIO_WHEEL_DETAIL_TIMING_WHEEL_HPP
