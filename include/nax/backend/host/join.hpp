// Merge, concatenate and stack: each operand is written by one fused pass into its part of a
// temporary, which is then read as a strided leaf. The algorithms (join_into_temporary,
// merge_through_layout) are written once for every backend: a backend supplies, found by ADL
// on its evaluation context, assign_in_context(view, e, ctx) and
// make_temporary(temporary_of<T, Axes>{}, extents, ctx) -> {a writable view, the leaf reading
// it}; the host's are here, the CUDA backend's in backend/cuda/join.hpp.
#pragma once
#include <memory>
#include <optional>
#include <utility>

#include "../../core/view_slicing.hpp"
#include "assign.hpp"

namespace nax::detail {
// The element type and axes of a temporary a backend makes (make_temporary's first argument).
template <class T, class Axes>
struct temporary_of {};
}  // namespace nax::detail

namespace nax::detail::host {

// A temporary host array for a node's result.
template <class T, class Axes>
auto make_temporary(temporary_of<T, Axes>, const std::array<index_t, Axes::size>& extents, context&) {
  auto out = std::make_shared<array_for_t<T, Axes>>(no_fill, extents);
  return std::pair(out->view(), leaf_of(std::as_const(*out).view(), out));
}

}  // namespace nax::detail::host

namespace nax::detail {

// Every operand of a concatenation or stack written into its part of one temporary.
template <class Axis, bool IsStack, class... Cs, class Ctx>
auto join_into_temporary(const Join<Axis, IsStack, Cs...>& node, Ctx& ctx) {
  using Node = Join<Axis, IsStack, Cs...>;
  using T = typename Node::value_type;
  auto temporary = make_temporary(temporary_of<T, typename Node::axes_type>{}, node.extents(), ctx);
  const auto& whole = temporary.first;
  index_t at = 0;
  auto write = [&](const auto& child) {
    if constexpr (IsStack) {
      assign_in_context(drop_axis<Axis>(whole, at), make_map<fn::cast_to<T>>(child), ctx);
      ++at;
    } else {
      index_t count = extent_of<Axis>(child);
      assign_in_context(narrow<Axis>(whole, at, count), make_map<fn::cast_to<T>>(child), ctx);
      at += count;
    }
  };
  node.children.apply([&](const auto&... c) { (write(c), ...); });
  return temporary.second;
}

// A strided leaf (of the merge's child's axes) read with Outer and Inner as one axis, if its
// strides allow.
template <class C, class Outer, class Inner, class Merged, class L>
std::optional<leaf_for_t<Merge<C, Outer, Inner, Merged>>> merged_leaf(const Merge<C, Outer, Inner, Merged>& node,
                                                                       const L& leaf) {
  using Node = Merge<C, Outer, Inner, Merged>;
  using NA = typename Node::axes_type;
  const auto& v = leaf.view;
  using LA = typename L::axes_type;
  index_t eo = v.extents()[index_of_v<Outer, LA>], so = v.strides()[index_of_v<Outer, LA>];
  index_t ei = v.extents()[index_of_v<Inner, LA>], si = v.strides()[index_of_v<Inner, LA>];
  index_t stride;
  if (ei == 1) stride = so;
  else if (eo <= 1 || ei == 0 || so == ei * si) stride = si;  // an empty merge reads nothing
  else return std::nullopt;
  std::array<index_t, NA::size> strides{};
  [&]<class... Ax>(axes<Ax...>) {
    strides = {(std::is_same_v<Ax, Merged> ? stride : v.strides()[index_of_v<Ax, LA>])...};
  }(NA{});
  return leaf_for_t<Node>{{}, {v.data(), node.extents(), strides}, leaf.owner};
}

// The merge's child laid out with Inner right after Outer, then read merged.
template <class C, class Outer, class Inner, class Merged, class Ctx>
auto merge_through_layout(const Merge<C, Outer, Inner, Merged>& node, Ctx& ctx) {
  using Layout = typename Merge<C, Outer, Inner, Merged>::layout_axes;
  auto temporary =
      make_temporary(temporary_of<typename C::value_type, Layout>{}, extents_by_name<Layout>(node.child), ctx);
  assign_in_context(temporary.first, node.child, ctx);
  // Outer and Inner are adjacent and contiguous in the layout, so this always merges.
  auto merged = merged_leaf(node, temporary.second);
  if (!merged) throw shape_error("nax: merge: internal layout error");
  return *merged;
}

}  // namespace nax::detail

namespace nax::detail::host {

template <class Axis, bool IsStack, class... Cs>
auto materialise_node(const Join<Axis, IsStack, Cs...>& node, context& ctx) {
  return join_into_temporary(node, ctx);
}

template <class C, class Outer, class Inner, class Merged>
auto materialise_node(const Merge<C, Outer, Inner, Merged>& node, context& ctx) {
  if constexpr (is_leaf_v<C>) {
    if (auto direct = merged_leaf(node, node.child)) return *direct;
  }
  return merge_through_layout(node, ctx);
}

}  // namespace nax::detail::host
