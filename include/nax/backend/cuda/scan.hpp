// Scans on the device (expr/scan.hpp): the host's algorithms (backend/host/scan.hpp:
// scan_into_temporary, and assign_scan into a row-major destination; memory laid out
// [outer, n, inner], scanned along n) with a device run_scan. Many or short lines: one thread per line, walking it
// (adjacent threads take adjacent inner positions, so their accesses coalesce). Few long
// lines: one block per line, a shared-memory scan of 256 elements at a time carrying the
// running total from tile to tile. Not yet measured on a GPU; CUB's device scan would be the
// faster path for one very long line.
#pragma once
#include "../host/scan.hpp"
#include "elementwise.hpp"
#include "join.hpp"

namespace nax::cuda::detail {

inline constexpr int scan_block = 256;

template <class Op, class T>
__global__ void scan_line_per_thread_kernel(T* out, const T* in, index_t lines, index_t n, index_t inner,
                                            bool reverse) {
  const index_t step = index_t{blockDim.x} * gridDim.x;
  const index_t s = reverse ? -inner : inner;
  for (index_t line = blockIdx.x * index_t{blockDim.x} + threadIdx.x; line < lines; line += step) {
    index_t at = (line / inner) * n * inner + line % inner + (reverse ? (n - 1) * inner : 0);
    T running = in[at];
    out[at] = running;
    for (index_t i = 1; i < n; ++i) {
      at += s;
      running = Op::combine(running, in[at]);
      out[at] = running;
    }
  }
}

template <class Op, class T>
__global__ void __launch_bounds__(scan_block)
    scan_line_per_block_kernel(T* out, const T* in, index_t lines, index_t n, index_t inner, bool reverse) {
  __shared__ T tile[scan_block];
  const int t = static_cast<int>(threadIdx.x);
  for (index_t line = blockIdx.x; line < lines; line += gridDim.x) {
    const index_t base = (line / inner) * n * inner + line % inner;
    T carry = Op::template identity<T>();
    for (index_t start = 0; start < n; start += scan_block) {
      const index_t i = start + t;
      const index_t at = (reverse ? n - 1 - i : i) * inner;
      T v = i < n ? in[base + at] : Op::template identity<T>();
      tile[t] = v;
      __syncthreads();
      for (int d = 1; d < scan_block; d *= 2) {  // Hillis-Steele: after step d, v covers 2d elements
        const T earlier = t >= d ? tile[t - d] : Op::template identity<T>();
        __syncthreads();
        v = Op::combine(earlier, v);
        tile[t] = v;
        __syncthreads();
      }
      if (i < n) out[base + at] = Op::combine(carry, v);
      carry = Op::combine(carry, tile[scan_block - 1]);
      __syncthreads();  // the tile is rewritten next round
    }
  }
}

// Scans `in` into `out` (both laid out [outer, n, inner] on the device; possibly the same memory).
template <class Op, class T>
void run_scan(T* out, const T* in, index_t outer, index_t n, index_t inner, bool reverse, context& ctx) {
  if (outer == 0 || inner == 0 || n == 0) return;
  const index_t lines = outer * inner;
  device_guard guard(ctx.device);
  const index_t resident = index_t{state(ctx.device).multiprocessors} * 32;  // blocks that keep the device busy
  if (n <= 32 || lines >= resident * elementwise_block) {
    const index_t blocks = std::min<index_t>((lines + elementwise_block - 1) / elementwise_block, resident);
    scan_line_per_thread_kernel<Op><<<static_cast<unsigned>(blocks), elementwise_block, 0, ctx.stream>>>(
        out, in, lines, n, inner, reverse);
    check_launch("scan_line_per_thread_kernel<<<...>>>");
  } else {
    const index_t blocks = std::min<index_t>(lines, resident);
    scan_line_per_block_kernel<Op><<<static_cast<unsigned>(blocks), scan_block, 0, ctx.stream>>>(out, in, lines, n,
                                                                                               inner, reverse);
    check_launch("scan_line_per_block_kernel<<<...>>>");
  }
}

template <class Op, class C, class A>
auto materialise_node(const nax::detail::Scan<Op, C, A>& node, context& ctx) {
  return nax::detail::scan_into_temporary(node, ctx);
}

}  // namespace nax::cuda::detail
