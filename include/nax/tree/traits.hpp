// What a pytree is: leaves (arrays, views, expressions, C++ numbers) and nodes (Hana structs,
// hana::tuple, std::tuple, std::pair, std::array), classified at compile time, with uniform
// access to a node's children. Tree layer: includes expr/node.hpp (for array_like) and Hana.
#pragma once
#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/hana/accessors.hpp>
#include <boost/hana/at.hpp>
#include <boost/hana/concept/struct.hpp>
#include <boost/hana/length.hpp>
#include <boost/hana/second.hpp>
#include <boost/hana/tuple.hpp>

#include "../expr/node.hpp"

namespace nax {

// A pytree leaf: anything array-valued (Array, ArrayView, expression node) or a C++ number.
template <class X>
concept tree_leaf = array_like<X> || element<std::remove_cvref_t<X>>;

namespace detail {

enum class tree_kind { leaf, hana_struct, hana_tuple, std_tuple, std_pair, std_array, std_vector, not_a_tree };

template <class D>
struct is_hana_tuple : std::false_type {};
template <class... Xs>
struct is_hana_tuple<boost::hana::tuple<Xs...>> : std::true_type {};

template <class D>
struct is_std_tuple : std::false_type {};
template <class... Xs>
struct is_std_tuple<std::tuple<Xs...>> : std::true_type {};

template <class D>
struct is_std_pair : std::false_type {};
template <class A, class B>
struct is_std_pair<std::pair<A, B>> : std::true_type {};

template <class D>
struct is_std_vector : std::false_type {};
template <class X, class Allocator>
struct is_std_vector<std::vector<X, Allocator>> : std::true_type {};

template <class D>
struct is_std_array : std::false_type {};
template <class X, std::size_t N>
struct is_std_array<std::array<X, N>> : std::true_type {};

// Leaves first: an expression type is never looked at as a node.
template <class X>
constexpr tree_kind tree_kind_of() {
  using D = std::remove_cvref_t<X>;
  if constexpr (tree_leaf<D>)
    return tree_kind::leaf;
  else if constexpr (is_hana_tuple<D>::value)
    return tree_kind::hana_tuple;
  else if constexpr (is_std_tuple<D>::value)
    return tree_kind::std_tuple;
  else if constexpr (is_std_pair<D>::value)
    return tree_kind::std_pair;
  else if constexpr (is_std_array<D>::value)
    return tree_kind::std_array;
  else if constexpr (is_std_vector<D>::value)
    return tree_kind::std_vector;
  else if constexpr (boost::hana::Struct<D>::value)
    return tree_kind::hana_struct;
  else
    return tree_kind::not_a_tree;
}

template <class X>
inline constexpr tree_kind tree_kind_v = tree_kind_of<X>();

template <class X>
inline constexpr bool is_tree_node_v =
    tree_kind_v<X> != tree_kind::leaf && tree_kind_v<X> != tree_kind::not_a_tree;

// Stated where a walk meets a type that is neither a leaf nor a node (a std::string member,
// a pointer, a struct not adapted with BOOST_HANA_DEFINE_STRUCT).
template <class NotATree>
struct require_pytree {
  static_assert(tree_kind_v<NotATree> != tree_kind::not_a_tree,
                "nax: not a pytree: NotATree is neither a leaf (nax::Array, nax::ArrayView, an "
                "expression, a C++ number) nor a node (a struct adapted with BOOST_HANA_DEFINE_STRUCT, "
                "hana::tuple, std::tuple, std::pair, std::array)");
  static constexpr bool value = true;
};

// Number of children of a node (0 for a leaf).
template <class X, tree_kind Kind = tree_kind_v<X>>
inline constexpr std::size_t node_size_v = 0;
template <class X>
inline constexpr std::size_t node_size_v<X, tree_kind::hana_struct> =
    decltype(boost::hana::length(boost::hana::accessors<std::remove_cvref_t<X>>()))::value;
template <class X>
inline constexpr std::size_t node_size_v<X, tree_kind::hana_tuple> =
    decltype(boost::hana::length(std::declval<const std::remove_cvref_t<X>&>()))::value;
template <class X>
inline constexpr std::size_t node_size_v<X, tree_kind::std_tuple> = std::tuple_size_v<std::remove_cvref_t<X>>;
template <class X>
inline constexpr std::size_t node_size_v<X, tree_kind::std_pair> = 2;
template <class X>
inline constexpr std::size_t node_size_v<X, tree_kind::std_array> = std::tuple_size_v<std::remove_cvref_t<X>>;

// Child I of a node, with the node's value category (an rvalue node yields rvalue children,
// except for children that are references).
template <std::size_t I, class Node>
constexpr decltype(auto) tree_child(Node&& node) {
  using D = std::remove_cvref_t<Node>;
  if constexpr (tree_kind_v<D> == tree_kind::hana_struct)
    return boost::hana::second(boost::hana::at_c<I>(boost::hana::accessors<D>()))(std::forward<Node>(node));
  else if constexpr (tree_kind_v<D> == tree_kind::hana_tuple)
    return boost::hana::at_c<I>(std::forward<Node>(node));
  else
    return std::get<I>(std::forward<Node>(node));
}

template <std::size_t I, class Node>
using tree_child_t = decltype(tree_child<I>(std::declval<Node>()));

// The declared type of child I (a struct member's type, a tuple element's type), unqualified.
template <std::size_t I, class Node>
using tree_child_value_t = std::remove_cvref_t<tree_child_t<I, std::remove_cvref_t<Node>&>>;

// Stated where a walk that needs a tree of static shape (a leaf count, leaf indices: tree_leaves,
// vmap, xmap) meets a std::vector, whose number of leaves is known only at run time.
template <class Vector>
struct require_static_tree {
  static_assert(tree_kind_v<Vector> != tree_kind::std_vector,
                "nax: a std::vector in a pytree has a run-time number of leaves (Vector); tree_leaves, vmap and "
                "xmap need a tree of static shape (use std::array there); tree_map, tree_reduce and grad take "
                "std::vectors");
  static constexpr bool value = true;
};

// Compile-time leaf count (fold expressions, no recursion through class templates).
template <class X>
constexpr std::size_t tree_size_of() {
  using D = std::remove_cvref_t<X>;
  static_assert(require_pytree<D>::value);
  static_assert(require_static_tree<D>::value);
  if constexpr (tree_kind_v<D> == tree_kind::leaf) {
    return 1;
  } else if constexpr (tree_kind_v<D> == tree_kind::not_a_tree) {
    return 0;
  } else {
    return []<std::size_t... I>(std::index_sequence<I...>) {
      return (std::size_t{0} + ... + tree_size_of<tree_child_t<I, D&>>());
    }(std::make_index_sequence<node_size_v<D>>{});
  }
}

// Index of the first leaf of child I of node D, in depth-first order.
template <std::size_t I, class D>
constexpr std::size_t leaf_offset_of() {
  return []<std::size_t... J>(std::index_sequence<J...>) {
    return (std::size_t{0} + ... + tree_size_of<tree_child_t<J, D&>>());
  }(std::make_index_sequence<I>{});
}

}  // namespace detail

// The number of leaves of a pytree type, at compile time.
template <class Tree>
inline constexpr std::size_t tree_size_v = detail::tree_size_of<Tree>();

namespace detail {
template <class X>
constexpr bool is_pytree() {
  if constexpr (tree_kind_v<X> == tree_kind::leaf)
    return true;
  else if constexpr (tree_kind_v<X> == tree_kind::std_vector)
    return is_pytree<typename std::remove_cvref_t<X>::value_type>();
  else if constexpr (tree_kind_v<X> == tree_kind::not_a_tree)
    return false;
  else
    return []<std::size_t... I>(std::index_sequence<I...>) {
      return (is_pytree<tree_child_t<I, std::remove_cvref_t<X>&>>() && ...);
    }(std::make_index_sequence<node_size_v<X>>{});
}

// The compile error for a type that is not a pytree: instantiates require_pytree for each part
// that is neither a leaf nor a node. Called (never constant-evaluated) where is_pytree is false,
// so that the static_assert is the only error the user reads.
template <class X>
void report_not_pytree() {
  using D = std::remove_cvref_t<X>;
  if constexpr (tree_kind_v<D> == tree_kind::not_a_tree) {
    (void)require_pytree<D>::value;
  } else if constexpr (tree_kind_v<D> == tree_kind::std_vector) {
    report_not_pytree<typename D::value_type>();
  } else if constexpr (is_tree_node_v<D>) {
    []<std::size_t... I>(std::index_sequence<I...>) {
      (report_not_pytree<tree_child_t<I, D&>>(), ...);
    }(std::make_index_sequence<node_size_v<D>>{});
  }
}
}  // namespace detail

namespace detail {
// Does the tree hold a std::vector anywhere (a run-time number of leaves)?
template <class X>
constexpr bool holds_vector() {
  using D = std::remove_cvref_t<X>;
  if constexpr (tree_kind_v<D> == tree_kind::std_vector)
    return true;
  else if constexpr (!is_tree_node_v<D>)
    return false;
  else
    return []<std::size_t... I>(std::index_sequence<I...>) {
      return (holds_vector<tree_child_t<I, D&>>() || ... || false);
    }(std::make_index_sequence<node_size_v<D>>{});
}
}  // namespace detail

// A leaf, or a node whose children are all pytrees (checked to the leaves).
template <class X>
concept pytree = detail::is_pytree<X>();

}  // namespace nax
