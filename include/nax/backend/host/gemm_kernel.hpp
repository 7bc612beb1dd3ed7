// The built-in packed GEMM for float and double on one strided matrix: packing, the
// register-blocked micro-kernel, cache blocking and the split of one product across
// threads. Bottom of backend/host; gemm.hpp wraps it in the batched, typed API.
#pragma once
#include <nax/backend/host/subnormals.hpp>
#include <nax/core/config.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#if defined(_OPENMP)
#include <omp.h>
#endif

// GCC and clang vector extensions let one kernel source serve AVX-512, AVX2, SSE and NEON;
// other compilers get the same kernel on plain arrays. NAX_GEMM_PORTABLE_KERNEL forces the
// latter. The vector width is what the target flags allow (-march=native here: AVX-512).
#if (defined(__GNUC__) || defined(__clang__)) && !defined(NAX_GEMM_PORTABLE_KERNEL)
#define NAX_GEMM_VECTOR_EXTENSIONS 1
#if defined(__AVX512F__) && !defined(__CUDACC__)
#define NAX_GEMM_VECTOR_BYTES 64
#elif defined(__AVX__)
#define NAX_GEMM_VECTOR_BYTES 32
#else
#define NAX_GEMM_VECTOR_BYTES 16
#endif
#else
#define NAX_GEMM_VECTOR_EXTENSIONS 0
#define NAX_GEMM_VECTOR_BYTES 16
#endif

// The micro-kernel is a function of its own, so that it compiles the same wherever it is
// used. Measured on a Zen 3 with g++ 12: inlined into a blocking loop, its registers were
// allocated differently (7% slower); in a translation unit holding two copies of this header,
// GCC left the per-depth step below out of line (3x slower). nvcc's front end gets neither
// attribute.
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__)
#define NAX_GEMM_NOINLINE __attribute__((noinline))
#define NAX_GEMM_ALWAYS_INLINE __attribute__((always_inline))
#else
#define NAX_GEMM_NOINLINE
#define NAX_GEMM_ALWAYS_INLINE
#endif

