// tree_cast<Like>(tree): a tree of Like's shape rebuilt as a Like. Inside vmap and xmap a
// struct's leaves change type, so the struct becomes a std::tuple of its members (map.hpp);
// what the map returns (a tuple of Arrays, std::vectors of tuples) is then cast back to the
// declared struct. Leaves are moved from an rvalue tree and converted as assignment converts
// them (an expression is evaluated into the Array). Tree layer.
#pragma once
#include "rebuild.hpp"

namespace nax {
namespace detail {

template <class Like, class Tree>
struct require_same_node_size {
  static_assert(node_size_v<Like> == node_size_v<std::remove_cvref_t<Tree>>,
                "nax: tree_cast: Tree has a different number of children from Like at the same place");
  static constexpr bool value = true;
};

template <class Like, class Tree>
Like cast_tree(Tree&& tree) {
  using D = std::remove_cvref_t<Tree>;
  constexpr tree_kind kind = tree_kind_v<Like>;
  if constexpr (kind == tree_kind::leaf) {
    if constexpr (std::is_same_v<Like, D>) return Like(std::forward<Tree>(tree));
    else if constexpr (element<Like>) return static_cast<Like>(tree);
    else return Like(std::forward<Tree>(tree));
  } else if constexpr (kind == tree_kind::std_vector) {
    static_assert(tree_kind_v<D> == tree_kind::std_vector, "nax: tree_cast: Like has a std::vector where Tree has none");
    Like out;
    out.reserve(tree.size());
    for (auto& element : tree) {
      if constexpr (std::is_lvalue_reference_v<Tree>) out.push_back(cast_tree<typename Like::value_type>(element));
      else out.push_back(cast_tree<typename Like::value_type>(std::move(element)));
    }
    return out;
  } else {
    static_assert(require_same_node_size<Like, Tree>::value);
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      if constexpr (kind == tree_kind::hana_struct && !struct_aggregate_buildable_v<Like>) {
        Like out{};
        ((tree_child<I>(out) = cast_tree<tree_child_value_t<I, Like>>(tree_child<I>(std::forward<Tree>(tree)))), ...);
        return out;
      } else if constexpr (kind == tree_kind::hana_tuple) {
        return Like(cast_tree<tree_child_value_t<I, Like>>(tree_child<I>(std::forward<Tree>(tree)))...);
      } else {
        return Like{cast_tree<tree_child_value_t<I, Like>>(tree_child<I>(std::forward<Tree>(tree)))...};
      }
    }(std::make_index_sequence<node_size_v<Like>>{});
  }
}

}  // namespace detail

template <class Like, class Tree>
Like tree_cast(Tree&& tree) {
  static_assert(detail::require_pytree<Like>::value);
  return detail::cast_tree<Like>(std::forward<Tree>(tree));
}

}  // namespace nax
