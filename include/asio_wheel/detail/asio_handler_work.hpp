//
// asio_wheel/detail/asio_handler_work.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// How Asio's operations track work on, and dispatch completions through, a
// wheel_executor: as through its inner executor. Every Asio operation
// completes through detail::handler_work, built of two handler_work_base:
// one for the I/O object's executor, one for the handler's. Asio has fast
// forms of handler_work_base for an io_context executor and for an
// any_io_executor holding one (no work counted, the handler called in
// place: the operation is already the io_context's work); any other
// executor gets the general form, which prefers outstanding_work.tracked
// (a polymorphic call and an atomic count on the scheduler) when the
// operation starts and dispatches through the executor when it completes.
// A wheel_executor would get the general form on every socket operation of
// a routed stream (measured: 816 instructions per WebSocket message of
// example/websocket_chat). Its execute, query, require and prefer are its
// inner executor's, so handler_work_base of a wheel_executor is handler_work_base
// of its inner executor: the same decisions, the same dispatch.
//
// The one place the library itself stores another I/O executor than the
// I/O object's: a wait or timeout of a timer whose executor holds a plain
// io_context executor stores that executor instead (native_executor,
// detail/asio_operation.hpp). The handler's executor is then compared with
// the stored executor, as Asio compares it with the I/O object's: equal when
// it holds the very io_context executor that was stored.
//
// A specialization of Asio's detail::handler_work_base; its template
// parameters and the constructors handler_work calls ((int, int, io_ex) and
// (bool, ex, candidate)) are the same from Asio 1.20 (Boost 1.77) to 1.37
// (Boost 1.90): ASIO_WHEEL_ASIO_HANDLER_WORK_OWNS_WORK (config.hpp). Before
// it a wheel_executor takes Asio's general form: correct, and slower. Only
// executor types that are wheel_executors are touched, and only here: the
// specialization is declared where wheel_executor is (wheel_executor.hpp),
// so no translation unit can use one without it.
//

#ifndef ASIO_WHEEL_DETAIL_ASIO_HANDLER_WORK_HPP
#define ASIO_WHEEL_DETAIL_ASIO_HANDLER_WORK_HPP

#include <asio_wheel/detail/asio_forward.hpp>
#include <asio_wheel/detail/asio_operation.hpp>

#include <type_traits>

#if defined(ASIO_WHEEL_ASIO_HANDLER_WORK_OWNS_WORK)

ASIO_WHEEL_NAMESPACE_BEGIN
namespace detail {

/// A wheel_executor's inner executor type; any other executor type itself.
template <typename Executor>
struct inner_executor_of
{
  using type = Executor;
};

template <typename Executor>
struct inner_executor_of<wheel_executor<Executor>>
{
  using type = Executor;
};

template <typename Executor>
using inner_executor_of_t = typename inner_executor_of<Executor>::type;

template <typename Executor>
const Executor& inner_executor(const Executor& ex) noexcept
{
  return ex;
}

template <typename Executor>
const Executor& inner_executor(const wheel_executor<Executor>& ex) noexcept
{
  return ex.get_inner_executor();
}

}  // namespace detail
ASIO_WHEEL_NAMESPACE_END

ASIO_WHEEL_ASIO_NAMESPACE_BEGIN
namespace detail {

template <typename Executor, typename CandidateExecutor, typename IoContext,
    typename PolymorphicExecutor>
class handler_work_base<
    ::asio_wheel::ASIO_WHEEL_FLAVOUR_NAMESPACE::wheel_executor<Executor>,
    CandidateExecutor, IoContext, PolymorphicExecutor, void>
  : public handler_work_base<Executor,
        ::asio_wheel::ASIO_WHEEL_FLAVOUR_NAMESPACE::detail::inner_executor_of_t<
            CandidateExecutor>,
        IoContext, PolymorphicExecutor>
{
  using wheel_executor_type =
      ::asio_wheel::ASIO_WHEEL_FLAVOUR_NAMESPACE::wheel_executor<Executor>;
  using inner_base = handler_work_base<Executor,
      ::asio_wheel::ASIO_WHEEL_FLAVOUR_NAMESPACE::detail::inner_executor_of_t<
          CandidateExecutor>,
      IoContext, PolymorphicExecutor>;

public:
  /// The I/O object's executor: as its inner executor.
  explicit handler_work_base(int, int, const wheel_executor_type& ex) noexcept
    : inner_base(0, 0, ex.get_inner_executor())
  {}

  /// The handler's executor, @p candidate the I/O executor (or what the
  /// library stored instead of it): as the inner executors.
  template <typename OtherExecutor>
  handler_work_base(bool base1_owns_work, const wheel_executor_type& ex,
      const OtherExecutor& candidate) noexcept
    : inner_base(base1_owns_work, ex.get_inner_executor(),
        ::asio_wheel::ASIO_WHEEL_FLAVOUR_NAMESPACE::detail::inner_executor(
            candidate))
  {}

  /// The handler's executor, the I/O executor a plain io_context executor
  /// the library stored in place of the I/O object's any_io_executor or
  /// wheel_executor: as the handler's inner executor against that
  /// any_io_executor, i.e. equal when it holds the very executor stored.
  template <typename Inner = Executor,
      typename = std::enable_if_t<std::is_same<Inner, any_io_executor>::value>>
  handler_work_base(bool base1_owns_work, const wheel_executor_type& ex,
      const ::asio_wheel::ASIO_WHEEL_FLAVOUR_NAMESPACE::detail::
          native_executor_type& candidate) noexcept
    : inner_base(base1_owns_work || !holds(ex, candidate),
        ex.get_inner_executor(), ex.get_inner_executor())
  {}

private:
  static bool holds(const wheel_executor_type& ex,
      const ::asio_wheel::ASIO_WHEEL_FLAVOUR_NAMESPACE::detail::
          native_executor_type& candidate) noexcept
  {
    const auto* native =
        ::asio_wheel::ASIO_WHEEL_FLAVOUR_NAMESPACE::detail::native_executor(ex);
    return native && *native == candidate;
  }
};

}  // namespace detail
ASIO_WHEEL_ASIO_NAMESPACE_END

#endif  // defined(ASIO_WHEEL_ASIO_HANDLER_WORK_OWNS_WORK)

#endif  // ASIO_WHEEL_DETAIL_ASIO_HANDLER_WORK_HPP
