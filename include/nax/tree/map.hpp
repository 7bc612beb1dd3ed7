// tree_map: a function applied leafwise to one or more pytrees of the same structure, giving a
// pytree of the results; and the single-tree helpers transforms build on. Tree layer.
//
// What f receives. An owning array leaf (nax::Array) is passed as its const view
// (nax::ArrayView<const T, As...>): cheap to copy, and an expression built from it refers to
// the tree's storage, so `[](auto p, auto g) { return p - 0.01f * g; }` returns nothing that
// points into a copy local to f. Every other leaf (view, expression, number) is passed as it
// is, const for lvalue trees.
//
// What tree_map returns, node by node (the results are f's return values, decayed):
// - a leaf: f's result;
// - a struct S (BOOST_HANA_DEFINE_STRUCT): an S when every member's result fits the member's
//   type (rebuild.hpp: an expression of the member Array's axes and a non-narrowing type is
//   evaluated into the member; a number converts; nested tuples/arrays fit element by element),
//   otherwise a std::tuple of the members' results, in member order (a function that changes
//   a member's axes, as vmap does, gives a tuple; `auto [w, b] = tree_map(...)` reads it);
// - std::tuple -> std::tuple, std::pair -> std::pair, hana::tuple -> hana::tuple;
// - std::array<X, N> -> std::array<R, N> when every element's result has the type R,
//   otherwise a std::tuple.
// Results that are expressions stay lazy (in tuples) and refer to the input trees' arrays, as
// any nax expression does; the arrays rebuilt into a struct are evaluated inside tree_map.
// f is called once per leaf, in depth-first order (struct members in declaration order).
#pragma once
#include "rebuild.hpp"
#include "structure.hpp"

