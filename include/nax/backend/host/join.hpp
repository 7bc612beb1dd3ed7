// Merge, concatenate and stack on the host: each operand is written by one fused pass
// into its part of a temporary, which is then read as a strided leaf.
#pragma once
#include <memory>

#include "assign.hpp"

namespace nax::detail::host {

// The part of `view` at index `at` along Axis, without that axis.
template <class Axis, class T, class... As>
auto drop_axis(const ArrayView<T, As...>& view, index_t at) {
  using Rest = difference_t<axes<As...>, axes<Axis>>;
  constexpr std::size_t j = index_of_v<Axis, axes<As...>>;
  std::array<index_t, Rest::size> extents{}, strides{};
  [&]<class... Rs>(axes<Rs...>) {
    extents = {view.extents()[index_of_v<Rs, axes<As...>>]...};
    strides = {view.strides()[index_of_v<Rs, axes<As...>>]...};
  }(Rest{});
  return view_for_t<T, Rest>(view.data() + at * view.strides()[j], extents, strides);
}

// Elements [begin, begin + count) along Axis.
template <class Axis, class T, class... As>
ArrayView<T, As...> narrow(const ArrayView<T, As...>& view, index_t begin, index_t count) {
  constexpr std::size_t j = index_of_v<Axis, axes<As...>>;
  auto extents = view.extents();
  extents[j] = count;
  return {view.data() + begin * view.strides()[j], extents, view.strides()};
}

template <class Axis, bool IsStack, class... Cs>
auto materialise_node(const Join<Axis, IsStack, Cs...>& node, context& ctx) {
  using Node = Join<Axis, IsStack, Cs...>;
  using T = typename Node::value_type;
  auto out = std::make_shared<array_for_t<T, typename Node::axes_type>>(node.extents());
  auto whole = out->view();
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
  std::apply([&](const auto&... c) { (write(c), ...); }, node.children);
  return leaf_of(std::as_const(*out).view(), out);
}

template <class C, class Outer, class Inner, class Merged>
auto materialise_node(const Merge<C, Outer, Inner, Merged>& node, context& ctx) {
  using Node = Merge<C, Outer, Inner, Merged>;
  using T = typename Node::value_type;
  using NA = typename Node::axes_type;
  // Reads a view of the child's layout with Outer and Inner as one axis, if strides allow.
  auto merged_leaf = [&](const auto& leaf) -> std::optional<leaf_for_t<Node>> {
    const auto& v = leaf.view;
    using LA = typename std::remove_cvref_t<decltype(leaf)>::axes_type;
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
  };
  if constexpr (is_leaf_v<C>) {
    if (auto direct = merged_leaf(node.child)) return *direct;
  }
  using Layout = typename Node::layout_axes;
  auto laid_out = std::make_shared<array_for_t<T, Layout>>(extents_by_name<Layout>(node.child));
  assign_in_context(laid_out->view(), node.child, ctx);
  // Outer and Inner are adjacent and contiguous in the layout, so this always merges.
  auto merged = merged_leaf(leaf_of(std::as_const(*laid_out).view(), laid_out));
  if (!merged) throw shape_error("nax: merge: internal layout error");
  return *merged;
}

}  // namespace nax::detail::host
