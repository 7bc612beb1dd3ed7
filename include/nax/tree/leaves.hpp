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

// The types tree_leaves would give, where a std::vector counts as one element of its type
// (a run-time number of leaves of that type): what a transform asks of every leaf's type
// (is it mapped, can it be stored) holds for the vector's elements when it holds for one.
template <class Tree>
constexpr auto leaf_types_of() {
  using D = std::remove_cvref_t<Tree>;
  if constexpr (tree_kind_v<D> == tree_kind::leaf) {
    if constexpr (std::is_lvalue_reference_v<Tree>) return std::type_identity<std::tuple<Tree>>{};
    else return std::type_identity<std::tuple<D>>{};
  } else if constexpr (tree_kind_v<D> == tree_kind::not_a_tree) {
    return std::type_identity<std::tuple<>>{};
  } else if constexpr (tree_kind_v<D> == tree_kind::std_vector) {
    using Element = std::conditional_t<std::is_lvalue_reference_v<Tree>,
                                       std::conditional_t<std::is_const_v<std::remove_reference_t<Tree>>,
                                                          const typename D::value_type&, typename D::value_type&>,
                                       typename D::value_type>;
    return leaf_types_of<Element>();
  } else {
    return []<std::size_t... I>(std::index_sequence<I...>) {
      return std::type_identity<decltype(std::tuple_cat(
          std::declval<typename decltype(leaf_types_of<tree_child_t<I, Tree>>())::type>()...))>{};
    }(std::make_index_sequence<node_size_v<D>>{});
  }
}
template <class Tree>
using leaf_types_t = typename decltype(leaf_types_of<Tree>())::type;

// Whether pred(std::type_identity<Leaf>{}) holds for some (for every) leaf type of Tree, as
// leaf_types_t lists them: one fold, for the compile-time questions transforms ask of a tree.
template <class Tree, class Pred>
constexpr bool any_leaf_type(Pred pred) {
  return []<class... Leaves>(Pred p, std::type_identity<std::tuple<Leaves...>>) {
    return (p(std::type_identity<Leaves>{}) || ... || false);
  }(pred, std::type_identity<leaf_types_t<Tree>>{});
}
template <class Tree, class Pred>
constexpr bool every_leaf_type(Pred pred) {
  return []<class... Leaves>(Pred p, std::type_identity<std::tuple<Leaves...>>) {
    return (p(std::type_identity<Leaves>{}) && ... && true);
  }(pred, std::type_identity<leaf_types_t<Tree>>{});
}

// Calls f(leaf, more_leaf...) on the corresponding leaves of one or more trees of the same
// structure, in depth-first order, std::vectors included (their lengths must agree): for
// run-time walks that need no leaf index (extents, checks, writing results).
template <class F, class Tree, class... Trees>
void visit_leaves_of(F& f, Tree&& tree, Trees&&... trees) {
  using D = std::remove_cvref_t<Tree>;
  if constexpr (tree_kind_v<D> == tree_kind::leaf) {
    f(std::forward<Tree>(tree), std::forward<Trees>(trees)...);
  } else if constexpr (tree_kind_v<D> == tree_kind::std_vector) {
    auto check = [&](std::size_t m) {
      if (m != tree.size())
        throw shape_error("nax: std::vectors of different lengths at the same place of two trees (" +
                          std::to_string(tree.size()) + " and " + std::to_string(m) + " elements)");
    };
    (check(trees.size()), ...);
    for (std::size_t i = 0; i != tree.size(); ++i) visit_leaves_of(f, tree[i], trees[i]...);
  } else if constexpr (tree_kind_v<D> != tree_kind::not_a_tree) {
    // (one lambda per child: expanding the children and the trees in one pack would not work)
    auto child = [&]<std::size_t I>(std::integral_constant<std::size_t, I>) {
      visit_leaves_of(f, tree_child<I>(tree), tree_child<I>(trees)...);
    };
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      (child(std::integral_constant<std::size_t, I>{}), ...);
    }(std::make_index_sequence<node_size_v<D>>{});
  }
}
template <class F, class Tree, class... Trees>
void tree_visit_leaves(F&& f, Tree&& tree, Trees&&... trees) {
  if constexpr (!is_pytree<Tree>()) report_not_pytree<Tree>();
  else visit_leaves_of(f, std::forward<Tree>(tree), std::forward<Trees>(trees)...);
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
