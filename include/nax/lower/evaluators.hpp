// The positional evaluator IR: what a lowered expression is. Names are gone; each
// evaluator reads at a loop index. The protocol, shared by the host loops and CUDA kernels:
//   set_row(idx)      idx holds the loop indices of every loop axis but the innermost;
//   get<Unit>(i)      the value at innermost index i of that row; Unit promises that every
//                     leaf that moves along the innermost axis has stride 1 there;
//   unit_inner()      whether Unit may be promised.
//   get_lanes<L>(i)   L consecutive values of the row at once (lanes.hpp: vector loads on
//                     the device).
// DependsInner is known at compile time: a leaf that does not move along the innermost axis
// reads one value per row, which keeps broadcasts on the vectorised path.
//   can_fold(k, ek, en) / fold(k, ek, en)
//                     whether loop axis k (extent ek) can be merged into the innermost one
//                     (extent en; every axis between them has extent 1), and doing it: the
//                     merged axis runs k's index times en plus the inner one, axis k keeps
//                     index 0. The loops fold while they can, so that an array with short
//                     trailing axes (a size-1 "out" axis, say) runs long inner loops instead
//                     of paying a row's setup per element.
//   visit_leaves(v)   v(leaf) for every leaf_eval it reads (alias checks, and on a thread's
//                     own copy, the host loop's gatherer, which repoints them).
// The concept `evaluator` below states this protocol; the loops and kernels require it, so an
// evaluator that lacks a member fails there, with the concept's name.
#pragma once
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>

#include "../core/config.hpp"
#include "../core/pack.hpp"
#include "lanes.hpp"

namespace nax::detail {

// The evaluator protocol (above). get_lanes<L> is required where lanes are read (lanes.hpp).
// visit_leaves is checked with a named visitor: nvcc 13 holds a lambda in a concept unsatisfied
// (docs/toolchain.md).
struct any_leaf_visitor {
  template <class Leaf>
  void operator()(const Leaf&) const {}
};
template <class Ev>
concept evaluator = std::copy_constructible<Ev> && requires(Ev& ev, const Ev& read, const index_t* idx, index_t i,
                                                            std::size_t k) {
  typename Ev::value_type;
  ev.set_row(idx);
  { read.template get<true>(i) } -> std::convertible_to<typename Ev::value_type>;
  { read.template get<false>(i) } -> std::convertible_to<typename Ev::value_type>;
  { read.unit_inner() } -> std::same_as<bool>;
  { read.can_fold(k, i, i) } -> std::same_as<bool>;
  ev.fold(k, i, i);
  read.visit_leaves(any_leaf_visitor{});
};

// Folding of one affine index (stride per loop axis). moves_inner: whether the type lets the
// index move along the innermost axis.
template <std::size_t N>
NAX_HOST_DEVICE bool affine_can_fold(const std::array<index_t, N>& s, bool moves_inner, std::size_t k, index_t ek,
                                     index_t en) {
  if (ek == 1) return true;
  if (!moves_inner) return s[k] == 0;
  return en == 1 || s[k] == s[N - 1] * en;
}
template <std::size_t N>
NAX_HOST_DEVICE void affine_fold(std::array<index_t, N>& s, bool moves_inner, std::size_t k, index_t ek, index_t en) {
  if (moves_inner && ek != 1 && en == 1) s[N - 1] = s[k];
  s[k] = 0;
}

// Reads data[offset] with offset = base + sum_k stride[k] * loop_index[k]; offsets, not
// pointers, so no out-of-range pointer is ever formed.
template <class T, std::size_t N, bool DependsInner>
struct leaf_eval {
  using value_type = T;
  static constexpr bool depends_inner = DependsInner;
  static constexpr std::size_t rank = N;
  const T* data;
  index_t base;
  std::array<index_t, N> stride;
  index_t row = 0;
  // The whole memory the leaf may read, for alias checks.
  const void* lo;
  const void* hi;

