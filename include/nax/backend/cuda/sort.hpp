// Sorting on the device (expr/sort.hpp): the host's algorithms (backend/host/sort.hpp:
// sort_into_temporary, searchsorted_into_temporary) with a device run_sort and
// run_searchsorted. A sort gathers every line's total-order keys (sort_key) and positions
// into line-major arrays, sorts them with CUB's segmented radix sort (stable: equal keys keep
// the read order; one line: CUB's device-wide radix sort, as the segmented one gives a line one
// block), and scatters the values or positions back to [outer, n, inner]. CUB
// counts elements in int, so a sort of more than 2^31 - 1 elements raises. searchsorted is
// one thread per result element, each a binary search (search_position). Not yet measured on
// a GPU.
#pragma once
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>

#include <cstdint>
#include <limits>
#include <string>

#include "../host/sort.hpp"
#include "buffer.hpp"
#include "elementwise.hpp"
#include "join.hpp"

namespace nax::cuda::detail {

inline unsigned sort_grid(index_t count, int device) {
  const index_t resident = index_t{state(device).multiprocessors} * 32;
  return static_cast<unsigned>(std::max<index_t>(1, std::min<index_t>((count + elementwise_block - 1) / elementwise_block, resident)));
}

// keys[line * n + r], order[line * n + r]: element r of each line in read order (reversed:
// from the end), and r.
template <class T, class K>
__global__ void sort_gather_kernel(K* keys, std::int32_t* order, const T* data, index_t lines, index_t n, index_t inner,
                                   bool reversed, bool canonical) {
  const index_t step = index_t{blockDim.x} * gridDim.x;
  for (index_t e = blockIdx.x * index_t{blockDim.x} + threadIdx.x; e < lines * n; e += step) {
    const index_t line = e / n, r = e % n;
    const index_t base = (line / inner) * n * inner + line % inner;
    keys[e] = nax::detail::sort_key(data[base + (reversed ? n - 1 - r : r) * inner], canonical);
    order[e] = static_cast<std::int32_t>(r);
  }
}

// Rank j of each line (order: read positions by rank) back to [outer, n, inner]: the value
// read from `from` (values: ascending, or reversed when descending), or the position (reversed:
// the descending argsort, read and written from the end).
template <class T>
__global__ void sort_scatter_kernel(T* values, index_t* positions, const T* from, const std::int32_t* order, index_t lines,
                                    index_t n, index_t inner, bool descending, bool reversed) {
  const index_t step = index_t{blockDim.x} * gridDim.x;
  for (index_t e = blockIdx.x * index_t{blockDim.x} + threadIdx.x; e < lines * n; e += step) {
    const index_t line = e / n, j = e % n;
    const index_t base = (line / inner) * n * inner + line % inner;
    const index_t p = order[e];
    if (values) {
      values[base + (descending ? n - 1 - j : j) * inner] = from[base + p * inner];
    } else {
      positions[base + (reversed ? n - 1 - j : j) * inner] = reversed ? n - 1 - p : p;
    }
  }
}

// out[i] = i * step (a template, so that every translation unit may define it)
template <class I>
__global__ void iota_kernel(I* out, index_t count, index_t step) {
  for (index_t i = blockIdx.x * index_t{blockDim.x} + threadIdx.x; i < count; i += index_t{blockDim.x} * gridDim.x)
    out[i] = static_cast<I>(i * step);
}

// Sorts every line of data ([outer, n, inner] on the device) along n, as the host's run_sort:
// positions null, the values in place; otherwise the argsort into positions.
template <class T>
void run_sort(T* data, index_t* positions, index_t outer, index_t n, index_t inner, bool descending, bool total_order,
              index_t /*leading: the device sorts whole lines*/, context& ctx) {
  using K = nax::detail::sort_key_t<T>;
  if (outer == 0 || inner == 0 || n <= 0) return;
  const index_t lines = outer * inner, count = lines * n;
  if (count > std::numeric_limits<int>::max())
    throw device_error("nax: sort on the device of " + std::to_string(count) + " elements (" + std::to_string(lines) +
                       " lines of " + std::to_string(n) +
                       "): CUB's segmented radix sort takes at most 2^31 - 1; sort fewer lines at a time");
  device_guard guard(ctx.device);
  const bool values = positions == nullptr, reversed = !values && descending;
  const std::size_t size = static_cast<std::size_t>(count);
  device_buffer<K> keys(size, ctx.device), sorted_keys(size, ctx.device);
  device_buffer<std::int32_t> order(size, ctx.device), sorted_order(size, ctx.device);
  device_buffer<int> offsets(static_cast<std::size_t>(lines) + 1, ctx.device);
  const unsigned grid = sort_grid(count, ctx.device);
  sort_gather_kernel<<<grid, elementwise_block, 0, ctx.stream>>>(keys.data(), order.data(), data, lines, n, inner, reversed,
                                                                 !total_order);
  check_launch("sort_gather_kernel<<<...>>>");
  // offsets[i] = i * n: the lines' bounds
  iota_kernel<<<sort_grid(lines + 1, ctx.device), elementwise_block, 0, ctx.stream>>>(offsets.data(), lines + 1, n);
  check_launch("iota_kernel<<<...>>>");
  // CUB's segmented sort gives each line one block: one line goes to the device-wide sort
  auto sort_pairs = [&](void* scratch, std::size_t& bytes) {
    if (lines == 1)
      return cub::DeviceRadixSort::SortPairs(scratch, bytes, keys.data(), sorted_keys.data(), order.data(),
                                             sorted_order.data(), static_cast<int>(count), 0,
                                             static_cast<int>(8 * sizeof(K)), ctx.stream);
    return cub::DeviceSegmentedRadixSort::SortPairs(scratch, bytes, keys.data(), sorted_keys.data(), order.data(),
                                                    sorted_order.data(), static_cast<int>(count), static_cast<int>(lines),
                                                    offsets.data(), offsets.data() + 1, 0,
                                                    static_cast<int>(8 * sizeof(K)), ctx.stream);
  };
  std::size_t scratch_bytes = 0;
  NAX_CUDA_CHECK(sort_pairs(nullptr, scratch_bytes));
  device_buffer<unsigned char> scratch(scratch_bytes, ctx.device);
  NAX_CUDA_CHECK(sort_pairs(scratch.data(), scratch_bytes));
  if (values) {  // the values are rewritten in place, so they are read from a copy
    device_buffer<T> copy(size, ctx.device);
    NAX_CUDA_CHECK(cudaMemcpyAsync(copy.data(), data, size * sizeof(T), cudaMemcpyDeviceToDevice, ctx.stream));
    sort_scatter_kernel<<<grid, elementwise_block, 0, ctx.stream>>>(data, static_cast<index_t*>(nullptr), copy.data(),
                                                                     sorted_order.data(), lines, n, inner, descending, false);
  } else {
    sort_scatter_kernel<<<grid, elementwise_block, 0, ctx.stream>>>(static_cast<T*>(nullptr), positions, data,
                                                                     sorted_order.data(), lines, n, inner, descending, reversed);
  }
  check_launch("sort_scatter_kernel<<<...>>>");
}

template <class T, std::size_t N>
__global__ void searchsorted_kernel(index_t* out, const T* sorted, const T* values, nax::detail::search_plan<N> plan,
                                    index_t count) {
  const index_t step = index_t{blockDim.x} * gridDim.x;
  for (index_t i = blockIdx.x * index_t{blockDim.x} + threadIdx.x; i < count; i += step)
    out[i] = nax::detail::search_position(sorted, values, plan, i);
}

template <class T, std::size_t N>
void run_searchsorted(index_t* out, const T* sorted, const T* values, const nax::detail::search_plan<N>& plan,
                      index_t count, context& ctx) {
  if (count == 0) return;
  device_guard guard(ctx.device);
  searchsorted_kernel<<<sort_grid(count, ctx.device), elementwise_block, 0, ctx.stream>>>(out, sorted, values, plan, count);
  check_launch("searchsorted_kernel<<<...>>>");
}

template <class C, class A, nax::detail::sort_result R>
auto materialise_node(const nax::detail::Sort<C, A, R>& node, context& ctx) {
  return nax::detail::sort_into_temporary(node, ctx);
}

template <class S, class V, class A>
auto materialise_node(const nax::detail::SearchSorted<S, V, A>& node, context& ctx) {
  return nax::detail::searchsorted_into_temporary(node, ctx);
}

}  // namespace nax::cuda::detail
