//
// asio_wheel/beast/detail/pending_guard.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// pending_guard: marks an operation kind (read, write) of the stream pending
// for the lifetime of one operation, as Beast's stream_base::pending_guard
// does, and withdraws the operation's armed timeout if the operation goes
// without completing, since the timeout itself holds no reference to the
// stream's state (detail/stream_timeouts.hpp).
//

#ifndef ASIO_WHEEL_BEAST_DETAIL_PENDING_GUARD_HPP
#define ASIO_WHEEL_BEAST_DETAIL_PENDING_GUARD_HPP

#include <asio_wheel/beast/detail/stream_timeouts.hpp>

#include <boost/assert.hpp>
#include <boost/config.hpp>

#include <utility>

ASIO_WHEEL_NAMESPACE_BEGIN
namespace beast {
namespace detail {

// Marks an operation kind (read, write) pending for the lifetime of an
// operation; Beast allows one of each at a time. Moves with the operation.
// The timeout holds no reference to the stream's state: the operation
// does. So if the operation is destroyed without completing (starting its
// next step threw, or an executor destroyed its handler unrun), its armed
// timeout is withdrawn here, as nothing else would, before that state can
// go.
template <class Impl>
class pending_guard
{
public:
  pending_guard() noexcept = default;

  explicit pending_guard(op_state<Impl>& st) noexcept { assign(st); }

  pending_guard(pending_guard&& other) noexcept
    : st_(std::exchange(other.st_, nullptr))
  {}

  pending_guard& operator=(pending_guard&&) = delete;

  ~pending_guard() { reset(); }

  void assign(op_state<Impl>& st) noexcept
  {
    BOOST_ASSERT(!st_);
    // Two reads (or two writes) pending at once on one stream: not allowed.
    BOOST_ASSERT(!st.pending);
    st_ = &st;
    st.pending = true;
  }

  void reset() noexcept
  {
    if (!st_)
      return;
    op_state<Impl>& st = *std::exchange(st_, nullptr);
    if (BOOST_UNLIKELY(st.armed != nullptr))
      withdraw_abandoned(st);
    st.pending = false;
  }

private:
  // Out of line: every moved-from operation's guard is reset.
  BOOST_NOINLINE static void withdraw_abandoned(op_state<Impl>& st) noexcept
  {
    try
    {
      st.disarm(*st.armed->impl);
    }
    catch (...)
    {}
  }

  op_state<Impl>* st_ = nullptr;
};

}  // namespace detail
}  // namespace beast
ASIO_WHEEL_NAMESPACE_END

#endif  // ASIO_WHEEL_BEAST_DETAIL_PENDING_GUARD_HPP
