// Sorting along a named axis: sort, argsort, top_k and searchsorted (jnp's and lax's names).
// The order is JAX's total order (lax.sort's comparator): -0.0 and 0.0 are equal, every NaN
// is equal to every other NaN and greater than +inf, so NaNs go last. Sorts are stable. The
// nodes are materialised: the backend writes the operand into a temporary and sorts each line
// along A (backend/host/sort.hpp, backend/cuda/sort.hpp). Indices are int64 (JAX's are int32
// without x64).
#pragma once
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "gather_layouts.hpp"
#include "index.hpp"
#include "node.hpp"
#include "relayout.hpp"

namespace nax {
namespace detail {

template <class T>
struct require_sortable {
  static_assert((std::is_integral_v<T> && sizeof(T) <= 8) || std::is_same_v<T, float> || std::is_same_v<T, double>,
                "nax: sort, argsort, top_k and searchsorted order float, double, integer and bool elements (T)");
  static constexpr bool value = true;
};

// The unsigned key whose order is JAX's total order on T (lax's _float_to_int_for_sort):
// floats with -0.0 and NaNs made canonical, then the sign bit flipped for non-negative values
// and every bit for negative ones; signed integers with the sign bit flipped.
template <class T>
struct sort_key_type {
  using type = std::make_unsigned_t<T>;
};
template <>
struct sort_key_type<bool> {
  using type = std::uint8_t;
};
template <>
struct sort_key_type<float> {
  using type = std::uint32_t;
};
template <>
struct sort_key_type<double> {
  using type = std::uint64_t;
};
template <class T>
using sort_key_t = typename sort_key_type<T>::type;

// With canonical false, floats keep their bits: IEEE 754's totalOrder (-NaN < -inf < -0.0 <
// 0.0 < inf < NaN), which lax.top_k uses.
template <class T>
NAX_HOST_DEVICE inline sort_key_t<T> sort_key(T x, bool canonical = true) {
  using K = sort_key_t<T>;
  if constexpr (std::is_same_v<T, bool>) {
    return x ? 1 : 0;
  } else if constexpr (std::is_floating_point_v<T>) {
    if (canonical && x != x) x = std::numeric_limits<T>::quiet_NaN();  // every NaN the same positive quiet NaN
    if (canonical && x == T(0)) x = T(0);  // -0.0 as 0.0
    K bits;
    std::memcpy(&bits, &x, sizeof bits);
    constexpr K sign = K(1) << (8 * sizeof(K) - 1);
    return (bits & sign) ? K(~bits) : K(bits | sign);
  } else if constexpr (std::is_signed_v<T>) {
    return static_cast<K>(static_cast<K>(x) ^ (K(1) << (8 * sizeof(K) - 1)));
  } else {
    return static_cast<K>(x);
  }
}

// Which result a Sort node gives: the sorted values, or the positions they came from.
enum class sort_result : std::uint8_t { values, indices };

// sort<A>/argsort<A> of C. Descending: values are the ascending sort reversed (jnp.sort); indices
// keep equal elements in their original order (jnp.argsort(descending=True), lax.top_k).
// total_order: floats in IEEE totalOrder (signed zeros and NaNs by their bits), for top_k.
template <class C, class A, sort_result R>
struct Sort : node_interface<Sort<C, A, R>> {
  using child_type = C;
  using axis = A;
  using axes_type = typename C::axes_type;
  using value_type = std::conditional_t<R == sort_result::indices, index_t, typename C::value_type>;
  using hidden_type = hidden_t<C>;
  using unbound_type = unbound_t<C>;
  static constexpr sort_result result = R;
  static constexpr std::size_t rank = axes_type::size;

  C child;
  bool descending = false;
  bool total_order = false;  // IEEE totalOrder (lax.top_k) instead of lax.sort's order
  index_t leading = -1;      // indices: only the first `leading` of each line are read (top_k), the rest may be left unwritten; -1: all
  std::uint64_t id = next_node_id();

  decltype(auto) extents() const { return child.extents(); }
};

template <class E>
inline constexpr bool is_sort_v = false;
template <class C, class A, sort_result R>
inline constexpr bool is_sort_v<Sort<C, A, R>> = true;

template <sort_result R, class A, class X>
auto make_sort(X&& x, bool descending) {
  using E = expr_t<X>;
  static_assert(require_axis_present<A, visible_t<E>>::value);
  static_assert(require_sortable<typename E::value_type>::value);
  return Sort<E, A, R>{{}, as_expr(std::forward<X>(x)), descending};
}

// The positions along A that sort<A>(x, descending) read its values from (what its gradient
// scatters through): the ascending argsort, read from the end when descending.
template <class C, class A, sort_result R>
auto sort_permutation(const Sort<C, A, R>& s) {
  const index_t n = extent_of<A>(s);
  const index_t sign = s.descending ? -1 : 1, offset = s.descending ? n - 1 : 0;
  Sort<C, A, sort_result::indices> ascending{{}, s.child, false, s.total_order};
  return make_take<A>(std::move(ascending), axis_index<A, index_t>(n) * sign + offset, index_mode::clip, index_t(0));
}

// searchsorted: for each value, the number of elements of the sorted line that come before it
// (side left: that are less; right: less or equal), in JAX's total order. The result has the
// values' axes and the sorted operand's other axes (an axis both have pairs a line with values).
template <class S, class V, class A>
struct SearchSorted : node_interface<SearchSorted<S, V, A>> {
  using axis = A;
  using axes_type = union_t<typename V::axes_type, difference_t<typename S::axes_type, axes<A>>>;
  using value_type = index_t;
  using hidden_type = union_t<hidden_t<S>, hidden_t<V>>;
  using unbound_type = union_t<unbound_t<S>, unbound_t<V>>;
  static constexpr std::size_t rank = axes_type::size;

