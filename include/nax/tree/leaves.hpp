// The leaves of a pytree in depth-first order (struct members in declaration order): as a
// std::tuple (tree_leaves), or visited with their index (detail::tree_for_each_leaf). Tree layer.
#pragma once
#include "traits.hpp"

namespace nax {
namespace detail {

template <class Tree>
auto leaves_of(Tree&& tree) {
  using D = std::remove_cvref_t<Tree>;
  if constexpr (tree_kind_v<D> == tree_kind::leaf) {
    if constexpr (std::is_lvalue_reference_v<Tree>)
      return std::tuple<Tree>(tree);  // a reference (const when the tree is const)
    else
      return std::tuple<D>(std::move(tree));
  } else if constexpr (tree_kind_v<D> == tree_kind::not_a_tree) {
    return std::tuple<>{};  // require_pytree has named the type
  } else if constexpr (tree_kind_v<D> == tree_kind::std_vector) {
    static_assert(require_static_tree<D>::value);
    return std::tuple<>{};
  } else {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return std::tuple_cat(leaves_of(tree_child<I>(std::forward<Tree>(tree)))...);
    }(std::make_index_sequence<node_size_v<D>>{});
  }
}

template <std::size_t Offset, class Tree, class F>
void for_each_leaf(Tree&& tree, F& f) {
  using D = std::remove_cvref_t<Tree>;
  if constexpr (tree_kind_v<D> == tree_kind::leaf) {
    f(std::forward<Tree>(tree), std::integral_constant<std::size_t, Offset>{});
  } else if constexpr (tree_kind_v<D> == tree_kind::std_vector) {
    static_assert(require_static_tree<D>::value);
  } else if constexpr (tree_kind_v<D> != tree_kind::not_a_tree) {
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      (for_each_leaf<Offset + leaf_offset_of<I, D>()>(tree_child<I>(std::forward<Tree>(tree)), f), ...);
    }(std::make_index_sequence<node_size_v<D>>{});
  }
}

// Calls f(leaf, std::integral_constant<std::size_t, I>) for every leaf, I its depth-first index,
// the leaf forwarded with the tree's value category (so f can write into a mutable tree).
template <class Tree, class F>
void tree_for_each_leaf(Tree&& tree, F&& f) {
  if constexpr (!is_pytree<Tree>())
    report_not_pytree<Tree>();
  else
    for_each_leaf<0>(std::forward<Tree>(tree), f);
}

}  // namespace detail

// The leaves in depth-first order: a std::tuple of references for an lvalue tree (const
// references for a const tree), of the leaves moved out for an rvalue tree.
template <class Tree>
auto tree_leaves(Tree&& tree) {
  if constexpr (!detail::is_pytree<Tree>()) {
    detail::report_not_pytree<Tree>();
    return std::tuple<>{};
  } else {
    return detail::leaves_of(std::forward<Tree>(tree));
  }
}

}  // namespace nax
