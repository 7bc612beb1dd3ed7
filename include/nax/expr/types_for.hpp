// The array, view and leaf types of a value type and an axis list (axes<As...>): how every
// layer names "the storage of this node" (a backend's materialised result, a transform's
// evaluated output) without spelling out the pack.
#pragma once
#include "node.hpp"

namespace nax::detail {

template <class T, class L>
struct leaf_for;
template <class T, class... As>
struct leaf_for<T, axes<As...>> {
  using type = Leaf<T, As...>;
};
template <class Node>
using leaf_for_t = typename leaf_for<typename Node::value_type, typename Node::axes_type>::type;

template <class T, class L>
struct array_for;
template <class T, class... As>
struct array_for<T, axes<As...>> {
  using type = Array<T, As...>;
};
template <class T, class L>
using array_for_t = typename array_for<T, L>::type;

template <class T, class L>
struct view_for;
template <class T, class... As>
struct view_for<T, axes<As...>> {
  using type = ArrayView<T, As...>;
};
template <class T, class L>
using view_for_t = typename view_for<T, L>::type;

}  // namespace nax::detail
