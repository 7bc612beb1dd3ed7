// Contractions (dot<k...>) on the device: each operand is seen as a batch of matrices
// (batch axes, outer axes, contracted axes, each group flattened into one dimension), read
// in place when it is a device array whose strides allow it, else packed once by a fused
// kernel (expression operands are materialised first); then one cuBLAS strided-batched GEMM
// (float, double) or a plain kernel (integer types) into a temporary.
#pragma once
#include <algorithm>
#include <climits>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>

#include "cublas.hpp"
#include "reduce.hpp"

namespace nax::cuda::detail {

struct gemm_matrix {
  const void* data = nullptr;
  index_t batch = 1, rows = 1, cols = 1;
  index_t batch_stride = 0, row_stride = 0, col_stride = 0;
  index_t ld = 1;          // leading dimension for cuBLAS
  bool col_major = false;  // unit stride along rows (else along columns)
  std::shared_ptr<const void> owner;
};

// Can cuBLAS read the matrices [batch][rows][cols] with these strides? Sets ld / col_major.
inline bool fits_cublas(gemm_matrix& m) {
  if (m.batch_stride < 0) return false;
  if (m.cols <= 1 || m.col_stride == 1) {
    const index_t ld = m.rows <= 1 ? std::max<index_t>(1, m.cols) : m.row_stride;
    if (ld >= std::max<index_t>(1, m.cols)) {
      m.ld = ld;
      m.col_major = false;
      return true;
    }
  }
  if (m.rows <= 1 || m.row_stride == 1) {
    const index_t ld = m.cols <= 1 ? std::max<index_t>(1, m.rows) : m.col_stride;
    if (ld >= std::max<index_t>(1, m.rows)) {
      m.ld = ld;
      m.col_major = true;
      return true;
    }
  }
  return false;
}

// The operand e as matrices [Batch][Rows][Cols] of element type T, in device memory.
template <class T, class Batch, class Rows, class Cols, class E>
gemm_matrix gemm_operand(const E& e, context& ctx) {
  using Packed = nax::detail::concat_t<Batch, Rows, Cols>;
  auto from_leaf = [](const auto& leaf) -> std::optional<gemm_matrix> {
    auto b = nax::detail::host::flatten_group<Batch>(leaf.view);
    auto r = nax::detail::host::flatten_group<Rows>(leaf.view);
    auto c = nax::detail::host::flatten_group<Cols>(leaf.view);
    if (!b || !r || !c) return std::nullopt;
    gemm_matrix m;
    m.data = leaf.view.data();
    m.batch = b->extent;
    m.rows = r->extent;
    m.cols = c->extent;
    m.batch_stride = b->stride;
    m.row_stride = r->stride;
    m.col_stride = c->stride;
    m.owner = leaf.owner;
    if (!fits_cublas(m)) return std::nullopt;
    return m;
  };
  if constexpr (is_device_leaf_v<E> && std::is_same_v<typename E::value_type, T>) {
    if (auto direct = from_leaf(ctx.here(e).as_leaf())) return *direct;
  }
  device_guard guard(ctx.device);
  auto packed = std::make_shared<device_array_for_t<T, Packed>>(device_array_for_t<T, Packed>::uninitialized,
                                                                nax::detail::extents_by_name<Packed>(e));
  assign_in_context(mutable_host_view(*packed), nax::detail::make_map<nax::detail::fn::cast_to<T>>(e), ctx);
  auto operand = from_leaf(leaf_of(std::as_const(*packed).view(), packed).as_leaf());
  if (!operand) throw shape_error("nax: dot on the CUDA backend: internal packing error");
  return *operand;
}

struct gemm_strides {
  index_t batch_stride, row_stride, col_stride;
};

// c[b][i][j] = sum_k a[b][i][k] * bm[b][k][j] for element types cuBLAS does not cover.
template <class T>
__global__ void plain_gemm_kernel(const T* a, const T* bm, T* c, gemm_strides ga, gemm_strides gb, index_t batch,
                                  index_t m, index_t n, index_t k) {
  const index_t total = batch * m * n;
  for (index_t o = blockIdx.x * index_t{blockDim.x} + threadIdx.x; o < total; o += index_t{blockDim.x} * gridDim.x) {
    const index_t j = o % n, i = (o / n) % m, b = o / (m * n);
    const T* pa = a + b * ga.batch_stride + i * ga.row_stride;
    const T* pb = bm + b * gb.batch_stride + j * gb.col_stride;
    T acc = T(0);
    for (index_t q = 0; q < k; ++q)
      acc = static_cast<T>(acc + static_cast<T>(pa[q * ga.col_stride] * pb[q * gb.row_stride]));
    c[o] = acc;
  }
}

inline int cublas_int(index_t v, const char* what) {
  if (v > INT_MAX)
    throw shape_error(std::string("nax: dot on the CUDA backend: ") + what + " = " + std::to_string(v) +
                      " exceeds cuBLAS's 32-bit limit");
  return static_cast<int>(v);
}

template <class T>
void gemm(const gemm_matrix& a, const gemm_matrix& b, T* c, index_t batch, index_t m, index_t n, index_t k,
          context& ctx) {
  device_guard guard(ctx.device);
  if (batch * m * n == 0) return;
  if (k == 0) {
    NAX_CUDA_CHECK(cudaMemsetAsync(c, 0, static_cast<std::size_t>(batch * m * n) * sizeof(T), ctx.stream));
    return;
  }
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    constexpr cudaDataType_t type = std::is_same_v<T, float> ? CUDA_R_32F : CUDA_R_64F;
    constexpr cublasComputeType_t compute = std::is_same_v<T, float> ? CUBLAS_COMPUTE_32F : CUBLAS_COMPUTE_64F;
    const T alpha = 1, beta = 0;
    // Row-major C = A B is column-major C^T = B^T A^T.
    NAX_CUBLAS_CHECK(cublasGemmStridedBatchedEx(
        cublas_handle(ctx.device), b.col_major ? CUBLAS_OP_T : CUBLAS_OP_N, a.col_major ? CUBLAS_OP_T : CUBLAS_OP_N,
        cublas_int(n, "columns"), cublas_int(m, "rows"), cublas_int(k, "contracted size"), &alpha, b.data, type,
        cublas_int(b.ld, "leading dimension"), b.batch_stride, a.data, type, cublas_int(a.ld, "leading dimension"),
        a.batch_stride, &beta, c, type, cublas_int(n, "columns"), m * n, cublas_int(batch, "batch count"), compute,
        CUBLAS_GEMM_DEFAULT));
  } else {
    const index_t total = batch * m * n;
    const unsigned grid = static_cast<unsigned>(
        std::min<index_t>((total + 255) / 256, index_t{state(ctx.device).multiprocessors} * 32));
    plain_gemm_kernel<T><<<grid, 256, 0, ctx.stream>>>(
        static_cast<const T*>(a.data), static_cast<const T*>(b.data), c, gemm_strides{a.batch_stride, a.row_stride, a.col_stride},
        gemm_strides{b.batch_stride, b.row_stride, b.col_stride}, batch, m, n, k);
    check_launch("plain_gemm_kernel<<<...>>>");
  }
}

