// Indexing on the host (expr/index.hpp): take's source stored once per evaluation (the gather
// itself is fused into the consuming pass, lower/gather.hpp), the checked mode's verification,
// and scatters. The scatter algorithm is written once for every backend
// (scatter_into_temporary): a backend supplies, found by ADL on its context, make_temporary
// and assign_in_context (as for joins, join.hpp), materialise_any, verify_indices and
// run_scatter(plan, ctx); the host's are here, the CUDA backend's in backend/cuda/index.hpp.
#pragma once
#include <array>
#include <cstddef>
#include <string>
#include <utility>

#include "../../expr/index.hpp"
#include "join.hpp"
#include "threads.hpp"

namespace nax::detail {

// A scatter as loops: L loop axes, the first P of which are the output's own (threads split
// them: each output element is written by one thread), the rest (J) summed into it (an index
// array's own axes: tokens). Strides per loop axis (0 where an operand lacks the axis), in
// elements; the output is written at out + offset + resolve_index(idx) * axis_stride.
template <class T, class I, std::size_t L>
struct scatter_plan {
  T* out;
  const I* idx;
  const T* upd;
  std::array<index_t, L> extent{}, out_stride{}, idx_stride{}, upd_stride{};
  std::size_t partition = 0;  // P
  index_t axis_stride = 0, axis_extent = 0;
  index_mode mode = index_mode::clip;
};

// Calls f(flat, multi-index) for every element of extents (row-major), f(0, {}) for rank 0.
template <std::size_t N, class F>
void for_each_position(const std::array<index_t, N>& extents, F&& f) {
  index_t count = 1;
  for (index_t e : extents) count *= e;
  std::array<index_t, N> at{};
  for (index_t flat = 0; flat < count; ++flat) {
    f(flat, at);
    for (std::size_t k = N; k-- > 0;) {
      if (++at[k] < extents[k]) break;
      at[k] = 0;
    }
  }
}

// The checked mode's error for the first index outside [-n, n) that `read(offset)` finds in
// the strided index array of axes IA.
template <class A, class IA, class I, class Read>
void verify_index_values(const std::array<index_t, IA::size>& extents, const std::array<index_t, IA::size>& strides,
                         index_t n, const Read& read) {
  const auto names = axis_name_table(IA{});
  for_each_position(extents, [&](index_t, const std::array<index_t, IA::size>& at) {
    index_t offset = 0;
    for (std::size_t k = 0; k != IA::size; ++k) offset += at[k] * strides[k];
    const I raw = read(offset);
    const index_t k = static_cast<index_t>(raw);
    bool ok = k >= -n && k < n;
    if constexpr (std::is_unsigned_v<I>) ok = raw < static_cast<std::make_unsigned_t<index_t>>(n);
    if (ok) return;
    std::string where;
    for (std::size_t q = 0; q != IA::size; ++q)
      where += (q ? ", " : "") + std::string(names[q]) + "=" + std::to_string(at[q]);
    throw argument_error("nax: index " + std::to_string(raw) + " at (" + where + ") is out of range for axis '" +
                         std::string(axis_name<A>()) + "' of extent " + std::to_string(n) +
                         " (index_mode::checked accepts -" + std::to_string(n) + " to " + std::to_string(n - 1) + ")");
  });
}

// The plan of a scatter into `out` (axes OA, among them A) of updates `upd` at `idx`.
template <class A, class T, class... Os, class IL, class UL>
auto make_scatter_plan(const ArrayView<T, Os...>& out, const IL& idx, const UL& upd, index_mode mode) {
  using OA = axes<Os...>;
  using IA = typename IL::axes_type;
  using UA = typename UL::axes_type;
  using P = difference_t<OA, axes<A>>;
  using J = difference_t<UA, P>;
  using Loop = concat_t<P, J>;
  static_assert(difference_t<IA, Loop>::size == 0, "nax: internal error: a scatter's index axis is not looped over");
  using I = typename IL::value_type;
  scatter_plan<T, I, Loop::size> plan{out.data(), idx.view.data(), upd.view.data()};
  plan.partition = P::size;
  plan.axis_stride = out.strides()[index_of_v<A, OA>];
  plan.axis_extent = out.extents()[index_of_v<A, OA>];
  plan.mode = mode;
  [&]<class... Ls>(axes<Ls...>) {
    std::size_t k = 0;
    auto one = [&]<class X>(std::type_identity<X>) {
      // A loops only when the indices carry it (take_along_axis's adjoint): then it walks the
      // updates' positions along A, with their extent, and moves nothing in out by itself
      // (each update lands where its index says).
      if constexpr (contains_v<X, OA> && !std::is_same_v<X, A>) {
        plan.extent[k] = out.extents()[index_of_v<X, OA>];
        plan.out_stride[k] = out.strides()[index_of_v<X, OA>];
      } else {
        plan.extent[k] = upd.view.extents()[index_of_v<X, UA>];
      }
      if constexpr (contains_v<X, IA>) plan.idx_stride[k] = idx.view.strides()[index_of_v<X, IA>];
      if constexpr (contains_v<X, UA>) plan.upd_stride[k] = upd.view.strides()[index_of_v<X, UA>];
      ++k;
    };
    (one(std::type_identity<Ls>{}), ...);
  }(Loop{});
  return plan;
}

// e as T: itself when it is of type T already (so that a leaf stays a leaf, read in place).
template <class T, class E>
auto cast_if_needed(const E& e) {
  if constexpr (std::is_same_v<typename E::value_type, T>) return e;
  else return make_map<fn::cast_to<T>>(e);
}

// The indices and the updates (cast to the result's type) as strided leaves of ctx's space.
template <class Op, class X, class I, class U, class A, class Ctx>
auto scatter_operands(const Scatter<Op, X, I, U, A>& node, Ctx& ctx) {
  return std::pair(materialise_any(get<1>(node.children), ctx),
                   materialise_any(cast_if_needed<typename Scatter<Op, X, I, U, A>::value_type>(get<2>(node.children)), ctx));
}

// Whether two strided views share a byte.
template <class V, class W>
bool views_overlap(const V& a, const W& b) {
  const auto [a0, a1] = byte_range(a);
  const auto [b0, b1] = byte_range(b);
  return a0 && b0 && a0 < b1 && b0 < a1;
}

// x (broadcast over the mapped axes only idx or updates have) written into out, then the
// updates applied at idx along A. out has the node's axes, in any order, and shares no memory
// with idx and upd (the operands, already in memory).
template <class Op, class X, class I, class U, class A, class T, class... Os, class IL, class UL, class Ctx>
void scatter_with(const ArrayView<T, Os...>& out, const Scatter<Op, X, I, U, A>& node, const IL& idx, const UL& upd,
                  Ctx& ctx) {
  using Node = Scatter<Op, X, I, U, A>;
  using OA = typename Node::axes_type;
  const auto& x = get<0>(node.children);
  if constexpr (same_set_v<OA, typename X::axes_type>) {
    assign_in_context(out, x, ctx);
  } else {
    auto wide = by_name_relayout<OA, X, typename Node::hidden_type, unbound_t<X>>(x);
    wide.extents_ = node.extents();
    assign_in_context(out, wide, ctx);
  }
  index_t count = 1;
  for (index_t e : upd.view.extents()) count *= e;
  if (count == 0) return;
  if (node.mode == index_mode::checked) verify_indices<A>(idx, extent_of<A>(x), ctx);
  run_scatter<Op>(make_scatter_plan<A>(out, idx, upd, node.mode), ctx);
}

// The node's result in a temporary of its axes (what the backend's materialise_node returns).
template <class Op, class X, class I, class U, class A, class Ctx>
auto scatter_into_temporary(const Scatter<Op, X, I, U, A>& node, Ctx& ctx) {
  using Node = Scatter<Op, X, I, U, A>;
  auto [idx, upd] = scatter_operands(node, ctx);
  auto temporary = make_temporary(temporary_of<typename Node::value_type, typename Node::axes_type>{}, node.extents(), ctx);
  scatter_with(temporary.first, node, idx, upd, ctx);
  return temporary.second;
}

// A scatter assigned to an array of its element type (`g = scatter_add<v>(...)`): written in
// place, with no temporary and no copy, unless its indices or updates read out's memory (then
// false: the caller takes the general path).
template <class T, class... Os, class Op, class X, class I, class U, class A, class Ctx>
bool assign_scatter(const ArrayView<T, Os...>& out, const Scatter<Op, X, I, U, A>& node, Ctx& ctx) {
  auto [idx, upd] = scatter_operands(node, ctx);
  if (views_overlap(out, idx.view) || views_overlap(out, upd.view)) return false;
  scatter_with(out, node, idx, upd, ctx);
  return true;
}

}  // namespace nax::detail

