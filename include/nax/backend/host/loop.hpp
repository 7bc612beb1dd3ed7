// The fused elementwise pass: one OpenMP-parallel loop nest over the output, rows of the
// innermost axis split into tiles; a unit-stride inner loop the compiler vectorises.
// Leaves that are not contiguous along the innermost axis (transposed, sliced with a step)
// are gathered, a tile at a time, into small per-thread buffers, so the expression itself
// still runs on the unit-stride loop; when such a leaf jumps a cache line per element, tiles
// also span several rows, so each line it brings in serves every row of the tile.
#pragma once
#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

#include "../../core/config.hpp"
#include "threads.hpp"

namespace nax::detail::host {

inline constexpr index_t tile_elements = index_t{1} << 14;
inline constexpr index_t parallel_threshold = index_t{1} << 15;
// Gathered tiles: columns per tile (a buffer of floats is 512 bytes, so the buffers stay in
// L1 next to the streams), and rows per tile when a leaf jumps a cache line per element (16
// floats share a 64-byte line along that leaf's contiguous axis; 64 rows also spread the cost
// of each page the leaf touches over 64 elements). Chosen by measurement on 2-core AVX2
// (bench/README.md): 512 columns ran the sliced case ~20% slower, 16 rows the transposed
// case ~15% slower (and so did copying whole blocks of a transposed leaf column by column).
inline constexpr index_t gather_columns = 128;
inline constexpr index_t gather_rows = 64;
inline constexpr index_t cache_line_bytes = 64;

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

// dst[j] = src[first + j * stride], j < count. A step of 2 (every other element) gets its own
// loop: with the stride known the compiler loads whole vectors and shuffles; a step of 0 is
// a fill.
template <class T>
inline void gather_strided(T* __restrict dst, const T* __restrict src, index_t first, index_t stride, index_t count) {
  src += first;
  if (stride == 0)  // a broadcast along the row
    std::fill_n(dst, count, src[0]);
  else if (stride == 2)
    for (index_t j = 0; j < count; ++j) dst[j] = src[2 * j];
  else
    for (index_t j = 0; j < count; ++j) dst[j] = src[j * stride];
}

template <class Leaf>
index_t last_stride(const Leaf& leaf) {
  if constexpr (std::tuple_size_v<decltype(leaf.stride)> > 0) return leaf.stride.back();
  else return 0;
}

// Makes a thread's own copy of an evaluator readable on the unit-stride path: every leaf
// whose innermost stride is not 1 is pointed at a buffer of `columns` elements, which
// gather() fills after each set_row. Leaves are reached through visit_leaves (the hook the
// alias check uses, which every evaluator implements); the copy is not const, so writing
// to its leaves through the const references visit_leaves hands out is sound.
template <class Ev>
class leaf_gatherer {
 public:
  leaf_gatherer(Ev& local, index_t columns) : columns_(columns) {
    std::size_t bytes = 0;
    local.visit_leaves([&](const auto& leaf) {
      if (!leaf.unit_inner()) {
        using T = std::remove_cv_t<std::remove_pointer_t<decltype(leaf.data)>>;
        const index_t stride = last_stride(leaf);
        const index_t stride_bytes = (stride < 0 ? -stride : stride) * static_cast<index_t>(sizeof(T));
        slots_.push_back(static_cast<int>(sources_.size()));
        sources_.push_back({leaf.data, stride, bytes});
        if (stride_bytes >= cache_line_bytes) jumps_lines_ = true;
        bytes += (static_cast<std::size_t>(columns) * sizeof(T) + 63) / 64 * 64;
      } else {
        slots_.push_back(-1);
      }
    });
    if (sources_.empty()) return;
    buffer_.reset(static_cast<std::byte*>(::operator new(bytes, std::align_val_t{64})));
    std::size_t k = 0;
    local.visit_leaves([&](const auto& leaf) {
      int slot = slots_[k++];
      if (slot < 0) return;
      using L = std::remove_cvref_t<decltype(leaf)>;
      using T = std::remove_cv_t<std::remove_pointer_t<decltype(leaf.data)>>;
      L& own = const_cast<L&>(leaf);
      own.data = reinterpret_cast<const T*>(buffer_.get() + sources_[static_cast<std::size_t>(slot)].offset);
      if constexpr (std::tuple_size_v<decltype(own.stride)> > 0) own.stride.back() = 1;
    });
  }
  // Whether some leaf needed a buffer, and whether one jumps a cache line per element.
  bool any() const { return !sources_.empty(); }
  bool jumps_lines() const { return jumps_lines_; }