  NAX_HOST_DEVICE void set_row(const index_t* idx) {
    row = base;
    if constexpr (N > 0)
      for (std::size_t k = 0; k + 1 < N; ++k) row += idx[k] * stride[k];
  }
  template <bool Unit>
  NAX_HOST_DEVICE T get(index_t i) const {
    if constexpr (!DependsInner) return data[row];
    else if constexpr (Unit) return data[row + i];
    else return data[row + i * stride[N - 1]];
  }
  template <int L>
  NAX_HOST_DEVICE lanes<T, L> get_lanes(index_t i) const {
    if constexpr (DependsInner) return load_lanes<L>(data + row + i);
    else return broadcast_lanes<L>(data[row]);
  }
  bool unit_inner() const {
    if constexpr (DependsInner) return stride[N - 1] == 1;
    else return true;
  }
  bool can_fold(std::size_t k, index_t ek, index_t en) const {
    return affine_can_fold(stride, DependsInner, k, ek, en);
  }
  void fold(std::size_t k, index_t ek, index_t en) { affine_fold(stride, DependsInner, k, ek, en); }
  template <class V>
  void visit_leaves(V&& v) const {
    v(*this);
  }
  template <class V>
  void visit_leaves(V&& v) {
    v(*this);
  }
};

template <class T>
struct scalar_eval {
  using value_type = T;
  T value;
  NAX_HOST_DEVICE void set_row(const index_t*) {}
  template <bool Unit>
  NAX_HOST_DEVICE T get(index_t) const {
    return value;
  }
  template <int L>
  NAX_HOST_DEVICE lanes<T, L> get_lanes(index_t) const {
    return broadcast_lanes<L>(value);
  }
  bool unit_inner() const { return true; }
  bool can_fold(std::size_t, index_t, index_t) const { return true; }
  void fold(std::size_t, index_t, index_t) {}
  template <class V>
  void visit_leaves(V&&) const {}
};

// An index as a value (axis_index): base + sum_k coef[k] * loop_index[k].
template <class T, std::size_t N, bool DependsInner>
struct index_eval {
  using value_type = T;
  index_t base;
  std::array<index_t, N> coef;
  index_t row = 0;
  NAX_HOST_DEVICE void set_row(const index_t* idx) {
    row = base;
    if constexpr (N > 0)
      for (std::size_t k = 0; k + 1 < N; ++k) row += idx[k] * coef[k];
  }
  template <bool Unit>
  NAX_HOST_DEVICE T get(index_t i) const {
    if constexpr (DependsInner) return static_cast<T>(row + i * coef[N - 1]);
    else return static_cast<T>(row);
  }
  template <int L>
  NAX_HOST_DEVICE lanes<T, L> get_lanes(index_t i) const {
    return lanes_by_element<L>(*this, i);
  }
  bool unit_inner() const { return true; }
  bool can_fold(std::size_t k, index_t ek, index_t en) const { return affine_can_fold(coef, DependsInner, k, ek, en); }
  void fold(std::size_t k, index_t ek, index_t en) { affine_fold(coef, DependsInner, k, ek, en); }
  template <class V>
  void visit_leaves(V&&) const {}
};

// Generated values: f(seed value, linear index), the index affine in the loop indices.
// A value that does not move along the innermost axis (a key split per row, for instance)
// is computed once per row in set_row: the compiler cannot be trusted to hoist a whole
// cipher out of a vectorised loop (only when the seed does not move along it either: a key
// per batch element with batch innermost does). When the generated values number at most 2^32
// (counter32, set by lower), the unit path computes the index in 32 bits: the compiler then
// sees a counter whose high word is 0, as in a hand-written threefry loop (about a sixth of
// the vector instructions of a sampler are 64-bit index arithmetic otherwise). Larger
// samples take the strided path with 64-bit indices.
template <class F, class SeedEv, std::size_t N, bool DependsInner, bool SeedDependsInner>
struct generate_eval {
  static constexpr bool per_row = !DependsInner && !SeedDependsInner;
  using value_type = typename F::template result<typename SeedEv::value_type>;
  F f;
  SeedEv seed;
  index_t base;
  std::array<index_t, N> coef;
  index_t row = 0;
  bool counter32 = false;
  value_type row_value{};
  NAX_HOST_DEVICE void set_row(const index_t* idx) {
    seed.set_row(idx);
    row = base;
    if constexpr (N > 0)
      for (std::size_t k = 0; k + 1 < N; ++k) row += idx[k] * coef[k];
    if constexpr (per_row) row_value = f(seed.template get<true>(0), row);
  }
  template <bool Unit>
  NAX_HOST_DEVICE value_type get(index_t i) const {
    if constexpr (DependsInner) {
      index_t linear;
      if constexpr (Unit)  // counter32: row + i < 2^32, so the 32-bit sum is exact
        linear = static_cast<index_t>(static_cast<std::uint32_t>(row) + static_cast<std::uint32_t>(i));
      else
        linear = row + i * coef[N - 1];
      return f(seed.template get<Unit>(i), linear);
    } else if constexpr (per_row) {
      return row_value;
    } else {
      return f(seed.template get<Unit>(i), row);
    }
  }
  template <int L>
  NAX_HOST_DEVICE lanes<value_type, L> get_lanes(index_t i) const {
    return lanes_by_element<L>(*this, i);
  }
  // Unit also promises that the linear index moves by 1 along the innermost axis and fits
  // in 32 bits.
  bool unit_inner() const {
    if constexpr (DependsInner) return seed.unit_inner() && coef[N - 1] == 1 && counter32;
    else return seed.unit_inner();
  }
  bool can_fold(std::size_t k, index_t ek, index_t en) const {
    return affine_can_fold(coef, DependsInner, k, ek, en) && seed.can_fold(k, ek, en);
  }
  void fold(std::size_t k, index_t ek, index_t en) {
    affine_fold(coef, DependsInner, k, ek, en);
    seed.fold(k, ek, en);
  }
  template <class V>
  void visit_leaves(V&& v) const {
    seed.visit_leaves(v);
  }
  template <class V>
  void visit_leaves(V&& v) {
    seed.visit_leaves(v);
  }
};

// The evaluator of Map<F, ...>: F of its children's values. The index sequence Is (one per
// child) lets each method expand the children directly, without a lambda and an apply per
// method and evaluator type (what the compiler emits for every fused expression;
// docs/compile_time.md).
template <class F, class Is, class... Evs>
struct map_eval;
template <class F, std::size_t... Is, class... Evs>
struct map_eval<F, std::index_sequence<Is...>, Evs...> {
  using value_type = typename F::template result<typename Evs::value_type...>;
  pack<Evs...> children;