namespace nax::detail::host {

template <class C>
auto materialise_node(const Stored<C>& node, context& ctx) {
  return materialise_any(node.child, ctx);
}

template <class A, class I, class... Is>
void verify_indices(const Leaf<I, Is...>& idx, index_t n, context&) {
  verify_index_values<A, axes<Is...>, I>(idx.view.extents(), idx.view.strides(), n,
                                         [&](index_t offset) { return idx.view.data()[offset]; });
}

// Threads own contiguous ranges of the output's positions (P); each walks every J position,
// then its range, a run of the innermost P axis at a time.
template <class Op, class T, class I, std::size_t L>
void run_scatter(const scatter_plan<T, I, L>& plan, context&) {
  const std::size_t P = plan.partition;
  index_t np = 1, nj = 1;
  for (std::size_t k = 0; k != L; ++k) (k < P ? np : nj) *= plan.extent[k];
  if (np == 0 || nj == 0) return;
  const bool parallel = P > 0 && np > 1 && np * nj >= parallel_threshold;
  for_each_chunk(parallel, np, [&](index_t p0, index_t p1, int) {
    std::array<index_t, L> at{};
    for (index_t j = 0; j < nj; ++j) {
      index_t rest = j, ji = 0, ju = 0;
      for (std::size_t k = L; k-- > P;) {
        const index_t a = rest % plan.extent[k];
        rest /= plan.extent[k];
        ji += a * plan.idx_stride[k];
        ju += a * plan.upd_stride[k];
      }
      for (index_t p = p0; p < p1;) {
        // decode p into the P axes; a run along the last of them
        index_t r = p, o = 0, ii = ji, uu = ju;
        for (std::size_t k = P; k-- > 0;) {
          at[k] = r % plan.extent[k];
          r /= plan.extent[k];
          o += at[k] * plan.out_stride[k];
          ii += at[k] * plan.idx_stride[k];
          uu += at[k] * plan.upd_stride[k];
        }
        index_t run = 1;
        index_t so = 0, si = 0, su = 0;
        if (P > 0) {
          run = std::min(p1 - p, plan.extent[P - 1] - at[P - 1]);
          so = plan.out_stride[P - 1];
          si = plan.idx_stride[P - 1];
          su = plan.upd_stride[P - 1];
        }
        if (si == 0) {
          const index_t k = resolve_index(plan.idx[ii], plan.axis_extent, plan.mode);
          if (k >= 0) {
            T* to = plan.out + o + k * plan.axis_stride;
            const T* from = plan.upd + uu;
            if (so == 1 && su == 1)  // contiguous rows (an embedding's): a loop the compiler vectorises
              for (index_t t = 0; t < run; ++t) Op::apply(to[t], from[t]);
            else
              for (index_t t = 0; t < run; ++t) Op::apply(to[t * so], from[t * su]);
          }
        } else {
          for (index_t t = 0; t < run; ++t) {
            const index_t k = resolve_index(plan.idx[ii + t * si], plan.axis_extent, plan.mode);
            if (k >= 0) Op::apply(plan.out[o + t * so + k * plan.axis_stride], plan.upd[uu + t * su]);
          }
        }
        p += run;
      }
    }
  });
}

template <class Op, class X, class I, class U, class A>
auto materialise_node(const Scatter<Op, X, I, U, A>& node, context& ctx) {
  return scatter_into_temporary(node, ctx);
}

}  // namespace nax::detail::host
