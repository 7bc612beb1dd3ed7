// Thin products on the host: one GEMM dimension of at most 8 held by an operand of packed
// short rows. The JAX program's linear model is two of them: dot<in>(x, w) with x (batch, in = 3)
// (depth 3), and its gradient dot<batch>(x, ct) (3 outputs, a long reduction). The blocked
// kernel pads such a product to its register tile (6 x 16 or 12 x 32) and packs it; a short dot product per
// element reads the rows with a stride the compiler does not know. Here the short
// extent is a template argument, so the packed rows are read as whole vectors.
// Bottom of backend/host, beside gemm_kernel.hpp; gemm.hpp dispatches to it.
#pragma once
#include <nax/backend/host/gemm_kernel.hpp>

#include <algorithm>
#include <cstring>
#include <memory>
#include <utility>

namespace nax::detail::host {

// Element (b, m, k) of an operand is data[b * batch_stride + m * row_stride + k * col_stride].
// Strides may be zero (broadcast) or negative (reversed views).
template <class T>
struct gemm_operand {
  const T* data;
  index_t batch_stride, row_stride, col_stride;
};
template <class T>
struct gemm_output {
  T* data;
  index_t batch_stride, row_stride, col_stride;
};

inline constexpr index_t thin_extent_limit = 8;
// Multiply-adds below which a thin product runs on one thread (forking costs microseconds).
inline constexpr double thin_parallel_work = 1 << 18;

// The two kernels, the only code templated on the short extent (one small loop each, so that
// 8 extents cost little to compile); everything around them takes the extent at run time.

// c[i] = sum_k a[i * K + k] * bk[k] for i < count: dot products of packed rows of K.
template <int K, class T>
void gemm_thin_dots(index_t count, const T* __restrict a, const T* __restrict bk, T* __restrict c) {
  for (index_t i = 0; i < count; ++i) {
    T s = a[i * K] * bk[0];
    for (int k = 1; k < K; ++k) s += a[i * K + k] * bk[k];
    c[i] = s;
  }
}

// out[m] = sum_{k in [k0, k1)} b[k] * a[k * M + m] for m < M: few outputs, a long reduction
// over packed rows of M. L consecutive k fill M vectors of a; b's L values are spread to
// match them by shuffles, and 2 M accumulators hide the latency of the multiply-adds.
#if NAX_GEMM_VECTOR_EXTENSIONS && !defined(__CUDACC__)  // (nvcc's front end has no __builtin_shufflevector)
template <int M, class T>
void gemm_thin_sums(index_t k0, index_t k1, const T* __restrict a, const T* __restrict b, T* out) {
  constexpr int L = NAX_GEMM_VECTOR_BYTES / static_cast<int>(sizeof(T));
  typedef T vec __attribute__((vector_size(NAX_GEMM_VECTOR_BYTES)));
  auto load = [](const T* p) {
    vec v;
    std::memcpy(&v, p, sizeof v);
    return v;
  };
  // Lane l of vector v holds flat element v * L + l of the block: row (v * L + l) / M.
  auto spread = []<int V, int... Ls>(vec bv, std::integral_constant<int, V>, std::integer_sequence<int, Ls...>) {
    return __builtin_shufflevector(bv, bv, ((V * L + Ls) / M)...);
  };
  vec acc[2][M] = {};
  index_t k = k0;
  auto block = [&](int half, index_t kb) {
    const vec bv = load(b + kb);
    [&]<int... V>(std::integer_sequence<int, V...>) {
      ((acc[half][V] += load(a + kb * M + V * L) *
                        spread(bv, std::integral_constant<int, V>{}, std::make_integer_sequence<int, L>{})),
       ...);
    }(std::make_integer_sequence<int, M>{});
  };
  for (; k + 2 * L <= k1; k += 2 * L) {
    block(0, k);
    block(1, k + L);
  }
  for (; k + L <= k1; k += L) block(0, k);
  for (int m = 0; m < M; ++m) out[m] = T(0);
  for (int v = 0; v < M; ++v)
    for (int l = 0; l < L; ++l) out[(v * L + l) % M] += acc[0][v][l] + acc[1][v][l];
  for (; k < k1; ++k)
    for (int m = 0; m < M; ++m) out[m] += b[k] * a[k * M + m];
}
#else
template <int M, class T>
void gemm_thin_sums(index_t k0, index_t k1, const T* __restrict a, const T* __restrict b, T* out) {
  constexpr int R = 4;  // independent partial sums per output
  T acc[R][M] = {};
  index_t k = k0;
  for (; k + R <= k1; k += R)
    for (int r = 0; r < R; ++r)
      for (int m = 0; m < M; ++m) acc[r][m] += b[k + r] * a[(k + r) * M + m];
  for (int m = 0; m < M; ++m) out[m] = acc[0][m] + acc[1][m] + acc[2][m] + acc[3][m];
  for (; k < k1; ++k)
    for (int m = 0; m < M; ++m) out[m] += b[k] * a[k * M + m];
}
#endif

// The kernel for a run-time extent e in [1, 8].
template <class T>
auto thin_dots_kernel(index_t e) {
  using kernel = void (*)(index_t, const T*, const T*, T*);
  static constexpr kernel table[] = {gemm_thin_dots<1, T>, gemm_thin_dots<2, T>, gemm_thin_dots<3, T>,
                                     gemm_thin_dots<4, T>, gemm_thin_dots<5, T>, gemm_thin_dots<6, T>,
                                     gemm_thin_dots<7, T>, gemm_thin_dots<8, T>};
  return table[e - 1];
}
template <class T>
auto thin_sums_kernel(index_t e) {
  using kernel = void (*)(index_t, index_t, const T*, const T*, T*);
  static constexpr kernel table[] = {gemm_thin_sums<1, T>, gemm_thin_sums<2, T>, gemm_thin_sums<3, T>,
                                     gemm_thin_sums<4, T>, gemm_thin_sums<5, T>, gemm_thin_sums<6, T>,
                                     gemm_thin_sums<7, T>, gemm_thin_sums<8, T>};
  return table[e - 1];
}
static_assert(thin_extent_limit == 8, "the kernel tables above list extents 1..8");

// c = alpha * value + beta * c (beta == 0: c not read), for n values, c with a stride.
template <class T>
void gemm_thin_store(index_t n, T alpha, const T* value, T beta, T* c, index_t stride) {
  for (index_t i = 0; i < n; ++i) {
    T& x = c[i * stride];
    x = beta == T(0) ? alpha * value[i] : alpha * value[i] + beta * x;
  }
}

// C(i, j) = alpha * sum_k A(i, k) B(k, j) + beta * C(i, j) for K <= 8, A(i, k) = a[i * K + k]:
// chunks of rows of one column of C, computed into a buffer on the stack, then stored.
template <class T>
void gemm_thin_depth(index_t M, index_t N, index_t K, T alpha, const T* a, const gemm_operand<T>& B, T beta,
                     const gemm_output<T>& C) {
  constexpr index_t chunk = 512;
  const auto dots = thin_dots_kernel<T>(K);
  const index_t chunks = (M + chunk - 1) / chunk;
  const double work = static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K);
  const int threads = work >= thin_parallel_work ? gemm_thread_count(thin_parallel_work) : 1;
  gemm_parallel_for(threads, chunks * N, 8, [&](index_t item) {
    const index_t j = item / chunks, i0 = (item % chunks) * chunk, n = std::min(M - i0, chunk);
    T bk[thin_extent_limit], value[chunk];
    for (index_t k = 0; k < K; ++k) bk[k] = B.data[k * B.row_stride + j * B.col_stride];
    dots(n, a + i0 * K, bk, value);
    gemm_thin_store(n, alpha, value, beta, C.data + i0 * C.row_stride + j * C.col_stride, C.row_stride);
  });
}

