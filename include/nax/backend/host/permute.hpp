// Permute on the host: each member's part along the permuted axis is copied from its
// source member's part by one fused pass, or zero-filled.
#pragma once
#include <memory>

#include "../../expr/collective.hpp"
#include "join.hpp"

namespace nax::detail::host {

template <class C, class Axis>
auto materialise_node(const Permute<C, Axis>& node, context& ctx) {
  using T = typename C::value_type;
  auto source = materialise_any(node.child, ctx);
  auto out = std::make_shared<array_for_t<T, typename C::axes_type>>(node.extents());
  auto whole = out->view();
  for (index_t d = 0; d < static_cast<index_t>(node.source.size()); ++d) {
    if (node.source[d] < 0) continue;  // out is zero-filled: non-destinations receive zeros
    assign_in_context(narrow<Axis>(whole, d, 1), leaf_of(narrow<Axis>(source.view, node.source[d], 1)), ctx);
  }
  return leaf_of(std::as_const(*out).view(), out);
}

}  // namespace nax::detail::host
