// Scans (expr/scan.hpp) over memory laid out [outer, n, inner] around A's position (row-major),
// so that a step along A combines one contiguous row of `inner` elements with the row before
// it: the loop over the row vectorises. Two ways in, written once for every backend (like
// join_into_temporary; a backend supplies make_temporary, assign_in_context and
// run_scan(out, in, outer, n, inner, reverse, ctx), which reads `in` and writes `out`, the same
// layout, possibly the same memory):
//   - assign_scan: a scan assigned to a row-major array of its type (`y = cumsum<t>(x)`) is
//     written straight into it: read from the operand when that is a leaf of the same layout
//     (one pass), else the operand is assigned first and scanned in place;
//   - scan_into_temporary: anything else reads the scan from a temporary of the node's axes.
#pragma once
#include <algorithm>
#include <vector>

#include "../../expr/scan.hpp"
#include "../../lower/lower.hpp"
#include "join.hpp"
#include "threads.hpp"

namespace nax::detail {

// outer and inner around A for a row-major layout of axes L with these extents.
template <class A, class L, std::size_t N>
std::pair<index_t, index_t> scan_layout(const std::array<index_t, N>& e) {
  constexpr std::size_t j = index_of_v<A, L>;
  index_t outer = 1, inner = 1;
  for (std::size_t k = 0; k != j; ++k) outer *= e[k];
  for (std::size_t k = j + 1; k != N; ++k) inner *= e[k];
  return {outer, inner};
}

template <class Op, class C, class A, class Ctx>
auto scan_into_temporary(const Scan<Op, C, A>& node, Ctx& ctx) {
  using Node = Scan<Op, C, A>;
  using T = typename Node::value_type;
  using NA = typename Node::axes_type;
  auto temporary = make_temporary(temporary_of<T, NA>{}, node.extents(), ctx);
  assign_in_context(temporary.first, make_map<fn::cast_to<T>>(node.child), ctx);
  const auto [outer, inner] = scan_layout<A, NA>(node.extents());
  T* data = temporary.first.data();
  run_scan<Op>(data, data, outer, extent_of<A>(node), inner, node.reverse, ctx);
  return temporary.second;
}

// The scan written into out, if out is row-major in its own axis order (false: the caller
// takes the general path).
template <class T, class... Os, class Op, class C, class A, class Ctx>
bool assign_scan(const ArrayView<T, Os...>& out, const Scan<Op, C, A>& node, Ctx& ctx) {
  using L = axes<Os...>;
  if (out.strides() != row_major_strides(out.extents())) return false;
  const auto [outer, inner] = scan_layout<A, L>(out.extents());
  const index_t n = extent_of<A>(node);
  // A host leaf of the same layout is read directly (a device leaf may live on another GPU:
  // assign_in_context stages it).
  if constexpr (is_leaf_v<C> && std::is_same_v<typename C::axes_type, L> && std::is_same_v<typename C::value_type, T>) {
    const auto& in = node.child.view;
    const auto [in_lo, in_hi] = byte_range(in);
    const auto [out_lo, out_hi] = byte_range(out);
    const bool same_memory = in.data() == out.data(), apart = !in_lo || !out_lo || in_hi <= out_lo || out_hi <= in_lo;
    if (in.strides() == out.strides() && (same_memory || apart)) {
      run_scan<Op>(out.data(), in.data(), outer, n, inner, node.reverse, ctx);  // one pass
      return true;
    }
  }
  assign_in_context(out, node.child, ctx);
  run_scan<Op>(out.data(), out.data(), outer, n, inner, node.reverse, ctx);
  return true;
}

}  // namespace nax::detail

namespace nax::detail::host {

// Scans `in` into `out` (both laid out [outer, n, inner]; they may be the same memory) along n,
// from the end when reverse.
template <class Op, class T>
void run_scan(T* out, const T* in, index_t outer, index_t n, index_t inner, bool reverse, context&) {
  if (outer == 0 || inner == 0 || n == 0) return;
  const index_t lines = outer * inner, threads = max_threads();
  const index_t step = reverse ? -inner : inner;  // from one element of a line to the next
  const index_t start = reverse ? (n - 1) * inner : 0;
  if (lines >= threads || lines * n < parallel_threshold || n < 4 * threads) {
    // Whole lines per thread: units of (outer position, block of inner positions).
    const index_t blocks = std::min(inner, std::max<index_t>(1, (threads + outer - 1) / outer));
    const index_t width = (inner + blocks - 1) / blocks;
    for_each_chunk(lines * n >= parallel_threshold && outer * blocks > 1, outer * blocks, [&](index_t u0, index_t u1, int) {
      for (index_t u = u0; u < u1; ++u) {
        const index_t o = u / blocks, k0 = (u % blocks) * width, k1 = std::min(inner, k0 + width);
        T* to = out + o * n * inner + start;
        const T* from = in + o * n * inner + start;
        if (k1 - k0 == 1) {  // one line: the running value stays in a register
          T running = to[k0] = from[k0];
          for (index_t i = 1; i < n; ++i) to[i * step + k0] = running = Op::combine(running, from[i * step + k0]);
          continue;
        }
        for (index_t k = k0; k < k1; ++k) to[k] = from[k];
        for (index_t i = 1; i < n; ++i, to += step, from += step)
          for (index_t k = k0; k < k1; ++k) to[step + k] = Op::combine(to[k], from[step + k]);
      }
    });
    return;
  }
  // Few long lines: a blocked two-pass scan of each. Every thread scans its block (from in into
  // out); the blocks' totals are scanned; every block but the first then combines its carry in.
  const index_t parts = threads;
  std::vector<T> carry(static_cast<std::size_t>(parts));
  auto bound = [&](index_t p) { return p * n / parts; };
  for (index_t line = 0; line < lines; ++line) {
    const index_t first = (line / inner) * n * inner + line % inner + start;
    T* to = out + first;
    const T* from = in + first;
    for_each_chunk(true, parts, [&](index_t p0, index_t p1, int) {
      for (index_t p = p0; p < p1; ++p) {
        if (bound(p) == bound(p + 1)) continue;
        T running = to[bound(p) * step] = from[bound(p) * step];
        for (index_t i = bound(p) + 1; i < bound(p + 1); ++i) to[i * step] = running = Op::combine(running, from[i * step]);
      }
    });
    T running = Op::template identity<T>();
    for (index_t p = 0; p < parts; ++p) {
      carry[static_cast<std::size_t>(p)] = running;
      if (bound(p + 1) > bound(p)) running = Op::combine(running, to[(bound(p + 1) - 1) * step]);
    }
    for_each_chunk(true, parts, [&](index_t p0, index_t p1, int) {
      for (index_t p = std::max<index_t>(p0, 1); p < p1; ++p) {
        const T c = carry[static_cast<std::size_t>(p)];
        for (index_t i = bound(p); i < bound(p + 1); ++i) to[i * step] = Op::combine(c, to[i * step]);
      }
    });
  }
}

template <class Op, class C, class A>
auto materialise_node(const Scan<Op, C, A>& node, context& ctx) {
  return scan_into_temporary(node, ctx);
}

}  // namespace nax::detail::host