namespace nax::detail::host {

// Register tile and cache blocks. The micro-kernel keeps an mr x nr tile of C in 2*mr vector
// registers, nr being two vectors: with AVX2 (16 ymm) 6 x 16 float, 6 x 8 double, in 12
// registers; with AVX-512 (32 zmm) 12 x 32 float, 12 x 16 double, in 24, so that each
// broadcast of A feeds two FMAs and each load of B twelve. kc x nr of packed B stays in L1
// (AVX2: 16 KiB of 32; AVX-512: 32 KiB of 48), mc x kc of packed A in L2, kc x nc of
// packed B in L3. The AVX2 values are BLIS's Zen values (on a 2-core Zen 3, kc 192..384
// and mc 96..288 measured the same within noise); bench/README.md has the AVX-512 ones.
template <class T>
struct gemm_blocking {
  static constexpr int lanes = NAX_GEMM_VECTOR_BYTES / static_cast<int>(sizeof(T));
  static constexpr bool wide = NAX_GEMM_VECTOR_BYTES == 64;
  static constexpr int mr = wide ? 12 : 6;
  static constexpr int nr = 2 * lanes;
  static constexpr index_t kc = 256;
  static constexpr index_t mc = (wide ? 288 : 144) * 4 / static_cast<index_t>(sizeof(T));
  static constexpr index_t nc = 4080 - 4080 % nr;
};

// ---------------------------------------------------------------------------------------
// Packing. A block (mc x kc) becomes row panels of mr rows, a B block (kc x nc) column
// panels of nr columns; inside a panel the mr (nr) elements of one k are adjacent. Ragged
// panels are padded with zeros, so the micro-kernel never tests bounds, and any stride,
// negative or zero, costs the same once packed.

#if NAX_GEMM_VECTOR_EXTENSIONS && !defined(__CUDACC__)  // (nvcc's front end has no __builtin_shufflevector)
// The panels of `full` (a multiple of Width) source runs along the depth (depth stride 1: a
// row-major A, a column-major B), written depth-major: a transpose. Element by element its
// stores go Width apart, one float at a time (4096 x 1024 floats: 2.2 ms, 7.6 GB/s); here
// 4 runs x 4 depths are loaded as 4 vectors, transposed in registers and stored as 4 vectors.
// A Width that is not a multiple of 4 (6) ends with the last 4 runs of the panel, which
// overlap the group before (those elements are written twice, the same values). The last
// kc % 4 depths go one by one.
template <int Width, class T>
void gemm_pack_rows_transposing(index_t full, index_t kc, const T* src, index_t index_stride, T* packed) {
  static_assert(Width >= 4, "gemm_pack_rows_transposing: panels of at least 4 runs");
  // (No helper functions taking or returning quads: for double they are AVX-sized, and a
  // function boundary would change the ABI where AVX is off, which GCC warns about.)
  typedef T quad __attribute__((vector_size(4 * sizeof(T))));
  const index_t kc4 = kc / 4 * 4;
  for (index_t panel = 0; panel < full; panel += Width) {
    T* out = packed + panel * kc;
    const T* rows = src + panel * index_stride;
    for (int group = 0; group < Width; group += 4) {
      const int i = std::min(group, Width - 4);
      const T* r = rows + i * index_stride;
      for (index_t p = 0; p < kc4; p += 4) {
        quad r0, r1, r2, r3;
        std::memcpy(&r0, r + p, sizeof r0);
        std::memcpy(&r1, r + index_stride + p, sizeof r1);
        std::memcpy(&r2, r + 2 * index_stride + p, sizeof r2);
        std::memcpy(&r3, r + 3 * index_stride + p, sizeof r3);
        const quad t0 = __builtin_shufflevector(r0, r1, 0, 4, 1, 5), t1 = __builtin_shufflevector(r0, r1, 2, 6, 3, 7);
        const quad t2 = __builtin_shufflevector(r2, r3, 0, 4, 1, 5), t3 = __builtin_shufflevector(r2, r3, 2, 6, 3, 7);
        const quad c0 = __builtin_shufflevector(t0, t2, 0, 1, 4, 5), c1 = __builtin_shufflevector(t0, t2, 2, 3, 6, 7);
        const quad c2 = __builtin_shufflevector(t1, t3, 0, 1, 4, 5), c3 = __builtin_shufflevector(t1, t3, 2, 3, 6, 7);
        std::memcpy(out + p * Width + i, &c0, sizeof c0);
        std::memcpy(out + (p + 1) * Width + i, &c1, sizeof c1);
        std::memcpy(out + (p + 2) * Width + i, &c2, sizeof c2);
        std::memcpy(out + (p + 3) * Width + i, &c3, sizeof c3);
      }
      for (index_t p = kc4; p < kc; ++p)
        for (int q = 0; q < 4; ++q) out[p * Width + i + q] = r[q * index_stride + p];
    }
  }
}
#endif

// Packs `extent` rows (A) or columns (B) of depth kc: element (index, p) is
// src[index * index_stride + p * depth_stride]. The loops follow whichever stride is 1, so
// the source is read along its contiguous runs: walking a 4 KiB-strided column instead
// (1024 floats per row) evicts its own lines, all of which map to the same L1 set.
template <int Width, class T>
void gemm_pack_panels(index_t extent, index_t kc, const T* src, index_t index_stride, index_t depth_stride,
                      T* packed) {
  const index_t full = extent / Width * Width;
  if (index_stride == 1) {
    // A few panels at a time: 256 contiguous bytes of each source run, few write streams.
    constexpr index_t group = (256 / (Width * sizeof(T)) + 1) * Width;
    for (index_t first = 0; first < full; first += group) {
      const index_t last = std::min(full, first + group);
      for (index_t p = 0; p < kc; ++p) {
        const T* run = src + p * depth_stride;
        for (index_t panel = first; panel < last; panel += Width)
          std::memcpy(packed + panel * kc + p * Width, run + panel, Width * sizeof(T));
      }
    }
  } else if (depth_stride == 1) {
#if NAX_GEMM_VECTOR_EXTENSIONS && !defined(__CUDACC__)
    gemm_pack_rows_transposing<Width>(full, kc, src, index_stride, packed);
#else
    for (index_t panel = 0; panel < full; panel += Width)
      for (int i = 0; i < Width; ++i) {
        const T* run = src + (panel + i) * index_stride;
        T* out = packed + panel * kc + i;
        for (index_t p = 0; p < kc; ++p) out[p * Width] = run[p];
      }
#endif
  } else {
    for (index_t panel = 0; panel < full; panel += Width)
      for (index_t p = 0; p < kc; ++p)
        for (int i = 0; i < Width; ++i)
          packed[panel * kc + p * Width + i] = src[(panel + i) * index_stride + p * depth_stride];
  }
  if (full < extent) {
    const int rest = static_cast<int>(extent - full);
    T* out = packed + full * kc;
    for (index_t p = 0; p < kc; ++p)
      for (int i = 0; i < Width; ++i)
        out[p * Width + i] = i < rest ? src[(full + i) * index_stride + p * depth_stride] : T(0);
  }
}

template <class T>
void gemm_pack_a(index_t mc, index_t kc, const T* a, index_t row_stride, index_t col_stride, T* packed) {
  gemm_pack_panels<gemm_blocking<T>::mr>(mc, kc, a, row_stride, col_stride, packed);
}

template <class T>
void gemm_pack_b(index_t kc, index_t nc, const T* b, index_t row_stride, index_t col_stride, T* packed) {
  gemm_pack_panels<gemm_blocking<T>::nr>(nc, kc, b, col_stride, row_stride, packed);
}

// ---------------------------------------------------------------------------------------
// Micro-kernel: C[0:m, 0:n] = alpha * Apanel * Bpanel + beta * C (beta == 0: C not read),
// for m <= mr, n <= nr. Full tiles of a C with unit column stride are updated in place
// with vector loads and stores; ragged or strided tiles go through a small buffer.

// Writes an mr x nr tile held in acc (row-major, nr per row) to C, scalar, any strides.
template <class T>
inline void gemm_store_tile(const T* acc, int m, int n, T beta, T* c, index_t row_stride, index_t col_stride) {
  constexpr int nr = gemm_blocking<T>::nr;
  for (int i = 0; i < m; ++i) {
    T* row = c + i * row_stride;
    if (beta == T(0))
      for (int j = 0; j < n; ++j) row[j * col_stride] = acc[i * nr + j];
    else
      for (int j = 0; j < n; ++j) row[j * col_stride] = beta * row[j * col_stride] + acc[i * nr + j];
  }
}

#if NAX_GEMM_VECTOR_EXTENSIONS

template <class T>
NAX_GEMM_NOINLINE void gemm_micro_kernel(index_t kc, const T* __restrict a, const T* __restrict b, T alpha, T beta,
                                         T* c, index_t row_stride, index_t col_stride, int m, int n) {
  using blocking = gemm_blocking<T>;
  constexpr int mr = blocking::mr, nr = blocking::nr, lanes = blocking::lanes;
  typedef T vec __attribute__((vector_size(NAX_GEMM_VECTOR_BYTES)));
  vec acc[mr][2];
  for (int i = 0; i < mr; ++i) acc[i][0] = acc[i][1] = vec{};
  // Packed panels are aligned to the vector size (gemm_buffer, panel sizes multiple of nr).
  const vec* bv = reinterpret_cast<const vec*>(__builtin_assume_aligned(b, NAX_GEMM_VECTOR_BYTES));
  // The tile of C is needed only after the k loop: start fetching it now.
  for (int i = 0; i < m; ++i) {
    __builtin_prefetch(c + i * row_stride, 1);
    __builtin_prefetch(c + i * row_stride + (n - 1) * col_stride, 1);
  }
  const auto step = [&](index_t p) NAX_GEMM_ALWAYS_INLINE {
    const vec b0 = bv[2 * p], b1 = bv[2 * p + 1];
    for (int i = 0; i < mr; ++i) {
      // scalar * vector broadcasts the scalar (vec{} + scalar would keep an add for -0.0).
      const T ai = a[p * mr + i];
      acc[i][0] += ai * b0;
      acc[i][1] += ai * b1;
    }
  };
  // Unrolled by hand: nvcc's front end rejects #pragma GCC unroll.
  index_t p = 0;
  for (; p + 4 <= kc; p += 4) step(p), step(p + 1), step(p + 2), step(p + 3);
  for (; p < kc; ++p) step(p);
  if (m == mr && n == nr && col_stride == 1) {
    for (int i = 0; i < mr; ++i) {
      T* row = c + i * row_stride;
      for (int h = 0; h < 2; ++h) {
        vec out = alpha * acc[i][h];
        if (beta != T(0)) {
          vec old;
          std::memcpy(&old, row + h * lanes, sizeof(vec));
          out += beta * old;
        }
        std::memcpy(row + h * lanes, &out, sizeof(vec));
      }
    }
    return;
  }
  alignas(NAX_GEMM_VECTOR_BYTES) T tile[mr * nr];
  for (int i = 0; i < mr; ++i)
    for (int h = 0; h < 2; ++h) {
      const vec out = alpha * acc[i][h];
      std::memcpy(tile + i * nr + h * lanes, &out, sizeof(vec));
    }
  gemm_store_tile(tile, m, n, beta, c, row_stride, col_stride);
}

#else  // portable kernel: the same tile on plain arrays

template <class T>
inline void gemm_micro_kernel(index_t kc, const T* __restrict a, const T* __restrict b, T alpha, T beta, T* c,
                              index_t row_stride, index_t col_stride, int m, int n) {
  constexpr int mr = gemm_blocking<T>::mr, nr = gemm_blocking<T>::nr;
  T acc[mr * nr] = {};
  for (index_t p = 0; p < kc; ++p)
    for (int i = 0; i < mr; ++i)
      for (int j = 0; j < nr; ++j) acc[i * nr + j] += a[p * mr + i] * b[p * nr + j];
  for (T& x : acc) x *= alpha;
  gemm_store_tile(acc, m, n, beta, c, row_stride, col_stride);
}

#endif

// ---------------------------------------------------------------------------------------
// Per-thread packing buffers, kept between calls so small products do not pay for malloc
// and page faults each time. Aligned for the micro-kernel's vector loads.
struct gemm_buffer {
  void* data = nullptr;
  std::size_t bytes = 0;
  gemm_buffer() = default;
  gemm_buffer(const gemm_buffer&) = delete;
  gemm_buffer& operator=(const gemm_buffer&) = delete;
  ~gemm_buffer() { ::operator delete(data, std::align_val_t{64}); }