  S a;  // the sorted operand (a and b: the leaf walks visit both)
  V b;  // the values
  bool right = false;
  std::uint64_t id = next_node_id();
  std::array<index_t, rank> extents_{};

  SearchSorted(S sorted, V values, bool side_right) : a(std::move(sorted)), b(std::move(values)), right(side_right) {
    [&]<class... Ss>(axes<Ss...>) {
      (check_same_extent<Ss>(extent_of<Ss>(a), extent_of<Ss>(b), "the sorted operand", "the values"), ...);
    }(intersection_t<typename S::axes_type, typename V::axes_type>{});
    [&]<class... Os>(axes<Os...>) {
      extents_ = {[&]() -> index_t {
        if constexpr (contains_v<Os, typename V::axes_type>) return extent_of<Os>(b);
        else return extent_of<Os>(a);
      }()...};
    }(axes_type{});
  }
  const std::array<index_t, rank>& extents() const { return extents_; }
};

template <class A, class ValueAxes>
struct require_values_without_sorted_axis {
  static_assert(!contains_v<A, ValueAxes>,
                "nax: searchsorted<A>(sorted, values): the values have the sorted axis A (A, ValueAxes); rename "
                "it, as each value is looked up in a whole line along A");
  static constexpr bool value = true;
};

template <class A, class TopK>
struct require_new_top_k_axis {
  static_assert(!std::is_same_v<A, TopK>,
                "nax: top_k<A, K>(x, k) needs a new axis name K for the k largest elements, not the sorted axis "
                "A (A, TopK)");
  static constexpr bool value = true;
};

}  // namespace detail

enum class side : std::uint8_t { left, right };

// x sorted along A, ascending (stable; NaNs last), or descending (the ascending sort reversed:
// NaNs first), as jnp.sort(x, axis, descending=...).
template <class A, class X>
  requires array_like<X>
auto sort(X&& x, bool descending = false) {
  return detail::make_sort<detail::sort_result::values, A>(std::forward<X>(x), descending);
}

// The positions along A that sort x (int64), as jnp.argsort: stable, so equal elements keep
// their order, in either direction.
template <class A, class X>
  requires array_like<X>
auto argsort(X&& x, bool descending = false) {
  return detail::make_sort<detail::sort_result::indices, A>(std::forward<X>(x), descending);
}

// The k largest elements along A and their positions, along a new axis K in A's place, as
// lax.top_k: largest first, equal elements in their order along A, in IEEE totalOrder (unlike
// sort: a NaN is largest, a -NaN smallest, and 0.0 comes before -0.0).
// `auto [values, indices] = top_k<vocab, best>(logits, 40);` Both are lazy: the values are a
// take of x at the indices (so gradients reach x through them), and each evaluation sorts.
template <class V, class I>
struct top_k_result {
  V values;
  I indices;
};

template <class A, class K, class X>
  requires array_like<X>
auto top_k(X&& x, index_t k) {
  using E = detail::expr_t<X>;
  static_assert(detail::require_new_top_k_axis<A, K>::value);
  static_assert(detail::require_axis_absent<K, detail::visible_t<E>>::value);
  auto e = detail::as_expr(std::forward<X>(x));
  const index_t n = detail::extent_of<A>(e);
  if (k < 0 || k > n)
    throw shape_error("nax: top_k<" + std::string(axis_name<A>()) + ", " + std::string(axis_name<K>()) + ">(x, " +
                      std::to_string(k) + "): k must be in [0, " + std::to_string(n) + "], the extent of axis '" +
                      std::string(axis_name<A>()) + "'");
  auto order = detail::make_sort<detail::sort_result::indices, A>(e, true);
  order.total_order = true;  // lax.top_k: -NaN smallest, NaN largest, 0.0 above -0.0
  order.leading = k;          // (the host then selects k instead of sorting the line)
  auto indices = rename<A, K>(slice<A>(std::move(order), 0, k));
  auto values = take<A>(std::move(e), indices);
  return top_k_result<decltype(values), decltype(indices)>{std::move(values), std::move(indices)};
}

// For each element of values, its insertion position in the line of `sorted` along A (int64),
// as jnp.searchsorted(sorted, values, side): left, the first position whose element is not
// less; right, the first whose element is greater. `sorted` must be sorted along A (ascending,
// NaNs last: what sort<A> gives); its other axes broadcast with the values' by name.
template <class A, class S, class V>
  requires array_like<S> && array_like<V>
auto searchsorted(S&& sorted, V&& values, side which = side::left) {
  using ES = detail::expr_t<S>;
  using EV = detail::expr_t<V>;
  static_assert(detail::require_axis_present<A, detail::visible_t<ES>>::value);
  static_assert(detail::require_values_without_sorted_axis<A, typename EV::axes_type>::value);
  static_assert(detail::require_sortable<typename ES::value_type>::value);
  static_assert(detail::require_sortable<typename EV::value_type>::value);
  static_assert(detail::require_promotable<typename ES::value_type, typename EV::value_type>::value);
  return detail::SearchSorted<ES, EV, A>(detail::as_expr(std::forward<S>(sorted)),
                                         detail::as_expr(std::forward<V>(values)), which == side::right);
}

}  // namespace nax
