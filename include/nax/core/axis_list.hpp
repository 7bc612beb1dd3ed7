// Axis lists (type packs of axis names) and their algebra: find, union, difference,
// intersection, replacement. Plain fold expressions; no recursive templates.
#pragma once
#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>

#include "axis.hpp"

namespace nax {

template <class... As>
struct axes {
  static constexpr std::size_t size = sizeof...(As);
};

namespace detail {

inline constexpr std::size_t npos = static_cast<std::size_t>(-1);

template <class A, class List>
inline constexpr bool contains_v = false;
template <class A, class... As>
inline constexpr bool contains_v<A, axes<As...>> = (std::is_same_v<A, As> || ...);

// Position of A in the list, or npos.
template <class A, class... As>
consteval std::size_t index_of_pack() {
  std::size_t i = 0;
  bool found = ((std::is_same_v<A, As> ? true : (++i, false)) || ...);
  return found ? i : npos;
}
template <class A, class List>
inline constexpr std::size_t index_of_v = npos;
template <class A, class... As>
inline constexpr std::size_t index_of_v<A, axes<As...>> = index_of_pack<A, As...>();

template <std::size_t I, class List>
struct at;
template <std::size_t I, class... As>
struct at<I, axes<As...>> {
  using type = std::tuple_element_t<I, std::tuple<As...>>;
};
template <std::size_t I, class List>
using at_t = typename at<I, List>::type;

template <class... As>
axes<As...> tuple_to_axes(std::tuple<As...>*);
template <class Tuple>
using tuple_to_axes_t = decltype(tuple_to_axes(static_cast<Tuple*>(nullptr)));

template <bool Keep, class A>
using keep_if = std::conditional_t<Keep, std::tuple<A>, std::tuple<>>;

template <class L>
struct concat_helper;
template <class... As>
struct concat_helper<axes<As...>> {
  using tuple = std::tuple<As...>;
};

// Elements of L that are not in R, in L's order.
template <class L, class R>
struct difference;
template <class... As, class R>
struct difference<axes<As...>, R> {
  using type = tuple_to_axes_t<decltype(std::tuple_cat(keep_if<!contains_v<As, R>, As>{}...))>;
};
template <class L, class R>
using difference_t = typename difference<L, R>::type;

// Elements of L that are in R, in L's order.
template <class L, class R>
struct intersection;
template <class... As, class R>
struct intersection<axes<As...>, R> {
  using type = tuple_to_axes_t<decltype(std::tuple_cat(keep_if<contains_v<As, R>, As>{}...))>;
};
template <class L, class R>
using intersection_t = typename intersection<L, R>::type;

template <class... Ls>
struct concat;
template <class... Ls>
struct concat {
  using type = tuple_to_axes_t<decltype(std::tuple_cat(typename concat_helper<Ls>::tuple{}...))>;
};
template <class... Ls>
using concat_t = typename concat<Ls...>::type;

// Keeps the first occurrence of every name, in order.
template <class L, class Seq = std::make_index_sequence<L::size>>
struct unique;
template <class... As, std::size_t... Is>
struct unique<axes<As...>, std::index_sequence<Is...>> {
  using type = tuple_to_axes_t<decltype(std::tuple_cat(
      keep_if<index_of_pack<As, As...>() == Is, As>{}...))>;
};
template <class L>
using unique_t = typename unique<L>::type;

// Union in order: the axes of the first list, then those of the next lists not seen yet.
template <class... Ls>
using union_t = unique_t<concat_t<Ls...>>;

template <class L>
inline constexpr bool is_unique_v = std::is_same_v<unique_t<L>, L>;

// L with every From replaced by To.
template <class L, class From, class To>
struct replace;
template <class... As, class From, class To>
struct replace<axes<As...>, From, To> {
  using type = axes<std::conditional_t<std::is_same_v<As, From>, To, As>...>;
};
template <class L, class From, class To>
using replace_t = typename replace<L, From, To>::type;

// True when L and R hold the same names, in any order.
template <class L, class R>
inline constexpr bool same_set_v =
    L::size == R::size && difference_t<L, R>::size == 0 && difference_t<R, L>::size == 0;

template <class L>
struct last;
template <class... As>
struct last<axes<As...>> {
  using type = std::conditional_t<sizeof...(As) == 0, axes<>,
                                  axes<std::tuple_element_t<(sizeof...(As) ? sizeof...(As) - 1 : 0),
                                                            std::tuple<As..., void>>>>;
};
// axes<> or axes<the last name>: the innermost axis of a row-major loop nest.
template <class L>
using last_t = typename last<L>::type;

// The names of a list's axes, in order: a constant table with storage, so that the functions
// that build messages can be plain functions taking a pointer to it (at -O0 a message built in
// a template is emitted again for every instantiation: docs/compile_time.md).
template <class... As>
constexpr std::array<std::string_view, sizeof...(As)> axis_name_table(axes<As...>) {
  return {axis_name<As>()...};
}
template <class L>
inline constexpr auto axis_names_v = axis_name_table(L{});

// "batch, in" for messages.
template <class... As>
std::string axis_names(axes<As...>) {
  std::string out;
  ((out += (out.empty() ? "" : ", "), out += axis_name<As>()), ...);
  return out;
}

}  // namespace detail
}  // namespace nax
