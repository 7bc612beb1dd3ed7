// Copies between host and device: nax::cuda::to_device(x) (any host array, view or
// expression: evaluated on the host first when it is not a contiguous array) and
// nax::cuda::to_host(d) (a device array, view or expression), and item() of a rank-0 device
// expression. to_host waits for the device's stream; to_device returns once the host data
// has been read.
#pragma once
#include <cstddef>

#include "assign.hpp"

namespace nax::cuda {

// A host Array (or view or host expression) copied to a new nax::cuda::Array on the
// current device (or on `device`).
template <class X>
  requires array_like<X>
auto to_device(const X& x, int device) {
  using E = nax::detail::expr_t<const X&>;
  using T = typename E::value_type;
  static_assert(detail::require_host_operands<typename E::axes_type, detail::reads_device<E>::value>::value);
  using HostArray = nax::detail::array_for_t<T, typename E::axes_type>;
  // A host Array is copied from directly; views and expressions are evaluated on the host first.
  const auto& host = [&]() -> decltype(auto) {
    if constexpr (std::is_same_v<X, HostArray>) return (x);
    else return HostArray(nax::detail::as_expr(x));
  }();
  detail::device_guard guard(device);
  auto out = detail::device_array_for_t<T, typename E::axes_type>(
      detail::device_array_for_t<T, typename E::axes_type>::uninitialized, host.extents());
  if (host.size() > 0)
    NAX_CUDA_CHECK(cudaMemcpyAsync(out.data(), host.data(), static_cast<std::size_t>(host.size()) * sizeof(T),
                                   cudaMemcpyHostToDevice, stream(device)));
  // The host array is freed on return: wait for the copy (pageable memory is staged anyway).
  NAX_CUDA_CHECK(cudaStreamSynchronize(stream(device)));
  return out;
}
template <class X>
  requires array_like<X>
auto to_device(const X& x) {
  return to_device(x, current_device());
}

// A device array, view or device expression copied to a new host nax::Array.
template <class X>
  requires array_like<X>
auto to_host(const X& x) {
  using E = nax::detail::expr_t<const X&>;
  using T = typename E::value_type;
  using L = typename E::axes_type;
  if constexpr (detail::is_device_leaf_v<E>) {
    const E leaf = nax::detail::as_expr(x);
    detail::refuse_recorded_evaluation<T>(leaf, "copies a device array to the host");
    if (leaf.view.strides() == nax::detail::row_major_strides(leaf.view.extents())) {
      nax::detail::array_for_t<T, L> out(leaf.view.extents());
      if (out.size() > 0) {
        detail::device_guard guard(leaf.device);
        NAX_CUDA_CHECK(cudaMemcpyAsync(out.data(), leaf.view.data(), static_cast<std::size_t>(out.size()) * sizeof(T),
                                       cudaMemcpyDeviceToHost, stream(leaf.device)));
        NAX_CUDA_CHECK(cudaStreamSynchronize(stream(leaf.device)));
      }
      return out;
    }
    return to_host(nax::cuda::eval(x));  // a strided view: made contiguous on the device first
  } else {
    return to_host(nax::cuda::eval(x));  // a device expression: evaluated on the device first
  }
}

// The value of a rank-0 device expression (evaluated on the device, copied back).
template <class X>
  requires array_like<X>
auto item(const X& x) {
  using E = nax::detail::expr_t<const X&>;
  static_assert(nax::detail::require_rank_zero<typename E::axes_type>::value);
  return to_host(x).item();
}

namespace detail {
// e.item() on an expression that reads device arrays (node_interface::item finds this by ADL;
// more constrained than the host's evaluate_item, so it wins).
template <class E>
  requires reads_device<E>::value
auto evaluate_item(const E& e) {
  return nax::cuda::item(e);
}
}  // namespace detail

}  // namespace nax::cuda