  NAX_HOST_DEVICE void set_row(const index_t* idx) {
    (static_cast<pack_slot<Is, Evs>&>(children).value.set_row(idx), ...);
  }
  template <bool Unit>
  NAX_HOST_DEVICE value_type get(index_t i) const {
    return F{}(static_cast<const pack_slot<Is, Evs>&>(children).value.template get<Unit>(i)...);
  }
  template <int L>
  NAX_HOST_DEVICE lanes<value_type, L> get_lanes(index_t i) const {
    return map_lanes<value_type, L>(F{},
                                    static_cast<const pack_slot<Is, Evs>&>(children).value.template get_lanes<L>(i)...);
  }
  bool unit_inner() const {
    return (static_cast<const pack_slot<Is, Evs>&>(children).value.unit_inner() && ... && true);
  }
  bool can_fold([[maybe_unused]] std::size_t k, [[maybe_unused]] index_t ek, [[maybe_unused]] index_t en) const {
    return (static_cast<const pack_slot<Is, Evs>&>(children).value.can_fold(k, ek, en) && ... && true);
  }
  void fold([[maybe_unused]] std::size_t k, [[maybe_unused]] index_t ek, [[maybe_unused]] index_t en) {
    (static_cast<pack_slot<Is, Evs>&>(children).value.fold(k, ek, en), ...);
  }
  template <class V>
  void visit_leaves([[maybe_unused]] V&& v) const {
    (static_cast<const pack_slot<Is, Evs>&>(children).value.visit_leaves(v), ...);
  }
  template <class V>
  void visit_leaves([[maybe_unused]] V&& v) {
    (static_cast<pack_slot<Is, Evs>&>(children).value.visit_leaves(v), ...);
  }
};

}  // namespace nax::detail
