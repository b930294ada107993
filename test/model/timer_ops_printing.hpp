//
// test/model/timer_ops_printing.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// How the model test and the fuzzer write a program in a failure report: one line per
// operation (describe(timer_op)), and the wheel configuration (describe(wheel_config)), in
// the terms of the C++ calls the operations stand for.
#pragma once

#include "timer_ops_encoding.hpp"

#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

namespace asio_wheel_model {

inline std::string describe_amount(std::int32_t amount)
{
  if (amount == far_future)
    return "max";
  if (amount == far_past)
    return "min";
  std::ostringstream s;
  s << (amount < 0 ? "-" : "+")
    << (amount < 0 ? -static_cast<std::int64_t>(amount) : amount) << "/16 tick";
  return s.str();
}

inline std::string describe(const timer_op& op)
{
  std::ostringstream s;
  const std::string t = "t" + std::to_string(op.timer);
  const std::string o = "t" + std::to_string(op.other % timer_count);
  switch (op.kind)
  {
  case op_kind::create:
    switch (op.other % 3)
    {
    case 0:
      s << t << " = timer(ex)";
      break;
    case 1:
      s << t << " = timer(io, now " << describe_amount(op.amount) << ")";
      break;
    default:
      s << t << " = timer(ex, " << describe_amount(op.amount) << ")";
      break;
    }
    break;
  case op_kind::async_wait:
    s << t << ".async_wait("
      << ((op.other & 1) ? "bind_cancellation_slot(sig, h)" : "h") << ")";
    break;
  case op_kind::cancel:
    s << t << ".cancel()";
    break;
  case op_kind::cancel_one:
    s << t << ".cancel_one()";
    break;
  case op_kind::expires_at:
    s << t << ".expires_at(now " << describe_amount(op.amount) << ")";
    break;
  case op_kind::expires_after:
    s << t << ".expires_after(" << describe_amount(op.amount) << ")";
    break;
  case op_kind::reschedule_at:
    s << t << ".reschedule_at(now " << describe_amount(op.amount) << ")";
    break;
  case op_kind::reschedule_after:
    s << t << ".reschedule_after(" << describe_amount(op.amount) << ")";
    break;
  case op_kind::extend_at:
    s << t << ".extend_at(now " << describe_amount(op.amount) << ")";
    break;
  case op_kind::extend_after:
    s << t << ".extend_after(" << describe_amount(op.amount) << ")";
    break;
  case op_kind::move_construct:
    s << t << " = timer(std::move(" << o << "))";
    break;
  case op_kind::move_assign:
    s << t << " = std::move(" << o << ")";
    break;
  case op_kind::destroy:
    s << "destroy " << t;
    break;
  case op_kind::advance:
    s << "advance clock +" << std::abs(op.amount) << "/16 tick";
    break;
  case op_kind::advance_in_steps:
    s << "advance clock +" << std::abs(op.amount) << "/16 tick (at most "
      << max_stepped_revolutions << " revolutions)"
      << " in steps of " << (op.other % 4 + 1) << "/16 tick";
    break;
  case op_kind::emit_cancellation:
  {
    static const char* const types[] = {"terminal", "partial", "total"};
    s << "signal of the wait started " << (op.other % 8 + 1)
      << " waits ago emits " << types[(op.amount % 3 + 3) % 3];
    break;
  }
  case op_kind::step_clock:
    if (op.other % 4 == 3)
      s << "wall clock advances " << 4 * ((op.other >> 2) % 4 + 1)
        << " ticks, one handler runs, then ";
    if (op.amount == far_past)
      s << "wall clock set to origin - 1ns";
    else if (op.amount == far_future)
      s << "wall clock set to origin + " << far_step_revolutions
        << " revolutions";
    else
      s << "wall clock steps " << (op.amount < 0 ? "back " : "forward ")
        << std::abs(op.amount) << "/16 tick";
    if (op.other % 4 == 3 && (op.other & 16) != 0)
      s << ", then " << t << ".async_wait(h) if it waits for nothing";
    s << " (skipped on the steady clock)";
    break;
  case op_kind::set_tolerance:
    if (op.amount == far_past)
      s << t << ".tolerance(-1ns) (must throw)";
    else if (op.amount == far_future)
      s << t << ".tolerance(duration::max())";
    else
      s << t << ".tolerance(" << std::abs(op.amount) << "/16 tick)";
    break;
  default:
    s << "?";
    break;
  }
  return s.str();
}

inline std::string describe(const wheel_config& c)
{
  std::ostringstream s;
  s << "slots=" << c.slots
    << " tick=1ms max_completions_per_slice=" << c.max_completions_per_slice
    << (c.single_thread_hint ? " io_context(1)" : " io_context()")
    << (c.wall_clock ? " manual_wall_clock" : " manual_clock");
  const tolerance_fraction f =
      tolerance_fractions[c.tolerance % tolerance_count];
  s << " tolerance=" << f.num;
  if (f.num != 0 && f.den != 1)
    s << "/" << f.den;
  return s.str();
}

}  // namespace asio_wheel_model
