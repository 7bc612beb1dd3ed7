// Walking an expression's leaves: the views of memory it reads (of either memory space), and
// stop_gradient, below which autodiff sees no dependence. Expr layer; the tape of a running
// grad (core/tape_hooks.hpp, autodiff/tape.hpp) and the backend's evaluation entry use it.
#pragma once
#include <tuple>
#include <type_traits>

#include "elementwise.hpp"
#include "functors.hpp"

namespace nax::detail {

// A leaf of any memory space: a strided view (Leaf on the host, the CUDA backend's DeviceLeaf).
template <class L>
concept leaf_node = requires(const L& l) {
  l.view.data();
  l.view.strides();
};

template <class E>
struct is_stop_gradient : std::false_type {};
template <class C>
struct is_stop_gradient<Map<fn::stop_gradient, C>> : std::true_type {};

template <bool ThroughStops, std::size_t... Is, class... Cs, class F>
void visit_children_leaves(const pack_impl<std::index_sequence<Is...>, Cs...>& children, F& f);

// Calls f on every leaf of e. Below stop_gradient only when ThroughStops: what a backward
// pass reads includes those leaves, what e depends on does not.
template <bool ThroughStops, class E, class F>
void visit_expression_leaves(const E& e, F& f) {
  if constexpr (leaf_node<E>) {
    f(e);
  } else if constexpr (!ThroughStops && is_stop_gradient<E>::value) {
    return;
  } else if constexpr (requires { e.children; }) {
    visit_children_leaves<ThroughStops>(e.children, f);
  } else if constexpr (requires { e.a; e.b; }) {
    visit_expression_leaves<ThroughStops>(e.a, f);
    visit_expression_leaves<ThroughStops>(e.b, f);
  } else if constexpr (requires { e.child; }) {
    visit_expression_leaves<ThroughStops>(e.child, f);
  } else if constexpr (requires { e.seed; }) {
    visit_expression_leaves<ThroughStops>(e.seed, f);
  }
}

// A node's children, each visited (one function per pack: pack::apply and a lambda would be two).
template <bool ThroughStops, std::size_t... Is, class... Cs, class F>
void visit_children_leaves(const pack_impl<std::index_sequence<Is...>, Cs...>& children, F& f) {
  (visit_expression_leaves<ThroughStops>(static_cast<const pack_slot<Is, Cs>&>(children).value, f), ...);
}

// The bytes [first, last) a strided view spans ({null, null} when it is empty).
template <class View>
std::pair<const char*, const char*> byte_range(const View& view) {
  using T = std::remove_cvref_t<decltype(*view.data())>;
  index_t lo = 0, hi = 0;
  for (std::size_t k = 0; k != view.extents().size(); ++k) {
    if (view.extents()[k] == 0) return {nullptr, nullptr};
    (view.strides()[k] < 0 ? lo : hi) += view.strides()[k] * (view.extents()[k] - 1);
  }
  const char* base = reinterpret_cast<const char*>(view.data());
  return {base + lo * index_t{sizeof(T)}, base + (hi + 1) * index_t{sizeof(T)}};
}

// Does floating-point expression e read memory that the tape t tracks (stop_gradient cuts)?
template <class E>
bool depends_on_tape(const E& e, const tape_interface& t) {
  bool found = false;
  auto look = [&](const auto& leaf) {
    using L = std::remove_cvref_t<decltype(leaf)>;
    if constexpr (std::is_floating_point_v<typename L::value_type>) {
      auto [first, last] = byte_range(leaf.view);
      found = found || (first && t.depends(first, static_cast<std::size_t>(last - first)));
    }
  };
  visit_expression_leaves<false>(e, look);
  return found;
}

}  // namespace nax::detail
