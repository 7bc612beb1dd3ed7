// Batched, strided matrix product on the host: C = alpha A B + beta C for every batch, any
// element strides, any arithmetic type. float and double run the packed kernel of
// gemm_kernel.hpp, or a CBLAS library when NAX_USE_CBLAS is defined (gemm_cblas.hpp);
// other types run a plain loop. The built-in products flush subnormal operands and results to
// zero (subnormals.hpp: as XLA does; a CBLAS library does what it does). The host backend's
// matmul lowers to `gemm`.
#pragma once
#include <nax/backend/host/gemm_kernel.hpp>
#include <nax/backend/host/gemm_thin.hpp>
#include <nax/core/config.hpp>

#if defined(NAX_USE_CBLAS)
#include <nax/backend/host/gemm_cblas.hpp>
#endif

#include <algorithm>
#include <climits>
#include <memory>
#include <type_traits>
#include <utility>

namespace nax::detail::host {

template <class T>
inline constexpr bool gemm_has_packed_kernel = std::is_same_v<T, float> || std::is_same_v<T, double>;

// C^T = B^T A^T: the same product with the roles of rows and columns exchanged.
template <class T>
void gemm_transpose_problem(index_t& M, index_t& N, gemm_operand<T>& A, gemm_operand<T>& B, gemm_output<T>& C) {
  std::swap(M, N);
  std::swap(A, B);
  std::swap(A.row_stride, A.col_stride);
  std::swap(B.row_stride, B.col_stride);
  std::swap(C.row_stride, C.col_stride);
}

// C = beta * C for every batch (C = 0, unread, when beta == 0): a product with K == 0 or alpha == 0.
template <class T>
void gemm_scale_batches(index_t batch, index_t M, index_t N, T beta, gemm_output<T> C) {
  for (index_t b = 0; b < batch; ++b) {
    T* c = C.data + b * C.batch_stride;
    for (index_t i = 0; i < M; ++i)
      for (index_t j = 0; j < N; ++j) {
        T& x = c[i * C.row_stride + j * C.col_stride];
        x = beta == T(0) ? T(0) : static_cast<T>(beta * x);
      }
  }
}

// Integer (and other non-BLAS) types: one row of C at a time, k outer so that the inner
// loop runs along rows of B and C; exact for integers. Parallel over rows when large.
template <class T>
void gemm_loop(index_t batch, index_t M, index_t N, index_t K, T alpha, gemm_operand<T> A, gemm_operand<T> B,
               T beta, gemm_output<T> C) {
  const index_t rows = batch * M;
  const int threads = gemm_thread_count(static_cast<double>(rows) * static_cast<double>(N) * static_cast<double>(K));
  gemm_parallel_for(threads, rows, std::max<index_t>(1, rows / (8 * threads)), [&](index_t row) {
    const index_t b = row / M, i = row % M;
    const T* a = A.data + b * A.batch_stride + i * A.row_stride;
    T* c = C.data + b * C.batch_stride + i * C.row_stride;
    for (index_t j = 0; j < N; ++j) {
      T& x = c[j * C.col_stride];
      x = beta == T(0) ? T(0) : static_cast<T>(beta * x);
    }
    if (alpha == T(0)) return;
    for (index_t k = 0; k < K; ++k) {
      const T scaled = static_cast<T>(alpha * a[k * A.col_stride]);
      const T* bk = B.data + b * B.batch_stride + k * B.row_stride;
      for (index_t j = 0; j < N; ++j)
        c[j * C.col_stride] = static_cast<T>(c[j * C.col_stride] + scaled * bk[j * B.col_stride]);
    }
  });
}

// Small products (at most small_gemm_work multiply-adds: a matrix-vector product of a few
// thousand elements, say): one dot product per element of C, no packing. The blocked kernel's
// packing, tiling and threads cost more than such a product.
inline constexpr double small_gemm_work = 32768;

template <class T>
void gemm_small(index_t batch, index_t M, index_t N, index_t K, T alpha, gemm_operand<T> A, gemm_operand<T> B,
                T beta, gemm_output<T> C) {
  if (K < 16) {
    // Few terms per element: K passes over a column of C (independent multiply-adds along
    // i), not a short reduction per element, whose set-up would cost more than its work.
    std::unique_ptr<T[]> acc(new T[static_cast<std::size_t>(M)]);
    for (index_t b = 0; b < batch; ++b)
      for (index_t j = 0; j < N; ++j) {
        const T* a = A.data + b * A.batch_stride;
        const T* bj = B.data + b * B.batch_stride + j * B.col_stride;
        std::fill_n(acc.get(), M, T(0));
        for (index_t k = 0; k < K; ++k) {
          const T bk = bj[k * B.row_stride];
          const T* ak = a + k * A.col_stride;
          for (index_t i = 0; i < M; ++i) acc[i] += ak[i * A.row_stride] * bk;
        }
        T* c = C.data + b * C.batch_stride + j * C.col_stride;
        for (index_t i = 0; i < M; ++i) {
          T& ci = c[i * C.row_stride];
          ci = beta == T(0) ? alpha * acc[i] : alpha * acc[i] + beta * ci;
        }
      }
    return;
  }
  for (index_t b = 0; b < batch; ++b)
    for (index_t i = 0; i < M; ++i) {
      const T* a = A.data + b * A.batch_stride + i * A.row_stride;
      for (index_t j = 0; j < N; ++j) {
        const T* bj = B.data + b * B.batch_stride + j * B.col_stride;
        T sum = 0;
#pragma omp simd reduction(+ : sum)
        for (index_t k = 0; k < K; ++k) sum += a[k * A.col_stride] * bj[k * B.row_stride];
        T& c = C.data[b * C.batch_stride + i * C.row_stride + j * C.col_stride];
        c = beta == T(0) ? alpha * sum : alpha * sum + beta * c;
      }
    }
}

// The built-in GEMM, whatever NAX_USE_CBLAS says.
template <class T>
void gemm_builtin(index_t batch, index_t M, index_t N, index_t K, T alpha, gemm_operand<T> A, gemm_operand<T> B,
                  T beta, gemm_output<T> C) {
  static_assert(std::is_arithmetic_v<T>, "gemm: the element type must be arithmetic");
  if (batch <= 0 || M <= 0 || N <= 0) return;
  // (The stride of an axis of extent 1 means nothing.)
  const bool column_major_output = C.row_stride == 1 && C.col_stride != 1 && M > 1 && N > 1;
  if constexpr (!gemm_has_packed_kernel<T>) {
    // The loop runs along rows of C: make them contiguous if C's columns are.
    if (column_major_output) gemm_transpose_problem(M, N, A, B, C);
    gemm_loop(batch, M, N, K, alpha, A, B, beta, C);
  } else {
    // (subnormals.hpp: as XLA. This thread's flags; the worker threads set their own.)
    [[maybe_unused]] const subnormals_flushed flushed;
    if (K <= 0 || alpha == T(0)) return gemm_scale_batches(batch, M, N, beta, C);
    if (const thin_kind kind = gemm_thin_kind(M, N, K, A, B); kind != thin_kind::none) {
      for (index_t b = 0; b < batch; ++b)
        gemm_thin(kind, M, N, K, alpha, {A.data + b * A.batch_stride, 0, A.row_stride, A.col_stride},
                  {B.data + b * B.batch_stride, 0, B.row_stride, B.col_stride}, beta,
                  {C.data + b * C.batch_stride, 0, C.row_stride, C.col_stride});
      return;
    }
    if (static_cast<double>(batch) * static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K) <=
        small_gemm_work)
      return gemm_small(batch, M, N, K, alpha, A, B, beta, C);
    // The kernel stores full rows of a tile with vector stores when C's rows are contiguous;
    // a matrix-vector product (N == 1) fills a whole row of the register tile (16 or 32 lanes) instead of 1.
    if (column_major_output || (N == 1 && M > 1)) gemm_transpose_problem(M, N, A, B, C);
    using blocking = gemm_blocking<T>;
    const double work = static_cast<double>(batch) * static_cast<double>(M) * static_cast<double>(N) *
                        static_cast<double>(K);
    const int threads = gemm_thread_count(work);
    // Whole matrices per thread when the batches share out evenly; otherwise every matrix
    // is cut into one part per thread.
    int grid_rows = 1, grid_cols = 1;
    if (threads > 1 && batch % threads != 0 && batch < 4 * threads)
      gemm_thread_grid<T>(threads, M, N, grid_rows, grid_cols);
    const index_t parts = index_t{grid_rows} * grid_cols;
    gemm_parallel_for(threads, batch * parts, 1, [&](index_t item) {
      const index_t b = item / parts, part = item % parts;
      index_t m0, m1, n0, n1;
      gemm_split(M, blocking::mr, grid_rows, static_cast<int>(part / grid_cols), m0, m1);
      gemm_split(N, blocking::nr, grid_cols, static_cast<int>(part % grid_cols), n0, n1);
      if (m0 == m1 || n0 == n1) return;
      gemm_packed_serial<T>(m1 - m0, n1 - n0, K, alpha,  //
                            A.data + b * A.batch_stride + m0 * A.row_stride, A.row_stride, A.col_stride,
                            B.data + b * B.batch_stride + n0 * B.col_stride, B.row_stride, B.col_stride, beta,
                            C.data + b * C.batch_stride + m0 * C.row_stride + n0 * C.col_stride, C.row_stride,
                            C.col_stride);
    });
  }
}

