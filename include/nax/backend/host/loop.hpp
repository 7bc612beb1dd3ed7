// The fused elementwise pass: one OpenMP-parallel loop nest over the output, rows of the
// innermost axis split into tiles; a unit-stride inner loop the compiler vectorises when
// every moving leaf is contiguous there.
#pragma once
#include <algorithm>
#include <array>
#include <cstddef>

#include "../../core/config.hpp"
#include "threads.hpp"

namespace nax::detail::host {

inline constexpr index_t tile_elements = index_t{1} << 14;
inline constexpr index_t parallel_threshold = index_t{1} << 15;

// Sets idx[0..R) to the row-major multi-index of `row` over extents[0..R).
template <std::size_t N>
inline void decode_row(index_t row, const std::array<index_t, N>& extents, std::size_t R, index_t* idx) {
  for (std::size_t k = R; k-- > 0;) {
    idx[k] = row % extents[k];
    row /= extents[k];
  }
}
// Advances idx[0..R) by one row (odometer).
template <std::size_t N>
inline void next_row(const std::array<index_t, N>& extents, std::size_t R, index_t* idx) {
  for (std::size_t k = R; k-- > 0;) {
    if (++idx[k] < extents[k]) return;
    idx[k] = 0;
  }
}

template <class Ev, class T, std::size_t N>
void run_elementwise(const Ev& ev, T* out, const std::array<index_t, N>& extents,
                     const std::array<index_t, N>& out_strides) {
  for (index_t e : extents)
    if (e == 0) return;
  constexpr std::size_t R = N > 0 ? N - 1 : 0;  // loop axes that make rows
  const index_t inner = N > 0 ? extents[N - 1] : 1;
  index_t rows = 1;
  for (std::size_t k = 0; k < R; ++k) rows *= extents[k];
  const bool unit = ev.unit_inner() && (N == 0 || out_strides[N - 1] == 1);
  const index_t inner_stride = N > 0 ? out_strides[N - 1] : 0;
  const index_t rows_per_item = std::max<index_t>(1, tile_elements / inner);
  const index_t col_tiles = inner > tile_elements ? (inner + tile_elements - 1) / tile_elements : 1;
  const index_t row_items = (rows + rows_per_item - 1) / rows_per_item;
  const index_t items = row_items * col_tiles;
  const bool parallel = rows * inner >= parallel_threshold && items > 1;

#pragma omp parallel for schedule(static) if (parallel)
  for (index_t item = 0; item < items; ++item) {
    Ev local = ev;
    const index_t r0 = (item / col_tiles) * rows_per_item;
    const index_t r1 = std::min(rows, r0 + rows_per_item);
    const index_t i0 = (item % col_tiles) * tile_elements;
    const index_t i1 = std::min(inner, i0 + tile_elements);
    std::array<index_t, N + 1> idx{};
    decode_row(r0, extents, R, idx.data());
    for (index_t r = r0; r < r1; ++r) {
      local.set_row(idx.data());
      index_t o = 0;
      for (std::size_t k = 0; k < R; ++k) o += idx[k] * out_strides[k];
      if (unit) {
        T* dst = out + o;
        for (index_t i = i0; i < i1; ++i) dst[i] = static_cast<T>(local.template get<true>(i));
      } else {
        for (index_t i = i0; i < i1; ++i) out[o + i * inner_stride] = static_cast<T>(local.template get<false>(i));
      }
      next_row(extents, R, idx.data());
    }
  }
}

}  // namespace nax::detail::host