// C(m, j) = alpha * sum_k A(m, k) B(k, j) + beta * C(m, j) for M <= 8, A(m, k) = a[k * M + m]
// and B's columns contiguous (B(k, j) = b[k + j * b_col_stride]). Columns in parallel when
// there are several per thread, else the reduction over K split, partial sums combined.
template <class T>
void gemm_thin_outputs(index_t M, index_t N, index_t K, T alpha, const T* a, const gemm_operand<T>& B, T beta,
                       const gemm_output<T>& C) {
  const auto sums = thin_sums_kernel<T>(M);
  const double work = static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K);
  const int threads = work >= thin_parallel_work ? gemm_thread_count(thin_parallel_work) : 1;
  if (threads == 1 || N >= 2 * threads) {
    gemm_parallel_for(threads, N, 1, [&](index_t j) {
      T sum[thin_extent_limit];
      sums(0, K, a, B.data + j * B.col_stride, sum);
      gemm_thin_store(M, alpha, sum, beta, C.data + j * C.col_stride, C.row_stride);
    });
    return;
  }
  const index_t parts = threads;
  std::unique_ptr<T[]> partial(new T[static_cast<std::size_t>(parts * N * M)]);
  gemm_parallel_for(threads, parts * N, 1, [&](index_t item) {
    const index_t j = item / parts, part = item % parts;
    sums(K * part / parts, K * (part + 1) / parts, a, B.data + j * B.col_stride, partial.get() + item * M);
  });
  for (index_t j = 0; j < N; ++j) {
    T sum[thin_extent_limit] = {};
    for (index_t part = 0; part < parts; ++part)
      for (index_t m = 0; m < M; ++m) sum[m] += partial[(j * parts + part) * M + m];
    gemm_thin_store(M, alpha, sum, beta, C.data + j * C.col_stride, C.row_stride);
  }
}

