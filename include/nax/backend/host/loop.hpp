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
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

#include "../../core/config.hpp"
#include "../../lower/fold.hpp"
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

// dst[j] = src[first + j * stride], j < count, for elements of Bytes bytes (copied as bits,
// so one loop serves every element type of that size). A step of 2 (every other element)
// gets its own loop: with the stride known the compiler loads whole vectors and shuffles; a
// step of 0 (a broadcast along the row) is a fill.
template <std::size_t Bytes>
void gather_strided(std::byte* dst_bytes, const std::byte* src_bytes, index_t first, index_t stride, index_t count) {
  struct element {
    std::byte b[Bytes];
  };
  using E = std::conditional_t<Bytes == 1, std::uint8_t,
            std::conditional_t<Bytes == 2, std::uint16_t,
            std::conditional_t<Bytes == 4, std::uint32_t, std::conditional_t<Bytes == 8, std::uint64_t, element>>>>;
  E* __restrict dst = reinterpret_cast<E*>(dst_bytes);
  const E* __restrict src = reinterpret_cast<const E*>(src_bytes) + first;
  if (stride == 0)
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
// alias check uses, which every evaluator implements) in the constructor only, which keeps
// what each evaluator type instantiates small: gather() works on the recorded leaves (their
// memory, stride, element size and the address of their row offset). The copy is the thread's
// own, so visit_leaves hands out its leaves to be changed.
class leaf_gatherer {
 public:
  leaf_gatherer() = default;  // nothing to gather (an evaluator read at unit stride)
  template <class Ev>
  leaf_gatherer(Ev& local, index_t columns) {
    std::size_t bytes = 0;
    // One visit (at -O0 each visit is one more visit_leaves per evaluator type): it records how
    // to point each leaf at its buffer, done once the buffer is allocated.
    local.visit_leaves([&](auto& own) {
      if (own.unit_inner()) return;
      using Own = std::remove_cvref_t<decltype(own)>;
      using T = std::remove_cv_t<std::remove_pointer_t<decltype(own.data)>>;
      static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16);
      const index_t stride = last_stride(own);
      const index_t stride_bytes = (stride < 0 ? -stride : stride) * static_cast<index_t>(sizeof(T));
      if (stride_bytes >= cache_line_bytes) jumps_lines_ = true;
      sources_.push_back({reinterpret_cast<const std::byte*>(own.data), &own.row, stride, bytes, sizeof(T),
                          static_cast<void*>(&own), &point_at_buffer<Own>});
      bytes += (static_cast<std::size_t>(columns) * sizeof(T) + 63) / 64 * 64;
    });
    if (sources_.empty()) return;
    buffer_.reset(static_cast<std::byte*>(::operator new(bytes, std::align_val_t{64})));
    for (const source& s : sources_) s.point_at(s.leaf, buffer_.get() + s.offset);
  }
  // Whether some leaf needed a buffer, and whether one jumps a cache line per element.
  bool any() const { return !sources_.empty(); }
  bool jumps_lines() const { return jumps_lines_; }

  // After local.set_row(idx) (the evaluator given to the constructor): fills the buffers with
  // columns [i0, i1) of that row, and offsets the leaves so that get<true>(i) reads element
  // i - i0 of their buffer.
  void gather(index_t i0, index_t i1) const {
    for (const source& s : sources_) {
      std::byte* dst = buffer_.get() + s.offset;
      const index_t first = *s.row + i0 * s.stride;
      switch (s.element_bytes) {
        case 1: gather_strided<1>(dst, s.data, first, s.stride, i1 - i0); break;
        case 2: gather_strided<2>(dst, s.data, first, s.stride, i1 - i0); break;
        case 4: gather_strided<4>(dst, s.data, first, s.stride, i1 - i0); break;
        case 8: gather_strided<8>(dst, s.data, first, s.stride, i1 - i0); break;
        default: gather_strided<16>(dst, s.data, first, s.stride, i1 - i0); break;  // long double
      }
      *s.row = -i0;
    }
  }

 private:
  struct source {
    const std::byte* data;  // the leaf's own memory
    index_t* row;           // the leaf's row offset (in its copy of the evaluator)
    index_t stride;         // its innermost stride, in elements
    std::size_t offset;     // of its buffer, in bytes
    std::size_t element_bytes;
    void* leaf;                                    // the leaf itself, and how to point it at
    void (*point_at)(void*, const std::byte*);     // its buffer, read at unit stride
  };
  template <class Leaf>
  static void point_at_buffer(void* leaf, const std::byte* buffer) {
    auto& own = *static_cast<Leaf*>(leaf);
    using T = std::remove_cv_t<std::remove_pointer_t<decltype(own.data)>>;
    own.data = reinterpret_cast<const T*>(buffer);
    if constexpr (std::tuple_size_v<decltype(own.stride)> > 0) own.stride.back() = 1;
  }
  struct release {
    void operator()(std::byte* p) const { ::operator delete(p, std::align_val_t{64}); }
  };
  std::vector<source> sources_;
  std::unique_ptr<std::byte, release> buffer_;
  bool jumps_lines_ = false;
};

// Whether every non-contiguous part of ev is a leaf that leaf_gatherer can buffer.
template <class Ev>
bool gatherable(const Ev& ev, index_t columns) {
  Ev probe = ev;
  leaf_gatherer gatherer(probe, columns);
  return gatherer.any() && probe.unit_inner();
}

