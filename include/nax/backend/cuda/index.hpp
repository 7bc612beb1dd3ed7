// Indexing on the device: take's source stored once per evaluation (the gather is fused into
// the consuming kernel, lower/gather.hpp), the checked mode's verification (the indices are
// copied to the host and checked there: a debugging mode), and scatters as one kernel of
// atomic updates, one thread per update (backend/host/index.hpp holds the algorithm both
// backends share). Atomics, not sort-then-segmented-reduce: an embedding's gradient has few
// duplicate tokens per row of the table, so the atomics rarely contend.
#pragma once
#include <cstring>
#include <type_traits>
#include <vector>

#include "../host/index.hpp"
#include "assign.hpp"
#include "join.hpp"

namespace nax::cuda::detail {

template <class C>
auto materialise_node(const nax::detail::Stored<C>& node, context& ctx) {
  return materialise_any(node.child, ctx).as_leaf();
}

template <class A, class I, class... Is>
void verify_indices(const DeviceLeaf<I, Is...>& idx, index_t n, context& ctx) {
  const auto& v = idx.view;
  index_t lo = 0, hi = 0;
  for (std::size_t k = 0; k != sizeof...(Is); ++k) {
    if (v.extents()[k] == 0) return;
    (v.strides()[k] < 0 ? lo : hi) += v.strides()[k] * (v.extents()[k] - 1);
  }
  std::vector<I> host(static_cast<std::size_t>(hi - lo + 1));
  device_guard guard(ctx.device);
  NAX_CUDA_CHECK(cudaMemcpyAsync(host.data(), v.data() + lo, host.size() * sizeof(I), cudaMemcpyDeviceToHost,
                                 ctx.stream));
  NAX_CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
  nax::detail::verify_index_values<A, axes<Is...>, I>(v.extents(), v.strides(), n,
                                                     [&](index_t offset) { return host[offset - lo]; });
}

template <class T>
struct require_device_atomic {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8,
                "nax: scatter_add, scatter_max and scatter_min on the CUDA backend need elements of 4 or 8 bytes "
                "(T): the device's atomics; cast to float or std::int32_t first");
  static constexpr bool value = true;
};

// Op applied atomically at p: the device's atomicAdd where it has one, else a compare-and-swap
// loop on the element's bits.
template <class Op, class T>
__device__ void atomic_apply(T* p, T v) {
  if constexpr (std::is_same_v<Op, nax::detail::scatter_set_op>) {
    *p = v;
  } else if constexpr (std::is_same_v<Op, nax::detail::scatter_add_op> &&
                       (std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, int> ||
                        std::is_same_v<T, unsigned> || std::is_same_v<T, unsigned long long>)) {
    atomicAdd(p, v);
  } else {
    static_assert(require_device_atomic<T>::value);
    using W = std::conditional_t<sizeof(T) == 4, unsigned, unsigned long long>;
    W* word = reinterpret_cast<W*>(p);
    W old = *word, assumed;
    do {
      assumed = old;
      T current;
      memcpy(&current, &assumed, sizeof(T));
      T next = current;
      Op::apply(next, v);
      W bits;
      memcpy(&bits, &next, sizeof(T));
      if (bits == assumed) break;
      old = atomicCAS(word, assumed, bits);
    } while (old != assumed);
  }
}

template <class Op, class T, class I, std::size_t L>
__global__ void scatter_kernel(nax::detail::scatter_plan<T, I, L> plan, index_t total) {
  const index_t step = index_t{blockDim.x} * gridDim.x;
  for (index_t u = blockIdx.x * index_t{blockDim.x} + threadIdx.x; u < total; u += step) {
    index_t rest = u, o = 0, ii = 0, uu = 0;
    for (std::size_t k = L; k-- > 0;) {
      const index_t a = rest % plan.extent[k];
      rest /= plan.extent[k];
      o += a * plan.out_stride[k];
      ii += a * plan.idx_stride[k];
      uu += a * plan.upd_stride[k];
    }
    const index_t k = nax::detail::resolve_index(plan.idx[ii], plan.axis_extent, plan.mode);
    if (k >= 0) atomic_apply<Op>(plan.out + o + k * plan.axis_stride, plan.upd[uu]);
  }
}

template <class Op, class T, class I, std::size_t L>
void run_scatter(const nax::detail::scatter_plan<T, I, L>& plan, context& ctx) {
  index_t total = 1;
  for (index_t e : plan.extent) total *= e;
  if (total == 0) return;
  device_guard guard(ctx.device);
  const index_t blocks = std::min<index_t>((total + elementwise_block - 1) / elementwise_block,
                                           index_t{state(ctx.device).multiprocessors} * 32);
  scatter_kernel<Op><<<static_cast<unsigned>(blocks), elementwise_block, 0, ctx.stream>>>(plan, total);
  check_launch("scatter_kernel<<<...>>>");
}

template <class Op, class X, class I, class U, class A>
auto materialise_node(const nax::detail::Scatter<Op, X, I, U, A>& node, context& ctx) {
  return nax::detail::scatter_into_temporary(node, ctx);
}

}  // namespace nax::cuda::detail
