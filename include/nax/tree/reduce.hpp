// tree_reduce: a left fold of a binary function over the leaves of a pytree, in depth-first
// order. Tree layer. The accumulator's type may change from step to step (a growing expression).
#pragma once
#include "map.hpp"

namespace nax {
namespace detail {

template <std::size_t I, class F, class Acc, class Tree>
auto reduce_children(F& f, Acc&& acc, const Tree& tree);

// Folds the leaves of tree into acc; children left to right.
template <class F, class Acc, class Tree>
auto reduce_leaves(F& f, Acc&& acc, const Tree& tree) {
  if constexpr (tree_kind_v<Tree> == tree_kind::leaf) {
    return f(std::forward<Acc>(acc), leaf_argument(tree));
  } else if constexpr (tree_kind_v<Tree> == tree_kind::std_vector) {
    // A run-time number of elements: the accumulator keeps one type (a number, an Array).
    std::remove_cvref_t<Acc> total(std::forward<Acc>(acc));
    for (const auto& element : tree) total = reduce_leaves(f, std::move(total), element);
    return total;
  } else {
    return reduce_children<0>(f, std::forward<Acc>(acc), tree);
  }
}

template <std::size_t I, class F, class Acc, class Tree>
auto reduce_children(F& f, Acc&& acc, const Tree& tree) {
  if constexpr (I == node_size_v<Tree>)
    return std::remove_cvref_t<Acc>(std::forward<Acc>(acc));
  else
    return reduce_children<I + 1>(f, reduce_leaves(f, std::forward<Acc>(acc), tree_child<I>(tree)), tree);
}

}  // namespace detail

// f(...f(f(init, leaf0), leaf1)..., leafN-1). f sees the leaves as tree_map's f does (an Array
// as its const view, so `[](auto n, auto x) { return n + x.size(); }` copies no data).
template <class F, class Tree, class Init>
auto tree_reduce(F&& f, const Tree& tree, Init init) {
  if constexpr (!detail::is_pytree<Tree>()) {
    detail::report_not_pytree<Tree>();
    return init;
  } else {
    return detail::reduce_leaves(f, std::move(init), tree);
  }
}

}  // namespace nax
