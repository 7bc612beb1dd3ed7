// The evaluator of take (expr/index.hpp): reads a strided source at a position computed per
// element, source[row offset of its other axes + resolve_index(idx) * stride along A]. The
// index is an ordinary evaluator (fused: a token array, an argmax, an axis_index); the
// source is a leaf read at computed positions, so it is not a leaf of the protocol's
// visit_leaves in the usual sense: it is reported as one that does not move along the rows
// (stride 0 everywhere, the whole source's memory as its range), which tells the alias
// check that the pass reads the source's memory anywhere, while the tile gatherer and the
// lane loads leave it alone.
#pragma once
#include <array>
#include <cstddef>

#include "../expr/index.hpp"
#include "evaluators.hpp"

namespace nax::detail {

template <class T, std::size_t N, bool DependsInner, class IndexEv>
struct gather_eval {
  using value_type = T;
  const T* data;
  index_t base;                  // offset of the source's other axes at loop index 0
  std::array<index_t, N> stride; // their offsets per loop axis
  index_t row = 0;
  index_t axis_stride;           // along A
  index_t axis_extent;           // > 0 whenever an element is read
  index_mode mode;
  T fill;
  IndexEv index;
  leaf_eval<T, N, false> whole;  // for visit_leaves: the source's memory, read anywhere

  NAX_HOST_DEVICE void set_row(const index_t* idx) {
    index.set_row(idx);
    row = base;
    if constexpr (N > 0)
      for (std::size_t k = 0; k + 1 < N; ++k) row += idx[k] * stride[k];
  }
  template <bool Unit>
  NAX_HOST_DEVICE T get(index_t i) const {
    const index_t k = resolve_index(index.template get<Unit>(i), axis_extent, mode);
    if (k < 0) return fill;
    index_t at = row + k * axis_stride;
    if constexpr (DependsInner) at += Unit ? i : i * stride[N - 1];
    return data[at];
  }
  template <int L>
  NAX_HOST_DEVICE lanes<T, L> get_lanes(index_t i) const {
    return lanes_by_element<L>(*this, i);
  }
  bool unit_inner() const {
    if constexpr (DependsInner) return stride[N - 1] == 1 && index.unit_inner();
    else return index.unit_inner();
  }
  bool can_fold(std::size_t k, index_t ek, index_t en) const {
    return affine_can_fold(stride, DependsInner, k, ek, en) && index.can_fold(k, ek, en);
  }
  void fold(std::size_t k, index_t ek, index_t en) {
    affine_fold(stride, DependsInner, k, ek, en);
    index.fold(k, ek, en);
  }
  template <class V>
  void visit_leaves(V&& v) const {
    index.visit_leaves(v);
    v(whole);
  }
  template <class V>
  void visit_leaves(V&& v) {
    index.visit_leaves(v);
    v(whole);
  }
};

}  // namespace nax::detail
