// Thin products on the host: one GEMM dimension of at most 8 held by an operand of packed
// short rows. The seed's linear model is two of them: dot<in>(x, w) with x (batch, in = 3)
// (depth 3), and its gradient dot<batch>(x, ct) (3 outputs, a long reduction). The blocked
// kernel pads such a product to its 6 x 16 tile and packs it; a short dot product per
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

// C(i, j) = alpha * sum_k A(i, k) B(k, j) + beta * C(i, j), A(i, k) = a[i * K + k].
// Rows [i0, i1) of column j. alpha is folded into the K values of B's column.
template <int K, class T>
void gemm_thin_depth_rows(index_t i0, index_t i1, index_t j, T alpha, const T* __restrict a, const T* b,
                          index_t b_row_stride, index_t b_col_stride, T beta, T* c, index_t c_row_stride,
                          index_t c_col_stride) {
  T bk[K];
  for (int k = 0; k < K; ++k) bk[k] = alpha * b[k * b_row_stride + j * b_col_stride];
  T* __restrict cj = c + j * c_col_stride;
  auto dot = [&](index_t i) {
    T s = a[i * K] * bk[0];
    for (int k = 1; k < K; ++k) s += a[i * K + k] * bk[k];
    return s;
  };
  if (c_row_stride == 1) {
    if (beta == T(0))
      for (index_t i = i0; i < i1; ++i) cj[i] = dot(i);
    else
      for (index_t i = i0; i < i1; ++i) cj[i] = dot(i) + beta * cj[i];
  } else {
    if (beta == T(0))
      for (index_t i = i0; i < i1; ++i) cj[i * c_row_stride] = dot(i);
    else
      for (index_t i = i0; i < i1; ++i) cj[i * c_row_stride] = dot(i) + beta * cj[i * c_row_stride];
  }
}

template <int K, class T>
void gemm_thin_depth(index_t M, index_t N, T alpha, const T* a, const gemm_operand<T>& B, T beta,
                     const gemm_output<T>& C) {
  constexpr index_t chunk = 4096;
  const index_t chunks = (M + chunk - 1) / chunk;
  const int threads = static_cast<double>(M) * static_cast<double>(N) * K >= thin_parallel_work
                          ? gemm_thread_count(thin_parallel_work)
                          : 1;
  gemm_parallel_for(threads, chunks * N, 1, [&](index_t item) {
    const index_t j = item / chunks, i0 = (item % chunks) * chunk;
    gemm_thin_depth_rows<K>(i0, std::min(M, i0 + chunk), j, alpha, a, B.data, B.row_stride, B.col_stride, beta,
                            C.data, C.row_stride, C.col_stride);
  });
}

// out[m] = sum_{k in [k0, k1)} b[k] * a[k * M + m] for m < M: few outputs, a long reduction
// over packed rows of M. L consecutive k fill M vectors of a; b's L values are spread to
// match them by shuffles, and 2 M accumulators hide the latency of the multiply-adds.
#if NAX_GEMM_VECTOR_EXTENSIONS && !defined(__CUDACC__)  // (nvcc's front end has no __builtin_shufflevector)
template <int M, class T>
void gemm_thin_outputs_sum(index_t k0, index_t k1, const T* __restrict a, const T* __restrict b, T* out) {
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
void gemm_thin_outputs_sum(index_t k0, index_t k1, const T* __restrict a, const T* __restrict b, T* out) {
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

// C(m, j) = alpha * sum_k A(m, k) B(k, j) + beta * C(m, j) for M <= 8, A(m, k) = a[k * M + m]
// and B's columns contiguous (B(k, j) = b[k + j * b_col_stride]). Columns in parallel when
// there are several per thread, else the reduction over K split, partial sums combined.
template <int M, class T>
void gemm_thin_outputs(index_t N, index_t K, T alpha, const T* a, const gemm_operand<T>& B, T beta,
                       const gemm_output<T>& C) {
  auto store = [&](index_t j, const T* sum) {
    for (int m = 0; m < M; ++m) {
      T& c = C.data[m * C.row_stride + j * C.col_stride];
      c = beta == T(0) ? alpha * sum[m] : alpha * sum[m] + beta * c;
    }
  };
  const int threads = static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K) >= thin_parallel_work
                          ? gemm_thread_count(thin_parallel_work)
                          : 1;
  if (threads == 1 || N >= 2 * threads) {
    gemm_parallel_for(threads, N, 1, [&](index_t j) {
      T sum[M];
      gemm_thin_outputs_sum<M>(0, K, a, B.data + j * B.col_stride, sum);
      store(j, sum);
    });
    return;
  }
  const index_t parts = threads;
  std::unique_ptr<T[]> partial(new T[static_cast<std::size_t>(parts * N * M)]);
  gemm_parallel_for(threads, parts * N, 1, [&](index_t item) {
    const index_t j = item / parts, part = item % parts;
    gemm_thin_outputs_sum<M>(K * part / parts, K * (part + 1) / parts, a, B.data + j * B.col_stride,
                             partial.get() + item * M);
  });
  for (index_t j = 0; j < N; ++j) {
    T sum[M] = {};
    for (index_t part = 0; part < parts; ++part)
      for (int m = 0; m < M; ++m) sum[m] += partial[(j * parts + part) * M + m];
    store(j, sum);
  }
}

// Calls f(std::integral_constant<int, E>) for the run-time extent e in [1, 8].
template <class F>
void with_thin_extent(index_t e, F&& f) {
  [&]<int... E>(std::integer_sequence<int, E...>) {
    ((e == E + 1 ? (f(std::integral_constant<int, E + 1>{}), true) : false) || ...);
  }(std::make_integer_sequence<int, static_cast<int>(thin_extent_limit)>{});
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
      return with_thin_extent(K, [&](auto k) { gemm_thin_depth<k()>(M, N, alpha, A.data, B, beta, C); });
    case thin_kind::depth_transposed:
      return with_thin_extent(K, [&](auto k) { gemm_thin_depth<k()>(N, M, alpha, B.data, At, beta, Ct); });
    case thin_kind::outputs:
      return with_thin_extent(M, [&](auto m) { gemm_thin_outputs<m()>(N, K, alpha, A.data, B, beta, C); });
    case thin_kind::outputs_transposed:
      return with_thin_extent(N, [&](auto n) { gemm_thin_outputs<n()>(M, K, alpha, B.data, At, beta, Ct); });
    case thin_kind::none:
      return;
  }
}

}  // namespace nax::detail::host
