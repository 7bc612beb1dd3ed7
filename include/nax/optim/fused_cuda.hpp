// The device's side of optim/fused.hpp (included by <nax/optim.hpp> under nvcc): nax::cuda
// arrays as outputs, and the multi-output evaluator run by the CUDA backend's elementwise
// kernel (backend/cuda/elementwise.hpp), which stores the extra outputs with 16-byte lane
// stores where their rows are aligned, element by element otherwise.
#pragma once
#include "../backend/cuda/elementwise.hpp"
#include "../backend/cuda/space.hpp"
#include "fused.hpp"

namespace nax::optim::detail {

template <class T, class... As>
struct owning_array<nax::cuda::Array<T, As...>> : std::true_type {
  using space = nax::cuda::detail::device_space;
};

template <>
struct pass_runner<nax::cuda::detail::device_space> {
  template <class Ev, class T, std::size_t N>
  static void run(const Ev& ev, T* out, const std::array<index_t, N>& extents, const std::array<index_t, N>& strides,
                  nax::cuda::detail::context& ctx) {
    nax::cuda::detail::run_elementwise(ev, out, extents, strides, ctx);
  }
  template <class T, std::size_t N>
  static bool lanes_aligned(const T* data, const std::array<index_t, N>& stride) {
    return nax::detail::lanes_aligned<16>(data, 0, stride, N > 0 ? N - 1 : 0);
  }
};

}  // namespace nax::optim::detail