namespace nax {
namespace detail {

// The argument f sees for a leaf: an owning array's const view, anything else as it is.
template <class X>
constexpr decltype(auto) leaf_argument(X&& leaf) {
  using D = std::remove_cvref_t<X>;
  if constexpr (!expression<D> && requires(const D& owner) {
                  { owner.view() } -> array_like;
                })
    return std::as_const(leaf).view();
  else if constexpr (std::is_lvalue_reference_v<X>)
    return std::as_const(leaf);
  else
    return std::forward<X>(leaf);
}

// Packs the results of a node's children (a std::tuple, in child order) as a node of Tree's kind.
template <class Tree, class Results>
auto pack_results(Results&& results) {
  using D = std::remove_cvref_t<Tree>;
  constexpr tree_kind kind = tree_kind_v<D>;
  if constexpr (kind == tree_kind::hana_struct) {
    if constexpr (struct_rebuildable_v<D, Results>)
      return rebuild_struct<D>(std::move(results));
    else
      return std::move(results);
  } else if constexpr (kind == tree_kind::std_tuple) {
    return std::move(results);
  } else if constexpr (kind == tree_kind::std_pair) {
    using P = std::pair<std::tuple_element_t<0, Results>, std::tuple_element_t<1, Results>>;
    return P(std::get<0>(std::move(results)), std::get<1>(std::move(results)));
  } else if constexpr (kind == tree_kind::hana_tuple) {
    return std::apply([](auto&&... r) { return boost::hana::make_tuple(std::move(r)...); }, std::move(results));
  } else {
    static_assert(kind == tree_kind::std_array);
    return std::apply(
        []<class... Rs>(Rs&&... r) {
          using First = std::remove_cvref_t<std::tuple_element_t<0, std::tuple<Rs...>>>;
          if constexpr ((std::is_same_v<First, std::remove_cvref_t<Rs>> && ...))
            return std::array<First, sizeof...(Rs)>{std::move(r)...};
          else
            return std::tuple<std::remove_cvref_t<Rs>...>(std::move(r)...);
        },
        std::move(results));
  }
}

// U with the constness and value category of reference type From (an element of a node From).
template <class From, class U>
using copy_reference_t = std::conditional_t<
    std::is_lvalue_reference_v<From>,
    std::conditional_t<std::is_const_v<std::remove_reference_t<From>>, const U&, U&>,
    std::conditional_t<std::is_const_v<std::remove_reference_t<From>>, const U&&, U&&>>;

// The engine: calls leaf_fn(std::integral_constant<std::size_t, leaf index>, leaves...) at each
// leaf and packs the results node by node. The trees must have the same structure.
template <std::size_t Offset, class LeafFn, class Tree, class... Trees>
auto map_leaves(LeafFn& leaf_fn, Tree&& tree, Trees&&... trees);

// Maps child I of every tree (a separate function: a pack expansion over the trees inside one
// over the children would have to expand both packs together).
template <std::size_t Offset, std::size_t I, class LeafFn, class Tree, class... Trees>
auto map_child(LeafFn& leaf_fn, Tree&& tree, Trees&&... trees) {
  return map_leaves<Offset + leaf_offset_of<I, std::remove_cvref_t<Tree>>()>(
      leaf_fn, tree_child<I>(std::forward<Tree>(tree)), tree_child<I>(std::forward<Trees>(trees))...);
}

// A std::vector node: a run-time number of elements, each mapped as a tree of its own (the
// trees' vectors must have one length); the results are a std::vector. Leaf indices do not
// reach inside (tree_transform_leaves_indexed refuses vectors).
template <std::size_t Offset, class LeafFn, class Tree, class... Trees>
auto map_vector(LeafFn& leaf_fn, Tree&& tree, Trees&&... trees) {
  using D = std::remove_cvref_t<Tree>;
  const std::size_t n = tree.size();
  [[maybe_unused]] auto check = [&](std::size_t m) {
    if (m != n)
      throw shape_error("nax: tree_map: std::vectors of different lengths at the same place of the trees (" +
                        std::to_string(n) + " and " + std::to_string(m) + " elements)");
  };
  (check(trees.size()), ...);
  auto element = [](auto&& v, std::size_t i) -> decltype(auto) {
    using V = decltype(v);
    return static_cast<copy_reference_t<V, typename std::remove_cvref_t<V>::value_type>>(v[i]);
  };
  using R = std::remove_cvref_t<decltype(map_leaves<Offset>(
      leaf_fn, std::declval<copy_reference_t<Tree&&, typename D::value_type>>(),
      std::declval<copy_reference_t<Trees&&, typename std::remove_cvref_t<Trees>::value_type>>()...))>;
  std::vector<R> results;
  results.reserve(n);
  for (std::size_t i = 0; i != n; ++i)
    results.push_back(map_leaves<Offset>(leaf_fn, element(std::forward<Tree>(tree), i), element(std::forward<Trees>(trees), i)...));
  return results;
}

template <std::size_t Offset, class LeafFn, class Tree, class... Trees>
auto map_leaves(LeafFn& leaf_fn, Tree&& tree, Trees&&... trees) {
  using D = std::remove_cvref_t<Tree>;
  if constexpr (tree_kind_v<D> == tree_kind::leaf) {
    return leaf_fn(std::integral_constant<std::size_t, Offset>{}, std::forward<Tree>(tree),
                   std::forward<Trees>(trees)...);
  } else if constexpr (tree_kind_v<D> == tree_kind::std_vector) {
    return map_vector<Offset>(leaf_fn, std::forward<Tree>(tree), std::forward<Trees>(trees)...);
  } else if constexpr (tree_kind_v<D> == tree_kind::std_array && node_size_v<D> == 0) {
    // No element to map: the element type is what mapping one would give.
    using Element = decltype(map_leaves<Offset>(
        leaf_fn, std::declval<copy_reference_t<Tree&&, typename D::value_type>>(),
        std::declval<copy_reference_t<Trees&&, typename std::remove_cvref_t<Trees>::value_type>>()...));
    return std::array<Element, 0>{};
  } else {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      using Results = std::tuple<decltype(map_child<Offset, I>(leaf_fn, std::forward<Tree>(tree),
                                                               std::forward<Trees>(trees)...))...>;
      // Braced initialisation: the children are mapped left to right.
      return pack_results<D>(
          Results{map_child<Offset, I>(leaf_fn, std::forward<Tree>(tree), std::forward<Trees>(trees)...)...});
    }(std::make_index_sequence<node_size_v<D>>{});
  }
}

// tree_map with one tree and f seeing the leaves themselves (forwarded with the tree's value
// category: an rvalue tree's Arrays can be moved from), for transforms that rebuild trees.
template <class Tree, class F>
auto tree_transform_leaves(Tree&& tree, F&& f) {
  if constexpr (!is_pytree<Tree>()) {
    report_not_pytree<Tree>();
  } else {
    auto leaf_fn = [&](auto, auto&& leaf) { return f(std::forward<decltype(leaf)>(leaf)); };
    return map_leaves<0>(leaf_fn, std::forward<Tree>(tree));
  }
}

// As tree_transform_leaves, with f(leaf, std::integral_constant<std::size_t, I>) where I is the
// leaf's depth-first index: rebuilds a tree from a flat list (`std::get<i>(flat)`), or tags
// each leaf with its position.
template <class Tree, class F>
auto tree_transform_leaves_indexed(Tree&& tree, F&& f) {
  if constexpr (!is_pytree<Tree>()) {
    report_not_pytree<Tree>();
  } else if constexpr (holds_vector<Tree>()) {
    static_assert(require_static_tree<std::vector<std::remove_cvref_t<Tree>>>::value);
  } else {
    auto leaf_fn = [&](auto index, auto&& leaf) { return f(std::forward<decltype(leaf)>(leaf), index); };
    return map_leaves<0>(leaf_fn, std::forward<Tree>(tree));
  }
}

}  // namespace detail

// f applied to the corresponding leaves of tree and more_trees (same structure, else a compile
// error naming the first subtrees that differ); returns a pytree of the results (rules above).
template <class F, class Tree, class... MoreTrees>
auto tree_map(F&& f, Tree&& tree, MoreTrees&&... more_trees) {
  if constexpr (!detail::is_pytree<Tree>()) {
    detail::report_not_pytree<Tree>();
  } else if constexpr (!(detail::same_structure_v<Tree, MoreTrees> && ...)) {
    (detail::report_structure_mismatch<Tree, MoreTrees>(), ...);
  } else {
    auto leaf_fn = [&](auto, auto&&... leaves) {
      return f(detail::leaf_argument(std::forward<decltype(leaves)>(leaves))...);
    };
    return detail::map_leaves<0>(leaf_fn, std::forward<Tree>(tree), std::forward<MoreTrees>(more_trees)...);
  }
}

}  // namespace nax
