//
// asio_wheel/detail/kept_arguments.hpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// Room for the result of an operation timed by cancel_after or cancel_at
// that completes while its timeout's upcall is on its way: the arguments of
// one completion of any of the operation's signatures, constructed in
// place, later passed to the user's handler or destroyed. Which signature
// they are for is kept by the owner (detail/timed_cancel_base.hpp), where
// it fits in the padding of its flags.
//

#ifndef ASIO_WHEEL_DETAIL_KEPT_ARGUMENTS_HPP
#define ASIO_WHEEL_DETAIL_KEPT_ARGUMENTS_HPP

#include <asio_wheel/detail/config.hpp>

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <new>
#include <tuple>
#include <type_traits>
#include <utility>

ASIO_WHEEL_NAMESPACE_BEGIN
namespace detail {

// The arguments of one completion signature, as kept.
template <typename Signature>
struct signature_arguments;

template <typename R, typename... Args>
struct signature_arguments<R(Args...)>
{
  using type = std::tuple<std::decay_t<Args>...>;
};

// Room for the arguments of one completion of any of Signatures, constructed
// in place. Which signature they are for (1-based; 0: nothing kept) is kept
// by the owner, where it fits in the padding of its flags.
template <typename... Signatures>
class kept_arguments
{
public:
  // The first signature whose arguments can be made from Args.
  template <typename... Args>
  static constexpr unsigned char index_for()
  {
    constexpr bool matches[] = {
        std::is_constructible<typename signature_arguments<Signatures>::type,
            Args&&...>::value...};
    for (std::size_t i = 0; i < sizeof...(Signatures); ++i)
      if (matches[i])
        return static_cast<unsigned char>(i + 1);
    return 0;
  }

  /// Keeps @p args; returns the index of their signature.
  template <typename... Args>
  unsigned char emplace(Args&&... args)
  {
    constexpr unsigned char index = index_for<Args...>();
    static_assert(index != 0, "no completion signature takes these arguments");
    ::new (static_cast<void*>(storage_))
        alternative<index>(std::forward<Args>(args)...);
    return index;
  }

  /// Calls @p f with the tuple of arguments kept under @p index.
  template <typename F>
  void visit(unsigned char index, F&& f)
  {
    visit(index, f, std::index_sequence_for<Signatures...>());
  }

  void destroy(unsigned char index) noexcept
  {
    visit(index, [](auto& args) {
      using tuple_type = std::decay_t<decltype(args)>;
      args.~tuple_type();
    });
  }

private:
  template <std::size_t Index>
  using alternative = typename signature_arguments<
      std::tuple_element_t<Index - 1, std::tuple<Signatures...>>>::type;

  template <std::size_t Index>
  alternative<Index>& get() noexcept
  {
    return *std::launder(reinterpret_cast<alternative<Index>*>(storage_));
  }

  template <typename F, std::size_t... I>
  void visit(unsigned char index, F& f, std::index_sequence<I...>)
  {
    (void)((index == I + 1 ? (f(get<I + 1>()), true) : false) || ...);
  }

  alignas(
      typename signature_arguments<Signatures>::type...) unsigned char storage_
      [(std::max)({sizeof(typename signature_arguments<Signatures>::type)...})];
};

}  // namespace detail
ASIO_WHEEL_NAMESPACE_END

#endif  // ASIO_WHEEL_DETAIL_KEPT_ARGUMENTS_HPP
