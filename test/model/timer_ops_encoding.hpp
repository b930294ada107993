//
// test/model/timer_ops_encoding.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// The operation language of the randomized model test and of the libFuzzer target, and its
// byte encoding: what a program is (a wheel configuration and a list of operations) and the
// bytes <-> program format in which the fuzzer receives programs and the seed corpus is
// written (test/fuzz/make_corpus.py).
//
// A program is a wheel configuration plus a list of operations on a handful of timer objects
// (create, async_wait, cancel, cancel_one, expires_*, reschedule_*, move, destroy, tolerance,
// extend_*)
// and on a manual clock (advance, advance in steps, step either way). The configuration picks
// the clock: manual_clock (steady: it only goes forward) or manual_wall_clock (not steady: it
// can step back, as system_clock does), and the context's tolerance (wheel_options::tolerance,
// a fraction of each wait's length). Every operation is defined for every state (an operation
// on a timer that does not exist is skipped, a step of a steady clock too), so any subsequence
// of a program is a program: that is what lets the model test delta-debug a failing program
// down to a few ops and lets the fuzzer mutate bytes freely. What each operation must do:
// timer_ops_model.hpp; how one is written in a failure report: timer_ops_printing.hpp.
//
// Shared by test/model/model_test.cpp (random programs from seeds) and
// test/fuzz/timer_ops_fuzzer.cpp (programs decoded from fuzzer bytes). Needs no Asio.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

