// The device's memory space (lower/space_of.hpp says what a space is; its mesh hooks are
// mesh/space_on_mesh_cuda.hpp's). A program whose outputs read nax::cuda arrays runs on the
// device: grad's forward and backward passes share one device context (reductions and
// contractions of the forward pass are reused by the backward pass) and accumulate gradients
// in zero-filled nax::cuda::Arrays, the value is a rank-0 nax::cuda::Array; each device of an
// xmap evaluates its outputs into nax::cuda::Arrays. The rules are the host's: a cotangent is
// an expression, lowered to the same kernels as any device expression.
#pragma once
#include <memory>
#include <type_traits>

#include "../host/space.hpp"
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
  // A view that writable gave, read as a device leaf (its memory is on the context's device,
  // where the space made it).
  template <class T, class... As>
  static DeviceLeaf<std::remove_const_t<T>, As...> read(const nax::ArrayView<T, As...>& v, context& ctx) {
    return {{}, nax::ArrayView<const std::remove_const_t<T>, As...>(v.data(), v.extents(), v.strides()), {}, ctx.device, 0};
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

static_assert(nax::detail::memory_space<device_space>);

}  // namespace nax::cuda::detail

namespace nax::detail {
// Programs that read device arrays run on the device.
template <class E>
struct space_of<E, std::enable_if_t<nax::cuda::detail::reads_device<E>::value>> {
  using type = nax::cuda::detail::device_space;
};
}  // namespace nax::detail