// The items of a pass: tiles of rows_per_item rows by `columns` columns of the innermost axis,
// one contiguous chunk of them per thread. Each thread makes its copy of the evaluator and
// prepare(local) once (a gatherer, say), then calls row(local, state, idx, i0, i1) for every
// row of its tiles after set_row (idx: the row's loop indices; [i0, i1): the tile's columns).
template <std::size_t N, class Ev, class Prepare, class Row>
void for_each_tile_row(const Ev& ev, const std::array<index_t, N>& extents, index_t rows, index_t rows_per_item,
                       index_t columns, bool parallel, const Prepare& prepare, const Row& row) {
  constexpr std::size_t R = N > 0 ? N - 1 : 0;
  const index_t inner = N > 0 ? extents[N - 1] : 1;
  const index_t col_tiles = (inner + columns - 1) / columns;
  const index_t items = (rows + rows_per_item - 1) / rows_per_item * col_tiles;
  for_each_chunk(parallel && items > 1, items, [&](index_t first, index_t last, int) {
    Ev local = ev;
    auto state = prepare(local);
    for (index_t item = first; item < last; ++item) {
      const index_t r0 = (item / col_tiles) * rows_per_item, r1 = std::min(rows, r0 + rows_per_item);
      const index_t i0 = (item % col_tiles) * columns, i1 = std::min(inner, i0 + columns);
      std::array<index_t, N + 1> idx{};
      decode_row(r0, extents, R, idx.data());
      for (index_t r = r0; r < r1; ++r) {
        local.set_row(idx.data());
        row(local, state, idx.data(), i0, i1);
        next_row(extents, R, idx.data());
      }
    }
  });
}

// The contiguous pass (lower/contiguous.hpp): out[k] = ev at k for k < size, one chunk per
// thread from parallel_threshold elements, no tiles (every leaf is read at unit stride).
template <evaluator Ev, class T>
void run_contiguous(const Ev& ev, T* out, index_t size) {
  for_each_chunk(size >= parallel_threshold, size, [&](index_t first, index_t last, int) {
    const Ev local = ev;  // this thread's own copy: its pointers stay in registers
    T* __restrict dst = out;
    for (index_t k = first; k < last; ++k) dst[k] = static_cast<T>(local.template get<true>(k));
  });
}

template <evaluator Ev, class T, std::size_t N>
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
  for (std::size_t k = 0; k != R; ++k) rows *= extents[k];
  const index_t inner_stride = N > 0 ? out_strides[N - 1] : 1;
  const bool unit = ev.unit_inner() && inner_stride == 1;
  const bool parallel = rows * inner >= parallel_threshold;
  // Whole rows up to tile_elements per item (several short rows, or tiles of a long one).
  const index_t rows_per_tile = std::max<index_t>(1, tile_elements / inner), tile_columns = std::min(inner, tile_elements);
  auto nothing = [](Ev&) { return 0; };

  // The row offset of the output for the multi-index idx[0..R).
  auto out_row = [&](const index_t* idx) {
    index_t o = 0;
    for (std::size_t k = 0; k != R; ++k) o += idx[k] * out_strides[k];
    return o;
  };

  // Unit-stride reads: everything contiguous along the row, whole rows up to tile_elements per
  // item; or strided leaves (or a strided output) with rows long enough to gather: tiles of
  // gather_columns columns, over gather_rows rows when a leaf or the output jumps a cache line
  // per element (so that the line serves the whole tile), else one row. One loop serves both
  // (with nothing to gather, gather() does nothing): each instantiation of the loop per
  // expression type costs compile time (docs/compile_time.md).
  const index_t columns = std::min(inner, gather_columns);
  if (unit || (inner >= 16 && (ev.unit_inner() || gatherable(ev, columns)))) {
    bool jumps_lines = (inner_stride < 0 ? -inner_stride : inner_stride) * index_t(sizeof(T)) >= cache_line_bytes;
    if (!ev.unit_inner()) {
      Ev probe = ev;
      jumps_lines = jumps_lines || leaf_gatherer(probe, columns).jumps_lines();
    }
    for_each_tile_row(
        ev, extents, rows, unit ? rows_per_tile : jumps_lines ? gather_rows : 1, unit ? tile_columns : columns,
        parallel, [&](Ev& local) { return unit ? leaf_gatherer() : leaf_gatherer(local, columns); },
        [&](const Ev& local, const leaf_gatherer& gatherer, const index_t* idx, index_t i0, index_t i1) {
          gatherer.gather(i0, i1);
          const index_t o = out_row(idx);
          if (inner_stride == 1) {
            T* __restrict dst = out + o;
            for (index_t i = i0; i < i1; ++i) dst[i] = static_cast<T>(local.template get<true>(i));
          } else {
            for (index_t i = i0; i < i1; ++i) out[o + i * inner_stride] = static_cast<T>(local.template get<true>(i));
          }
        });
    return;
  }

  // Anything else (short rows, or an evaluator with a strided part that is not a leaf):
  // strided reads and writes throughout.
  for_each_tile_row(ev, extents, rows, rows_per_tile, tile_columns, parallel, nothing,
                    [&](const Ev& local, int, const index_t* idx, index_t i0, index_t i1) {
                      const index_t o = out_row(idx);
                      for (index_t i = i0; i < i1; ++i)
                        out[o + i * inner_stride] = static_cast<T>(local.template get<false>(i));
                    });
}

}  // namespace nax::detail::host
