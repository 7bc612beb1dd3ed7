// Scans (expr/scan.hpp): the operand written into a temporary of the node's axes (row-major),
// then scanned in place along A. The temporary is [outer, n, inner] around A's position, so a
// step along A combines one contiguous row of `inner` elements with the row before it: the
// loop over the row vectorises. scan_into_temporary is written once for every backend (like
// join_into_temporary): a backend supplies make_temporary, assign_in_context and run_scan.
#pragma once
#include <algorithm>
#include <vector>

#include "../../expr/scan.hpp"
#include "join.hpp"
#include "threads.hpp"

namespace nax::detail {

template <class Op, class C, class A, class Ctx>
auto scan_into_temporary(const Scan<Op, C, A>& node, Ctx& ctx) {
  using Node = Scan<Op, C, A>;
  using T = typename Node::value_type;
  using NA = typename Node::axes_type;
  auto temporary = make_temporary(temporary_of<T, NA>{}, node.extents(), ctx);
  assign_in_context(temporary.first, make_map<fn::cast_to<T>>(node.child), ctx);
  constexpr std::size_t j = index_of_v<A, NA>;
  const auto& e = node.extents();
  index_t outer = 1, inner = 1;
  for (std::size_t k = 0; k != j; ++k) outer *= e[k];
  for (std::size_t k = j + 1; k != NA::size; ++k) inner *= e[k];
  run_scan<Op>(temporary.first.data(), outer, e[j], inner, node.reverse, ctx);
  return temporary.second;
}

}  // namespace nax::detail

namespace nax::detail::host {

// Scans data, laid out [outer, n, inner], along n (from the end when reverse).
template <class Op, class T>
void run_scan(T* data, index_t outer, index_t n, index_t inner, bool reverse, context&) {
  if (outer == 0 || inner == 0 || n <= 1) return;
  const index_t lines = outer * inner, threads = max_threads();
  const index_t step = reverse ? -inner : inner;  // from one element of a line to the next
  auto first_of = [&](index_t o) { return data + o * n * inner + (reverse ? (n - 1) * inner : 0); };
  if (lines >= threads || lines * n < parallel_threshold || n < 4 * threads) {
    // Whole lines per thread: units of (outer position, block of inner positions).
    const index_t blocks = std::min(inner, std::max<index_t>(1, (threads + outer - 1) / outer));
    const index_t width = (inner + blocks - 1) / blocks;
    for_each_chunk(lines * n >= parallel_threshold && outer * blocks > 1, outer * blocks, [&](index_t u0, index_t u1, int) {
      for (index_t u = u0; u < u1; ++u) {
        const index_t o = u / blocks, k0 = (u % blocks) * width, k1 = std::min(inner, k0 + width);
        T* row = first_of(o);
        for (index_t i = 1; i < n; ++i, row += step)
          for (index_t k = k0; k < k1; ++k) row[step + k] = Op::combine(row[k], row[step + k]);
      }
    });
    return;
  }
  // Few long lines: a blocked two-pass scan of each. Every thread scans its block in place;
  // the blocks' totals are scanned; every block but the first then combines its carry in.
  const index_t parts = threads;
  std::vector<T> carry(static_cast<std::size_t>(parts));
  auto bound = [&](index_t p) { return p * n / parts; };
  for (index_t line = 0; line < lines; ++line) {
    T* first = first_of(line / inner) + line % inner;
    for_each_chunk(true, parts, [&](index_t p0, index_t p1, int) {
      for (index_t p = p0; p < p1; ++p)
        for (index_t i = bound(p) + 1; i < bound(p + 1); ++i) first[i * step] = Op::combine(first[(i - 1) * step], first[i * step]);
    });
    T running = Op::template identity<T>();
    for (index_t p = 0; p < parts; ++p) {
      carry[static_cast<std::size_t>(p)] = running;
      if (bound(p + 1) > bound(p)) running = Op::combine(running, first[(bound(p + 1) - 1) * step]);
    }
    for_each_chunk(true, parts, [&](index_t p0, index_t p1, int) {
      for (index_t p = std::max<index_t>(p0, 1); p < p1; ++p) {
        const T c = carry[static_cast<std::size_t>(p)];
        for (index_t i = bound(p); i < bound(p + 1); ++i) first[i * step] = Op::combine(c, first[i * step]);
      }
    });
  }
}

template <class Op, class C, class A>
auto materialise_node(const Scan<Op, C, A>& node, context& ctx) {
  return scan_into_temporary(node, ctx);
}

}  // namespace nax::detail::host
