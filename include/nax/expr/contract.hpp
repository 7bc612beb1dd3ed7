// Contraction by name: dot<k...>(a, b) sums over the named axes; shared axes that are not
// contracted are batch axes; the rest are outer axes. Einsum of two operands with names.
// The node is materialised by the backend (a GEMM), once per evaluation.
#pragma once
#include "node.hpp"

namespace nax {
namespace detail {

template <class T>
using dot_value_t = std::conditional_t<std::is_same_v<T, bool>, std::int32_t, T>;

template <class A, class B, class... K>
struct Contract : node_interface<Contract<A, B, K...>> {
  using contracted_axes = axes<K...>;
  using a_axes = typename A::axes_type;
  using b_axes = typename B::axes_type;
  using batch_axes = difference_t<intersection_t<a_axes, b_axes>, contracted_axes>;
  using a_outer_axes = difference_t<a_axes, concat_t<b_axes, contracted_axes>>;
  using b_outer_axes = difference_t<b_axes, concat_t<a_axes, contracted_axes>>;
  using axes_type = union_t<difference_t<a_axes, contracted_axes>, difference_t<b_axes, contracted_axes>>;
  using value_type = dot_value_t<promote_t<typename A::value_type, typename B::value_type>>;
  using hidden_type = union_t<hidden_t<A>, hidden_t<B>>;
  using unbound_type = union_t<unbound_t<A>, unbound_t<B>>;
  static constexpr std::size_t rank = axes_type::size;

  A a;
  B b;
  std::array<index_t, rank> extents_{};
  std::uint64_t id = next_node_id();

  Contract(A a_, B b_) : a(std::move(a_)), b(std::move(b_)) {
    check_shared(intersection_t<a_axes, b_axes>{});
    [&]<class... Ax>(axes<Ax...>) {
      extents_ = {(contains_v<Ax, a_axes> ? extent_of_either<Ax, a_axes>(a) : extent_of_either<Ax, b_axes>(b))...};
    }(axes_type{});
  }
  const std::array<index_t, rank>& extents() const { return extents_; }

 private:
  template <class Ax, class L, class E>
  static index_t extent_of_either(const E& e) {
    if constexpr (contains_v<Ax, L>) return extent_of<Ax>(e);
    else return 0;
  }
  template <class... Shared>
  void check_shared(axes<Shared...>) {
    (check_same_extent<Shared>(extent_of<Shared>(a), extent_of<Shared>(b), "the left operand of dot",
                               "the right operand of dot"),
     ...);
  }
};

}  // namespace detail

// dot<k...>(a, b): contracts a and b over the axes k...; the result has a's remaining axes,
// then b's remaining axes that a lacks.
template <class... K, class A, class B>
  requires array_like<A> && array_like<B>
auto dot(A&& a, B&& b) {
  using EA = detail::expr_t<A>;
  using EB = detail::expr_t<B>;
  static_assert((detail::require_contracted_in_both<K, detail::visible_t<EA>, detail::visible_t<EB>>::value && ... && true));
  static_assert(detail::require_unique_axes<axes<K...>>::value);
  static_assert(detail::require_promotable<typename EA::value_type, typename EB::value_type>::value);
  return detail::Contract<EA, EB, K...>(detail::as_expr(std::forward<A>(a)), detail::as_expr(std::forward<B>(b)));
}

}  // namespace nax
