// Reductions (sum, prod, max, min; mean and logsumexp are built from them) on the device.
// The producer expression is lowered and evaluated inside the reduction kernel (never
// stored). Two kernels, chosen at compile time by the child's innermost axis:
//  - reduced innermost axis: one block per output (grid-stride over outputs), or several
//    blocks per output and a second pass when there are few outputs (a full reduction); the
//    block's threads read the contiguous rows of the reduced axes, then a block reduction
//    (warp shuffles, then one value per warp through shared memory);
//  - kept innermost axis: one thread per output, adjacent threads read adjacent elements
//    (coalesced), each folds the reduced axes in order; with few outputs the reduced rows are
//    split over several blocks per output, then a second pass.
// Where every contiguous leaf is aligned (lanes_fit, as in elementwise.hpp), both read Lanes
// consecutive elements per load (16-byte vector loads): along the row in the first kernel
// (each thread folds its lanes into its accumulator), across Lanes neighbouring outputs in the
// second (a thread then keeps Lanes accumulators). Four times the bytes in flight per thread is
// what a reduction needs to approach the memory's bandwidth.
// argmax/argmin: one thread per output scans the reduced axis in order (the first index of
// the best value; NaN counts as the best, as on the host and in JAX).
#pragma once
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

#include "../../lower/lanes.hpp"
#include "assign.hpp"

