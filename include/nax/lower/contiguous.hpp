// The common case of an elementwise pass, lowered without placements: every leaf is an array
// with the destination's axes in the destination's order, contiguous and row-major, and the
// tree holds only maps and numbers. Then element k of every leaf is element k of the output,
// and the pass is one run of `size` elements. lower_contiguous makes the evaluator type that
// lower() makes of the same tree (no new evaluator types to compile), with every row offset 0,
// so get<true>(k), k < size, reads the whole array. For small arrays the placements, the
// fold and the tile loop of the general pass cost more than the work (bench/README.md,
// "GB/s against size").
#pragma once
#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

#include "lower.hpp"

namespace nax::detail {

// Whether the tree E can be read as one run over destination axes L (the run-time half, each
// leaf contiguous, is checked by lower_contiguous).
template <class L, class E>
inline constexpr bool contiguous_tree_v = false;
template <class L, class T, class... As>
inline constexpr bool contiguous_tree_v<L, Leaf<T, As...>> = std::is_same_v<L, axes<As...>>;
template <class L, class T>
inline constexpr bool contiguous_tree_v<L, Scalar<T>> = true;
template <class L, class F, class... Cs>
inline constexpr bool contiguous_tree_v<L, Map<F, Cs...>> = (contiguous_tree_v<L, Cs> && ...);
template <class L, class E>
inline constexpr bool contiguous_lowerable_v = L::size > 0 && contiguous_tree_v<L, E>;

// Row-major and without gaps: each axis longer than 1 steps over everything inside it.
template <std::size_t N>
bool row_major_contiguous(const std::array<index_t, N>& extents, const std::array<index_t, N>& strides) {
  index_t inside = 1;
  for (std::size_t k = N; k-- > 0;) {
    if (extents[k] != 1 && strides[k] != inside) return false;
    inside *= extents[k];
  }
  return true;
}

// What lower_contiguous lowers for: the destination's element count (> 0; every leaf has it, its
// extents were checked against the destination's), and whether every leaf so far is contiguous
// (the evaluator must not be used when one is not). N: the destination's rank.
template <std::size_t N>
struct contiguous_destination {
  index_t size;
  bool contiguous = true;
};

template <std::size_t N, class Node>
auto lower_contiguous(const Node& node, contiguous_destination<N>& d);

template <std::size_t N, class F, std::size_t... Is, class... Cs>
auto lower_contiguous_children(const pack_impl<std::index_sequence<Is...>, Cs...>& children,
                               contiguous_destination<N>& d) {
  using Ev = map_eval<F, std::index_sequence<Is...>, decltype(lower_contiguous<N>(std::declval<const Cs&>(), d))...>;
  return Ev{{{lower_contiguous<N>(static_cast<const pack_slot<Is, Cs>&>(children).value, d)}...}};
}

// The evaluator of node (contiguous_tree_v) for destination d, of rank N.
template <std::size_t N, class Node>
auto lower_contiguous(const Node& node, contiguous_destination<N>& d) {
  if constexpr (is_leaf_v<Node>) {
    using T = typename Node::value_type;
    leaf_eval<T, N, true> ev{node.view.data(), 0, node.view.strides(), 0, nullptr, nullptr};
    if (row_major_contiguous(node.view.extents(), node.view.strides())) {
      ev.lo = ev.data;
      ev.hi = ev.data + d.size;
    } else {
      d.contiguous = false;
    }
    return ev;
  } else if constexpr (is_scalar_v<Node>) {
    return scalar_eval<typename Node::value_type>{node.value};
  } else {
    using F = decltype(map_functor(static_cast<const Node*>(nullptr)));
    return lower_contiguous_children<N, F>(node.children, d);
  }
}

}  // namespace nax::detail
