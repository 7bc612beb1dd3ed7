// Where a program runs: the memory space of the arrays it reads (lower/space_of.hpp says what
// a space is and how a program finds its own). host_space is the host's: a space says which
// evaluation context a program's passes share, what array type holds a result (zero-filled
// when made from extents), how an expression is written into memory of that space and how a
// rank-0 output becomes the value the user gets. The CUDA backend adds its own
// (backend/cuda/space.hpp). How a space takes part in a mesh is mesh/space_on_mesh.hpp's.
#pragma once
#include <memory>
#include <type_traits>

#include "../../lower/space_of.hpp"
#include "assign.hpp"

namespace nax::detail {

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
  // A leaf of this space reading a view that writable gave (to read a result back while adding into it).
  template <class T, class... As>
  static auto read(const ArrayView<T, As...>& v, context&) {
    return leaf_of(v);
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

static_assert(memory_space<host_space>);

}  // namespace nax::detail