template <class A, class B, class... K>
auto materialise_node(const nax::detail::Contract<A, B, K...>& node, context& ctx) {
  using Node = nax::detail::Contract<A, B, K...>;
  using T = typename Node::value_type;
  using Batch = typename Node::batch_axes;
  using M = typename Node::a_outer_axes;
  using N = typename Node::b_outer_axes;
  using Kx = axes<K...>;
  static_assert(require_one_memory_space<typename Node::axes_type, reads_host<A>::value || reads_host<B>::value>::value);
  auto a = gemm_operand<T, Batch, M, Kx>(node.a, ctx);
  auto b = gemm_operand<T, Batch, Kx, N>(node.b, ctx);
  using Result = nax::detail::concat_t<Batch, M, N>;
  device_guard guard(ctx.device);
  auto out = std::make_shared<device_array_for_t<T, Result>>(device_array_for_t<T, Result>::uninitialized,
                                                             nax::detail::extents_by_name<Result>(node));
  gemm<T>(a, b, out->data(), a.batch, a.rows, b.cols, a.cols, ctx);
  // Read the result in the node's axis order, by name.
  const auto result = std::as_const(*out).view();
  using NA = typename Node::axes_type;
  std::array<index_t, NA::size> strides{};
  [&]<class... Ax>(axes<Ax...>) {
    strides = {result.strides()[nax::detail::index_of_v<Ax, Result>]...};
  }(NA{});
  return nax::detail::leaf_for_t<Node>{{}, {result.data(), node.extents(), strides}, out};
}

}  // namespace nax::cuda::detail
