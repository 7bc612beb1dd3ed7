// One fused elementwise pass on the device: a kernel templated on the lowered evaluator
// (lower/evaluators.hpp), so one kernel template serves every axis naming of the same
// computation. Rows (every loop axis but the innermost, after folding) go along the grid's
// y dimension, the innermost axis along x, both as grid-stride loops; each thread positions
// its evaluator once per row (set_row). Where the output and every contiguous leaf are
// aligned (lanes_fit), a thread reads and writes Lanes consecutive elements at a time with
// 16-byte vector accesses (get_lanes, lower/lanes.hpp) and the row's last n % Lanes elements
// one by one; otherwise each element is read with the strided get<false>(i), which is right
// for every evaluator. One kernel per expression: a second one for get<true> (the unit-stride
// read, which saves an integer multiply per leaf and element) doubled the device code nvcc
// compiles for every expression (docs/compile_time.md).
#pragma once
#include <algorithm>
#include <array>
#include <cstddef>

#include "../../lower/fold.hpp"
#include "../../lower/lanes.hpp"
#include "context.hpp"

namespace nax::cuda::detail {

inline constexpr int elementwise_block = 256;

template <class T, std::size_t N, class Ev>
__global__ void __launch_bounds__(elementwise_block)
    elementwise_kernel(Ev ev, T* out, std::array<index_t, N> extents, std::array<index_t, N> strides, index_t rows,
                       bool vectorised) {
  constexpr std::size_t R = N > 0 ? N : 1;
  constexpr int Lanes = nax::detail::lanes_for<T>;
  const index_t n = N > 0 ? extents[N - 1] : 1;
  const index_t inner_stride = N > 0 ? strides[N - 1] : 0;
  const index_t first = blockIdx.x * index_t{blockDim.x} + threadIdx.x, step = index_t{blockDim.x} * gridDim.x;
  for (index_t r = blockIdx.y; r < rows; r += gridDim.y) {
    index_t idx[R] = {};
    index_t rest = r, offset = 0;
    if constexpr (N > 1)
      for (std::size_t k = N - 1; k-- > 0;) {
        idx[k] = rest % extents[k];
        rest /= extents[k];
        offset += idx[k] * strides[k];
      }
    Ev local = ev;
    local.set_row(idx);
    index_t done = 0;
    if constexpr (Lanes > 1)
      if (vectorised) {  // inner_stride is 1
        const index_t groups = n / Lanes;
        for (index_t g = first; g < groups; g += step) {
          const auto values = local.template get_lanes<Lanes>(g * Lanes);
          nax::detail::lanes<T, Lanes> converted;
          for (int j = 0; j < Lanes; ++j) converted.v[j] = static_cast<T>(values.v[j]);
          nax::detail::store_lanes<Lanes>(out + offset + g * Lanes, converted);
        }
        done = groups * Lanes;
      }
    for (index_t i = done + first; i < n; i += step)
      out[offset + i * inner_stride] = static_cast<T>(local.template get<false>(i));
  }
}

// Grid for `rows` rows of `n` elements: enough blocks to fill the device, never more than
// the work needs.
inline dim3 elementwise_grid(index_t rows, index_t n, int device) {
  const index_t target = index_t{state(device).multiprocessors} * 32;
  const index_t gy = std::min<index_t>(rows, 65535);
  const index_t want_x = (n + elementwise_block - 1) / elementwise_block;
  const index_t gx = std::max<index_t>(1, std::min<index_t>(want_x, std::max<index_t>(1, target / gy)));
  return dim3(static_cast<unsigned>(gx), static_cast<unsigned>(gy), 1);
}

// out[...] = ev over the loop nest given by extents (strides: out's, in loop order).
template <nax::detail::evaluator Ev, class T, std::size_t N>
void run_elementwise(const Ev& given_ev, T* out, const std::array<index_t, N>& given_extents,
                     const std::array<index_t, N>& given_strides, const context& ctx) {
  for (index_t e : given_extents)
    if (e == 0) return;
  Ev ev = given_ev;
  std::array<index_t, N> extents = given_extents, strides = given_strides;
  nax::detail::fold_inner_axes(ev, extents, 0, &strides);
  index_t total = 1;
  for (index_t e : extents) total *= e;
  const index_t n = N > 0 ? extents[N - 1] : 1;
  const index_t rows = total / n;
  constexpr int lanes = nax::detail::lanes_for<T>;
  const bool unit = ev.unit_inner();
  bool vectorised = false;
  if constexpr (lanes > 1 && N > 0)
    vectorised = unit && strides[N - 1] == 1 && n >= lanes &&
                 nax::detail::lanes_aligned<16>(out, 0, strides, N - 1) && nax::detail::lanes_fit<lanes>(ev);
  device_guard guard(ctx.device);
  const dim3 grid = elementwise_grid(rows, vectorised ? n / lanes : n, ctx.device);
  elementwise_kernel<T, N><<<grid, elementwise_block, 0, ctx.stream>>>(ev, out, extents, strides, rows, vectorised);
  check_launch("elementwise_kernel<<<...>>>");
}

}  // namespace nax::cuda::detail