  // After local.set_row(idx): fills the buffers with columns [i0, i1) of that row, and
  // offsets the leaves so that get<true>(i) reads element i - i0 of their buffer.
  void gather(Ev& local, index_t i0, index_t i1) const {
    std::size_t k = 0;
    local.visit_leaves([&](const auto& leaf) {
      int slot = slots_[k++];
      if (slot < 0) return;
      using L = std::remove_cvref_t<decltype(leaf)>;
      using T = std::remove_cv_t<std::remove_pointer_t<decltype(leaf.data)>>;
      L& own = const_cast<L&>(leaf);
      const source& s = sources_[static_cast<std::size_t>(slot)];
      gather_strided(reinterpret_cast<T*>(buffer_.get() + s.offset), static_cast<const T*>(s.data),
                     own.row + i0 * s.stride, s.stride, i1 - i0);
      own.row = -i0;
    });
  }

 private:
  struct source {
    const void* data;  // the leaf's own memory
    index_t stride;    // its innermost stride
    std::size_t offset;  // of its buffer, in bytes
  };
  struct release {
    void operator()(std::byte* p) const { ::operator delete(p, std::align_val_t{64}); }
  };
  index_t columns_;
  std::vector<int> slots_;  // per leaf in visit order: its source, or -1
  std::vector<source> sources_;
  std::unique_ptr<std::byte, release> buffer_;
  bool jumps_lines_ = false;
};

// Whether every non-contiguous part of ev is a leaf that leaf_gatherer can buffer.
template <class Ev>
bool gatherable(const Ev& ev, index_t columns) {
  Ev probe = ev;
  leaf_gatherer<Ev> gatherer(probe, columns);
  return gatherer.any() && probe.unit_inner();
}

// Merges loop axes first..N-2 into the innermost one, from the nearest outwards, while ev
// and the output's strides (out_strides, unless null) allow it (see can_fold in
// lower/evaluators.hpp): an array with short trailing axes then runs long inner loops.
template <class Ev, std::size_t N>
void fold_inner_axes(Ev& ev, std::array<index_t, N>& extents, std::size_t first, std::array<index_t, N>* out_strides) {
  if constexpr (N >= 2) {
    for (std::size_t k = N - 1; k-- > first;) {
      const index_t ek = extents[k], en = extents[N - 1];
      if (!ev.can_fold(k, ek, en) || (out_strides && !affine_can_fold(*out_strides, true, k, ek, en))) return;
      ev.fold(k, ek, en);
      if (out_strides) affine_fold(*out_strides, true, k, ek, en);
      extents[N - 1] = ek * en;
      extents[k] = 1;
    }
  }
}

template <class Ev, class T, std::size_t N>
void run_elementwise(const Ev& given_ev, T* out, const std::array<index_t, N>& given_extents,
                     const std::array<index_t, N>& given_out_strides) {
  for (index_t e : given_extents)
    if (e == 0) return;
  Ev ev = given_ev;
  std::array<index_t, N> extents = given_extents, out_strides = given_out_strides;
  fold_inner_axes(ev, extents, 0, &out_strides);
  constexpr std::size_t R = N > 0 ? N - 1 : 0;  // loop axes that make rows
  const index_t inner = N > 0 ? extents[N - 1] : 1;
  index_t rows = 1;
  for (std::size_t k = 0; k < R; ++k) rows *= extents[k];
  const index_t inner_stride = N > 0 ? out_strides[N - 1] : 1;
  const bool unit = ev.unit_inner() && inner_stride == 1;
  const bool parallel_size = rows * inner >= parallel_threshold;

  // The row offset of the output for the multi-index idx[0..R).
  auto out_row = [&](const index_t* idx) {
    index_t o = 0;
    for (std::size_t k = 0; k < R; ++k) o += idx[k] * out_strides[k];
    return o;
  };

  if (unit) {
    const index_t rows_per_item = std::max<index_t>(1, tile_elements / inner);
    const index_t col_tiles = inner > tile_elements ? (inner + tile_elements - 1) / tile_elements : 1;
    const index_t items = (rows + rows_per_item - 1) / rows_per_item * col_tiles;
    for_each_chunk(parallel_size && items > 1, items, [&](index_t first, index_t last, int) {
      Ev local = ev;
      for (index_t item = first; item < last; ++item) {
        const index_t r0 = (item / col_tiles) * rows_per_item, r1 = std::min(rows, r0 + rows_per_item);
        const index_t i0 = (item % col_tiles) * tile_elements, i1 = std::min(inner, i0 + tile_elements);
        std::array<index_t, N + 1> idx{};
        decode_row(r0, extents, R, idx.data());
        for (index_t r = r0; r < r1; ++r) {
          local.set_row(idx.data());
          T* __restrict dst = out + out_row(idx.data());
          for (index_t i = i0; i < i1; ++i) dst[i] = static_cast<T>(local.template get<true>(i));
          next_row(extents, R, idx.data());
        }
      }
    });
    return;
  }

  // Strided leaves (or a strided output) with rows long enough to gather: tiles of
  // gather_columns columns, over gather_rows rows when a leaf or the output jumps a cache
  // line per element (so that the line serves the whole tile), else one row.
  const index_t columns = std::min(inner, gather_columns);
  if (inner >= 16 && (ev.unit_inner() || gatherable(ev, columns))) {
    bool jumps_lines = (inner_stride < 0 ? -inner_stride : inner_stride) * index_t(sizeof(T)) >= cache_line_bytes;
    if (!ev.unit_inner()) {
      Ev probe = ev;
      jumps_lines = jumps_lines || leaf_gatherer<Ev>(probe, columns).jumps_lines();
    }
    const index_t tile_rows = jumps_lines ? gather_rows : 1;
    const index_t col_tiles = (inner + columns - 1) / columns;
    const index_t items = (rows + tile_rows - 1) / tile_rows * col_tiles;
    for_each_chunk(parallel_size && items > 1, items, [&](index_t first, index_t last, int) {
      Ev local = ev;
      leaf_gatherer<Ev> gatherer(local, columns);
      for (index_t item = first; item < last; ++item) {
        const index_t r0 = (item / col_tiles) * tile_rows, r1 = std::min(rows, r0 + tile_rows);
        const index_t i0 = (item % col_tiles) * columns, i1 = std::min(inner, i0 + columns);
        std::array<index_t, N + 1> idx{};
        decode_row(r0, extents, R, idx.data());
        for (index_t r = r0; r < r1; ++r) {
          local.set_row(idx.data());
          gatherer.gather(local, i0, i1);
          const index_t o = out_row(idx.data());
          if (inner_stride == 1) {
            T* __restrict dst = out + o;
            for (index_t i = i0; i < i1; ++i) dst[i] = static_cast<T>(local.template get<true>(i));
          } else {
            for (index_t i = i0; i < i1; ++i) out[o + i * inner_stride] = static_cast<T>(local.template get<true>(i));
          }
          next_row(extents, R, idx.data());
        }
      }
    });
    return;
  }

  // Anything else (short rows, or an evaluator with a strided part that is not a leaf):
  // strided reads and writes throughout.
  const index_t rows_per_item = std::max<index_t>(1, tile_elements / inner);
  const index_t col_tiles = inner > tile_elements ? (inner + tile_elements - 1) / tile_elements : 1;
  const index_t items = (rows + rows_per_item - 1) / rows_per_item * col_tiles;
  for_each_chunk(parallel_size && items > 1, items, [&](index_t first, index_t last, int) {
    Ev local = ev;
    for (index_t item = first; item < last; ++item) {
      const index_t r0 = (item / col_tiles) * rows_per_item, r1 = std::min(rows, r0 + rows_per_item);
      const index_t i0 = (item % col_tiles) * tile_elements, i1 = std::min(inner, i0 + tile_elements);
      std::array<index_t, N + 1> idx{};
      decode_row(r0, extents, R, idx.data());
      for (index_t r = r0; r < r1; ++r) {
        local.set_row(idx.data());
        const index_t o = out_row(idx.data());
        for (index_t i = i0; i < i1; ++i) out[o + i * inner_stride] = static_cast<T>(local.template get<false>(i));
        next_row(extents, R, idx.data());
      }
    }
  });
}

}  // namespace nax::detail::host
