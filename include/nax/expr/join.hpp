// Relayouts that are not affine maps of indices: merge (two axes into one), concatenate and
// stack. The backend materialises them once per evaluation into a temporary, which then
// reads as an ordinary strided leaf.
#pragma once
#include <string>

#include "../core/pack.hpp"
#include "node.hpp"

namespace nax {
namespace detail {

template <class L, class Outer, class Inner>
struct outer_then_inner;  // L without Inner, with Inner placed right after Outer
template <class... As, class Outer, class Inner>
struct outer_then_inner<axes<As...>, Outer, Inner> {
  using type = tuple_to_axes_t<decltype(std::tuple_cat(
      std::conditional_t<std::is_same_v<As, Outer>, std::tuple<Outer, Inner>,
                         std::conditional_t<std::is_same_v<As, Inner>, std::tuple<>, std::tuple<As>>>{}...))>;
};

template <class C, class Outer, class Inner, class Merged>
struct Merge : node_interface<Merge<C, Outer, Inner, Merged>> {
  using child_type = C;
  using axes_type = replace_t<difference_t<typename C::axes_type, axes<Inner>>, Outer, Merged>;
  // The order the child is laid out in before the two axes read as one.
  using layout_axes = typename outer_then_inner<typename C::axes_type, Outer, Inner>::type;
  using value_type = typename C::value_type;
  using hidden_type = hidden_t<C>;
  using unbound_type = unbound_t<C>;
  static constexpr std::size_t rank = axes_type::size;

  C child;
  std::array<index_t, rank> extents_{};
  std::uint64_t id = next_node_id();

  const std::array<index_t, rank>& extents() const { return extents_; }
};

template <class First, class Other>
struct require_same_axes_to_join {
  static_assert(same_set_v<visible_t<First>, visible_t<Other>>,
                "nax: concatenate and stack need operands with the same axis names (First, Other)");
  static_assert(same_set_v<hidden_t<First>, hidden_t<Other>>,
                "nax: concatenate and stack need operands that vary over the same mapped axes; "
                "broadcast the others first (First, Other)");
  static constexpr bool value = true;
};

// Concatenation along Axis (IsStack false) or stacking along a new Axis (IsStack true).
template <class Axis, bool IsStack, class... Cs>
struct Join : node_interface<Join<Axis, IsStack, Cs...>> {
  using first_type = std::tuple_element_t<0, std::tuple<Cs...>>;
  using axes_type = std::conditional_t<IsStack, concat_t<axes<Axis>, typename first_type::axes_type>,
                                       typename first_type::axes_type>;
  using value_type = promote_all_t<typename Cs::value_type...>;
  using joined_axis = Axis;
  static constexpr bool is_stack = IsStack;
  using hidden_type = hidden_t<first_type>;
  using unbound_type = union_t<unbound_t<Cs>...>;
  static constexpr std::size_t rank = axes_type::size;

  pack<Cs...> children;
  std::array<index_t, rank> extents_{};
  std::uint64_t id = next_node_id();

  explicit Join(Cs... cs) : children{{std::move(cs)}...} {
    const auto& first = get<0>(children);
    using Others = difference_t<typename first_type::axes_type, axes<Axis>>;
    index_t joined = 0;
    int operand = 0;
    auto absorb = [&](const auto& c) {
      ++operand;
      [&]<class... Ox>(axes<Ox...>) {
        (check_extent<Ox>(extent_of<Ox>(first), extent_of<Ox>(c), operand), ...);
      }(Others{});
      if constexpr (IsStack) ++joined;
      else joined += extent_of<Axis>(c);
      if (joined < 0) throw shape_error("nax: size overflow in concatenate along '" + std::string(axis_name<Axis>()) + "'");
    };
    children.apply([&](const auto&... c) { (absorb(c), ...); });
    [&]<class... Ox>(axes<Ox...>) {
      extents_ = {(std::is_same_v<Ox, Axis> ? joined : extent_of<Ox>(first))...};
    }(axes_type{});
  }
  const std::array<index_t, rank>& extents() const { return extents_; }

 private:
  template <class Ox>
  static void check_extent(index_t first, index_t other, int operand) {
    if (first != other)
      throw shape_error("nax: extent mismatch on axis '" + std::string(axis_name<Ox>()) + "' in " +
                        (IsStack ? "stack" : "concatenate") + ": " + std::to_string(first) + " in operand 1, " +
                        std::to_string(other) + " in operand " + std::to_string(operand));
  }
};

}  // namespace detail

// Merges axes Outer and Inner of x into one axis Merged (index outer * inner_extent + inner),
// in Outer's place.
template <class Outer, class Inner, class Merged, class X>
  requires array_like<X>
auto merge(X&& x) {
  using E = detail::expr_t<X>;
  using CA = typename E::axes_type;
  static_assert(detail::require_axis_present<Outer, detail::visible_t<E>>::value);
  static_assert(detail::require_axis_present<Inner, detail::visible_t<E>>::value);
  static_assert(!std::is_same_v<Outer, Inner>, "nax: merge needs two different axes");
  static_assert(detail::require_axis_absent<Merged, detail::difference_t<CA, axes<Outer, Inner>>>::value);
  detail::Merge<E, Outer, Inner, Merged> node{{}, detail::as_expr(std::forward<X>(x))};
  index_t outer = detail::extent_of<Outer>(node.child), inner = detail::extent_of<Inner>(node.child);
  if (inner != 0 && outer > std::numeric_limits<index_t>::max() / inner)
    throw shape_error("nax: size overflow merging axes '" + std::string(axis_name<Outer>()) + "' and '" +
                      std::string(axis_name<Inner>()) + "'");
  [&]<class... Ax>(axes<Ax...>) {
    node.extents_ = {(std::is_same_v<Ax, Merged> ? outer * inner : detail::extent_of<Ax>(node.child))...};
  }(typename decltype(node)::axes_type{});
  return node;
}

// Joins operands along their existing axis Axis.
template <class Axis, class... Xs>
  requires(sizeof...(Xs) >= 1 && (array_like<Xs> && ...))
auto concatenate(Xs&&... xs) {
  using First = detail::expr_t<std::tuple_element_t<0, std::tuple<Xs...>>>;
  static_assert(detail::require_axis_present<Axis, detail::visible_t<First>>::value);
  static_assert((detail::require_same_axes_to_join<First, detail::expr_t<Xs>>::value && ...));
  return detail::Join<Axis, false, detail::expr_t<Xs>...>(detail::as_expr(std::forward<Xs>(xs))...);
}

// Stacks operands along a new first axis Axis.
template <class Axis, class... Xs>
  requires(sizeof...(Xs) >= 1 && (array_like<Xs> && ...))
auto stack(Xs&&... xs) {
  using First = detail::expr_t<std::tuple_element_t<0, std::tuple<Xs...>>>;
  static_assert(detail::require_axis_absent<Axis, typename First::axes_type>::value);
  static_assert((detail::require_same_axes_to_join<First, detail::expr_t<Xs>>::value && ...));
  return detail::Join<Axis, true, detail::expr_t<Xs>...>(detail::as_expr(std::forward<Xs>(xs))...);
}

}  // namespace nax