  template <class T>
  T* get(std::size_t count) {
    if (count * sizeof(T) > bytes) {
      ::operator delete(data, std::align_val_t{64});
      data = nullptr;
      bytes = 0;
      data = ::operator new(count * sizeof(T), std::align_val_t{64});
      bytes = count * sizeof(T);
    }
    return static_cast<T*>(data);
  }
};

inline gemm_buffer& gemm_thread_buffer_a() {
  thread_local gemm_buffer buffer;
  return buffer;
}
inline gemm_buffer& gemm_thread_buffer_b() {
  thread_local gemm_buffer buffer;
  return buffer;
}

// One matrix product on the calling thread: C(M,N) = alpha A(M,K) B(K,N) + beta C, K > 0.
// Loop order of Goto/BLIS: column blocks of B (nc), depth blocks (kc), row blocks of A (mc),
// then the micro-panels.
template <class T>
void gemm_packed_serial(index_t M, index_t N, index_t K, T alpha, const T* a, index_t a_row, index_t a_col,
                        const T* b, index_t b_row, index_t b_col, T beta, T* c, index_t c_row, index_t c_col) {
  using blocking = gemm_blocking<T>;
  constexpr index_t mr = blocking::mr, nr = blocking::nr;
  const index_t kc_max = std::min(blocking::kc, K);
  const index_t mc_max = std::min(blocking::mc, (M + mr - 1) / mr * mr);
  const index_t nc_max = std::min(blocking::nc, (N + nr - 1) / nr * nr);
  T* packed_a = gemm_thread_buffer_a().get<T>(static_cast<std::size_t>(mc_max * kc_max));
  T* packed_b = gemm_thread_buffer_b().get<T>(static_cast<std::size_t>(nc_max * kc_max));

  for (index_t jc = 0; jc < N; jc += blocking::nc) {
    const index_t nc = std::min(blocking::nc, N - jc);
    for (index_t pc = 0; pc < K; pc += blocking::kc) {
      const index_t kc = std::min(blocking::kc, K - pc);
      const T beta_block = pc == 0 ? beta : T(1);
      gemm_pack_b(kc, nc, b + pc * b_row + jc * b_col, b_row, b_col, packed_b);
      for (index_t ic = 0; ic < M; ic += blocking::mc) {
        const index_t mc = std::min(blocking::mc, M - ic);
        gemm_pack_a(mc, kc, a + ic * a_row + pc * a_col, a_row, a_col, packed_a);
        for (index_t jr = 0; jr < nc; jr += nr) {
          const int n = static_cast<int>(std::min(nr, nc - jr));
          for (index_t ir = 0; ir < mc; ir += mr) {
            const int m = static_cast<int>(std::min(mr, mc - ir));
            gemm_micro_kernel<T>(kc, packed_a + ir * kc, packed_b + jr * kc, alpha, beta_block,
                                 c + (ic + ir) * c_row + (jc + jr) * c_col, c_row, c_col, m, n);
          }
        }
      }
    }
  }
}

// Number of threads to use for `work` multiply-adds: one below 64^3 (forking and joining
// costs a few microseconds, as much as a 48^3 product), one inside a parallel region,
// otherwise what OpenMP offers (OMP_NUM_THREADS).
inline int gemm_thread_count(double work) {
#if defined(_OPENMP)
  if (work < 262144.0 || omp_in_parallel()) return 1;
  return omp_get_max_threads();
#else
  (void)work;
  return 1;
#endif
}

// body(i) for i in [0, count) on `threads` threads, which take chunks of `chunk` as they
// become free (on a loaded machine a thread that lost its core leaves its share to the
// others); a plain loop when one thread will do (an OpenMP region costs even with if(false)).
template <class Body>
void gemm_parallel_for(int threads, index_t count, index_t chunk, const Body& body) {
#if defined(_OPENMP)
  if (threads > 1 && count > 1) {
#pragma omp parallel num_threads(threads)
    {
      [[maybe_unused]] const subnormals_flushed flushed;  // (each thread's own flags; the caller set its own)
#pragma omp for schedule(dynamic, chunk)
      for (index_t i = 0; i < count; ++i) body(i);
    }
    return;
  }
#endif
  (void)threads, (void)chunk;
  for (index_t i = 0; i < count; ++i) body(i);
}

// Splits threads into a grid rows x cols over C, minimising what each thread packs
// (M/rows + N/cols rows and columns of K), with at least one register tile per part.
template <class T>
void gemm_thread_grid(int threads, index_t M, index_t N, int& rows, int& cols) {
  const index_t row_tiles = (M + gemm_blocking<T>::mr - 1) / gemm_blocking<T>::mr;
  const index_t col_tiles = (N + gemm_blocking<T>::nr - 1) / gemm_blocking<T>::nr;
  rows = cols = 1;
  double best = -1;
  for (int r = 1; r <= threads; ++r) {
    if (threads % r != 0) continue;
    const int c = threads / r;
    if (r > row_tiles || c > col_tiles) continue;
    const double cost = static_cast<double>(M) / r + static_cast<double>(N) / c;
    if (best < 0 || cost < best) best = cost, rows = r, cols = c;
  }
}

// Part `part` of `parts` of [0, extent), cut on multiples of `quantum`.
inline void gemm_split(index_t extent, index_t quantum, int parts, int part, index_t& begin, index_t& end) {
  const index_t units = (extent + quantum - 1) / quantum;
  begin = std::min(extent, units * part / parts * quantum);
  end = std::min(extent, units * (part + 1) / parts * quantum);
}

}  // namespace nax::detail::host
