// Compile-time checks users see. Each lives in a class template parameterised by the
// names involved, so g++, clang and nvcc print those names in the instantiation context
// (docs/toolchain.md). Use as: static_assert(detail::require_axis_present<A, L>::value);
#pragma once
#include "axis_list.hpp"
#include "element_type.hpp"

namespace nax::detail {

template <class Axis, class ExpressionAxes>
struct require_axis_present {
  static_assert(contains_v<Axis, ExpressionAxes>,
                "nax: axis not found: the expression has no axis of this name "
                "(Axis is the name asked for, ExpressionAxes the axes the expression has)");
  static constexpr bool value = true;
};

template <class Axes>
struct require_axis_names;
template <class... As>
struct require_axis_names<axes<As...>> {
  static_assert((axis<As> && ...),
                "nax: axis names are tag types declared with NAX_AXIS(name); a type in Axes is not one");
  static constexpr bool value = true;
};

template <class Axes>
struct require_unique_axes {
  static_assert(is_unique_v<Axes>,
                "nax: duplicate axis name: an array or expression names the same axis twice");
  static constexpr bool value = true;
};

template <class DestinationAxes, class SourceAxes>
struct require_same_axis_set {
  static_assert(same_set_v<DestinationAxes, SourceAxes>,
                "nax: axis sets differ: assignment needs the same axis names on both sides, "
                "in any order (use sum, rename or broadcast_to to change the names)");
  static constexpr bool value = true;
};

template <class Axis, class LeftAxes, class RightAxes>
struct require_contracted_in_both {
  static_assert(contains_v<Axis, LeftAxes> && contains_v<Axis, RightAxes>,
                "nax: dot<Axis>: the contracted axis must be an axis of both operands "
                "(LeftAxes, RightAxes)");
  static constexpr bool value = true;
};

template <class NewName, class ExpressionAxes>
struct require_axis_absent {
  static_assert(!contains_v<NewName, ExpressionAxes>,
                "nax: axis name already taken: the new axis name is already an axis of the "
                "expression (NewName, ExpressionAxes)");
  static constexpr bool value = true;
};

template <class Axes>
struct require_rank_zero {
  static_assert(Axes::size == 0,
                "nax: item() needs a rank-0 expression: reduce the remaining Axes first");
  static constexpr bool value = true;
};

template <class MappedAxes>
struct require_not_mapped {
  static_assert(MappedAxes::size == 0,
                "nax: the value varies over a mapped axis (MappedAxes) of an enclosing vmap/xmap and "
                "cannot be stored or read as one array there: keep it evaluated as a mapped value with "
                "auto v = nax::eval(e), or return it from the mapped function");
  static constexpr bool value = true;
};

template <class UnboundAxes>
struct require_bound {
  static_assert(UnboundAxes::size == 0,
                "nax: unbound axis name: a collective names an axis (UnboundAxes) that no enclosing "
                "vmap/xmap/pmap binds (inside the mapped function, keep a collective's result with "
                "auto v = nax::eval(e): the map resolves the axis when the value leaves it)");
  static constexpr bool value = true;
};

template <class Destination, class Source>
struct require_no_narrowing {
  static_assert(std::is_same_v<promote_t<Destination, Source>, Destination>,
                "nax: assignment would narrow the element type (Source to Destination): "
                "convert explicitly with nax::cast<T>");
  static constexpr bool value = true;
};

}  // namespace nax::detail
