// Where a differentiation runs: the memory space of the differentiated program. A space says
// which evaluation context the forward and backward passes share, what array type holds a
// gradient (zero-filled when made from extents), how a cotangent is written into memory of
// that space, and how the output becomes the value the user gets. host_space is this file's;
// the CUDA backend adds its own (backend/cuda/autodiff.hpp) and claims, through space_of,
// every program that reads device arrays. The rules and grad.hpp name no backend.
#pragma once
#include <memory>
#include <type_traits>

#include "../backend/host/assign.hpp"

namespace nax::detail::ad {

struct host_space {
  using context = host::context;
  static context make_context() { return {}; }
  template <class T, class Axes>
  using array = array_for_t<T, Axes>;

  // An array whose every element will be written before it is read.
  template <class T, class Axes, std::size_t N>
  static auto uninitialised(const std::array<index_t, N>& extents) {
    return std::make_shared<array<T, Axes>>(no_fill, extents);
  }

  template <class T, class... As, class E>
  static void assign(const ArrayView<T, As...>& out, const E& e, context& ctx) {
    host::assign_in_context(out, e, ctx);
  }
  // A writable view of an array of this space, in nax's host view type (the pointer may be
  // device memory: the backend's assign knows).
  template <class T, class... As>
  static ArrayView<T, As...> writable(Array<T, As...>& a) {
    return a.view();
  }
  // The output evaluated once (a leaf of this space; reductions and contractions memoised).
  template <class E>
  static auto materialise(const E& e, context& ctx) {
    return host::materialise_any(e, ctx);
  }
  // A rank-0 result as an array the user owns.
  template <class T, class L>
  static Array<T> scalar(const L& leaf) {
    Array<T> v(std::array<index_t, 0>{});
    v.data()[0] = leaf.view.data()[0];
    return v;
  }
};

// The space of an expression: the host unless a backend claims it (the CUDA backend
// specialises this for expressions that read device arrays).
template <class E, class = void>
struct space_of {
  using type = host_space;
};
template <class E>
using space_of_t = typename space_of<std::remove_cvref_t<E>>::type;

}  // namespace nax::detail::ad
