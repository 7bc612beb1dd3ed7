// One strided float or double matrix product through a CBLAS library (cblas_sgemm /
// cblas_dgemm), used by gemm.hpp when NAX_USE_CBLAS is defined. Operands whose strides
// are no BLAS leading dimension (two non-unit strides, zero or negative strides) are packed
// into a contiguous buffer first. Include <cblas.h>, or the header named by NAX_CBLAS_HEADER.
#pragma once
#include <nax/backend/host/gemm_kernel.hpp>
#include <nax/core/config.hpp>

#include <algorithm>
#include <climits>
#include <utility>

#if defined(NAX_CBLAS_HEADER)
#include NAX_CBLAS_HEADER
#else
#include <cblas.h>
#endif

namespace nax::detail::host {

inline void gemm_cblas_call(CBLAS_TRANSPOSE trans_a, CBLAS_TRANSPOSE trans_b, int M, int N, int K, float alpha,
                            const float* a, int lda, const float* b, int ldb, float beta, float* c, int ldc) {
  cblas_sgemm(CblasRowMajor, trans_a, trans_b, M, N, K, alpha, a, lda, b, ldb, beta, c, ldc);
}
inline void gemm_cblas_call(CBLAS_TRANSPOSE trans_a, CBLAS_TRANSPOSE trans_b, int M, int N, int K, double alpha,
                            const double* a, int lda, const double* b, int ldb, double beta, double* c, int ldc) {
  cblas_dgemm(CblasRowMajor, trans_a, trans_b, M, N, K, alpha, a, lda, b, ldb, beta, c, ldc);
}

// Whether a rows x cols matrix with these element strides is a row-major BLAS matrix
// (trans = NoTrans) or a column-major one (trans = Trans, read as the row-major transpose),
// and its leading dimension. The stride of an axis of extent 1 is never used and is ignored.
inline bool gemm_cblas_layout(index_t rows, index_t cols, index_t row_stride, index_t col_stride,
                              CBLAS_TRANSPOSE& trans, int& ld) {
  const auto valid = [](index_t stride, index_t extent) {
    return stride >= std::max<index_t>(1, extent) && stride <= INT_MAX;
  };
  if (cols == 1 || col_stride == 1) {
    const index_t lead = rows == 1 ? std::max<index_t>(1, cols) : row_stride;
    if (valid(lead, cols)) {
      trans = CblasNoTrans, ld = static_cast<int>(lead);
      return true;
    }
  }
  if (rows == 1 || row_stride == 1) {
    const index_t lead = cols == 1 ? std::max<index_t>(1, rows) : col_stride;
    if (valid(lead, rows)) {
      trans = CblasTrans, ld = static_cast<int>(lead);
      return true;
    }
  }
  return false;
}

// Copies a strided rows x cols matrix into a contiguous row-major one.
template <class T>
void gemm_cblas_gather(index_t rows, index_t cols, const T* src, index_t row_stride, index_t col_stride, T* dst) {
  for (index_t i = 0; i < rows; ++i)
    for (index_t j = 0; j < cols; ++j) dst[i * cols + j] = src[i * row_stride + j * col_stride];
}

// Buffers for operands that need packing, one set per thread, kept between calls.
template <int Which>
gemm_buffer& gemm_cblas_buffer() {
  thread_local gemm_buffer buffer;
  return buffer;
}

// C(M,N) = alpha A(M,K) B(K,N) + beta C for one matrix; M, N, K >= 1 and each fits an int.
template <class T>
void gemm_cblas_matrix(index_t M, index_t N, index_t K, T alpha, const T* a, index_t a_row, index_t a_col,
                       const T* b, index_t b_row, index_t b_col, T beta, T* c, index_t c_row, index_t c_col) {
  CBLAS_TRANSPOSE trans_c, trans_a, trans_b;
  int ldc, lda, ldb;
  if (!gemm_cblas_layout(M, N, c_row, c_col, trans_c, ldc)) {
    // C has no leading dimension: compute into a contiguous C and scatter the result back.
    T* tmp = gemm_cblas_buffer<2>().get<T>(static_cast<std::size_t>(M * N));
    if (beta != T(0)) gemm_cblas_gather(M, N, c, c_row, c_col, tmp);
    gemm_cblas_matrix(M, N, K, alpha, a, a_row, a_col, b, b_row, b_col, beta, tmp, N, index_t{1});
    for (index_t i = 0; i < M; ++i)
      for (index_t j = 0; j < N; ++j) c[i * c_row + j * c_col] = tmp[i * N + j];
    return;
  }
  if (trans_c == CblasTrans) {
    // Column-major C: compute the row-major C^T = B^T A^T instead.
    std::swap(M, N), std::swap(a, b), std::swap(a_row, b_col), std::swap(a_col, b_row);
    std::swap(c_row, c_col);
  }
  if (!gemm_cblas_layout(M, K, a_row, a_col, trans_a, lda)) {
    T* packed = gemm_cblas_buffer<0>().get<T>(static_cast<std::size_t>(M * K));
    gemm_cblas_gather(M, K, a, a_row, a_col, packed);
    a = packed, trans_a = CblasNoTrans, lda = static_cast<int>(K);
  }
  if (!gemm_cblas_layout(K, N, b_row, b_col, trans_b, ldb)) {
    T* packed = gemm_cblas_buffer<1>().get<T>(static_cast<std::size_t>(K * N));
    gemm_cblas_gather(K, N, b, b_row, b_col, packed);
    b = packed, trans_b = CblasNoTrans, ldb = static_cast<int>(N);
  }
  gemm_cblas_call(trans_a, trans_b, static_cast<int>(M), static_cast<int>(N), static_cast<int>(K), alpha, a, lda, b,
                  ldb, beta, c, ldc);
}

}  // namespace nax::detail::host
