// grad and value_and_grad on device arrays: the device's memory space for the autodiff layer
// (autodiff/space.hpp). A program whose output reads nax::cuda arrays runs its forward and
// backward passes in one device context (reductions and contractions of the forward pass
// are reused by the backward pass), accumulates gradients in zero-filled nax::cuda::Arrays,
// and returns the value as a rank-0 nax::cuda::Array. The rules are the host's: a
// cotangent is an expression, lowered to the same kernels as any device expression.
#pragma once
#include <memory>

#include "assign.hpp"

namespace nax::cuda::detail {

struct device_space {
  using context = detail::context;
  static context make_context() { return context(nax::cuda::current_device()); }
  template <class T, class Axes>
  using array = device_array_for_t<T, Axes>;

  template <class T, class Axes, std::size_t N>
  static auto uninitialised(const std::array<index_t, N>& extents) {
    return std::make_shared<array<T, Axes>>(array<T, Axes>::uninitialized, extents);
  }
  template <class T, class... As, class E>
  static void assign(const nax::ArrayView<T, As...>& out, const E& e, context& ctx) {
    assign_in_context(out, e, ctx);
  }
  template <class T, class... As>
  static nax::ArrayView<T, As...> writable(nax::cuda::Array<T, As...>& a) {
    return mutable_host_view(a);
  }
  template <class E>
  static auto materialise(const E& e, context& ctx) {
    return materialise_any(e, ctx);
  }
  template <class T, class L>
  static nax::cuda::Array<T> scalar(const L& leaf) {
    return nax::cuda::Array<T>(leaf);
  }
};

}  // namespace nax::cuda::detail

namespace nax::detail::ad {
// Programs that read device arrays are differentiated on the device.
template <class E>
struct space_of<E, std::enable_if_t<nax::cuda::detail::reads_device<E>::value>> {
  using type = nax::cuda::detail::device_space;
};
}  // namespace nax::detail::ad