// Which thin shape a product has, if any: a depth of at most 8 over packed rows of A (or of
// B, as C^T = B^T A^T); at most 8 rows of C with A's columns packed and B's columns
// contiguous (or at most 8 columns, transposed likewise). Strides of extent-1 axes mean nothing.
enum class thin_kind { none, depth, depth_transposed, outputs, outputs_transposed };

template <class T>
thin_kind gemm_thin_kind(index_t M, index_t N, index_t K, const gemm_operand<T>& A, const gemm_operand<T>& B) {
  const bool a_rows_packed = (A.col_stride == 1 || K == 1) && (A.row_stride == K || M == 1);
  const bool a_cols_packed = (A.row_stride == 1 || M == 1) && (A.col_stride == M || K == 1);
  const bool b_rows_packed = (B.col_stride == 1 || N == 1) && (B.row_stride == N || K == 1);
  const bool b_cols_packed = (B.row_stride == 1 || K == 1) && (B.col_stride == K || N == 1);
  const bool a_rows_contiguous = A.col_stride == 1 || K == 1;
  const bool b_cols_contiguous = B.row_stride == 1 || K == 1;
  if (K <= thin_extent_limit && a_rows_packed) return thin_kind::depth;
  if (K <= thin_extent_limit && b_cols_packed) return thin_kind::depth_transposed;
  if (M <= thin_extent_limit && a_cols_packed && b_cols_contiguous) return thin_kind::outputs;
  if (N <= thin_extent_limit && b_rows_packed && a_rows_contiguous) return thin_kind::outputs_transposed;
  return thin_kind::none;
}

// One matrix of a thin product of the given kind.
template <class T>
void gemm_thin(thin_kind kind, index_t M, index_t N, index_t K, T alpha, const gemm_operand<T>& A,
               const gemm_operand<T>& B, T beta, const gemm_output<T>& C) {
  const gemm_operand<T> At{A.data, A.batch_stride, A.col_stride, A.row_stride};
  const gemm_output<T> Ct{C.data, C.batch_stride, C.col_stride, C.row_stride};
  switch (kind) {
    case thin_kind::depth:
      return gemm_thin_depth(M, N, K, alpha, A.data, B, beta, C);
    case thin_kind::depth_transposed:
      return gemm_thin_depth(N, M, K, alpha, B.data, At, beta, Ct);
    case thin_kind::outputs:
      return gemm_thin_outputs(M, N, K, alpha, A.data, B, beta, C);
    case thin_kind::outputs_transposed:
      return gemm_thin_outputs(N, M, K, alpha, B.data, At, beta, Ct);
    case thin_kind::none:
      return;
  }
}

}  // namespace nax::detail::host