namespace asio_wheel_model {

// Timer objects a program can name. Few, so that random programs hit the same timer often.
inline constexpr std::size_t timer_count = 6;

// Amounts of time are counted in sixteenths of a tick: expiries land exactly on tick boundaries
// (every 16th value) as often as strictly inside a tick, the two cases the wheel rounds
// differently. These two values stand for the extremes of the clock instead.
inline constexpr std::int32_t far_future =
    32767;  // time_point::max() / duration::max()
inline constexpr std::int32_t far_past =
    -32768;  // time_point::min() / duration::min()
inline constexpr std::int64_t units_per_tick = 16;

enum class op_kind : std::uint8_t
{
  create,  // timer `timer` = new timer; `other` % 3 picks the constructor
  async_wait,  // timer.async_wait(record the completion); odd `other`: with a
  // cancellation slot (bind_cancellation_slot) of its own
  cancel,  // timer.cancel()
  cancel_one,  // timer.cancel_one()
  expires_at,  // timer.expires_at(now + amount)
  expires_after,  // timer.expires_after(amount)
  reschedule_at,  // timer.reschedule_at(now + amount)
  reschedule_after,  // timer.reschedule_after(amount)
  move_construct,  // timer `timer` = new timer moved from timer `other`
  move_assign,  // timer `timer` = std::move(timer `other`)
  destroy,  // timer `timer` is destroyed
  advance,  // the clock moves forward by |amount|, then the context settles
  advance_in_steps,  // the same in steps of (other % 4 + 1) sixteenths of a tick, settling after each
  emit_cancellation,  // the cancellation signal of the (other % 8 + 1)-th latest wait emits
  // terminal, partial or total (amount % 3); nothing if it had no slot
  step_clock,  // wall clock only (skipped on the steady one): the clock steps by `amount`
  // sixteenths of a tick, either way (negative: back), then the context
  // settles; far_past sets it to one clock unit (1 ns) before the service's
  // origin (inside tick -1), far_future to exactly far_step_revolutions
  // revolutions after the origin (on a tick boundary). other % 4 == 3: in
  // the middle of an advance: first the clock advances by 4 * ((other >> 2)
  // % 4 + 1) ticks and the context runs one handler (the wakeup decides every
  // due wait, and a small hand-out budget leaves most of them waiting for
  // the next turns), then the step, then (other & 16) timer `timer`, if it
  // exists and the model has no wait pending on it, starts a wait, then the
  // settle
  set_tolerance,  // timer.tolerance(|amount| sixteenths of a tick); far_future:
  // duration::max(); far_past: a negative tolerance (-1 ns), which must
  // throw std::invalid_argument and change nothing
  extend_at,  // timer.extend_at(now + amount)
  extend_after,  // timer.extend_after(amount)
  kind_count
};

struct timer_op
{
  op_kind kind = op_kind::advance;
  std::uint8_t timer = 0;  // < timer_count
  std::uint8_t other = 0;  // move source, constructor choice or step size
  std::int32_t amount = 0;  // sixteenths of a tick, or far_future / far_past
};

struct wheel_config
{
  std::size_t slots = 16;  // small: a revolution is only 8 or 16 ticks
  std::size_t max_completions_per_slice =
      256;  // small values exercise the fairness budget
  bool single_thread_hint =
      false;  // io_context(1) takes Asio's one-thread paths
  bool wall_clock = false;  // manual_wall_clock (can step back), not
      // manual_clock
  std::size_t tolerance = 0;  // wheel_options::tolerance: the fraction
      // tolerance_fractions[tolerance]
};

// The context tolerances a program can have (wheel_options::tolerance), as num / den. Zero or
// powers of two only: the library multiplies the whole ticks of a wait's length by the fraction
// (a double) and rounds down, which for these is exact and equals rounding the fraction of the
// length itself down to whole ticks (floor(floor(x) / n) == floor(x / n)), the tolerance the
// model computes. Index 0 (no tolerance) must stay first: it is what bits 5-7 of a byte 0
// written before tolerances existed decode to.
struct tolerance_fraction
{
  std::int64_t num;
  std::int64_t den;
};
inline constexpr tolerance_fraction tolerance_fractions[] = {
    {0, 1}, {1, 64}, {1, 4}, {1, 1}, {1, 2}, {1, 8}, {1, 16}, {1, 32}};
inline constexpr std::size_t tolerance_count = std::size(tolerance_fractions);
static_assert(tolerance_count == 8, "byte 0 carries the tolerance in 3 bits");

// The tick of every program's wheel (wheel_options::tick).
inline constexpr std::chrono::nanoseconds model_tick =
    std::chrono::milliseconds(1);

// step_clock with far_future: the clock is set to this many revolutions after the origin.
inline constexpr std::int64_t far_step_revolutions = 10;

// advance_in_steps covers at most this many revolutions, so one op costs at most a few hundred
// settles however large its amount.
inline constexpr std::int64_t max_stepped_revolutions = 2;

// ---------------------------------------------------------------------------------------------
// Bytes <-> programs (the fuzzer's input format, also used to write the seed corpus):
// byte 0: configuration (bit 0: 8 or 16 slots; bits 1-2: fairness budget 1, 2, 3 or 256; bit 3:
// io_context(1); bit 4: the wall clock; bits 5-7: the context's tolerance, an index into
// tolerance_fractions); then 4 bytes per operation: kind (modulo kind_count), timer (bits 0-2)
// and other (bits 3-7), and the amount as a little-endian int16. Trailing bytes that do not
// make a whole op are ignored. (Bit 4 and step_clock, then bits 5-7 and set_tolerance, then
// extend_at and extend_after came last: inputs written before them decode as before, on the
// steady clock, without tolerance, without extensions.)

inline constexpr std::size_t bytes_per_op = 4;
inline constexpr std::size_t max_program_ops =
    1024;  // keeps one fuzz input fast

inline wheel_config decode_config(std::uint8_t b)
{
  static constexpr std::size_t budgets[] = {1, 2, 3, 256};
  wheel_config c;
  c.slots = (b & 1) ? 8 : 16;
  c.max_completions_per_slice = budgets[(b >> 1) & 3];
  c.single_thread_hint = (b & 8) != 0;
  c.wall_clock = (b & 16) != 0;
  c.tolerance = static_cast<std::size_t>(b >> 5);
  return c;
}

inline std::uint8_t encode_config(const wheel_config& c)
{
  std::uint8_t b = c.slots == 8 ? 1 : 0;
  const std::size_t budget = c.max_completions_per_slice;
  b |= static_cast<std::uint8_t>((budget == 1          ? 0
                                         : budget == 2 ? 1
                                         : budget == 3 ? 2
                                                       : 3)
      << 1);
  if (c.single_thread_hint)
    b |= 8;
  if (c.wall_clock)
    b |= 16;
  b |= static_cast<std::uint8_t>((c.tolerance % tolerance_count) << 5);
  return b;
}

inline timer_op decode_op(const std::uint8_t* p)
{
  timer_op op;
  op.kind =
      static_cast<op_kind>(p[0] % static_cast<unsigned>(op_kind::kind_count));
  op.timer = static_cast<std::uint8_t>((p[1] & 7) % timer_count);
  op.other = static_cast<std::uint8_t>(p[1] >> 3);
  op.amount =
      static_cast<std::int16_t>(static_cast<std::uint16_t>(p[2] | (p[3] << 8)));
  return op;
}

inline std::vector<timer_op> decode_ops(
    const std::uint8_t* data, std::size_t size)
{
  std::vector<timer_op> ops;
  for (std::size_t i = 0;
       i + bytes_per_op <= size && ops.size() < max_program_ops;
       i += bytes_per_op)
    ops.push_back(decode_op(data + i));
  return ops;
}

inline void encode_op(const timer_op& op, std::vector<std::uint8_t>& out)
{
  const auto amount =
      static_cast<std::uint16_t>(static_cast<std::int16_t>(op.amount));
  out.push_back(static_cast<std::uint8_t>(op.kind));
  out.push_back(static_cast<std::uint8_t>(
      (op.timer % timer_count) | ((op.other & 31) << 3)));
  out.push_back(static_cast<std::uint8_t>(amount & 0xff));
  out.push_back(static_cast<std::uint8_t>(amount >> 8));
}

}  // namespace asio_wheel_model
