// The device's memory space (backend/host/space.hpp says what a space is). A program whose
// outputs read nax::cuda arrays runs on the device: grad's forward and backward passes share
// one device context (reductions and contractions of the forward pass are reused by the
// backward pass) and accumulate gradients in zero-filled nax::cuda::Arrays, the value is a
// rank-0 nax::cuda::Array; each device of an xmap evaluates its outputs into
// nax::cuda::Arrays. The rules are the host's: a cotangent is an expression, lowered to the
// same kernels as any device expression.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>

#include "../host/space.hpp"
#include "assign.hpp"
#include "host_staging.hpp"

namespace nax::cuda::detail {

struct device_space {
  using context = detail::context;
  static context make_context() { return context(nax::cuda::current_device()); }
  // xmap's hooks. The arguments are complete before the mesh runs and each thread waits for
  // its own stream before the first barrier, so no thread queues work on another's stream (a
  // mesh thread may be blocked in an NCCL kernel there). Shards of the results are written by
  // the thread of the results' GPU alone, after every device's outputs are complete.
  static constexpr bool parallel_shard_writes = false;
  static int home() { return nax::cuda::current_device(); }
  // On a mesh of host devices, each thread runs on the caller's GPU (a CUDA mesh has made the
  // thread's own GPU current).
  class mesh_scope {
   public:
    mesh_scope(int home, bool mesh_sets_device) {
      if (!mesh_sets_device) guard_.emplace(home);
    }

   private:
    std::optional<device_guard> guard_;
  };
  static void before_mesh() { synchronize_used_devices(); }
  static context make_mesh_context() { return context(nax::cuda::current_device(), true); }
  static void finish(context& ctx) {
    device_guard guard(ctx.device);
    NAX_CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
  }
  template <class A>
  static context context_for(const A& a) {
    return context(a.device(), true);
  }
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
  template <class Communicator, class T, class... As>
  static void sum_over_members(Communicator& comm, nax::cuda::Array<T, As...>& a) {  // as the host's
    all_reduce_device_buffer(comm, a.data(), a.size(), a.device());
  }
  template <class Communicator, class T, class... As>
  static void combine_disjoint(Communicator& comm, nax::cuda::Array<T, As...>& a) {  // as the host's
    all_reduce_device_buffer(comm, reinterpret_cast<std::uint8_t*>(a.data()), a.size() * index_t{sizeof(T)},
                             a.device());
  }
};

}  // namespace nax::cuda::detail

namespace nax::detail {
// Programs that read device arrays run on the device.
template <class E>
struct space_of<E, std::enable_if_t<nax::cuda::detail::reads_device<E>::value>> {
  using type = nax::cuda::detail::device_space;
};
}  // namespace nax::detail
