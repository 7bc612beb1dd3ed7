// How the results of a leafwise function become a node again: whether a result fits the
// declared type of the child it replaces (so a struct can be rebuilt as the same struct), and
// the conversion that does it. Tree layer; used by tree_map.
//
// A result R fits a declared child type M when
// - R is M;
// - M is nax::Array<T, As...> and R is array-valued with the same axis names (any order, as for
//   assignment), no mapped axes, and an element type that converts to T without narrowing
//   (nax's promotion of T and R's type is T): the Array is built from R, evaluating it;
// - M and R are numbers and R's kind is not higher (bool < integer < floating): a float member
//   takes a double result as C++ assignment does; an int member never takes a floating result;
// - M and R are std::tuple / std::pair / hana::tuple of the same size, or M is std::array<E, N>
//   and R is std::array<Q, N> or a std::tuple of N results, and each element fits.
// A nested struct fits only as itself (the nested map returned that struct).
#pragma once
#include "traits.hpp"

namespace nax::detail {

template <class M, class R>
constexpr bool result_fits();

template <class T, class R>
constexpr bool element_fits_array() {
  using U = typename R::value_type;
  if constexpr (!promotable_v<T, U>)
    return false;
  else
    return std::is_same_v<promote_t<T, U>, T>;
}

template <class R>
constexpr bool has_no_mapped_axes() {
  if constexpr (requires { typename R::hidden_type; }) {
    if constexpr (R::hidden_type::size != 0) return false;
  }
  if constexpr (requires { typename R::unbound_type; }) {
    if constexpr (R::unbound_type::size != 0) return false;
  }
  return true;
}

template <class M, class R>
struct array_result_fits : std::false_type {};
template <class T, class... As, class R>
  requires array_like<R>
struct array_result_fits<Array<T, As...>, R>
    : std::bool_constant<same_set_v<axes<As...>, typename R::axes_type> && has_no_mapped_axes<R>() &&
                         element_fits_array<T, R>()> {};

template <class M, class R, class Seq = std::make_index_sequence<std::tuple_size_v<R>>>
struct elements_fit : std::false_type {};
template <class M, class R, std::size_t... I>
struct elements_fit<M, R, std::index_sequence<I...>>
    : std::bool_constant<(result_fits<tree_child_value_t<I, M>, tree_child_value_t<I, R>>() && ...)> {};

template <class M, class R>
constexpr bool result_fits() {
  if constexpr (std::is_same_v<M, R>) {
    return true;
  } else if constexpr (is_array<M>::value) {
    return array_result_fits<M, R>::value;
  } else if constexpr (element<M> && element<R>) {
    return kind_v<R> <= kind_v<M>;
  } else if constexpr ((is_std_tuple<M>::value && is_std_tuple<R>::value) ||
                       (is_std_pair<M>::value && is_std_pair<R>::value) ||
                       (is_std_array<M>::value && (is_std_array<R>::value || is_std_tuple<R>::value))) {
    if constexpr (std::tuple_size_v<M> != std::tuple_size_v<R>)
      return false;
    else
      return elements_fit<M, R>::value;
  } else if constexpr (is_hana_tuple<M>::value && is_hana_tuple<R>::value) {
    if constexpr (node_size_v<M> != node_size_v<R>)
      return false;
    else
      return []<std::size_t... I>(std::index_sequence<I...>) {
        return (result_fits<tree_child_value_t<I, M>, tree_child_value_t<I, R>>() && ...);
      }(std::make_index_sequence<node_size_v<M>>{});
  } else {
    return false;
  }
}

template <class M, class R>
inline constexpr bool result_fits_v = result_fits<M, std::remove_cvref_t<R>>();

// M built from a result that fits it (result_fits_v<M, R>).
template <class M, class R>
M convert_result(R&& result) {
  using D = std::remove_cvref_t<R>;
  if constexpr (std::is_same_v<M, D>) {
    return std::forward<R>(result);
  } else if constexpr (is_array<M>::value) {
    return M(result);
  } else if constexpr (element<M>) {
    return static_cast<M>(result);
  } else if constexpr (is_hana_tuple<M>::value) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return M(convert_result<tree_child_value_t<I, M>>(tree_child<I>(std::forward<R>(result)))...);
    }(std::make_index_sequence<node_size_v<M>>{});
  } else {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return M{convert_result<tree_child_value_t<I, M>>(std::get<I>(std::forward<R>(result)))...};
    }(std::make_index_sequence<std::tuple_size_v<M>>{});
  }
}

// A struct can be rebuilt from its members' values by aggregate initialisation, or else by
// default construction and member assignment.
template <class S, class Seq = std::make_index_sequence<node_size_v<S>>>
inline constexpr bool struct_aggregate_buildable_v = false;
template <class S, std::size_t... I>
inline constexpr bool struct_aggregate_buildable_v<S, std::index_sequence<I...>> =
    requires { S{std::declval<tree_child_value_t<I, S>>()...}; };

template <class S, class Seq = std::make_index_sequence<node_size_v<S>>>
inline constexpr bool struct_assign_buildable_v = false;
template <class S, std::size_t... I>
inline constexpr bool struct_assign_buildable_v<S, std::index_sequence<I...>> =
    std::is_default_constructible_v<S> &&
    (std::is_assignable_v<tree_child_t<I, S&>, tree_child_value_t<I, S>> && ...);

// True when struct S can be rebuilt from the results in std::tuple Results.
template <class S, class Results, class Seq = std::make_index_sequence<node_size_v<S>>>
inline constexpr bool struct_rebuildable_v = false;
template <class S, class Results, std::size_t... I>
  requires(std::tuple_size_v<Results> == sizeof...(I))
inline constexpr bool struct_rebuildable_v<S, Results, std::index_sequence<I...>> =
    (struct_aggregate_buildable_v<S> || struct_assign_buildable_v<S>) &&
    (result_fits_v<tree_child_value_t<I, S>, std::tuple_element_t<I, Results>> && ...);

template <class S, class Results>
S rebuild_struct(Results&& results) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    if constexpr (struct_aggregate_buildable_v<S>) {
      return S{convert_result<tree_child_value_t<I, S>>(std::get<I>(std::move(results)))...};
    } else {
      S rebuilt{};
      ((tree_child<I>(rebuilt) = convert_result<tree_child_value_t<I, S>>(std::get<I>(std::move(results)))), ...);
      return rebuilt;
    }
  }(std::make_index_sequence<node_size_v<S>>{});
}

}  // namespace nax::detail