#if defined(NAX_USE_CBLAS)
// float and double through CBLAS, one call per batch; extents beyond an int fall back to
// the built-in kernel.
template <class T>
void gemm_cblas(index_t batch, index_t M, index_t N, index_t K, T alpha, gemm_operand<T> A, gemm_operand<T> B,
                T beta, gemm_output<T> C) {
  static_assert(gemm_has_packed_kernel<T>, "gemm_cblas: CBLAS multiplies float and double only");
  if (batch <= 0 || M <= 0 || N <= 0) return;
  if (K <= 0 || alpha == T(0)) return gemm_scale_batches(batch, M, N, beta, C);
  if (M > INT_MAX || N > INT_MAX || K > INT_MAX) return gemm_builtin(batch, M, N, K, alpha, A, B, beta, C);
  for (index_t b = 0; b < batch; ++b)
    gemm_cblas_matrix<T>(M, N, K, alpha, A.data + b * A.batch_stride, A.row_stride, A.col_stride,
                         B.data + b * B.batch_stride, B.row_stride, B.col_stride, beta,
                         C.data + b * C.batch_stride, C.row_stride, C.col_stride);
}
#endif

// C(b, m, n) = alpha * sum_k A(b, m, k) B(b, k, n) + beta * C(b, m, n) for b < batch.
// beta == 0 means C is not read (it may hold NaN). K == 0 or alpha == 0 leaves beta * C,
// without reading A and B (as BLAS does). C must not overlap A or B.
template <class T>
void gemm(index_t batch, index_t M, index_t N, index_t K, T alpha, gemm_operand<T> A, gemm_operand<T> B, T beta,
          gemm_output<T> C) {
#if defined(NAX_USE_CBLAS)
  if constexpr (gemm_has_packed_kernel<T>) return gemm_cblas(batch, M, N, K, alpha, A, B, beta, C);
#endif
  gemm_builtin(batch, M, N, K, alpha, A, B, beta, C);
}

}  // namespace nax::detail::host