namespace nax::cuda::detail {

inline constexpr int reduce_block = 256;

// Lanes per vector load of the values Ev produces (1: no lanes).
template <class Ev>
inline constexpr int reduce_lanes = nax::detail::lanes_for<typename Ev::value_type>;

template <class T>
__device__ T shuffle_down(T v, int offset) {
  if constexpr (sizeof(T) >= sizeof(int)) return __shfl_down_sync(0xffffffffu, v, offset);
  else return static_cast<T>(__shfl_down_sync(0xffffffffu, static_cast<int>(v), offset));
}

// The combination of every thread's v, valid in thread 0. All threads of the block call it.
template <class Op, class T>
__device__ T block_reduce(T v) {
  __shared__ T partial[32];
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const int warp = static_cast<int>(threadIdx.x >> 5);
  for (int offset = 16; offset > 0; offset >>= 1) v = Op::combine(v, shuffle_down(v, offset));
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  const int warps = static_cast<int>((blockDim.x + 31u) >> 5);
  if (warp == 0) {
    v = lane < warps ? partial[lane] : Op::template identity<T>();
    for (int offset = 16; offset > 0; offset >>= 1) v = Op::combine(v, shuffle_down(v, offset));
  }
  __syncthreads();  // partial is reused by the block's next output
  return v;
}

// idx[from .. from+count) = the row-major decomposition of r over extents[from ..]. Callers
// decode only an r that exists (r < the product of those extents, so none of them is 0).
template <std::size_t N>
__device__ void decode(index_t r, const std::array<index_t, N>& extents, std::size_t from, std::size_t count,
                       index_t* idx) {
  for (std::size_t k = from + count; k-- > from;) {
    idx[k] = r % extents[k];
    r /= extents[k];
  }
}

// Loop = [kept (P axes)..., reduced..., innermost reduced]. Output g's reduced elements
// (rows x n, row-major) are split into gridDim.y contiguous chunks; block (g, s) folds chunk s
// into out[g * gridDim.y + s] (with one chunk: out[g] is the result).
// vectorised: the host checked unit_inner() and lanes_fit<Lanes>(ev); otherwise every element
// is read with the strided get<false> (one kernel per expression: elementwise.hpp says why).
template <class Op, class T, std::size_t N, class Ev>
__global__ void __launch_bounds__(reduce_block)
    reduce_inner_kernel(Ev ev, T* out, std::array<index_t, N> extents, std::size_t P, index_t groups,
                        index_t rows, bool vectorised) {
  constexpr int Lanes = reduce_lanes<Ev>;
  const index_t n = extents[N - 1];
  const index_t total = rows * n;
  const index_t chunks = gridDim.y, s = blockIdx.y;
  const index_t lo = (total / chunks) * s + (s < total % chunks ? s : total % chunks);
  const index_t hi = lo + total / chunks + (s < total % chunks ? 1 : 0);
  index_t idx[N] = {};
  for (index_t g = blockIdx.x; g < groups; g += gridDim.x) {
    decode(g, extents, 0, P, idx);
    T acc = Op::template identity<T>();
    if (n > 0) {
      for (index_t m = lo / n; m < rows && m * n < hi; ++m) {
        const index_t i0 = lo > m * n ? lo - m * n : 0;
        const index_t i1 = hi - m * n < n ? hi - m * n : n;
        decode(m, extents, P, N - 1 - P, idx);
        Ev local = ev;
        local.set_row(idx);
        index_t tail = i0;  // [i0, tail) is done
        if constexpr (Lanes > 1)
          if (vectorised) {
            // [i0, a) element by element, [a, b) in whole lanes (a and b multiples of Lanes).
            const index_t a = (i0 + Lanes - 1) / Lanes * Lanes, b = i1 / Lanes * Lanes;
            if (a < b) {
              for (index_t i = i0 + threadIdx.x; i < a; i += blockDim.x)
                acc = Op::combine(acc, static_cast<T>(local.template get<true>(i)));
              for (index_t w = a / Lanes + threadIdx.x; w < b / Lanes; w += blockDim.x) {
                const auto values = local.template get_lanes<Lanes>(w * Lanes);
                for (int j = 0; j < Lanes; ++j) acc = Op::combine(acc, static_cast<T>(values.v[j]));
              }
              tail = b;
            }
          }
        for (index_t i = tail + threadIdx.x; i < i1; i += blockDim.x)
          acc = Op::combine(acc, static_cast<T>(local.template get<false>(i)));
      }
    }
    acc = block_reduce<Op>(acc);
    if (threadIdx.x == 0) out[g * chunks + s] = acc;
  }
}

// out[g] = the combination of partial[g * chunks .. (g + 1) * chunks).
template <class Op, class T>
__global__ void __launch_bounds__(reduce_block)
    combine_partials_kernel(const T* partial, T* out, index_t groups, index_t chunks) {
  for (index_t g = blockIdx.x; g < groups; g += gridDim.x) {
    T acc = Op::template identity<T>();
    for (index_t c = threadIdx.x; c < chunks; c += blockDim.x) acc = Op::combine(acc, partial[g * chunks + c]);
    acc = block_reduce<Op>(acc);
    if (threadIdx.x == 0) out[g] = acc;
  }
}

// Folds rows [lo, hi) of the reduced axes (idx[0..P) positions the kept ones) into acc[0..W),
// the outputs c .. c + W - 1 of the innermost axis: W > 1 reads them with one vector load per
// row (the host checked lanes_fit<W>), W == 1 with the strided get<false>.
template <class Op, class T, int W, std::size_t N, class Ev>
__device__ void fold_columns(const Ev& ev, T (&acc)[W], index_t* idx, const std::array<index_t, N>& extents,
                             std::size_t P, index_t lo, index_t hi, index_t c) {
  for (int j = 0; j < W; ++j) acc[j] = Op::template identity<T>();
  if (lo >= hi) return;  // no rows: a reduced axis is empty, and decoding would divide by its 0
  decode(lo, extents, P, N - 1 - P, idx);
  for (index_t m = lo; m < hi; ++m) {
    Ev local = ev;
    local.set_row(idx);
    if constexpr (W > 1) {
      const auto values = local.template get_lanes<W>(c);
      for (int j = 0; j < W; ++j) acc[j] = Op::combine(acc[j], static_cast<T>(values.v[j]));
    } else {
      acc[0] = Op::combine(acc[0], static_cast<T>(local.template get<false>(c)));
    }
    for (std::size_t k = N - 1; k-- > P;) {  // odometer over the reduced axes
      if (++idx[k] < extents[k]) break;
      idx[k] = 0;
    }
  }
}

// Loop = [kept (P axes)..., reduced..., innermost kept]; the outputs are groups x n, row-major.
// The reduced rows are split into gridDim.z chunks: block (., ., z) folds chunk z of output o
// into out[o * gridDim.z + z] (with one chunk: out[o] is the result).
// vectorised: the host checked unit_inner() and lanes_fit<Lanes>(ev); thread t then folds outputs
// Lanes * t .. Lanes * t + Lanes - 1 with one vector load per row, and the last n % Lanes
// outputs one by one.
template <class Op, class T, std::size_t N, class Ev>
__global__ void __launch_bounds__(reduce_block)
    reduce_outer_kernel(Ev ev, T* out, std::array<index_t, N> extents, std::size_t P, index_t groups,
                        index_t rows, bool vectorised) {
  constexpr int Lanes = reduce_lanes<Ev>;
  const index_t n = extents[N - 1];
  const index_t chunks = gridDim.z, z = blockIdx.z;
  const index_t lo = (rows / chunks) * z + (z < rows % chunks ? z : rows % chunks);
  const index_t hi = lo + rows / chunks + (z < rows % chunks ? 1 : 0);
  const index_t first = blockIdx.x * index_t{blockDim.x} + threadIdx.x, step = index_t{blockDim.x} * gridDim.x;
  index_t idx[N] = {};
  for (index_t g = blockIdx.y; g < groups; g += gridDim.y) {
    decode(g, extents, 0, P, idx);
    index_t done = 0;  // outputs [0, done) of this group are written
    if constexpr (Lanes > 1)
      if (vectorised) {
        const index_t whole = n / Lanes;
        for (index_t w = first; w < whole; w += step) {
          T acc[Lanes];
          fold_columns<Op, T>(ev, acc, idx, extents, P, lo, hi, w * Lanes);
          for (int j = 0; j < Lanes; ++j) out[(g * n + w * Lanes + j) * chunks + z] = acc[j];
        }
        done = whole * Lanes;
      }
    for (index_t i = done + first; i < n; i += step) {
      T acc[1];
      fold_columns<Op, T>(ev, acc, idx, extents, P, lo, hi, i);
      out[(g * n + i) * chunks + z] = acc[0];
    }
  }
}

template <class Op, class C, class... Removed>
auto materialise_node(const nax::detail::Reduce<Op, C, Removed...>& node, context& ctx) {
  using Node = nax::detail::Reduce<Op, C, Removed...>;
  using T = typename Node::value_type;
  using CA = typename C::axes_type;
  using NA = typename Node::axes_type;  // the kept axes, in the child's order
  using Reduced = nax::detail::intersection_t<CA, axes<Removed...>>;
  using Inner = nax::detail::last_t<CA>;
  device_guard guard(ctx.device);
  auto out = std::make_shared<device_array_for_t<T, NA>>(device_array_for_t<T, NA>::uninitialized, node.extents());
  const auto result = [&] { return leaf_of(std::as_const(*out).view(), out).as_leaf(); };
  if constexpr (Reduced::size == 0) {
    assign_in_context(mutable_host_view(*out), nax::detail::make_map<nax::detail::fn::cast_to<T>>(node.child), ctx);
    return result();
  } else {
    constexpr bool inner_reduced = nax::detail::intersection_t<Inner, Reduced>::size > 0;
    using Loop = std::conditional_t<inner_reduced, nax::detail::concat_t<NA, Reduced>,
                                    nax::detail::concat_t<nax::detail::difference_t<NA, Inner>, Reduced, Inner>>;
    constexpr std::size_t N = Loop::size;
    constexpr std::size_t P = inner_reduced ? NA::size : NA::size - 1;
    auto ev = nax::detail::lower<nax::detail::last_t<Loop>>(node.child, nax::detail::identity_placement<CA, Loop>(), ctx);
    const auto ext = nax::detail::extents_by_name<Loop>(node.child);
    index_t groups = 1, rows = 1;
    for (std::size_t k = 0; k != P; ++k) groups *= ext[k];
    for (std::size_t k = P; k + 1 < N; ++k) rows *= ext[k];
    const index_t n = ext[N - 1];
    const index_t outputs = inner_reduced ? groups : groups * n;
    if (outputs == 0) return result();
    const bool unit = ev.unit_inner();
    constexpr int lanes = reduce_lanes<decltype(ev)>;
    bool vectorised = false;
    if constexpr (lanes > 1) vectorised = unit && n >= lanes && nax::detail::lanes_fit<lanes>(ev);
    const index_t lane_groups = vectorised ? lanes : 1;  // outputs one thread folds (kept innermost axis)
    if constexpr (inner_reduced) {
      // Few outputs with much to fold each: several blocks per output, then a second pass.
      const index_t target = index_t{state(ctx.device).multiprocessors} * 8;
      index_t chunks = 1;
      if (groups < target) {
        chunks = std::min<index_t>((target + groups - 1) / groups, (rows * n + 4 * reduce_block - 1) / (4 * reduce_block));
        chunks = std::max<index_t>(1, std::min<index_t>(chunks, 65535));
      }
      const dim3 grid(static_cast<unsigned>(std::min<index_t>(groups, index_t{1} << 30)), static_cast<unsigned>(chunks));
      device_buffer<T> partial;
      T* target_buffer = out->data();
      if (chunks > 1) {
        partial = device_buffer<T>(static_cast<std::size_t>(groups * chunks), ctx.device);
        target_buffer = partial.data();
      }
      reduce_inner_kernel<Op, T, N>
          <<<grid, reduce_block, 0, ctx.stream>>>(ev, target_buffer, ext, P, groups, rows, vectorised);
      check_launch("reduce_inner_kernel<<<...>>>");
      if (chunks > 1) {
        combine_partials_kernel<Op, T><<<grid.x, reduce_block, 0, ctx.stream>>>(partial.data(), out->data(), groups, chunks);
        check_launch("combine_partials_kernel<<<...>>>");
      }
    } else {
      // Few outputs with many rows each: split the rows over grid z, then a second pass.
      const index_t threads = index_t{state(ctx.device).multiprocessors} * 2048;
      index_t chunks = 1;
      const index_t folding = (outputs + lane_groups - 1) / lane_groups;  // threads with outputs to fold
      if (folding < threads) chunks = std::max<index_t>(1, std::min<index_t>({threads / folding, rows / 16, 65535}));
      dim3 grid = elementwise_grid(groups, (n + lane_groups - 1) / lane_groups, ctx.device);
      grid.z = static_cast<unsigned>(chunks);
      device_buffer<T> partial;
      T* target_buffer = out->data();
      if (chunks > 1) {
        partial = device_buffer<T>(static_cast<std::size_t>(outputs * chunks), ctx.device);
        target_buffer = partial.data();
      }
      reduce_outer_kernel<Op, T, N>
          <<<grid, reduce_block, 0, ctx.stream>>>(ev, target_buffer, ext, P, groups, rows, vectorised);
      check_launch("reduce_outer_kernel<<<...>>>");
      if (chunks > 1) {
        const unsigned blocks = static_cast<unsigned>(std::min<index_t>(outputs, index_t{1} << 30));
        combine_partials_kernel<Op, T><<<blocks, reduce_block, 0, ctx.stream>>>(partial.data(), out->data(), outputs, chunks);
        check_launch("combine_partials_kernel<<<...>>>");
      }
    }
    return result();
  }
}

// Loop = [kept..., Axis]; out[g] = the index along Axis of output g's best value.
template <class Op, class V, std::size_t N, class Ev>
__global__ void __launch_bounds__(reduce_block)
    argreduce_kernel(Ev ev, std::int32_t* out, std::array<index_t, N> extents, index_t groups) {
  const index_t n = extents[N - 1];
  index_t idx[N] = {};
  for (index_t g = blockIdx.x * index_t{blockDim.x} + threadIdx.x; g < groups; g += index_t{blockDim.x} * gridDim.x) {
    decode(g, extents, 0, N - 1, idx);
    Ev local = ev;
    local.set_row(idx);
    V best = static_cast<V>(local.template get<false>(0));
    index_t where = 0;
    for (index_t i = 1; i < n; ++i) {
      const V v = static_cast<V>(local.template get<false>(i));
      if (Op::better(v, best)) best = v, where = i;
    }
    out[g] = static_cast<std::int32_t>(where);
  }
}

template <class Op, class C, class Axis>
auto materialise_node(const nax::detail::ArgReduce<Op, C, Axis>& node, context& ctx) {
  using Node = nax::detail::ArgReduce<Op, C, Axis>;
  using K = typename Node::axes_type;
  using Loop = nax::detail::concat_t<K, axes<Axis>>;
  using V = typename C::value_type;
  constexpr std::size_t N = Loop::size;
  device_guard guard(ctx.device);
  auto out = std::make_shared<device_array_for_t<std::int32_t, K>>(device_array_for_t<std::int32_t, K>::uninitialized,
                                                                    node.extents());
  auto ev = nax::detail::lower<axes<Axis>>(node.child, nax::detail::identity_placement<typename C::axes_type, Loop>(), ctx);
  const auto ext = nax::detail::extents_by_name<Loop>(node.child);
  index_t groups = 1;
  for (std::size_t k = 0; k + 1 < N; ++k) groups *= ext[k];
  if (groups > 0) {  // the reduced axis is not empty (the builder checked)
    const index_t blocks = std::min<index_t>((groups + reduce_block - 1) / reduce_block, index_t{1} << 20);
    argreduce_kernel<Op, V, N><<<static_cast<unsigned>(blocks), reduce_block, 0, ctx.stream>>>(ev, out->data(), ext,
                                                                                               groups);
    check_launch("argreduce_kernel<<<...>>>");
  }
  return leaf_of(std::as_const(*out).view(), out).as_leaf();
}

}  // namespace nax::cuda::detail
