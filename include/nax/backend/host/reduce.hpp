// Reductions on the host. The producer expression is evaluated inside the reduction pass
// (never stored). Loop order: kept axes first (their outputs are disjoint, so they split
// across threads), then reduced axes, then the child's innermost axis. A reduced
// innermost axis folds into many independent accumulators (the compiler keeps a strict
// order for a single one, which caps a sum at a fraction of memory bandwidth); a kept
// innermost axis accumulates whole rows, vectorised. Few outputs: per-thread partials.
#pragma once
#include <algorithm>
#include <memory>
#include <vector>

#include "../../lower/contiguous.hpp"
#include "context.hpp"
#include "loop.hpp"
#include "sum_of_products.hpp"

namespace nax::detail::host {

inline constexpr int accumulators = 32;

template <class Op, class T, bool Unit, class Ev>
T reduce_row(const Ev& ev, index_t i0, index_t i1) {
  T acc[accumulators];
  for (int j = 0; j < accumulators; ++j) acc[j] = Op::template identity<T>();
  index_t i = i0;
  for (; i + accumulators <= i1; i += accumulators)
    for (int j = 0; j < accumulators; ++j)
      acc[j] = Op::combine(acc[j], static_cast<T>(ev.template get<Unit>(i + j)));
  // The accumulators combined pairwise: five steps the compiler does on whole vectors, where a
  // chain of 32 dependent scalar combines cost as much as a row of 1,024 floats.
  for (int w = accumulators / 2; w > 0; w /= 2)
    for (int j = 0; j < w; ++j) acc[j] = Op::combine(acc[j], acc[j + w]);
  T total = acc[0];
  for (; i < i1; ++i) total = Op::combine(total, static_cast<T>(ev.template get<Unit>(i)));
  return total;
}

// Folds the loop axes of Loop that are not in Kept into out (row-major over Kept, which
// lists the kept axes in loop order). Loop = [kept..., reduced..., innermost].
template <class Op, class T, class Loop, class Kept, class Child>
void reduce_into(const Child& child, context& ctx, T* out) {
  constexpr std::size_t N = Loop::size;
  static_assert(N > 0);
  constexpr bool inner_kept = contains_v<at_t<N - 1, Loop>, Kept>;
  constexpr std::size_t P = inner_kept ? Kept::size - 1 : Kept::size;  // leading kept axes
  auto ev = lower<last_t<Loop>>(child, identity_placement<typename Child::axes_type, Loop>(), ctx);
  auto ext = extents_by_name<Loop>(child);
  // A kept innermost axis of extent 1 is reduced like the others (its one output does not
  // move along it). Reduced axes then fold into a reduced innermost axis: a sum over a batch
  // of (batch, out = 1) runs one long row, not one row per element.
  const bool reduce_inner = !inner_kept || ext[N - 1] == 1;
  const index_t per_group = reduce_inner ? 1 : ext[N - 1];  // outputs per group
  bool empty = false;
  for (index_t e : ext) empty = empty || e == 0;
  if (reduce_inner && !empty) fold_inner_axes(ev, ext, P, static_cast<std::array<index_t, N>*>(nullptr));
  index_t groups = 1, rows = 1;
  for (std::size_t k = 0; k != P; ++k) groups *= ext[k];
  for (std::size_t k = P; k + 1 < N; ++k) rows *= ext[k];
  const index_t n = ext[N - 1];
  const index_t out_count = groups * per_group;
  std::fill_n(out, out_count, Op::template identity<T>());
  if (out_count == 0 || rows * n == 0) return;
  const bool unit = ev.unit_inner();
  // Leaves that are strided along the row (a transposed operand, or a broadcast one whose
  // row a fold made: b in sum(x + b) over (batch, out = 1)) are gathered a tile at a time
  // into small buffers, so the accumulators still run on the unit-stride path.
  const index_t columns = std::min(n, gather_columns);
  const bool gather = !unit && n >= 16 && gatherable(ev, columns);
  const bool large = groups * rows * n >= parallel_threshold;
  const int threads = large ? max_threads() : 1;  // (OpenMP's query costs more than a small row)
  const bool parallel = large && threads > 1;

  // Accumulates columns [i0, i1) of the current row into dst (the group's outputs).
  auto fold_columns = [&]<bool Unit>(auto& local, index_t i0, index_t i1, T* dst) {
    if constexpr (inner_kept) {
      if (!reduce_inner) {
        for (index_t i = i0; i < i1; ++i) dst[i] = Op::combine(dst[i], static_cast<T>(local.template get<Unit>(i)));
        return;
      }
    }
    dst[0] = Op::combine(dst[0], reduce_row<Op, T, Unit>(local, i0, i1));
  };
  // Accumulates rows [m0, m1) of group g, columns [i0, i1), into dst.
  auto fold_rows = [&](auto& local, const auto* gatherer, index_t g, index_t m0, index_t m1, index_t i0, index_t i1,
                       T* dst) {
    std::array<index_t, N + 1> idx{};
    decode_row(g * rows + m0, ext, N - 1, idx.data());
    for (index_t m = m0; m < m1; ++m) {
      if (gatherer) {
        for (index_t t = i0; t < i1; t += columns) {
          const index_t te = std::min(i1, t + columns);
          local.set_row(idx.data());  // (gather moves the rows of the leaves it buffers)
          gatherer->gather(t, te);
          fold_columns.template operator()<true>(local, t, te, dst);
        }
      } else {
        local.set_row(idx.data());
        if (unit) fold_columns.template operator()<true>(local, i0, i1, dst);
        else fold_columns.template operator()<false>(local, i0, i1, dst);
      }
      next_row(ext, N - 1, idx.data());
    }
  };
  // Runs body(local, gatherer, first, last, thread) on chunks [first, last) of count items,
  // one per thread (all of them on this thread when not parallel).
  auto per_thread = [&](index_t count, auto&& body) {
    for_each_chunk(parallel, count, [&](index_t first, index_t last, int thread) {
      auto local = ev;
      if (gather) {
        leaf_gatherer gatherer(local, columns);
        body(local, &gatherer, first, last, thread);
      } else {
        body(local, static_cast<const leaf_gatherer*>(nullptr), first, last, thread);
      }
    });
  };

  if (!parallel || groups >= 2 * threads) {
    per_thread(groups, [&](auto& local, const auto* gatherer, index_t first, index_t last, int) {
      for (index_t g = first; g < last; ++g) fold_rows(local, gatherer, g, 0, rows, 0, n, out + g * per_group);
    });
    return;
  }
  // Few groups: split rows (and long rows into tiles) across threads, each folding into
  // its own partial outputs, combined at the end.
  const index_t tiles = n > tile_elements ? (n + tile_elements - 1) / tile_elements : 1;
  const index_t items = groups * rows * tiles;
  // Not std::vector: vector<bool> has no data().
  const std::size_t partial_count = static_cast<std::size_t>(threads) * static_cast<std::size_t>(out_count);
  std::unique_ptr<T[]> partial(new T[partial_count]);
  std::fill_n(partial.get(), partial_count, Op::template identity<T>());
  per_thread(items, [&](auto& local, const auto* gatherer, index_t first, index_t last, int thread) {
    T* mine = partial.get() + static_cast<std::size_t>(thread) * out_count;
    for (index_t item = first; item < last; ++item) {
      index_t tile = item % tiles, gm = item / tiles;
      index_t g = gm / rows, m = gm % rows;
      index_t i0 = tile * tile_elements, i1 = std::min(n, i0 + tile_elements);
      fold_rows(local, gatherer, g, m, m + 1, i0, i1, mine + g * per_group);
    }
  });
  for (int t = 0; t < threads; ++t)
    for (index_t o = 0; o < out_count; ++o) out[o] = Op::combine(out[o], partial[t * out_count + o]);
}

// The loop order of a reduction over a child of axes CA (at least one), keeping K (in the
// child's order): kept axes, reduced axes, then the child's innermost. K lists the kept axes in
// the child's order, so the innermost child axis, if kept, is K's last: K is already in loop
// order and the result is row-major over it.
template <class CA, class K, class... Removed>
using reduce_loop_t = concat_t<difference_t<K, last_t<CA>>, difference_t<intersection_t<CA, axes<Removed...>>, last_t<CA>>,
                               last_t<CA>>;

template <class Op, class C, class... Removed>
auto materialise_node(const Reduce<Op, C, Removed...>& node, context& ctx) {
  using Node = Reduce<Op, C, Removed...>;
  using T = typename Node::value_type;
  using K = typename Node::axes_type;  // kept axes, in the child's order
  using CA = typename C::axes_type;
  if (auto dot = sum_as_contraction(node, ctx)) return *dot;
  if (auto dot = sum_as_wider_contraction(node, ctx)) return *dot;
  auto out = std::make_shared<array_for_t<T, K>>(no_fill, node.extents());
  if constexpr (CA::size == 0) {
    assign_in_context(out->view(), node.child, ctx);
  } else {
    using Loop = reduce_loop_t<CA, K, Removed...>;
    static_assert(std::is_same_v<intersection_t<Loop, K>, K>);
    reduce_into<Op, T, Loop, K>(node.child, ctx, out->data());
  }
  return leaf_for_t<Node>(leaf_of(std::as_const(*out).view(), out));
}

// An elementwise tree over leaves (Map, Relayout, Leaf, Scalar): every memory it reads is a
// leaf that visit_expression_leaves reaches.
template <class E>
inline constexpr bool plain_elementwise_v = leaf_node<E>;
template <class T>
inline constexpr bool plain_elementwise_v<Scalar<T>> = true;
template <class F, class... Cs>
inline constexpr bool plain_elementwise_v<Map<F, Cs...>> = (plain_elementwise_v<Cs> && ...);
template <class C, class Kind, class Out, class H, class U>
inline constexpr bool plain_elementwise_v<Relayout<C, Kind, Out, H, U>> = plain_elementwise_v<C>;

// A reduction assigned to a row-major destination of its kept axes, in their order: folded
// straight into the destination, without the temporary and the copy that materialise_node's
// leaf costs (a third of a sum of 2^10 floats; bench/README.md, GB/s against size). Only for an
// elementwise child over leaves that do not overlap the destination (reduce_into fills the
// destination with the identity first), not for a sum of products (a GEMM: sum_as_contraction),
// and not while grad records (the evaluation's memo would lack the reduction that a max's
// backward pass reads). False: not taken, assign as usual.
template <class T, class... As, class Op, class C, class... Removed>
bool assign_reduce(const ArrayView<T, As...>& out, const Reduce<Op, C, Removed...>& node, context& ctx) {
  using Node = Reduce<Op, C, Removed...>;
  using K = typename Node::axes_type;
  using CA = typename C::axes_type;
  if constexpr (!std::is_same_v<K, axes<As...>> || CA::size == 0 || !plain_elementwise_v<C> ||
                !std::is_same_v<hidden_t<C>, axes<>> || !std::is_same_v<unbound_t<C>, axes<>> ||
                is_matrix_product<Op, C, Removed...>()) {
    return false;
  } else {
    if (active_tape || !row_major_contiguous(out.extents(), out.strides())) return false;
    // (not a structured binding: clang 16 cannot capture one in a file compiled with -fopenmp)
    const auto out_range = byte_range(out);
    const char* const out_lo = out_range.first;
    const char* const out_hi = out_range.second;
    bool apart = true;
    auto check = [&](const auto& leaf) {
      const auto [lo, hi] = byte_range(leaf.view);
      apart = apart && (!lo || !out_lo || hi <= out_lo || out_hi <= lo);
    };
    visit_expression_leaves<true>(node.child, check);
    if (!apart) return false;
    reduce_into<Op, T, reduce_loop_t<CA, K, Removed...>, K>(node.child, ctx, out.data());
    materialisation_count().fetch_add(1, std::memory_order_relaxed);  // (a node computed, as materialise counts)
    return true;
  }
}

template <class Op, class C, class Axis>
auto materialise_node(const ArgReduce<Op, C, Axis>& node, context& ctx) {
  using Node = ArgReduce<Op, C, Axis>;
  using K = typename Node::axes_type;
  using Loop = concat_t<K, axes<Axis>>;
  using V = typename C::value_type;
  auto out = std::make_shared<array_for_t<std::int32_t, K>>(node.extents());
  auto ev = lower<axes<Axis>>(node.child, identity_placement<typename C::axes_type, Loop>(), ctx);
  const auto ext = extents_by_name<Loop>(node.child);
  constexpr std::size_t N = Loop::size;
  index_t groups = 1;
  for (std::size_t k = 0; k + 1 < N; ++k) groups *= ext[k];
  const index_t n = ext[N - 1];
  std::int32_t* dst = out->data();
  const bool parallel = groups * n >= parallel_threshold && groups > 1;
  for_each_chunk(parallel, groups, [&](index_t first, index_t last, int) {
    auto local = ev;
    for (index_t g = first; g < last; ++g) {
      std::array<index_t, N + 1> idx{};
      decode_row(g, ext, N - 1, idx.data());
      local.set_row(idx.data());
      V best = local.template get<false>(0);
      index_t where = 0;
      for (index_t i = 1; i < n; ++i) {
        V v = local.template get<false>(i);
        if (Op::better(v, best)) best = v, where = i;
      }
      dst[g] = static_cast<std::int32_t>(where);
    }
  });
  return leaf_of(std::as_const(*out).view(), out);
}

}  // namespace nax::detail::host
