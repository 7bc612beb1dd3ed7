// When two pytrees have the same structure, and the compile-time error naming the first pair
// of subtrees that differ. Tree layer; used by tree_map and by transforms that pair trees.
#pragma once
#include "traits.hpp"

namespace nax::detail {

// Same shape at this level only: both leaves (of any array-like or number type), or nodes of
// the same kind and size; two structs must be the same struct type. std::array elements and
// tuple elements may differ in type (a tree of gradients next to a tree of parameters).
template <class Left, class Right>
constexpr bool same_node_shape() {
  using L = std::remove_cvref_t<Left>;
  using R = std::remove_cvref_t<Right>;
  if constexpr (tree_kind_v<L> != tree_kind_v<R>)
    return false;
  else if constexpr (tree_kind_v<L> == tree_kind::hana_struct)
    return std::is_same_v<L, R>;
  else
    return node_size_v<L> == node_size_v<R>;
}

template <class Left, class Right>
inline constexpr bool same_node_shape_v = same_node_shape<Left, Right>();

// Left and Right are the first subtrees (depth-first) at which the trees differ.
template <class Left, class Right>
struct require_same_structure {
  static_assert(same_node_shape_v<Left, Right>,
                "nax: tree_map: the trees have different structures (Left and Right are the first "
                "subtrees that differ: a different struct type, a different tuple or array size, "
                "or a leaf where the other tree has a node)");
  static constexpr bool value = true;
};

// True when the trees match level by level down to the leaves (leaf types may differ).
template <class Left, class Right>
constexpr bool same_structure() {
  using L = std::remove_cvref_t<Left>;
  using R = std::remove_cvref_t<Right>;
  if constexpr (tree_kind_v<L> == tree_kind::not_a_tree || tree_kind_v<R> == tree_kind::not_a_tree)
    return false;
  else if constexpr (!same_node_shape_v<L, R>)
    return false;
  else if constexpr (tree_kind_v<L> == tree_kind::leaf)
    return true;
  else if constexpr (tree_kind_v<L> == tree_kind::std_vector)  // (lengths: checked at run time)
    return same_structure<typename L::value_type, typename R::value_type>();
  else
    return []<std::size_t... I>(std::index_sequence<I...>) {
      return (same_structure<tree_child_t<I, L&>, tree_child_t<I, R&>>() && ...);
    }(std::make_index_sequence<node_size_v<L>>{});
}

template <class Left, class Right>
inline constexpr bool same_structure_v = same_structure<Left, Right>();

// The compile error for trees of different structures: instantiates require_same_structure at
// each place they differ. Called (never constant-evaluated) where same_structure is false, so
// that the static_assert is the only error the user reads.
template <class Left, class Right>
void report_structure_mismatch() {
  using L = std::remove_cvref_t<Left>;
  using R = std::remove_cvref_t<Right>;
  if constexpr (tree_kind_v<L> == tree_kind::not_a_tree || tree_kind_v<R> == tree_kind::not_a_tree) {
    report_not_pytree<L>();
    report_not_pytree<R>();
  } else if constexpr (!same_node_shape_v<L, R>) {
    (void)require_same_structure<L, R>::value;
  } else if constexpr (tree_kind_v<L> == tree_kind::std_vector) {
    report_structure_mismatch<typename L::value_type, typename R::value_type>();
  } else if constexpr (tree_kind_v<L> != tree_kind::leaf) {
    []<std::size_t... I>(std::index_sequence<I...>) {
      (report_structure_mismatch<tree_child_t<I, L&>, tree_child_t<I, R&>>(), ...);
    }(std::make_index_sequence<node_size_v<L>>{});
  }
}

}  // namespace nax::detail
