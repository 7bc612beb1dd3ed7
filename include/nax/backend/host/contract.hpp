// Contractions on the host: each operand is seen as a batch of matrices (batch axes,
// outer axes, contracted axes, each group flattened into one GEMM dimension), used in
// place when its strides allow it, else packed once by a fused pass; then one batched
// GEMM (backend/host/gemm.hpp, or CBLAS with NAX_USE_CBLAS) into a temporary.
#pragma once
#include <algorithm>
#include <memory>
#include <optional>

#include "assign.hpp"
#include "gemm.hpp"

namespace nax::detail::host {

struct flat_group {
  index_t extent = 1;
  index_t stride = 0;
};

// One GEMM dimension from the axes G of a strided view, if their strides allow it.
template <class G, class T, class... As>
std::optional<flat_group> flatten_group(const ArrayView<const T, As...>& view) {
  flat_group out;
  bool ok = true;
  index_t previous_stride = 0, previous_extent = 1;
  bool any = false;
  [&]<class... Gs>(axes<Gs...>) {
    ((
         [&] {
           constexpr std::size_t j = index_of_v<Gs, axes<As...>>;
           index_t e = view.extents()[j], s = view.strides()[j];
           out.extent *= e;
           if (e <= 1) return;  // an empty group reads nothing: any stride will do
           if (any && previous_stride != s * e) ok = false;
           (void)previous_extent;
           previous_stride = s;
           previous_extent = e;
           any = true;
         }()),
     ...);
  }(G{});
  if (out.extent == 0) return flat_group{0, 0};
  if (!ok) return std::nullopt;
  out.stride = any ? previous_stride : 0;
  return out;
}

template <class X>
inline constexpr bool is_leaf_eval_v = false;
template <class T, std::size_t N, bool DependsInner>
inline constexpr bool is_leaf_eval_v<leaf_eval<T, N, DependsInner>> = true;

// batch matrices: matrix b at operand.data + b * operand.batch_stride; or, where the batch axes'
// strides flatten into two groups only (the first batch axis, the rest: an attention's
// (batch, pos, head, head_dim) read with batch axes (batch, head)), outer groups of
// batch / outer matrices each, group o at o * outer_stride.
template <class T>
struct packed_operand {
  gemm_operand<T> operand;
  index_t batch = 1, rows = 1, cols = 1;
  std::shared_ptr<const void> owner;
  index_t outer = 1, outer_stride = 0;
};

// The operand e as matrices [Batch][Rows][Cols] of element type T.
template <class T, class Batch, class Rows, class Cols, class E>
packed_operand<T> gemm_view(const E& e, context& ctx) {
  using Packed = concat_t<Batch, Rows, Cols>;
  auto from_leaf = [](const auto& leaf) -> std::optional<packed_operand<T>> {
    auto r = flatten_group<Rows>(leaf.view);
    auto c = flatten_group<Cols>(leaf.view);
    if (!r || !c) return std::nullopt;
    if (auto b = flatten_group<Batch>(leaf.view))
      return packed_operand<T>{{leaf.view.data(), b->stride, r->stride, c->stride}, b->extent, r->extent, c->extent,
                               leaf.owner};
    if constexpr (Batch::size >= 2) {
      // Two groups of batch axes read in place instead of a transposing copy of the operand.
      using First = axes<at_t<0, Batch>>;
      auto o = flatten_group<First>(leaf.view);
      auto i = flatten_group<difference_t<Batch, First>>(leaf.view);
      if (o && i) {
        packed_operand<T> p{{leaf.view.data(), i->stride, r->stride, c->stride}, o->extent * i->extent, r->extent,
                            c->extent, leaf.owner};
        p.outer = o->extent;
        p.outer_stride = o->stride;
        return p;
      }
    }
    return std::nullopt;
  };
  if constexpr (is_leaf_v<E> && std::is_same_v<typename E::value_type, T>) {
    if (auto direct = from_leaf(e)) return *direct;
  } else if constexpr (is_relayout_v<E> && std::is_same_v<typename E::value_type, T>) {
    // A relayout of a leaf (a transpose, a slice, a vmapped argument's hidden axis) is a leaf
    // with other strides once lowered: read in place, as a leaf is, not packed.
    using Lowered = decltype(lower<axes<>>(e, identity_placement<typename E::axes_type, Packed>(), ctx));
    if constexpr (is_leaf_eval_v<Lowered>) {  // (lowered only then: else packing lowers it)
      auto ev = lower<axes<>>(e, identity_placement<typename E::axes_type, Packed>(), ctx);
      const auto extents = extents_by_name<Packed>(e);
      if (std::find(extents.begin(), extents.end(), index_t{0}) == extents.end()) {  // (empty: packed, no work)
        const view_for_t<const T, Packed> view(ev.data + ev.base, extents, ev.stride);
        if (auto direct = from_leaf(typename leaf_for<T, Packed>::type{{}, view, nullptr})) return *direct;
      }
    }
  }
  // The temporary is laid out in the expression's own order where that is one of the GEMM's
  // two (rows inner or columns inner: the GEMM reads either): a pass in the order of its
  // operands streams, a transposing pass (rows innermost when the expression has columns
  // innermost) went through tiles at a third of the speed (the MLP step's backward pass,
  // ct * (1 - tanh^2) over (batch 4096, hidden 1024): 7% of the step).
  using Innermost = last_t<typename E::axes_type>;  // axes<> or axes<the last name>
  constexpr bool rows_innermost = Innermost::size == 1 && contains_v<at_t<0, Innermost>, Rows>;
  using Stored = std::conditional_t<rows_innermost, concat_t<Batch, Cols, Rows>, Packed>;
  auto packed = std::make_shared<array_for_t<T, Stored>>(no_fill, extents_by_name<Stored>(e));
  assign_in_context(packed->view(), make_map<fn::cast_to<T>>(e), ctx);
  auto leaf = leaf_of(std::as_const(*packed).view(), packed);
  auto operand = from_leaf(leaf);  // a temporary in either order always flattens
  if (!operand) throw shape_error("nax: dot: internal packing error");
  return *operand;
}

template <class A, class B, class... K>
auto materialise_node(const Contract<A, B, K...>& node, context& ctx) {
  using Node = Contract<A, B, K...>;
  using T = typename Node::value_type;
  using Batch = typename Node::batch_axes;
  using M = typename Node::a_outer_axes;
  using N = typename Node::b_outer_axes;
  using Kx = axes<K...>;
  auto a = gemm_view<T, Batch, M, Kx>(node.a, ctx);
  auto b = gemm_view<T, Batch, Kx, N>(node.b, ctx);
  using Result = concat_t<Batch, M, N>;
  auto out = std::make_shared<array_for_t<T, Result>>(no_fill, extents_by_name<Result>(node));
  gemm_output<T> c{out->data(), a.rows * b.cols, b.cols, 1};
  if (a.outer == 1 && b.outer == 1) {
    gemm<T>(a.batch, a.rows, b.cols, a.cols, T(1), a.operand, b.operand, T(0), c);
  } else if (a.batch > 0) {
    // One operand's batch axes flatten into two groups (packed_operand): a GEMM per group of
    // the first batch axis, the groups shared among the threads (each GEMM then on one).
    const index_t outer = std::max(a.outer, b.outer), inner = a.batch / outer;
    auto group = [&](const packed_operand<T>& p, index_t o) {
      const index_t stride = p.outer > 1 ? p.outer_stride : p.operand.batch_stride * inner;
      return gemm_operand<T>{p.operand.data + o * stride, p.operand.batch_stride, p.operand.row_stride,
                             p.operand.col_stride};
    };
    const double work = static_cast<double>(a.batch) * static_cast<double>(a.rows) * static_cast<double>(b.cols) *
                        static_cast<double>(a.cols);
    gemm_parallel_for(gemm_thread_count(work), outer, 1, [&](index_t o) {
      gemm<T>(inner, a.rows, b.cols, a.cols, T(1), group(a, o), group(b, o), T(0),
              {c.data + o * inner * c.batch_stride, c.batch_stride, c.row_stride, c.col_stride});
    });
  }
  // Read the result in the node's axis order, by name.
  auto result = std::as_const(*out).view();
  using NA = typename Node::axes_type;
  std::array<index_t, NA::size> strides{};
  [&]<class... Ax>(axes<Ax...>) {
    strides = {result.strides()[index_of_v<Ax, Result>]...};
  }(NA{});
  return leaf_for_t<Node>{{}, {result.data(), node.extents(), strides}, out};
}

}  // namespace nax::detail::host
